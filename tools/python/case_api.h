/*
 * tools/python/case_api.h - the case directory functions of the libkvgold.so
 * made for the Python package (tools/python/CMakeLists.txt): the command's
 * own loader and all-or-nothing writer (tools/lib/case, tools/lib/fsio), so that
 * kvgold.load_case / kvgold.save_case and the kvgold command cannot
 * disagree on a case file. Not part of the C library's API: only the
 * package's ctypes declarations (kvgold/_lib.py) call them.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_PYTHON_CASE_API_H
#define KVGOLD_TOOLS_PYTHON_CASE_API_H

#include <stddef.h>

#include "kvgold/api.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

typedef struct kvg_py_case kvg_py_case;

/*
 * Load DIR as `kvgold check DIR` does before it runs anything: case.json
 * through the strict JSON reader, every tensor file header first and from
 * regular files only, and - unless the case has "expect_error", whose
 * refusals `check` compares instead - its attributes, options and tensor
 * names read by the operator's tables. *out is NULL on failure.
 */
KVG_API kvg_status kvg_py_case_load(const char *dir, kvg_py_case **out,
                                    kvg_diag *diag);

/* The document as the loader read it, written back as compact JSON (keys
 * in file order, numbers in their source text, strings escaped). */
KVG_API const char *kvg_py_case_doc(const kvg_py_case *c);

/* The tensors of "inputs" (expected 0) or "expected" (1): how many, and
 * the name and tensor of entry i (NULL past the end). The tensor's data
 * belongs to the case. */
KVG_API int kvg_py_case_count(const kvg_py_case *c, int expected);
KVG_API const char *kvg_py_case_name(const kvg_py_case *c, int expected,
                                     int i);
KVG_API const kvg_tensor *kvg_py_case_tensor(const kvg_py_case *c,
                                             int expected, int i);

KVG_API void kvg_py_case_free(kvg_py_case *c); /* NULL-safe */

/*
 * Write a case directory all or nothing, as `kvgold run --out` writes
 * (tools/lib/fsio/outset.h): `count` tensors as names[i] (.npy files), then
 * case.json holding `json_len` bytes of `json`, which must be a JSON
 * object the loader reads (json NULL: the tensors only, e.g. NPU dumps). Every target is checked before anything is
 * written; nothing is written through a symlink or into a hard-linked
 * file; on any error no file of DIR has changed. Messages name the file.
 */
KVG_API kvg_status kvg_py_case_save(const char *dir, const char *json,
                                    size_t json_len,
                                    const char *const *names,
                                    const kvg_tensor *tensors, int count,
                                    kvg_diag *diag);

#endif /* KVGOLD_TOOLS_PYTHON_CASE_API_H */
