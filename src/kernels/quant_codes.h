/*
 * src/kernels/quant_codes.h - the payload casts of the group quantisation
 * rules (src/engines/group_quant.h step 6, and its bf16 multiply), one
 * binary32 value to one code, as static inline functions without calls
 * or data-dependent branches, so that a loop over a chunk of values keeps
 * them in registers and the compiler vectorises it (the formats layer's
 * encoders are calls with per-call mode checks; a loop of calls does not
 * vectorise).
 *
 * Each is bit for bit the formats layer's encoder in the one mode the
 * rules use, for every binary32 input, NaN and inf included:
 *
 *   kvg_i_e4m3fn_code   kvg_f32_to_fp8e4m3fn(v, KVG_OVF_NONSAT)
 *   kvg_i_e5m2_code     kvg_f32_to_fp8e5m2(v, KVG_OVF_NONSAT)
 *   kvg_i_fp4_code      kvg_f32_to_fp4e2m1(v, KVG_FP4_RINT,
 *                                          KVG_FP4_NAN_ZERO)
 *   kvg_i_hif8_sat_code kvg_f32_to_hif8(v, KVG_OVF_SATURATE)
 *   kvg_i_bf16_rne_code kvg_f32_to_bf16(v, KVG_OVF_DEFAULT)
 *
 * The formats layer stays the reference; tests/test_quant_codes.c checks
 * each of these against it on all 2^32 inputs (label exhaustive).
 * Selections are on bit patterns with masks, for the reason widen.h gives.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_QUANT_CODES_H
#define KVGOLD_SRC_KERNELS_QUANT_CODES_H

#include <stdint.h>

#include "src/common/bits.h"
#include "src/kernels/widen.h"

/* An IEEE-style fp8 code without saturation (minifloat.c's rounding):
 * below the smallest normal 2^(1-B), |x| rounds on the subnormal grid
 * 2^(1-B-M) by adding the power of two whose ulp that grid is (one
 * binary32 addition, nearest-even, the right rounding since the sum is
 * exact before it); from there up, rebias and nearest-even on the low
 * 23-M bits in one integer add (a carry into the exponent is the right
 * rounding). A code past max_code (inf included) is `over`; NaN is the
 * format's NaN code with the input's sign, as minifloat.c gives it
 * (keep_payload 0). */
static inline uint8_t kvg_i_fp8_nonsat_code(float v, int m, int bias,
                                            uint32_t max_code,
                                            uint32_t over, uint32_t nan)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu;
    const int shift = 23 - m;
    const uint32_t min_normal = (uint32_t)(128 - bias) << 23;
    const uint32_t magic = (uint32_t)(151 - bias - m) << 23;
    const uint32_t small = a < min_normal ? a : min_normal;
    const uint32_t sub =
        kvg_i_bits(kvg_i_float(small) + kvg_i_float(magic)) - magic;
    const uint32_t big = a < min_normal ? min_normal : a;
    uint32_t o = (big - ((uint32_t)(127 - bias) << 23) +
                  ((1u << (shift - 1)) - 1u) + ((big >> shift) & 1u)) >>
                 shift;

    o = kvg_i_pick(kvg_i_mask_if(a < min_normal), sub, o);
    o = o > max_code ? over : o;
    o = a > 0x7F800000u ? nan : o;
    return (uint8_t)(sign | o);
}

/* e4m3fn: M 3, bias 7, max 0x7E (448); overflow and NaN both 0x7F. */
static inline uint8_t kvg_i_e4m3fn_code(float v)
{
    return kvg_i_fp8_nonsat_code(v, 3, 7, 0x7Eu, 0x7Fu, 0x7Fu);
}

/* e5m2: M 2, bias 15, max 0x7B (57344); overflow inf 0x7C, NaN 0x7E. */
static inline uint8_t kvg_i_e5m2_code(float v)
{
    return kvg_i_fp8_nonsat_code(v, 2, 15, 0x7Bu, 0x7Cu, 0x7Eu);
}

/* fp4 e2m1, nearest-even, saturating, NaN to +0 (fp4_e2m1.c rint_code):
 * below 1 the grid is 0.5 (0.25 ties to 0, 0.75 to 1.0); from 1 up,
 * rebias by 126 and nearest-even on the low 22 bits, saturating at 0x7
 * (inf too). */
static inline uint8_t kvg_i_fp4_code(float v)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t sign = (u >> 28) & 0x8u, a = u & 0x7FFFFFFFu;
    const uint32_t lo = (uint32_t)(a > 0x3E800000u) +
                        (uint32_t)(a >= 0x3F400000u);
    uint32_t hi = (a - 0x3F000000u + 0x1FFFFFu + ((a >> 22) & 1u)) >> 22;

    hi = hi > 0x7u ? 0x7u : hi;
    hi = kvg_i_pick(kvg_i_mask_if(a < 0x3F800000u), lo, hi);
    return (uint8_t)(a > 0x7F800000u ? 0u : sign | hi);
}

/* bf16, nearest-even, inf on overflow (bf16.c): one integer add on the
 * low 16 bits; NaN keeps its sign and top payload bits with the quiet
 * bit set (minifloat.c's keep_payload). */
static inline uint16_t kvg_i_bf16_rne_code(float v)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;

    return (uint16_t)((u & 0x7FFFFFFFu) > 0x7F800000u ? (u >> 16) | 0x40u
                                                       : r);
}

/* (32-bit entries: a vectorised loop gathers them.) The HiFloat8
 * magnitude code of 2^e with a zero mantissa, for e =
 * -22..16 at [e + 22] (hif8.c pack(e, 0)); 16 is past max (any value:
 * the caller saturates it). */
static inline uint32_t kvg_i_hif8_base(int i)
{
    static const uint32_t k_base[39] = {
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,       /* -22..-16 */
        0x7E, 0x7C, 0x7A, 0x78, 0x76, 0x74, 0x72, 0x70, /* -15..-8 */
        0x5C, 0x58, 0x54, 0x50,                         /* -7..-4 */
        0x38, 0x30, 0x18, 0x08, 0x10, 0x20, 0x28,       /* -3..3 */
        0x40, 0x44, 0x48, 0x4C,                         /* 4..7 */
        0x60, 0x62, 0x64, 0x66, 0x68, 0x6A, 0x6C, 0x6E, /* 8..15 */
        0x6E,                                           /* 16 */
    };
    return k_base[i];
}

/* Mantissa width of HiFloat8's binade 2^e, e = -22..15, at [e + 22]
 * (hif8.c width_of). */
static inline uint32_t kvg_i_hif8_width(int i)
{
    static const uint32_t k_width[38] = {
        0, 0, 0, 0, 0, 0, 0,    /* -22..-16: denormals */
        1, 1, 1, 1, 1, 1, 1, 1, /* -15..-8 */
        2, 2, 2, 2,             /* -7..-4 */
        3, 3, 3, 3, 3, 3, 3,    /* -3..3 */
        2, 2, 2, 2,             /* 4..7 */
        1, 1, 1, 1, 1, 1, 1, 1, /* 8..15 */
    };
    return k_width[i];
}

/* HiFloat8, saturating (hif8.c): round half away from zero in the
 * input's binade e to its width w, a carry moving to the next binade's
 * code; past 2^15 (or 2^15 with a mantissa) the max 0x6E; below 2^-23
 * the one zero 0x00, [2^-23, 2^-22) the smallest denormal; NaN 0x80. */
static inline uint8_t kvg_i_hif8_sat_code(float v)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu;
    /* the binade's field, clamped to the tables' -22..15 */
    const uint32_t f = a >> 23;
    const uint32_t fc = f < 105u ? 105u : f > 142u ? 142u : f;
    const uint32_t w = kvg_i_hif8_width((int)fc - 105);
    const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t q = (sig + (1u << (22 - w))) >> (23 - w);
    const uint32_t carry = q >> (w + 1); /* q == 2 << w */
    const uint32_t mant = (q - (1u << w)) & ((1u << w) - 1u);
    const uint32_t fb = fc + carry;
    uint32_t code = kvg_i_hif8_base((int)fb - 105) + mant;

    code = kvg_i_pick(kvg_i_mask_if((fb > 142u) | ((fb == 142u) & (mant != 0)) |
                                    (f > 142u)),
                      0x6Eu, code);
    code = kvg_i_pick(kvg_i_mask_if(f == 104u), 0x01u, code) | sign;
    code = kvg_i_pick(kvg_i_mask_if(f < 104u), 0x00u, code);
    return (uint8_t)kvg_i_pick(kvg_i_mask_if(a > 0x7F800000u), 0x80u, code);
}

#endif /* KVGOLD_SRC_KERNELS_QUANT_CODES_H */
