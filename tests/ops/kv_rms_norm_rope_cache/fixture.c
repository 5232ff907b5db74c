/*
 * tests/ops/kv_rms_norm_rope_cache/fixture.c - KvRmsNormRopeCache in the
 * reliability fixture (tests/op_fixture.h): a seeded valid call, its
 * attribute and index-value mutations, and the dim, dtype and rank changes
 * that alone can leave the call valid (untied).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/kv_rms_norm_rope_cache.h"

typedef kvg_kv_rms_norm_rope_cache_args op_args;

/* ---- KvRmsNormRopeCache ----------------------------------------------- */

static void kv_qparam(opf *f, kvgt_rng *r, const char *name, int required,
                      int64_t d, int form, const kvg_tensor **slot)
{
    int64_t sh[2];
    if (form == 0)
        sh[0] = d,
        opf_add(f, r, name, OPF_INPUT, required, KVG_FP32, 1, sh, slot);
    else if (form == 1)
        sh[0] = 1, sh[1] = d,
        opf_add(f, r, name, OPF_INPUT, required, KVG_FP32, 2, sh, slot);
    else
        sh[0] = 1,
        opf_add(f, r, name, OPF_INPUT, required, KVG_FP32, 1, sh, slot);
}

/* V2's scales and offsets: [N, D]. */
static void kv_qparam_v2(opf *f, kvgt_rng *r, const char *name, int required,
                         int64_t nh, int64_t d, const kvg_tensor **slot)
{
    int64_t sh[2];
    sh[0] = nh, sh[1] = d;
    opf_add(f, r, name, OPF_INPUT, required, KVG_FP32, 2, sh, slot);
}

static void build_kv(opf *f, kvgt_rng *r)
{
    static const kvg_dtype q8[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    kvg_kv_rms_norm_rope_cache_args *a = (op_args *)f->args;
    const int a2 = opf_pick(r, 0, 5) == 0;
    const kvg_cache_mode mode =
        (kvg_cache_mode)opf_pick(r, a2 ? 1 : 0, 4);
    const int nz =
        mode == KVG_CACHE_PA_NZ || mode == KVG_CACHE_PA_BLK_NZ;
    const int blk = mode == KVG_CACHE_PA_BLK_BNSD ||
                    mode == KVG_CACHE_PA_BLK_NZ;
    const kvg_dtype t = opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const kvg_dtype q = a2 ? KVG_INT8 : q8[opf_pick(r, 0, 3)];
    const kvg_dtype kd = opf_pick(r, 0, 1) ? q : t,
                    cd = opf_pick(r, 0, 1) ? q : t;
    const int64_t b = opf_pick(r, 1, 2);
    const int64_t dv = a2   ? 512
                       : nz ? 32 * opf_pick(r, 1, 2)
                            : 2 * opf_pick(r, 4, 20);
    const int64_t dk = a2 ? 64 : nz ? 32 : 2 * opf_pick(r, 2, 8);
    const int64_t bs = kd != t || cd != t ? 32 : 16 * opf_pick(r, 1, 2);
    const int64_t s = blk ? opf_pick(r, 1, bs + 3) : opf_pick(r, 1, 3);
    const int out = (int)opf_pick(r, 0, 1),
              bcast = !a2 && opf_pick(r, 0, 3) == 0;
    /* V2 (the optional input v: N heads, kv [B, N, S, Dk], RoPE over the
     * first R normalised channels) for one seed in three, chosen without
     * a draw so that the V1 calls keep their random streams */
    const int v2 = !a2 && f->seed % 3 == 0;
    const int64_t nh = v2 ? 1 + (int64_t)(f->seed / 3 % 3) : 1;
    const int64_t dr = v2 ? 2 * ((dk / 2 + 1) / 2) : dk;
    int64_t sh[4], i, nb, nblocks, scache = 0, rows;
    opf_tensor *idx;

    kvg_kv_rms_norm_rope_cache_args_init(a);
    a->cache_mode = mode;
    a->profile = a2 ? KVG_KV_PROFILE_A2A3 : KVG_KV_PROFILE_ASCEND950;
    a->is_output_kv = out;
    a->epsilon = 1e-6;
    a->reduce_order = (kvg_reduce_order)opf_pick(r, 0, 4);
    if (v2 && a->reduce_order >= KVG_REDUCE_A2) /* V1's kernel folds */
        a->reduce_order = (kvg_reduce_order)(a->reduce_order - KVG_REDUCE_A2);
    a->quant_overflow = (kvg_overflow)opf_pick(r, 0, 2);
    sh[0] = b, sh[1] = nh, sh[2] = s, sh[3] = v2 ? dk : dv + dk;
    opf_add(f, r, "kv", OPF_INPUT, 1, t, 4, sh, &a->kv);
    if (v2) {
        sh[3] = dv;
        /* not "required": without v the call is V1 and refused with
         * 161002 (kv has N heads, D = Dk), not as a missing tensor */
        opf_add(f, r, "v", OPF_INPUT, 0, t, 4, sh, &a->v);
    }
    sh[0] = v2 ? dk : dv;
    opf_add(f, r, "gamma", OPF_INPUT, 1, t, 1, sh, &a->gamma);
    sh[0] = b, sh[1] = nh, sh[2] = bcast ? 1 : s, sh[3] = dr;
    opf_add(f, r, "cos", OPF_INPUT, 1, t, 4, sh, &a->cos);
    opf_add(f, r, "sin", OPF_INPUT, 1, t, 4, sh, &a->sin);
    nb = blk ? (s + bs - 1) / bs : s;
    f->g.entries = b * nb, f->g.per_batch = nb, f->g.bs = bs;
    if (mode == KVG_CACHE_NORM) {
        scache = s + opf_pick(r, 0, 2);
        sh[0] = b, sh[1] = s;
        idx =
            opf_add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 2, sh, &a->index);
        sh[0] = b + opf_pick(r, 0, 1), sh[1] = nh, sh[2] = scache, sh[3] = dk;
        opf_add(f, r, "k_cache", OPF_CACHE, 1, kd, 4, sh, &a->k_cache);
        sh[3] = dv;
        opf_add(f, r, "ckv_cache", OPF_CACHE, 1, cd, 4, sh, &a->ckv_cache);
        f->g.slots = scache;
        for (i = 0; i < b; i++) { /* distinct positions within a batch */
            int64_t j, perm[8];
            for (j = 0; j < scache; j++)
                perm[j] = j;
            for (j = 0; j < s; j++) {
                int64_t k = opf_pick(r, j, scache - 1), tmp = perm[j];
                perm[j] = perm[k], perm[k] = tmp;
                opf_index_set(idx, i * s + j,
                              opf_pick(r, 0, 4) ? perm[j] : -1);
            }
        }
    } else {
        rows = blk ? b * nb : (b * s + bs - 1) / bs;
        nblocks = rows + opf_pick(r, 0, 1);
        sh[0] = b * nb;
        idx =
            opf_add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 1, sh, &a->index);
        sh[0] = nblocks, sh[1] = bs, sh[2] = nh, sh[3] = dk;
        opf_add(f, r, "k_cache", OPF_CACHE, 1, kd, 4, sh, &a->k_cache);
        sh[3] = dv;
        opf_add(f, r, "ckv_cache", OPF_CACHE, 1, cd, 4, sh, &a->ckv_cache);
        f->g.slots = nblocks * bs;
        if (!blk) {
            opf_distinct_slots(r, idx, b * s, f->g.slots);
        } else { /* distinct blocks, any remainder */
            opf_distinct_slots(r, idx, b * nb, nblocks);
            for (i = 0; i < b * nb; i++) {
                const int64_t v = opf_index_get(idx, i);
                if (v >= 0)
                    opf_index_set(idx, i, v * bs + opf_pick(r, 0, bs - 1));
            }
        }
    }
    f->g.tokens = b * s;
    if (v2) {
        if (kd != t) {
            kv_qparam_v2(f, r, "k_rope_scale", 1, nh, dk, &a->k_rope_scale);
            if (opf_pick(r, 0, 1))
                kv_qparam_v2(f, r, "k_rope_offset", 0, nh, dk,
                             &a->k_rope_offset);
        }
        if (cd != t) {
            kv_qparam_v2(f, r, "c_kv_scale", 1, nh, dv, &a->c_kv_scale);
            if (opf_pick(r, 0, 1))
                kv_qparam_v2(f, r, "c_kv_offset", 0, nh, dv,
                             &a->c_kv_offset);
        }
    } else if (kd != t) {
        const int form = (int)opf_pick(r, 0, a2 ? 1 : 2);
        kv_qparam(f, r, "k_rope_scale", 1, dk, form, &a->k_rope_scale);
        if (!a2 && opf_pick(r, 0, 1))
            kv_qparam(f, r, "k_rope_offset", 0, dk, (int)opf_pick(r, 0, 2),
                      &a->k_rope_offset);
    }
    if (cd != t && !v2) {
        const int form = a2 && a->k_rope_scale != NULL
                             ? a->k_rope_scale->rank - 1
                             : (int)opf_pick(r, 0, a2 ? 1 : 2);
        kv_qparam(f, r, "c_kv_scale", 1, dv, form, &a->c_kv_scale);
        if (!a2 && opf_pick(r, 0, 1))
            kv_qparam(f, r, "c_kv_offset", 0, dv, (int)opf_pick(r, 0, 2),
                      &a->c_kv_offset);
    }
    if (out) {
        sh[0] = b, sh[1] = nh, sh[2] = s, sh[3] = dk;
        opf_add(f, r, "k_rope", OPF_OUTPUT, 1, t, 4, sh, &a->k_rope);
        sh[3] = dv;
        opf_add(f, r, "c_kv", OPF_OUTPUT, 1, t, 4, sh, &a->c_kv);
    }
}

/* The changes that alone can leave a valid KvRmsNormRopeCache call: a Norm
 * cache's Bcache only has to be >= Bkv; in PA_BLK_* with cos broadcast and
 * no outputs Skv only reaches the index through ceil(Skv / BlockSize); a
 * cache takes T or any 1-byte quant dtype (another one is a valid call,
 * or a missing-scale 161001); a [1] scale or offset with a trailing 1 is
 * [1, 1], also a scalar one. */
static int kv_untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    const kvg_kv_rms_norm_rope_cache_args *a = (const op_args *)f->args;
    const int cache = strcmp(x->name, "k_cache") == 0 ||
                      strcmp(x->name, "ckv_cache") == 0;
    if (k == OPF_UNTIED_DTYPE)
        return cache && kvg_dtype_is_quant8((kvg_dtype)v);
    if (k == OPF_UNTIED_RANK)
        return x->t.rank == 1 && x->t.shape[0] == 1 && v == 2;
    if (a->cache_mode == KVG_CACHE_NORM && k == 0 && cache &&
        v >= a->kv->shape[0])
        return 1;
    return strcmp(x->name, "kv") == 0 && k == 2 && !a->is_output_kv &&
           a->v == NULL &&
           a->cos->shape[2] == 1 &&
           (a->cache_mode == KVG_CACHE_PA_BLK_BNSD ||
            a->cache_mode == KVG_CACHE_PA_BLK_NZ);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                          size_t cap)
{
    kvg_kv_rms_norm_rope_cache_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 5);
    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: a->cache_mode = (kvg_cache_mode)(opf_pick(r, 0, 1) ? 5 : -1);
        break;
    case 1: a->profile = (kvg_kv_profile)(opf_pick(r, 0, 1) ? 2 : -1); break;
    case 2: a->reduce_order = (kvg_reduce_order)(opf_pick(r, 0, 1) ? 5 : -1);
        break;
    case 3: a->quant_overflow = (kvg_overflow)(opf_pick(r, 0, 1) ? 3 : -1);
        break;
    case 4: {
        const double bad[4] = {-1e-6, NAN, INFINITY, 1e39};
        a->epsilon = bad[opf_pick(r, 0, 3)];
        break;
    }
    default: /* outputs asked for but not given (turning them off is a
              * valid call: they are ignored) */
        if (a->is_output_kv)
            a->k_rope = NULL;
        a->is_output_kv = 1;
        *want = KVG_ERR_PARAM_NULLPTR;
        break;
    }
    (void)snprintf(what, cap, "kv attribute change %d", (int)c);
}

/* An out-of-range value, a duplicate target, or an inf / NaN element in a
 * floating input (refused, with its position, after the query). */
static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                          size_t cap)
{
    static const char *const floats[] = {"kv", "gamma", "cos", "sin",
                                         "k_rope_scale", "c_kv_scale",
                                         "k_rope_offset", "c_kv_offset",
                                         "v"};
    const opf_geo *g = &f->g;
    opf_tensor *ix = opf_find(f, "index");
    const int64_t c = opf_pick(r, 0, 2);
    int64_t pos[64], n = opf_live(ix, g->entries, pos);
    const kvg_cache_mode mode =
        ((const op_args *)f->args)->cache_mode;

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0) {
        const int64_t at = opf_pick(r, 0, g->entries - 1);
        opf_index_set(ix, at, g->slots + opf_pick(r, 0, 100) *
                                  (mode >= 3 ? g->bs : 1));
        (void)snprintf(what, cap, "index[%lld] out of range",
                       (long long)at);
    } else if (c == 1) {
        int64_t i, a = -1, b = -1, v;
        /* two live entries of one batch (Norm) or anywhere (PA) */
        for (i = 0; i < n && b < 0; i++) {
            int64_t j;
            for (j = i + 1; j < n; j++)
                if (mode != KVG_CACHE_NORM ||
                    pos[i] / g->per_batch == pos[j] / g->per_batch) {
                    a = pos[i], b = pos[j];
                    break;
                }
        }
        if (b < 0)
            return 0;
        v = opf_index_get(ix, a);
        if (mode >= 3) /* PA_BLK: the same block */
            v = v / g->bs * g->bs + (v % g->bs + 1) % g->bs;
        opf_index_set(ix, b, v);
        (void)snprintf(what, cap, "index[%lld] repeats "
                       "index[%lld]", (long long)b, (long long)a);
    } else {
        opf_tensor *x;
        int64_t at, es;
        do
            x = opf_find(f, floats[opf_pick(r, 0, 8)]);
        while (x == NULL);
        es = (int64_t)kvg_dtype_size(x->natural.dtype);
        at = opf_pick(r, 0, (int64_t)x->natural.nbytes / es - 1);
        {
            const float bad = opf_pick(r, 0, 1) ? NAN : -INFINITY;
            assert_int_equal(kvg_encode_f32(x->natural.dtype, bad,
                                            KVG_OVF_NONSAT,
                                            (unsigned char *)x->natural.data +
                                                at * es), KVG_OK);
        }
        (void)snprintf(what, cap, "%s[%lld] not finite",
                       x->name, (long long)at);
    }
    return 1;
}

static const opf_kind_desc kind_kv = {
    "kv_rms_norm_rope_cache", "kv_rms_norm_rope_cache", build_kv,
    mutate_attr, mutate_value, kv_untied};

const opf_kind_desc *const opf_kinds_kv_rms_norm_rope_cache[] = {&kind_kv,
                                                                 NULL};
