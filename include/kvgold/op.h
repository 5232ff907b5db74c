/*
 * kvgold/op.h - every operator through one generic, in-memory entry point.
 *
 * The per-operator headers (kvgold/<op>.h, one per operator) are the
 * typed API. This header is the generic one that the CLI, the benchmark, the
 * tests and the Python binding all call: look an operator up by its case.json
 * name, hand it named tensors and named attributes / options, get its outputs
 * written or a status and a message.
 *
 *   const kvg_op *op = kvg_op_find(name);        (a case.json "op" name)
 *   kvg_named_tensor t[] = {{"kv", &kv}, {"gamma", &gamma}, ...,
 *                           {"k_cache", &k_cache}, {"ckv_cache", &ckv}};
 *   kvg_value a[] = {KVG_VALUE_STR("cache_mode", "PA_NZ")};
 *   kvg_op_call call;
 *   kvg_op_call_init(&call, op);
 *   call.tensors = t; call.tensor_count = 7;
 *   call.attrs = a;   call.attr_count = 1;
 *   kvg_op_workspace_size(&call, &bytes, &diag);   (then give a workspace)
 *   kvg_op_run(&call, &diag);
 *
 * Names are exactly the spec's (section 5): tensor names as in case.json's
 * "inputs" / "expected", attribute names as in "attrs", option names as in
 * "options" (attributes and options share one namespace per operator).
 * Attributes not given take the operator's documented defaults.
 *
 * The generic entry point adds no semantics: kvg_op_run fills the operator's
 * args struct from the names and calls the typed entry point, so a generic
 * call and a typed call with the same arguments give the same bytes and the
 * same status and message. Its own refusals - an unknown operator, tensor or
 * attribute name, a name given twice, a value of the wrong type, a string
 * that names no mode - are KVG_ERR_PARAM_INVALID (a NULL call, op or tensor
 * view is KVG_ERR_PARAM_NULLPTR), with diag->tensor set to the name. Like
 * every kvgold call it validates everything before writing a byte, never
 * allocates, and keeps no pointer after it returns.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_OP_H
#define KVGOLD_OP_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/compare.h"
#include "kvgold/dtype.h"
#include "kvgold/layout.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An operator's description. Opaque; every one is static and lives as
 * long as the library. */
typedef struct kvg_op kvg_op;

/* ---- the registry ------------------------------------------------------ */

/* How many operators kvgold has, and the i-th (NULL when i >= count), in a
 * fixed order. */
KVG_API size_t kvg_op_count(void);
KVG_API const kvg_op *kvg_op_at(size_t i);

/* The operator of a case.json "op" name; NULL when there is none or name
 * is NULL. */
KVG_API const kvg_op *kvg_op_find(const char *name);

/* Its case.json name; never NULL for a non-NULL op. */
KVG_API const char *kvg_op_name(const kvg_op *op);

/* ---- the tensor table -------------------------------------------------- */

typedef enum kvg_op_tensor_kind {
    KVG_OP_INPUT = 0,  /* read, never written */
    KVG_OP_CACHE = 1,  /* in place: read, then updated */
    KVG_OP_OUTPUT = 2  /* written, never read */
} kvg_op_tensor_kind;

typedef enum kvg_op_presence {
    KVG_OP_REQUIRED = 0, /* must be given */
    KVG_OP_OPTIONAL = 1, /* may be given; the operator says when it must */
    KVG_OP_PRODUCED = 2  /* an output the call produces only for some
                            attributes (is_output_kv...): see
                            kvg_op_output_shape */
} kvg_op_presence;

typedef struct kvg_op_tensor_info {
    const char *name; /* spec snake_case name */
    kvg_op_tensor_kind kind;
    kvg_op_presence presence;
} kvg_op_tensor_info;

/* The operator's tensors, in the order of its args struct; the i-th is
 * NULL when i >= count. */
KVG_API size_t kvg_op_tensor_count(const kvg_op *op);
KVG_API const kvg_op_tensor_info *kvg_op_tensor_at(const kvg_op *op,
                                                   size_t i);

/* ---- attributes and options -------------------------------------------- */

typedef enum kvg_value_type {
    KVG_VALUE_INT = 0,    /* int64 */
    KVG_VALUE_FLOAT = 1,  /* double (an INT value is accepted too) */
    KVG_VALUE_BOOL = 2,   /* 0 or 1 in `i` */
    KVG_VALUE_STRING = 3, /* NUL-terminated, in `s` */
    KVG_VALUE_INTS = 4    /* `count` int64 at `ints` */
} kvg_value_type;

typedef struct kvg_op_attr_info {
    const char *name;
    kvg_value_type type;
    int is_option;     /* 0: an operator attribute (case.json "attrs");
                          1: a kvgold option ("options": reduce order,
                          profile, overflow...) */
    int required;      /* 1: no default; the call fails without it */
    const char *dflt;  /* the default as case.json would write it ("1e-05",
                          "\"Norm\"", "false"), NULL when required */
} kvg_op_attr_info;

KVG_API size_t kvg_op_attr_count(const kvg_op *op);
KVG_API const kvg_op_attr_info *kvg_op_attr_at(const kvg_op *op, size_t i);

/* The entry of tensor `name` / of attribute or option `name` (its older
 * spelling included), or NULL when the operator has none of that name. */
KVG_API const kvg_op_tensor_info *kvg_op_tensor_find(const kvg_op *op,
                                                     const char *name);
KVG_API const kvg_op_attr_info *kvg_op_attr_find(const kvg_op *op,
                                                 const char *name);

/* The older spelling of attribute `name` that is still read (case files
 * and user code that use it keep working; kvg_op_attr_at lists only the
 * current name), or NULL. A call that gives both spellings is refused. */
KVG_API const char *kvg_op_attr_old_name(const kvg_op *op, const char *name);

/*
 * How case.json files treat a tensor or attribute `name` (bits; 0 for an
 * unknown name):
 *   KVG_OP_CASE_REQUIRED  a tensor a case must list: a case without it is a
 *                         malformed file, not a call the operator refuses;
 *   KVG_OP_CASE_FORMAT    an attribute whose value, refused by
 *                         kvg_op_check_value, makes the file malformed
 *                         (KVG_ERR_FILE_FORMAT) rather than the call
 *                         refused (161002): a mode string that names no mode.
 */
#define KVG_OP_CASE_REQUIRED 1u
#define KVG_OP_CASE_FORMAT 2u
KVG_API unsigned kvg_op_case_rules(const kvg_op *op, const char *name);

/* One named value. Only the field of `type` is read. */
typedef struct kvg_value {
    const char *name;
    kvg_value_type type;
    int64_t i;          /* INT, BOOL */
    double f;           /* FLOAT */
    const char *s;      /* STRING */
    const int64_t *ints; /* INTS */
    size_t count;        /* INTS */
} kvg_value;

/* Initialisers for a kvg_value array. */
#define KVG_VALUE_I64(n, v) {(n), KVG_VALUE_INT, (v), 0.0, NULL, NULL, 0}
#define KVG_VALUE_F64(n, v) {(n), KVG_VALUE_FLOAT, 0, (v), NULL, NULL, 0}
#define KVG_VALUE_BOOLEAN(n, v) {(n), KVG_VALUE_BOOL, (v), 0.0, NULL, NULL, 0}
#define KVG_VALUE_STR(n, v) {(n), KVG_VALUE_STRING, 0, 0.0, (v), NULL, 0}
#define KVG_VALUE_LIST(n, p, c) {(n), KVG_VALUE_INTS, 0, 0.0, NULL, (p), (c)}

/*
 * One value checked alone as kvg_op_run checks it: its attribute exists,
 * its type fits (an INT for a FLOAT is accepted), a boolean is 0 or 1, a
 * mode string names a mode. KVG_OK, or the refusal kvg_op_run would give
 * (status, diag->tensor the attribute's name, message "<name>: ...").
 */
KVG_API kvg_status kvg_op_check_value(const kvg_op *op, const kvg_value *v,
                                      kvg_diag *diag);

/* ---- a call ------------------------------------------------------------- */

typedef struct kvg_named_tensor {
    const char *name;
    const kvg_tensor *tensor; /* caches are updated and outputs written
                                 through tensor->data */
} kvg_named_tensor;

typedef struct kvg_op_call {
    const kvg_op *op;
    const kvg_named_tensor *tensors; /* inputs, caches and outputs, any
                                        order; an absent optional tensor is
                                        simply not listed */
    size_t tensor_count;
    const kvg_value *attrs;          /* attributes and options, any order */
    size_t attr_count;
    void *workspace;                 /* kvg_op_workspace_size bytes */
    size_t workspace_size;
} kvg_op_call;

/* Zero a call and set its operator. */
KVG_API void kvg_op_call_init(kvg_op_call *call, const kvg_op *op);

/*
 * Whether this call produces output `name`, and its dtype and shape, from
 * the shapes and dtypes of the given inputs and the attributes (no tensor
 * data is read), so a caller can allocate it. *produced is 0 for an output
 * the attributes switch off (is_output_kv false); then dtype, rank and shape
 * are untouched. For an in-place cache, the cache's own dtype and shape;
 * *produced 0 for an optional cache the call does not get (a key-only
 * call has no value_cache).
 * Fails (KVG_ERR_PARAM_INVALID, naming what is missing or malformed) when
 * the inputs it needs are absent or cannot define the shape.
 */
KVG_API kvg_status kvg_op_output_shape(const kvg_op_call *call,
                                       const char *name, int *produced,
                                       kvg_dtype *dtype, int *rank,
                                       int64_t shape[KVG_MAX_RANK],
                                       kvg_diag *diag);

/* The workspace the call needs (the typed *_workspace_size: every shape,
 * dtype and attribute check of the operator runs). */
KVG_API kvg_status kvg_op_workspace_size(const kvg_op_call *call,
                                         size_t *bytes, kvg_diag *diag);

/* Run the operator (the typed entry point). */
KVG_API kvg_status kvg_op_run(const kvg_op_call *call, kvg_diag *diag);

/*
 * How output `name` of this call is judged and addressed by kvgold/compare.h:
 * the role that steers KVG_CRIT_AUTO and, for a cache, the layout that turns
 * a flat element index into (block, slot, head, channel) (*has_layout 0 when
 * the shapes cannot describe one; the report then uses C-order indices).
 * `output` is the output tensor itself (its dtype picks the role).
 */
KVG_API kvg_status kvg_op_describe_output(const kvg_op_call *call,
                                          const char *name,
                                          const kvg_tensor *output,
                                          kvg_compare_role *role,
                                          int *has_layout,
                                          kvg_cache_layout *layout,
                                          kvg_diag *diag);

/*
 * The packed-row layout of output or cache `name` of this call
 * (kvgold/row_layout.h: which bytes of a slot hold which field), for
 * kvg_compare_args.row_layout, checked and covering the whole cache. A
 * layout over two tensors (scales in a tensor of their own) is the SAME
 * for each of its tensors' names: the caller finds which one it asked
 * about with kvg_row_tensor_of(out, name), for
 * kvg_compare_args.row_tensor.
 * KVG_OK with *out filled; KVG_OK with *out zeroed (out->segments 0:
 * "none", not a layout kvg_row_layout_check accepts) when the operator
 * writes no packed rows into that tensor in this call (the operators
 * whose descriptor has no row_layout hook, and their other tensors); the
 * call's own refusal (161001 /
 * 161002) when its names or values are wrong, *out untouched. No
 * allocation. (kvgold has no "not supported" status: "none" is an
 * answer, not an error.)
 */
KVG_API kvg_status kvg_op_row_layout(const kvg_op_call *call,
                                     const char *name, kvg_row_layout *out,
                                     kvg_diag *diag);
/* sizeof(kvg_row_layout), for bindings that hold it as an opaque buffer
 * (the Python package). */
KVG_API size_t kvg_op_row_layout_size(void);

/* ---- a prepared call ------------------------------------------------------
 *
 * The names of a call resolved once into the operator's own typed
 * arguments, so that the same call runs again without a name lookup: the
 * benchmark times the operator alone this way. kvg_op_prepare checks the
 * names and values exactly as kvg_op_run does (the same refusals) and
 * keeps the call's pointers (tensors, workspace), never the call itself;
 * kvg_op_run_prepared(&p) then does what kvg_op_run(call) would, every
 * shape and index check included. The struct is the caller's (no
 * allocation); its `args` are private to the library. After a refused
 * kvg_op_prepare, p->op is NULL and kvg_op_run_prepared refuses it
 * (KVG_ERR_PARAM_NULLPTR).
 */
#define KVG_OP_ARGS_BYTES 512
typedef struct kvg_op_args_buf {
    union {
        long double ld;
        void *p;
        int64_t i;
        double d;
        unsigned char bytes[KVG_OP_ARGS_BYTES];
    } u;
    unsigned flags;
} kvg_op_args_buf;

typedef struct kvg_op_prepared {
    const kvg_op *op;
    kvg_op_args_buf args; /* private: the operator's typed args struct */
} kvg_op_prepared;

KVG_API kvg_status kvg_op_prepare(const kvg_op_call *call, kvg_op_prepared *p,
                                  kvg_diag *diag);
KVG_API kvg_status kvg_op_run_prepared(const kvg_op_prepared *p,
                                       kvg_diag *diag);

/* ---- what a call writes ------------------------------------------------- */

/* `count` consecutive flat elements of a tensor, from element `first`. */
typedef struct kvg_elem_run {
    int64_t first;
    int64_t count;
} kvg_elem_run;

/*
 * The elements of output or in-place cache `name` that this call writes,
 * computed from the shapes, the attributes and the index values alone (no
 * cache or output is read or written, and the operator does not run), so a
 * caller can judge the written elements of a multi-GiB cache without a mask
 * or a second run. For an output that is written whole, one run. The runs
 * come from the operator's own addressing (kvg_layout_offset): a cache row
 * is one run in ND / BNSD, D/C0 runs of C0 elements in NZ.
 *
 * The runs are stored in `runs` (capacity `cap`), sorted by `first`,
 * disjoint, and adjacent runs merged; *count receives their number. With
 * runs NULL (or cap too small: then KVG_ERR_PARAM_INVALID naming `name`,
 * and not one element of `runs` is written), *count receives the capacity
 * the call needs, which is at least the final number. *produced is 0 (no
 * runs) for an output the attributes switch off or an optional cache the
 * call does not get. The call is validated
 * exactly as kvg_op_run validates it - shapes, attributes, buffers apart,
 * the workspace, the index values (and, where the operator refuses them,
 * inf / NaN inputs) - so a call kvg_op_run would refuse is refused here
 * with the same status, tensor and message, and *produced and *count are
 * untouched; the workspace must be the call's (the duplicate checks use
 * it). A number of runs that overflows size_t is refused. No allocation;
 * O(runs written + inputs), the sort O(n log n) in `runs` itself; the runs
 * never reach outside the tensor.
 */
KVG_API kvg_status kvg_op_written_runs(const kvg_op_call *call,
                                       const char *name, int *produced,
                                       kvg_elem_run *runs, size_t cap,
                                       size_t *count, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_OP_H */
