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

/*
 * Every call form of every operator, as tools/lib/bindings/<op>.c states
 * it (binding.h, kvg_binding_call), so that the Python package builds its
 * torch_npu call forms from the one statement instead of restating them.
 * Forms are numbered per operator in the binding's order. All strings are
 * static; nothing is allocated.
 */

/* How many call forms operator `op` (the registry's name) has: 0 when it
 * has no binding. */
KVG_API size_t kvg_py_call_form_count(const char *op);

/* A text field of form `i` of operator `op`: "kind" ("torch_npu",
 * "aclnn" or "atb"), "api", "selector" or "note". NULL when the form has
 * none, the field is not one of these, or there is no such form. */
KVG_API const char *kvg_py_call_form_text(const char *op, size_t i,
                                          const char *field);

/* A list field of form `i` of operator `op`, NULL-terminated: "names",
 * "tensors", "attrs", "positional", "keywords" (pairs: framework keyword,
 * kvgold name or "=attr"), "outputs" or "framework_attrs". NULL when the
 * form has none (binding.h says what an absent list means), the field is
 * not one of these, or there is no such form. */
KVG_API const char *const *kvg_py_call_form_list(const char *op, size_t i,
                                                 const char *field);

#endif /* KVGOLD_TOOLS_PYTHON_BINDING_API_H */
