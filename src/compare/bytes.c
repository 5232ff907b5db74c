/*
 * src/compare/bytes.c - bulk byte comparison of element runs. Comparing
 * element by element (one memcmp call per element) was 80% of compare's
 * time on big caches; almost every run is identical, so whole blocks are
 * compared at once and only a block that differs is searched element by
 * element. The answer is the same as the element-wise loop's.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/compare/compare_internal.h"

/* Elements per memcmp call: 4 KiB of int64, 32 KiB of int8... small
 * enough that a differing block is rescanned cheaply. */
#define BLOCK_ELEMS 4096

int64_t kvg_i_cmp_first_diff(const unsigned char *a, const unsigned char *b,
                             size_t esize, int64_t from, int64_t to)
{
    int64_t i = from;

    while (i < to) {
        int64_t n = to - i < BLOCK_ELEMS ? to - i : BLOCK_ELEMS;
        size_t off = (size_t)i * esize;
        int64_t k;

        if (memcmp(a + off, b + off, (size_t)n * esize) == 0) {
            i += n;
            continue;
        }
        for (k = 0; k < n; k++, off += esize)
            if (memcmp(a + off, b + off, esize) != 0)
                return i + k;
    }
    return to;
}
