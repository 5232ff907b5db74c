/*
 * tests/support/kvg_test.h - what every kvgold test file needs besides
 * cmocka: a seeded generator, poison fills, and assertions that say where
 * two byte images first differ.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_SUPPORT_H
#define KVGOLD_TESTS_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kvgold/tensor.h"

/* splitmix64: tiny, seedable, the same on every platform. */
typedef struct kvgt_rng {
    uint64_t state;
} kvgt_rng;

void kvgt_rng_seed(kvgt_rng *rng, uint64_t seed);
uint64_t kvgt_rng_next(kvgt_rng *rng);
/* Uniform in [lo, hi] (inclusive). */
int64_t kvgt_rng_range(kvgt_rng *rng, int64_t lo, int64_t hi);
/* Uniform float in [-1, 1). */
float kvgt_rng_unit(kvgt_rng *rng);

/* Fill bytes with a seeded pattern in which no byte is 0 ("poison"). */
void kvgt_poison(void *buf, size_t size, uint64_t seed);

/* Allocate and poison `size` bytes (fails the test on OOM). */
void *kvgt_alloc_poisoned(size_t size, uint64_t seed);

/*
 * Fail the test, naming `what` and the first differing byte offset (and the
 * two byte values), if the images differ.
 */
void kvgt_assert_bytes_equal(const void *got, const void *want, size_t size,
                             const char *what);

/* Make a tensor view over a fresh poisoned buffer; free with kvgt_free. */
kvg_tensor kvgt_tensor_new(kvg_dtype dtype, int rank, const int64_t *shape,
                           uint64_t seed);
void kvgt_tensor_free(kvg_tensor *t);

#endif /* KVGOLD_TESTS_SUPPORT_H */
