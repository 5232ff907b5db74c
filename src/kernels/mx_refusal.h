/*
 * src/kernels/mx_refusal.h - the values MX quantisation refuses (E8M0
 * scale per block, payload x * 2^(127 - scale) through the device's vector
 * Mul): what every operator that runs that quantisation refuses alike,
 * with one wording (docs/dynamic_mx_quant.md, "Refused", says why).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_MX_REFUSAL_H
#define KVGOLD_SRC_KERNELS_MX_REFUSAL_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "kvgold/dtype.h"

/* 1 when v is a non-zero binary32 subnormal. */
static inline int kvg_i_f32_subnormal(float v)
{
    return v != 0.0f && fabsf(v) < FLT_MIN;
}

/*
 * Why MX quant refuses element x (exactly widened to binary32 from
 * x_dtype) of a block whose multiplier 2^(127 - scale) is `mult` (NaN for
 * a 0xFF block, whose products are never subnormal), or NULL:
 *   - x subnormal, for a bf16 / fp32 x (fp16 is widened first, so never
 *     binary32-subnormal): how the device's Mul treats subnormal inputs
 *     is not documented;
 *   - x negative and x * mult subnormal: the Mul may flush it to a zero
 *     whose sign (the payload code) is not documented.
 * The text follows "element N " in the caller's message.
 */
static inline const char *kvg_i_mx_refusal(kvg_dtype x_dtype, float x,
                                           float mult)
{
    if (x_dtype != KVG_FP16 && kvg_i_f32_subnormal(x))
        return "is subnormal: how the device's Mul treats subnormal inputs "
               "is not documented (not reproducible)";
    if (mult == mult && x < 0.0f && kvg_i_f32_subnormal(x * mult))
        return "is negative and its scaled value x * 2^(127 - scale) is "
               "subnormal: the device's Mul may flush it to a zero whose "
               "sign (the code 0x8 / 0x80 or 0x0) is not documented";
    return NULL;
}

#endif /* KVGOLD_SRC_KERNELS_MX_REFUSAL_H */
