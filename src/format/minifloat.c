/*
 * src/format/minifloat.c - integer round-to-nearest-even narrowing from
 * binary32 to a smaller IEEE-style format, and the exact widening back.
 *
 * binary32 bit layout:
 *
 *     31  30      23 22                    0
 *    +---+----------+-----------------------+
 *    | s | exponent |       mantissa        |
 *    +---+----------+-----------------------+
 *
 * A finite |x| is sig * 2^(fexp - 150), where sig is the 24-bit significand
 * (hidden bit included for normals) and fexp the exponent field (1 for
 * subnormals). The target's quantum at |x| is 2^q with
 * q = max(floor(log2|x|), emin) - M, emin = 1 - bias. Rounding |x| to a
 * multiple of 2^q is a right shift of sig with round-half-even on the
 * discarded bits. The code is then (max(e, emin) + bias - 1) << M plus the
 * rounded count: for normals the count carries the hidden bit, which adds
 * the missing 1 to the exponent field, and a mantissa carry flows into the
 * exponent by plain addition. Subnormals fall out of the same formula with
 * an exponent field of 0.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

#include "src/common/bits.h"

static kvg_overflow resolve(const kvg_i_minifloat *fmt, kvg_overflow mode)
{
    return mode == KVG_OVF_DEFAULT ? fmt->default_overflow : mode;
}

/* The code for a magnitude that rounded beyond max_code (or was inf). */
static uint32_t overflow_code(const kvg_i_minifloat *fmt, kvg_overflow mode)
{
    if (resolve(fmt, mode) == KVG_OVF_SATURATE)
        return fmt->max_code;
    return fmt->inf_code != 0 ? fmt->inf_code : fmt->nan_code;
}

static uint32_t nan_code(const kvg_i_minifloat *fmt, uint32_t mant23)
{
    uint32_t code = fmt->nan_code;
    if (fmt->keep_payload)
        code |= mant23 >> (23 - fmt->mant_bits);
    return code;
}

uint32_t kvg_i_minifloat_encode(const kvg_i_minifloat *fmt, float value,
                                kvg_overflow overflow)
{
    const uint32_t u = kvg_i_bits(value);
    const uint32_t sign = (u >> 31) << (fmt->exp_bits + fmt->mant_bits);
    const uint32_t exp_field = (u >> 23) & 0xFFu;
    const uint32_t mant23 = u & 0x7FFFFFu;
    const int m = fmt->mant_bits;
    const int emin = 1 - fmt->bias;
    uint32_t sig, count, rem, half, code;
    int e, fexp, q, shift;

    if (exp_field == 0xFFu) {
        if (mant23 != 0)
            return sign | nan_code(fmt, mant23);
        return sign | overflow_code(fmt, overflow);
    }
    if (exp_field == 0) {
        if (mant23 == 0)
            return sign; /* +-0 */
        /* fp32 subnormals lie below every target's emin (bf16's is -126). */
        e = emin - 1;
        fexp = 1;
        sig = mant23;
    } else {
        e = (int)exp_field - 127;
        fexp = (int)exp_field;
        sig = mant23 | 0x800000u;
    }
    q = (e > emin ? e : emin) - m;
    shift = q - (fexp - 150); /* >= 1: every target has M < 23 */
    if (shift > 25) {
        count = 0; /* |x| < 2^(q-1): below half a quantum */
    } else {
        count = sig >> shift;
        rem = sig & ((1u << shift) - 1u);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (count & 1u) != 0))
            count++;
    }
    if (count == 0)
        return sign;
    code = ((uint32_t)((e > emin ? e : emin) + fmt->bias - 1) << m) + count;
    if (code > fmt->max_code)
        code = overflow_code(fmt, overflow);
    return sign | code;
}

float kvg_i_minifloat_decode(const kvg_i_minifloat *fmt, uint32_t code)
{
    const int m = fmt->mant_bits;
    const int width = fmt->exp_bits + m;
    const uint32_t mag = code & ((1u << width) - 1u);
    const uint32_t sign = ((code >> width) & 1u) << 31;
    const uint32_t exp_field = mag >> m;
    const uint32_t mant = mag & ((1u << m) - 1u);
    const uint32_t exp_max = (1u << fmt->exp_bits) - 1u;

    if (fmt->inf_code != 0 && exp_field == exp_max) {
        if (mant == 0)
            return kvg_i_float(sign | 0x7F800000u);
        /* IEEE NaN: widen the payload exactly (quiet bit included). */
        return kvg_i_float(sign | 0x7F800000u | (mant << (23 - m)));
    }
    if (fmt->inf_code == 0 && mag == fmt->nan_code)
        return kvg_i_float(sign | 0x7FC00000u); /* e4m3fn: S.1111.111 */
    if (exp_field == 0) {
        /* subnormal: mant * 2^(emin - M), exact in binary32 for all formats
         * here (smallest is bf16's 2^-133 >= 2^-149). */
        uint32_t bits;
        int top, e;
        if (mant == 0)
            return kvg_i_float(sign);
        top = 31;
        while (((mant >> top) & 1u) == 0)
            top--;
        e = (1 - fmt->bias) - m + top; /* value = 1.xxx * 2^e */
        if (e >= -126) {
            bits = (uint32_t)(e + 127) << 23 |
                   ((mant << (23 - top)) & 0x7FFFFFu);
        } else {
            /* a binary32 subnormal (bf16 only): mant * 2^(-133) */
            bits = mant << (149 - (fmt->bias - 1) - m);
        }
        return kvg_i_float(sign | bits);
    }
    return kvg_i_float(sign |
                         ((uint32_t)((int)exp_field - fmt->bias + 127) << 23) |
                         (mant << (23 - m)));
}
