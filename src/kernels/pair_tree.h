/*
 * src/kernels/pair_tree.h - the first pass and the tree of adjacent pairs
 * of the pairwise sum of squares (rmsnorm.c says why the NPU sums this
 * way), as static inline functions, so the fused head kernels
 * (heads128.c) add in exactly the order rmsnorm.c does without a call per
 * row.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_PAIR_TREE_H
#define KVGOLD_SRC_KERNELS_PAIR_TREE_H

#include <stddef.h>

#include <stdint.h>
#include <string.h>

#include "kvgold/dtype.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/widen.h"

#define KVG_I_TREE_LANES 64u

/* One level of the adjacent-pair tree, out[j] = in[2j] + in[2j+1]; in and
 * out are distinct buffers, which lets the compiler vectorise it. */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_pair_level(const float *restrict in, size_t half,
                                    float *restrict out)
{
    size_t j;
    for (j = 0; j < half; j++)
        out[j] = in[2 * j] + in[2 * j + 1];
}

/* The tree over exactly 64 lanes with every level's size a constant: the
 * same additions as kvg_i_pair_tree, unrolled and vectorised by the
 * compiler (this tree ends every row's sum, so its loop overhead counted).
 * p is overwritten. */
KVG_I_IN_EVERY_CLONE
static inline float kvg_i_pair_tree64(float *p)
{
    float t[KVG_I_TREE_LANES / 2];

    kvg_i_pair_level(p, 32, t);
    kvg_i_pair_level(t, 16, p);
    kvg_i_pair_level(p, 8, t);
    kvg_i_pair_level(t, 4, p);
    kvg_i_pair_level(p, 2, t);
    return t[0] + t[1];
}

/* The tree of adjacent pairs over `lanes` (a power of two, at most 64)
 * values of p, level by level; p is overwritten. */
KVG_I_IN_EVERY_CLONE
static inline float kvg_i_pair_tree(float *p, size_t lanes)
{
    float t[KVG_I_TREE_LANES / 2];
    float *src = p, *dst = t, *tmp;

    if (lanes == KVG_I_TREE_LANES)
        return kvg_i_pair_tree64(p);
    while (lanes > 1) {
        lanes /= 2;
        kvg_i_pair_level(src, lanes, dst);
        tmp = src, src = dst, dst = tmp;
    }
    return src[0];
}

/* One fp16 (dtype KVG_FP16) or bf16 (any other) code, widened. */
KVG_I_IN_EVERY_CLONE
static inline float kvg_i_widen16(kvg_dtype dtype, uint16_t h)
{
    return dtype == KVG_FP16 ? kvg_i_fp16_value(h) : kvg_i_bf16_value(h);
}

/* kvg_i_widen_fold16 for one dtype, known where it is inlined: the
 * widening is then one straight loop the compiler vectorises (a dtype
 * tested per element made the loop scalar: 3x slower). */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_widen_fold_as(kvg_dtype dtype,
                                       const unsigned char *restrict src,
                                       size_t lanes, float *restrict x,
                                       float *restrict p)
{
    size_t j;

    for (j = 0; j < lanes; j++) {
        uint16_t lo, hi;
        float a, b;
        memcpy(&lo, src + 2 * j, 2);
        memcpy(&hi, src + 2 * (j + lanes), 2);
        a = kvg_i_widen16(dtype, lo);
        b = kvg_i_widen16(dtype, hi);
        x[j] = a;
        x[j + lanes] = b;
        p[j] = a * a + b * b;
    }
}

/* The first pass of the pairwise sum of squares over a 16-bit row of
 * 2 * lanes values: the row widened into x, and its first fold,
 * p[j] = x[j]^2 + x[j + lanes]^2 (each square rounded, then their sum),
 * in one pass over the row. */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_widen_fold16(kvg_dtype dtype,
                                      const unsigned char *restrict src,
                                      size_t lanes, float *restrict x,
                                      float *restrict p)
{
    if (dtype == KVG_FP16)
        kvg_i_widen_fold_as(KVG_FP16, src, lanes, x, p);
    else
        kvg_i_widen_fold_as(KVG_BF16, src, lanes, x, p);
}

/* Element i of a 16-bit row widened into x[i]; returns its square. */
KVG_I_IN_EVERY_CLONE
static inline float kvg_i_widen_square(kvg_dtype dtype,
                                       const unsigned char *restrict src,
                                       size_t i, float *restrict x)
{
    uint16_t h;
    float v;
    memcpy(&h, src + 2 * i, 2);
    v = kvg_i_widen16(dtype, h);
    x[i] = v;
    return v * v;
}

/* A 512-value 16-bit row (dtype known where it is inlined) widened into
 * x, and its pairwise sum of squares folded down to the 64 lanes of r in
 * one pass: the first three folds (256, 128, 64 lanes) are the same
 * additions in the same order as folding the whole row level by level,
 * lane j of the last one being
 *   ((s[j] + s[j+256]) + (s[j+128] + s[j+384]))
 *   + ((s[j+64] + s[j+320]) + (s[j+192] + s[j+448])),
 * s the squares. The levels in between never reach memory: 512 channels
 * is the c_kv row of the DeepSeek MLA shapes, and the level-by-level
 * folds' stores and loads took a third of its time (measured:
 * docs/performance.md). The eight terms are written out because a loop
 * over them (with their count a constant) was not vectorised. */
KVG_I_IN_EVERY_CLONE
static inline void kvg_i_widen_fold512_as(kvg_dtype dtype,
                                          const unsigned char *restrict src,
                                          float *restrict x,
                                          float *restrict r)
{
    size_t j;

    for (j = 0; j < KVG_I_TREE_LANES; j++) {
        const float s0 = kvg_i_widen_square(dtype, src, j, x);
        const float s1 = kvg_i_widen_square(dtype, src, j + 64, x);
        const float s2 = kvg_i_widen_square(dtype, src, j + 128, x);
        const float s3 = kvg_i_widen_square(dtype, src, j + 192, x);
        const float s4 = kvg_i_widen_square(dtype, src, j + 256, x);
        const float s5 = kvg_i_widen_square(dtype, src, j + 320, x);
        const float s6 = kvg_i_widen_square(dtype, src, j + 384, x);
        const float s7 = kvg_i_widen_square(dtype, src, j + 448, x);
        r[j] = ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7));
    }
}

#endif /* KVGOLD_SRC_KERNELS_PAIR_TREE_H */
