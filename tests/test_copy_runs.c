/*
 * tests/test_copy_runs.c - kvg_i_copy_runs_tiled, the NZ cache writer the
 * copy operators share (src/kernels/copy.c): rows to consecutive slots go
 * run by run, scattered rows a few runs per visit, and the two mix in one
 * call.
 *
 * First principles: slot s of an NZ cache [blocks, R, BS, run bytes] puts
 * run k of its row at ((s / BS) * R + k) * BS * run + (s % BS) * run bytes.
 * The expected cache is the poisoned cache with each row's runs placed
 * there one memcpy at a time; the whole cache is compared, so every
 * written byte and every untouched (poisoned) byte is checked. The slot
 * lists cover one whole block, a decode step's random slots, stretches of
 * exactly the run-by-run threshold and one short of it, a stretch across a
 * block boundary, more scattered rows than one scattered tile holds, and
 * runs other than 32 bytes. And kvg_i_copy_bytes, the ND rows' copy.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "src/kernels/kernels.h"

#define BLOCKS 16
#define BS 32
#define MAX_ROWS (BLOCKS * BS)

typedef struct geometry {
    size_t runs; /* R: runs of a row */
    size_t run;  /* bytes of a run */
} geometry;

static size_t cache_bytes(const geometry *g)
{
    return (size_t)BLOCKS * g->runs * BS * g->run;
}

static size_t place(const geometry *g, int64_t s, size_t k)
{
    return (((size_t)s / BS) * g->runs + k) * BS * g->run +
           ((size_t)s % BS) * g->run;
}

/* Copy `rows` rows to `slots` through the kernel and through placement by
 * hand; the two caches must be equal byte for byte. */
static void check_slots(const geometry *g, const int64_t *slots, size_t rows,
                        uint64_t seed, const char *what)
{
    const size_t row_bytes = g->runs * g->run, size = cache_bytes(g);
    unsigned char *src = (unsigned char *)kvgt_alloc_poisoned(
        rows * row_bytes + 1, seed);
    unsigned char *got = (unsigned char *)kvgt_alloc_poisoned(size, seed + 1);
    unsigned char *want = (unsigned char *)malloc(size);
    unsigned char **dst = (unsigned char **)malloc(rows * sizeof *dst + 1);
    const unsigned char **from =
        (const unsigned char **)malloc(rows * sizeof *from + 1);
    size_t i, k;

    assert_non_null(want);
    assert_non_null(dst);
    assert_non_null(from);
    memcpy(want, got, size);
    for (i = 0; i < rows; i++) {
        dst[i] = got + place(g, slots[i], 0);
        from[i] = src + i * row_bytes;
        for (k = 0; k < g->runs; k++)
            memcpy(want + place(g, slots[i], k), from[i] + k * g->run, g->run);
    }
    kvg_i_copy_runs_tiled(dst, BS * g->run, from, g->run, g->runs, rows);
    kvgt_assert_bytes_equal(got, want, size, what);
    free(src);
    free(got);
    free(want);
    free(dst);
    free((void *)from);
}

/* n distinct slots drawn at random, not consecutive with the previous. */
static size_t scattered(int64_t *slots, size_t at, size_t n, char *used,
                        kvgt_rng *rng)
{
    size_t i;
    for (i = 0; i < n; i++) {
        int64_t s;
        do
            s = kvgt_rng_range(rng, 0, MAX_ROWS - 1);
        while (used[s] || (at > 0 && s == slots[at - 1] + 1));
        used[s] = 1;
        slots[at++] = s;
    }
    return at;
}

static size_t stretch(int64_t *slots, size_t at, int64_t first, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        slots[at++] = first + (int64_t)i;
    return at;
}

static void test_whole_block(void **state)
{
    const geometry g = {16, 32};
    int64_t slots[BS];
    size_t i;
    (void)state;
    for (i = 0; i < BS; i++)
        slots[i] = 2 * BS + (int64_t)i;
    check_slots(&g, slots, BS, 11, "one whole block, in order");
}

static void test_decode(void **state)
{
    const geometry g = {16, 32};
    int64_t slots[MAX_ROWS];
    char used[MAX_ROWS] = {0};
    kvgt_rng rng;
    size_t n;
    (void)state;
    kvgt_rng_seed(&rng, 21);
    n = scattered(slots, 0, 300, used, &rng);
    check_slots(&g, slots, n, 22, "300 random slots, more than a tile");
}

/* Stretches of 8 (run by run) and 7 (scattered), one across the end of
 * block 1, and 270 scattered rows, more than one scattered tile (256). */
static const struct {
    int64_t first;
    size_t n;
} k_stretches[] = {{3, 8}, {2 * BS - 10, 20}, {4 * BS + 1, 7}, {5 * BS + 4, 9}};

static size_t mixed(int64_t *slots, kvgt_rng *rng)
{
    char used[MAX_ROWS] = {0};
    size_t n = 0, i, j;
    for (i = 0; i < sizeof k_stretches / sizeof k_stretches[0]; i++)
        for (j = 0; j < k_stretches[i].n; j++) /* kept from the random rows */
            used[k_stretches[i].first + (int64_t)j] = 1;
    n = stretch(slots, n, k_stretches[0].first, k_stretches[0].n);
    n = scattered(slots, n, 30, used, rng);
    n = stretch(slots, n, k_stretches[1].first, k_stretches[1].n);
    n = stretch(slots, n, k_stretches[2].first, k_stretches[2].n);
    n = scattered(slots, n, 240, used, rng);
    return stretch(slots, n, k_stretches[3].first, k_stretches[3].n);
}

static void test_mixed(void **state)
{
    static const geometry geos[] = {{16, 32}, {8, 16}, {4, 64}, {1, 32}};
    int64_t slots[MAX_ROWS];
    kvgt_rng rng;
    size_t i, n;
    (void)state;
    for (i = 0; i < sizeof geos / sizeof geos[0]; i++) {
        kvgt_rng_seed(&rng, 31 + i);
        n = mixed(slots, &rng);
        check_slots(&geos[i], slots, n, 40 + i,
                    "stretches among scattered rows");
    }
}

/* The mixed list in chunks of every size from 1 to all of it: a stretch
 * cut by a call's end, and calls of one row. */
static void test_chunks(void **state)
{
    const geometry g = {16, 32};
    int64_t slots[MAX_ROWS];
    kvgt_rng rng;
    size_t n, c, at;
    (void)state;
    kvgt_rng_seed(&rng, 51);
    n = mixed(slots, &rng);
    for (c = 1; c <= n; c += c < 16 ? 1 : 29)
        for (at = 0; at < n; at += c)
            check_slots(&g, slots + at, n - at < c ? n - at : c, 60 + c,
                        "a chunk of the mixed list");
}

/* kvg_i_copy_bytes, the ND row copy: the bytes at every offset of a
 * poisoned buffer, for sizes that are and are not multiples of its
 * 32-byte pieces; expected byte by byte, every byte around them kept. */
static void test_copy_bytes(void **state)
{
    static const size_t sizes[] = {0, 1, 31, 32, 33, 64, 96, 2048, 2064,
                                   4128};
    const size_t pad = 40;
    size_t i, off, b;
    (void)state;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (off = 0; off < 4; off++) {
            const size_t n = sizes[i], size = n + 2 * pad;
            unsigned char *src = (unsigned char *)kvgt_alloc_poisoned(
                n + 1, 70 + i);
            unsigned char *got =
                (unsigned char *)kvgt_alloc_poisoned(size, 90 + i);
            unsigned char *want = (unsigned char *)malloc(size);
            assert_non_null(want);
            for (b = 0; b < size; b++)
                want[b] = b >= pad + off && b < pad + off + n
                              ? src[b - pad - off]
                              : got[b];
            kvg_i_copy_bytes(got + pad + off, src, n);
            kvgt_assert_bytes_equal(got, want, size, "kvg_i_copy_bytes");
            free(src);
            free(got);
            free(want);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_block),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_copy_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
