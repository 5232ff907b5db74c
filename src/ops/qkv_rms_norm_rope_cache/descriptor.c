/*
 * src/ops/qkv_rms_norm_rope_cache/descriptor.c - QkvRmsNormRopeCache's
 * descriptor (src/registry/op_desc.h); docs/qkv_rms_norm_rope_cache.md, "Case
 * files", lists the same names.
 *
 * A case may leave out any tensor: the call is made without it and the
 * operator reports it (161001, as aclnn does). is_output_qkv is not a
 * field of the typed args (the typed API reads "the before-quant outputs
 * are given"); here it only says whether kvg_op_output_shape produces them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "src/common/internal.h"
#include "src/ops/qkv_rms_norm_rope_cache/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_qkv_rms_norm_rope_cache_args op_args;

/* kvg_i_op_args.flags */
#define OUTPUT_QKV 1u

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(qkv, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(q_gamma, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(k_gamma, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cos, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(sin, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(index, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(q_out, KVG_OP_OUTPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(k_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(v_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(k_scale, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(v_scale, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(k_offset, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(v_offset, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(q_out_before_quant, KVG_OP_OUTPUT, KVG_OP_PRODUCED, 0),
    KVG_I_OP_TENSOR(k_out_before_quant, KVG_OP_OUTPUT, KVG_OP_PRODUCED, 0),
    KVG_I_OP_TENSOR(v_out_before_quant, KVG_OP_OUTPUT, KVG_OP_PRODUCED, 0),
};

KVG_I_OP_SET_INTS(set_qkv_size, op_args, qkv_size, qkv_size_len);

KVG_I_OP_SET_INTS(set_head_nums, op_args, head_nums, head_nums_len);

KVG_I_OP_SET_VALUE(set_epsilon, op_args, epsilon, double, f);

/* Any mode of the shared vocabulary parses; the operator's check refuses
 * all but PA_NZ by name. */
KVG_I_OP_SET_NAMED(set_cache_mode, op_args, cache_mode,
                   kvg_cache_mode_from_name);

static kvg_status set_output_qkv(kvg_i_op_args *a, const kvg_i_op_attr *attr,
                                 const kvg_value *v, kvg_diag *diag)
{
    (void)attr;
    (void)diag;
    a->flags = v->i ? a->flags | OUTPUT_QKV : a->flags & ~OUTPUT_QKV;
    return KVG_OK;
}

KVG_I_OP_SET_NAMED(set_reduce_order, op_args, reduce_order,
                   kvg_reduce_order_from_name);

/* "inf" is the default overflow (to +-inf, as torch). */
static const kvg_i_op_choice k_overflows[] = {{"inf", KVG_OVF_DEFAULT},
                                             {"saturate", KVG_OVF_SATURATE}};
KVG_I_OP_SET_CHOICE(set_overflow, op_args, overflow, kvg_overflow,
                    k_overflows);

static const kvg_i_op_attr k_attrs[] = {
    {{"qkv_size", KVG_VALUE_INTS, 0, 1, NULL}, set_qkv_size, NULL, 0},
    {{"head_nums", KVG_VALUE_INTS, 0, 1, NULL}, set_head_nums, NULL, 0},
    {{"epsilon", KVG_VALUE_FLOAT, 0, 0, "1e-06"}, set_epsilon, NULL, 0},
    {{"cache_mode", KVG_VALUE_STRING, 0, 0, "\"PA_NZ\""}, set_cache_mode,
     "\"%s\" is not a cache mode (this operator has only PA_NZ)", 0},
    {{"is_output_qkv", KVG_VALUE_BOOL, 0, 0, "false"}, set_output_qkv, NULL,
     0},
    {{"reduce_order", KVG_VALUE_STRING, 1, 0, "\"pairwise\""},
     set_reduce_order,
     "\"%s\" is not pairwise, sequential, double, a2 or npu950", 1},
    {{"overflow", KVG_VALUE_STRING, 1, 0, "\"inf\""}, set_overflow,
     "must be \"inf\" or \"saturate\", got \"%s\"", 1},
};

/* Columns of q_out, Nq*D, when qkv_size and head_nums define them. */
static int q_columns(const op_args *k, int64_t *cols)
{
    if (k->qkv == NULL || k->qkv->rank != 2 || k->head_nums == NULL ||
        k->head_nums_len < 1 || k->qkv_size == NULL ||
        k->qkv_size_len != 4 || k->head_nums[0] <= 0 ||
        k->qkv_size[3] <= 0 ||
        k->head_nums[0] > k->qkv->shape[1] / k->qkv_size[3])
        return 0;
    *cols = k->head_nums[0] * k->qkv_size[3];
    return 1;
}

/* Columns of a before-quant output as aclnn's infershape derives them:
 * q from q_out (or, before it is given, as q_out will be), k and v from the
 * cache's dims 1 and 3 (N*D/C0 * C0). */
static int before_quant_columns(const op_args *k, const char *name,
                                int64_t *cols)
{
    const kvg_tensor *c = name[0] == 'k' ? k->k_cache : k->v_cache;
    if (name[0] == 'q') {
        if (k->q_out == NULL)
            return q_columns(k, cols); /* as q_out will be shaped */
        if (k->q_out->rank != 2)
            return 0;
        *cols = k->q_out->shape[1];
        return 1;
    }
    return c != NULL && c->rank == 4 &&
           kvg_i_mul_i64(c->shape[1], c->shape[3], cols);
}

static kvg_status output_shape(const kvg_i_op_args *a, const char *name,
                               int *produced, kvg_dtype *dtype, int *rank,
                               int64_t *shape, kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_q_out = strcmp(name, "q_out") == 0;
    int64_t cols = 0;

    if (!is_q_out && !(a->flags & OUTPUT_QKV)) {
        *produced = 0;
        return KVG_OK;
    }
    if (is_q_out ? !q_columns(k, &cols)
                 : !before_quant_columns(k, name, &cols))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: its shape needs qkv [B*S, N*D] and %s, which "
                            "are missing or malformed", name,
                            is_q_out ? "qkv_size and head_nums"
                            : name[0] == 'q' ? "q_out [B*S, Nq*D]"
                                             : "the 4-D cache");
    *produced = 1;
    *dtype = k->qkv->dtype;
    *rank = 2;
    shape[0] = k->qkv->shape[0] > 0 ? k->qkv->shape[0] : 1;
    shape[1] = cols;
    return KVG_OK;
}

/* q_out, q/k before quant: compute; v before quant: copy (a widen-narrow);
 * k_cache: quant (int8) or compute; v_cache: quant (int8) or copy. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_k = strcmp(name, "k_cache") == 0;
    int64_t heads = 0;

    if (!is_k && strcmp(name, "v_cache") != 0) {
        *role = strcmp(name, "v_out_before_quant") == 0 ? KVG_ROLE_COPY
                                                        : KVG_ROLE_COMPUTE;
        return;
    }
    *role = t->dtype == KVG_INT8 ? KVG_ROLE_QUANT
            : is_k               ? KVG_ROLE_COMPUTE
                                 : KVG_ROLE_COPY;
    if (k->head_nums != NULL && k->head_nums_len >= 3)
        heads = k->head_nums[is_k ? 1 : 2];
    if (t->rank == 4 && heads > 0 && t->shape[1] > 0 && t->shape[3] > 0 &&
        t->shape[1] <= INT64_MAX / t->shape[3])
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_NZ, t->shape[0],
                            t->shape[2], heads,
                            t->shape[1] * t->shape[3] / heads, t->shape[3]);
}

/* One cache of a validated call: the head rows its tokens write. */
typedef struct cache_rows {
    const op_args *k;
    const kvg_i_qkv_rms_norm_rope_cache_plan *p;
    kvg_cache_layout lay;
} cache_rows;

static void enumerate_rows(const void *ctx, kvg_i_run_sink *s)
{
    const cache_rows *c = (const cache_rows *)ctx;
    kvg_cache_coord at;
    int64_t t;

    for (t = 0; t < c->p->tokens; t++) {
        const int64_t slot = kvg_i_index_at(c->k->index, t);
        if (slot < 0)
            continue; /* skipped token */
        at.block = slot / c->p->bs;
        at.slot = slot % c->p->bs;
        at.channel = 0;
        for (at.head = 0; at.head < c->lay.heads; at.head++)
            kvg_i_sink_row(s, &c->lay, at, c->p->d);
    }
}

/* q_out: whole; the before-quant outputs: whole when given; the caches:
 * every head row of each token whose slot is not negative. */
static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_k = strcmp(w->name, "k_cache") == 0;
    kvg_i_qkv_rms_norm_rope_cache_plan p;
    cache_rows rows;
    kvg_i_qkv_rms_norm_rope_cache_ws ws;

    KVG_TRY(kvg_i_qkv_rms_norm_rope_cache_validate(k, &p, &ws, diag));
    if (strcmp(w->name, "q_out") == 0)
        return kvg_i_written_whole(w, diag);
    if (!is_k && strcmp(w->name, "v_cache") != 0)
        return p.before ? kvg_i_written_whole(w, diag)
                        : kvg_i_written_none(w);
    rows.k = k;
    rows.p = &p;
    kvg_i_qkv_rms_norm_rope_cache_cache_layout(
        &p, is_k ? k->k_cache : k->v_cache, is_k ? p.nk : p.nv, &rows.lay);
    return kvg_i_written_collect(w, enumerate_rows, &rows, diag);
}

KVG_I_OP_DEFINE(qkv_rms_norm_rope_cache, KVG_I_OP_ATTRS(k_attrs));
