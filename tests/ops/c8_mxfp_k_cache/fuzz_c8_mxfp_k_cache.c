/*
 * tests/ops/c8_mxfp_k_cache/fuzz_c8_mxfp_k_cache.c - the C8-MXFP K write's
 * validation on fuzzed arguments: key [T, N, D] (bf16 / fp16 / fp32), N,
 * D, Bs and Bn mostly valid (D and Bs sometimes not multiples of 64),
 * int32 / int64 slots perturbed (pad rows, slot 0, a repeat, past the
 * cache), both caches (e8m0 / uint8 scales) open to the shared tensor
 * perturbations (fuzz_util.h), key's values to NaN / Inf / subnormals.
 * Invariants: the shared driver's (refusals write nothing; value errors
 * name key or slot_mapping with a position), and on success, from the
 * source's index formulas written out here:
 *   - a key_cache byte changed only at a real token's slot, a
 *     key_scale_cache byte only at a real token's slot or slot 0 (a pad
 *     row's clamp);
 *   - every written payload code has its key element's sign or is a zero,
 *     and is +0 where the element's 32-block holds an Inf / NaN, whose
 *     scale is 0xFF.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/c8_mxfp_k_cache.h"
#include "kvgold/format.h"

typedef struct ctx {
    const kvg_c8_mxfp_k_cache_args *a;
    const fz_buf *kc, *sc;
    int64_t t, n, d, bs;
} ctx;

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_c8_mxfp_k_cache_workspace_size(
        (const kvg_c8_mxfp_k_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_c8_mxfp_k_cache((const kvg_c8_mxfp_k_cache_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_c8_mxfp_k_cache_args *)a)->workspace = ws;
    ((kvg_c8_mxfp_k_cache_args *)a)->workspace_size = size;
}

static float x_at(const kvg_tensor *t, int64_t i)
{
    float v = 0.0f;
    FZ_CHECK(kvg_decode_f32(t->dtype, (const unsigned char *)t->data +
                                          (size_t)i * kvg_dtype_size(t->dtype),
                            &v) == KVG_OK,
             "decode");
    return v;
}

static int64_t slot_of(const kvg_c8_mxfp_k_cache_args *a, int64_t t)
{
    int64_t v = 0;
    const unsigned char *p = (const unsigned char *)a->slot_mapping->data;
    if (a->slot_mapping->dtype == KVG_INT32) {
        int32_t w;
        memcpy(&w, p + 4 * t, 4);
        return w;
    }
    memcpy(&v, p + 8 * t, 8);
    return v;
}

/* The source's formulas: key_cache[b, n, e/32, o, e%32],
 * key_scale_cache[b, n, o/16, j, o%16, p] for block 2j + p. */
static size_t nz_at(const ctx *c, int64_t s, int64_t n, int64_t e)
{
    const int64_t b = s / c->bs, o = s % c->bs;
    return (size_t)((((b * c->n + n) * (c->d / 32) + e / 32) * c->bs + o) *
                        32 + e % 32);
}

static size_t scale_at(const ctx *c, int64_t s, int64_t n, int64_t blk)
{
    const int64_t b = s / c->bs, o = s % c->bs;
    return (size_t)(((((b * c->n + n) * (c->bs / 16) + o / 16) *
                          (c->d / 64) + blk / 2) * 16 + o % 16) * 2 + blk % 2);
}

/* Marks the bytes the tokens may write. */
static void allowed(const ctx *c, unsigned char *kok, unsigned char *sok)
{
    int64_t t, n, e, s;

    for (t = 0; t < c->t; t++) {
        s = slot_of(c->a, t);
        for (n = 0; n < c->n; n++) {
            for (e = 0; s >= 0 && e < c->d; e++)
                kok[nz_at(c, s, n, e)] = 1;
            for (e = 0; e < c->d / 32; e++)
                sok[scale_at(c, s < 0 ? 0 : s, n, e)] = 1;
        }
    }
}

static int block_nonfinite(const ctx *c, int64_t t, int64_t n, int64_t j)
{
    int64_t e;

    for (e = 32 * j; e < 32 * j + 32; e++)
        if (!isfinite(x_at(c->a->key, (t * c->n + n) * c->d + e)))
            return 1;
    return 0;
}

static void check_token(const ctx *c, int64_t t)
{
    const unsigned char *kb = (const unsigned char *)c->kc->t.data;
    const unsigned char *sb = (const unsigned char *)c->sc->t.data;
    const int64_t s = slot_of(c->a, t);
    int64_t n, e;
    float x, y;

    for (n = 0; s >= 0 && n < c->n; n++)
        for (e = 0; e < c->d; e++) {
            x = x_at(c->a->key, (t * c->n + n) * c->d + e);
            y = kvg_fp8e4m3fn_to_f32(kb[nz_at(c, s, n, e)]);
            FZ_CHECK(y == y, "a NaN code in key_cache");
            if (block_nonfinite(c, t, n, e / 32)) {
                FZ_CHECK(kb[nz_at(c, s, n, e)] == 0,
                         "non-finite block, code not +0");
                FZ_CHECK(sb[scale_at(c, s, n, e / 32)] == 0xFF,
                         "non-finite block, scale not 0xFF");
            } else {
                FZ_CHECK(y == 0.0f || (y > 0.0f) == (x > 0.0f),
                         "a code's sign is not key's");
            }
        }
}

static void on_success(void *p)
{
    /* The dimensions the call accepted, not the ones drawn: the shared
     * perturbations may change key's and slot_mapping's T alike (both
     * doubled, say), which the call rightly accepts, and then the tokens
     * past the drawn T hold the pool's values (pad rows among them). */
    ctx accepted = *(const ctx *)p;
    const ctx *c = &accepted;
    unsigned char *kok = (unsigned char *)calloc(c->kc->size, 1);
    unsigned char *sok = (unsigned char *)calloc(c->sc->size, 1);
    size_t i;
    int64_t t;

    accepted.t = c->a->key->shape[0];
    accepted.n = c->a->key->shape[1];
    accepted.d = c->a->key->shape[2];
    accepted.bs = c->a->key_cache->shape[3];
    FZ_CHECK(kok != NULL && sok != NULL, "calloc");
    allowed(c, kok, sok);
    for (i = 0; i < c->kc->size; i++)
        FZ_CHECK(kok[i] || c->kc->mem[i] == c->kc->snap[i],
                 "key_cache changed outside the tokens' slots");
    for (i = 0; i < c->sc->size; i++)
        FZ_CHECK(sok[i] || c->sc->mem[i] == c->sc->snap[i],
                 "key_scale_cache changed outside the tokens' slots");
    for (t = 0; t < c->t; t++)
        check_token(c, t);
    free(kok);
    free(sok);
}

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

/* Mostly valid, 1 in 16 one of the others (not multiples of 64). */
static int64_t choose(fz_in *in, const int64_t *valid, int n,
                      const int64_t *bad, int nbad)
{
    const uint8_t c = fz_u8(in);
    return (c & 15) == 15 ? bad[(c >> 4) % nbad] : valid[(c >> 4) % n];
}

/* Slots perturbed one by one: a pad row, slot 0, a repeat of token 0,
 * past the cache, or left as drawn (distinct, in range). */
static void slots(fz_in *in, fz_buf *s, int64_t t, int64_t nslots)
{
    int64_t i, v;

    for (i = 0; i < t; i++) {
        switch (fz_u8(in) % 8) {
        case 0: v = -1; break;
        case 1: v = -(int64_t)fz_pick(in, 2, 9); break;
        case 2: v = 0; break;
        case 3: v = 0; (void)fz_index_get(s, 0, &v); break;
        case 4: v = nslots; break;
        default: v = (i * 7 + 1) % nslots; break;
        }
        fz_index_set(s, i, v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"key", "slot_mapping", NULL};
    static const kvg_dtype kts[3] = {KVG_BF16, KVG_FP16, KVG_FP32};
    static const int64_t ds[2] = {64, 128}, bad_d[2] = {96, 32};
    static const int64_t bss[2] = {64, 128}, bad_bs[2] = {48, 80};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx cx;
    kvg_c8_mxfp_k_cache_args a;
    int64_t sh[6], t, n, d, bs, bn;
    fz_buf *sb;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_c8_mxfp_k_cache_args_init(&a);
    t = fz_pick(&in, 1, 6), n = fz_pick(&in, 1, 3), bn = fz_pick(&in, 1, 3);
    d = choose(&in, ds, 2, bad_d, 2);
    bs = choose(&in, bss, 2, bad_bs, 2);
    sh[0] = t, sh[1] = n, sh[2] = d;
    a.key = view(fz_tensor(&pool, &in, "key", FZ_INPUT,
                           kts[fz_pick(&in, 0, 2)], 3, sh));
    sb = fz_tensor(&pool, &in, "slot_mapping", FZ_INPUT,
                   fz_u8(&in) & 1 ? KVG_INT32 : KVG_INT64, 1, sh);
    slots(&in, sb, t, bn * bs);
    a.slot_mapping = view(sb);
    sh[0] = bn, sh[1] = n, sh[2] = d / 32, sh[3] = bs, sh[4] = 32;
    cx.kc = fz_tensor(&pool, &in, "key_cache", FZ_CACHE, KVG_FP8_E4M3FN, 5,
                      sh);
    a.key_cache = view(cx.kc);
    sh[2] = bs / 16, sh[3] = d / 64, sh[4] = 16, sh[5] = 2;
    cx.sc = fz_tensor(&pool, &in, "key_scale_cache", FZ_CACHE,
                      fz_u8(&in) & 1 ? KVG_E8M0 : KVG_UINT8, 6, sh);
    a.key_scale_cache = view(cx.sc);
    /* as drawn; on_success takes them from the views the call accepted */
    cx.a = &a, cx.t = t, cx.n = n, cx.d = d, cx.bs = bs;
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &cx, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
