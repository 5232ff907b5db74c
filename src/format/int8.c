/*
 * src/format/int8.c - binary32 to int8 as the Ascend quant paths narrow:
 * round half to even, saturate to [-128, 127], NaN to 0.
 *
 * The kernels go fp32 -> int32/int16 (CAST_RINT) -> fp16 -> int8 (saturating);
 * every intermediate is exact for |v| <= 2048 and saturates beyond, so the
 * chain equals this single rounding (spec reference number_formats.md 5.2).
 * Done by hand rather than with rintf so the result does not depend on the
 * caller's floating-point rounding mode.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/format.h"

int8_t kvg_f32_to_int8(float value)
{
    float whole, frac;
    int n;

    if (value != value)
        return 0;
    if (value >= 127.0f)
        return 127;
    if (value <= -128.0f)
        return -128;
    n = (int)value; /* truncates toward zero; |value| < 128 so it fits */
    whole = (float)n;
    frac = value - whole; /* exact: both in the same binade or smaller */
    if (frac > 0.5f || (frac == 0.5f && (n & 1) != 0))
        n += 1;
    else if (frac < -0.5f || (frac == -0.5f && (n & 1) != 0))
        n -= 1;
    return (int8_t)n;
}
