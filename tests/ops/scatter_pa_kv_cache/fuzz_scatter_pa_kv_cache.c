/*
 * tests/ops/scatter_pa_kv_cache/fuzz_scatter_pa_kv_cache.c - ScatterPaKvCache's validation on
 * fuzzed arguments: the first byte picks the scenario the call is built
 * for (Norm, NHSD, PA_NZ 4-D, PA_NZ 5-D, key-only Norm, and the compressed
 * Alibi / Rope / Omni, built by the shared per-head fuzzer fuzz_runs.h with
 * ScatterPaKvCache's tensor names); later bytes pick
 * dtypes (every dtype the operator copies), shapes, slot values
 * (duplicates, out of range, negative, weird) and may change the modes
 * under the call. Invariants: the shared driver's (fuzz_util.h); on
 * success, for the modes actually called, every element of every written
 * token sits where the kernels' formula (written out here) puts it and
 * every other cache byte is untouched.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_runs.h"
#include "fuzz_util.h"
#include "kvgold/layout.h"
#include "kvgold/scatter_pa_kv_cache.h"

static const kvg_dtype k_dtypes[] = {
    KVG_FP16,  KVG_BF16,   KVG_FP32,     KVG_INT8,       KVG_UINT8,
    KVG_INT16, KVG_UINT16, KVG_INT32,    KVG_UINT32,     KVG_HIF8,
    KVG_FP8_E5M2, KVG_FP8_E4M3FN, KVG_FP4_E2M1, KVG_FP4_E1M2};
#define N_DTYPES ((int)(sizeof k_dtypes / sizeof k_dtypes[0]))

typedef struct ctx {
    kvg_scatter_pa_kv_cache_args *a;
    int heads_mode; /* built by fz_runs_make */
    fz_runs r;
    fz_buf *src[2], *cache[2], *slot;
    int64_t heads, d[2];
} ctx;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

/* 0 Norm, 1 NHSD, 2 PA_NZ 4-D, 3 PA_NZ 5-D */
static int cache_shape(int mode, int64_t nb, int64_t bs, int64_t n,
                       int64_t d, kvg_dtype dt, int64_t *sh)
{
    const int64_t c0 = kvg_c0_of(dt);
    sh[0] = nb;
    switch (mode) {
    case 1: sh[1] = n, sh[2] = bs, sh[3] = d; return 4;
    case 2: sh[1] = n * d / c0, sh[2] = bs, sh[3] = c0; return 4;
    case 3: sh[1] = n, sh[2] = d / c0, sh[3] = bs, sh[4] = c0; return 5;
    default: sh[1] = bs, sh[2] = n, sh[3] = d; return 4;
    }
}

static void make(fz_pool *p, fz_in *in, int mode, ctx *c)
{
    static const char *const srcs[2] = {"key", "value"};
    static const char *const caches[2] = {"key_cache", "value_cache"};
    const int sides = mode == 4 ? 1 : 2, layout = mode == 4 ? 0 : mode;
    int64_t tokens, bs, nb, slots, i, sh[5], perm[16 * 12];
    uint8_t f;
    int s;

    tokens = 1 + fz_pick(in, 0, 11);
    f = fz_u8(in);
    c->heads = 1 + f % 3;
    bs = 1 + (f / 3) % 16;
    nb = (tokens + bs - 1) / bs + (f / 48) % 2;
    slots = nb * bs;
    for (s = 0; s < sides; s++) {
        const kvg_dtype dt = k_dtypes[fz_pick(in, 0, N_DTYPES - 1)];
        const int64_t c0 = kvg_c0_of(dt);
        c->d[s] = c0 * (1 + fz_pick(in, 0, 1));
        sh[0] = tokens, sh[1] = c->heads, sh[2] = c->d[s];
        c->src[s] = fz_tensor(p, in, srcs[s], FZ_INPUT, dt, 3, sh);
        c->cache[s] = fz_tensor(p, in, caches[s], FZ_CACHE, dt,
                                cache_shape(layout, nb, bs, c->heads,
                                            c->d[s], dt, sh),
                                sh);
    }
    c->slot = fz_tensor(p, in, "slot_mapping", FZ_INPUT,
                        fz_u8(in) & 1 ? KVG_INT64 : KVG_INT32, 1, &tokens);
    for (i = 0; i < slots; i++)
        perm[i] = i;
    for (i = 0; i < tokens; i++) {
        int64_t j = i + (int64_t)fz_below(&p->rng, (uint64_t)(slots - i));
        int64_t tmp = perm[i];
        perm[i] = perm[j], perm[j] = tmp;
    }
    for (i = 0; i < tokens; i++) {
        int64_t v = perm[i];
        f = fz_u8(in);
        if (f >= 0x80) {
            switch (f % 6) {
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

/* The element index of channel ch (of N*D) of the token at slot s. */
static int64_t at(const kvg_scatter_pa_kv_cache_args *a, const fz_buf *cb,
                  int64_t n, int64_t d, int64_t s, int64_t ch)
{
    const int64_t c0 = cb->t.shape[cb->t.rank - 1];
    if (a->cache_mode == KVG_CACHE_PA_NZ) {
        const int64_t bs = cb->t.shape[cb->t.rank - 2];
        return (((s / bs) * (n * d / c0) + ch / c0) * bs + s % bs) * c0 +
               ch % c0;
    }
    if (a->scatter_mode == KVG_SCATTER_NHSD) {
        const int64_t bs = cb->t.shape[2];
        return (((s / bs) * n + ch / d) * bs + s % bs) * d + ch % d;
    }
    return s * n * d + ch;
}

static void check_side(const ctx *c, int side)
{
    const fz_buf *src = c->src[side], *cb = c->cache[side];
    /* Read N and D off the call as made: a perturbation may have changed
     * the shapes the context was built with into another valid call. Nct's
     * key is the storage, so its geometry is the caches'. */
    const int nct = c->a->scatter_mode == KVG_SCATTER_NCT;
    const int64_t tokens = c->slot->t.shape[0];
    const int64_t n = nct ? c->cache[0]->t.shape[2] : src->t.shape[1];
    const int64_t d = nct ? cb->t.shape[3] : src->t.shape[2];
    const size_t es = kvg_dtype_size(src->t.dtype);
    const size_t elems = cb->size / es;
    unsigned char *mask = (unsigned char *)calloc(elems ? elems : 1, 1);
    /* Nct (a perturbed mode) reads token t from t*stride + offset */
    const int64_t stride = nct ? c->a->strides[side] : n * d;
    const int64_t offset = nct ? c->a->offsets[side] : 0;
    int64_t t, s, ch;
    size_t k;

    if (mask == NULL)
        abort();
    for (t = 0; t < tokens; t++) {
        if (!fz_index_get(c->slot, t, &s) || s < 0)
            continue;
        for (ch = 0; ch < n * d; ch++) {
            const int64_t e = at(c->a, cb, n, d, s, ch);
            FZ_CHECK(e >= 0 && (size_t)e < elems, "element inside the cache");
            FZ_CHECK(memcmp(cb->mem + (size_t)e * es,
                            src->mem + (size_t)(t * stride + offset + ch) * es,
                            es) == 0,
                     "cache element differs from its token's");
            mask[e] = 1;
        }
    }
    for (k = 0; k < elems; k++)
        FZ_CHECK(mask[k] || memcmp(cb->mem + k * es, cb->snap + k * es,
                                   es) == 0,
                 "cache byte outside the token slots changed");
    free(mask);
}

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_scatter_pa_kv_cache_workspace_size(
        (const kvg_scatter_pa_kv_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_scatter_pa_kv_cache((const kvg_scatter_pa_kv_cache_args *)a,
                                   diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_scatter_pa_kv_cache_args *)a)->workspace = ws;
    ((kvg_scatter_pa_kv_cache_args *)a)->workspace_size = size;
}

static void on_success(void *p)
{
    const ctx *c = (const ctx *)p;
    if (c->heads_mode) {
        const kvg_scatter_mode m = c->a->scatter_mode;
        if (m == KVG_SCATTER_ALIBI)
            fz_runs_check_success(FZ_RUN_KVHEAD, &c->r);
        else if (m == KVG_SCATTER_ROPE)
            fz_runs_check_success(FZ_RUN_KVHEAD_ROPE, &c->r);
        else if (m == KVG_SCATTER_OMNI)
            fz_runs_check_success(FZ_RUN_OMNI, &c->r);
        return;
    }
    check_side(c, 0);
    if (c->a->value_cache != NULL && c->a->value_cache->rank > 0)
        check_side(c, 1);
}

/* Under the built modes, maybe others (invalid, or valid with the wrong
 * shapes). */
static void perturb_modes(fz_in *in, kvg_scatter_pa_kv_cache_args *a)
{
    uint8_t f = fz_u8(in);
    if (f >= 0xC0)
        a->cache_mode = (kvg_cache_mode)(f % 4 == 3 ? -1 : f % 3);
    f = fz_u8(in);
    if (f >= 0xC0)
        a->scatter_mode = (kvg_scatter_mode)(f % 8 == 7 ? -1 : f % 7);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {
        "slot_mapping", "compress_lens", "seq_lens", "compress_seq_offset",
        NULL};
    static const fz_run_kind kinds[3] = {FZ_RUN_KVHEAD, FZ_RUN_KVHEAD_ROPE,
                                         FZ_RUN_OMNI};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx c;
    kvg_scatter_pa_kv_cache_args a;
    int mode;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    mode = fz_u8(&in) % 8;
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    memset(&c, 0, sizeof c);
    kvg_scatter_pa_kv_cache_args_init(&a);
    c.a = &a;
    if (mode == 1)
        a.scatter_mode = KVG_SCATTER_NHSD;
    if (mode == 2 || mode == 3)
        a.cache_mode = KVG_CACHE_PA_NZ;
    if (mode >= 5) { /* Alibi, Rope, Omni */
        c.heads_mode = 1;
        a.scatter_mode = (kvg_scatter_mode)(KVG_SCATTER_ALIBI + (mode - 5));
        fz_runs_make(&pool, &in, kinds[mode - 5], &c.r);
        a.key = view(c.r.key), a.value = view(c.r.value);
        a.key_cache = view(c.r.key_cache);
        a.value_cache = view(c.r.value_cache);
        a.slot_mapping = view(c.r.slot_mapping);
        a.compress_lens = view(c.r.wins), a.seq_lens = view(c.r.seq_len);
        a.compress_seq_offset = view(c.r.offset_index);
    } else {
        make(&pool, &in, mode, &c);
        a.key = view(c.src[0]), a.key_cache = view(c.cache[0]);
        a.value = view(c.src[1]), a.value_cache = view(c.cache[1]);
        a.slot_mapping = view(c.slot);
    }
    perturb_modes(&in, &a);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &c, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
