/*
 * tests/support/kvg_test.c - shared test helpers.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvgt_rng_seed(kvgt_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t kvgt_rng_next(kvgt_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t kvgt_rng_range(kvgt_rng *rng, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1u;
    if (span == 0)
        return (int64_t)kvgt_rng_next(rng);
    return lo + (int64_t)(kvgt_rng_next(rng) % span);
}

float kvgt_rng_unit(kvgt_rng *rng)
{
    return (float)((double)(kvgt_rng_next(rng) >> 40) / 8388608.0 - 1.0);
}

void kvgt_poison(void *buf, size_t size, uint64_t seed)
{
    unsigned char *p = (unsigned char *)buf;
    kvgt_rng rng;
    size_t i;

    kvgt_rng_seed(&rng, seed ^ 0xC0FFEEull);
    for (i = 0; i < size; i++) {
        unsigned char b = (unsigned char)(kvgt_rng_next(&rng) >> 56);
        p[i] = b == 0 ? 0xA5 : b;
    }
}

void *kvgt_alloc_poisoned(size_t size, uint64_t seed)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        fail_msg("out of memory allocating %lu bytes", (unsigned long)size);
    kvgt_poison(p, size, seed);
    return p;
}

void kvgt_assert_bytes_equal(const void *got, const void *want, size_t size,
                             const char *what)
{
    const unsigned char *g = (const unsigned char *)got;
    const unsigned char *w = (const unsigned char *)want;
    size_t i, diffs = 0, first = 0;

    for (i = 0; i < size; i++) {
        if (g[i] != w[i]) {
            if (diffs == 0)
                first = i;
            diffs++;
        }
    }
    if (diffs != 0)
        fail_msg("%s: %lu of %lu bytes differ; first at byte %lu: got 0x%02x, "
                 "want 0x%02x", what, (unsigned long)diffs,
                 (unsigned long)size, (unsigned long)first, g[first],
                 w[first]);
}

kvg_tensor kvgt_tensor_new(kvg_dtype dtype, int rank, const int64_t *shape,
                           uint64_t seed)
{
    size_t n = kvg_dtype_size(dtype);
    int i;
    for (i = 0; i < rank; i++)
        n *= (size_t)shape[i];
    return kvg_tensor_make(kvgt_alloc_poisoned(n, seed), n, dtype, rank,
                           shape);
}

void kvgt_tensor_free(kvg_tensor *t)
{
    free(t->data);
    t->data = NULL;
}
