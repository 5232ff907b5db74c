/*
 * src/ops/kv_compress_epilog/presets.c - (impl, quant_mode) -> the packed
 * row (a kvg_row_layout) and the group rules of its payloads, as data;
 * kvgold/kv_compress_epilog.h lists them with their sources. Each
 * implementation's function also refuses what that implementation has
 * not (a mode, a group size, a cache dtype or rank, an attribute away from
 * its default), naming the implementation.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/engines/group_rules.h"
#include "src/layout/row_build.h"
#include "src/ops/kv_compress_epilog/internal.h"

#define ROPE 64 /* the v1 family's rope: the last 64 columns, bf16 */
#define FL_1_6 0x3E2AAAABu

const char *kvg_i_kce_impl_name(kvg_kce_impl impl)
{
    static const char *const names[] = {"ot", "sgk", "va", "cr", "cr_v2"};
    return (unsigned)impl < 5u ? names[impl] : "?";
}

/* ---- the rules (group_quant.h; the spec's named ones: group_rules.h) - */

/* R-CEIL / R-EBUMP, or R-TRUNC without round_scale (group_rules.h), its
 * scale stored as `store` (OT mode 0 and cr_v2 mode 2 keep a bf16). */
static kvg_i_group_rule rule_mx(kvg_dtype cast, int e8m0, int round_scale,
                                kvg_i_scale_store store)
{
    kvg_i_group_rule r = kvg_i_rule_mx_fp8(cast, e8m0, round_scale);

    r.store = store;
    return r;
}

/* FP4-AMAX6 (OT mode 2). */
static kvg_i_group_rule rule_amax6(void)
{
    kvg_i_group_rule r = kvg_i_rule_base(KVG_FP4_E2M1);

    r.name = "FP4-AMAX6";
    r.coeff = FL_1_6;
    r.store = KVG_I_STORE_BF16;
    r.op = KVG_I_PAY_INV6_BF16;
    r.clamp = 1;
    return r;
}

/* R-OCP on the bf16 exponent, stored as a bf16 pattern (cr_v2 mxfp4). */
static kvg_i_group_rule rule_ocp_bf16(void)
{
    kvg_i_group_rule r = kvg_i_rule_base(KVG_FP4_E2M1);

    r.name = "R-OCP-BF16";
    r.coeff = 0;
    r.store = KVG_I_STORE_OCP_BF16;
    r.op = KVG_I_PAY_POW2_BF16;
    return r;
}

/* ---- building a row (src/layout/row_build.h, plus the plan's columns
 * and rules of each segment) ------------------------------------------ */

typedef struct row {
    kvg_i_kv_compress_epilog_plan *p;
    kvg_i_row_build b;
} row;

static void row_start(row *r, kvg_i_kv_compress_epilog_plan *p,
                      const char *name)
{
    int i;

    /* the scales live in the cache row */
    kvg_i_row_build_start(&r->b, &p->layout, name, "cache");
    for (i = 0; i < KVG_ROW_SEGMENTS; i++)
        p->rule_of[i] = -1, p->column[i] = 0;
    p->row_need = 0;
    p->exact_width = 0;
    r->p = p;
}

/* Append a segment taking x's columns from `column`; returns its index. */
static int add(row *r, const char *name, kvg_row_field f, kvg_dtype t,
               int64_t count, int64_t group, int of, int64_t column)
{
    const int i = kvg_i_row_build_add(&r->b, name, f, t, count, group, of);

    r->p->column[i] = column;
    return i;
}

static int add_payload(row *r, const char *name, int rule, int64_t count,
                       int64_t group, int64_t column)
{
    const int i = add(r, name, KVG_ROW_PAYLOAD, r->p->rules[rule].cast,
                      count, group, -1, column);
    r->p->rule_of[i] = rule;
    return i;
}

static kvg_dtype store_dtype(kvg_i_scale_store s)
{
    switch (s) {
    case KVG_I_STORE_F32:
        return KVG_FP32;
    case KVG_I_STORE_E8M0:
        return KVG_E8M0;
    default:
        return KVG_BF16;
    }
}

/* The scales of payload segment `of` (rule 0's store). */
static void add_scales(row *r, int of)
{
    const kvg_row_segment *p = &r->p->layout.seg[of];
    add(r, "scale", KVG_ROW_SCALE, store_dtype(r->p->rules[0].store),
        p->count / p->group, 0, of, 0);
}

/* q columns from `column` in groups of g, the last group shorter when g
 * does not divide q (the kernels' ceil: scaleCol = ceil(q / g)): a second
 * payload segment for it. tail[0] is the whole groups' segment, tail[1]
 * the short one's or -1. */
static void add_groups(row *r, int64_t q, int64_t g, int64_t column,
                       int *seg)
{
    const int64_t whole = q / g * g;

    seg[0] = whole > 0 ? add_payload(r, "nope", 0, whole, g, column) : -1;
    seg[1] = q > whole ? add_payload(r, "nope tail", 0, q - whole,
                                     q - whole, column + whole)
                       : -1;
}

/* Their scales, side by side (one run of ceil(q / g) scales). */
static void add_group_scales(row *r, const int *seg)
{
    if (seg[0] >= 0)
        add_scales(r, seg[0]);
    if (seg[1] >= 0)
        add_scales(r, seg[1]);
}

/* Zeros up to a multiple of `align` (no segment when none are needed). */
static void add_pad(row *r, int64_t align)
{
    const int64_t pad = (align - r->b.at % align) % align;
    if (pad > 0)
        add(r, "pad", KVG_ROW_PAD, KVG_UINT8, pad, 0, -1, 0);
}

/* The scale region's tail up to a multiple of `align`: the kernel copies
 * it out of a buffer it never set (SGK kv_compress_epilog.h:169-172,
 * common.h:619); kvgold writes zeros, compare judges no value there. */
static void add_unset(row *r, int64_t align)
{
    const int64_t pad = (align - r->b.at % align) % align;
    if (pad > 0)
        add(r, "scale tail", KVG_ROW_UNDEFINED, KVG_UINT8, pad, 0, -1, 0);
}

/* ---- refusals -------------------------------------------------------- */

static kvg_status refuse(kvg_diag *diag, const char *name, const char *fmt,
                         const char *impl, long long got)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1, fmt, name,
                        impl, got);
}

static kvg_status bad_mode(const kvg_kv_compress_epilog_args *a,
                           const char *modes, kvg_diag *diag)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_mode", -1, -1,
                        "quant_mode: %s has modes %s, got %lld",
                        kvg_i_kce_impl_name(a->impl), modes,
                        (long long)a->quant_mode);
}

/* An attribute the implementation does not have keeps its default. */
static kvg_status no_layout(const kvg_kv_compress_epilog_args *a,
                            kvg_diag *diag)
{
    if (a->layout != 1)
        return refuse(diag, "layout",
                      "%s: %s has no layout attribute (1 only), got %lld",
                      kvg_i_kce_impl_name(a->impl), (long long)a->layout);
    return KVG_OK;
}

static kvg_status no_x_scale(const kvg_kv_compress_epilog_args *a,
                             kvg_diag *diag)
{
    if (a->x_scale != 1.0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x_scale", -1, -1,
                            "x_scale: %s takes 1.0 only (it has no scale "
                            "attribute, or requires 1.0), got %g",
                            kvg_i_kce_impl_name(a->impl), a->x_scale);
    return KVG_OK;
}

static kvg_status cache_dtype(const kvg_kv_compress_epilog_args *a,
                              const kvg_i_kce_cache *c, int ok,
                              const char *want, kvg_diag *diag)
{
    if (ok)
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                        "cache: %s mode %lld takes %s, got %s",
                        kvg_i_kce_impl_name(a->impl),
                        (long long)a->quant_mode, want,
                        kvg_dtype_name(c->dtype));
}

/* quant_group_size: 0 (the default `dflt`) or one of `allowed`. */
static kvg_status group_size(const kvg_kv_compress_epilog_args *a,
                             int64_t dflt, const int64_t *allowed, int n,
                             const char *text, int64_t *g, kvg_diag *diag)
{
    int i;

    *g = a->quant_group_size == 0 ? dflt : a->quant_group_size;
    for (i = 0; i < n; i++)
        if (*g == allowed[i])
            return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_group_size", -1,
                        -1, "quant_group_size: %s mode %lld takes %s (0: "
                        "%lld), got %lld", kvg_i_kce_impl_name(a->impl),
                        (long long)a->quant_mode, text, (long long)dflt,
                        (long long)a->quant_group_size);
}

static kvg_status divides(const char *what, int64_t n, int64_t g,
                          kvg_diag *diag)
{
    if (n % g == 0)
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                        "x: %s = %lld is not a multiple of the group size "
                        "%lld (the tiling refuses it)",
                        what, (long long)n, (long long)g);
}

/* ---- the presets ----------------------------------------------------- */

/* OT tiling_arch35.cpp:270-297 (25fb6b928): rows padded to 32 B except
 * mode 1; group 64 in modes 0 / 1 whatever quant_group_size says. */
static kvg_status preset_ot(const kvg_kv_compress_epilog_args *a,
                            const kvg_i_kce_cache *c,
                            kvg_i_kv_compress_epilog_plan *p, kvg_diag *diag)
{
    static const int64_t fp4_groups[] = {16, 32, 64};
    const int64_t nope = p->d - ROPE;
    int64_t g;
    row r;
    int q;

    KVG_TRY(no_layout(a, diag));
    KVG_TRY(cache_dtype(a, c, c->dtype == KVG_UINT8, "uint8", diag));
    if (a->quant_mode == 0 || a->quant_mode == 1) {
        p->rules[0] = rule_mx(KVG_FP8_E4M3FN, KVG_E8M0_CEIL, a->round_scale,
                              a->quant_mode == 0 ? KVG_I_STORE_BF16
                                                 : KVG_I_STORE_E8M0);
        row_start(&r, p, a->quant_mode == 0 ? "ot mode 0" : "ot mode 1");
        add(&r, "rope", KVG_ROW_COPY, KVG_BF16, ROPE, 0, -1, nope);
        q = add_payload(&r, "nope", 0, nope, 64, 0);
        add_scales(&r, q);
        if (a->quant_mode == 0)
            add_pad(&r, 32);
        p->row_need = r.b.at;
        return KVG_OK;
    }
    if (a->quant_mode != 2)
        return bad_mode(a, "0 (fp8, bf16 scales), 1 (fp8, e8m0 scales), 2 "
                           "(hif8 rope, fp4 nope)", diag);
    KVG_TRY(group_size(a, 64, fp4_groups, 3, "16, 32 or 64", &g, diag));
    KVG_TRY(divides("d - 64", nope, g, diag));
    p->rules[0] = rule_amax6();
    p->rules[1] = kvg_i_rule_hif8_xscale();
    row_start(&r, p, "ot mode 2");
    add_payload(&r, "rope", 1, ROPE, 0, nope);
    q = add_payload(&r, "nope", 0, nope, g, 0);
    add_scales(&r, q);
    add_pad(&r, 32);
    p->row_need = r.b.at;
    return KVG_OK;
}

/* SGK / VA layout 1 (op_host kv_compress_epilog.cpp:115-129), and CR's
 * modes 1 / 2, which fix the groups (128, 64). */
static void row_fp8_blk(kvg_i_kv_compress_epilog_plan *p, kvg_dtype cast,
                        const char *name)
{
    const int64_t nope = p->d - ROPE;
    row r;
    int q[2];

    p->rules[0] = kvg_i_rule_blk128_fp32(cast);
    row_start(&r, p, name);
    add_groups(&r, nope, 128, 0, q);
    add(&r, "rope", KVG_ROW_COPY, KVG_BF16, ROPE, 0, -1, nope);
    add_group_scales(&r, q);
    add_pad(&r, 128);
    p->row_need = r.b.at;
}

static void row_mxfp8(kvg_i_kv_compress_epilog_plan *p, kvg_dtype cast,
                      int64_t g, int round_scale, const char *name)
{
    const int64_t nope = p->d - ROPE;
    row r;
    int q[2];

    p->rules[0] = rule_mx(cast, KVG_E8M0_EBUMP, round_scale,
                          KVG_I_STORE_E8M0);
    row_start(&r, p, name);
    add(&r, "rope", KVG_ROW_COPY, KVG_BF16, ROPE, 0, -1, nope);
    add_groups(&r, nope, g, 0, q);
    add_group_scales(&r, q);
    add_pad(&r, 128);
    p->row_need = r.b.at;
}

/* SGK layout 2 (kv_compress_epilog.h:157-175, op_host:136-153): a block
 * holds block_size x [fp8 nope | rope] and then block_size x [e8m0 x n |
 * pad to 8]. The kernel copies the 8-byte scale slot out of a buffer it
 * wrote n bytes of; kvgold writes the rest as zeros (compare may treat
 * them as don't-care). */
static void row_mxfp8_blocks(kvg_i_kv_compress_epilog_plan *p,
                             const kvg_i_kce_cache *c, kvg_dtype cast,
                             int64_t g, int round_scale, const char *name)
{
    const int64_t nope = p->d - ROPE;
    kvg_row_layout *l = &p->layout;
    int64_t value;
    row r;
    int q[2];

    p->rules[0] = rule_mx(cast, KVG_E8M0_EBUMP, round_scale,
                          KVG_I_STORE_E8M0);
    row_start(&r, p, name);
    add_groups(&r, nope, g, 0, q);
    add(&r, "rope", KVG_ROW_COPY, KVG_BF16, ROPE, 0, -1, nope);
    value = kvg_i_row_build_region(&r.b, 1);
    add_group_scales(&r, q);
    add_unset(&r, 8);
    l->slot_stride[0] = value;
    l->slot_stride[1] = r.b.at;
    l->region_offset[1] = c->block_size * value;
    p->row_need = value + r.b.at;
}

/* SGK op_host kv_compress_epilog.cpp (064559ba) "mirrors vllm-ascend
 * validate_kv_compress_epilog_inputs": x 2-D; layout 1 strides rows by
 * cache.stride(0), so a 4-D cache must have one slot a block; layout 2
 * reads block_size from the cache's dim 1, so it must be 4-D. */
static kvg_status sgk_shapes(const kvg_kv_compress_epilog_args *a,
                             const kvg_i_kce_cache *c, kvg_diag *diag)
{
    const char *impl = kvg_i_kce_impl_name(a->impl);

    if (a->x->rank != 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: %s takes a 2-D x [tokens, d], got rank %d",
                            impl, a->x->rank);
    if (a->layout == 2 && c->rank != 4)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: %s layout 2 takes a 4-D cache [blocks, "
                            "block_size, 1, bytes], got rank %d", impl,
                            c->rank);
    if (a->layout == 1 && c->block_size != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", 1, -1,
                            "cache: %s layout 1 strides rows by the cache's "
                            "dim-0 stride, so a 4-D cache needs block_size "
                            "1, got %lld", impl, (long long)c->block_size);
    return KVG_OK;
}

static kvg_status preset_sgk_va(const kvg_kv_compress_epilog_args *a,
                                const kvg_i_kce_cache *c,
                                kvg_i_kv_compress_epilog_plan *p,
                                kvg_diag *diag)
{
    static const int64_t mx_groups[] = {64, 128};
    const int fp8 = c->dtype == KVG_FP8_E4M3FN || c->dtype == KVG_FP8_E5M2;
    const int sgk = a->impl == KVG_KCE_SGK;
    int64_t g;

    KVG_TRY(no_x_scale(a, diag));
    if (a->quant_mode != 1 && a->quant_mode != 2)
        return bad_mode(a, "1 (fp8, fp32 scales) and 2 (mxfp8)", diag);
    KVG_TRY(cache_dtype(a, c, fp8, "fp8_e4m3fn or fp8_e5m2 (which picks "
                                   "the payload)", diag));
    if (a->layout != 1 && (a->layout != 2 || a->quant_mode != 2))
        return refuse(diag, "layout",
                      "%s: %s has layout 1, and 2 (block-major) for mode 2 "
                      "only, got %lld",
                      kvg_i_kce_impl_name(a->impl), (long long)a->layout);
    KVG_TRY(sgk_shapes(a, c, diag));
    if (a->quant_mode == 1) {
        /* quant_group_size is not read: scaleCol = ceil(q / 128) */
        row_fp8_blk(p, c->dtype, sgk ? "sgk mode 1" : "va mode 1");
    } else {
        KVG_TRY(group_size(a, 128, mx_groups, 2, "64 or 128", &g, diag));
        if (a->layout == 2)
            row_mxfp8_blocks(p, c, c->dtype, g, a->round_scale,
                             sgk ? "sgk mode 2 layout 2"
                                 : "va mode 2 layout 2");
        else
            row_mxfp8(p, c->dtype, g, a->round_scale,
                      sgk ? "sgk mode 2" : "va mode 2");
    }
    /* va's layout-1 row stride is its block_stride attribute, 0 meaning
     * the row's own length: a wider cache needs it named */
    p->exact_width = !sgk && a->layout == 1 && a->block_stride == 0;
    return KVG_OK;
}

/* CR op_host tiling_arch35.h:42-44; kernel common.h, kv_compress_epilog.h
 * :147-152 (mode 3: d hif8 bytes a row). */
static kvg_status preset_cr(const kvg_kv_compress_epilog_args *a,
                            const kvg_i_kce_cache *c,
                            kvg_i_kv_compress_epilog_plan *p, kvg_diag *diag)
{
    const int fp8 = c->dtype == KVG_FP8_E4M3FN || c->dtype == KVG_FP8_E5M2;
    row r;

    KVG_TRY(no_layout(a, diag));
    if (a->quant_mode < 1 || a->quant_mode > 3)
        return bad_mode(a, "1 (fp8, fp32 scales), 2 (mxfp8, group 64), 3 "
                           "(hif8 row)", diag);
    if (a->quant_mode == 3) {
        KVG_TRY(cache_dtype(a, c, c->dtype == KVG_UINT8, "uint8", diag));
        p->rules[0] = kvg_i_rule_hif8_xscale();
        row_start(&r, p, "cr mode 3");
        add_payload(&r, "x", 0, p->d, 0, 0);
        p->row_need = r.b.at;
    } else {
        /* a uint8 cache leaves the kernel's fp8 coefficients unset (CR
         * kv_compress_epilog.h:167-179 sets them for fp8 caches only) */
        KVG_TRY(cache_dtype(a, c, fp8, "fp8_e4m3fn or fp8_e5m2", diag));
        if (a->quant_mode == 1)
            row_fp8_blk(p, c->dtype, "cr mode 1");
        else
            row_mxfp8(p, c->dtype, 64, a->round_scale, "cr mode 2");
    }
    /* rows at slot * kvCacheCol (CR kv_compress_epilog.h:152, :159) */
    p->exact_width = 1;
    return KVG_OK;
}

/* CR2 tiling_arch35.cpp ValidateAndCalculateLayout: [data | bf16 scales |
 * pad to 32], no rope split. */
static kvg_status preset_cr_v2(const kvg_kv_compress_epilog_args *a,
                               const kvg_i_kce_cache *c,
                               kvg_i_kv_compress_epilog_plan *p,
                               kvg_diag *diag)
{
    static const int64_t g32[] = {32}, fp4_groups[] = {16, 32};
    const int fp8 = c->dtype == KVG_FP8_E4M3FN || c->dtype == KVG_FP8_E5M2;
    int64_t g;
    row r;
    int q;

    KVG_TRY(no_x_scale(a, diag));
    if (a->layout != 1 && a->layout != 2)
        return refuse(diag, "layout", "%s: %s has layouts 1 (2-D cache) and "
                      "2 (4-D cache), got %lld", "cr_v2",
                      (long long)a->layout);
    if (c->rank != (a->layout == 1 ? 2 : 4))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: cr_v2 layout %lld takes a %d-D cache, "
                            "got rank %d", (long long)a->layout,
                            a->layout == 1 ? 2 : 4, c->rank);
    if (a->quant_mode == 2) {
        KVG_TRY(cache_dtype(a, c, fp8, "fp8_e4m3fn or fp8_e5m2", diag));
        KVG_TRY(group_size(a, 32, g32, 1, "32", &g, diag));
        KVG_TRY(divides("d", p->d, g, diag));
        p->rules[0] = rule_mx(c->dtype, KVG_E8M0_CEIL, a->round_scale,
                              KVG_I_STORE_BF16);
        row_start(&r, p, "cr_v2 mode 2");
    } else if (a->quant_mode == 4) {
        KVG_TRY(cache_dtype(a, c, c->dtype == KVG_UINT8, "uint8", diag));
        KVG_TRY(group_size(a, 32, fp4_groups, 2, "16 or 32", &g, diag));
        KVG_TRY(divides("d", p->d, g, diag));
        p->rules[0] = rule_ocp_bf16();
        row_start(&r, p, "cr_v2 mode 4");
    } else {
        return bad_mode(a, "2 (mxfp8_bf16) and 4 (mxfp4_bf16)", diag);
    }
    q = add_payload(&r, "x", 0, p->d, g, 0);
    add_scales(&r, q);
    if (a->layout == 2) {
        /* tokens packed at data + scale bytes inside a block, no pad
         * (CR2@26694f1e tiling tokenStride_, test/test_layout2.cpp) */
        p->layout.slot_stride[0] = r.b.at;
    } else {
        add_pad(&r, 32);
    }
    p->row_need = r.b.at;
    return KVG_OK;
}

/* The row placed in the cache: a slot a cache row unless the preset set
 * its own strides (block-major, packed tokens); block_stride the natural
 * one (kvgold's caches are dense). */
static kvg_status place(const kvg_kv_compress_epilog_args *a,
                        const kvg_i_kce_cache *c,
                        kvg_i_kv_compress_epilog_plan *p, kvg_diag *diag)
{
    kvg_row_layout *l = &p->layout;
    const int64_t natural = c->block_size * c->row_bytes;

    if (c->row_bytes < p->row_need ||
        (p->exact_width && c->row_bytes != p->row_need))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: a row of %lld bytes (its last dim); the "
                            "%s row of d = %lld needs %s%lld%s",
                            (long long)c->row_bytes, l->name,
                            (long long)p->d, p->exact_width ? "exactly " : "",
                            (long long)p->row_need,
                            p->exact_width
                                ? " (the kernel addresses rows at slot * "
                                  "that length)"
                                : "");
    if (a->block_stride != 0 && a->block_stride != natural)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_stride", -1,
                            -1, "block_stride: 0 or the dense cache's %lld "
                            "bytes (block_size * row bytes), got %lld",
                            (long long)natural, (long long)a->block_stride);
    if (l->slot_stride[0] == 0)
        l->slot_stride[0] = c->row_bytes;
    l->block_size = c->block_size;
    l->block_stride[0] = natural;
    l->blocks = c->blocks;
    p->slots = c->blocks * c->block_size;
    return kvg_row_layout_check(l, NULL, diag);
}

kvg_status kvg_i_kce_preset(const kvg_kv_compress_epilog_args *a,
                            const kvg_i_kce_cache *c,
                            kvg_i_kv_compress_epilog_plan *p,
                            kvg_diag *diag)
{
    const int has_block_stride =
        a->impl == KVG_KCE_VA || a->impl == KVG_KCE_CR_V2;

    if (!has_block_stride && a->block_stride != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_stride", -1,
                            -1, "block_stride: %s has no block_stride "
                            "attribute (0 only), got %lld",
                            kvg_i_kce_impl_name(a->impl),
                            (long long)a->block_stride);
    p->policy = a->impl == KVG_KCE_CR_V2 ? KVG_I_SLOT_SKIP_OUTSIDE
                                         : KVG_I_SLOT_SKIP_MINUS1;
    /* static_cast<int32_t> of the slot: SGK kv_compress_epilog.h:108, CR
     * :107-108, VA as SGK; OT25 reads int64 */
    p->int32_only = a->impl == KVG_KCE_SGK || a->impl == KVG_KCE_VA ||
                    a->impl == KVG_KCE_CR;
    switch (a->impl) {
    case KVG_KCE_OT:
        KVG_TRY(preset_ot(a, c, p, diag));
        break;
    case KVG_KCE_SGK:
    case KVG_KCE_VA:
        KVG_TRY(preset_sgk_va(a, c, p, diag));
        break;
    case KVG_KCE_CR:
        KVG_TRY(preset_cr(a, c, p, diag));
        break;
    default:
        KVG_TRY(preset_cr_v2(a, c, p, diag));
    }
    return place(a, c, p, diag);
}
