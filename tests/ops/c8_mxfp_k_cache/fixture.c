/*
 * tests/ops/c8_mxfp_k_cache/fixture.c - the C8-MXFP K write in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls over N 1-4,
 * D 64 / 128 / 256, Bs 64 / 128, 1-3 blocks, bf16 / fp16 / fp32 keys,
 * int32 / int64 slots with pad rows (1 in 4), e8m0 / uint8 scale caches;
 * the values the operator refuses (a slot past the cache, a repeated
 * slot, a real token at slot 0 beside a pad row, a subnormal key element).
 *
 * Untied changes: key's dtype between bf16 and fp16 (both 2 bytes, both
 * taken; the fixture's values [0.05, 3] stay normal in either reading)
 * and key_scale_cache's between e8m0 and uint8 (the same bytes; vLLM
 * allocates uint8). Every dim is tied: key's T to slot_mapping, N and D
 * and Bn and Bs between the caches.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/c8_mxfp_k_cache.h"
#include "kvgold/format.h"

typedef kvg_c8_mxfp_k_cache_args op_args;

/* A token at slot 0 beside a pad row is refused: such a token becomes a
 * pad row too (the drawn call stays valid). */
static void no_slot0_beside_pad(opf_tensor *s, int64_t tokens)
{
    int64_t t, pads = 0;

    for (t = 0; t < tokens; t++)
        pads += opf_index_get(s, t) < 0;
    for (t = 0; pads > 0 && t < tokens; t++)
        if (opf_index_get(s, t) == 0)
            opf_index_set(s, t, -1);
}

static void build(opf *f, kvgt_rng *r)
{
    static const kvg_dtype keys[3] = {KVG_BF16, KVG_FP16, KVG_FP32};
    op_args *a = (op_args *)f->args;
    const int64_t n = opf_pick(r, 1, 4), d = 64 << opf_pick(r, 0, 2);
    const int64_t bs = 64 << opf_pick(r, 0, 1), bn = opf_pick(r, 1, 3);
    int64_t tokens = opf_pick(r, 1, 8), sh[6];
    opf_tensor *s;

    kvg_c8_mxfp_k_cache_args_init(a);
    sh[0] = tokens, sh[1] = n, sh[2] = d;
    opf_add(f, r, "key", OPF_INPUT, 1, keys[opf_pick(r, 0, 2)], 3, sh,
            &a->key);
    s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1,
                opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64, 1, sh,
                &a->slot_mapping);
    f->g.tokens = tokens;
    f->g.slots = bn * bs;
    f->g.bs = bs;
    opf_distinct_slots(r, s, tokens, bn * bs);
    no_slot0_beside_pad(s, tokens);
    sh[0] = bn, sh[1] = n, sh[2] = d / 32, sh[3] = bs, sh[4] = 32;
    opf_add(f, r, "key_cache", OPF_CACHE, 1, KVG_FP8_E4M3FN, 5, sh,
            &a->key_cache);
    sh[2] = bs / 16, sh[3] = d / 64, sh[4] = 16, sh[5] = 2;
    opf_add(f, r, "key_scale_cache", OPF_CACHE, 1,
            opf_pick(r, 0, 1) ? KVG_E8M0 : KVG_UINT8, 6, sh,
            &a->key_scale_cache);
}

/* No attributes: the attribute-style refusals are the source's
 * constraints on the shapes (D % 64, Bs % 64), made on both caches alike
 * so only that constraint breaks. */
static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    opf_tensor *kc = opf_find(f, "key_cache");
    opf_tensor *sc = opf_find(f, "key_scale_cache");

    (void)r;
    *want = KVG_ERR_PARAM_INVALID;
    /* Bs 64 -> 48 (cache views shrink: refused before a byte is read) */
    kc->t.shape[3] = 48;
    kc->t.nbytes = (size_t)(kc->t.shape[0] * kc->t.shape[1] *
                            kc->t.shape[2] * 48 * 32);
    sc->t.shape[2] = 3;
    sc->t.nbytes = (size_t)(sc->t.shape[0] * sc->t.shape[1] * 3 *
                            sc->t.shape[3] * 32);
    (void)snprintf(what, cap, "block_size 48 (not a multiple of 64)");
}

/* x's element made subnormal (bf16 / fp32 x; MX quant's refusal). */
static int subnormal_key(opf *f, kvgt_rng *r, char *what, size_t cap)
{
    opf_tensor *x = opf_find(f, "key");
    const size_t es = kvg_dtype_size(x->natural.dtype);
    const int64_t at = opf_pick(r, 0, (int64_t)(x->natural.nbytes / es) - 1);

    if (x->natural.dtype == KVG_FP16)
        return 0;
    assert_int_equal(kvg_encode_f32(x->natural.dtype, 0x1p-130f,
                                    KVG_OVF_NONSAT,
                                    (unsigned char *)x->natural.data +
                                        (size_t)at * es),
                     KVG_OK);
    (void)snprintf(what, cap, "key[%lld] = 2^-130", (long long)at);
    return 1;
}

/* A real token moved to slot 0 while another is a pad row. */
static int slot0_beside_pad(opf *f, char *what, size_t cap)
{
    opf_tensor *s = opf_find(f, "slot_mapping");
    int64_t t, pad = -1, real = -1;

    for (t = 0; t < f->g.tokens; t++) {
        if (opf_index_get(s, t) < 0)
            pad = t;
        else if (real < 0)
            real = t;
    }
    if (pad < 0 || real < 0)
        return 0;
    for (t = 0; t < f->g.tokens; t++) /* slot 0 freed if taken */
        if (opf_index_get(s, t) == 0)
            opf_index_set(s, t, -1);
    opf_index_set(s, real, 0);
    (void)snprintf(what, cap, "slot_mapping[%lld] = 0 beside pad row %lld",
                   (long long)real, (long long)pad);
    return 1;
}

static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    const int64_t c = opf_pick(r, 0, 2);

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0 && subnormal_key(f, r, what, cap))
        return 1;
    if (c == 1 && slot0_beside_pad(f, what, cap))
        return 1;
    return opf_mutate_token_index(f, r, "slot_mapping", want, what, cap);
}

static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    (void)f;
    if (k != OPF_UNTIED_DTYPE)
        return 0;
    if (strcmp(x->name, "key") == 0)
        return (x->natural.dtype == KVG_FP16 ||
                x->natural.dtype == KVG_BF16) &&
               (v == KVG_FP16 || v == KVG_BF16);
    return strcmp(x->name, "key_scale_cache") == 0 &&
           (v == KVG_E8M0 || v == KVG_UINT8);
}

static const opf_kind_desc kind = {"c8_mxfp_k_cache", "c8_mxfp_k_cache",
                                   build, mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_c8_mxfp_k_cache[] = {&kind, NULL};
