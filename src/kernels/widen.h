/*
 * src/kernels/widen.h - one fp16 or bf16 code widened to binary32 (exact),
 * as static inline functions, so that every row loop that widens (the
 * plain load in quant.c, the fused head kernels in heads128.c) keeps the
 * conversion in registers and the compiler can vectorise it.
 *
 * The selections are made on integer bit patterns, not with branches on
 * floating-point comparisons: the compiler may not if-convert those (a
 * comparison can raise an FP exception under the default -ftrapping-math),
 * and a loop with control flow is not vectorised. A value computed in
 * floating point is selected with a mask (kvg_i_pick), since a ternary
 * would let the compiler move the operation into a branch.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_WIDEN_H
#define KVGOLD_SRC_KERNELS_WIDEN_H

#include <stdint.h>

#include "src/common/bits.h"

/* kvg_i_mask_if(c) is all ones when c, else 0. */
static inline uint32_t kvg_i_mask_if(uint32_t c)
{
    return 0u - c;
}

/* kvg_i_pick(m, a, b) = m ? a : b, for m all ones or all zeros. */
static inline uint32_t kvg_i_pick(uint32_t m, uint32_t a, uint32_t b)
{
    return (a & m) | (b & ~m);
}

/* bf16 -> binary32: the top half of the pattern. */
static inline float kvg_i_bf16_value(uint16_t h)
{
    return kvg_i_float((uint32_t)h << 16);
}

/* fp16 -> binary32: inf/NaN keep sign and payload (quiet bit as given),
 * normals rebias the exponent, subnormals are code * 2^-24 (exact). */
static inline float kvg_i_fp16_value(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t a = h & 0x7FFFu;
    const uint32_t sub = kvg_i_bits((float)(a & 0x3FFu) * 0x1p-24f);
    const uint32_t normal = (a << 13) + 0x38000000u; /* + (127-15) << 23 */
    const uint32_t special = 0x7F800000u | ((a & 0x3FFu) << 13);
    uint32_t u = kvg_i_pick(kvg_i_mask_if(a >= 0x0400u), normal, sub);
    u = kvg_i_pick(kvg_i_mask_if(a >= 0x7C00u), special, u);
    return kvg_i_float(sign | u);
}

#endif /* KVGOLD_SRC_KERNELS_WIDEN_H */
