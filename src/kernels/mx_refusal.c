/*
 * src/kernels/mx_refusal.c - the values MX quantisation refuses
 * (mx_refusal.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/kernels/mx_refusal.h"

#include <stddef.h>

const char *kvg_i_mx_refusal(kvg_dtype x_dtype, float x, float mult)
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
