/*
 * tests/ops/kv_rms_norm_rope_cache/fuzz_kv_rms_norm_rope_cache.c - KvRmsNormRopeCache's
 * validation on fuzzed arguments (docs/reliability.md).
 *
 * The input picks the kv dtype, cache mode, which caches are quantised and
 * to what, the profile (ascend950, or a2a3 with its DeepSeek dims), Bkv,
 * Skv, Dv, Dk, BlockSize, cache sizes, cos broadcast, scale and offset
 * shapes, is_output_kv and the options; then perturbations of the
 * attributes, of which optional tensors are given, of every tensor
 * (fuzz_util.h), of every index value, and aliased views (written buffers
 * sharing memory). Invariants: the shared driver's
 * (value errors here are an index, or an inf / NaN in a floating input);
 * on success no cache row outside the ones the index addresses changed,
 * and k_rope / c_kv given with is_output_kv off were not touched.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/kv_rms_norm_rope_cache.h"
#include "kvgold/layout.h"

typedef struct kcfg {
    kvg_dtype t, kd, cd;
    kvg_cache_mode mode;
    int a2, out, bcast, nz, blk;
    int64_t b, s, dv, dk, bs, nb, nblocks, bcache, scache;
} kcfg;

typedef struct kbufs {
    fz_buf *kv, *gamma, *cos, *sin, *index, *kc, *cc, *ks, *cs, *ko, *co,
        *kr, *ckv;
    kvg_kv_rms_norm_rope_cache_args *a;
} kbufs;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static void read_config(fz_in *in, kcfg *c)
{
    static const kvg_dtype q8[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    uint8_t f = fz_u8(in);
    kvg_dtype q;
    memset(c, 0, sizeof *c);
    c->t = (f & 1) ? KVG_BF16 : KVG_FP16;
    c->mode = (kvg_cache_mode)((f >> 1) % 5);
    c->out = (f >> 4) & 1;
    c->bcast = (f >> 5) & 1;
    f = fz_u8(in);
    c->a2 = (f & 0x80) != 0;
    q = c->a2 ? KVG_INT8 : q8[f % 4];
    c->kd = (f & 4) ? q : c->t;
    c->cd = (f & 8) ? q : c->t;
    c->nz = c->mode == KVG_CACHE_PA_NZ || c->mode == KVG_CACHE_PA_BLK_NZ;
    c->blk = c->mode == KVG_CACHE_PA_BLK_BNSD ||
             c->mode == KVG_CACHE_PA_BLK_NZ;
    f = fz_u8(in);
    c->b = 1 + f % 2;
    c->bs = c->kd != c->t || c->cd != c->t ? 32 : 16 * (1 + (f >> 1) % 2);
    c->s = c->blk ? 1 + (f >> 2) % (c->bs + 4) : 1 + (f >> 2) % 3;
    f = fz_u8(in);
    c->dv = c->a2 ? 512 : c->nz ? 32 * (1 + f % 2) : 2 * (4 + f % 17);
    c->dk = c->a2 ? 64 : c->nz ? 32 : 2 * (2 + (f >> 4) % 7);
    f = fz_u8(in);
    c->nb = c->blk ? (c->s + c->bs - 1) / c->bs : c->s;
    c->nblocks = (c->blk ? c->b * c->nb : (c->b * c->s + c->bs - 1) / c->bs) +
                 f % 2;
    c->bcache = c->b + (f >> 1) % 2;
    c->scache = c->s + (f >> 2) % 3;
}

static void read_attrs(fz_in *in, kvg_kv_rms_norm_rope_cache_args *a,
                       const kcfg *c)
{
    static const double eps[] = {1e-6, 0.0, 1e-5, 0.5, (double)FLT_MAX,
                                 -1e-6, 1e39};
    uint8_t f = fz_u8(in);
    a->epsilon = f < 0xF0 ? eps[f % 7] : NAN;
    f = fz_u8(in);
    a->reduce_order = (kvg_reduce_order)(f < 0xF0 ? f % 5 : f);
    f = fz_u8(in);
    a->quant_overflow = (kvg_overflow)(f < 0xF0 ? f % 3 : f);
    a->cache_mode = c->mode;
    a->profile = c->a2 ? KVG_KV_PROFILE_A2A3 : KVG_KV_PROFILE_ASCEND950;
    a->is_output_kv = c->out;
    f = fz_u8(in); /* under the built config: another mode or profile */
    if (f >= 0xE0)
        a->cache_mode = (kvg_cache_mode)((f % 8) - 1); /* -1 .. 6 */
    f = fz_u8(in);
    if (f >= 0xE0)
        a->profile = (kvg_kv_profile)((f % 4) - 1);
    f = fz_u8(in);
    if (f >= 0xE0)
        a->is_output_kv = !a->is_output_kv;
}

/* A scale or offset of shape [d], [1, d] or (not on a2a3) [1]. */
static fz_buf *qparam(fz_pool *p, fz_in *in, const char *name, int64_t d,
                      int a2)
{
    const int form = (int)fz_pick(in, 0, a2 ? 1 : 2);
    int64_t sh[2];
    sh[0] = form == 0 ? d : 1;
    sh[1] = d;
    return fz_tensor(p, in, name, FZ_INPUT, KVG_FP32, form == 1 ? 2 : 1, sh);
}

static void make_tensors(fz_pool *p, fz_in *in, const kcfg *c, kbufs *k,
                         int out)
{
    const uint8_t pr = fz_u8(in); /* presence flips */
    const int kq = c->kd != c->t, cq = c->cd != c->t;
    int64_t sh[4];

    sh[0] = c->b, sh[1] = 1, sh[2] = c->s, sh[3] = c->dv + c->dk;
    k->kv = fz_tensor(p, in, "kv", FZ_INPUT, c->t, 4, sh);
    sh[0] = c->dv;
    k->gamma = fz_tensor(p, in, "gamma", FZ_INPUT, c->t, 1, sh);
    sh[0] = c->b, sh[1] = 1, sh[2] = c->bcast ? 1 : c->s, sh[3] = c->dk;
    k->cos = fz_tensor(p, in, "cos", FZ_INPUT, c->t, 4, sh);
    k->sin = fz_tensor(p, in, "sin", FZ_INPUT, c->t, 4, sh);
    if (c->mode == KVG_CACHE_NORM) {
        sh[0] = c->b, sh[1] = c->s;
        k->index = fz_tensor(p, in, "index", FZ_INPUT, KVG_INT64, 2, sh);
        sh[0] = c->bcache, sh[1] = 1, sh[2] = c->scache, sh[3] = c->dk;
    } else {
        sh[0] = c->b * c->nb;
        k->index = fz_tensor(p, in, "index", FZ_INPUT, KVG_INT64, 1, sh);
        sh[0] = c->nblocks, sh[1] = c->bs, sh[2] = 1, sh[3] = c->dk;
    }
    k->kc = fz_tensor(p, in, "k_cache", FZ_CACHE, c->kd, 4, sh);
    sh[3] = c->dv;
    k->cc = fz_tensor(p, in, "ckv_cache", FZ_CACHE, c->cd, 4, sh);
    if (kq ^ (pr & 1))
        k->ks = qparam(p, in, "k_rope_scale", c->dk, c->a2);
    if (cq ^ ((pr >> 1) & 1))
        k->cs = qparam(p, in, "c_kv_scale", c->dv, c->a2);
    if ((kq && !c->a2 && (pr & 0x10)) ^ ((pr >> 2) & 1))
        k->ko = qparam(p, in, "k_rope_offset", c->dk, 0);
    if ((cq && !c->a2 && (pr & 0x20)) ^ ((pr >> 3) & 1))
        k->co = qparam(p, in, "c_kv_offset", c->dv, 0);
    /* outputs; given with is_output_kv off they must stay untouched */
    if (c->out || (pr & 0x40)) {
        const fz_role role = out ? FZ_OUTPUT : FZ_INPUT;
        sh[0] = c->b, sh[1] = 1, sh[2] = c->s, sh[3] = c->dk;
        k->kr = fz_tensor(p, in, "k_rope", role, c->t, 4, sh);
        sh[3] = c->dv;
        k->ckv = fz_tensor(p, in, "c_kv", role, c->t, 4, sh);
    }
}

/* Natural targets (distinct per mode's rule, 1 in 5 skipped), then one
 * perturbation per entry. */
static void make_index(fz_pool *p, fz_in *in, const kcfg *c, fz_buf *ix)
{
    const int64_t n = c->mode == KVG_CACHE_NORM ? c->b * c->s
                                                   : c->b * c->nb;
    const int64_t range = c->mode == KVG_CACHE_NORM ? c->scache
                          : c->blk                      ? c->nblocks
                                                   : c->nblocks * c->bs;
    const int64_t limit = c->mode == KVG_CACHE_NORM ? c->scache
                                                       : c->nblocks * c->bs;
    int64_t perm[1024], i, v, prev;

    for (i = 0; i < n; i++) {
        /* Norm: a fresh permutation per batch (positions repeat across
         * batches, not within one) */
        if (i == 0 || (c->mode == KVG_CACHE_NORM && i % c->s == 0)) {
            int64_t j;
            for (j = 0; j < range && j < 1024; j++)
                perm[j] = j;
            for (j = range - 1; j > 0; j--) {
                int64_t k = (int64_t)fz_below(&p->rng, (uint64_t)(j + 1));
                int64_t tmp = perm[j];
                perm[j] = perm[k], perm[k] = tmp;
            }
        }
        v = perm[c->mode == KVG_CACHE_NORM ? i % c->s : i];
        if (c->blk)
            v = v * c->bs + (int64_t)fz_below(&p->rng, (uint64_t)c->bs);
        if (fz_below(&p->rng, 5) == 0)
            v = -1;
        {
            const uint8_t f = fz_u8(in);
            if (f >= 0x80) {
                switch (f % 6) {
                case 0: v = limit; break;
                case 1: v = fz_weird(in); break;
                case 2: v = i > 0 && fz_index_get(ix, i - 1, &prev) ? prev
                                                                    : v;
                    break;
                case 3: v = -2; break;
                case 4: v = limit - 1; break;
                default: v = INT64_MIN; break;
                }
            }
        }
        fz_index_set(ix, i, v);
    }
}

/* After a success: the cache rows the index addresses, from the views and
 * the mode actually called; every other row must be as it was. */
static void check_cache(const kbufs *k, const fz_buf *cb, int64_t d)
{
    const kvg_kv_rms_norm_rope_cache_args *a = k->a;
    const kvg_tensor *c = &cb->t;
    const int64_t bkv = a->kv->shape[0], skv = a->kv->shape[2];
    const size_t es = kvg_dtype_size(c->dtype);
    const int nz = a->cache_mode == KVG_CACHE_PA_NZ ||
                   a->cache_mode == KVG_CACHE_PA_BLK_NZ;
    const int blk = a->cache_mode == KVG_CACHE_PA_BLK_BNSD ||
                    a->cache_mode == KVG_CACHE_PA_BLK_NZ;
    const int64_t c0 = nz ? kvg_c0_of(c->dtype) : d;
    const size_t chunk = (size_t)c0 * es, chunks = cb->size / chunk;
    unsigned char *mask = (unsigned char *)calloc(chunks ? chunks : 1, 1);
    int64_t b, s, g;
    size_t i;

    if (mask == NULL)
        abort();
    for (b = 0; b < bkv; b++)
        for (s = 0; s < skv; s++) {
            int64_t v, row, blk_no, off;
            if (a->cache_mode == KVG_CACHE_NORM) {
                if (!fz_index_get(k->index, b * skv + s, &v) || v < 0)
                    continue;
                row = b * c->shape[2] + v;
                mask[row] = 1;
                continue;
            }
            if (blk) {
                const int64_t bs = c->shape[1], nb = (skv + bs - 1) / bs;
                if (!fz_index_get(k->index, b * nb + s / bs, &v) || v < 0)
                    continue;
                blk_no = v / bs, off = s % bs;
            } else {
                if (!fz_index_get(k->index, b * skv + s, &v) || v < 0)
                    continue;
                blk_no = v / c->shape[1], off = v % c->shape[1];
            }
            for (g = 0; g < d / c0; g++) {
                const size_t at = nz ? (size_t)((blk_no * (d / c0) + g) *
                                                    c->shape[1] + off)
                                     : (size_t)(blk_no * c->shape[1] + off);
                FZ_CHECK(at < chunks, cb->name);
                mask[at] = 1;
            }
        }
    for (i = 0; i < chunks; i++)
        FZ_CHECK(mask[i] || memcmp(cb->mem + i * chunk, cb->snap + i * chunk,
                                   chunk) == 0,
                 "cache row outside the indexed ones changed");
    free(mask);
}

static void on_success(void *ctx)
{
    const kbufs *k = (const kbufs *)ctx;
    check_cache(k, k->kc, k->a->cos->shape[3]);
    check_cache(k, k->cc, k->a->gamma->shape[0]);
}

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_kv_rms_norm_rope_cache_workspace_size(
        (const kvg_kv_rms_norm_rope_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_kv_rms_norm_rope_cache(
        (const kvg_kv_rms_norm_rope_cache_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_kv_rms_norm_rope_cache_args *)a)->workspace = ws;
    ((kvg_kv_rms_norm_rope_cache_args *)a)->workspace_size = size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {
        "index", "kv", "gamma", "cos", "sin", "k_rope_scale", "c_kv_scale",
        "k_rope_offset", "c_kv_offset", NULL};
    fz_in in;
    fz_pool pool;
    kcfg c;
    kbufs k;
    fz_op op;
    kvg_kv_rms_norm_rope_cache_args a;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    read_config(&in, &c);
    kvg_kv_rms_norm_rope_cache_args_init(&a);
    read_attrs(&in, &a, &c);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    memset(&k, 0, sizeof k);
    k.a = &a;
    make_tensors(&pool, &in, &c, &k, a.is_output_kv);
    make_index(&pool, &in, &c, k.index);
    a.kv = view(k.kv), a.gamma = view(k.gamma), a.cos = view(k.cos);
    a.sin = view(k.sin), a.index = view(k.index), a.k_cache = view(k.kc);
    a.ckv_cache = view(k.cc), a.k_rope_scale = view(k.ks);
    a.c_kv_scale = view(k.cs), a.k_rope_offset = view(k.ko);
    a.c_kv_offset = view(k.co), a.k_rope = view(k.kr), a.c_kv = view(k.ckv);
    {
        /* written buffers sharing memory must be refused (the operator
         * checks overlaps); aliasing views is how a caller gets there */
        const uint8_t f = fz_u8(&in);
        if (f >= 0xF0) {
            switch (f % 4) {
            case 0: a.ckv_cache = a.k_cache; break;
            case 1: a.k_rope = a.c_kv; break;
            case 2: a.c_kv = a.gamma; break;
            default: a.k_cache = a.ckv_cache; break;
            }
        }
    }
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &k, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
