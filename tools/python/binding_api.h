/*
 * tools/python/binding_api.h - the operators' call forms
 * (tools/lib/bindings) as libkvgold_case.so gives them to the Python
 * package, so that a rule a framework applies to a call is written once,
 * in C, and both the kvgold command and kvgold's torch_npu functions follow
 * it. Not part of the C library's API: only kvgold/_lib.py calls these.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_PYTHON_BINDING_API_H
#define KVGOLD_TOOLS_PYTHON_BINDING_API_H

#include <stddef.h>

#include "kvgold/api.h"

/*
 * The value (JSON text, static) the framework gives attribute `attr` on
 * the call form named `api` (its full name, "torch_npu.npu_..."), for a
 * call whose given inputs are names[0..n) of ranks[0..n) (kvgold's input
 * names; inputs not listed are not given): a framework default or a value
 * the framework or the hardware decides (binding.h, framework_attrs).
 * NULL when no form is named `api` or it sets no such attribute.
 */
KVG_API const char *kvg_py_framework_value(const char *api, const char *attr,
                                           const char *const *names,
                                           const int *ranks, size_t n);

#endif /* KVGOLD_TOOLS_PYTHON_BINDING_API_H */
