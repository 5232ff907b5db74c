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

/* The per-head runs' arguments (key, value, key_cache, value_cache,
 * seq_len, slot_mapping, wins, offset_index) whose batch*N overflows:
 * seq_len [2^33] and N = 2^31 give 2^64 heads, claimed over buf (4 KiB),
 * for every operator whose per-head modes take these eight tensors. */
typedef struct heads_overflow {
    int64_t ks[3], cs[4], bs[1], hs[1];
    kvg_tensor key, value, kc, vc, seq, sm, wins, off;
} heads_overflow;

static inline void heads_overflow_make(heads_overflow *h, unsigned char *buf)
{
    h->ks[0] = 1, h->ks[1] = (int64_t)1 << 31, h->ks[2] = 32;
    h->cs[0] = 2, h->cs[1] = 8, h->cs[2] = 1, h->cs[3] = 32;
    h->bs[0] = (int64_t)1 << 33, h->hs[0] = 4;
    h->key = claim(buf, KVG_FP16, 3, h->ks);
    h->value = claim(buf, KVG_FP16, 3, h->ks);
    h->kc = kvg_tensor_make(buf, 1024, KVG_FP16, 4, h->cs);
    h->vc = kvg_tensor_make(buf + 1024, 1024, KVG_FP16, 4, h->cs);
    h->seq = claim(buf + 2048, KVG_INT32, 1, h->bs);
    h->sm = kvg_tensor_make(buf + 2048, 16, KVG_INT32, 1, h->hs);
    h->wins = h->sm, h->off = h->sm;
}

#endif /* KVGOLD_TESTS_CLAIM_VIEW_H */
