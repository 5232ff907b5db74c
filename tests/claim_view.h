/*
 * tests/claim_view.h - views that *claim* huge buffers over a few real
 * bytes, for the size-overflow tests of products across tensors: the
 * operator must refuse them from the shapes alone, before it reads an
 * element (reading one would crash the test). docs/reliability.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_CLAIM_VIEW_H
#define KVGOLD_TESTS_CLAIM_VIEW_H

#include "kvg_test.h"

#include <stdint.h>
#include <string.h>

/* A view claiming `rank` dims over `buf`, nbytes = the claimed size (the
 * tests using it need a 64-bit size_t and skip otherwise). */
static inline kvg_tensor claim(void *buf, kvg_dtype dt, int rank,
                               const int64_t *sh)
{
    uint64_t n = kvg_dtype_size(dt);
    int i;
    for (i = 0; i < rank; i++)
        n *= (uint64_t)sh[i];
    return kvg_tensor_make(buf, (size_t)n, dt, rank, sh);
}

#endif /* KVGOLD_TESTS_CLAIM_VIEW_H */
