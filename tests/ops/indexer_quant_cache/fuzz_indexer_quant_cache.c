/*
 * tests/ops/indexer_quant_cache/fuzz_indexer_quant_cache.c -
 * IndexerQuantCache's validation on fuzzed arguments: a call built from the
 * input (quant_mode, round_scale, x_scale mostly among the valid ones,
 * sometimes not; x fp16 / bf16 of rank 2-3; int32 / int64 slots; the
 * mode's cache dtypes or another; rows exactly what the kernel writes,
 * wider or shorter), every tensor open to a perturbation and x's values to
 * NaN / Inf / subnormals (the value mode), the shared driver's invariants
 * (fuzz_util.h: refusals name a tensor with a position and write nothing),
 * and on success: the bytes of each cache row past what the kernel writes
 * and every row of a slot no token names keep their contents (checked
 * against the pool's snapshot taken before the call).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/indexer_quant_cache.h"

typedef struct ctx {
    const kvg_indexer_quant_cache_args *a;
    const fz_buf *cache[2]; /* cache, cache_scale: snap = before the call */
} ctx;

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_indexer_quant_cache_workspace_size(
        (const kvg_indexer_quant_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_indexer_quant_cache((const kvg_indexer_quant_cache_args *)a,
                                   diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_indexer_quant_cache_args *)a)->workspace = ws;
    ((kvg_indexer_quant_cache_args *)a)->workspace_size = size;
}

/* Is slot s named by a token? */
static int named(const kvg_tensor *slots, int64_t s)
{
    const int64_t n = (int64_t)(slots->nbytes / kvg_dtype_size(slots->dtype));
    int64_t t, v;

    for (t = 0; t < n; t++) {
        if (slots->dtype == KVG_INT32) {
            int32_t w;
            memcpy(&w, (const unsigned char *)slots->data + 4 * t, 4);
            v = w;
        } else {
            memcpy(&v, (const unsigned char *)slots->data + 8 * t, 8);
        }
        if (v == s)
            return 1;
    }
    return 0;
}

/* Row r of a 4-D cache t (bytes `esize` an element): the bytes past
 * `written` of a named slot, all of it otherwise, equal to before. */
static void check_rows(const kvg_tensor *t, const unsigned char *before,
                       const kvg_tensor *slots, int64_t written)
{
    const int64_t es = (int64_t)kvg_dtype_size(t->dtype);
    const int64_t row = t->shape[3] * es;
    const int64_t rows = t->shape[0] * t->shape[1];
    const unsigned char *now = (const unsigned char *)t->data;
    int64_t r, from;

    for (r = 0; r < rows; r++) {
        from = named(slots, r) ? written * es : 0;
        FZ_CHECK(memcmp(now + r * row + from, before + r * row + from,
                        (size_t)(row - from)) == 0,
                 "a byte the kernel does not write changed");
    }
}

static void on_success(void *p)
{
    const ctx *c = (const ctx *)p;
    const kvg_indexer_quant_cache_args *a = c->a;
    const int64_t d = a->x->shape[a->x->rank - 1];
    const int mx = a->quant_mode == 0 || a->quant_mode == 3;

    check_rows(a->cache, c->cache[0]->snap, a->slot_mapping,
               a->quant_mode == 3 ? d / 2 : d);
    check_rows(a->cache_scale, c->cache[1]->snap, a->slot_mapping,
               mx ? d / 32 : 1);
}

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static void attributes(fz_in *in, kvg_indexer_quant_cache_args *a)
{
    const uint8_t c = fz_u8(in);

    a->quant_mode = (c & 15) == 15 ? fz_weird(in) : (c & 3);
    a->round_scale = (c & 48) == 48 ? (int)fz_weird(in) : (c >> 4) & 1;
    a->x_scale = (c & 64) ? 0.5 * (double)fz_pick(in, -4, 8) : 1.0;
    if ((c & 192) == 192)
        a->x_scale = (double)fz_weird(in) * 1e37;
}

/* The mode's cache and scale dtypes, 1 in 8 another one. */
static void dtypes(fz_in *in, int64_t mode, kvg_dtype *cache,
                   kvg_dtype *scale)
{
    static const kvg_dtype any[6] = {KVG_UINT8, KVG_FP8_E4M3FN, KVG_FP8_E5M2,
                                     KVG_FP4_E2M1, KVG_E8M0, KVG_FP32};
    const uint8_t c = fz_u8(in);

    *cache = mode == 2 ? KVG_UINT8
             : mode == 3 ? KVG_FP4_E2M1
                         : ((c & 1) ? KVG_FP8_E5M2 : KVG_FP8_E4M3FN);
    *scale = mode == 0 || mode == 3 ? KVG_E8M0 : KVG_FP32;
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
    kvg_indexer_quant_cache_args a;
    int64_t sh[4], d, tokens, mode;
    kvg_dtype ct, st;
    int rank;
    uint8_t vmode;
    const fz_buf *cb, *sb;
    fz_buf *ib;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_indexer_quant_cache_args_init(&a);
    attributes(&in, &a);
    mode = a.quant_mode >= 0 && a.quant_mode <= 3 ? a.quant_mode : 0;
    d = 32 * fz_pick(&in, 1, 8) + ((fz_u8(&in) & 15) == 15 ? 16 : 0);
    tokens = fz_pick(&in, 1, 12);
    rank = (int)fz_pick(&in, 2, 3);
    if (rank == 3)
        sh[0] = 2, sh[1] = tokens, sh[2] = d;
    else
        sh[0] = tokens, sh[1] = d;
    a.x = view(fz_tensor(&pool, &in, "x", FZ_INPUT,
                         fz_u8(&in) & 1 ? KVG_FP16 : KVG_BF16, rank, sh));
    ib = fz_tensor(&pool, &in, "slot_mapping", FZ_INPUT,
                   fz_u8(&in) & 1 ? KVG_INT32 : KVG_INT64, rank - 1,
                   sh);
    a.slot_mapping = view(ib);
    dtypes(&in, mode, &ct, &st);
    sh[0] = fz_pick(&in, 1, 4), sh[1] = fz_pick(&in, 1, 8), sh[2] = 1;
    make_slots(&pool, &in, ib, rank == 3 ? 2 * tokens : tokens,
               sh[0] * sh[1]);
    sh[3] = (mode == 3 ? d / 2 : d) + fz_pick(&in, -1, 2) * 16;
    cb = fz_tensor(&pool, &in, "cache", FZ_CACHE, ct, 4, sh);
    a.cache = view(cb);
    sh[3] = (mode == 0 || mode == 3 ? d / 32 : 1) + fz_pick(&in, -1, 2);
    sb = fz_tensor(&pool, &in, "cache_scale", FZ_CACHE, st, 4, sh);
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
