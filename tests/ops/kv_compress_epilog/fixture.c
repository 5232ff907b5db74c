/*
 * tests/ops/kv_compress_epilog/fixture.c - KvCompressEpilog in the
 * reliability fixture (tests/op_fixture.h): one kind per implementation
 * (ot, sgk, va, cr, cr_v2), seeded valid calls over each one's modes,
 * group sizes, round_scale, int32 / int64 slots, 2-D and 4-D caches whose
 * rows are exactly the preset's length (the row lengths are computed here
 * from the kernels' tiling formulas, not taken from presets.c), their
 * attribute mutations and the values the operator refuses.
 *
 * Untied changes: the fp8 cache dtypes an implementation takes either of
 * (sgk / va, cr modes 1 / 2, cr_v2 mode 2: e4m3 / e5m2); a cache with
 * longer rows (the bytes past a row's segments are not written) where the
 * kernel addresses rows at the cache's width (not cr, nor va without a
 * block_stride); and any number of blocks or slots a block: no shape ties them
 * (a slot past a smaller cache is a value error, or skipped by cr_v2).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/kv_compress_epilog.h"

typedef kvg_kv_compress_epilog_args op_args;

static int64_t roundup(int64_t n, int64_t a)
{
    return (n + a - 1) / a * a;
}

/* The row the tilings compute (quant_epilogs.md section 5): n = ceil(q /
 * g) scales, the last group shorter. */
static int64_t row_bytes(const op_args *a, int64_t d, int64_t g)
{
    const int64_t nope = d - 64, n = (nope + g - 1) / g;

    switch (a->impl) {
    case KVG_KCE_OT:
        if (a->quant_mode == 0)
            return roundup(128 + nope + 2 * n, 32);
        if (a->quant_mode == 1)
            return 128 + nope + n;
        return roundup(64 + nope / 2 + 2 * n, 32);
    case KVG_KCE_CR_V2:
        if (a->quant_mode == 2)
            return roundup(d + 2 * (d / 32), a->layout == 2 ? 1 : 32);
        return roundup(d / 2 + 2 * (d / g), a->layout == 2 ? 1 : 32);
    default:
        if (a->quant_mode == 3)
            return d;
        if (a->quant_mode == 1)
            return roundup(nope + 128 + 4 * n, 128);
        if (a->layout == 2) /* block-major: value + scale bytes a slot */
            return nope + 128 + roundup(n, 8);
        return roundup(128 + nope + n, 128);
    }
}

/* Rows at slot * the row's own length: no wider cache. */
static int exact_width(const op_args *a)
{
    return a->impl == KVG_KCE_CR ||
           (a->impl == KVG_KCE_VA && a->layout == 1 && a->block_stride == 0);
}

/* Mode, group size and d of the implementation, drawn. */
static void draw_mode(op_args *a, kvgt_rng *r, int64_t *d, int64_t *g)
{
    static const int64_t ot_g[] = {16, 32, 64}, cr2_g[] = {16, 32};

    *g = 64;
    switch (a->impl) {
    case KVG_KCE_OT:
        a->quant_mode = opf_pick(r, 0, 2);
        *d = 64 * opf_pick(r, 2, 5);
        if (a->quant_mode == 2)
            *g = ot_g[opf_pick(r, 0, 2)];
        break;
    case KVG_KCE_CR_V2:
        a->quant_mode = opf_pick(r, 0, 1) ? 2 : 4;
        *g = a->quant_mode == 2 ? 32 : cr2_g[opf_pick(r, 0, 1)];
        *d = 32 * opf_pick(r, 1, 8);
        a->layout = opf_pick(r, 1, 2);
        break;
    case KVG_KCE_CR:
        a->quant_mode = opf_pick(r, 1, 3);
        *g = a->quant_mode == 1 ? 128 : 64;
        *d = 64 * opf_pick(r, 2, 6);
        break;
    default:
        a->quant_mode = opf_pick(r, 1, 2);
        *g = a->quant_mode == 1 || opf_pick(r, 0, 1) ? 128 : 64;
        *d = 64 * opf_pick(r, 2, 6);
        if (a->quant_mode == 2)
            a->layout = opf_pick(r, 1, 2);
    }
    if (opf_pick(r, 0, 1))
        a->quant_group_size = *g; /* else 0: the default */
    if (a->quant_group_size == 0 &&
        ((a->impl == KVG_KCE_OT && a->quant_mode == 2 && *g != 64) ||
         (a->impl == KVG_KCE_CR_V2 && *g != 32) ||
         ((a->impl == KVG_KCE_SGK || a->impl == KVG_KCE_VA) &&
         a->quant_mode == 2 && *g != 128)))
        a->quant_group_size = *g;
}

static kvg_dtype draw_cache_dtype(const op_args *a, kvgt_rng *r)
{
    const int pick = (int)opf_pick(r, 0, 1);

    switch (a->impl) {
    case KVG_KCE_OT:
        return KVG_UINT8;
    case KVG_KCE_CR:
        if (a->quant_mode == 3)
            return KVG_UINT8;
        return pick ? KVG_FP8_E4M3FN : KVG_FP8_E5M2;
    case KVG_KCE_CR_V2:
        if (a->quant_mode == 4)
            return KVG_UINT8;
        return pick ? KVG_FP8_E4M3FN : KVG_FP8_E5M2;
    default:
        return pick ? KVG_FP8_E4M3FN : KVG_FP8_E5M2;
    }
}

static void build_impl(opf *f, kvgt_rng *r, kvg_kce_impl impl)
{
    op_args *a = (op_args *)f->args;
    int64_t d, g, sh[4], blocks, bs, tokens;
    int four_d, sgk;
    opf_tensor *s;

    kvg_kv_compress_epilog_args_init(a);
    a->impl = impl;
    a->round_scale = (int)opf_pick(r, 0, 1);
    draw_mode(a, r, &d, &g);
    if ((impl == KVG_KCE_OT || impl == KVG_KCE_CR) && opf_pick(r, 0, 1))
        a->x_scale = 0.5 * (double)opf_pick(r, 1, 8);
    four_d = impl == KVG_KCE_CR_V2 ? a->layout == 2
             : a->layout == 2     ? 1
                                  : (int)opf_pick(r, 0, 1);
    sgk = impl == KVG_KCE_SGK || impl == KVG_KCE_VA;
    /* sgk / va layout 1: one slot a block (rows strided by dim 0) */
    bs = four_d && !(sgk && a->layout == 1) ? (int64_t)1 << opf_pick(r, 0, 3)
                                             : 1;
    blocks = (int64_t)1 << opf_pick(r, 1, 3);
    tokens = 2 * opf_pick(r, 1, 8);
    if (tokens > blocks * bs)
        tokens = blocks * bs;
    if (tokens % 2)
        tokens = 1;
    if (opf_pick(r, 0, 1) && tokens % 2 == 0 && !sgk) { /* sgk / va: 2-D x */
        sh[0] = 2, sh[1] = tokens / 2, sh[2] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, KVG_BF16, 3, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1,
                    opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64, 2, sh,
                    &a->slot_mapping);
    } else {
        sh[0] = tokens, sh[1] = d;
        opf_add(f, r, "x", OPF_INPUT, 1, KVG_BF16, 2, sh, &a->x);
        s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1,
                    opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64, 1, sh,
                    &a->slot_mapping);
    }
    f->g.tokens = tokens;
    f->g.slots = blocks * bs;
    f->g.bs = bs;
    opf_distinct_slots(r, s, tokens, blocks * bs);
    sh[0] = blocks;
    if (four_d) {
        sh[1] = bs, sh[2] = 1, sh[3] = row_bytes(a, d, g);
        opf_add(f, r, "cache", OPF_CACHE, 1, draw_cache_dtype(a, r), 4, sh,
                &a->cache);
    } else {
        sh[1] = row_bytes(a, d, g);
        opf_add(f, r, "cache", OPF_CACHE, 1, draw_cache_dtype(a, r), 2, sh,
                &a->cache);
    }
}

static void build_ot(opf *f, kvgt_rng *r) { build_impl(f, r, KVG_KCE_OT); }
static void build_sgk(opf *f, kvgt_rng *r) { build_impl(f, r, KVG_KCE_SGK); }
static void build_va(opf *f, kvgt_rng *r) { build_impl(f, r, KVG_KCE_VA); }
static void build_cr(opf *f, kvgt_rng *r) { build_impl(f, r, KVG_KCE_CR); }
static void build_cr2(opf *f, kvgt_rng *r)
{
    build_impl(f, r, KVG_KCE_CR_V2);
}

/* Does the call read quant_group_size (ot modes 0 / 1 and cr ignore it)? */
static int uses_group(const op_args *a)
{
    return (a->impl == KVG_KCE_OT && a->quant_mode == 2) ||
           ((a->impl == KVG_KCE_SGK || a->impl == KVG_KCE_VA) &&
            a->quant_mode == 2) ||
           a->impl == KVG_KCE_CR_V2;
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    int64_t c = opf_pick(r, 0, 6);

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 3 && !uses_group(a))
        c = 0;
    switch (c) {
    case 0: a->quant_mode = opf_pick(r, 0, 1) ? 7 : -1; break;
    case 1: a->layout = 3; break;
    case 2: a->block_stride = 1; break;
    case 3: a->quant_group_size = 48; break;
    case 4: a->x_scale = a->impl == KVG_KCE_OT || a->impl == KVG_KCE_CR
                             ? 1e39 : 2.0;
        break;
    case 5: a->impl = (kvg_kce_impl)9; break;
    default: a->round_scale = 2; break;
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

/* x's element (t, i) made +Inf (bf16 0x7F80). */
static void poison_x(opf *f, int64_t t, int64_t i)
{
    opf_tensor *x = opf_find(f, "x");
    const int64_t d = x->natural.shape[x->natural.rank - 1];
    unsigned char *e = (unsigned char *)x->natural.data + (t * d + i) * 2;

    e[0] = 0x80, e[1] = 0x7F;
}

static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    const op_args *a = (const op_args *)f->args;
    opf_tensor *s = opf_find(f, "slot_mapping");
    int64_t pos[64], n = opf_live(s, f->g.tokens, pos), t;
    const int64_t c = opf_pick(r, 0, 2);

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0 && n >= 1) {
        t = pos[opf_pick(r, 0, n - 1)];
        poison_x(f, t, opf_pick(r, 0, opf_find(f, "x")->natural.shape[
                                          opf_find(f, "x")->natural.rank -
                                          1] - 1));
        (void)snprintf(what, cap, "x token %lld: +Inf", (long long)t);
        return 1;
    }
    if (a->impl != KVG_KCE_CR_V2) {
        if (c == 1) {
            t = opf_pick(r, 0, f->g.tokens - 1);
            opf_index_set(s, t, -2);
            (void)snprintf(what, cap, "slot_mapping[%lld] = -2",
                           (long long)t);
            return 1;
        }
        return opf_mutate_token_index(f, r, "slot_mapping", want, what, cap);
    }
    if (n < 2)
        return 0;
    opf_index_set(s, pos[1], opf_index_get(s, pos[0]));
    (void)snprintf(what, cap, "slot_mapping[%lld] repeats [%lld]",
                   (long long)pos[1], (long long)pos[0]);
    return 1;
}

static int fp8_either(const op_args *a)
{
    return a->impl == KVG_KCE_SGK || a->impl == KVG_KCE_VA ||
           (a->impl == KVG_KCE_CR && a->quant_mode != 3) ||
           (a->impl == KVG_KCE_CR_V2 && a->quant_mode == 2);
}

static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    const op_args *a = (const op_args *)f->args;

    if (strcmp(x->name, "cache") != 0)
        return 0;
    if (k == OPF_UNTIED_DTYPE)
        return fp8_either(a) && (v == KVG_FP8_E4M3FN || v == KVG_FP8_E5M2);
    if (k < 0 || v < 1 || v == INT64_MAX || k == 2)
        return 0;
    if (k == x->natural.rank - 1)
        return v > x->natural.shape[k] && !exact_width(a); /* longer rows */
    /* blocks, slots a block: the shapes tie neither (a slot past a smaller
     * cache is a value error, or skipped by cr_v2) - but sgk / va layout 1
     * takes one slot a block */
    return !(k == 1 && a->layout == 1 &&
             (a->impl == KVG_KCE_SGK || a->impl == KVG_KCE_VA));
}

static const opf_kind_desc k_ot = {"kv_compress_epilog ot",
                                   "kv_compress_epilog", build_ot,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_sgk = {"kv_compress_epilog sgk",
                                    "kv_compress_epilog", build_sgk,
                                    mutate_attr, mutate_value, untied};
static const opf_kind_desc k_va = {"kv_compress_epilog va",
                                   "kv_compress_epilog", build_va,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_cr = {"kv_compress_epilog cr",
                                   "kv_compress_epilog", build_cr,
                                   mutate_attr, mutate_value, untied};
static const opf_kind_desc k_cr2 = {"kv_compress_epilog cr_v2",
                                    "kv_compress_epilog", build_cr2,
                                    mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_kv_compress_epilog[] = {
    &k_ot, &k_sgk, &k_va, &k_cr, &k_cr2, NULL};
