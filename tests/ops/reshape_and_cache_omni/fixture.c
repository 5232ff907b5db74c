/*
 * tests/ops/reshape_and_cache_omni/fixture.c - per-head runs in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls of
 * ReshapeAndCacheOmni and of ReshapeAndCache's KVHEAD / KVHEAD_ROPE, which
 * share the run engine.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/reshape_and_cache.h"
#include "kvgold/reshape_and_cache_omni.h"

typedef kvg_reshape_and_cache_omni_args omni_args;
typedef kvg_reshape_and_cache_args rac_args;

/* ---- per-head runs (Omni, KVHEAD, KVHEAD_ROPE) ------------------------ */

static int64_t run_count(opf_kind kind, int64_t L, int64_t w, int64_t o)
{
    if (kind == OPF_RAC_KVHEAD)
        return w;
    if (o == -1 || w == 0)
        return L;
    return kind == OPF_OMNI ? L - w : L - w + 1;
}

void opf_build_heads(opf *f, kvgt_rng *r)
{
    const opf_kind kind = f->kind;
    const kvg_dtype dt = kind == OPF_RAC_KVHEAD && opf_pick(r, 0, 2) == 2
                             ? KVG_INT8
                             : opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const int64_t batch = opf_pick(r, 1, 3), heads = opf_pick(r, 1, 3);
    const int64_t dim = 32 * opf_pick(r, 1, 2), bs = 4 * opf_pick(r, 1, 2);
    opf_geo *g = &f->g;
    int64_t tok = 0, at = 0, i, sh[4], bn;
    const kvg_tensor **key, **value, **kc, **vc, **sm, **wins, **seq, **off;
    opf_tensor *ts, *tw, *tl, *to = NULL;

    if (kind == OPF_OMNI) {
        kvg_reshape_and_cache_omni_args *a = (omni_args *)f->args;
        kvg_reshape_and_cache_omni_args_init(a);
        key = &a->key, value = &a->value, kc = &a->key_cache;
        vc = &a->value_cache, sm = &a->slot_mapping, wins = &a->wins;
        seq = &a->seq_len, off = &a->offset_index;
    } else {
        kvg_reshape_and_cache_args *a = (rac_args *)f->args;
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
        tok += g->L[i] = opf_pick(r, 1, 8);
    tok += opf_pick(r, 0, 1);
    for (i = 0; i < g->runs; i++) {
        const int64_t L = g->L[i / heads];
        g->w[i] = opf_pick(r, 0, L);
        g->o[i] = kind == OPF_RAC_KVHEAD ? -1
                  : opf_pick(r, 0, 3) == 0 ? -1 : opf_pick(r, 0, L - g->w[i]);
        g->count[i] = run_count(kind, L, g->w[i], g->o[i]);
        at += opf_pick(r, 0, 2);
        g->s[i] = opf_pick(r, 0, 4) == 0 ? -1 : at;
        if (g->s[i] >= 0)
            at += g->count[i];
    }
    bn = at / bs + 1;
    g->tokens = tok;
    g->slots = bn * bs;
    sh[0] = tok, sh[1] = heads, sh[2] = dim;
    opf_add(f, r, "key", OPF_INPUT, 1, dt, 3, sh, key);
    opf_add(f, r, "value", OPF_INPUT, 1, dt, 3, sh, value);
    sh[0] = bn, sh[1] = bs, sh[2] = 1, sh[3] = dim;
    opf_add(f, r, "key_cache", OPF_CACHE, 1, dt, 4, sh, kc);
    opf_add(f, r, "value_cache", OPF_CACHE, 1, dt, 4, sh, vc);
    sh[0] = g->runs;
    ts = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh, sm);
    tw = opf_add(f, r, "wins", OPF_INPUT, 1, KVG_INT32, 1, sh, wins);
    if (kind != OPF_RAC_KVHEAD)
        to = opf_add(f, r, "offset_index", OPF_INPUT, 1, KVG_INT32, 1, sh, off);
    sh[0] = batch;
    tl = opf_add(f, r, "seq_len", OPF_INPUT, 1, KVG_INT32, 1, sh, seq);
    for (i = 0; i < g->runs; i++) {
        opf_index_set(ts, i, g->s[i]);
        opf_index_set(tw, i, g->w[i]);
        if (to != NULL)
            opf_index_set(to, i, g->o[i]);
    }
    for (i = 0; i < batch; i++)
        opf_index_set(tl, i, g->L[i]);
}

const opf_kind_desc opf_kind_omni = {"reshape_and_cache_omni",
                                     "reshape_and_cache_omni",
                                     opf_build_heads, NULL, NULL, NULL};
