/*
 * src/kernels/copy.c - moving encoded rows into caches: the NZ writer, and
 * kvg_i_copy_bytes for the ND rows (why: above its definition).
 *
 * An NZ cache [blocks, N*D/C0, BlockSize, C0] stores one token row as
 * N*D/C0 runs of C0 elements, BlockSize*C0 elements apart. C0 is 32 bytes
 * of the cache's dtype, so every run is 32 bytes; copying them with a
 * constant size lets the compiler inline each copy instead of calling
 * memcpy per run (the runs are the whole inner loop of an NZ write).
 *
 * Writing many rows (kvg_i_copy_runs_tiled), never a row at a time: the
 * runs of one row are BlockSize*32 bytes apart, a multiple of 4 KiB for
 * the usual block sizes, so copying a row at a time sends every store to
 * the same cache set and makes each load of the next source run wait on a
 * store whose address matches in the low 12 bits (4K aliasing). Rows to
 * consecutive slots (a prefill) go run by run, so that the cache is
 * written front to back; scattered rows (a decode step) go a few runs of
 * every row of a tile at a time, runs of different rows landing in
 * different sets. Measured on the NZ paged-copy benchmark shapes
 * (docs/performance.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/kernels.h"

#define KVG_I_NZ_RUN 32u

/* Runs of a scattered row copied per visit of the row: 4 runs are 128
 * source bytes (two whole cache lines) and 4 destination streams. One run
 * per visit wasted half of every source line until the next visit; a
 * whole row per visit sends all its runs, 4 KiB apart, into one cache
 * set. Measured when the NZ paged-copy prefill still took this walk: 3.1x
 * memcpy -> 1.4x (1, 2, 4, 8 and 16 runs per visit gave 3.1, 2.0, 1.4,
 * 1.5 and 4.4x). */
#define KVG_I_RUNS_PER_VISIT 4u

/* Scattered rows copied together. A 64-byte cache line holds the runs of
 * two neighbouring slots, which two tokens of a decode step write: the
 * more rows a tile holds, the likelier both halves of a line are written
 * in the same visit, while the line is still near. Measured on the
 * NZ paged-copy decode (256 tokens): 64 and 128 rows 49.9 and 49.3
 * us, 256 rows 46.7; globally sorting the step's rows by slot (every
 * line written whole) was slower, 73 us, its source rows then read in
 * random order. */
#define KVG_I_SCATTERED_TILE 256u

static void copy_group(unsigned char *d, size_t stride, const unsigned char *s,
                       size_t run, size_t count)
{
    size_t k;

    if (run == KVG_I_NZ_RUN) {
        for (k = 0; k < count; k++, d += stride, s += KVG_I_NZ_RUN)
            memcpy(d, s, KVG_I_NZ_RUN);
        return;
    }
    for (k = 0; k < count; k++, d += stride, s += run)
        memcpy(d, s, run);
}

/* Rows scattered over the cache (a decode step's random slots): a few runs
 * of every row per visit, at most KVG_I_SCATTERED_TILE rows at a time. */
static void copy_scattered(unsigned char *const *dst, size_t stride,
                           const unsigned char *const *src, size_t run,
                           size_t runs, size_t rows)
{
    size_t k, i;

    for (k = 0; k < runs; k += KVG_I_RUNS_PER_VISIT) {
        const size_t count = runs - k < KVG_I_RUNS_PER_VISIT
                                 ? runs - k
                                 : KVG_I_RUNS_PER_VISIT;
        const size_t to = k * stride, from = k * run;
        for (i = 0; i < rows; i++)
            copy_group(dst[i] + to, stride, src[i] + from, run, count);
    }
}

/* Rows to consecutive slots of one block (a prefill): row i goes to
 * d + i*run, so run k of all of them is one stretch of rows*run bytes and
 * run k + 1 of the same rows starts `stride` later. Run by run, the cache
 * is written front to back as a memcpy writes; each 64-byte source line
 * is read half at run k and half at run k + 1, and the rows' lines stay
 * in L1 in between (128 rows: 8 KiB). */
static void copy_stretch(unsigned char *d, size_t stride,
                         const unsigned char *const *src, size_t run,
                         size_t runs, size_t rows)
{
    size_t k, i;

    for (k = 0; k < runs; k++, d += stride) {
        const size_t from = k * run;
        if (run == KVG_I_NZ_RUN) {
            for (i = 0; i < rows; i++)
                memcpy(d + i * KVG_I_NZ_RUN, src[i] + from, KVG_I_NZ_RUN);
            continue;
        }
        for (i = 0; i < rows; i++)
            memcpy(d + i * run, src[i] + from, run);
    }
}

/* How many rows from i on go to consecutive slots: dst[j] = dst[j-1] + run. */
static size_t stretch_rows(unsigned char *const *dst, size_t run, size_t i,
                           size_t rows)
{
    size_t j = i + 1;
    while (j < rows && dst[j] == dst[j - 1] + run)
        j++;
    return j - i;
}

/* Stretches of at least this many rows are copied run by run (8 rows of
 * 32-byte runs: four whole 64-byte lines a run); shorter ones join the
 * scattered rows. */
#define KVG_I_MIN_STRETCH 8u

/* Scattered rows, KVG_I_SCATTERED_TILE at a time. */
static void copy_all_scattered(unsigned char *const *dst, size_t stride,
                               const unsigned char *const *src, size_t run,
                               size_t runs, size_t rows)
{
    size_t i, n;

    for (i = 0; i < rows; i += n) {
        n = rows - i < KVG_I_SCATTERED_TILE ? rows - i : KVG_I_SCATTERED_TILE;
        copy_scattered(dst + i, stride, src + i, run, runs, n);
    }
}

/* Whether some KVG_I_MIN_STRETCH rows go to consecutive slots. */
static int has_stretch(unsigned char *const *dst, size_t run, size_t rows)
{
    size_t i, len;

    for (i = 0; i < rows; i += len)
        if ((len = stretch_rows(dst, run, i, rows)) >= KVG_I_MIN_STRETCH)
            return 1;
    return 0;
}

void kvg_i_copy_runs_tiled(unsigned char *const *dst, size_t stride,
                           const unsigned char *const *src, size_t run,
                           size_t runs, size_t rows)
{
    unsigned char *rest_dst[KVG_I_SCATTERED_TILE];
    const unsigned char *rest_src[KVG_I_SCATTERED_TILE];
    size_t i = 0, n = 0, len, j;

    if (!has_stretch(dst, run, rows)) { /* a decode step: no gathering */
        copy_all_scattered(dst, stride, src, run, runs, rows);
        return;
    }
    while (i < rows) {
        len = stretch_rows(dst, run, i, rows);
        if (len >= KVG_I_MIN_STRETCH) {
            copy_stretch(dst[i], stride, src + i, run, runs, len);
            i += len;
            continue;
        }
        for (j = 0; j < len; j++, n++) {
            if (n == KVG_I_SCATTERED_TILE) {
                copy_scattered(rest_dst, stride, rest_src, run, runs, n);
                n = 0;
            }
            rest_dst[n] = dst[i + j];
            rest_src[n] = src[i + j];
        }
        i += len;
    }
    copy_scattered(rest_dst, stride, rest_src, run, runs, n);
}

void kvg_i_copy_runs(void *dst, size_t stride, const void *src, size_t run,
                     size_t runs)
{
    copy_group((unsigned char *)dst, stride, (const unsigned char *)src, run,
               runs);
}

/* Why not memcpy: glibc 2.36 copies 2 KiB (under its 2112-byte rep movsb
 * threshold) with a 64-byte vector loop, and on this project's benchmark
 * machine 512 rows of 2 KiB took 25.5 us that way against 24.1 us as
 * 32-byte copies of constant size (plain loads and stores the compiler
 * inlines); the ND paged-copy decode went from 30.6 to 26.6 us. Longer
 * stretches (a prefill's blocks) showed no difference either way, and the
 * 256-byte rows of the head runs were no faster, so they keep memcpy
 * (docs/performance.md). */
void kvg_i_copy_bytes(void *dst, const void *src, size_t bytes)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t o;

    if (bytes % KVG_I_NZ_RUN != 0) {
        memcpy(d, s, bytes);
        return;
    }
    for (o = 0; o < bytes; o += KVG_I_NZ_RUN)
        memcpy(d + o, s + o, KVG_I_NZ_RUN);
}
