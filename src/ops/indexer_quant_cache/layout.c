/*
 * src/ops/indexer_quant_cache/layout.c - IndexerQuantCache's four modes as
 * data: the dtypes each takes, its group rule (src/engines/group_quant.h)
 * and its row layout over the two tensors it writes (kvgold/row_layout.h):
 * the codes at the start of the slot's cache row, the scales at the start
 * of its cache_scale row. Kernel: cannmirror/ops-transformer@25fb6b928
 * attention/indexer_quant_cache/ (docs/indexer_quant_cache.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/group_rules.h"
#include "src/layout/row_build.h"
#include "src/ops/indexer_quant_cache/internal.h"

/* What a mode takes and how it quantises. */
typedef struct iqc_mode {
    const char *name;     /* the layout's name, for reports */
    kvg_dtype cache[2];   /* accepted cache dtypes (INVALID: none) */
    const char *cache_why; /* the refusal's expectation */
    kvg_dtype scale;      /* cache_scale's dtype */
    int per_32;           /* one scale per 32 elements, else per row */
    int scale_written;    /* 0: the kernel copies an unset buffer */
} iqc_mode;

static const iqc_mode k_modes[4] = {
    {"IndexerQuantCache mode 0 (MX-FP8)",
     {KVG_FP8_E4M3FN, KVG_FP8_E5M2},
     "fp8_e4m3fn or fp8_e5m2", KVG_E8M0, 1, 1},
    /* uint8 is in the aclnn doc for mode 1, but StoreOutputData has no
     * uint8 branch (base.h:139-158): the kernel would store no codes */
    {"IndexerQuantCache mode 1 (Normal)",
     {KVG_FP8_E4M3FN, KVG_FP8_E5M2},
     "fp8_e4m3fn or fp8_e5m2 (the kernel stores no codes into a uint8 "
     "cache in this mode)", KVG_FP32, 0, 1},
    /* VFProcessHifp8Quant writes HiF8 codes whatever the cache's type
     * (base.h:491): only uint8, their byte holder, says what they are */
    {"IndexerQuantCache mode 2 (HiFloat8)",
     {KVG_UINT8, KVG_HIF8},
     "uint8 (or hif8): the kernel writes HiFloat8 codes", KVG_FP32, 0, 0},
    {"IndexerQuantCache mode 3 (MX-FP4)",
     {KVG_FP4_E2M1, KVG_DTYPE_INVALID},
     "fp4_e2m1 (fp4_e1m2 is not modelled: kvgold has no FP4 E1M2 codec)",
     KVG_E8M0, 1, 1},
};

/* The payload's rule for the mode (group_quant.h's steps). */
static kvg_i_group_rule mode_rule(int mode, kvg_dtype cache, kvg_dtype x,
                                  int round_scale)
{
    /* fl(1/MAX) of the cache's fp8: base.h:39-40 */
    kvg_i_group_rule r = kvg_i_rule_base(cache);

    r.amax = KVG_I_AMAX_FINITE; /* x is finite: checked */
    r.x_dtype = x;
    switch (mode) {
    case 0: /* R-CEIL, payload x * 2^-k (base.h:242-256, 313) */
        r.name = "R-CEIL";
        r.floor_1e4 = 1;
        r.e8m0 = KVG_E8M0_CEIL;
        r.store = KVG_I_STORE_E8M0;
        r.op = KVG_I_PAY_DIV; /* a power of two: x / s' = x * 2^-k */
        r.cast = cache;
        break;
    case 1: /* VFProcessDynamicBlockQuantVF (base.h:388-430) */
        r.name = round_scale ? "IQC-NORMAL-POW2" : "IQC-NORMAL";
        r.zero_scale_zero = 1;
        r.pow2_up = round_scale;
        r.store = KVG_I_STORE_F32;
        r.op = KVG_I_PAY_RECIP;
        r.keep_x_nonfinite = 1; /* Select(x, x, x0, cmpQ), base.h:428 */
        r.cast = cache;
        break;
    case 2: /* VFProcessHifp8QuantVF (base.h:463-484) */
        r.name = "HIF8-XSCALE";
        r.coeff = 0;
        r.store = KVG_I_STORE_NONE;
        r.op = KVG_I_PAY_XSCALE;
        r.cast = KVG_HIF8;
        break;
    default: /* R-OCP (mx_fp4_base.h:187-282) */
        r.name = "R-OCP";
        r.coeff = 0;
        r.store = KVG_I_STORE_OCP_E8M0;
        r.op = KVG_I_PAY_POW2_BF16;
        r.cast = KVG_FP4_E2M1;
    }
    return r;
}

static kvg_status check_dtypes(const kvg_indexer_quant_cache_args *a,
                               const iqc_mode *m, kvg_diag *diag)
{
    const kvg_dtype c = a->cache->dtype, s = a->cache_scale->dtype;

    if (c == KVG_DTYPE_INVALID || (c != m->cache[0] && c != m->cache[1]))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: dtype %s; quant_mode %lld takes %s",
                            kvg_dtype_name(c), (long long)a->quant_mode,
                            m->cache_why);
    if (s != m->scale)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_scale", -1,
                            -1, "cache_scale: dtype %s; quant_mode %lld "
                            "takes %s", kvg_dtype_name(s),
                            (long long)a->quant_mode,
                            kvg_dtype_name(m->scale));
    return KVG_OK;
}

/* The rows hold what the kernel writes (tiling_arch35.cpp:328-338). */
static kvg_status check_rows(const kvg_i_iqc_geometry *g, int64_t need,
                             int64_t scale_col, int mode, kvg_diag *diag)
{
    if (g->head_dim < need)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", 3, -1,
                            "cache: head_dim %lld; at least %lld expected "
                            "(%s)", (long long)g->head_dim, (long long)need,
                            mode == 3 ? "d / 2 bytes of packed fp4 pairs"
                                      : "d codes");
    if (g->scale_dim < scale_col)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_scale", 3,
                            -1, "cache_scale: last dim %lld; at least "
                            "scale_col = %lld expected",
                            (long long)g->scale_dim, (long long)scale_col);
    return KVG_OK;
}

/* Segment 0 the codes (cache), segment 1 their scales (cache_scale),
 * each at the start of its own region and tensor. */
static void fill_layout(kvg_row_layout *l, const iqc_mode *m,
                        const kvg_i_group_rule *r, const kvg_i_iqc_geometry *g,
                        int64_t d, int64_t scale_col)
{
    const int64_t esize = (int64_t)kvg_dtype_size(m->scale);
    kvg_i_row_build b;

    kvg_i_row_build_start(&b, l, m->name, "cache");
    kvg_i_row_build_add(&b, "codes", KVG_ROW_PAYLOAD, r->cast, d,
                        m->per_32 ? KVG_I_IQC_MX_GROUP
                        : r->store == KVG_I_STORE_NONE ? 0 : d,
                        -1);
    (void)kvg_i_row_build_region(&b, 1);
    kvg_i_row_build_add(&b, "scale",
                        m->scale_written ? KVG_ROW_SCALE : KVG_ROW_UNDEFINED,
                        m->scale, scale_col, 0, m->scale_written ? 0 : -1);
    l->tensors = 2;
    l->tensor_name[1] = "cache_scale";
    l->region_tensor[0] = 0;
    l->region_tensor[1] = 1;
    l->slot_stride[0] = g->head_dim;
    l->slot_stride[1] = g->scale_dim * esize;
    l->block_size = g->block_size;
    l->block_stride[0] = g->block_size * g->head_dim;
    l->block_stride[1] = g->block_size * g->scale_dim * esize;
    l->blocks = g->blocks;
}

kvg_status kvg_i_iqc_plan_mode(const kvg_indexer_quant_cache_args *a,
                               const kvg_i_iqc_geometry *g,
                               kvg_i_indexer_quant_cache_plan *plan,
                               kvg_diag *diag)
{
    const iqc_mode *m = &k_modes[a->quant_mode];
    const int64_t d = plan->d;
    const int64_t scale_col = m->per_32 ? d / KVG_I_IQC_MX_GROUP : 1;
    size_t bytes[KVG_ROW_TENSORS];

    KVG_TRY(check_dtypes(a, m, diag));
    KVG_TRY(check_rows(g, a->quant_mode == 3 ? d / 2 : d, scale_col,
                       (int)a->quant_mode, diag));
    plan->mode = (int)a->quant_mode;
    plan->rule = mode_rule(plan->mode, a->cache->dtype, a->x->dtype,
                           a->round_scale);
    fill_layout(&plan->layout, m, &plan->rule, g, d, scale_col);
    bytes[0] = (size_t)kvg_i_numel(a->cache) * kvg_dtype_size(a->cache->dtype);
    bytes[1] = (size_t)kvg_i_numel(a->cache_scale) * kvg_dtype_size(m->scale);
    return kvg_row_layout_check(&plan->layout, bytes, diag);
}
