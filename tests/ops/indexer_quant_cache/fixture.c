/*
 * tests/ops/indexer_quant_cache/fixture.c - IndexerQuantCache in the
 * reliability fixture (tests/op_fixture.h): one kind per quant_mode,
 * seeded valid calls over fp16 / bf16 x of rank 2 or 3, int32 / int64
 * slots, the mode's cache dtypes, caches whose rows are exactly what the
 * kernel writes or wider (the row lengths from the tiling's formulas,
 * tiling_arch35.cpp:275, 214-218, not from layout.c), its attribute
 * mutations and the values it refuses.
 *
 * Untied changes: x fp16 <-> bf16 (both taken); the cache dtypes a mode
 * takes either of (modes 0 / 1: fp8_e4m3fn / fp8_e5m2; mode 2: uint8 /
 * hif8); any last dim of cache or cache_scale at least what the kernel
 * writes (the bytes past it keep their contents).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/indexer_quant_cache.h"

typedef kvg_indexer_quant_cache_args op_args;

static kvg_dtype cache_dtype(int64_t mode, kvgt_rng *r)
{
    const int pick = (int)opf_pick(r, 0, 1);

    switch (mode) {
    case 2:
        return pick ? KVG_UINT8 : KVG_HIF8;
    case 3:
        return KVG_FP4_E2M1;
    default:
        return pick ? KVG_FP8_E4M3FN : KVG_FP8_E5M2;
    }
}

static void build_mode(opf *f, kvgt_rng *r, int64_t mode)
{
    op_args *a = (op_args *)f->args;
    const kvg_dtype xdt = opf_pick(r, 0, 1) ? KVG_FP16 : KVG_BF16;
    const kvg_dtype sdt = opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64;
    const int mx = mode == 0 || mode == 3;
    int64_t d, sh[4], blocks, bs, tokens, head, scol;
    opf_tensor *s;

    kvg_indexer_quant_cache_args_init(a);
    a->quant_mode = mode;
    a->round_scale = (int)opf_pick(r, 0, 1);
    if (mode == 2)
        a->x_scale = 0.25 * (double)opf_pick(r, 1, 16);
    d = 32 * opf_pick(r, 1, 6);
    bs = (int64_t)1 << opf_pick(r, 0, 3);
    blocks = opf_pick(r, 1, 4);
    tokens = 2 * opf_pick(r, 1, 6);
    if (tokens > blocks * bs)
        tokens = blocks * bs - (blocks * bs) % 2;
    if (tokens < 2)
        tokens = 1;
    if (tokens % 2 == 0 && opf_pick(r, 0, 1)) {
        sh[0] = 2, sh[1] = tokens / 2, sh[2] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, xdt, 3, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, sdt, 2, sh,
                    &a->slot_mapping);
    } else {
        sh[0] = tokens, sh[1] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, xdt, 2, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, sdt, 1, sh,
                    &a->slot_mapping);
    }
    f->g.tokens = tokens;
    f->g.slots = blocks * bs;
    f->g.bs = bs;
    opf_distinct_slots(r, s, tokens, blocks * bs);
    /* cacheCol = d (mode 3: d / 2 bytes), scaleCol = ceil(d / 32) or 1 */
    head = (mode == 3 ? d / 2 : d) + (opf_pick(r, 0, 2) == 0 ? 16 : 0);
    scol = (mx ? d / 32 : 1) + opf_pick(r, 0, 1);
    sh[0] = blocks, sh[1] = bs, sh[2] = 1, sh[3] = head;
    opf_add(f, r, "cache", OPF_CACHE, 1, cache_dtype(mode, r), 4, sh,
            &a->cache);
    sh[3] = scol;
    opf_add(f, r, "cache_scale", OPF_CACHE, 1, mx ? KVG_E8M0 : KVG_FP32, 4,
            sh, &a->cache_scale);
}

static void build_m0(opf *f, kvgt_rng *r) { build_mode(f, r, 0); }
static void build_m1(opf *f, kvgt_rng *r) { build_mode(f, r, 1); }
static void build_m2(opf *f, kvgt_rng *r) { build_mode(f, r, 2); }
static void build_m3(opf *f, kvgt_rng *r) { build_mode(f, r, 3); }

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    int64_t c = opf_pick(r, 0, 2);

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 2 && a->quant_mode != 2)
        c = 0; /* x_scale is read in mode 2 only */
    switch (c) {
    case 0: a->quant_mode = opf_pick(r, 0, 1) ? 4 : -1; break;
    case 1: a->round_scale = 2; break;
    default: a->x_scale = 1e39; break;
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

/* x's element (t, i) made +Inf (fp16 0x7C00, bf16 0x7F80). */
static void poison_x(opf *f, int64_t t, int64_t i)
{
    opf_tensor *x = opf_find(f, "x");
    const int64_t d = x->natural.shape[x->natural.rank - 1];
    unsigned char *e = (unsigned char *)x->natural.data + (t * d + i) * 2;

    e[0] = 0x80 * (x->natural.dtype == KVG_BF16);
    e[1] = x->natural.dtype == KVG_BF16 ? 0x7F : 0x7C;
}

static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    opf_tensor *s = opf_find(f, "slot_mapping");
    opf_tensor *x = opf_find(f, "x");
    int64_t pos[64], n = opf_live(s, f->g.tokens, pos), t;
    const int64_t c = opf_pick(r, 0, 2);

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0 && n >= 1) {
        t = pos[opf_pick(r, 0, n - 1)];
        poison_x(f, t, opf_pick(r, 0, x->natural.shape[x->natural.rank - 1] -
                                          1));
        (void)snprintf(what, cap, "x token %lld: +Inf", (long long)t);
        return 1;
    }
    if (c == 1) {
        t = opf_pick(r, 0, f->g.tokens - 1);
        opf_index_set(s, t, -2);
        (void)snprintf(what, cap, "slot_mapping[%lld] = -2", (long long)t);
        return 1;
    }
    return opf_mutate_token_index(f, r, "slot_mapping", want, what, cap);
}

/* What the kernel writes of a row (tiling_arch35.cpp:214-218, 275). */
static int64_t row_need(const op_args *a, int is_cache)
{
    const int64_t d = a->x->shape[a->x->rank - 1];
    const int mx = a->quant_mode == 0 || a->quant_mode == 3;

    if (is_cache)
        return a->quant_mode == 3 ? d / 2 : d;
    return mx ? d / 32 : 1;
}

static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    const op_args *a = (const op_args *)f->args;
    const int is_cache = strcmp(x->name, "cache") == 0;

    if (k == OPF_UNTIED_DTYPE) {
        if (strcmp(x->name, "x") == 0)
            return v == KVG_FP16 || v == KVG_BF16;
        if (!is_cache)
            return 0;
        if (a->quant_mode == 2)
            return v == KVG_UINT8 || v == KVG_HIF8;
        return a->quant_mode != 3 &&
               (v == KVG_FP8_E4M3FN || v == KVG_FP8_E5M2);
    }
    if (!is_cache && strcmp(x->name, "cache_scale") != 0)
        return 0;
    /* any row at least what the kernel writes (cacheCol / scaleCol) */
    return k == 3 && v >= row_need(a, is_cache) && v != INT64_MAX;
}

static const opf_kind_desc k_m0 = {"indexer_quant_cache mode 0",
                                   "indexer_quant_cache", build_m0,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_m1 = {"indexer_quant_cache mode 1",
                                   "indexer_quant_cache", build_m1,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_m2 = {"indexer_quant_cache mode 2",
                                   "indexer_quant_cache", build_m2,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_m3 = {"indexer_quant_cache mode 3",
                                   "indexer_quant_cache", build_m3,
                                   mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_indexer_quant_cache[] = {
    &k_m0, &k_m1, &k_m2, &k_m3, NULL};
