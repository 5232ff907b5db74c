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
 *
 * Two orders inferred from the NPU kernels named after them (the operator
 * pages in docs/ say which kernels; their fold structure is read from the
 * kernel sources; the lane order inside one
 * 64-lane reduction is assumed to be the adjacent-pair tree the AscendC
 * ReduceSum documentation describes). R64(v) below is that tree over 64
 * lanes, missing lanes being +0; chunk k is sq[64k .. 64k+63], zero-padded.
 *   A2          Atlas A2/A3 "DS" kernels: pad the chunk count to a power of
 *               two with zero chunks; add *adjacent* chunks lane-wise
 *               (chunk 2r + chunk 2r+1) until one chunk is left; R64 of it.
 *               Dv = 512: lane p = ((c0+c1)+(c2+c3)) + ((c4+c5)+(c6+c7)).
 *   NPU950      Ascend 950 full-load kernel: C = ceil(n/64) chunks;
 *               C = 1: R64(c0). C >= 2: F = the largest power of two below
 *               C (1 for C = 2); w[k] = R64(c_k + c_{k+F}) for k < F (c_{k+F}
 *               absent: R64(c_k)); while more than 64 partials remain, fold
 *               halves (w[k] += w[k + F/2]); then R64 of the partials.
 *               Dv = 512: R64 over { R64(c0+c4), R64(c1+c5), R64(c2+c6),
 *               R64(c3+c7) }.
 */
typedef enum kvg_reduce_order {
    KVG_REDUCE_PAIRWISE = 0,
    KVG_REDUCE_SEQUENTIAL = 1,
    KVG_REDUCE_DOUBLE = 2,
    KVG_REDUCE_A2 = 3,
    KVG_REDUCE_NPU950 = 4
} kvg_reduce_order;

/* "pairwise" / "sequential" / "double" / "a2" / "npu950"; NULL for an
 * invalid value. */
KVG_API const char *kvg_reduce_order_name(kvg_reduce_order order);
/* Parse a name; returns 0 and leaves *order when it is not one. */
KVG_API int kvg_reduce_order_from_name(const char *name,
                                       kvg_reduce_order *order);

/*
 * The chip whose kernel an operator follows: the `profile` option every
 * operator that has one spells the same way ("ascend950", "a2a3"). What a
 * profile changes is the operator's own (its header says: acceptance
 * rules, or the arithmetic itself).
 */
typedef enum kvg_profile {
    KVG_PROFILE_ASCEND950 = 0, /* "ascend950": the 950 (arch35) kernels */
    KVG_PROFILE_A2A3 = 1       /* "a2a3": the Atlas A2/A3 kernels */
} kvg_profile;

/* "ascend950" / "a2a3"; NULL for an invalid value. */
KVG_API const char *kvg_profile_name(kvg_profile profile);
/* Parse a name; returns 0 and leaves *profile when it is not one. */
KVG_API int kvg_profile_from_name(const char *name, kvg_profile *profile);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_OPTIONS_H */
