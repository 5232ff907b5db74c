/*
 * src/ops/indexer_compress_epilog/check.c - the indexer compress epilogs'
 * validation: tensors, attributes, the caches' geometry and the preset
 * (check_args), then slot_mapping's values and x's values in the tokens
 * written (check_values). Messages name the tensor or attribute, expected
 * vs got. Sources as in kvgold/indexer_compress_epilog.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/bits.h"
#include "src/common/half_row.h"
#include "src/kernels/dispatch.h"
#include "src/ops/indexer_compress_epilog/internal.h"

static kvg_status check_present(const kvg_indexer_compress_epilog_args *a,
                                kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->x, "x", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->cache, "cache", diag));
    KVG_TRY(kvg_i_check_dense(a->x, "x", diag));
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_dense(a->cache, "cache", diag));
    if (a->cache_scale == NULL)
        return KVG_OK; /* cr's need of it: check_caches */
    KVG_TRY(kvg_i_check_present(a->cache_scale, "cache_scale", diag));
    return kvg_i_check_dense(a->cache_scale, "cache_scale", diag);
}

/* An attribute the impl has not must keep its default. */
static kvg_status not_had(const kvg_indexer_compress_epilog_args *a,
                          const char *name, int away, const char *dflt,
                          kvg_diag *diag)
{
    if (!away)
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                        "%s: %s has no %s attribute (its default %s only)",
                        name, kvg_i_ice_impl_name(a->impl), name, dflt);
}

/* cr: quant_mode 0..2 (the tiling keys, tiling.cpp:167-177), round_scale
 * a bool, scale finite in mode 2 (Muls(x, scales), base.h:406); no layout
 * or block_stride. va_v2: layout 2 (tiling.cpp:139-141), nothing of
 * cr's. */
static kvg_status check_attrs(const kvg_indexer_compress_epilog_args *a,
                              kvg_diag *diag)
{
    if (a->impl != KVG_ICE_CR && a->impl != KVG_ICE_VA_V2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "impl", -1, -1,
                            "impl: %d; cr or va_v2 expected", (int)a->impl);
    if (a->round_scale != 0 && a->round_scale != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "round_scale", -1,
                            -1, "round_scale: 0 or 1, got %d",
                            a->round_scale);
    if (a->impl == KVG_ICE_VA_V2) {
        KVG_TRY(not_had(a, "quant_mode", a->quant_mode != 1, "1", diag));
        KVG_TRY(not_had(a, "round_scale", a->round_scale != 1, "true",
                        diag));
        KVG_TRY(not_had(a, "scale", a->scale != 1.0, "1.0", diag));
        if (a->layout != 2)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "layout", -1,
                                -1, "layout: va_v2 takes layout 2 only "
                                "(block-major), got %lld",
                                (long long)a->layout);
        return KVG_OK;
    }
    KVG_TRY(not_had(a, "layout", a->layout != 2, "2", diag));
    KVG_TRY(not_had(a, "block_stride", a->block_stride != 0, "0", diag));
    if (a->quant_mode < 0 || a->quant_mode > 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_mode", -1,
                            -1, "quant_mode: %lld; cr has 0 (MX-FP8), 1 "
                            "(fp8, fp32 scale) and 2 (HiFloat8)",
                            (long long)a->quant_mode);
    if (a->quant_mode == 2 && !kvg_i_finite_f32(a->scale))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "scale", -1, -1,
                            "scale: a finite binary32 value expected in "
                            "quant_mode 2, got %g", a->scale);
    return KVG_OK;
}

/* x fp16 / bf16; cr [T, d] (the doc's shape; the tiling takes the token
 * count from slot_mapping's dim 0), va_v2 [..., d]; 1 <= d <= 16384. */
static kvg_status check_x(const kvg_indexer_compress_epilog_args *a,
                          int64_t *d, kvg_diag *diag)
{
    const kvg_tensor *x = a->x;

    if (x->dtype != KVG_FP16 && x->dtype != KVG_BF16)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: dtype %s; fp16 or bf16 expected",
                            kvg_dtype_name(x->dtype));
    if (a->impl == KVG_ICE_CR ? x->rank != 2 : x->rank < 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: rank %d; %s takes %s", x->rank,
                            kvg_i_ice_impl_name(a->impl),
                            a->impl == KVG_ICE_CR ? "[T, d] (rank 2)"
                                                  : "[..., d] of rank >= 2");
    *d = x->shape[x->rank - 1];
    if (*d < 1 || *d > KVG_I_ICE_D_MAX)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", x->rank - 1,
                            -1, "x: last dim d = %lld; 1 <= d <= 16384 "
                            "expected (one row's buffers in the UB)",
                            (long long)*d);
    return KVG_OK;
}

/* slot_mapping int32 only (both op_defs list DT_INT32 alone, the kernels
 * read int32: CR def.cpp:47-54, VA def.cpp), x's shape without its last
 * dim. */
static kvg_status check_slots(const kvg_indexer_compress_epilog_args *a,
                              kvg_diag *diag)
{
    const kvg_tensor *s = a->slot_mapping, *x = a->x;

    if (s->dtype != KVG_INT32)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", -1,
                            -1, "slot_mapping: dtype %s; int32 expected "
                            "(%s's op_def takes int32 only)",
                            kvg_dtype_name(s->dtype),
                            kvg_i_ice_impl_name(a->impl));
    return kvg_i_packed_row_check_index(s, x, diag); /* the shape */
}

/* cr: cache [rows, d] and cache_scale [rows, ceil(d / 128)], one slot
 * numbering (kvgold's rule: the kernel addresses both by one slot). */
static kvg_status check_cr_caches(const kvg_indexer_compress_epilog_args *a,
                                  int64_t d, kvg_i_ice_geometry *g,
                                  kvg_diag *diag)
{
    const kvg_tensor *c = a->cache, *s = a->cache_scale;
    const int64_t scale_col = (d + KVG_I_ICE_GROUP - 1) / KVG_I_ICE_GROUP;

    if (s == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "cache_scale", -1,
                            -1, "cache_scale: NULL; cr writes the scales "
                            "into a tensor of their own");
    KVG_TRY(kvg_i_check_rank(c, "cache", 2, diag));
    KVG_TRY(kvg_i_check_dim(c, "cache", 1, d,
                            "x's d (the kernel writes rows at slot * d)",
                            diag));
    KVG_TRY(kvg_i_check_rank(s, "cache_scale", 2, diag));
    KVG_TRY(kvg_i_check_dim(s, "cache_scale", 0, c->shape[0],
                            "cache's rows", diag));
    KVG_TRY(kvg_i_check_dim(s, "cache_scale", 1, scale_col,
                            "ceil(d / 128) (the kernel writes scale rows at "
                            "slot * ceil(d / 128))", diag));
    g->blocks = c->shape[0];
    g->block_size = 1;
    g->row_bytes = d;
    return KVG_OK;
}

/* va_v2: cache [blocks, block_size, 1, cacheD] (tiling.cpp:99-108); no
 * cache_scale. */
static kvg_status check_va_cache(const kvg_indexer_compress_epilog_args *a,
                                 kvg_i_ice_geometry *g, kvg_diag *diag)
{
    const kvg_tensor *c = a->cache;

    if (a->cache_scale != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_scale", -1,
                            -1, "cache_scale: va_v2 has none (its scales "
                            "live in the cache's blocks)");
    KVG_TRY(kvg_i_check_rank(c, "cache", 4, diag));
    KVG_TRY(kvg_i_check_dim(c, "cache", 2, 1, "one row a slot", diag));
    g->blocks = c->shape[0];
    g->block_size = c->shape[1];
    g->row_bytes = c->shape[3];
    return KVG_OK;
}

kvg_status kvg_i_indexer_compress_epilog_check_args(
    const kvg_indexer_compress_epilog_args *a,
    kvg_i_indexer_compress_epilog_plan *plan, kvg_diag *diag)
{
    kvg_i_ice_geometry g;

    KVG_TRY(check_present(a, diag));
    KVG_TRY(check_attrs(a, diag));
    KVG_TRY(check_x(a, &plan->d, diag));
    KVG_TRY(check_slots(a, diag));
    KVG_TRY(a->impl == KVG_ICE_CR ? check_cr_caches(a, plan->d, &g, diag)
                                  : check_va_cache(a, &g, diag));
    plan->tokens = kvg_i_numel(a->slot_mapping);
    plan->x_scale = (float)a->scale;
    return kvg_i_ice_preset(a, &g, plan, diag);
}

/* A non-finite element of a written token: what the kernels' reductions
 * and casts do with one is not established (quant_epilogs.md Q3). One
 * pass without an exit, so that it vectorises (built per CPU: it had
 * been half of va_v2's time, docs/performance.md); a row with a
 * non-finite element is searched again for the first. */
KVG_I_ROW_KERNEL
static kvg_status check_finite(const kvg_indexer_compress_epilog_args *a,
                               const unsigned char *e, int64_t d, int64_t t,
                               kvg_diag *diag)
{
    const unsigned exp = a->x->dtype == KVG_FP16 ? 0x7C00u : 0x7F80u;
    unsigned code, bad = 0;
    int64_t i;

    for (i = 0; i < d; i++) {
        code = (unsigned)e[2 * i] | (unsigned)e[2 * i + 1] << 8;
        bad |= (code & exp) == exp;
    }
    return bad ? kvg_i_refuse_nonfinite_row(a->x, e, d, t, diag) : KVG_OK;
}

/* R-BLK128-FP32: s = amax * fl(1/MAX) must not be a binary32 subnormal
 * (only bf16 groups below ~5.3e-36 get there; whether the NPU's multiply
 * keeps or flushes it is not known). The row is finite (checked): the
 * magnitude codes order as the values do. */
KVG_I_ROW_KERNEL
static kvg_status check_scales(const kvg_indexer_compress_epilog_args *a,
                               const kvg_i_indexer_compress_epilog_plan *p,
                               const unsigned char *e, int64_t t,
                               kvg_diag *diag)
{
    const float coeff = kvg_i_float(p->rule.coeff);
    int64_t g0, i, end;
    unsigned code, best;
    float amax, s;

    for (g0 = 0; g0 < p->d; g0 += KVG_I_ICE_GROUP) {
        best = 0;
        end = p->d - g0 < KVG_I_ICE_GROUP ? p->d : g0 + KVG_I_ICE_GROUP;
        for (i = g0; i < end; i++) { /* one bound, a max: vectorises */
            code = ((unsigned)e[2 * i] | (unsigned)e[2 * i + 1] << 8) &
                   0x7FFFu;
            best = best > code ? best : code;
        }
        amax = a->x->dtype == KVG_FP16 ? kvg_fp16_to_f32((uint16_t)best)
                                       : kvg_bf16_to_f32((uint16_t)best);
        s = amax * coeff;
        if (amax != 0.0f && s < 1.17549435e-38f)
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, "x", a->x->rank - 1, t,
                "x: token %lld, group %lld: amax %g gives the binary32 "
                "subnormal scale %g (refused: whether the NPU's multiply "
                "flushes it is not known)", (long long)t,
                (long long)(g0 / KVG_I_ICE_GROUP), (double)amax, (double)s);
    }
    return KVG_OK;
}

kvg_status kvg_i_indexer_compress_epilog_check_values(
    const kvg_indexer_compress_epilog_args *a,
    const kvg_i_indexer_compress_epilog_plan *p,
    const kvg_i_indexer_compress_epilog_ws *ws, kvg_diag *diag)
{
    const unsigned char *x = (const unsigned char *)a->x->data;
    const unsigned char *row;
    int64_t t;

    /* -1 skips (CR single_row.h:65, VA single_row.h:61); the kernels
     * write any other value, so one outside the cache is refused */
    KVG_TRY(kvg_i_packed_row_check_slots(a->slot_mapping, p->tokens,
                                         p->slots, KVG_I_SLOT_SKIP_MINUS1, 1,
                                         ws->keys, diag));
    for (t = 0; t < p->tokens; t++) {
        if (kvg_i_index_at(a->slot_mapping, t) == -1)
            continue; /* skipped: the kernel does not read its x */
        row = x + (size_t)(t * p->d) * 2;
        KVG_TRY(check_finite(a, row, p->d, t, diag));
        if (p->scale_subnormal_refused)
            KVG_TRY(check_scales(a, p, row, t, diag));
    }
    return KVG_OK;
}
