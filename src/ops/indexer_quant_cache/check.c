/*
 * src/ops/indexer_quant_cache/check.c - IndexerQuantCache's validation:
 * tensors, attributes and the mode's layout (check_args), then
 * slot_mapping's values and x's values in the tokens written
 * (check_values). Messages name the tensor or attribute, expected vs got;
 * the rules cite OT = cannmirror/ops-transformer@25fb6b928
 * attention/indexer_quant_cache/op_host/indexer_quant_cache_tiling_arch35.cpp.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/bits.h"
#include "src/common/half_row.h"
#include "src/kernels/dispatch.h"
#include "src/ops/indexer_quant_cache/internal.h"

#define D_MAX 8192 /* tiling:200 */

/* An empty x or slot_mapping is refused as empty (aclnn:52) before its
 * data pointer is looked at: an empty array may well have none. */
static kvg_status check_not_empty(const kvg_tensor *t, const char *name,
                                  kvg_diag *diag)
{
    int i;

    if (t == NULL || t->rank < 0 || t->rank > KVG_MAX_RANK)
        return KVG_OK; /* the presence and rank checks say it */
    for (i = 0; i < t->rank; i++)
        if (t->shape[i] == 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, i, -1,
                                "%s: dim %d is 0; the operator takes no "
                                "empty %s", name, i, name);
    return KVG_OK;
}

static kvg_status check_present(const kvg_indexer_quant_cache_args *a,
                                kvg_diag *diag)
{
    KVG_TRY(check_not_empty(a->x, "x", diag));
    KVG_TRY(check_not_empty(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->x, "x", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->cache, "cache", diag));
    KVG_TRY(kvg_i_check_present(a->cache_scale, "cache_scale", diag));
    KVG_TRY(kvg_i_check_dense(a->x, "x", diag));
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_dense(a->cache, "cache", diag));
    return kvg_i_check_dense(a->cache_scale, "cache_scale", diag);
}

/* quant_mode 0..3 (tiling:207); round_scale a bool; x_scale, read in mode
 * 2 only, finite there. */
static kvg_status check_attrs(const kvg_indexer_quant_cache_args *a,
                              kvg_diag *diag)
{
    if (a->quant_mode < 0 || a->quant_mode > 3)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_mode", -1,
                            -1, "quant_mode: %lld; 0 (MX-FP8), 1 (Normal), "
                            "2 (HiFloat8) or 3 (MX-FP4) expected",
                            (long long)a->quant_mode);
    if (a->round_scale != 0 && a->round_scale != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "round_scale", -1,
                            -1, "round_scale: 0 or 1, got %d",
                            a->round_scale);
    if (a->quant_mode == 2 && !kvg_i_finite_f32(a->x_scale))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x_scale", -1, -1,
                            "x_scale: a finite binary32 value expected in "
                            "quant_mode 2, got %g", a->x_scale);
    return KVG_OK;
}

/* x fp16 / bf16 [..., d], d % 32 == 0, 32 <= d <= 8192 (tiling:195-202),
 * not empty (aclnn_indexer_quant_cache.cpp:52). */
static kvg_status check_x(const kvg_indexer_quant_cache_args *a,
                          int64_t *d, kvg_diag *diag)
{
    const kvg_tensor *x = a->x;

    if (x->dtype != KVG_FP16 && x->dtype != KVG_BF16)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: dtype %s; fp16 or bf16 expected",
                            kvg_dtype_name(x->dtype));
    if (x->rank < 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: rank %d; [..., d] of rank >= 2 expected",
                            x->rank);
    *d = x->shape[x->rank - 1];
    if (*d < 32 || *d > D_MAX || *d % 32 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", x->rank - 1,
                            -1, "x: last dim d = %lld; a multiple of 32 in "
                            "[32, 8192] expected", (long long)*d);
    if (kvg_i_numel(x) == 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: empty; the operator takes no empty x");
    return KVG_OK;
}

/* One of the two caches: 4-D [blocks, block_size, 1, last]
 * (tiling:155-163), not empty. */
static kvg_status check_4d(const kvg_tensor *t, const char *name,
                           kvg_diag *diag)
{
    int i;

    KVG_TRY(kvg_i_check_rank(t, name, 4, diag));
    KVG_TRY(kvg_i_check_dim(t, name, 2, 1, "one row a slot", diag));
    for (i = 0; i < 4; i++)
        if (t->shape[i] <= 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, i, -1,
                                "%s: dim %d is %lld; the operator takes no "
                                "empty cache", name, i,
                                (long long)t->shape[i]);
    return KVG_OK;
}

/* cache and cache_scale: one slot numbering, so the same blocks and
 * block_size (kvgold's rule: the kernel addresses both by one slot and
 * checks neither against the other). */
static kvg_status check_caches(const kvg_indexer_quant_cache_args *a,
                               kvg_i_iqc_geometry *g, kvg_diag *diag)
{
    const kvg_tensor *c = a->cache, *s = a->cache_scale;

    KVG_TRY(check_4d(c, "cache", diag));
    KVG_TRY(check_4d(s, "cache_scale", diag));
    KVG_TRY(kvg_i_check_dim(s, "cache_scale", 0, c->shape[0],
                            "cache's blocks", diag));
    KVG_TRY(kvg_i_check_dim(s, "cache_scale", 1, c->shape[1],
                            "cache's block_size", diag));
    g->blocks = c->shape[0];
    g->block_size = c->shape[1];
    g->head_dim = c->shape[3];
    g->scale_dim = s->shape[3];
    return KVG_OK;
}

kvg_status kvg_i_indexer_quant_cache_check_args(
    const kvg_indexer_quant_cache_args *a,
    kvg_i_indexer_quant_cache_plan *plan, kvg_diag *diag)
{
    kvg_i_iqc_geometry g;

    KVG_TRY(check_present(a, diag));
    KVG_TRY(check_attrs(a, diag));
    KVG_TRY(check_x(a, &plan->d, diag));
    /* slot_mapping: x's shape without its last dim (tiling:181-187) */
    KVG_TRY(kvg_i_packed_row_check_index(a->slot_mapping, a->x, diag));
    KVG_TRY(check_caches(a, &g, diag));
    plan->tokens = kvg_i_numel(a->slot_mapping);
    plan->slots = g.blocks * g.block_size;
    plan->x_scale = (float)a->x_scale;
    return kvg_i_iqc_plan_mode(a, &g, plan, diag);
}

/* A non-finite element of a written token: what the kernel's reductions
 * and casts do with one is not established (quant_epilogs.md Q3). One
 * integer pass over the codes (fp16 / bf16: all-ones exponent), which
 * also gives the row's largest magnitude code: for finite codes of one
 * format the magnitude bits order as the values do. */
KVG_I_ROW_KERNEL
static kvg_status check_finite(const kvg_indexer_quant_cache_args *a,
                               int64_t d, int64_t t, float *rowmax,
                               kvg_diag *diag)
{
    const unsigned char *e = (const unsigned char *)a->x->data +
                             (size_t)(t * d) * 2;
    const unsigned exp = a->x->dtype == KVG_FP16 ? 0x7C00u : 0x7F80u;
    unsigned code, bad = 0, best = 0;
    int64_t i;

    /* no exit in this pass, so that it vectorises; a row with a
     * non-finite element is searched again for the first */
    for (i = 0; i < d; i++) {
        code = (unsigned)e[2 * i] | (unsigned)e[2 * i + 1] << 8;
        bad |= (code & exp) == exp;
        best = best > (code & 0x7FFFu) ? best : (code & 0x7FFFu);
    }
    if (bad)
        return kvg_i_refuse_nonfinite_row(a->x, e, d, t, diag);
    *rowmax = a->x->dtype == KVG_FP16 ? kvg_fp16_to_f32((uint16_t)best)
                                      : kvg_bf16_to_f32((uint16_t)best);
    return KVG_OK;
}

/* Mode 1: s = rowmax * fl(1/MAX) must not be a binary32 subnormal; only
 * bf16 rows below ~5.3e-36 get there, and whether the NPU's multiply
 * keeps or flushes the result is not known. */
static kvg_status check_scale_normal(const kvg_indexer_quant_cache_args *a,
                                     const kvg_i_indexer_quant_cache_plan *p,
                                     int64_t t, float rowmax, kvg_diag *diag)
{
    const float s = rowmax * kvg_i_float(p->rule.coeff);

    if (p->mode != 1 || rowmax == 0.0f || s >= 1.17549435e-38f)
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", a->x->rank - 1, t,
                        "x: token %lld: amax %g gives the binary32 "
                        "subnormal scale %g in quant_mode 1 (refused: "
                        "whether the NPU's multiply flushes it is not "
                        "known)", (long long)t, (double)rowmax, (double)s);
}

kvg_status kvg_i_indexer_quant_cache_check_values(
    const kvg_indexer_quant_cache_args *a,
    const kvg_i_indexer_quant_cache_plan *p,
    const kvg_i_indexer_quant_cache_ws *ws, kvg_diag *diag)
{
    int64_t t;
    float rowmax = 0.0f;

    KVG_TRY(kvg_i_packed_row_check_slots(a->slot_mapping, p->tokens,
                                         p->slots, KVG_I_SLOT_SKIP_MINUS1, 0,
                                         ws->keys, diag));
    for (t = 0; t < p->tokens; t++) {
        if (kvg_i_index_at(a->slot_mapping, t) == -1)
            continue; /* skipped: the kernel does not read its x */
        KVG_TRY(check_finite(a, p->d, t, &rowmax, diag));
        KVG_TRY(check_scale_normal(a, p, t, rowmax, diag));
    }
    return KVG_OK;
}
