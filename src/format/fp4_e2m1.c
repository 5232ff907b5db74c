/*
 * src/format/fp4_e2m1.c - OCP MX FP4 E2M1 (1-2-1, bias 1), encode, decode
 * and the two-codes-per-byte packing.
 *
 *    code  0x0  0x1  0x2  0x3  0x4  0x5  0x6  0x7   (0x8 | c: negated)
 *    value  0   0.5  1    1.5  2    3    4    6
 *
 * No inf and no NaN, so every encoder saturates to +-6. The three rounding
 * modes are those of the MX quant op's round_mode (rint, floor, round); the
 * sign of zero and the NaN code follow the Ascend cast (docs/formats.md).
 *
 * Encoding works on the binary32 bit pattern in integers, as
 * src/format/minifloat.c does: E2M1's quantum at |x| is 2^q with
 * q = max(floor(log2|x|), 0) - 1, so |x| / 2^q is a right shift of the
 * 24-bit significand; the mode decides the carry from the dropped bits,
 * and (max(e, 0) << 1) + count is the code (a carry flows into the
 * exponent by plain addition, 0x7 + 1 means overflow).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/format.h"
#include "src/common/bits.h"

#define FP4_MAX_CODE 0x7u
#define FP4_SIGN 0x8u

float kvg_fp4e2m1_to_f32(uint8_t code)
{
    /* binary32 patterns of 0, 0.5, 1, 1.5, 2, 3, 4, 6 */
    static const uint32_t k_mag[8] = {
        0x00000000u, 0x3F000000u, 0x3F800000u, 0x3FC00000u,
        0x40000000u, 0x40400000u, 0x40800000u, 0x40C00000u,
    };
    const uint32_t sign = (uint32_t)((code >> 3) & 1u) << 31;
    return kvg_i_float(sign | k_mag[code & 7u]);
}

/* Whether the dropped part (rem of a 2^shift quantum) carries into count. */
static int carries(kvg_fp4_round mode, int negative, uint32_t count,
                   uint32_t rem, uint32_t half)
{
    switch (mode) {
    case KVG_FP4_RINT:
        return rem > half || (rem == half && (count & 1u) != 0);
    case KVG_FP4_ROUND:
        return rem >= half;
    case KVG_FP4_FLOOR:
        /* toward -inf: a negative magnitude grows, a positive one is cut */
        return negative && rem != 0;
    }
    return 0;
}

/* Magnitude code of the finite |x| (bits a, sign bit clear), saturated. */
static uint32_t magnitude_code(uint32_t a, int negative, kvg_fp4_round mode)
{
    const uint32_t exp_field = a >> 23;
    uint32_t sig, count, rem, half, code;
    int e, fexp, shift;

    if (a == 0)
        return 0;
    if (exp_field >= 127u + 3u)
        return FP4_MAX_CODE; /* |x| >= 8: beyond 6 in every mode */
    if (exp_field == 0) {
        e = -127;
        fexp = 1;
        sig = a; /* binary32 subnormal */
    } else {
        e = (int)exp_field - 127;
        fexp = (int)exp_field;
        sig = (a & 0x7FFFFFu) | 0x800000u;
    }
    /* quantum 2^q, q = max(e, 0) - 1; |x| = sig * 2^(fexp - 150) */
    shift = ((e > 0 ? e : 0) - 1) - (fexp - 150); /* >= 22 */
    if (shift > 24) {
        /* |x| < 2^(q-1): count 0 and the dropped part is below half */
        count = 0;
        rem = 1;
        half = 2;
    } else {
        count = sig >> shift;
        rem = sig & ((1u << shift) - 1u);
        half = 1u << (shift - 1);
    }
    if (carries(mode, negative, count, rem, half))
        count++;
    code = ((uint32_t)(e > 0 ? e : 0) << 1) + count;
    return code > FP4_MAX_CODE ? FP4_MAX_CODE : code;
}

/* magnitude_code's RINT without the shifts' branches, the quant
 * engines' hot path: below 1 the grid is 0.5 (0.25 ties to 0, 0.75 to
 * 1.0, both even); from 1 up, rebias by 126 and round to nearest even on
 * the low 22 bits in one integer add, saturating at 0x7. */
static uint32_t rint_code(uint32_t a)
{
    uint32_t o;

    if (a < 0x3F800000u)
        return (uint32_t)(a > 0x3E800000u) + (uint32_t)(a >= 0x3F400000u);
    o = (a - 0x3F000000u + 0x1FFFFFu + ((a >> 22) & 1u)) >> 22;
    return o > FP4_MAX_CODE ? FP4_MAX_CODE : o;
}

uint8_t kvg_f32_to_fp4e2m1(float value, kvg_fp4_round mode, kvg_fp4_nan nan)
{
    const uint32_t u = kvg_i_bits(value);
    const uint32_t a = u & 0x7FFFFFFFu;
    const int negative = (u >> 31) != 0;

    if (mode != KVG_FP4_RINT && mode != KVG_FP4_FLOOR && mode != KVG_FP4_ROUND)
        return 0xFFu;
    if (nan != KVG_FP4_NAN_ZERO && nan != KVG_FP4_NAN_ML_DTYPES)
        return 0xFFu;
    if (a > 0x7F800000u) {
        /* ml_dtypes takes the quiet NaN code 0x8 and applies the input's
         * sign by negation, so -NaN lands on 0x0 */
        if (nan == KVG_FP4_NAN_ML_DTYPES && !negative)
            return FP4_SIGN;
        return 0x0u;
    }
    if (a == 0x7F800000u)
        return (uint8_t)((negative ? FP4_SIGN : 0u) | FP4_MAX_CODE);
    if (mode == KVG_FP4_RINT)
        return (uint8_t)((negative ? FP4_SIGN : 0u) | rint_code(a));
    return (uint8_t)((negative ? FP4_SIGN : 0u) |
                     magnitude_code(a, negative, mode));
}

uint8_t kvg_fp4_pack(uint8_t code_even, uint8_t code_odd)
{
    return (uint8_t)((code_even & 0x0Fu) | (code_odd & 0x0Fu) << 4);
}

uint8_t kvg_fp4_unpack(uint8_t byte, unsigned odd)
{
    return (uint8_t)((odd & 1u) ? byte >> 4 : byte & 0x0Fu);
}
