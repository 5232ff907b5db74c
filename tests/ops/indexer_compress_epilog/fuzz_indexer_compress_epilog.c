/*
 * tests/ops/indexer_compress_epilog/fuzz_indexer_compress_epilog.c - the
 * indexer compress epilogs' validation on fuzzed arguments: a call built
 * from the input (impl cr or va_v2, quant_mode, round_scale, scale,
 * layout, block_stride mostly among the valid ones, sometimes not; x fp16
 * / bf16 of rank 2-3; int32 / int64 slots; the mode's cache dtypes or
 * another; rows exactly what the kernel writes, wider or shorter), every
 * tensor open to a perturbation and x's values to NaN / Inf / subnormals
 * (the value mode), the shared driver's invariants (fuzz_util.h:
 * refusals name a tensor with a position and write nothing), and on
 * success: every byte the kernel does not write keeps its contents - for
 * cr the rows of slots no token names (both tensors), for va_v2 the code
 * and scale parts of unnamed slots and each block's tail (from the
 * kernels' offsets, docs/indexer_compress_epilog.md, not from the
 * operator's layout).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/indexer_compress_epilog.h"

typedef struct ctx {
    const kvg_indexer_compress_epilog_args *a;
    const fz_buf *cache[2]; /* cache, cache_scale: snap = before the call */
} ctx;

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_indexer_compress_epilog_workspace_size(
        (const kvg_indexer_compress_epilog_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_indexer_compress_epilog(
        (const kvg_indexer_compress_epilog_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_indexer_compress_epilog_args *)a)->workspace = ws;
    ((kvg_indexer_compress_epilog_args *)a)->workspace_size = size;
}

/* Is slot s named by a token? (a successful call has int32 slots) */
static int named(const kvg_tensor *slots, int64_t s)
{
    const int64_t n = (int64_t)(slots->nbytes / 4);
    int64_t t;
    int32_t w;

    for (t = 0; t < n; t++) {
        memcpy(&w, (const unsigned char *)slots->data + 4 * t, 4);
        if (w == s)
            return 1;
    }
    return 0;
}

/* `len` bytes at `at` of tensor t unchanged unless `written`. */
static void same(const kvg_tensor *t, const unsigned char *before,
                 int64_t at, int64_t len, int written)
{
    if (written)
        return;
    FZ_CHECK(memcmp((const unsigned char *)t->data + at, before + at,
                    (size_t)len) == 0,
             "a byte the kernel does not write changed");
}

static void on_success(void *p)
{
    const ctx *c = (const ctx *)p;
    const kvg_indexer_compress_epilog_args *a = c->a;
    const int64_t d = a->x->shape[a->x->rank - 1], n = (d + 127) / 128;
    const kvg_tensor *k = a->cache;
    int64_t s, b, pos, bs, blocks, B;

    if (a->impl == KVG_ICE_CR) {
        const int64_t w = (int64_t)kvg_dtype_size(a->cache_scale->dtype);
        for (s = 0; s < k->shape[0]; s++) {
            same(k, c->cache[0]->snap, s * d, d, named(a->slot_mapping, s));
            same(a->cache_scale, c->cache[1]->snap, s * n * w, n * w,
                 named(a->slot_mapping, s));
        }
        return;
    }
    blocks = k->shape[0], bs = k->shape[1], B = bs * k->shape[3];
    for (b = 0; b < blocks; b++) {
        for (pos = 0; pos < bs; pos++) {
            s = b * bs + pos;
            same(k, c->cache[0]->snap, b * B + pos * d, d,
                 named(a->slot_mapping, s));
            same(k, c->cache[0]->snap, b * B + bs * d + pos * 4 * n, 4 * n,
                 named(a->slot_mapping, s));
        }
        same(k, c->cache[0]->snap, b * B + bs * (d + 4 * n),
             B - bs * (d + 4 * n), 0);
    }
}

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static void attributes(fz_in *in, kvg_indexer_compress_epilog_args *a)
{
    const uint8_t c = fz_u8(in), e = fz_u8(in);

    a->impl = (c & 1) ? KVG_ICE_VA_V2 : KVG_ICE_CR;
    if (a->impl == KVG_ICE_CR)
        a->quant_mode = (c >> 1) % 3;
    if ((c & 6) == 6 && (e & 1))
        a->quant_mode = fz_weird(in);
    a->round_scale = (c & 24) == 24 ? (int)fz_weird(in) : (c >> 3) & 1;
    if (a->impl == KVG_ICE_VA_V2 && (e & 2) == 0)
        a->round_scale = 1;
    a->scale = (c & 32) ? 0.5 * (double)fz_pick(in, -4, 8) : 1.0;
    if (a->impl == KVG_ICE_VA_V2 && (e & 4) == 0)
        a->scale = 1.0;
    if ((c & 192) == 192)
        a->scale = (double)fz_weird(in) * 1e37;
    if ((e & 24) == 24)
        a->layout = fz_weird(in);
    if ((e & 96) == 96)
        a->block_stride = fz_weird(in);
    if ((e & 128) && (int)(c & 1) == 0)
        a->impl = (kvg_ice_impl)fz_pick(in, -1, 3);
}

/* The mode's cache and scale dtypes, 1 in 8 another one. */
static void dtypes(fz_in *in, const kvg_indexer_compress_epilog_args *a,
                   kvg_dtype *cache, kvg_dtype *scale)
{
    static const kvg_dtype any[6] = {KVG_UINT8, KVG_FP8_E4M3FN, KVG_FP8_E5M2,
                                     KVG_HIF8, KVG_E8M0, KVG_FP32};
    const uint8_t c = fz_u8(in);

    *cache = a->impl == KVG_ICE_VA_V2 || a->quant_mode == 2
                 ? KVG_UINT8
                 : ((c & 1) ? KVG_FP8_E5M2 : KVG_FP8_E4M3FN);
    *scale = a->quant_mode == 0 ? KVG_E8M0 : KVG_FP32;
    if ((c & 14) == 14)
        *cache = any[fz_pick(in, 0, 5)];
    if ((c & 112) == 112)
        *scale = any[fz_pick(in, 0, 5)];
}

/* Distinct slots (a shuffle of the first 64 of [0, slots)), 1 in 5
 * skipped (-1), 1 in 4 open to a perturbation: past the end, -2, the
 * previous token's slot, or a weird value. */
static void make_slots(fz_pool *p, fz_in *in, fz_buf *ix, int64_t tokens,
                       int64_t slots)
{
    int64_t perm[64], i, j, prev, n = slots < 64 ? slots : 64;
    uint8_t f;

    for (i = 0; i < n; i++)
        perm[i] = i;
    for (i = n - 1; i > 0; i--) {
        const int64_t k = (int64_t)fz_below(&p->rng, (uint64_t)(i + 1));
        const int64_t t = perm[i];
        perm[i] = perm[k], perm[k] = t;
    }
    for (i = 0; i < tokens; i++) {
        j = i < n ? perm[i] : -1;
        if (fz_below(&p->rng, 5) == 0)
            j = -1;
        f = fz_u8(in);
        if (f >= 0xC0) {
            switch (f % 4) {
            case 0: j = slots; break;
            case 1: j = -2; break;
            case 2: j = i > 0 && fz_index_get(ix, i - 1, &prev) ? prev : j;
                break;
            default: j = fz_weird(in);
            }
        }
        fz_index_set(ix, i, j);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"x", "slot_mapping", NULL};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx cx;
    kvg_indexer_compress_epilog_args a;
    int64_t sh[4], d, tokens, n;
    kvg_dtype ct, st;
    int rank, va;
    uint8_t vmode;
    const fz_buf *cb, *sb = NULL;
    fz_buf *ib;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_indexer_compress_epilog_args_init(&a);
    attributes(&in, &a);
    va = a.impl == KVG_ICE_VA_V2;
    d = 16 * fz_pick(&in, 1, 20) + ((fz_u8(&in) & 15) == 15 ? 8 : 0);
    n = (d + 127) / 128;
    tokens = fz_pick(&in, 1, 12);
    rank = va ? (int)fz_pick(&in, 2, 3) : 2 + ((fz_u8(&in) & 31) == 31);
    if (rank == 3)
        sh[0] = 2, sh[1] = tokens, sh[2] = d;
    else
        sh[0] = tokens, sh[1] = d;
    a.x = view(fz_tensor(&pool, &in, "x", FZ_INPUT,
                         fz_u8(&in) & 1 ? KVG_FP16 : KVG_BF16, rank, sh));
    ib = fz_tensor(&pool, &in, "slot_mapping", FZ_INPUT,
                   (fz_u8(&in) & 15) == 15 ? KVG_INT64 : KVG_INT32,
                   rank - 1, sh);
    a.slot_mapping = view(ib);
    dtypes(&in, &a, &ct, &st);
    if (va) {
        sh[0] = fz_pick(&in, 1, 4), sh[1] = fz_pick(&in, 1, 8), sh[2] = 1;
        sh[3] = d + 4 * n + fz_pick(&in, -1, 2) * 4;
        make_slots(&pool, &in, ib, rank == 3 ? 2 * tokens : tokens,
                   sh[0] * sh[1]);
        cb = fz_tensor(&pool, &in, "cache", FZ_CACHE, ct, 4, sh);
        if ((fz_u8(&in) & 15) == 15) {
            sh[1] = n;
            sb = fz_tensor(&pool, &in, "cache_scale", FZ_CACHE, st, 2, sh);
        }
    } else {
        sh[0] = fz_pick(&in, 1, 16);
        sh[1] = d + ((fz_u8(&in) & 15) == 15 ? fz_pick(&in, -1, 1) * 16 : 0);
        make_slots(&pool, &in, ib, rank == 3 ? 2 * tokens : tokens, sh[0]);
        cb = fz_tensor(&pool, &in, "cache", FZ_CACHE, ct, 2, sh);
        sh[1] = n + ((fz_u8(&in) & 15) == 15 ? fz_pick(&in, -1, 1) : 0);
        if ((fz_u8(&in) & 31) != 31)
            sb = fz_tensor(&pool, &in, "cache_scale", FZ_CACHE, st, 2, sh);
    }
    a.cache = view(cb);
    a.cache_scale = view(sb);
    cx.a = &a;
    cx.cache[0] = cb;
    cx.cache[1] = sb;
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &cx, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
