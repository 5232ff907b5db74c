/*
 * src/kernels/rope_half.h - the half (rotate-half, NeoX) RoPE of one row
 * (spec 1.4, rope.c's table) as a static inline function, so that
 * kvg_i_rope_half and the fused head kernels (heads128.c, with the width
 * a constant) share one copy of it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_ROPE_HALF_H
#define KVGOLD_SRC_KERNELS_ROPE_HALF_H

#include <stddef.h>

#include "src/kernels/dispatch.h"

/* out[j] = y[j]*c[j] + (-y[j+H])*s[j] for j < H, y[j]*c[j] + y[j-H]*s[j]
 * above, over n = 2H values; out must not alias y. */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_rope_half_row(const float *restrict y,
                                       const float *restrict c,
                                       const float *restrict s, size_t n,
                                       float *restrict out)
{
    const size_t h = n / 2;
    size_t j;

    for (j = 0; j < h; j++) {
        const float a = y[j] * c[j];
        const float b = (-y[j + h]) * s[j];
        out[j] = a + b;
    }
    for (j = h; j < n; j++) {
        const float a = y[j] * c[j];
        const float b = y[j - h] * s[j];
        out[j] = a + b;
    }
}

#endif /* KVGOLD_SRC_KERNELS_ROPE_HALF_H */
