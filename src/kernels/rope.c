/*
 * src/kernels/rope.c - rotary position embedding of one row (spec 1.4).
 *
 * Each output is one add of two separately rounded products; the negation is
 * exact. cos/sin are indexed by output position.
 *
 *   half:        out[j]   = y[j]*cos[j]     + (-y[j+H])*sin[j]      j < H
 *                out[j]   = y[j]*cos[j]     +   y[j-H] *sin[j]      j >= H
 *   interleave:  x1 = x[0::2], x2 = x[1::2] (the output is half-split):
 *                out[j]   = x1[j]*cos[j]    + (-x2[j])*sin[j]       j < H
 *                out[H+j] = x2[j]*cos[H+j]  +   x1[j] *sin[H+j]
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/kernels/dispatch.h"
#include "src/kernels/kernels.h"
#include "src/kernels/rope_half.h"

KVG_I_ROW_KERNEL
void kvg_i_rope_half(const float *y, const float *c, const float *s, size_t n,
                     float *out)
{
    kvg_i_rope_half_row(y, c, s, n, out);
}

KVG_I_ROW_KERNEL
void kvg_i_rope_interleave(const float *restrict x, const float *restrict c,
                           const float *restrict s, size_t n,
                           float *restrict out)
{
    const size_t h = n / 2;
    size_t j;

    for (j = 0; j < h; j++) {
        const float x1 = x[2 * j];
        const float x2 = x[2 * j + 1];
        const float a = x1 * c[j];
        const float b = (-x2) * s[j];
        const float a2 = x2 * c[h + j];
        const float b2 = x1 * s[h + j];
        out[j] = a + b;
        out[h + j] = a2 + b2;
    }
}
