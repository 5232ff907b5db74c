/*
 * src/kernels/pair_tree.h - the tree of adjacent pairs that ends every
 * pairwise sum of squares (rmsnorm.c says why the NPU sums this way), as
 * static inline functions, so the fused head kernels (heads128.c) add in
 * exactly the order rmsnorm.c does without a call per row.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_PAIR_TREE_H
#define KVGOLD_SRC_KERNELS_PAIR_TREE_H

#include <stddef.h>

#include "src/kernels/dispatch.h"

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

#endif /* KVGOLD_SRC_KERNELS_PAIR_TREE_H */
