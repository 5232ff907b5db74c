/*
 * tests/ops/indexer_compress_epilog/fixture.c - the indexer compress
 * epilogs in the reliability fixture (tests/op_fixture.h): one kind per
 * cr quant_mode and one for va_v2, seeded valid calls over fp16 / bf16 x,
 * int32 slots (the only dtype both op_defs take), the mode's cache
 * dtypes, cr's caches exactly as wide as the kernel writes (it addresses
 * rows at slot * d and slot * ceil(d / 128)), va_v2's combined cache as
 * wide or wider than d + 4 * ceil(d / 128); their attribute mutations and
 * the values they refuse.
 *
 * Untied changes: x fp16 <-> bf16 (both taken); the cache dtypes a cr
 * mode takes either of (modes 0 / 1: fp8_e4m3fn / fp8_e5m2; mode 2: uint8
 * / hif8); va_v2's cache last dim at least d + 4 * ceil(d / 128), more
 * blocks, a block_size whose blocks still hold every slot, or an x whose
 * d the cache's rows still hold (va_v2 does not tie d to the cache).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/indexer_compress_epilog.h"

typedef kvg_indexer_compress_epilog_args op_args;

static int64_t scale_col(int64_t d) { return (d + 127) / 128; }

/* x [tokens, d] (va_v2: sometimes [2, tokens / 2, d]) and its slots. */
static void add_x(opf *f, kvgt_rng *r, op_args *a, int64_t tokens,
                  int64_t d, int64_t slots, int three_d)
{
    const kvg_dtype xdt = opf_pick(r, 0, 1) ? KVG_FP16 : KVG_BF16;
    int64_t sh[3];
    opf_tensor *s;

    if (three_d && tokens % 2 == 0) {
        sh[0] = 2, sh[1] = tokens / 2, sh[2] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, xdt, 3, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 2, sh,
                    &a->slot_mapping);
    } else {
        sh[0] = tokens, sh[1] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, xdt, 2, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh,
                    &a->slot_mapping);
    }
    f->g.tokens = tokens;
    f->g.slots = slots;
    opf_distinct_slots(r, s, tokens, slots);
}

static void build_cr(opf *f, kvgt_rng *r, int64_t mode)
{
    op_args *a = (op_args *)f->args;
    const int64_t d = 16 * opf_pick(r, 1, 20);
    const int64_t rows = opf_pick(r, 2, 12);
    const int64_t tokens = opf_pick(r, 1, rows);
    const int pick = (int)opf_pick(r, 0, 1);
    int64_t sh[2];

    kvg_indexer_compress_epilog_args_init(a);
    a->quant_mode = mode;
    a->round_scale = (int)opf_pick(r, 0, 1);
    if (mode == 2)
        a->scale = 0.25 * (double)opf_pick(r, 1, 16);
    add_x(f, r, a, tokens, d, rows, 0);
    f->g.bs = 1;
    sh[0] = rows, sh[1] = d;
    opf_add(f, r, "cache", OPF_CACHE, 1,
            mode == 2 ? (pick ? KVG_UINT8 : KVG_HIF8)
                      : (pick ? KVG_FP8_E4M3FN : KVG_FP8_E5M2),
            2, sh, &a->cache);
    sh[1] = scale_col(d);
    opf_add(f, r, "cache_scale", OPF_CACHE, 1,
            mode == 0 ? KVG_E8M0 : KVG_FP32, 2, sh, &a->cache_scale);
}

static void build_m0(opf *f, kvgt_rng *r) { build_cr(f, r, 0); }
static void build_m1(opf *f, kvgt_rng *r) { build_cr(f, r, 1); }
static void build_m2(opf *f, kvgt_rng *r) { build_cr(f, r, 2); }

static void build_va(opf *f, kvgt_rng *r)
{
    op_args *a = (op_args *)f->args;
    const int64_t d = 16 * opf_pick(r, 1, 20);
    const int64_t bs = (int64_t)1 << opf_pick(r, 0, 3);
    const int64_t blocks = opf_pick(r, 1, 4);
    int64_t tokens = opf_pick(r, 1, 8), sh[4];

    kvg_indexer_compress_epilog_args_init(a);
    a->impl = KVG_ICE_VA_V2;
    if (tokens > blocks * bs)
        tokens = blocks * bs;
    add_x(f, r, a, tokens, d, blocks * bs, (int)opf_pick(r, 0, 1));
    f->g.bs = bs;
    sh[0] = blocks, sh[1] = bs, sh[2] = 1;
    sh[3] = d + 4 * scale_col(d) + (opf_pick(r, 0, 2) == 0 ? 16 : 0);
    opf_add(f, r, "cache", OPF_CACHE, 1, KVG_UINT8, 4, sh, &a->cache);
    if (opf_pick(r, 0, 1))
        a->block_stride = bs * sh[3];
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 3);

    *want = KVG_ERR_PARAM_INVALID;
    if (a->impl == KVG_ICE_VA_V2) {
        switch (c) {
        case 0: a->layout = 1; break;
        case 1: a->quant_mode = 0; break;
        case 2: a->round_scale = 0; break;
        default: a->block_stride = 3; break;
        }
    } else {
        switch (c) {
        case 0: a->quant_mode = opf_pick(r, 0, 1) ? 3 : -1; break;
        case 1: a->round_scale = 2; break;
        case 2: a->layout = 1; break;
        default: a->block_stride = 64; break;
        }
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

/* The largest slot a token names (-1 when every token skips). */
static int64_t max_slot(const opf *f)
{
    opf_tensor *s = opf_find((opf *)f, "slot_mapping");
    int64_t t, m = -1, v;

    for (t = 0; t < f->g.tokens; t++) {
        v = opf_index_get(s, t);
        if (v > m)
            m = v;
    }
    return m;
}

static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    const op_args *a = (const op_args *)f->args;
    const int is_cache = strcmp(x->name, "cache") == 0;
    const int64_t d = a->x->shape[a->x->rank - 1];

    if (k == OPF_UNTIED_DTYPE) {
        if (strcmp(x->name, "x") == 0)
            return v == KVG_FP16 || v == KVG_BF16;
        if (!is_cache || a->impl == KVG_ICE_VA_V2)
            return 0;
        if (a->quant_mode == 2)
            return v == KVG_UINT8 || v == KVG_HIF8;
        return v == KVG_FP8_E4M3FN || v == KVG_FP8_E5M2;
    }
    if (a->impl != KVG_ICE_VA_V2 || v == INT64_MAX)
        return 0;
    if (strcmp(x->name, "x") == 0) /* a narrower d the row still holds */
        return k == a->x->rank - 1 && v >= 1 && v <= 16384 &&
               v + 4 * scale_col(v) <= a->cache->shape[3];
    if (!is_cache)
        return 0;
    if (k == 0)
        return v * a->cache->shape[1] > max_slot(f);
    if (a->block_stride != 0) /* a given stride ties the rest */
        return 0;
    if (k == 3)
        return v >= d + 4 * scale_col(d);
    if (k == 1)
        return v * a->cache->shape[0] > max_slot(f);
    return 0;
}

static const opf_kind_desc k_m0 = {"indexer_compress_epilog cr mode 0",
                                   "indexer_compress_epilog", build_m0,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_m1 = {"indexer_compress_epilog cr mode 1",
                                   "indexer_compress_epilog", build_m1,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_m2 = {"indexer_compress_epilog cr mode 2",
                                   "indexer_compress_epilog", build_m2,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_va = {"indexer_compress_epilog va_v2",
                                   "indexer_compress_epilog", build_va,
                                   mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_indexer_compress_epilog[] = {
    &k_m0, &k_m1, &k_m2, &k_va, NULL};
