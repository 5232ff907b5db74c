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
 * Not installed. The harness (tools/case) reads the case.json conventions
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

/* The typed args struct of any operator, filled by name. Big enough and
 * aligned for every operator's struct (each descriptor file checks its own
 * at compile time), so a call needs no allocation. `flags` carries the
 * attributes that steer only kvg_op_output_shape (QKV's is_output_qkv: the
 * typed API infers it from the outputs given). */
#define KVG_I_OP_ARGS_MAX 512
typedef struct kvg_i_op_args {
    union {
        long double ld;
        void *p;
        int64_t i;
        double d;
        unsigned char bytes[KVG_I_OP_ARGS_MAX];
    } u;
    unsigned flags;
} kvg_i_op_args;

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
};

/* The descriptors, one per operator file. */
extern const kvg_op kvg_i_op_kv;
extern const kvg_op kvg_i_op_qkv;
extern const kvg_op kvg_i_op_omni;
extern const kvg_op kvg_i_op_rac;

/* The typed args of a call: the operator's defaults, then every named
 * tensor and value (kvg_op_run does this, then calls op->run). For tools
 * that must call the typed function themselves (the benchmark times it
 * alone). */
kvg_status kvg_i_op_fill(const kvg_op_call *call, kvg_i_op_args *a,
                         kvg_diag *diag);

/* The table entry of a tensor / attribute name, or NULL. */
const kvg_i_op_tensor *kvg_i_op_tensor_named(const kvg_op *op,
                                             const char *name);
const kvg_i_op_attr *kvg_i_op_attr_named(const kvg_op *op, const char *name);

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
