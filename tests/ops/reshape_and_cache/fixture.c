/*
 * tests/ops/reshape_and_cache/fixture.c - ReshapeAndCache in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls per token
 * (ND, NZ, key only) and per head (KVHEAD, KVHEAD_ROPE: opf_build_heads),
 * the attribute mutations and the index-value mutations of each.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/layout.h"
#include "kvgold/reshape_and_cache.h"

typedef kvg_reshape_and_cache_args op_args;

/* ---- ReshapeAndCache per token ---------------------------------------- */

static void build_tokens(opf *f, kvgt_rng *r, int nz)
{
    kvg_reshape_and_cache_args *a = (op_args *)f->args;
    const int64_t k = opf_pick(r, 0, 2);
    const kvg_dtype kd = k == 0 ? KVG_FP16 : k == 1 ? KVG_BF16 : KVG_INT8;
    const kvg_dtype vd = !nz ? kd : opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const int64_t tok = opf_pick(r, 1, 8), heads = opf_pick(r, 1, 3);
    const int64_t dk = 32 * opf_pick(r, 1, 2), dv = 16 * opf_pick(r, 1, 3);
    const int64_t bs = nz ? 16 * opf_pick(r, 1, 2) : opf_pick(r, 1, 8);
    const int64_t bn = (tok + bs - 1) / bs + opf_pick(r, 0, 1);
    int64_t sh[4];
    opf_tensor *slot;

    kvg_reshape_and_cache_args_init(a);
    a->cache_layout = nz ? KVG_LAYOUT_NZ : KVG_LAYOUT_ND;
    sh[0] = tok, sh[1] = heads, sh[2] = dk;
    opf_add(f, r, "key", OPF_INPUT, 1, kd, 3, sh, &a->key);
    sh[2] = dv;
    opf_add(f, r, "value", OPF_INPUT, 1, vd, 3, sh, &a->value);
    if (nz) {
        sh[0] = bn, sh[1] = heads * dk / kvg_c0_of(kd), sh[2] = bs;
        sh[3] = kvg_c0_of(kd);
        opf_add(f, r, "key_cache", OPF_CACHE, 1, kd, 4, sh, &a->key_cache);
        sh[1] = heads * dv / kvg_c0_of(vd), sh[3] = kvg_c0_of(vd);
        opf_add(f, r, "value_cache", OPF_CACHE, 1, vd, 4, sh, &a->value_cache);
    } else {
        sh[0] = bn, sh[1] = bs, sh[2] = heads, sh[3] = dk;
        opf_add(f, r, "key_cache", OPF_CACHE, 1, kd, 4, sh, &a->key_cache);
        sh[3] = dv;
        opf_add(f, r, "value_cache", OPF_CACHE, 1, vd, 4, sh, &a->value_cache);
    }
    sh[0] = tok;
    slot = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh,
               &a->slot_mapping);
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    opf_distinct_slots(r, slot, tok, f->g.slots);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                          size_t cap)
{
    kvg_reshape_and_cache_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 4);
    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: { /* another mode: its tensor set does not match */
        int m;
        do
            m = (int)opf_pick(r, 0, 2);
        while (m == (int)a->compress_type);
        /* a tensor the new mode needs is missing (NULL pointer), or one
         * it does not take is given (invalid) */
        if (((m == KVG_RAC_COMPRESS_KVHEAD &&
              a->compress_type == KVG_RAC_COMPRESS_UNDEFINED) ||
             m == KVG_RAC_COMPRESS_KVHEAD_ROPE) &&
            a->cache_layout != KVG_LAYOUT_NZ) /* NZ: the attribute check */
            *want = KVG_ERR_PARAM_NULLPTR;
        a->compress_type = (kvg_rac_compress)m;
        break;
    }
    case 1: a->compress_type = (kvg_rac_compress)(opf_pick(r, 0, 1) ? 3 : -1);
        break;
    case 2: a->cache_layout = opf_pick(r, 0, 1) ? KVG_LAYOUT_BNSD
                                            : (kvg_layout_kind)7;
        break;
    case 3: /* ND <-> NZ: the caches no longer have the layout's shape */
        a->cache_layout = a->cache_layout == KVG_LAYOUT_NZ ? KVG_LAYOUT_ND
                                                           : KVG_LAYOUT_NZ;
        break;
    default: /* a tensor the mode does not take */
        if (a->compress_type == KVG_RAC_COMPRESS_UNDEFINED)
            a->wins = a->slot_mapping;
        else if (a->compress_type == KVG_RAC_COMPRESS_KVHEAD)
            a->offset_index = a->slot_mapping;
        else
            a->cache_layout = KVG_LAYOUT_NZ;
        break;
    }
    (void)snprintf(what, cap, "compress %d layout %d (change "
                   "%d)", (int)a->compress_type, (int)a->cache_layout,
                   (int)c);
}

/* Key only (kv_cache_cfg K_CACHE_V_BYPASS): key, an ND key_cache of its
 * dtype with any D, slots. */
static void build_siso(opf *f, kvgt_rng *r)
{
    kvg_reshape_and_cache_args *a = (op_args *)f->args;
    const int64_t k = opf_pick(r, 0, 2);
    const kvg_dtype kd = k == 0 ? KVG_FP16 : k == 1 ? KVG_BF16 : KVG_INT8;
    const int64_t tok = opf_pick(r, 1, 8), heads = opf_pick(r, 1, 3);
    const int64_t d = opf_pick(r, 1, 40), bs = opf_pick(r, 1, 8);
    const int64_t bn = (tok + bs - 1) / bs + opf_pick(r, 0, 1);
    int64_t sh[4];
    opf_tensor *slot;

    kvg_reshape_and_cache_args_init(a);
    a->kv_cache_cfg = KVG_RAC_K_CACHE_V_BYPASS;
    sh[0] = tok, sh[1] = heads, sh[2] = d;
    opf_add(f, r, "key", OPF_INPUT, 1, kd, 3, sh, &a->key);
    sh[0] = bn, sh[1] = bs, sh[2] = heads, sh[3] = d;
    opf_add(f, r, "key_cache", OPF_CACHE, 1, kd, 4, sh, &a->key_cache);
    sh[0] = tok;
    slot = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh,
                   &a->slot_mapping);
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    opf_distinct_slots(r, slot, tok, f->g.slots);
}

static void mutate_siso_attr(opf *f, kvgt_rng *r, kvg_status *want,
                             char *what, size_t cap)
{
    kvg_reshape_and_cache_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 4);
    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: /* not a KvCacheCfg kvgold takes (2, NZ, is cache_layout) */
        a->kv_cache_cfg = (kvg_rac_kv_cache_cfg)(opf_pick(r, 0, 1) ? 2 : -1);
        break;
    case 1: /* key only takes no compression */
        a->compress_type = opf_pick(r, 0, 1) ? KVG_RAC_COMPRESS_KVHEAD
                                             : KVG_RAC_COMPRESS_KVHEAD_ROPE;
        break;
    case 2: /* nor an NZ cache */
        a->cache_layout = KVG_LAYOUT_NZ;
        break;
    case 3: /* K_CACHE_V_CACHE: value and value_cache are missing */
        a->kv_cache_cfg = KVG_RAC_K_CACHE_V_CACHE;
        *want = KVG_ERR_PARAM_NULLPTR;
        break;
    default: /* a tensor key only does not take */
        a->value = a->key;
        break;
    }
    (void)snprintf(what, cap, "key only: cfg %d compress %d layout %d "
                   "(change %d)", (int)a->kv_cache_cfg, (int)a->compress_type,
                   (int)a->cache_layout, (int)c);
}

/* Without a value cache nothing ties the key cache's block count and block
 * size: any positive value is a valid call (slots past the end are the
 * value check's 161002). */
static int siso_untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    (void)f;
    return strcmp(x->name, "key_cache") == 0 && (k == 0 || k == 1) && v > 0;
}

static void build_nd(opf *f, kvgt_rng *r) { build_tokens(f, r, 0); }
static void build_nz(opf *f, kvgt_rng *r) { build_tokens(f, r, 1); }

/* KVHEAD: a run is the window (no offset_index), caches may be int8;
 * KVHEAD_ROPE: an offset run keeps one token of its window. */
static void build_heads(opf *f, kvgt_rng *r, int rope)
{
    kvg_reshape_and_cache_args *a = (op_args *)f->args;
    opf_heads h;

    kvg_reshape_and_cache_args_init(a);
    a->compress_type = rope ? KVG_RAC_COMPRESS_KVHEAD_ROPE
                            : KVG_RAC_COMPRESS_KVHEAD;
    h.key = &a->key, h.value = &a->value, h.key_cache = &a->key_cache;
    h.value_cache = &a->value_cache, h.slot_mapping = &a->slot_mapping;
    h.wins = &a->wins, h.seq_len = &a->seq_len;
    h.offset_index = rope ? &a->offset_index : NULL;
    h.keep = 1;
    h.int8 = !rope;
    opf_build_heads(f, r, &h);
}

static void build_kvhead(opf *f, kvgt_rng *r) { build_heads(f, r, 0); }
static void build_kvhead_rope(opf *f, kvgt_rng *r) { build_heads(f, r, 1); }

static int mutate_slots(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    return opf_mutate_token_index(f, r, "slot_mapping", want, what, cap);
}

static const opf_kind_desc kind_nd = {
    "reshape_and_cache ND", "reshape_and_cache", build_nd, mutate_attr,
    mutate_slots, NULL};
static const opf_kind_desc kind_nz = {
    "reshape_and_cache NZ", "reshape_and_cache", build_nz, mutate_attr,
    mutate_slots, NULL};
static const opf_kind_desc kind_siso = {
    "reshape_and_cache key only", "reshape_and_cache", build_siso,
    mutate_siso_attr, mutate_slots, siso_untied};
static const opf_kind_desc kind_kvhead = {
    "reshape_and_cache KVHEAD", "reshape_and_cache", build_kvhead,
    mutate_attr, opf_mutate_heads, NULL};
static const opf_kind_desc kind_kvhead_rope = {
    "reshape_and_cache KVHEAD_ROPE", "reshape_and_cache", build_kvhead_rope,
    mutate_attr, opf_mutate_heads, NULL};

const opf_kind_desc *const opf_kinds_reshape_and_cache[] = {
    &kind_nd, &kind_nz, &kind_siso, &kind_kvhead, &kind_kvhead_rope, NULL};
