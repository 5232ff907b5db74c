/*
 * src/ops/indexer_compress_epilog/presets.c - (impl, quant_mode,
 * round_scale) -> the group rule and the packed row placed in the
 * cache(s), as data: the layout through the row builder
 * (src/layout/row_build.h), the rule one of the spec's named rules
 * (src/engines/group_rules.h). Sources as in
 * kvgold/indexer_compress_epilog.h (CR, VA).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"
#include "src/engines/group_rules.h"
#include "src/layout/row_build.h"
#include "src/ops/indexer_compress_epilog/internal.h"

const char *kvg_i_ice_impl_name(kvg_ice_impl impl)
{
    static const char *const names[] = {"cr", "va_v2"};
    return (unsigned)impl < 2u ? names[impl] : "?";
}

/* What a cr mode takes and writes. */
typedef struct cr_mode {
    const char *name[2];  /* the layout's name: [round_scale] */
    kvg_dtype cache[2];   /* accepted cache dtypes */
    const char *cache_why;
    kvg_dtype scale;      /* cache_scale's dtype */
} cr_mode;

static const cr_mode k_cr_modes[3] = {
    /* tiling key 10000 / 10010 (tiling.cpp:167-177): the MX-FP8 kernels */
    {{"cr mode 0 (MX-FP8, R-TRUNC)", "cr mode 0 (MX-FP8, R-EBUMP)"},
     {KVG_FP8_E4M3FN, KVG_FP8_E5M2},
     "fp8_e4m3fn or fp8_e5m2", KVG_E8M0},
    /* StoreOutputData has no uint8 branch (base.h:125-143): a uint8 cache
     * would get no codes */
    {{"cr mode 1 (fp8, fp32 scale)", "cr mode 1 (fp8, fp32 scale)"},
     {KVG_FP8_E4M3FN, KVG_FP8_E5M2},
     "fp8_e4m3fn or fp8_e5m2 (the kernel stores no codes into a uint8 "
     "cache in this mode)", KVG_FP32},
    /* VFProcessHifp8Quant writes HiF8 codes whatever the cache's type
     * (base.h:389): only uint8, their byte holder, says what they are */
    {{"cr mode 2 (HiFloat8)", "cr mode 2 (HiFloat8)"},
     {KVG_UINT8, KVG_HIF8},
     "uint8 (or hif8): the kernel writes HiFloat8 codes", KVG_FP32},
};

static kvg_status check_dtype(const kvg_tensor *t, const char *name,
                              kvg_dtype want0, kvg_dtype want1,
                              const char *why, long long mode,
                              kvg_diag *diag)
{
    if (t->dtype != KVG_DTYPE_INVALID &&
        (t->dtype == want0 || t->dtype == want1))
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                        "%s: dtype %s; quant_mode %lld takes %s", name,
                        kvg_dtype_name(t->dtype), mode, why);
}

/* The payload segments (whole groups, short last group) and their
 * columns of x. */
static void mark_payloads(kvg_i_indexer_compress_epilog_plan *p,
                          const int seg[2])
{
    int k;

    for (k = 0; k < 2; k++)
        if (seg[k] >= 0) {
            p->payload[seg[k]] = 1;
            p->column[seg[k]] = k == 0 ? 0 : p->d / KVG_I_ICE_GROUP *
                                                 KVG_I_ICE_GROUP;
        }
}

/* cr: codes at cache row s (d bytes: exactly the row, the kernel writes
 * at slot * d, single_row.h:90-91), scales at cache_scale row s
 * (ceil(d / 128), at slot * ceil(d / 128), :92-94). */
static kvg_status preset_cr(const kvg_indexer_compress_epilog_args *a,
                            const kvg_i_ice_geometry *g,
                            kvg_i_indexer_compress_epilog_plan *p,
                            kvg_diag *diag)
{
    const cr_mode *m = &k_cr_modes[a->quant_mode];
    const int64_t scale_col = (p->d + KVG_I_ICE_GROUP - 1) / KVG_I_ICE_GROUP;
    const int64_t esize = 4 - 3 * (m->scale == KVG_E8M0);
    kvg_row_layout *l = &p->layout;
    kvg_i_row_build b;
    int seg[2], sc[2];

    KVG_TRY(check_dtype(a->cache, "cache", m->cache[0], m->cache[1],
                        m->cache_why, (long long)a->quant_mode, diag));
    KVG_TRY(check_dtype(a->cache_scale, "cache_scale", m->scale, m->scale,
                        kvg_dtype_name(m->scale), (long long)a->quant_mode,
                        diag));
    if (a->quant_mode == 0)
        /* R-EBUMP (base.h:217-227: the And with 0x7FFFFF meant for the
         * mantissa is applied to the exponent) or R-TRUNC (the
         * roundScale = false instance, :157, skips that step at :217) */
        p->rule = kvg_i_rule_mx_fp8(a->cache->dtype, KVG_E8M0_EBUMP,
                                    a->round_scale);
    else if (a->quant_mode == 1) /* VFProcessDynamicBlockQuant :269-382 */
        p->rule = kvg_i_rule_blk128_fp32(a->cache->dtype);
    else /* VFProcessHifp8Quant :384-413 */
        p->rule = kvg_i_rule_hif8_xscale();
    p->rule.x_dtype = a->x->dtype;
    p->scale_subnormal_refused = a->quant_mode == 1;
    kvg_i_row_build_start(&b, l, m->name[a->round_scale != 0], "cache");
    if (a->quant_mode == 2) {
        /* one element-wise payload; the scale row gets unset bytes */
        seg[0] = kvg_i_row_build_add(&b, "codes", KVG_ROW_PAYLOAD, KVG_HIF8,
                                     p->d, 0, -1);
        seg[1] = -1;
        (void)kvg_i_row_build_region(&b, 1);
        (void)kvg_i_row_build_add(&b, "scale", KVG_ROW_UNDEFINED, KVG_FP32,
                                  scale_col, 0, -1);
    } else {
        kvg_i_row_build_groups(&b, a->cache->dtype, p->d, KVG_I_ICE_GROUP,
                               seg);
        (void)kvg_i_row_build_region(&b, 1);
        kvg_i_row_build_group_scales(&b, m->scale, seg, sc);
    }
    mark_payloads(p, seg);
    l->tensors = 2;
    l->tensor_name[1] = "cache_scale";
    l->region_tensor[1] = 1;
    l->slot_stride[0] = p->d;
    l->slot_stride[1] = scale_col * esize;
    l->block_size = 1; /* a row a slot */
    l->block_stride[0] = p->d;
    l->block_stride[1] = scale_col * esize;
    l->blocks = g->blocks;
    return KVG_OK;
}

/* va_v2: block-major in one uint8 cache (single_row.h:83-93): a block's
 * block_size x d codes, then its block_size x ceil(d / 128) fp32 scales;
 * blocks block_size * cacheD apart (the torch binding's stride(0) of a
 * dense cache, torch_binding.cpp:1709). */
static kvg_status preset_va_v2(const kvg_indexer_compress_epilog_args *a,
                               const kvg_i_ice_geometry *g,
                               kvg_i_indexer_compress_epilog_plan *p,
                               kvg_diag *diag)
{
    const int64_t scale_col = (p->d + KVG_I_ICE_GROUP - 1) / KVG_I_ICE_GROUP;
    const int64_t need = p->d + 4 * scale_col;
    const int64_t dense = g->block_size * g->row_bytes;
    kvg_row_layout *l = &p->layout;
    kvg_i_row_build b;
    int seg[2], sc[2];

    if (a->cache->dtype != KVG_UINT8)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: dtype %s; va_v2 takes uint8 (a byte "
                            "view of the combined fp8 + fp32 cache)",
                            kvg_dtype_name(a->cache->dtype));
    if (g->row_bytes < need)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", 3, -1,
                            "cache: last dim %lld; va_v2 with d = %lld "
                            "needs at least d + 4 * ceil(d / 128) = %lld "
                            "(a block holds block_size x d codes, then "
                            "block_size x %lld fp32 scales)",
                            (long long)g->row_bytes, (long long)p->d,
                            (long long)need, (long long)scale_col);
    if (a->block_stride != 0 && a->block_stride != dense)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_stride", -1,
                            -1, "block_stride: 0 or the dense cache's %lld "
                            "bytes (block_size * last dim), got %lld",
                            (long long)dense, (long long)a->block_stride);
    p->rule = kvg_i_rule_blk128_fp32(KVG_FP8_E4M3FN); /* v2_base.h:134-240 */
    p->rule.x_dtype = a->x->dtype;
    p->scale_subnormal_refused = 1;
    kvg_i_row_build_start(&b, l, "va_v2 layout 2 (block-major)", "cache");
    kvg_i_row_build_groups(&b, KVG_FP8_E4M3FN, p->d, KVG_I_ICE_GROUP, seg);
    l->slot_stride[0] = kvg_i_row_build_region(&b, 1);
    kvg_i_row_build_group_scales(&b, KVG_FP32, seg, sc);
    mark_payloads(p, seg);
    l->slot_stride[1] = b.at;
    l->region_offset[1] = g->block_size * p->d;
    l->block_size = g->block_size;
    l->block_stride[0] = dense;
    l->blocks = g->blocks;
    return KVG_OK;
}

kvg_status kvg_i_ice_preset(const kvg_indexer_compress_epilog_args *a,
                            const kvg_i_ice_geometry *g,
                            kvg_i_indexer_compress_epilog_plan *p,
                            kvg_diag *diag)
{
    size_t bytes[KVG_ROW_TENSORS] = {0, 0};

    memset(p->payload, 0, sizeof p->payload);
    memset(p->column, 0, sizeof p->column);
    KVG_TRY(a->impl == KVG_ICE_CR ? preset_cr(a, g, p, diag)
                                  : preset_va_v2(a, g, p, diag));
    p->slots = g->blocks * g->block_size;
    bytes[0] = (size_t)kvg_i_numel(a->cache) *
               kvg_dtype_size(a->cache->dtype);
    if (a->cache_scale != NULL)
        bytes[1] = (size_t)kvg_i_numel(a->cache_scale) *
                   kvg_dtype_size(a->cache_scale->dtype);
    return kvg_row_layout_check(&p->layout, bytes, diag);
}
