/*
 * src/kernels/dispatch.h - KVG_I_ROW_KERNEL, which has the compiler build a
 * row kernel three times, for the x86-64 baseline (SSE2), AVX2 and AVX-512,
 * and the program pick one per CPU when it loads (GNU ifunc), as zstd does
 * for BMI2.
 *
 * Why: the row kernels are plain scalar C that the compiler vectorises, and
 * the baseline has no 32-bit min/max, no narrowing store and 4 lanes; a
 * decode step of the MLA norm-rope-cache operator with int8 caches ran 2-3x slower in the
 * baseline than the same C built for the machine (docs/performance.md).
 * Why it changes no result: every clone is the same C, compiled with
 * -ffp-contract=off and without fast-math, so each operation is the one
 * IEEE operation written, rounded once, in the order written, whatever the
 * vector width. The test suite runs all three: natively (the best clone the
 * CPU has), under valgrind (which hides AVX-512: the AVX2 clone), and in a
 * KVG_DISPATCH=OFF build (the baseline), all in tools/test.sh.
 *
 * Only with GCC on x86-64 ELF with glibc (ifunc); elsewhere, or with
 * -DKVG_DISPATCH=OFF, one version is built for the target the compiler
 * flags say. Not with clang: clang 14 names the clones' ifunc
 * "name.ifunc" and leaves calls from other translation units to "name"
 * undefined at link time.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_DISPATCH_H
#define KVGOLD_SRC_KERNELS_DISPATCH_H

#include <string.h> /* a libc header, for __GLIBC__ */

#if defined(KVG_DISPATCH) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__)
#define KVG_I_ROW_KERNEL \
    __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
/* On a `static inline` helper of row kernels that the compiler would
 * otherwise keep as one out-of-line baseline function called from every
 * clone. */
#define KVG_I_IN_EVERY_CLONE __attribute__((always_inline))
#else
#define KVG_I_ROW_KERNEL
#define KVG_I_IN_EVERY_CLONE
#endif

#endif /* KVGOLD_SRC_KERNELS_DISPATCH_H */
