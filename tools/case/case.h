/*
 * tools/case/case.h - loading and running a case directory (spec section 5).
 *
 * A case is case.json plus one .npy per tensor. This layer belongs to the
 * tools and tests, not to the core library: it parses JSON with the strict
 * reader of tools/json and allocates. It is strict: invalid JSON (duplicate
 * keys, text after the object, \u0000, ...; see json.h), unknown keys,
 * non-integral or out-of-int64 integers, missing files, wrong dtype tags and
 * storage mismatches are errors (KVG_ERR_FILE_FORMAT, or KVG_ERR_IO) whose
 * message names the file, the field and, for what is in case.json, its
 * line and column ("DIR/case.json:LINE:COL: what"). Integers are read
 * exactly, never through a double.
 *
 * case.json keys: "op" (required), "attrs", "options", "inputs" (required),
 * "expected", "comment", "flags", "expect_error". Each tensor entry is
 * {"file": "<name>.npy", "dtype": "<tag>"} with an optional "shape" (which
 * the file's must equal), or {"file": "<name>.bin", "dtype", "shape"} for
 * a headerless raw dump (tools/case/tensor_file.h).
 * "expect_error" is {"status": 161002, "tensor": "index"} ("tensor"
 * optional) for cases the operator must refuse.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_CASE_H
#define KVGOLD_TOOLS_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

struct kvg_json; /* tools/json/json.h */

#define KVG_CASE_MAX_TENSORS 32
#define KVG_CASE_NAME_MAX 48
#define KVG_CASE_PATH_MAX 1024

typedef struct kvg_case_tensor {
    char name[KVG_CASE_NAME_MAX];
    char file[KVG_CASE_PATH_MAX]; /* as written in case.json */
    kvg_tensor t;                 /* owns t.data (malloc) */
} kvg_case_tensor;

typedef struct kvg_case_set {
    int count;
    kvg_case_tensor items[KVG_CASE_MAX_TENSORS];
} kvg_case_set;

typedef struct kvg_case {
    char dir[KVG_CASE_PATH_MAX];
    char op[KVG_CASE_NAME_MAX];
    struct kvg_json *json;          /* the whole document */
    const struct kvg_json *attrs;   /* NULL if absent */
    const struct kvg_json *options; /* NULL if absent */
    kvg_case_set inputs;
    kvg_case_set expected;
    int expect_error;            /* 1 if "expect_error" is present */
    kvg_status expect_status;
    char expect_tensor[KVG_CASE_NAME_MAX];
} kvg_case;

/* Load dir/case.json and every tensor it names. On failure `c` is freed. */
kvg_status kvg_case_load(const char *dir, kvg_case *c, kvg_diag *diag);
void kvg_case_free(kvg_case *c);

/* The tensor called `name` in a set, or NULL. */
const kvg_tensor *kvg_case_find(const kvg_case_set *set, const char *name);

/* Append a tensor to a set: allocated (and zero-filled) for `shape`, or a
 * deep copy of `src` when shape is NULL. Returns NULL (diag filled) when the
 * set is full or memory runs out. */
kvg_tensor *kvg_case_set_add(kvg_case_set *set, const char *name,
                             kvg_dtype dtype, int rank, const int64_t *shape,
                             const kvg_tensor *src, kvg_diag *diag);
void kvg_case_set_free(kvg_case_set *set);

/*
 * Strict readers for "attrs" / "options" objects. `obj` may be NULL (then
 * every key is absent). Absent keys take `dflt` unless `required`, which is
 * an error. A key of the wrong JSON type is an error naming the key.
 */
kvg_status kvg_case_check_keys(const kvg_case *c, const struct kvg_json *obj,
                               const char *where, const char *const *allowed,
                               kvg_diag *diag);
kvg_status kvg_case_get_ints(const kvg_case *c, const struct kvg_json *obj,
                             const char *key, int required, int64_t *out,
                             int max, int *count, kvg_diag *diag);
kvg_status kvg_case_get_double(const kvg_case *c, const struct kvg_json *obj,
                               const char *key, double dflt, double *out,
                               kvg_diag *diag);
kvg_status kvg_case_get_bool(const kvg_case *c, const struct kvg_json *obj,
                             const char *key, int dflt, int *out,
                             kvg_diag *diag);
kvg_status kvg_case_get_string(const kvg_case *c, const struct kvg_json *obj,
                               const char *key, const char *dflt, char *out,
                               size_t cap, kvg_diag *diag);

/* Inputs and expected outputs may only use the names in `inputs` /
 * `outputs` (NULL-terminated lists); names in `required` must be inputs. */
kvg_status kvg_case_check_names(const kvg_case *c, const char *const *inputs,
                                const char *const *required,
                                const char *const *outputs, kvg_diag *diag);

/* options.reduce_order ("pairwise" when absent) for ops that have one. */
kvg_status kvg_case_get_reduce_order(const kvg_case *c, int *order,
                                     kvg_diag *diag);

/*
 * Run the case's operator on its inputs. `outputs` receives every output the
 * op produces, under the spec's names (in-place caches as a copy of the
 * input, then updated). The inputs are never modified.
 */
kvg_status kvg_case_run(const kvg_case *c, kvg_case_set *outputs,
                        kvg_diag *diag);

/* One entry per operator (tools/case/case_<op>.c). */
typedef kvg_status (*kvg_case_runner)(const kvg_case *c, kvg_case_set *outputs,
                                      kvg_diag *diag);
kvg_status kvg_case_run_qkv_rms_norm_rope_cache(const kvg_case *c,
                                                kvg_case_set *outputs,
                                                kvg_diag *diag);
kvg_status kvg_case_run_kv_rms_norm_rope_cache(const kvg_case *c,
                                               kvg_case_set *outputs,
                                               kvg_diag *diag);
kvg_status kvg_case_run_reshape_and_cache_omni(const kvg_case *c,
                                               kvg_case_set *outputs,
                                               kvg_diag *diag);
kvg_status kvg_case_run_reshape_and_cache(const kvg_case *c,
                                          kvg_case_set *outputs,
                                          kvg_diag *diag);

/* The runner for an op name, or NULL. */
kvg_case_runner kvg_case_runner_for(const char *op);

/* The operator names kvgold knows, NULL-terminated. */
extern const char *const kvg_case_ops[];

/* Allocate a workspace of `size` bytes (at least 1); NULL on failure. */
void *kvg_case_workspace(size_t size);

#endif /* KVGOLD_TOOLS_CASE_H */
