/*
 * src/kernels/rmsnorm.c - RmsNorm of one row, with a selectable order for
 * the sum of squares (spec 1.2, 1.3).
 *
 * Why the pairwise shape: the NPU kernels square a row in vector registers,
 * fold the row in halves lane-wise until one 64-lane repeat is left (D = 128:
 * p[j] = sq[j] + sq[j + 64]) and finish with a whole-repeat reduction, which
 * the AscendC documentation describes as a tree of adjacent pairs.
 * The "a2" and "npu950" orders are the fold structures of the NPU
 * kernels they are named after (kvgold/options.h says whose).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "src/common/bits.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/kernels.h"
#include "src/kernels/pair_tree.h"

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

/* One fold, out[j] = in[j] + in[j + half], into a distinct buffer. */
static void fold_level(const float *restrict in, size_t half,
                       float *restrict out)
{
    size_t j;
    for (j = 0; j < half; j++)
        out[j] = in[j] + in[j + half];
}

/* The folds after the first, then the tree: p holds `lanes` partial sums
 * (a power of two) and has room for as many again after them. Each fold
 * writes past the values it reads instead of over them: folding in place
 * made the compiler version the loop for aliasing and its loads wait on
 * the stores just made (measured: docs/performance.md). */
KVG_I_IN_EVERY_CLONE
static inline float fold_pairwise(float *p, size_t lanes)
{
    while (lanes > KVG_I_TREE_LANES) {
        fold_level(p, lanes / 2, p + lanes);
        p += lanes;
        lanes /= 2;
    }
    return kvg_i_pair_tree(p, lanes);
}

KVG_I_IN_EVERY_CLONE
static inline float sum_pairwise(const float *restrict x, size_t n,
                                 float *restrict p)
{
    size_t lanes = next_pow2(n);
    size_t j;

    if (lanes == n && n > KVG_I_TREE_LANES) {
        /* the squares and the first fold in one pass (same operations:
         * each square rounded, then the sum of the two halves) */
        lanes = n / 2;
        for (j = 0; j < lanes; j++)
            p[j] = x[j] * x[j] + x[j + lanes] * x[j + lanes];
        return fold_pairwise(p, lanes);
    }
    for (j = 0; j < n; j++)
        p[j] = x[j] * x[j];
    for (; j < lanes; j++)
        p[j] = 0.0f;
    if (lanes <= KVG_I_TREE_LANES)
        return kvg_i_pair_tree(p, lanes);
    /* the first fold in place, which leaves fold_pairwise its room */
    lanes /= 2;
    for (j = 0; j < lanes; j++)
        p[j] = p[j] + p[j + lanes];
    return fold_pairwise(p, lanes);
}

/* sum_pairwise's first pass reading the bf16 row itself, which it widens
 * into x on the way (n a power of two above 64): one pass over the row
 * instead of a widening pass and a squaring pass. */
KVG_I_IN_EVERY_CLONE
static inline float
load_sum_pairwise_bf16(const unsigned char *restrict src, size_t n,
                       float *restrict x, float *restrict p)
{
    kvg_i_widen_fold16(KVG_BF16, src, n / 2, x, p);
    return fold_pairwise(p, n / 2);
}

/* The adjacent-pair tree over one 64-lane register; lanes past `count`
 * are +0 (a masked-off lane). Adding +0 to a sum of squares is exact. */
static float tree64(const float *v, size_t count)
{
    float p[KVG_I_TREE_LANES];
    size_t lanes = KVG_I_TREE_LANES, j;

    for (j = 0; j < lanes; j++)
        p[j] = j < count ? v[j] : 0.0f;
    while (lanes > 1) {
        lanes /= 2;
        for (j = 0; j < lanes; j++)
            p[j] = p[2 * j] + p[2 * j + 1];
    }
    return p[0];
}

static size_t chunk_count(size_t n)
{
    return (n + KVG_I_TREE_LANES - 1) / KVG_I_TREE_LANES;
}

/* Atlas A2/A3: lane-wise adds of adjacent 64-lane chunks, then one tree.
 * For n > 64 the padded chunks fill exactly next_pow2(n) scratch floats. */
KVG_I_IN_EVERY_CLONE
static inline float sum_a2(const float *x, size_t n, float *s)
{
    size_t chunks = next_pow2(chunk_count(n)), total, j, r;
    float lanes[KVG_I_TREE_LANES];

    if (chunks == 1) {
        for (j = 0; j < n; j++)
            lanes[j] = x[j] * x[j];
        return tree64(lanes, n);
    }
    total = chunks * KVG_I_TREE_LANES;
    for (j = 0; j < total; j++)
        s[j] = j < n ? x[j] * x[j] : 0.0f;
    while (chunks > 1) {
        chunks /= 2;
        /* chunk r <- chunk 2r + chunk 2r+1; chunk r was already consumed */
        for (r = 0; r < chunks; r++)
            for (j = 0; j < KVG_I_TREE_LANES; j++)
                s[r * KVG_I_TREE_LANES + j] =
                    s[2 * r * KVG_I_TREE_LANES + j] +
                    s[(2 * r + 1) * KVG_I_TREE_LANES + j];
    }
    return tree64(s, KVG_I_TREE_LANES);
}

/* Square of element i, or +0 past the end (a zero-padded lane). */
static float sq_at(const float *x, size_t n, size_t i)
{
    return i < n ? x[i] * x[i] : 0.0f;
}

/* Ascend 950 full load: fold chunk k with chunk k+F (F = the largest
 * power of two below the chunk count), reduce each fold to one partial,
 * then reduce the partials. The partials go to scratch (F < next_pow2(n)). */
KVG_I_IN_EVERY_CLONE
static inline float sum_npu950(const float *x, size_t n, float *w)
{
    const size_t c = chunk_count(n);
    float lanes[KVG_I_TREE_LANES];
    size_t f = 1, k, j;

    if (c == 1) {
        for (j = 0; j < n; j++)
            lanes[j] = x[j] * x[j];
        return tree64(lanes, n);
    }
    while (2 * f < c)
        f *= 2;
    for (k = 0; k < f; k++) {
        for (j = 0; j < KVG_I_TREE_LANES; j++) {
            const size_t a = k * KVG_I_TREE_LANES + j;
            lanes[j] = sq_at(x, n, a) + sq_at(x, n, a + f * KVG_I_TREE_LANES);
        }
        w[k] = tree64(lanes, KVG_I_TREE_LANES);
    }
    while (f > KVG_I_TREE_LANES) {
        f /= 2;
        for (k = 0; k < f; k++)
            w[k] = w[k] + w[k + f];
    }
    return tree64(w, f);
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

KVG_I_ROW_KERNEL
float kvg_i_sum_squares(const float *x, size_t n, kvg_reduce_order order,
                        float *scratch)
{
    switch (order) {
    case KVG_REDUCE_SEQUENTIAL:
        return sum_sequential(x, n);
    case KVG_REDUCE_DOUBLE:
        return sum_double(x, n);
    case KVG_REDUCE_A2:
        return sum_a2(x, n, scratch);
    case KVG_REDUCE_NPU950:
        return sum_npu950(x, n, scratch);
    case KVG_REDUCE_PAIRWISE:
    default:
        return sum_pairwise(x, n, scratch);
    }
}

static float rms_from_sum(float sum, size_t n, float eps)
{
    const float inv_n = 1.0f / (float)n;
    const float mean = sum * inv_n;
    return sqrtf(mean + eps);
}

KVG_I_ROW_KERNEL
float kvg_i_rms_of(const float *x, size_t n, float eps,
                   kvg_reduce_order order, float *scratch)
{
    return rms_from_sum(kvg_i_sum_squares(x, n, order, scratch), n, eps);
}

/* The pairwise sum of squares of a 512-value 16-bit row, widened into
 * x on the way, its first three folds in one pass (pair_tree.h). */
KVG_I_IN_EVERY_CLONE
static inline float load_sum_pairwise512(kvg_dtype dtype,
                                         const unsigned char *restrict src,
                                         float *restrict x,
                                         float *restrict p)
{
    if (dtype == KVG_FP16)
        kvg_i_widen_fold512_as(KVG_FP16, src, x, p);
    else
        kvg_i_widen_fold512_as(KVG_BF16, src, x, p);
    return kvg_i_pair_tree64(p);
}

KVG_I_ROW_KERNEL
float kvg_i_load_rms_of(kvg_dtype dtype, const void *src, size_t n, float eps,
                        kvg_reduce_order order, float *scratch, float *x)
{
    if ((dtype == KVG_BF16 || dtype == KVG_FP16) &&
        order == KVG_REDUCE_PAIRWISE && n == 512)
        return rms_from_sum(load_sum_pairwise512(
                                dtype, (const unsigned char *)src, x, scratch),
                            n, eps);
    if (dtype == KVG_BF16 && order == KVG_REDUCE_PAIRWISE &&
        next_pow2(n) == n && n > KVG_I_TREE_LANES)
        return rms_from_sum(load_sum_pairwise_bf16(
                                (const unsigned char *)src, n, x, scratch),
                            n, eps);
    kvg_i_load_row(dtype, src, n, x);
    return kvg_i_rms_of(x, n, eps, order, scratch);
}

KVG_I_ROW_KERNEL
void kvg_i_rms_apply(const float *x, const float *gamma, size_t n, float rms,
                     float *y)
{
    size_t j;

    for (j = 0; j < n; j++)
        y[j] = (x[j] / rms) * gamma[j];
}

KVG_I_ROW_KERNEL
float kvg_i_rms_norm(const float *x, const float *gamma, size_t n, float eps,
                     kvg_reduce_order order, float *scratch, float *y)
{
    const float rms = kvg_i_rms_of(x, n, eps, order, scratch);

    kvg_i_rms_apply(x, gamma, n, rms, y);
    return rms;
}
