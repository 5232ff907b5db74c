/*
 * tests/ops/reshape_and_cache/fuzz_reshape_and_cache.c - ReshapeAndCache's validation on
 * fuzzed arguments, in all its modes: per-token writes into ND and NZ
 * caches, and the per-head KVHEAD / KVHEAD_ROPE modes (fuzz_runs.h). The
 * first byte picks the mode the call is built for; a later byte may change
 * compress_type or cache_layout under it (invalid values, NZ with a
 * compress type, BNSD, or another valid mode with the wrong tensors).
 * Invariants: the shared driver's (fuzz_util.h); on success, for the mode
 * actually called, every written row or NZ chunk equals its source and
 * every other cache byte is untouched.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_runs.h"
#include "kvgold/reshape_and_cache.h"

typedef struct ctx {
    kvg_reshape_and_cache_args *a;
    fz_buf *key, *value, *kc, *vc, *slot;
    fz_runs r;
} ctx;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

/* ---- per-token mode ---------------------------------------------------- */

static void make_tokens(fz_pool *p, fz_in *in, int nz, ctx *c)
{
    int64_t tokens, heads, dk, dv, bs, bn, slots, i, sh[4], perm[12 * 32];
    uint8_t f = fz_u8(in);
    const kvg_dtype kd = f % 3 == 0 ? KVG_FP16 : f % 3 == 1 ? KVG_BF16
                                                           : KVG_INT8;
    const kvg_dtype vd = !nz ? kd : (f & 0x80) ? KVG_BF16 : KVG_FP16;
    int64_t c0k = kvg_c0_of(kd), c0v = kvg_c0_of(vd);
    uint8_t pad;

    tokens = 1 + fz_pick(in, 0, 11);
    f = fz_u8(in);
    heads = 1 + f % 3;
    dk = 32 * (1 + (f / 3) % 3);
    dv = 16 * (1 + (f / 9) % 3);
    f = fz_u8(in);
    bs = nz ? 16 * (1 + f % 2) : (int64_t)1 << (f % 5);
    bn = (tokens + bs - 1) / bs + (f / 8) % 2;
    slots = bn * bs;
    sh[0] = tokens, sh[1] = heads, sh[2] = dk;
    c->key = fz_tensor(p, in, "key", FZ_INPUT, kd, 3, sh);
    sh[2] = dv;
    c->value = fz_tensor(p, in, "value", FZ_INPUT, vd, 3, sh);
    if (nz) {
        sh[0] = bn, sh[1] = heads * dk / c0k, sh[2] = bs, sh[3] = c0k;
        c->kc = fz_tensor(p, in, "key_cache", FZ_CACHE, kd, 4, sh);
        sh[1] = heads * dv / c0v, sh[3] = c0v;
        c->vc = fz_tensor(p, in, "value_cache", FZ_CACHE, vd, 4, sh);
    } else {
        sh[0] = bn, sh[1] = bs, sh[2] = heads, sh[3] = dk;
        c->kc = fz_tensor(p, in, "key_cache", FZ_CACHE, kd, 4, sh);
        sh[3] = dv;
        c->vc = fz_tensor(p, in, "value_cache", FZ_CACHE, vd, 4, sh);
    }
    c->slot = fz_tensor(p, in, "slot_mapping", FZ_INPUT, KVG_INT32, 1,
                        &tokens);
    for (i = 0; i < slots; i++)
        perm[i] = i;
    for (i = 0; i < tokens; i++) {
        int64_t j = i + (int64_t)fz_below(&p->rng, (uint64_t)(slots - i));
        int64_t tmp = perm[i];
        perm[i] = perm[j], perm[j] = tmp;
    }
    for (i = 0; i < tokens; i++) {
        int64_t v = perm[i];
        pad = fz_u8(in);
        if (pad >= 0x80) {
            switch (pad % 6) {
            case 0: v = -1; break;
            case 1: v = slots; break;
            case 2: v = perm[0]; break; /* duplicate (or itself) */
            case 3: v = fz_weird(in); break;
            case 4: v = INT32_MIN; break;
            default: v = slots - 1; break;
            }
        }
        fz_index_set(c->slot, i, v);
    }
}

static void check_tokens(const ctx *c, const fz_buf *src, const fz_buf *cb,
                         int nz)
{
    const int64_t tokens = src->t.shape[0];
    const size_t es = kvg_dtype_size(src->t.dtype);
    const size_t width = (size_t)(src->t.shape[1] * src->t.shape[2]) * es;
    const int64_t bs = nz ? cb->t.shape[2] : cb->t.shape[1];
    const int64_t groups = nz ? cb->t.shape[1] : 1;
    /* the cache as a sequence of chunks: NZ C0 elements, ND a token row */
    const size_t chunk = nz ? (size_t)cb->t.shape[3] * es : width;
    const size_t chunks = cb->size / chunk;
    unsigned char *mask = (unsigned char *)calloc(chunks ? chunks : 1, 1);
    int64_t t, s, g;
    size_t k;

    if (mask == NULL)
        abort();
    for (t = 0; t < tokens; t++) {
        if (!fz_index_get(c->slot, t, &s) || s < 0)
            continue;
        for (g = 0; g < groups; g++) {
            const size_t at = nz ? (size_t)(((s / bs) * groups + g) * bs +
                                            s % bs)
                                 : (size_t)s;
            FZ_CHECK(at < chunks, "slot inside the cache");
            FZ_CHECK(memcmp(cb->mem + at * chunk, src->mem + (size_t)t * width +
                                                      (size_t)g * chunk,
                            chunk) == 0,
                     "cache chunk differs from its token");
            mask[at] = 1;
        }
    }
    for (k = 0; k < chunks; k++)
        FZ_CHECK(mask[k] || memcmp(cb->mem + k * chunk, cb->snap + k * chunk,
                                   chunk) == 0,
                 "cache byte outside the token slots changed");
    free(mask);
}

/* ---- driver glue ------------------------------------------------------- */

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_reshape_and_cache_workspace_size(
        (const kvg_reshape_and_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_reshape_and_cache((const kvg_reshape_and_cache_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_reshape_and_cache_args *)a)->workspace = ws;
    ((kvg_reshape_and_cache_args *)a)->workspace_size = size;
}

static void on_success(void *p)
{
    const ctx *c = (const ctx *)p;
    switch (c->a->compress_type) {
    case KVG_RAC_COMPRESS_KVHEAD:
        fz_runs_check_success(FZ_RUN_KVHEAD, &c->r);
        break;
    case KVG_RAC_COMPRESS_KVHEAD_ROPE:
        fz_runs_check_success(FZ_RUN_KVHEAD_ROPE, &c->r);
        break;
    default: {
        const int nz = c->a->cache_layout == KVG_LAYOUT_NZ;
        check_tokens(c, c->key, c->kc, nz);
        check_tokens(c, c->value, c->vc, nz);
        break;
    }
    }
}

/* Under the built mode, maybe another compress_type or cache_layout. */
static void perturb_mode(fz_in *in, kvg_reshape_and_cache_args *a)
{
    static const int bad[] = {3, -1, 99, 0, 1, 2};
    static const int layouts[] = {KVG_LAYOUT_NZ, KVG_LAYOUT_BNSD, 7, -1,
                                  KVG_LAYOUT_ND};
    uint8_t f = fz_u8(in);
    if (f >= 0xC0)
        a->compress_type = (kvg_rac_compress)bad[f % 6];
    f = fz_u8(in);
    if (f >= 0xC0)
        a->cache_layout = (kvg_layout_kind)layouts[f % 5];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"slot_mapping", "wins",
                                              "seq_len", "offset_index",
                                              NULL};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx c;
    kvg_reshape_and_cache_args a;
    uint8_t mode, vmode;

    fz_in_init(&in, data, size);
    mode = fz_u8(&in) % 4;
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    memset(&c, 0, sizeof c);
    kvg_reshape_and_cache_args_init(&a);
    c.a = &a;
    if (mode < 2) {
        a.cache_layout = mode == 1 ? KVG_LAYOUT_NZ : KVG_LAYOUT_ND;
        make_tokens(&pool, &in, mode == 1, &c);
        a.key = view(c.key), a.value = view(c.value);
        a.key_cache = view(c.kc), a.value_cache = view(c.vc);
        a.slot_mapping = view(c.slot);
        /* mode-foreign tensors, sometimes */
        if (fz_u8(&in) >= 0xE0) {
            int64_t one = 1;
            fz_buf *x = fz_tensor(&pool, &in, "wins", FZ_INPUT, KVG_INT32, 1,
                                  &one);
            a.wins = view(x);
        }
    } else {
        a.compress_type = mode == 2 ? KVG_RAC_COMPRESS_KVHEAD
                                    : KVG_RAC_COMPRESS_KVHEAD_ROPE;
        fz_runs_make(&pool, &in, mode == 2 ? FZ_RUN_KVHEAD
                                           : FZ_RUN_KVHEAD_ROPE, &c.r);
        a.key = view(c.r.key), a.value = view(c.r.value);
        a.key_cache = view(c.r.key_cache);
        a.value_cache = view(c.r.value_cache);
        a.slot_mapping = view(c.r.slot_mapping), a.wins = view(c.r.wins);
        a.seq_len = view(c.r.seq_len);
        a.offset_index = view(c.r.offset_index);
        c.key = c.r.key, c.value = c.r.value;
        c.kc = c.r.key_cache, c.vc = c.r.value_cache;
        c.slot = c.r.slot_mapping;
    }
    perturb_mode(&in, &a);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &c, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
