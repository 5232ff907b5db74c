/*
 * src/kernels/narrow.h - one binary32 value narrowed to fp16 or bf16 (RNE,
 * the codec's result; every NaN as the canonical NaN, quant.c says why),
 * as static inline functions, so that the row loops of quant.c and the
 * fused head kernels of heads128.c share one copy and keep it in
 * registers. Selections on bit patterns, for the reason widen.h gives.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_NARROW_H
#define KVGOLD_SRC_KERNELS_NARROW_H

#include <stdint.h>

#include <stddef.h>
#include <string.h>

#include "kvgold/dtype.h"
#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/widen.h"

/* 1 when the bit pattern is a NaN. */
static inline uint32_t kvg_i_nan_bits(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

/* bf16: RNE on the low 16 bits (a carry into the exponent is the right
 * rounding, up to inf); saturation maps +-inf to +-0x7F7F. */
static inline uint16_t kvg_i_bf16_code(float v, int sat)
{
    const uint32_t u = kvg_i_bits(v);
    /* without saturation the compared value is one no 15-bit field has */
    const uint32_t inf = sat ? 0x7F80u : 0x10000u;
    uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    r = (r & 0x7FFFu) == inf ? (r & 0x8000u) | 0x7F7Fu : r;
    return kvg_i_nan_bits(u) ? (uint16_t)0x7FC0u : (uint16_t)r;
}

/* fp16: below 2^-14 round on the 2^-24 grid by adding 0.5 (ulp 2^-24);
 * otherwise rebias and RNE on the low 13 bits, |x| clamped to 65536 first
 * (the carry reaches the inf code exactly from 65520 up). A code past
 * 0x7BFF overflows: inf, or 0x7BFF when saturating. */
static inline uint16_t kvg_i_fp16_code(float v, int sat)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
    const uint32_t over = sat ? 0x7BFFu : 0x7C00u;
    const uint32_t small = a < 0x38800000u ? a : 0x38800000u;
    const uint32_t sub = kvg_i_bits(kvg_i_float(small) + 0.5f) - 0x3F000000u;
    const uint32_t big = a < 0x47800000u ? a : 0x47800000u;
    uint32_t o = (big - 0x38000000u + 0xFFFu + ((big >> 13) & 1u)) >> 13;

    o = kvg_i_pick(kvg_i_mask_if(a < 0x38800000u), sub, o);
    o = o > 0x7BFFu ? over : o;
    return kvg_i_nan_bits(u) ? (uint16_t)0x7E00u : (uint16_t)(sign | o);
}

/* The codecs resolve KVG_OVF_DEFAULT per format and saturate only for
 * KVG_OVF_SATURATE after that (kvg_i_minifloat_encode): fp16 / bf16
 * default to inf, the fp8 formats to saturation. */
static inline int kvg_i_saturates(kvg_dtype dtype, kvg_overflow overflow)
{
    if (overflow == KVG_OVF_DEFAULT)
        return dtype == KVG_FP8_E4M3FN || dtype == KVG_FP8_E5M2;
    return overflow == KVG_OVF_SATURATE;
}

/* n values narrowed to fp16 (dtype KVG_FP16) or bf16 (any other) at dst,
 * saturating when `sat`. */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_narrow16_row(kvg_dtype dtype, int sat,
                                      const float *restrict src, size_t n,
                                      unsigned char *restrict dst)
{
    size_t j;

    if (dtype == KVG_FP16) {
        for (j = 0; j < n; j++) {
            const uint16_t h = kvg_i_fp16_code(src[j], sat);
            memcpy(dst + 2 * j, &h, 2);
        }
        return;
    }
    for (j = 0; j < n; j++) {
        const uint16_t h = kvg_i_bf16_code(src[j], sat);
        memcpy(dst + 2 * j, &h, 2);
    }
}

#endif /* KVGOLD_SRC_KERNELS_NARROW_H */
