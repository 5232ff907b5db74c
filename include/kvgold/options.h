/*
 * kvgold/options.h - the arithmetic choices an operator call can make.
 *
 * The NPU kernels fix some choices the reference code leaves open (the order
 * of the RmsNorm sum of squares, what an fp16 overflow gives). kvgold
 * exposes them so an engineer can ask "would the other choice have
 * matched?" The zero value of every enum is the default of spec section 1.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_OPTIONS_H
#define KVGOLD_OPTIONS_H

#include "kvgold/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Order of the RmsNorm sum of squares (spec 1.2).
 *   PAIRWISE    square; zero-pad to a power of two; fold halves
 *               (p[j] += p[j + n/2]) while more than 64 lanes remain; then
 *               a tree of adjacent pairs over the last <= 64 lanes. The
 *               NPU kernels' shape; the default.
 *   SEQUENTIAL  acc += x[j] * x[j] for j = 0 .. n-1, in binary32.
 *   DOUBLE      the same in binary64 (exact products), rounded once.
 */
typedef enum kvg_reduce_order {
    KVG_REDUCE_PAIRWISE = 0,
    KVG_REDUCE_SEQUENTIAL = 1,
    KVG_REDUCE_DOUBLE = 2
} kvg_reduce_order;

/* "pairwise" / "sequential" / "double"; NULL for an invalid value. */
KVG_API const char *kvg_reduce_order_name(kvg_reduce_order order);
/* Parse a name; returns 0 and leaves *order when it is not one. */
KVG_API int kvg_reduce_order_from_name(const char *name,
                                       kvg_reduce_order *order);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_OPTIONS_H */
