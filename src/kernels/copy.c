/*
 * src/kernels/copy.c - moving encoded rows into NZ caches.
 *
 * An NZ cache [blocks, N*D/C0, BlockSize, C0] stores one token row as
 * N*D/C0 runs of C0 elements, BlockSize*C0 elements apart. C0 is 32 bytes
 * of the cache's dtype, so every run is 32 bytes; copying them with a
 * constant size lets the compiler inline each copy instead of calling
 * memcpy per run (the runs are the whole inner loop of an NZ write).
 *
 * Writing many rows, the copy goes run by run across a tile of rows
 * (kvg_i_copy_runs_tiled): the runs of one row are BlockSize*32 bytes
 * apart, a multiple of 4 KiB for the usual block sizes, so copying a row
 * at a time sends every store to the same cache set and makes each load
 * of the next source run wait on a store whose address matches in the low
 * 12 bits (4K aliasing); run k of different rows lands in different sets.
 * Measured on ReshapeAndCache NZ: about half the time (docs/performance.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/kernels.h"

#define KVG_I_NZ_RUN 32u

void kvg_i_copy_runs(void *dst, size_t stride, const void *src, size_t run,
                     size_t runs)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t k;

    if (run == KVG_I_NZ_RUN) {
        for (k = 0; k < runs; k++, d += stride, s += KVG_I_NZ_RUN)
            memcpy(d, s, KVG_I_NZ_RUN);
        return;
    }
    for (k = 0; k < runs; k++, d += stride, s += run)
        memcpy(d, s, run);
}

void kvg_i_copy_runs_tiled(unsigned char *const *dst, size_t stride,
                           const unsigned char *const *src, size_t run,
                           size_t runs, size_t rows)
{
    size_t k, i;

    for (k = 0; k < runs; k++) {
        const size_t to = k * stride, from = k * run;
        if (run == KVG_I_NZ_RUN) {
            for (i = 0; i < rows; i++)
                memcpy(dst[i] + to, src[i] + from, KVG_I_NZ_RUN);
        } else {
            for (i = 0; i < rows; i++)
                memcpy(dst[i] + to, src[i] + from, run);
        }
    }
}
