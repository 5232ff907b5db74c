/*
 * src/engines/group_quant.c - one group quantised under a kvg_i_group_rule
 * (the rule's steps are listed in group_quant.h). The codecs are the
 * format layer's (bf16, fp8, hif8, fp4 e2m1, and the E8M0 rules of
 * kvg_e8m0_from_amax); this file only sequences them as a rule says.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/group_quant.h"

#include "src/common/bits.h"

#define MAG_MASK 0x7FFFFFFFu
#define F32_INF 0x7F800000u

float kvg_i_group_cast_max(kvg_dtype cast)
{
    switch (cast) {
    case KVG_FP8_E4M3FN:
        return 448.0f;
    case KVG_FP8_E5M2:
        return 57344.0f;
    case KVG_HIF8:
        return 32768.0f;
    case KVG_FP4_E2M1:
        return 6.0f;
    default:
        return 0.0f;
    }
}

size_t kvg_i_group_scale_bytes(const kvg_i_group_rule *r)
{
    switch (r->store) {
    case KVG_I_STORE_F32:
        return 4;
    case KVG_I_STORE_BF16:
    case KVG_I_STORE_OCP_BF16:
        return 2;
    case KVG_I_STORE_E8M0:
        return 1;
    default:
        return 0;
    }
}

size_t kvg_i_group_payload_bytes(const kvg_i_group_rule *r, int64_t n)
{
    return r->cast == KVG_FP4_E2M1 ? (size_t)(n / 2) : (size_t)n;
}

/* Element i of a bf16 row, widened exactly. */
static float bf16_at(const unsigned char *x, int64_t i)
{
    const uint16_t code =
        (uint16_t)(x[2 * i] | (uint16_t)((uint16_t)x[2 * i + 1] << 8));
    return kvg_i_float((uint32_t)code << 16);
}

/* Round to bf16 (nearest-even) and back: the kernels' bf16 arithmetic,
 * one rounding of the binary32 result (exact for bf16 x bf16). */
static float bf16_round(float v)
{
    return kvg_bf16_to_f32(kvg_f32_to_bf16(v, KVG_OVF_DEFAULT));
}

static void put_le(unsigned char *at, uint32_t v, size_t bytes)
{
    size_t i;

    for (i = 0; i < bytes; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

/* Step 1: the magnitude bits of amax (see kvg_i_amax_kind). */
static uint32_t amax_bits(const kvg_i_group_rule *r, const unsigned char *x,
                          int64_t n)
{
    uint32_t best = 0, m;
    int64_t i;

    for (i = 0; i < n; i++) {
        m = kvg_i_bits(bf16_at(x, i)) & MAG_MASK;
        if (r->amax == KVG_I_AMAX_FINITE && m >= F32_INF)
            continue;
        if (m > best)
            best = m;
    }
    return best;
}

/* Step 2: s from amax. */
static float raw_scale(const kvg_i_group_rule *r, float amax)
{
    const float floor_amax = 1e-4f; /* fl(1e-4), as the kernels hold it */
    float a = amax;

    if (r->zero_scale_zero && amax == 0.0f)
        return 0.0f;
    if (r->floor_1e4 && a < floor_amax)
        a = floor_amax;
    if (r->coeff_div)
        return a / kvg_i_group_cast_max(r->cast);
    return r->coeff != 0 ? a * kvg_i_float(r->coeff) : a;
}

/* What steps 2-4 give: the payload's scale (or multiplier) and the
 * stored scale's bits. */
typedef struct group_scale {
    float sp;      /* s' (DIV), the multiplier (POW2_BF16, INV6_BF16) */
    uint32_t code; /* the stored scale's bits */
} group_scale;

/* R-OCP on the bf16 exponent, stored as a bf16 pattern (cr_v2 mxfp4):
 * E = 0 zeroes the payload; 0 < E <= 2 stores +0 but multiplies by
 * 2^127; a non-finite amax gives 0x7F81 for both. */
static group_scale ocp_bf16(uint32_t amax)
{
    const uint32_t e = amax >> 23;
    group_scale g;

    if (e >= 0xFFu) {
        g.code = 0x7F81u;
        g.sp = kvg_bf16_to_f32(0x7F81u);
        return g;
    }
    g.code = e > 2 ? (e - 2u) << 7 : 0;
    g.sp = e == 0 ? 0.0f : kvg_bf16_to_f32((uint16_t)(0x7F00u - g.code));
    return g;
}

static group_scale scale_of(const kvg_i_group_rule *r, uint32_t amax)
{
    const float a = kvg_i_float(amax);
    group_scale g;
    float stored;
    uint8_t c = 0xFF;

    if (r->store == KVG_I_STORE_OCP_BF16)
        return ocp_bf16(amax);
    g.sp = raw_scale(r, a);
    if (r->e8m0 != KVG_I_NO_E8M0) {
        /* the format layer's rule (fl(1e-4) floor and fl(1/MAX), as the
         * presets state in floor_1e4 / coeff); a non-finite amax is
         * refused by the operators and leaves the NaN code */
        (void)kvg_e8m0_from_amax((kvg_e8m0_rule)r->e8m0, r->cast, a, &c);
        if (r->e8m0 != KVG_E8M0_TRUNC)
            g.sp = kvg_e8m0_to_f32(c);
    }
    /* the stored scale is the payload's divisor, except FP4-AMAX6,
     * which stores s = amax * fl(1/6) and multiplies by bf16(6 / amax) */
    stored = g.sp;
    if (r->op == KVG_I_PAY_INV6_BF16)
        g.sp = amax == 0 ? 0.0f : bf16_round(6.0f / a);
    switch (r->store) {
    case KVG_I_STORE_F32:
        g.code = kvg_i_bits(stored);
        break;
    case KVG_I_STORE_BF16:
        g.code = kvg_f32_to_bf16(stored, KVG_OVF_DEFAULT);
        break;
    case KVG_I_STORE_E8M0:
        g.code = c;
        break;
    default:
        g.code = 0;
    }
    return g;
}

/* Step 6: one code. */
static uint8_t cast_code(const kvg_i_group_rule *r, float q)
{
    switch (r->cast) {
    case KVG_FP8_E4M3FN:
        return kvg_f32_to_fp8e4m3fn(q, KVG_OVF_NONSAT);
    case KVG_FP8_E5M2:
        return kvg_f32_to_fp8e5m2(q, KVG_OVF_NONSAT);
    case KVG_HIF8:
        return kvg_f32_to_hif8(q, KVG_OVF_SATURATE);
    default:
        return kvg_f32_to_fp4e2m1(q, KVG_FP4_RINT, KVG_FP4_NAN_ZERO);
    }
}

/* Step 5 for element x under scale g. */
static float payload(const kvg_i_group_rule *r, float x, float sp,
                     float x_scale)
{
    const float max = kvg_i_group_cast_max(r->cast);
    float q;

    switch (r->op) {
    case KVG_I_PAY_DIV:
        q = x / sp;
        break;
    case KVG_I_PAY_XSCALE:
        q = x * x_scale;
        break;
    default: /* POW2_BF16, INV6_BF16: a bf16 multiply */
        q = bf16_round(x * sp);
    }
    if (r->keep_x_nonfinite && (kvg_i_bits(q) & MAG_MASK) >= F32_INF)
        q = x;
    if (r->clamp) {
        if (q > max)
            q = max;
        else if (q < -max)
            q = -max;
    }
    return q;
}

void kvg_i_group_quant(const kvg_i_group_rule *r, const unsigned char *x,
                       int64_t n, float x_scale, unsigned char *q,
                       unsigned char *scale)
{
    group_scale g = {0.0f, 0};
    int64_t i;
    uint8_t lo, hi;

    if (r->store != KVG_I_STORE_NONE) {
        g = scale_of(r, amax_bits(r, x, n));
        put_le(scale, g.code, kvg_i_group_scale_bytes(r));
    }
    if (r->cast != KVG_FP4_E2M1) {
        for (i = 0; i < n; i++)
            q[i] = cast_code(r, payload(r, bf16_at(x, i), g.sp, x_scale));
        return;
    }
    for (i = 0; i + 1 < n; i += 2) {
        lo = cast_code(r, payload(r, bf16_at(x, i), g.sp, x_scale));
        hi = cast_code(r, payload(r, bf16_at(x, i + 1), g.sp, x_scale));
        q[i / 2] = kvg_fp4_pack(lo, hi);
    }
}
