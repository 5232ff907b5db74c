/*
 * src/kernels/rmsnorm.c - RmsNorm of one row, with a selectable order for
 * the sum of squares (spec 1.2, 1.3).
 *
 * Why the pairwise shape: the NPU kernels square a row in vector registers,
 * fold the row in halves lane-wise until one 64-lane repeat is left (D = 128:
 * p[j] = sq[j] + sq[j + 64]) and finish with a whole-repeat reduction, which
 * the AscendC documentation describes as a tree of adjacent pairs.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>

#include "src/kernels/kernels.h"

#define KVG_I_TREE_LANES 64u

static size_t next_pow2(size_t n)
{
    size_t p = 1;
    while (p < n) {
        if (p > ((size_t)-1) / 2)
            return 0;
        p *= 2;
    }
    return p;
}

size_t kvg_i_sum_squares_scratch(size_t n)
{
    return n == 0 ? 0 : next_pow2(n);
}

static float sum_pairwise(const float *x, size_t n, float *p)
{
    size_t lanes = next_pow2(n);
    size_t j;

    for (j = 0; j < n; j++)
        p[j] = x[j] * x[j];
    for (; j < lanes; j++)
        p[j] = 0.0f;
    while (lanes > KVG_I_TREE_LANES) {
        lanes /= 2;
        for (j = 0; j < lanes; j++)
            p[j] = p[j] + p[j + lanes];
    }
    while (lanes > 1) {
        lanes /= 2;
        for (j = 0; j < lanes; j++)
            p[j] = p[2 * j] + p[2 * j + 1];
    }
    return p[0];
}

static float sum_sequential(const float *x, size_t n)
{
    float acc = 0.0f;
    size_t j;
    for (j = 0; j < n; j++)
        acc = acc + x[j] * x[j];
    return acc;
}

static float sum_double(const float *x, size_t n)
{
    double acc = 0.0;
    size_t j;
    for (j = 0; j < n; j++)
        acc = acc + (double)x[j] * (double)x[j];
    return (float)acc;
}

float kvg_i_sum_squares(const float *x, size_t n, kvg_reduce_order order,
                        float *scratch)
{
    switch (order) {
    case KVG_REDUCE_SEQUENTIAL:
        return sum_sequential(x, n);
    case KVG_REDUCE_DOUBLE:
        return sum_double(x, n);
    case KVG_REDUCE_PAIRWISE:
    default:
        return sum_pairwise(x, n, scratch);
    }
}

float kvg_i_rms_norm(const float *x, const float *gamma, size_t n, float eps,
                     kvg_reduce_order order, float *scratch, float *y)
{
    const float sum = kvg_i_sum_squares(x, n, order, scratch);
    const float inv_n = 1.0f / (float)n;
    const float mean = sum * inv_n;
    const float rms = sqrtf(mean + eps);
    size_t j;

    for (j = 0; j < n; j++)
        y[j] = (x[j] / rms) * gamma[j];
    return rms;
}
