/*
 * tests/ops/scatter_pa_kv_cache/fixture.c - ScatterPaKvCache in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls in Norm,
 * NHSD, PA_NZ (4-D or 5-D caches, K and V pairs of different dtypes) and
 * key-only Norm, with its attribute and slot-value mutations.
 *
 * The untied subtlety: in a key-only call nothing but the slot values ties
 * key_cache's num_blocks and block_size, so a change of either can leave
 * the call valid; `untied` keeps test_atomicity from drawing it.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/layout.h"
#include "kvgold/scatter_pa_kv_cache.h"

typedef kvg_scatter_pa_kv_cache_args op_args;

/* opf_add fills inputs through kvg_encode_f32: the dtypes it can encode. */
static const kvg_dtype k_dtypes[] = {KVG_FP16,     KVG_BF16,
                                     KVG_FP32,     KVG_INT8,
                                     KVG_HIF8,     KVG_FP8_E5M2,
                                     KVG_FP8_E4M3FN};
#define N_DTYPES ((int64_t)(sizeof k_dtypes / sizeof k_dtypes[0]))

/* 0 Norm, 1 NHSD, 2 PA_NZ 4-D, 3 PA_NZ 5-D, 4 key-only Norm */
static void cache_shape(int mode, int64_t nb, int64_t bs, int64_t n,
                        int64_t d, kvg_dtype dt, int *rank, int64_t *sh)
{
    const int64_t c0 = kvg_c0_of(dt);
    *rank = 4;
    sh[0] = nb;
    switch (mode) {
    case 1: sh[1] = n, sh[2] = bs, sh[3] = d; break;
    case 2: sh[1] = n * d / c0, sh[2] = bs, sh[3] = c0; break;
    case 3: sh[1] = n, sh[2] = d / c0, sh[3] = bs, sh[4] = c0, *rank = 5;
        break;
    default: sh[1] = bs, sh[2] = n, sh[3] = d; break;
    }
}

/* The smallest slot no token writes (slots >= tokens: one exists). */
static int64_t unused_slot(const opf_tensor *slot, int64_t tok, int64_t slots)
{
    int64_t s, t;
    for (s = 0; s < slots; s++) {
        for (t = 0; t < tok && opf_index_get(slot, t) != s; t++)
            ;
        if (t == tok)
            return s;
    }
    return -1;
}

static void build(opf *f, kvgt_rng *r)
{
    op_args *a = (op_args *)f->args;
    const int mode = (int)opf_pick(r, 0, 4);
    const kvg_dtype kd = k_dtypes[opf_pick(r, 0, N_DTYPES - 1)];
    const kvg_dtype vd = mode >= 2 && mode <= 3
                             ? k_dtypes[opf_pick(r, 0, N_DTYPES - 1)]
                             : kd;
    const int64_t tok = opf_pick(r, 1, 8), heads = opf_pick(r, 1, 3);
    /* 32-byte heads of both dtypes (PA_NZ and NHSD need them) */
    const int64_t dk = 32 * opf_pick(r, 1, 2), dv = 32;
    /* block_size never equals C0 (<= 32 here), so a 5-D cache that loses
     * its last dim never reads as a valid 4-D one */
    const int64_t bs = opf_pick(r, 0, 1) ? opf_pick(r, 1, 7) : 33;
    const int64_t bn = (tok + bs - 1) / bs + opf_pick(r, 0, 1);
    const kvg_dtype sd = opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64;
    int64_t sh[5], t;
    int rank;
    opf_tensor *slot;

    kvg_scatter_pa_kv_cache_args_init(a);
    if (mode == 1)
        a->scatter_mode = KVG_SCATTER_NHSD;
    if (mode == 2 || mode == 3)
        a->cache_mode = KVG_CACHE_PA_NZ;
    sh[0] = tok, sh[1] = heads, sh[2] = dk;
    opf_add(f, r, "key", OPF_INPUT, 1, kd, 3, sh, &a->key);
    cache_shape(mode, bn, bs, heads, dk, kd, &rank, sh);
    opf_add(f, r, "key_cache", OPF_CACHE, 1, kd, rank, sh, &a->key_cache);
    if (mode != 4) {
        sh[0] = tok, sh[1] = heads, sh[2] = dv;
        opf_add(f, r, "value", OPF_INPUT, 1, vd, 3, sh, &a->value);
        cache_shape(mode, bn, bs, heads, dv, vd, &rank, sh);
        opf_add(f, r, "value_cache", OPF_CACHE, 1, vd, rank, sh,
                &a->value_cache);
    }
    sh[0] = tok;
    slot = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, sd, 1, sh,
                   &a->slot_mapping);
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    opf_distinct_slots(r, slot, tok, f->g.slots);
    if (mode == 1) /* NHSD refuses a negative slot: give each an unused one */
        for (t = 0; t < tok; t++)
            if (opf_index_get(slot, t) < 0)
                opf_index_set(slot, t, unused_slot(slot, tok, f->g.slots));
}

/* Only in key-only calls, on key_cache dims 0 and 1 (see the top). */
static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    const op_args *a = (const op_args *)f->args;
    (void)v;
    return a->value_cache == NULL && strcmp(x->name, "key_cache") == 0 &&
           (k == 0 || k == 1);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 3);
    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: /* a shared cache mode this op has not, or none at all */
        a->cache_mode = opf_pick(r, 0, 1) ? KVG_CACHE_PA_BNSD
                                          : (kvg_cache_mode)-1;
        break;
    case 1: /* no such scatter mode */
        a->scatter_mode = (kvg_scatter_mode)(opf_pick(r, 0, 1) ? 6 : -1);
        break;
    case 2: /* a compressed mode: its index tensors are missing (a
             * NULL pointer), or NZ takes None only */
        if (a->cache_mode == KVG_CACHE_NORM)
            *want = KVG_ERR_PARAM_NULLPTR;
        a->scatter_mode = (kvg_scatter_mode)opf_pick(r, 3, 5);
        if (a->scatter_mode == KVG_SCATTER_ALIBI &&
            a->compress_seq_offset != NULL)
            *want = KVG_ERR_PARAM_INVALID;
        break;
    default: /* a tensor no per-token mode takes */
        a->compress_lens = a->slot_mapping;
        break;
    }
    /* (Norm <-> PA_NZ is not drawn: a cache [NB, N, N, 32] of a 1-byte
     * dtype is both, the default trap of docs/scatter_pa_kv_cache.md) */
    (void)snprintf(what, cap, "cache_mode %d scatter_mode %d (change %d)",
                   (int)a->cache_mode, (int)a->scatter_mode, (int)c);
}

/* A duplicate slot, or a slot past the cache. */
static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    opf_tensor *t = opf_find(f, "slot_mapping");
    int64_t pos[64], n = opf_live(t, f->g.tokens, pos);
    *want = KVG_ERR_PARAM_INVALID;
    if (opf_pick(r, 0, 1) && n >= 2) {
        const int64_t a = pos[opf_pick(r, 0, n - 1)];
        int64_t b;
        do
            b = pos[opf_pick(r, 0, n - 1)];
        while (b == a);
        opf_index_set(t, b, opf_index_get(t, a));
        (void)snprintf(what, cap, "slot_mapping[%lld] = slot_mapping[%lld]",
                       (long long)b, (long long)a);
    } else {
        const int64_t at = opf_pick(r, 0, f->g.tokens - 1);
        opf_index_set(t, at, f->g.slots + opf_pick(r, 0, 1000));
        (void)snprintf(what, cap, "slot_mapping[%lld] out of range",
                       (long long)at);
    }
    return 1;
}

/* ---- the compressed modes (Alibi, Rope, Omni) --------------------------- */

/* Tokens a head writes: Alibi w; Omni L - w (all L when inactive); Rope
 * L - w + 1 (all L when inactive). */
static int64_t head_count(kvg_scatter_mode m, int64_t L, int64_t w, int64_t o)
{
    if (m == KVG_SCATTER_ALIBI)
        return w;
    if (o == -1 || w == 0)
        return L;
    return L - w + (m == KVG_SCATTER_ROPE);
}

static void build_heads(opf *f, kvgt_rng *r)
{
    op_args *a = (op_args *)f->args;
    const kvg_scatter_mode m = (kvg_scatter_mode)opf_pick(r, 3, 5);
    const kvg_dtype dt = opf_pick(r, 0, 1) ? KVG_FP16 : KVG_BF16;
    const kvg_dtype idx = opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64;
    const int64_t batch = opf_pick(r, 1, 2), heads = opf_pick(r, 1, 2);
    const int64_t dim = 16 * opf_pick(r, 1, 2), bs = opf_pick(r, 2, 5);
    int64_t L[2], tokens = 0, b, i, at = 0, sh[4];
    opf_tensor *slot, *lens, *seq, *off = NULL;
    opf_geo *g = &f->g;

    kvg_scatter_pa_kv_cache_args_init(a);
    a->scatter_mode = m;
    for (b = 0; b < batch; b++) {
        L[b] = opf_pick(r, 1, 6);
        tokens += L[b];
    }
    g->batch = batch, g->heads = heads, g->runs = batch * heads;
    for (i = 0; i < g->runs; i++) {
        const int64_t Li = L[i / heads];
        g->w[i] = opf_pick(r, 0, Li);
        g->o[i] = m == KVG_SCATTER_ALIBI ? 0
                  : opf_pick(r, 0, 3) == 0 ? -1
                                           : opf_pick(r, 0, Li - g->w[i]);
        g->count[i] = head_count(m, Li, g->w[i], g->o[i]);
        g->s[i] = opf_pick(r, 0, 4) == 0 ? -1 : at;
        if (g->s[i] >= 0)
            at += g->count[i] + opf_pick(r, 0, 2);
    }
    for (b = 0; b < batch; b++)
        g->L[b] = L[b];
    g->tokens = tokens;
    g->bs = bs;
    g->slots = (at / bs + 1) * bs;
    sh[0] = tokens, sh[1] = heads, sh[2] = dim;
    opf_add(f, r, "key", OPF_INPUT, 1, dt, 3, sh, &a->key);
    opf_add(f, r, "value", OPF_INPUT, 1, dt, 3, sh, &a->value);
    sh[0] = g->slots / bs, sh[1] = bs, sh[2] = 1, sh[3] = dim;
    opf_add(f, r, "key_cache", OPF_CACHE, 1, dt, 4, sh, &a->key_cache);
    opf_add(f, r, "value_cache", OPF_CACHE, 1, dt, 4, sh, &a->value_cache);
    sh[0] = g->runs;
    slot = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, idx, 1, sh,
                   &a->slot_mapping);
    lens = opf_add(f, r, "compress_lens", OPF_INPUT, 1, idx, 1, sh,
                   &a->compress_lens);
    if (m != KVG_SCATTER_ALIBI)
        off = opf_add(f, r, "compress_seq_offset", OPF_INPUT, 1, idx, 1, sh,
                      &a->compress_seq_offset);
    sh[0] = batch;
    seq = opf_add(f, r, "seq_lens", OPF_INPUT, 1, idx, 1, sh, &a->seq_lens);
    for (i = 0; i < g->runs; i++) {
        opf_index_set(slot, i, g->s[i]);
        opf_index_set(lens, i, g->w[i]);
        if (off != NULL)
            opf_index_set(off, i, g->o[i]);
    }
    for (b = 0; b < batch; b++)
        opf_index_set(seq, b, L[b]);
}

static void mutate_heads_attr(opf *f, kvgt_rng *r, kvg_status *want,
                              char *what, size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 2);
    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0) /* no such mode */
        a->scatter_mode = (kvg_scatter_mode)(opf_pick(r, 0, 1) ? 6 : -1);
    else if (c == 1) /* a per-token mode: the index tensors are foreign */
        a->scatter_mode = (kvg_scatter_mode)opf_pick(r, 0, 2);
    else /* PA_NZ takes scatter_mode None only */
        a->cache_mode = KVG_CACHE_PA_NZ;
    (void)snprintf(what, cap, "cache_mode %d scatter_mode %d (change %d)",
                   (int)a->cache_mode, (int)a->scatter_mode, (int)c);
}

/* seq_lens below 1 or past the rows, a window outside its head, a start
 * slot past the cache, a run past its end, two runs overlapping. */
static int mutate_heads_value(opf *f, kvgt_rng *r, kvg_status *want,
                              char *what, size_t cap)
{
    const opf_geo *g = &f->g;
    const int64_t c = opf_pick(r, 0, 5);
    const int64_t i = opf_pick(r, 0, g->runs - 1);
    const int64_t b = opf_pick(r, 0, g->batch - 1);
    const op_args *a = (const op_args *)f->args;
    int64_t pos[16], n = 0, k;

    *want = KVG_ERR_PARAM_INVALID;
    for (k = 0; k < g->runs; k++)
        if (g->s[k] >= 0 && g->count[k] > 0)
            pos[n++] = k;
    switch (c) {
    case 0:
        opf_index_set(opf_find(f, "seq_lens"), b, opf_pick(r, 0, 1) ? 0 : -3);
        break;
    case 1:
        opf_index_set(opf_find(f, "seq_lens"), b, g->L[b] + g->tokens);
        break;
    case 2: /* compress_lens outside [0, L] where it counts */
        if (a->scatter_mode != KVG_SCATTER_ALIBI && g->o[i] == -1)
            return 0;
        opf_index_set(opf_find(f, "compress_lens"), i,
                      opf_pick(r, 0, 1) ? g->L[i / g->heads] + 1 : -1);
        break;
    case 3:
        opf_index_set(opf_find(f, "slot_mapping"), i, g->slots);
        break;
    case 4:
        if (n == 0)
            return 0;
        opf_index_set(opf_find(f, "slot_mapping"), pos[0],
                      g->slots - g->count[pos[0]] + 1);
        break;
    default:
        if (n < 2)
            return 0;
        opf_index_set(opf_find(f, "slot_mapping"), pos[1], g->s[pos[0]]);
        break;
    }
    (void)snprintf(what, cap, "head index change %d (head %lld, batch %lld)",
                   (int)c, (long long)i, (long long)b);
    return 1;
}

const opf_kind_desc opf_kind_scatter_pa_kv_cache_heads = {
    "scatter_pa_kv_cache Alibi/Rope/Omni", "scatter_pa_kv_cache",
    build_heads, mutate_heads_attr, mutate_heads_value, NULL};

const opf_kind_desc opf_kind_scatter_pa_kv_cache = {
    "scatter_pa_kv_cache", "scatter_pa_kv_cache", build, mutate_attr,
    mutate_value, untied};

/* The kinds of this operator, NULL-terminated (the fixture finds them by
 * this name). */
const opf_kind_desc *const opf_kinds_scatter_pa_kv_cache[] = {
    &opf_kind_scatter_pa_kv_cache, &opf_kind_scatter_pa_kv_cache_heads, NULL};
