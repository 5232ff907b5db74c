/*
 * tools/lib/case/case.h - loading and running a case directory (spec section 5).
 *
 * A case is case.json plus one .npy per tensor. This layer belongs to the
 * tools and tests, not to the core library: it parses JSON with the strict
 * reader of tools/lib/json and allocates. It is strict: invalid JSON (duplicate
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
 * a headerless raw dump (tools/lib/case/tensor_file.h).
 * "expect_error" is {"status": 161002, "tensor": "index"} ("tensor"
 * optional) for cases the operator must refuse.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_CASE_H
#define KVGOLD_TOOLS_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/op.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"
#include "npy_map.h"

struct kvg_json; /* tools/lib/json/json.h */

#define KVG_CASE_MAX_TENSORS 32
#define KVG_CASE_NAME_MAX 48
#define KVG_CASE_PATH_MAX 1024

typedef struct kvg_case_tensor {
    char name[KVG_CASE_NAME_MAX];
    char file[KVG_CASE_PATH_MAX]; /* as written in case.json */
    kvg_tensor t;                 /* owns t.data (malloc, or map) */
    kvg_file_map map;             /* base non-NULL: t.data is mapped */
    /* bytes reserved (membudget.h) for the pages of a private mapping the
     * golden will write, each of which the kernel copies */
    uint64_t cow_reserved;
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

/* The same, with flags. KVG_CASE_NO_EXPECTED_DATA: the "expected" entries
 * are read (name, file, dtype) but not their files (t.data NULL, nbytes
 * 0), for `run` and `compare`, which never look at them: a multi-GiB
 * expected cache costs neither the memory nor the read. */
#define KVG_CASE_NO_EXPECTED_DATA 1u
/* KVG_CASE_MAP_BIG: input files of KVG_TENSOR_MAP_MIN bytes or more are
 * mapped read-only (npy_map.h) instead of read, and a cache the golden
 * updates becomes a private copy-on-write mapping of its file, so only
 * the pages it writes are copied. KVG_CASE_MAP_ALL: every input file
 * that can be mapped is (for tests on small cases). */
#define KVG_CASE_MAP_BIG 2u
#define KVG_CASE_MAP_ALL 4u
kvg_status kvg_case_load_with(const char *dir, kvg_case *c, unsigned flags,
                              kvg_diag *diag);
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

/* Append to `set` the starting contents of in-place cache `name` of case
 * `c`: a private copy-on-write mapping of its file when the input is
 * mapped, else a copy as kvg_case_set_add makes. */
kvg_tensor *kvg_case_set_add_cache(kvg_case_set *set, const kvg_case *c,
                                   const char *name, kvg_diag *diag);

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

/* ---- the generic adapter (tools/lib/case/case_op.c) ----------------------- */

#define KVG_CASE_MAX_VALUES 16
#define KVG_CASE_MAX_INTS 8
#define KVG_CASE_STRING_MAX 32

/* A case as a generic call (kvgold/op.h), with the storage its values
 * point into. Its tensors point into the case (and, after kvg_case_run's
 * setup, into the outputs), so it lives no longer than they do. */
typedef struct kvg_case_call {
    kvg_op_call call;
    kvg_named_tensor tensors[KVG_CASE_MAX_TENSORS];
    kvg_value values[KVG_CASE_MAX_VALUES];
    int64_t ints[KVG_CASE_MAX_VALUES][KVG_CASE_MAX_INTS];
    char strings[KVG_CASE_MAX_VALUES][KVG_CASE_STRING_MAX];
} kvg_case_call;

/*
 * The call of case `c`: its operator, every tensor of "inputs" under its
 * name, every attribute and option it gives, read by the operator's
 * attribute table. Refuses (KVG_ERR_FILE_FORMAT, naming the key) names the
 * operator does not have, values of the wrong JSON type, missing tensors a
 * case must give, and mode strings a case file must get right.
 */
kvg_status kvg_case_call_build(const kvg_case *c, kvg_case_call *cc,
                               kvg_diag *diag);

/* How kvg_case_run_with calls the operator: kvg_op_run, or a stand-in with
 * its signature (the benchmark's timing shim). */
typedef kvg_status (*kvg_case_op_runner)(const kvg_op_call *call,
                                         kvg_diag *diag);
kvg_status kvg_case_run_with(const kvg_case *c, kvg_case_set *outputs,
                             kvg_case_op_runner run, kvg_diag *diag);

/* kvg_op_describe_output for output `name` of case `c`. */
kvg_status kvg_case_describe_output(const kvg_case *c, const char *name,
                                    const kvg_tensor *output,
                                    kvg_compare_role *role, int *has_layout,
                                    kvg_cache_layout *layout, kvg_diag *diag);

/* kvg_op_row_layout for output `name` of case `c`: KVG_OK with *out set
 * (out->segments > 0: the tensor is a packed cache, judged field by
 * field; 0: the operator has none for it), or the call's refusal with
 * `diag` filled. */
kvg_status kvg_case_row_layout(const kvg_case *c, const char *name,
                               kvg_row_layout *out, kvg_diag *diag);
/* The same for `compare` and `scan`: on a refusal *res is filled as NOT
 * JUDGED with its reason (a packed cache is never judged as plain bytes)
 * and the refusal's status returned. */
kvg_status kvg_case_row_layout_or_not_judged(const kvg_case *c,
                                             const char *name,
                                             kvg_dtype dtype,
                                             kvg_row_layout *out,
                                             kvg_compare_result *res);

/* A packed cache judged field by field (a->row_layout) is judged as its
 * bytes: when it is not held as 1-byte codes compare takes (e8m0, packed
 * fp4, fp32 scales), a's golden, actual and initial are re-pointed to
 * uint8 [nbytes] views in *v and its written runs (elements) to byte runs
 * (allocated in v->runs when an element is wider than a byte). Nothing
 * changes for other tensors. Free with kvg_case_byte_view_free. */
typedef struct kvg_case_byte_view {
    kvg_tensor golden, actual, initial;
    kvg_elem_run *runs;
} kvg_case_byte_view;
kvg_status kvg_case_rows_as_bytes(kvg_compare_args *a, kvg_case_byte_view *v,
                                  kvg_diag *diag);
void kvg_case_byte_view_free(kvg_case_byte_view *v);

/* 1 if the case's operator takes option `name` ("reduce_order"). */
int kvg_case_has_option(const kvg_case *c, const char *name);

/* ---- bit-for-bit verification (tools/lib/case/case_verify.c) --------------- */

/* Expected tensor i of a case against the output of the same name. */
typedef struct kvg_case_verdict {
    const char *name;
    const kvg_tensor *want;
    const kvg_tensor *got; /* NULL: the run did not produce it */
    int same_geometry;     /* dtype, rank, shape and nbytes equal */
    long long differing;   /* elements whose bytes differ; -1 when the
                              geometry differs (not compared) */
    long long first;       /* the first differing element, or -1 */
} kvg_case_verdict;

/* Fill *v; returns 1 when the output is bit-exact. */
int kvg_case_verify_tensor(const kvg_case *c, const kvg_case_set *got, int i,
                           kvg_case_verdict *v);
/* How many expected tensors are not bit-exact (missing ones included). */
int kvg_case_verify(const kvg_case *c, const kvg_case_set *got);

/*
 * The elements of output or cache `name` the case's operator writes, as
 * sorted runs (kvg_op_written_runs over the case's call, with the golden
 * `outputs` of kvg_case_run for the shapes): malloc'ed and reserved in the
 * memory ledger, released with kvg_case_runs_free. *runs NULL and *count
 * 0 for an output the attributes switch off.
 */
kvg_status kvg_case_written_runs(const kvg_case *c,
                                 const kvg_case_set *outputs,
                                 const char *name, kvg_elem_run **runs,
                                 size_t *count, kvg_diag *diag);
void kvg_case_runs_free(kvg_elem_run *runs, size_t count);
/* The same verdict as kvg_case_verify_tensor, for mapped tensors in
 * 16 MiB steps, each step's pages given back after it (the expected's,
 * the initial cache's, and the golden's that equal the file again), so
 * `check` of a multi-GiB cache keeps only the pages the golden wrote
 * resident. Unmapped tensors: kvg_case_verify_tensor. */
int kvg_case_verify_tensor_streamed(const kvg_case *c,
                                    const kvg_case_set *got, int i,
                                    kvg_case_verdict *v);

/*
 * The mapped files behind one comparison of a cache with written runs
 * (kvg_compare_tensor with `initial` and `written_runs`): as the comparison
 * leaves an untouched gap behind, its pages are given back, so comparing a
 * multi-GiB cache does not keep the cache, the dump and the golden
 * resident. kvg_case_views_attach fills `v` from a's tensors (golden,
 * actual, initial, third party: set them first) and the mappings they
 * view (NULL, or base NULL, for a tensor that was read: left alone), and
 * points a->left_behind at it; `v` must live as long as `a` is used.
 */
typedef struct kvg_case_views {
    const kvg_file_map *map[4]; /* golden, actual, initial, third party */
    const unsigned char *data[4];
    size_t esize;
} kvg_case_views;
void kvg_case_views_attach(kvg_case_views *v, kvg_compare_args *a,
                           const kvg_file_map *golden,
                           const kvg_file_map *actual,
                           const kvg_file_map *initial,
                           const kvg_file_map *third_party);

/* Allocate a workspace of `size` bytes (at least 1); NULL on failure. */
void *kvg_case_workspace(size_t size);

#endif /* KVGOLD_TOOLS_CASE_H */
