/*
 * src/format/hif8.c - Huawei HiFloat8 (arXiv 2409.16626), encode and decode.
 *
 *      7   6 .. 3 (prefix-coded)       ..  0
 *    +---+------+----------------+----------+
 *    | S | dot  | exponent (D b) | mantissa |
 *    +---+------+----------------+----------+
 *
 *    dot   D  mantissa w  exponent E            codes (a = code & 0x7F)
 *    11    4  1           +-8..+-15             0x60..0x7F
 *    10    3  2           +-4..+-7              0x40..0x5F
 *    01    2  3           +-2..+-3              0x20..0x3F
 *    001   1  3           +-1                   0x10..0x1F
 *    0001  0  3           0                     0x08..0x0F
 *    0000  -  0 (denormal) 2^(k-23), k = 1..7   0x01..0x07
 *
 * The D exponent bits are sign-magnitude with an implicit leading 1 in the
 * magnitude: the top stored bit is the exponent's sign (1 = negative), the
 * rest are the low bits of |E|, whose top bit is always 1. The value is
 * (-1)^S * 2^E * (1 + M / 2^w). Specials: 0x00 zero (no -0), 0x80 NaN (the
 * only one), 0x6F / 0xEF +-inf (the would-be 1.5 * 2^15). Max 0x6E = 32768.
 *
 * Encoding rounds half away from zero (CAST_ROUND, "TA") in the input's own
 * binade, to that binade's width w; the grid is uniform up to and including
 * the next power of two, so this is "nearest value, ties to the larger
 * magnitude" (docs/formats.md, spec reference number_formats.md section 3.3).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/format.h"
#include "src/common/bits.h"

float kvg_hif8_to_f32(uint8_t code)
{
    const uint32_t sign = (uint32_t)(code >> 7) << 31;
    const unsigned a = code & 0x7Fu;
    int e, negative;
    unsigned mant, w, t;

    if (code == 0x80u)
        return kvg_i_float(0x7FC00000u);
    if (a == 0)
        return 0.0f;
    if (a == 0x6Fu)
        return kvg_i_float(sign | 0x7F800000u);
    if (a < 0x08u) /* denormal: 2^(a - 23) */
        return kvg_i_float(sign | (uint32_t)((int)a - 23 + 127) << 23);
    if (a < 0x10u) {
        e = 0, negative = 0, mant = a & 7u, w = 3;
    } else if (a < 0x20u) {
        e = 1, negative = (a & 0x08u) != 0, mant = a & 7u, w = 3;
    } else if (a < 0x40u) {
        t = (a >> 3) & 3u;
        e = 2 | (int)(t & 1u), negative = (t & 2u) != 0, mant = a & 7u, w = 3;
    } else if (a < 0x60u) {
        t = (a >> 2) & 7u;
        e = 4 | (int)(t & 3u), negative = (t & 4u) != 0, mant = a & 3u, w = 2;
    } else {
        t = (a >> 1) & 15u;
        e = 8 | (int)(t & 7u), negative = (t & 8u) != 0, mant = a & 1u, w = 1;
    }
    if (negative)
        e = -e;
    return kvg_i_float(sign | (uint32_t)(e + 127) << 23 | mant << (23 - w));
}

/* Mantissa width of the binade 2^e (e in [-22, 15]). */
static unsigned width_of(int e)
{
    int m = e < 0 ? -e : e;
    if (m <= 3)
        return 3;
    if (m <= 7)
        return 2;
    if (m <= 15)
        return 1;
    return 0; /* denormal binades -22..-16 */
}

/* Pack a finite, in-range (e, mantissa) into a magnitude code. */
static unsigned pack(int e, unsigned mant)
{
    unsigned neg = e < 0 ? 0x10u : 0u;
    unsigned m = (unsigned)(e < 0 ? -e : e);

    if (e <= -16)
        return (unsigned)(e + 23);
    if (m == 0)
        return 0x08u | mant;
    if (m == 1)
        return 0x10u | (neg >> 1) | mant; /* sign bit sits at bit 3 here */
    if (m <= 3)
        return 0x20u | neg | (m & 1u) << 3 | mant;
    if (m <= 7)
        return 0x40u | neg | (m & 3u) << 2 | mant;
    return 0x60u | neg | (m & 7u) << 1 | mant;
}

uint8_t kvg_f32_to_hif8(float value, kvg_overflow overflow)
{
    uint32_t u, sig;
    unsigned sign, w, q, mant;
    int e;
    const unsigned saturated = overflow == KVG_OVF_NONSAT ? 0x6Fu : 0x6Eu;

    u = kvg_i_bits(value);
    sign = (u >> 31) ? 0x80u : 0u;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x80u; /* NaN */
    if ((u & 0x7FFFFFFFu) == 0x7F800000u)
        return (uint8_t)(sign | saturated);
    e = (int)((u >> 23) & 0xFFu) - 127; /* fp32 subnormals: e = -127 */
    if (e < -23)
        return 0x00u; /* |x| < 2^-23: +0 whatever the sign */
    if (e == -23)
        return (uint8_t)(sign | 0x01u); /* [2^-23, 2^-22): the tie goes up */
    if (e > 15)
        return (uint8_t)(sign | saturated);
    w = width_of(e);
    sig = (u & 0x7FFFFFu) | 0x800000u;
    q = (unsigned)((sig + (1u << (22 - w))) >> (23 - w)); /* ties away */
    if (q == 2u << w) {
        e += 1;
        mant = 0;
    } else {
        mant = q - (1u << w);
    }
    if (e > 15 || (e == 15 && mant != 0))
        return (uint8_t)(sign | saturated);
    return (uint8_t)(sign | pack(e, mant));
}
