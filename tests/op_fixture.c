/*
 * tests/op_fixture.c - valid calls of every operator in guarded buffers
 * (see op_fixture.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/layout.h"

const char *const opf_kind_names[OPF_KINDS] = {
    "qkv_rms_norm_rope_cache", "reshape_and_cache ND",
    "reshape_and_cache NZ",    "reshape_and_cache KVHEAD",
    "reshape_and_cache KVHEAD_ROPE", "reshape_and_cache_omni",
    "kv_rms_norm_rope_cache"};

static int64_t pick(kvgt_rng *r, int64_t lo, int64_t hi)
{
    return kvgt_rng_range(r, lo, hi);
}

static int64_t prod(int rank, const int64_t *shape)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* A tensor of the natural shape in a guarded, poisoned allocation; inputs
 * get random non-zero finite values (index tensors are set by the caller). */
static opf_tensor *add(opf *f, kvgt_rng *r, const char *name, opf_role role,
                       int required, kvg_dtype dt, int rank,
                       const int64_t *shape, const kvg_tensor **slot)
{
    opf_tensor *x;
    size_t bytes = (size_t)prod(rank, shape) * kvg_dtype_size(dt), i;
    unsigned char *data;

    assert_true(f->n < OPF_MAX_TENSORS);
    x = &f->t[f->n++];
    memset(x, 0, sizeof *x);
    x->name = name;
    x->role = role;
    x->required = required;
    x->cap = 2 * bytes + 64;
    x->alloc = (unsigned char *)kvgt_alloc_poisoned(
        2 * OPF_GUARD + x->cap, f->seed * 131u + (uint64_t)f->n);
    data = x->alloc + OPF_GUARD;
    if (role == OPF_INPUT && dt != KVG_INT32 && dt != KVG_INT64) {
        const size_t es = kvg_dtype_size(dt);
        for (i = 0; i < bytes; i += es) {
            float u = kvgt_rng_unit(r);
            float v = (0.05f + 2.95f * fabsf(u)) * (u < 0 ? -1.0f : 1.0f);
            assert_int_equal(kvg_encode_f32(dt, v, KVG_OVF_DEFAULT, data + i),
                             KVG_OK);
        }
    }
    x->t = kvg_tensor_make(data, bytes, dt, rank, shape);
    x->natural = x->t;
    x->slot = slot;
    *slot = &x->t;
    return x;
}

int64_t opf_index_get(const opf_tensor *t, int64_t i)
{
    const unsigned char *p = (const unsigned char *)t->natural.data;
    if (t->natural.dtype == KVG_INT32) {
        int32_t v;
        memcpy(&v, p + (size_t)i * 4u, 4);
        return v;
    } else {
        int64_t v;
        memcpy(&v, p + (size_t)i * 8u, 8);
        return v;
    }
}

void opf_index_set(opf_tensor *t, int64_t i, int64_t v)
{
    unsigned char *p = (unsigned char *)t->natural.data;
    if (t->natural.dtype == KVG_INT32) {
        int32_t x = (int32_t)v;
        assert_true(v >= INT32_MIN && v <= INT32_MAX);
        memcpy(p + (size_t)i * 4u, &x, 4);
    } else {
        memcpy(p + (size_t)i * 8u, &v, 8);
    }
}

/* n distinct slots in [0, slots), a shuffled prefix; 1 in 4 set to -1. */
static void distinct_slots(kvgt_rng *r, opf_tensor *t, int64_t n,
                           int64_t slots)
{
    int64_t *perm = (int64_t *)malloc((size_t)slots * sizeof *perm), i;
    assert_non_null(perm);
    for (i = 0; i < slots; i++)
        perm[i] = i;
    for (i = 0; i < n; i++) {
        int64_t j = pick(r, i, slots - 1), tmp = perm[i];
        perm[i] = perm[j], perm[j] = tmp;
        opf_index_set(t, i, pick(r, 0, 3) == 0 ? -1 : perm[i]);
    }
    free(perm);
}

/* ---- QkvRmsNormRopeCache ---------------------------------------------- */

static void build_qkv(opf *f, kvgt_rng *r)
{
    kvg_qkv_rms_norm_rope_cache_args *a = &f->a.qkv;
    const kvg_dtype t = pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const kvg_dtype kt = pick(r, 0, 1) ? KVG_INT8 : t;
    const kvg_dtype vt = pick(r, 0, 1) ? KVG_INT8 : t;
    const int64_t b = pick(r, 1, 2), s = pick(r, 1, 3), nk = pick(r, 1, 2);
    const int64_t nq = nk * pick(r, 1, 2), n = nq + 2 * nk, d = 128;
    const int64_t bs = 32 * pick(r, 1, 2);
    const int64_t bn = (s + bs - 1) / bs * b + pick(r, 0, 1), tok = b * s;
    const int cos_b = s == 1 && pick(r, 0, 1);
    const int before = (int)pick(r, 0, 1);
    int64_t sh[4];
    opf_tensor *idx;

    kvg_qkv_rms_norm_rope_cache_args_init(a);
    sh[0] = tok, sh[1] = n * d;
    add(f, r, "qkv", OPF_INPUT, 1, t, 2, sh, &a->qkv);
    sh[0] = d;
    add(f, r, "q_gamma", OPF_INPUT, 1, t, 1, sh, &a->q_gamma);
    add(f, r, "k_gamma", OPF_INPUT, 1, t, 1, sh, &a->k_gamma);
    sh[0] = cos_b ? b : tok, sh[1] = d;
    add(f, r, "cos", OPF_INPUT, 1, t, 2, sh, &a->cos);
    add(f, r, "sin", OPF_INPUT, 1, t, 2, sh, &a->sin);
    sh[0] = tok;
    idx = add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 1, sh, &a->index);
    sh[0] = tok, sh[1] = nq * d;
    add(f, r, "q_out", OPF_OUTPUT, 1, t, 2, sh, &a->q_out);
    sh[0] = bn, sh[1] = nk * d / kvg_c0_of(kt), sh[2] = bs;
    sh[3] = kvg_c0_of(kt);
    add(f, r, "k_cache", OPF_CACHE, 1, kt, 4, sh, &a->k_cache);
    sh[1] = nk * d / kvg_c0_of(vt), sh[3] = kvg_c0_of(vt);
    add(f, r, "v_cache", OPF_CACHE, 1, vt, 4, sh, &a->v_cache);
    sh[0] = nk, sh[1] = d;
    if (kt == KVG_INT8) {
        add(f, r, "k_scale", OPF_INPUT, 1, KVG_FP32, 2, sh, &a->k_scale);
        if (pick(r, 0, 1))
            add(f, r, "k_offset", OPF_INPUT, 0, KVG_FP32, 2, sh,
                &a->k_offset);
    }
    if (vt == KVG_INT8) {
        add(f, r, "v_scale", OPF_INPUT, 1, KVG_FP32, 2, sh, &a->v_scale);
        if (pick(r, 0, 1))
            add(f, r, "v_offset", OPF_INPUT, 0, KVG_FP32, 2, sh,
                &a->v_offset);
    }
    if (before) {
        /* Dropping only q makes k/v "given without q" (invalid); dropping
         * k or v leaves q without them (invalid): all three required. */
        sh[0] = tok, sh[1] = nq * d;
        add(f, r, "q_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->q_out_before_quant);
        sh[1] = nk * d;
        add(f, r, "k_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->k_out_before_quant);
        add(f, r, "v_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->v_out_before_quant);
    }
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    distinct_slots(r, idx, tok, f->g.slots);
    f->qkv_size[0] = b, f->qkv_size[1] = s, f->qkv_size[2] = n;
    f->qkv_size[3] = d;
    f->head_nums[0] = nq, f->head_nums[1] = nk, f->head_nums[2] = nk;
    a->qkv_size = f->qkv_size, a->qkv_size_len = 4;
    a->head_nums = f->head_nums, a->head_nums_len = 3;
    a->epsilon = pick(r, 0, 1) ? 1e-6 : 1e-5;
    a->reduce_order = (kvg_reduce_order)pick(r, 0, 4);
    a->overflow = (kvg_overflow)pick(r, 0, 2);
}

/* ---- ReshapeAndCache per token ---------------------------------------- */

static void build_tokens(opf *f, kvgt_rng *r, int nz)
{
    kvg_reshape_and_cache_args *a = &f->a.rac;
    const int64_t k = pick(r, 0, 2);
    const kvg_dtype kd = k == 0 ? KVG_FP16 : k == 1 ? KVG_BF16 : KVG_INT8;
    const kvg_dtype vd = !nz ? kd : pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const int64_t tok = pick(r, 1, 8), heads = pick(r, 1, 3);
    const int64_t dk = 32 * pick(r, 1, 2), dv = 16 * pick(r, 1, 3);
    const int64_t bs = nz ? 16 * pick(r, 1, 2) : pick(r, 1, 8);
    const int64_t bn = (tok + bs - 1) / bs + pick(r, 0, 1);
    int64_t sh[4];
    opf_tensor *slot;

    kvg_reshape_and_cache_args_init(a);
    a->cache_layout = nz ? KVG_LAYOUT_NZ : KVG_LAYOUT_ND;
    sh[0] = tok, sh[1] = heads, sh[2] = dk;
    add(f, r, "key", OPF_INPUT, 1, kd, 3, sh, &a->key);
    sh[2] = dv;
    add(f, r, "value", OPF_INPUT, 1, vd, 3, sh, &a->value);
    if (nz) {
        sh[0] = bn, sh[1] = heads * dk / kvg_c0_of(kd), sh[2] = bs;
        sh[3] = kvg_c0_of(kd);
        add(f, r, "key_cache", OPF_CACHE, 1, kd, 4, sh, &a->key_cache);
        sh[1] = heads * dv / kvg_c0_of(vd), sh[3] = kvg_c0_of(vd);
        add(f, r, "value_cache", OPF_CACHE, 1, vd, 4, sh, &a->value_cache);
    } else {
        sh[0] = bn, sh[1] = bs, sh[2] = heads, sh[3] = dk;
        add(f, r, "key_cache", OPF_CACHE, 1, kd, 4, sh, &a->key_cache);
        sh[3] = dv;
        add(f, r, "value_cache", OPF_CACHE, 1, vd, 4, sh, &a->value_cache);
    }
    sh[0] = tok;
    slot = add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh,
               &a->slot_mapping);
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    distinct_slots(r, slot, tok, f->g.slots);
}

/* ---- per-head runs (Omni, KVHEAD, KVHEAD_ROPE) ------------------------ */

static int64_t run_count(opf_kind kind, int64_t L, int64_t w, int64_t o)
{
    if (kind == OPF_RAC_KVHEAD)
        return w;
    if (o == -1 || w == 0)
        return L;
    return kind == OPF_OMNI ? L - w : L - w + 1;
}

static void build_heads(opf *f, kvgt_rng *r)
{
    const opf_kind kind = f->kind;
    const kvg_dtype dt = kind == OPF_RAC_KVHEAD && pick(r, 0, 2) == 2
                             ? KVG_INT8
                             : pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const int64_t batch = pick(r, 1, 3), heads = pick(r, 1, 3);
    const int64_t dim = 32 * pick(r, 1, 2), bs = 4 * pick(r, 1, 2);
    opf_geo *g = &f->g;
    int64_t tok = 0, at = 0, i, sh[4], bn;
    const kvg_tensor **key, **value, **kc, **vc, **sm, **wins, **seq, **off;
    opf_tensor *ts, *tw, *tl, *to = NULL;

    if (kind == OPF_OMNI) {
        kvg_reshape_and_cache_omni_args *a = &f->a.omni;
        kvg_reshape_and_cache_omni_args_init(a);
        key = &a->key, value = &a->value, kc = &a->key_cache;
        vc = &a->value_cache, sm = &a->slot_mapping, wins = &a->wins;
        seq = &a->seq_len, off = &a->offset_index;
    } else {
        kvg_reshape_and_cache_args *a = &f->a.rac;
        kvg_reshape_and_cache_args_init(a);
        a->compress_type = kind == OPF_RAC_KVHEAD
                               ? KVG_RAC_COMPRESS_KVHEAD
                               : KVG_RAC_COMPRESS_KVHEAD_ROPE;
        key = &a->key, value = &a->value, kc = &a->key_cache;
        vc = &a->value_cache, sm = &a->slot_mapping, wins = &a->wins;
        seq = &a->seq_len, off = &a->offset_index;
    }
    g->batch = batch, g->heads = heads, g->runs = batch * heads;
    for (i = 0; i < batch; i++)
        tok += g->L[i] = pick(r, 1, 8);
    tok += pick(r, 0, 1);
    for (i = 0; i < g->runs; i++) {
        const int64_t L = g->L[i / heads];
        g->w[i] = pick(r, 0, L);
        g->o[i] = kind == OPF_RAC_KVHEAD ? -1
                  : pick(r, 0, 3) == 0 ? -1 : pick(r, 0, L - g->w[i]);
        g->count[i] = run_count(kind, L, g->w[i], g->o[i]);
        at += pick(r, 0, 2);
        g->s[i] = pick(r, 0, 4) == 0 ? -1 : at;
        if (g->s[i] >= 0)
            at += g->count[i];
    }
    bn = at / bs + 1;
    g->tokens = tok;
    g->slots = bn * bs;
    sh[0] = tok, sh[1] = heads, sh[2] = dim;
    add(f, r, "key", OPF_INPUT, 1, dt, 3, sh, key);
    add(f, r, "value", OPF_INPUT, 1, dt, 3, sh, value);
    sh[0] = bn, sh[1] = bs, sh[2] = 1, sh[3] = dim;
    add(f, r, "key_cache", OPF_CACHE, 1, dt, 4, sh, kc);
    add(f, r, "value_cache", OPF_CACHE, 1, dt, 4, sh, vc);
    sh[0] = g->runs;
    ts = add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh, sm);
    tw = add(f, r, "wins", OPF_INPUT, 1, KVG_INT32, 1, sh, wins);
    if (kind != OPF_RAC_KVHEAD)
        to = add(f, r, "offset_index", OPF_INPUT, 1, KVG_INT32, 1, sh, off);
    sh[0] = batch;
    tl = add(f, r, "seq_len", OPF_INPUT, 1, KVG_INT32, 1, sh, seq);
    for (i = 0; i < g->runs; i++) {
        opf_index_set(ts, i, g->s[i]);
        opf_index_set(tw, i, g->w[i]);
        if (to != NULL)
            opf_index_set(to, i, g->o[i]);
    }
    for (i = 0; i < batch; i++)
        opf_index_set(tl, i, g->L[i]);
}

/* ---- KvRmsNormRopeCache ----------------------------------------------- */

static void kv_qparam(opf *f, kvgt_rng *r, const char *name, int required,
                      int64_t d, int form, const kvg_tensor **slot)
{
    int64_t sh[2];
    if (form == 0)
        sh[0] = d, add(f, r, name, OPF_INPUT, required, KVG_FP32, 1, sh, slot);
    else if (form == 1)
        sh[0] = 1, sh[1] = d,
        add(f, r, name, OPF_INPUT, required, KVG_FP32, 2, sh, slot);
    else
        sh[0] = 1, add(f, r, name, OPF_INPUT, required, KVG_FP32, 1, sh, slot);
}

static void build_kv(opf *f, kvgt_rng *r)
{
    static const kvg_dtype q8[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    kvg_kv_rms_norm_rope_cache_args *a = &f->a.kv;
    const int a2 = pick(r, 0, 5) == 0;
    const kvg_kv_cache_mode mode = (kvg_kv_cache_mode)pick(r, a2 ? 1 : 0, 4);
    const int nz = mode == KVG_KV_CACHE_PA_NZ || mode == KVG_KV_CACHE_PA_BLK_NZ;
    const int blk = mode == KVG_KV_CACHE_PA_BLK_BNSD ||
                    mode == KVG_KV_CACHE_PA_BLK_NZ;
    const kvg_dtype t = pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const kvg_dtype q = a2 ? KVG_INT8 : q8[pick(r, 0, 3)];
    const kvg_dtype kd = pick(r, 0, 1) ? q : t, cd = pick(r, 0, 1) ? q : t;
    const int64_t b = pick(r, 1, 2);
    const int64_t dv = a2 ? 512 : nz ? 32 * pick(r, 1, 2) : 2 * pick(r, 4, 20);
    const int64_t dk = a2 ? 64 : nz ? 32 : 2 * pick(r, 2, 8);
    const int64_t bs = kd != t || cd != t ? 32 : 16 * pick(r, 1, 2);
    const int64_t s = blk ? pick(r, 1, bs + 3) : pick(r, 1, 3);
    const int out = (int)pick(r, 0, 1), bcast = !a2 && pick(r, 0, 3) == 0;
    int64_t sh[4], i, nb, nblocks, scache = 0, rows;
    opf_tensor *idx;

    kvg_kv_rms_norm_rope_cache_args_init(a);
    a->cache_mode = mode;
    a->profile = a2 ? KVG_KV_PROFILE_A2A3 : KVG_KV_PROFILE_ASCEND950;
    a->is_output_kv = out;
    a->epsilon = 1e-6;
    a->reduce_order = (kvg_reduce_order)pick(r, 0, 4);
    a->quant_overflow = (kvg_overflow)pick(r, 0, 2);
    sh[0] = b, sh[1] = 1, sh[2] = s, sh[3] = dv + dk;
    add(f, r, "kv", OPF_INPUT, 1, t, 4, sh, &a->kv);
    sh[0] = dv;
    add(f, r, "gamma", OPF_INPUT, 1, t, 1, sh, &a->gamma);
    sh[0] = b, sh[1] = 1, sh[2] = bcast ? 1 : s, sh[3] = dk;
    add(f, r, "cos", OPF_INPUT, 1, t, 4, sh, &a->cos);
    add(f, r, "sin", OPF_INPUT, 1, t, 4, sh, &a->sin);
    nb = blk ? (s + bs - 1) / bs : s;
    f->g.entries = b * nb, f->g.per_batch = nb, f->g.bs = bs;
    if (mode == KVG_KV_CACHE_NORM) {
        scache = s + pick(r, 0, 2);
        sh[0] = b, sh[1] = s;
        idx = add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 2, sh, &a->index);
        sh[0] = b + pick(r, 0, 1), sh[1] = 1, sh[2] = scache, sh[3] = dk;
        add(f, r, "k_cache", OPF_CACHE, 1, kd, 4, sh, &a->k_cache);
        sh[3] = dv;
        add(f, r, "ckv_cache", OPF_CACHE, 1, cd, 4, sh, &a->ckv_cache);
        f->g.slots = scache;
        for (i = 0; i < b; i++) { /* distinct positions within a batch */
            int64_t j, perm[8];
            for (j = 0; j < scache; j++)
                perm[j] = j;
            for (j = 0; j < s; j++) {
                int64_t k = pick(r, j, scache - 1), tmp = perm[j];
                perm[j] = perm[k], perm[k] = tmp;
                opf_index_set(idx, i * s + j, pick(r, 0, 4) ? perm[j] : -1);
            }
        }
    } else {
        rows = blk ? b * nb : (b * s + bs - 1) / bs;
        nblocks = rows + pick(r, 0, 1);
        sh[0] = b * nb;
        idx = add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 1, sh, &a->index);
        sh[0] = nblocks, sh[1] = bs, sh[2] = 1, sh[3] = dk;
        add(f, r, "k_cache", OPF_CACHE, 1, kd, 4, sh, &a->k_cache);
        sh[3] = dv;
        add(f, r, "ckv_cache", OPF_CACHE, 1, cd, 4, sh, &a->ckv_cache);
        f->g.slots = nblocks * bs;
        if (!blk) {
            distinct_slots(r, idx, b * s, f->g.slots);
        } else { /* distinct blocks, any remainder */
            distinct_slots(r, idx, b * nb, nblocks);
            for (i = 0; i < b * nb; i++) {
                const int64_t v = opf_index_get(idx, i);
                if (v >= 0)
                    opf_index_set(idx, i, v * bs + pick(r, 0, bs - 1));
            }
        }
    }
    f->g.tokens = b * s;
    if (kd != t) {
        const int form = (int)pick(r, 0, a2 ? 1 : 2);
        kv_qparam(f, r, "k_rope_scale", 1, dk, form, &a->k_rope_scale);
        if (!a2 && pick(r, 0, 1))
            kv_qparam(f, r, "k_rope_offset", 0, dk, (int)pick(r, 0, 2),
                      &a->k_rope_offset);
    }
    if (cd != t) {
        const int form = a2 && a->k_rope_scale != NULL
                             ? a->k_rope_scale->rank - 1
                             : (int)pick(r, 0, a2 ? 1 : 2);
        kv_qparam(f, r, "c_kv_scale", 1, dv, form, &a->c_kv_scale);
        if (!a2 && pick(r, 0, 1))
            kv_qparam(f, r, "c_kv_offset", 0, dv, (int)pick(r, 0, 2),
                      &a->c_kv_offset);
    }
    if (out) {
        sh[0] = b, sh[1] = 1, sh[2] = s, sh[3] = dk;
        add(f, r, "k_rope", OPF_OUTPUT, 1, t, 4, sh, &a->k_rope);
        sh[3] = dv;
        add(f, r, "c_kv", OPF_OUTPUT, 1, t, 4, sh, &a->c_kv);
    }
}

/* ---- entry points ----------------------------------------------------- */

kvg_status opf_query(opf *f, size_t *bytes, kvg_diag *diag)
{
    switch (f->kind) {
    case OPF_KV:
        return kvg_kv_rms_norm_rope_cache_workspace_size(&f->a.kv, bytes,
                                                         diag);
    case OPF_QKV:
        return kvg_qkv_rms_norm_rope_cache_workspace_size(&f->a.qkv, bytes,
                                                          diag);
    case OPF_OMNI:
        return kvg_reshape_and_cache_omni_workspace_size(&f->a.omni, bytes,
                                                         diag);
    default:
        return kvg_reshape_and_cache_workspace_size(&f->a.rac, bytes, diag);
    }
}

kvg_status opf_call(opf *f, kvg_diag *diag)
{
    switch (f->kind) {
    case OPF_KV:
        return kvg_kv_rms_norm_rope_cache(&f->a.kv, diag);
    case OPF_QKV:
        return kvg_qkv_rms_norm_rope_cache(&f->a.qkv, diag);
    case OPF_OMNI:
        return kvg_reshape_and_cache_omni(&f->a.omni, diag);
    default:
        return kvg_reshape_and_cache(&f->a.rac, diag);
    }
}

kvg_status opf_call_null_args(opf *f, kvg_diag *diag)
{
    switch (f->kind) {
    case OPF_KV:
        return kvg_kv_rms_norm_rope_cache(NULL, diag);
    case OPF_QKV:
        return kvg_qkv_rms_norm_rope_cache(NULL, diag);
    case OPF_OMNI:
        return kvg_reshape_and_cache_omni(NULL, diag);
    default:
        return kvg_reshape_and_cache(NULL, diag);
    }
}

void opf_set_workspace(opf *f, void *ws, size_t size)
{
    switch (f->kind) {
    case OPF_KV:
        f->a.kv.workspace = ws, f->a.kv.workspace_size = size;
        break;
    case OPF_QKV:
        f->a.qkv.workspace = ws, f->a.qkv.workspace_size = size;
        break;
    case OPF_OMNI:
        f->a.omni.workspace = ws, f->a.omni.workspace_size = size;
        break;
    default:
        f->a.rac.workspace = ws, f->a.rac.workspace_size = size;
        break;
    }
}

void *opf_workspace(opf *f)
{
    return f->ws + OPF_GUARD;
}

void opf_init(opf *f, opf_kind kind, uint64_t seed)
{
    kvgt_rng r;
    kvg_diag d;
    kvg_status st;
    int i;

    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->seed = seed;
    kvgt_rng_seed(&r, seed * 7919u + (uint64_t)kind);
    switch (kind) {
    case OPF_QKV: build_qkv(f, &r); break;
    case OPF_KV: build_kv(f, &r); break;
    case OPF_RAC_ND: build_tokens(f, &r, 0); break;
    case OPF_RAC_NZ: build_tokens(f, &r, 1); break;
    default: build_heads(f, &r); break;
    }
    st = opf_query(f, &f->need, &d);
    if (st != KVG_OK)
        fail_msg("%s seed %llu: fixture query failed: %s",
                 opf_kind_names[kind], (unsigned long long)seed, d.message);
    f->ws = (unsigned char *)kvgt_alloc_poisoned(f->need + 2 * OPF_GUARD,
                                                 seed + 991u);
    opf_set_workspace(f, f->ws + OPF_GUARD, f->need);
    f->a_nat = f->a;
    memcpy(f->qkv_size_nat, f->qkv_size, sizeof f->qkv_size);
    memcpy(f->head_nums_nat, f->head_nums, sizeof f->head_nums);
    opf_snapshot(f);
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        x->pristine = (unsigned char *)malloc(x->cap + 2 * OPF_GUARD);
        assert_non_null(x->pristine);
        memcpy(x->pristine, x->image, x->cap + 2 * OPF_GUARD);
    }
    f->ws_pristine = (unsigned char *)malloc(f->need + 2 * OPF_GUARD);
    assert_non_null(f->ws_pristine);
    memcpy(f->ws_pristine, f->ws_image, f->need + 2 * OPF_GUARD);
}

void opf_free(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        free(f->t[i].alloc);
        free(f->t[i].image);
        free(f->t[i].pristine);
    }
    free(f->ws);
    free(f->ws_image);
    free(f->ws_pristine);
    f->n = 0;
}

opf_tensor *opf_find(opf *f, const char *name)
{
    int i;
    for (i = 0; i < f->n; i++)
        if (strcmp(f->t[i].name, name) == 0)
            return &f->t[i];
    return NULL;
}

/* ---- snapshots and guards --------------------------------------------- */

static size_t total(const opf_tensor *x)
{
    return x->cap + 2 * OPF_GUARD;
}

void opf_snapshot(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        free(x->image);
        x->image = (unsigned char *)malloc(total(x));
        assert_non_null(x->image);
        memcpy(x->image, x->alloc, total(x));
    }
    free(f->ws_image);
    f->ws_image = (unsigned char *)malloc(f->need + 2 * OPF_GUARD);
    assert_non_null(f->ws_image);
    memcpy(f->ws_image, f->ws, f->need + 2 * OPF_GUARD);
}

static void region(const unsigned char *got, const unsigned char *want,
                   size_t from, size_t to, const char *what, const char *name,
                   const char *part)
{
    char label[256];
    if (to <= from || memcmp(got + from, want + from, to - from) == 0)
        return;
    (void)snprintf(label, sizeof label, "%s: %s (%s)", what, name, part);
    kvgt_assert_bytes_equal(got + from, want + from, to - from, label);
}

void opf_assert_unchanged(const opf *f, const char *what)
{
    int i;
    for (i = 0; i < f->n; i++) {
        const opf_tensor *x = &f->t[i];
        region(x->alloc, x->image, 0, total(x), what, x->name,
               "guards, data and slack");
    }
    region(f->ws, f->ws_image, 0, OPF_GUARD, what, "workspace", "front guard");
    region(f->ws, f->ws_image, OPF_GUARD + f->need, f->need + 2 * OPF_GUARD,
           what, "workspace", "back guard");
}

void opf_assert_guards(const opf *f, const char *what)
{
    int i;
    for (i = 0; i < f->n; i++) {
        const opf_tensor *x = &f->t[i];
        const size_t end = OPF_GUARD + x->natural.nbytes;
        if (x->role == OPF_INPUT) {
            region(x->alloc, x->image, 0, total(x), what, x->name,
                   "input written");
            continue;
        }
        region(x->alloc, x->image, 0, OPF_GUARD, what, x->name,
               "front guard");
        region(x->alloc, x->image, end, total(x), what, x->name,
               "slack and back guard");
    }
    region(f->ws, f->ws_image, 0, OPF_GUARD, what, "workspace", "front guard");
    region(f->ws, f->ws_image, OPF_GUARD + f->need, f->need + 2 * OPF_GUARD,
           what, "workspace", "back guard");
}

void opf_restore(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        memcpy(x->alloc, x->pristine, total(x));
        x->t = x->natural;
    }
    memcpy(f->ws, f->ws_pristine, f->need + 2 * OPF_GUARD);
    f->a = f->a_nat;
    memcpy(f->qkv_size, f->qkv_size_nat, sizeof f->qkv_size);
    memcpy(f->head_nums, f->head_nums_nat, sizeof f->head_nums);
}
