/*
 * src/registry/op_desc.h - what an operator *is*, written once, next to its
 * code (src/ops/<op>/descriptor.c), and read by the generic entry point
 * (kvgold/op.h), the case harness, the CLI, the benchmark and the tests.
 *
 * A descriptor holds the operator's tensor table (spec name, kind, presence,
 * where the pointer sits in the typed args struct), its attribute table
 * (name, type, default, a setter into the args struct) and the typed entry
 * points behind type-erased wrappers. Nothing else in kvgold lists an
 * operator's tensors or attributes.
 *
 * Not installed. The harness (tools/lib/case) reads the case.json conventions
 * (case_required, case_format) from here.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_REGISTRY_OP_DESC_H
#define KVGOLD_SRC_REGISTRY_OP_DESC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvgold/op.h"
#include "kvgold/row_layout.h"

/* The typed args struct of any operator, filled by name. Big enough and
 * aligned for every operator's struct (each descriptor file checks its own
 * at compile time), so a call needs no allocation. `flags` carries the
 * attributes that steer only kvg_op_output_shape (QKV's is_output_qkv: the
 * typed API infers it from the outputs given). */
#define KVG_I_OP_ARGS_MAX KVG_OP_ARGS_BYTES
typedef kvg_op_args_buf kvg_i_op_args;

/* Compile-time check that an args struct fits (C99: a negative array size
 * is an error). */
#define KVG_I_OP_ARGS_FIT(type)                                               \
    typedef char kvg_i_fit_##type[sizeof(type) <= KVG_I_OP_ARGS_MAX ? 1 : -1]

/* The typed args struct is copied out of and back into the buffer: the
 * buffer's declared type is kvg_i_op_args, and reading it through a
 * pointer to another struct type would break C's aliasing rules. NULL
 * stays NULL (a typed call with NULL args reports 161001). */
#define KVG_I_LOAD(type, a, k)                                                \
    type k##_buf;                                                             \
    type *const k = (a) != NULL ? &k##_buf : NULL;                            \
    if ((a) != NULL)                                                          \
    memcpy(&k##_buf, (a)->u.bytes, sizeof k##_buf)
#define KVG_I_STORE(a, k) memcpy((a)->u.bytes, (k), sizeof *(k))

/*
 * The typed-call wrappers every descriptor has - init, workspace_size and
 * run, each loading the typed args and calling the operator's typed
 * function kvg_<op>_args_init, kvg_<op>_workspace_size, kvg_<op> -
 * written once, inside KVG_I_OP_DEFINE below.
 */
#define KVG_I_OP_TYPED_CALLS(op)                                             \
    static void init(kvg_i_op_args *a)                                        \
    {                                                                         \
        kvg_##op##_args k_;                                                   \
        kvg_##op##_args_init(&k_);                                            \
        KVG_I_STORE(a, &k_);                                                  \
    }                                                                         \
    static kvg_status workspace_size(const kvg_i_op_args *a, size_t *bytes,  \
                                     kvg_diag *diag)                          \
    {                                                                         \
        KVG_I_LOAD(kvg_##op##_args, a, k);                                    \
        return kvg_##op##_workspace_size(k, bytes, diag);                     \
    }                                                                         \
    static kvg_status run(const kvg_i_op_args *a, kvg_diag *diag)            \
    {                                                                         \
        KVG_I_LOAD(kvg_##op##_args, a, k);                                    \
        return kvg_##op(k, diag);                                             \
    }                                                                         \
    typedef int kvg_i_typed_calls_##op

/*
 * The descriptor itself, at the end of src/ops/<op>/descriptor.c:
 *
 *   KVG_I_OP_DEFINE(<op>, KVG_I_OP_ATTRS(k_attrs));
 *
 * `op` is the registry name: the descriptor is kvg_i_op_<op>, named
 * "<op>", over kvg_<op>_args (checked to fit kvg_i_op_args) and the typed
 * calls above. It takes the file's k_tensors table and its output_shape,
 * describe and written functions by those names; what else is particular
 * to the operator follows as designated members: KVG_I_OP_ATTRS(table)
 * for its attributes (`.attrs = NULL` when it has none), KVG_I_OP_ALIASES
 * for older spellings of them (a table of kvg_i_op_alias).
 */
#define KVG_I_OP_DEFINE(op, ...)                                             \
    KVG_I_OP_ARGS_FIT(kvg_##op##_args);                                       \
    KVG_I_OP_TYPED_CALLS(op);                                                 \
    const kvg_op kvg_i_op_##op = {                                            \
        .name = #op,                                                          \
        .tensors = k_tensors,                                                 \
        .tensor_count = sizeof k_tensors / sizeof k_tensors[0],               \
        .workspace_offset = offsetof(kvg_##op##_args, workspace),             \
        .workspace_size_offset = offsetof(kvg_##op##_args, workspace_size),   \
        .args_init = init,                                                    \
        .workspace_size = workspace_size,                                     \
        .run = run,                                                           \
        .output_shape = output_shape,                                         \
        .describe = describe,                                                 \
        .written = written,                                                   \
        __VA_ARGS__}
#define KVG_I_OP_ATTRS(table)                                                \
    .attrs = (table), .attr_count = sizeof(table) / sizeof(table)[0]
#define KVG_I_OP_ALIASES(table)                                              \
    .aliases = (table), .alias_count = sizeof(table) / sizeof(table)[0]

/*
 * Attribute setters that only store the value, written once:
 * KVG_I_OP_SET_VALUE(set_epsilon, op_args, epsilon, double, f) stores
 * (double)v->f in epsilon; KVG_I_OP_SET_NAMED(set_profile, op_args,
 * profile, kvg_kv_profile_from_name) parses v->s with the operator's
 * from_name function and refuses an unknown name with the attribute's
 * refusal (kvg_i_op_refuse). Setters that do more stay in the descriptor.
 */
#define KVG_I_OP_SET_VALUE(fn, type, field, ctype, member)                   \
    static kvg_status fn(kvg_i_op_args *a, const kvg_i_op_attr *attr,        \
                         const kvg_value *v, kvg_diag *diag)                  \
    {                                                                         \
        KVG_I_LOAD(type, a, k);                                               \
        (void)attr;                                                           \
        (void)diag;                                                           \
        k->field = (ctype)v->member;                                          \
        KVG_I_STORE(a, k);                                                    \
        return KVG_OK;                                                        \
    }                                                                         \
    typedef int kvg_i_set_value_##fn
#define KVG_I_OP_SET_NAMED(fn, type, field, from_name)                       \
    static kvg_status fn(kvg_i_op_args *a, const kvg_i_op_attr *attr,        \
                         const kvg_value *v, kvg_diag *diag)                  \
    {                                                                         \
        KVG_I_LOAD(type, a, k);                                               \
        if (!from_name(v->s, &k->field))                                      \
            return kvg_i_op_refuse(attr, v->s, diag);                         \
        KVG_I_STORE(a, k);                                                    \
        return KVG_OK;                                                        \
    }                                                                         \
    typedef int kvg_i_set_named_##fn

/* A mode string picked from a table of {name, value} (the value cast to
 * the field's type): KVG_I_OP_SET_CHOICE(set_layout, op_args,
 * cache_layout, kvg_layout_kind, k_layouts); a name not in the table is
 * refused with the attribute's refusal. */
typedef struct kvg_i_op_choice {
    const char *name;
    int value;
} kvg_i_op_choice;
#define KVG_I_OP_SET_CHOICE(fn, type, field, ctype, table)                  \
    static kvg_status fn(kvg_i_op_args *a, const kvg_i_op_attr *attr,        \
                         const kvg_value *v, kvg_diag *diag)                  \
    {                                                                         \
        size_t i_;                                                            \
        KVG_I_LOAD(type, a, k);                                               \
        for (i_ = 0; i_ < sizeof(table) / sizeof(table)[0]; i_++)             \
            if (strcmp(v->s, (table)[i_].name) == 0) {                        \
                k->field = (ctype)(table)[i_].value;                          \
                KVG_I_STORE(a, k);                                            \
                return KVG_OK;                                                \
            }                                                                 \
        return kvg_i_op_refuse(attr, v->s, diag);                             \
    }                                                                         \
    typedef int kvg_i_set_choice_##fn

/* An integer list and its length: KVG_I_OP_SET_INTS(set_head_nums,
 * op_args, head_nums, head_nums_len). */
#define KVG_I_OP_SET_INTS(fn, type, field, len_field)                        \
    static kvg_status fn(kvg_i_op_args *a, const kvg_i_op_attr *attr,        \
                         const kvg_value *v, kvg_diag *diag)                  \
    {                                                                         \
        KVG_I_LOAD(type, a, k);                                               \
        (void)attr;                                                           \
        (void)diag;                                                           \
        k->field = v->ints;                                                   \
        k->len_field = v->count;                                              \
        KVG_I_STORE(a, k);                                                    \
        return KVG_OK;                                                        \
    }                                                                         \
    typedef int kvg_i_set_ints_##fn

/* One row of a descriptor's tensor table (k_tensors): the field `n` of
 * the file's op_args, named #n. */
#define KVG_I_OP_TENSOR(n, kind, presence, case_required)                    \
    {{#n, kind, presence}, offsetof(op_args, n), case_required}

/* The output_shape of an operator that has caches but no outputs (never
 * reached: kvg_op_output_shape asks only about outputs); `op_name` is its
 * registry name. */
#define KVG_I_OP_NO_OUTPUTS(op_name)                                         \
    static kvg_status output_shape(const kvg_i_op_args *a, const char *name, \
                                   int *produced, kvg_dtype *dtype,           \
                                   int *rank, int64_t *shape,                 \
                                   kvg_diag *diag)                            \
    {                                                                         \
        (void)a;                                                              \
        (void)produced;                                                       \
        (void)dtype;                                                          \
        (void)rank;                                                           \
        (void)shape;                                                          \
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,        \
                            "%s: not an output of " op_name, name);           \
    }                                                                         \
    typedef int kvg_i_no_outputs_swallow_semicolon

typedef struct kvg_i_op_tensor {
    kvg_op_tensor_info info;
    size_t offset;     /* of its `const kvg_tensor *` field in the args */
    int case_required; /* a case.json without it is malformed (the loader
                          says so) rather than handed to the operator */
} kvg_i_op_tensor;

/* Store one value (its type already checked against the table) into the
 * args; refuse a string that names no mode (161002, tensor = the name). */
struct kvg_i_op_attr;
typedef kvg_status (*kvg_i_attr_set)(kvg_i_op_args *a,
                                     const struct kvg_i_op_attr *attr,
                                     const kvg_value *v, kvg_diag *diag);

typedef struct kvg_i_op_attr {
    kvg_op_attr_info info;
    kvg_i_attr_set set;
    /* For a string naming a mode: the refusal after "<name>: " (generic
     * call) or "<where>.<name> " (case file), with "%s" standing for the
     * value; NULL for other types. */
    const char *refusal;
    int case_format; /* a refused value is a malformed case file
                        (KVG_ERR_FILE_FORMAT) rather than the op's 161002 */
} kvg_i_op_attr;

/* An older spelling of an attribute, still read (case files and user
 * code that use it keep working); kvg_op_attr_at lists only `name`. A
 * call or case that gives both spellings is refused. */
typedef struct kvg_i_op_alias {
    const char *old_name;
    const char *name; /* the attribute's name in the table */
} kvg_i_op_alias;

/* Where a cache's elements live: kvg_op_describe_output. */
typedef void (*kvg_i_describe_fn)(const kvg_i_op_args *a, const char *name,
                                  const kvg_tensor *output,
                                  kvg_compare_role *role, int *has_layout,
                                  kvg_cache_layout *layout);

/* Shape of an OUTPUT tensor (caches are handled generically). */
typedef kvg_status (*kvg_i_shape_fn)(const kvg_i_op_args *a, const char *name,
                                     int *produced, kvg_dtype *dtype,
                                     int *rank, int64_t *shape,
                                     kvg_diag *diag);

/* ---- what a call writes (kvg_op_written_runs) ----------------------------
 *
 * An operator enumerates the element runs it writes into a sink; the
 * registry runs the enumeration once to count (so that a capacity too
 * small is refused before a run is stored) and again to store, then sorts
 * and merges the runs in the caller's array (src/registry/written_runs.c).
 * The enumeration must hand over the same runs every time and reads only
 * the call's shapes, attributes and index values.
 *
 * A run that starts where the one handed over before it ends extends it,
 * so the caller's array needs room only for the stretches the enumeration
 * order breaks: a prefill of consecutive slots is one run in ND. For NZ,
 * where a row is D/C0 runs far apart, the registry repeats the enumeration
 * once per C0 group (`group`), so that group k of consecutive slots of a
 * block - C0 elements apart - joins up too. */
typedef struct kvg_i_run_sink {
    kvg_elem_run *runs; /* NULL: only count */
    size_t cap;         /* of runs; nothing is stored past it */
    size_t n;           /* runs handed over so far */
    int64_t limit;      /* element count of the tensor */
    int64_t last_end;   /* where run n - 1 ends */
    int64_t group;      /* the C0 group of each NZ row handed over now (an
                           ND / BNSD row goes with group 0) */
    int64_t groups;     /* the most C0 groups an NZ row had */
    int overflow;       /* n would pass SIZE_MAX */
    int outside;        /* a run reached outside [0, limit) */
} kvg_i_run_sink;

/* Hand over `count` elements from `first` (nothing when count <= 0). */
void kvg_i_sink_put(kvg_i_run_sink *s, int64_t first, int64_t count);

/* Hand over `len` channels of a cache from coordinate `at`, through
 * kvg_layout_offset: in ND / BNSD one run (a row's channels, and a token's
 * heads in ND, are consecutive); in NZ the run of C0 elements of C0 group
 * s->group of the row (at's channel and len are whole C0 groups there, as
 * the operators check). */
void kvg_i_sink_row(kvg_i_run_sink *s, const kvg_cache_layout *l,
                    kvg_cache_coord at, int64_t len);

/* An operator's enumeration over its validated call `ctx`. */
typedef void (*kvg_i_enumerate_fn)(const void *ctx, kvg_i_run_sink *s);

/* What kvg_op_written_runs asks the operator, and gets back. */
typedef struct kvg_i_written {
    const char *name;          /* an output or cache of the operator */
    const kvg_tensor *tensor;  /* its view in the call (NULL: not given) */
    kvg_elem_run *runs;        /* the caller's array, NULL: size query */
    size_t cap;
    size_t *count;
    int *produced;
} kvg_i_written;

/* The runs of `fn` into w (count, refuse a small cap, store, sort and
 * merge): the operator calls it once its validation has passed. */
kvg_status kvg_i_written_collect(const kvg_i_written *w,
                                 kvg_i_enumerate_fn fn, const void *ctx,
                                 kvg_diag *diag);

/* An output the call writes whole: one run over all its elements. */
kvg_status kvg_i_written_whole(const kvg_i_written *w, kvg_diag *diag);

/* An output the attributes switch off: produced 0, no runs. */
kvg_status kvg_i_written_none(const kvg_i_written *w);

/* Validate the call exactly as the entry point does (the same status and
 * message for a call it refuses), then report what it writes to w->name
 * through kvg_i_written_collect / _whole / _none. */
typedef kvg_status (*kvg_i_written_fn)(const kvg_i_op_args *a,
                                       const kvg_i_written *w,
                                       kvg_diag *diag);

struct kvg_op {
    const char *name;
    const kvg_i_op_tensor *tensors;
    size_t tensor_count;
    const kvg_i_op_attr *attrs;
    size_t attr_count;
    size_t workspace_offset;      /* offsetof(args, workspace) */
    size_t workspace_size_offset; /* offsetof(args, workspace_size) */
    void (*args_init)(kvg_i_op_args *a);
    kvg_status (*workspace_size)(const kvg_i_op_args *a, size_t *bytes,
                                 kvg_diag *diag);
    kvg_status (*run)(const kvg_i_op_args *a, kvg_diag *diag);
    kvg_i_shape_fn output_shape;
    kvg_i_describe_fn describe;
    kvg_i_written_fn written; /* kvg_op_written_runs */
    const kvg_i_op_alias *aliases; /* older spellings of attributes */
    size_t alias_count;
    /* Optional (issue 36; NULL for an operator without packed rows): the
     * checked row layout (kvgold/row_layout.h) of output or cache
     * `output` in this call, blocks = the whole cache, for compare's
     * field-by-field judging. `args` is the call's filled
     * kvg_i_op_args. Returns KVG_OK with *out set (out->segments 0,
     * all zero: that tensor has no row layout in this call), or the
     * call's refusal. */
    kvg_status (*row_layout)(const void *args, const char *output,
                             kvg_row_layout *out, kvg_diag *diag);
};

/* The typed args of a call: the operator's defaults, then every named
 * tensor and value (kvg_op_run does this, then calls op->run). For tools
 * that must call the typed function themselves (the benchmark times it
 * alone). */
kvg_status kvg_i_op_fill(const kvg_op_call *call, kvg_i_op_args *a,
                         kvg_diag *diag);

/* The table entry of output or cache `name`, or a refusal naming it
 * (unknown, or an input). */
kvg_status kvg_i_op_written_entry(const kvg_op *op, const char *name,
                                  const kvg_i_op_tensor **entry,
                                  kvg_diag *diag);

/* The table entry of a tensor / attribute name (an attribute's older
 * spelling included), or NULL. */
const kvg_i_op_tensor *kvg_i_op_tensor_named(const kvg_op *op,
                                             const char *name);
const kvg_i_op_attr *kvg_i_op_attr_named(const kvg_op *op, const char *name);

/* The older spelling of attribute `attr`, or NULL. */
const char *kvg_i_op_attr_alias(const kvg_op *op, const kvg_i_op_attr *attr);

/* The tensor the filled args hold for `name` (NULL: not given). */
const kvg_tensor *kvg_i_op_tensor_of(const kvg_op *op,
                                     const kvg_i_op_args *a,
                                     const char *name);

/* Copy `refusal` into buf with its "%s" replaced by `value`. */
void kvg_i_op_refusal_text(char *buf, size_t cap, const char *refusal,
                           const char *value);

/* Refuse a mode string: 161002, "<name>: <refusal>". */
kvg_status kvg_i_op_refuse(const kvg_i_op_attr *attr, const char *value,
                           kvg_diag *diag);

/* Fill a cache layout when the sizes describe one (else leave *has 0). */
void kvg_i_op_set_layout(int *has, kvg_cache_layout *layout,
                         kvg_layout_kind kind, int64_t blocks, int64_t slots,
                         int64_t heads, int64_t dim, int64_t c0);

#endif /* KVGOLD_SRC_REGISTRY_OP_DESC_H */
