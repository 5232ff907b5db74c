/*
 * tests/ops/qkv_rms_norm_rope_cache/fuzz_qkv_rms_norm_rope_cache.c - QkvRmsNormRopeCache's
 * validation on fuzzed arguments (docs/reliability.md).
 *
 * The input chooses a small configuration (T, cache dtypes, B, S, heads,
 * BlockSize, BlockNum, offsets, before-quant outputs, epsilon, cache_mode,
 * options), then perturbations: attribute lists, presence of the optional
 * tensors, one mutation per tensor (fuzz_util.h), index values, and the
 * workspace. Invariants:
 *   - the size query and the call agree: a query that fails predicts the
 *     call's status and message; after a query that succeeds, a short or
 *     missing workspace gives 170001 and any other error is an index value;
 *   - an error has a known status, a message and a name, and changes no
 *     byte of any tensor (also with diag NULL);
 *   - a success leaves the inputs alone, changes no cache byte outside the
 *     slots of the index, and is reproduced bit for bit by a second call
 *     with a differently poisoned workspace.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/layout.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"

#define D KVG_QKV_HEAD_DIM

typedef struct qcfg {
    kvg_dtype t, kt, vt;
    int64_t b, s, nq, nk, n, bs, bn, tokens, slots;
    int k_off, v_off, before, cos_b, k_scale, v_scale;
} qcfg;

static void read_config(fz_in *in, qcfg *c)
{
    uint8_t f = fz_u8(in);
    int64_t extra;
    c->t = (f & 1) ? KVG_BF16 : KVG_FP16;
    c->kt = (f & 2) ? KVG_INT8 : c->t;
    c->vt = (f & 4) ? KVG_INT8 : c->t;
    c->k_off = (f & 8) != 0;
    c->v_off = (f & 16) != 0;
    c->before = (f & 32) != 0;
    c->cos_b = (f & 64) != 0;
    f = fz_u8(in);
    c->b = 1 + f % 3;
    c->s = 1 + (f / 3) % 4;
    f = fz_u8(in);
    c->nk = 1 + f % 2;
    c->nq = c->nk * (1 + (f / 2) % 3);
    c->n = c->nq + 2 * c->nk;
    f = fz_u8(in);
    c->bs = 32 * (1 + f % 2);
    extra = (f / 2) % 3;
    c->bn = ((c->s + c->bs - 1) / c->bs) * c->b + extra;
    c->tokens = c->b * c->s;
    c->slots = c->bn * c->bs;
    c->k_scale = c->kt == KVG_INT8;
    c->v_scale = c->vt == KVG_INT8;
}

static void read_attrs(fz_in *in, kvg_qkv_rms_norm_rope_cache_args *a)
{
    static const double eps[] = {1e-6, 0.0, 0.5, 1e-30, (double)FLT_MAX,
                                 -1e-6, 1e39, -0.0, DBL_MAX};
    static const kvg_cache_mode modes[] = {
        KVG_CACHE_PA_NZ, KVG_CACHE_NORM, KVG_CACHE_PA, KVG_CACHE_PA_BLK_BNSD,
        KVG_CACHE_PA_BLK_NZ, (kvg_cache_mode)5, (kvg_cache_mode)-1};
    uint8_t f = fz_u8(in);
    a->epsilon = f < 0xF0 ? eps[f % 9] : (f == 0xF0 ? NAN : -INFINITY);
    f = fz_u8(in);
    if (f != 0)
        a->cache_mode = modes[f % 7];
    f = fz_u8(in);
    a->reduce_order = (kvg_reduce_order)(f < 0xF0 ? f % 5 : f);
    f = fz_u8(in);
    a->overflow = (kvg_overflow)(f < 0xF0 ? f % 3 : f);
}

/* One attribute-list perturbation (qkv_size, head_nums). */
static void perturb_lists(fz_in *in, int64_t *qs, size_t *qlen, int64_t *hn,
                          size_t *hlen, int *null_qs, int *null_hn)
{
    uint8_t f = fz_u8(in);
    if (f < 0xC0)
        return;
    switch (f % 6) {
    case 0: *qlen = (size_t)fz_pick(in, 0, 5); break;
    case 1: *hlen = (size_t)fz_pick(in, 0, 5); break;
    case 2: *null_qs = 1; break;
    case 3: *null_hn = 1; break;
    case 4: qs[fz_pick(in, 0, 3)] = fz_weird(in); break;
    default: hn[fz_pick(in, 0, 2)] = fz_weird(in); break;
    }
}

typedef struct qbufs {
    fz_buf *qkv, *qg, *kg, *cos, *sin, *index, *q_out, *kc, *vc, *ks, *vs,
        *ko, *vo, *qb, *kb, *vb;
} qbufs;

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

static fz_buf *t2(fz_pool *p, fz_in *in, const char *name, fz_role role,
                  kvg_dtype dt, int64_t r, int64_t c)
{
    int64_t sh[2];
    sh[0] = r, sh[1] = c;
    return fz_tensor(p, in, name, role, dt, 2, sh);
}

static fz_buf *cache(fz_pool *p, fz_in *in, const char *name, kvg_dtype dt,
                     const qcfg *c)
{
    int64_t sh[4], c0 = kvg_c0_of(dt);
    sh[0] = c->bn, sh[1] = c->nk * D / c0, sh[2] = c->bs, sh[3] = c0;
    return fz_tensor(p, in, name, FZ_CACHE, dt, 4, sh);
}

static void make_tensors(fz_pool *p, fz_in *in, const qcfg *c, qbufs *q)
{
    const int64_t rows = c->cos_b ? c->b : c->tokens, one = D;
    uint8_t presence = fz_u8(in);

    memset(q, 0, sizeof *q);
    q->qkv = t2(p, in, "qkv", FZ_INPUT, c->t, c->tokens, c->n * D);
    q->qg = fz_tensor(p, in, "q_gamma", FZ_INPUT, c->t, 1, &one);
    q->kg = fz_tensor(p, in, "k_gamma", FZ_INPUT, c->t, 1, &one);
    q->cos = t2(p, in, "cos", FZ_INPUT, c->t, rows, D);
    q->sin = t2(p, in, "sin", FZ_INPUT, c->t, rows, D);
    q->index = fz_tensor(p, in, "index", FZ_INPUT, KVG_INT64, 1, &c->tokens);
    q->q_out = t2(p, in, "q_out", FZ_OUTPUT, c->t, c->tokens, c->nq * D);
    q->kc = cache(p, in, "k_cache", c->kt, c);
    q->vc = cache(p, in, "v_cache", c->vt, c);
    /* presence bits flip the natural choice of each optional tensor */
    if (c->k_scale ^ (presence & 1))
        q->ks = t2(p, in, "k_scale", FZ_INPUT, KVG_FP32, c->nk, D);
    if (c->v_scale ^ ((presence >> 1) & 1))
        q->vs = t2(p, in, "v_scale", FZ_INPUT, KVG_FP32, c->nk, D);
    if ((c->k_off && c->kt == KVG_INT8) ^ ((presence >> 2) & 1))
        q->ko = t2(p, in, "k_offset", FZ_INPUT, KVG_FP32, c->nk, D);
    if ((c->v_off && c->vt == KVG_INT8) ^ ((presence >> 3) & 1))
        q->vo = t2(p, in, "v_offset", FZ_INPUT, KVG_FP32, c->nk, D);
    if (c->before ^ ((presence >> 4) & 1))
        q->qb = t2(p, in, "q_out_before_quant", FZ_OUTPUT, c->t, c->tokens,
                   c->nq * D);
    if (c->before ^ ((presence >> 5) & 1))
        q->kb = t2(p, in, "k_out_before_quant", FZ_OUTPUT, c->t, c->tokens,
                   c->nk * D);
    if (c->before ^ ((presence >> 6) & 1))
        q->vb = t2(p, in, "v_out_before_quant", FZ_OUTPUT, c->t, c->tokens,
                   c->nk * D);
}

/* Distinct slots for every token (a shuffled prefix of [0, slots)), then
 * per-token perturbations. */
static void make_index(fz_pool *p, fz_in *in, const qcfg *c, fz_buf *idx)
{
    int64_t perm[5 * 64], t;
    int64_t i;
    for (i = 0; i < c->slots; i++)
        perm[i] = i;
    for (i = 0; i < c->tokens; i++) {
        int64_t j = i + (int64_t)fz_below(&p->rng, (uint64_t)(c->slots - i));
        int64_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (t = 0; t < c->tokens; t++) {
        uint8_t f = fz_u8(in);
        int64_t v = perm[t], prev;
        if (f >= 0x80) {
            switch (f % 8) {
            case 0: v = -1; break;
            case 1: v = f & 0x40 ? INT64_MIN : -2 - (f & 0x30); break;
            case 2: v = c->slots; break;
            case 3: v = c->slots + fz_pick(in, 0, 200); break;
            case 4: v = INT64_MAX; break;
            case 5: v = t > 0 && fz_index_get(idx, t - 1, &prev) ? prev : v;
                break;
            case 6: v = fz_weird(in); break;
            default: v = (int64_t)fz_below(&p->rng, (uint64_t)c->slots);
                break;
            }
        }
        fz_index_set(idx, t, v);
    }
}

/* After a success: no byte of an NZ cache outside the slots the index
 * names may differ from the snapshot. Geometry from the (valid) views; the
 * cache is a sequence of C0-element chunks, one per (block, group, row). */
static void check_cache_slots(const fz_buf *cb, const fz_buf *idx)
{
    const kvg_tensor *t = &cb->t;
    const int64_t c1 = t->shape[1], bs = t->shape[2];
    const size_t run = (size_t)t->shape[3] * kvg_dtype_size(t->dtype);
    const size_t chunks = cb->size / run;
    unsigned char *mask = (unsigned char *)calloc(chunks ? chunks : 1, 1);
    int64_t tok, g, slot;
    size_t k;

    if (mask == NULL)
        abort();
    for (tok = 0; fz_index_get(idx, tok, &slot); tok++) {
        if (slot < 0)
            continue;
        for (g = 0; g < c1; g++) {
            size_t at = (size_t)(((slot / bs) * c1 + g) * bs + slot % bs);
            FZ_CHECK(at < chunks, cb->name);
            mask[at] = 1;
        }
    }
    for (k = 0; k < chunks; k++)
        FZ_CHECK(mask[k] || memcmp(cb->mem + k * run, cb->snap + k * run,
                                   run) == 0,
                 "cache chunk outside the indexed slots changed");
    free(mask);
}

static void bind(kvg_qkv_rms_norm_rope_cache_args *a, const qbufs *q)
{
    a->qkv = view(q->qkv), a->q_gamma = view(q->qg);
    a->k_gamma = view(q->kg), a->cos = view(q->cos), a->sin = view(q->sin);
    a->index = view(q->index), a->q_out = view(q->q_out);
    a->k_cache = view(q->kc), a->v_cache = view(q->vc);
    a->k_scale = view(q->ks), a->v_scale = view(q->vs);
    a->k_offset = view(q->ko), a->v_offset = view(q->vo);
    a->q_out_before_quant = view(q->qb);
    a->k_out_before_quant = view(q->kb);
    a->v_out_before_quant = view(q->vb);
}

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_qkv_rms_norm_rope_cache_workspace_size(
        (const kvg_qkv_rms_norm_rope_cache_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_qkv_rms_norm_rope_cache(
        (const kvg_qkv_rms_norm_rope_cache_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_qkv_rms_norm_rope_cache_args *)a)->workspace = ws;
    ((kvg_qkv_rms_norm_rope_cache_args *)a)->workspace_size = size;
}

static void on_success(void *ctx)
{
    const qbufs *q = (const qbufs *)ctx;
    check_cache_slots(q->kc, q->index);
    check_cache_slots(q->vc, q->index);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in;
    fz_pool pool;
    qcfg c;
    qbufs q;
    kvg_qkv_rms_norm_rope_cache_args a;
    /* Longer than the lists, so a fuzzed length never reads past them. */
    int64_t qs[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int64_t hn[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    size_t qlen = 4, hlen = 3;
    int null_qs = 0, null_hn = 0;
    uint8_t vmode;
    static const char *const value_names[] = {"index", NULL};
    fz_op op;

    fz_in_init(&in, data, size);
    read_config(&in, &c);
    kvg_qkv_rms_norm_rope_cache_args_init(&a);
    read_attrs(&in, &a);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    qs[0] = c.b, qs[1] = c.s, qs[2] = c.n, qs[3] = D;
    hn[0] = c.nq, hn[1] = c.nk, hn[2] = c.nk;
    perturb_lists(&in, qs, &qlen, hn, &hlen, &null_qs, &null_hn);
    a.qkv_size = null_qs ? NULL : qs, a.qkv_size_len = qlen;
    a.head_nums = null_hn ? NULL : hn, a.head_nums_len = hlen;
    make_tensors(&pool, &in, &c, &q);
    make_index(&pool, &in, &c, q.index);
    bind(&a, &q);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &q, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
