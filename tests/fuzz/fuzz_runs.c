/*
 * tests/fuzz/fuzz_runs.c - fuzzed per-head runs (see fuzz_runs.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "fuzz_runs.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BATCH 3
#define MAX_HEADS 3
#define MAX_RUNS (MAX_BATCH * MAX_HEADS)

int64_t fz_runs_count(fz_run_kind kind, int64_t L, int64_t w, int64_t o)
{
    const int active = o != -1 && w != 0;
    if (kind == FZ_RUN_KVHEAD)
        return w;
    if (!active)
        return L;
    return kind == FZ_RUN_OMNI ? L - w : L - w + 1;
}

/* One perturbation of an index value, decided by one input byte. */
static int64_t perturb(fz_in *in, int64_t v, int64_t slots, int64_t other)
{
    uint8_t f = fz_u8(in);
    if (f < 0x80)
        return v;
    switch (f % 8) {
    case 0: return -1;
    case 1: return fz_weird(in);
    case 2: return slots;
    case 3: return v + 1;
    case 4: return v - 1;
    case 5: return INT32_MIN;
    case 6: return INT32_MAX;
    default: return other;
    }
}

void fz_runs_make(fz_pool *pool, fz_in *in, fz_run_kind kind, fz_runs *r)
{
    /* mostly valid head sizes (multiples of 32), some not */
    static const int64_t dims[] = {32, 64, 96, 32, 64, 128, 16, 48};
    int64_t L[MAX_BATCH], w[MAX_RUNS], o[MAX_RUNS], s[MAX_RUNS];
    int64_t batch, heads, dim, bs, bn, tokens = 0, runs, at = 0, i, sh[4];
    uint8_t f = fz_u8(in), presence;
    kvg_dtype dt;
    int with_off = kind != FZ_RUN_KVHEAD;

    memset(r, 0, sizeof *r);
    dt = f % 4 == 3 ? KVG_INT8 : f % 4 == 1 ? KVG_BF16 : KVG_FP16;
    batch = 1 + (f / 4) % MAX_BATCH;
    f = fz_u8(in);
    heads = 1 + f % MAX_HEADS;
    dim = dims[(f / 3) % 8];
    f = fz_u8(in);
    bs = (int64_t)1 << (2 + f % 4); /* 4 .. 32 */
    runs = batch * heads;
    for (i = 0; i < batch; i++) {
        L[i] = 1 + fz_pick(in, 0, 9);
        tokens += L[i];
    }
    tokens += fz_pick(in, 0, 2);
    for (i = 0; i < runs; i++) {
        const int64_t Li = L[i / heads];
        w[i] = fz_pick(in, 0, Li);
        o[i] = with_off ? fz_pick(in, -1, Li - w[i]) : -1;
    }
    /* Pack the runs in head order with small gaps; skip some heads. */
    for (i = 0; i < runs; i++) {
        const uint8_t g = fz_u8(in);
        at += g % 3;
        s[i] = (g & 0x80) ? -1 : at;
        if (s[i] >= 0)
            at += fz_runs_count(kind, L[i / heads], w[i], o[i]);
    }
    bn = at / bs + 1 + fz_pick(in, 0, 1);
    presence = fz_u8(in);

    sh[0] = tokens, sh[1] = heads, sh[2] = dim;
    r->key = fz_tensor(pool, in, "key", FZ_INPUT, dt, 3, sh);
    r->value = fz_tensor(pool, in, "value", FZ_INPUT, dt, 3, sh);
    sh[0] = bn, sh[1] = bs, sh[2] = 1, sh[3] = dim;
    r->key_cache = fz_tensor(pool, in, "key_cache", FZ_CACHE, dt, 4, sh);
    r->value_cache = fz_tensor(pool, in, "value_cache", FZ_CACHE, dt, 4, sh);
    r->slot_mapping = fz_tensor(pool, in, "slot_mapping", FZ_INPUT,
                                KVG_INT32, 1, &runs);
    if (!(presence & 1))
        r->wins = fz_tensor(pool, in, "wins", FZ_INPUT, KVG_INT32, 1, &runs);
    if (!(presence & 2))
        r->seq_len = fz_tensor(pool, in, "seq_len", FZ_INPUT, KVG_INT32, 1,
                               &batch);
    if (with_off ^ ((presence >> 2) & 1))
        r->offset_index = fz_tensor(pool, in, "offset_index", FZ_INPUT,
                                    KVG_INT32, 1, &runs);
    for (i = 0; i < runs; i++) {
        const int64_t slots = bn * bs;
        if (r->slot_mapping)
            fz_index_set(r->slot_mapping, i, perturb(in, s[i], slots, s[0]));
        if (r->wins)
            fz_index_set(r->wins, i, perturb(in, w[i], slots, w[0]));
        if (r->offset_index)
            fz_index_set(r->offset_index, i, perturb(in, o[i], slots, o[0]));
    }
    for (i = 0; i < batch && r->seq_len; i++)
        fz_index_set(r->seq_len, i, perturb(in, L[i], tokens, tokens));
}

static int64_t idx(const fz_buf *b, int64_t i, int64_t dflt)
{
    int64_t v;
    return b != NULL && fz_index_get(b, i, &v) ? v : dflt;
}

/* Row j of the kept tokens of head i: the source token (relative to the
 * batch's first row), or -1 for KVHEAD_ROPE's compensation (mean) token. */
static int64_t kept_source(fz_run_kind kind, int64_t L, int64_t w, int64_t o,
                           int64_t k)
{
    const int active = o != -1 && w != 0;
    if (kind == FZ_RUN_KVHEAD)
        return L - w + k;
    if (!active || k < o)
        return k;
    if (kind == FZ_RUN_OMNI)
        return k + w;
    return k == o ? -1 : k - 1 + w;
}

static void check_side(fz_run_kind kind, const fz_runs *r, const fz_buf *src,
                       const fz_buf *cache)
{
    const int64_t heads = src->t.shape[1], dim = src->t.shape[2];
    const int64_t batch = r->seq_len->t.shape[0];
    const size_t row = (size_t)dim * kvg_dtype_size(src->t.dtype);
    const size_t nrows = cache->size / row;
    unsigned char *mask = (unsigned char *)calloc(nrows ? nrows : 1, 1);
    int64_t b, h, cum = 0, k;
    size_t j;

    if (mask == NULL)
        abort();
    for (b = 0; b < batch; b++) {
        const int64_t L = idx(r->seq_len, b, 0);
        for (h = 0; h < heads; h++) {
            const int64_t i = b * heads + h;
            const int64_t s = idx(r->slot_mapping, i, -1);
            const int64_t w = idx(r->wins, i, 0);
            const int64_t o = idx(r->offset_index, i, -1);
            const int64_t n = s < 0 ? 0 : fz_runs_count(kind, L, w, o);
            for (k = 0; k < n; k++) {
                const int64_t tok = kept_source(kind, L, w, o, k);
                FZ_CHECK((size_t)(s + k) < nrows, "run inside the cache");
                FZ_CHECK(!mask[s + k], "two runs share a slot");
                mask[s + k] = 1;
                if (tok < 0)
                    continue; /* the mean token: vectors check its value */
                FZ_CHECK(memcmp(cache->mem + (size_t)(s + k) * row,
                                src->mem + (size_t)((cum + tok) * heads + h) *
                                               row, row) == 0,
                         "copied row differs from its source row");
            }
        }
        cum += L;
    }
    for (j = 0; j < nrows; j++)
        FZ_CHECK(mask[j] || memcmp(cache->mem + j * row, cache->snap + j * row,
                                   row) == 0,
                 "cache slot outside every run changed");
    free(mask);
}

void fz_runs_check_success(fz_run_kind kind, const fz_runs *r)
{
    check_side(kind, r, r->key, r->key_cache);
    check_side(kind, r, r->value, r->value_cache);
}
