/*
 * src/common/bits.h - binary32 <-> bit pattern, for the codecs and the row
 * loops. static inline (not the exported kvg_f32_bits) so hot loops keep
 * the conversion in registers and the compiler can vectorise them.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_BITS_H
#define KVGOLD_SRC_BITS_H

#include <float.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t kvg_i_bits(float value)
{
    uint32_t u;
    memcpy(&u, &value, sizeof u);
    return u;
}

static inline float kvg_i_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Whether an attribute given as a double is a finite binary32 value:
 * NaN, the infinities and magnitudes past FLT_MAX are not. */
static inline int kvg_i_finite_f32(double value)
{
    return value >= -(double)FLT_MAX && value <= (double)FLT_MAX;
}

#endif /* KVGOLD_SRC_BITS_H */
