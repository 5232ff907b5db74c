/*
 * src/kernels/prefetch.h - KVG_I_PREFETCH(p): a hint that the bytes at p
 * will be read soon. It changes no result (a prefetch neither reads into
 * the program nor faults), only when the memory arrives.
 *
 * Why: a kernel that computes on rows streamed from memory (a prefill's
 * qkv, megabytes read once) alternates compute with loads, and the
 * hardware prefetcher did not run far enough ahead of it: on this
 * project's benchmark machine, the heads kernel (heads128.c) took 75-82 ns
 * a head on streamed rows against 31-37 on rows in cache, and 40-46 with
 * a hint 4 KiB ahead (docs/performance.md).
 *
 * With GCC and clang, __builtin_prefetch; elsewhere nothing.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_PREFETCH_H
#define KVGOLD_SRC_KERNELS_PREFETCH_H

#if defined(__GNUC__)
#define KVG_I_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define KVG_I_PREFETCH(p) ((void)(p))
#endif

/* How far ahead of the bytes it reads a streaming kernel asks for more:
 * 1, 2, 4 and 8 KiB measured 51, 46, 42 and 44 ns a head (heads128.c). */
#define KVG_I_PREFETCH_AHEAD 4096u

/* Bytes of one cache line, the unit a prefetch brings in. */
#define KVG_I_LINE 64u

#endif /* KVGOLD_SRC_KERNELS_PREFETCH_H */
