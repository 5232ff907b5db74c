/*
 * tests/ops/c8_mxfp_k_cache/test_c8_mxfp_k_cache.c - the C8-MXFP K write
 * on calls whose every byte of both caches is derived here from first
 * principles: the positions from the source's index formulas
 *   key_cache[b, n, e / 32, o, e % 32]            (PA_NZ, [Bn,N,D/32,Bs,32])
 *   key_scale_cache[b, n, o / 16, j, o % 16, p]   ([Bn,N,Bs/16,D/64,16,2])
 * (b = s / Bs, o = s % Bs; the scale of block 2j + p), written here as
 * nested index arithmetic, never through the row layout; the codes from
 * the formats' bit layouts. Element e of head n of token t is
 *   x = (-1)^(e + t) * 2^k * (1 + r / 8),  r = (e + 2t + n) % 8,
 *   k = 4t + 2n + j - 6 for e in block j,
 * so every block holds all eight r: amax = 1.875 * 2^k, E(amax) = 127 + k,
 * R-OCP code c = E - 8 = 119 + k (distinct for every (t, n, j)), the
 * multiplier 2^(127 - c) = 2^(8 - k), the scaled value 256 * (1 + r / 8):
 * e4m3fn exponent 15, mantissa r, code 0x78 + r, except r = 7 (480 > 448)
 * saturating to 448 = 0x7E; the sign bit 0x80 for odd e + t. Both caches
 * start poisoned (no byte 0); every byte not written must keep its poison,
 * every refused call must leave both caches byte-identical.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/c8_mxfp_k_cache.h"
#include "kvgold/row_layout.h"
#include "src/ops/c8_mxfp_k_cache/internal.h"

typedef struct call {
    kvg_c8_mxfp_k_cache_args a;
    kvg_tensor key, slots, kc, sc;
    int64_t t, n, d, bs, bn;
    unsigned char *xb, *kb, *sb, *kbefore, *sbefore;
    unsigned char slot_bytes[8 * 16];
    unsigned char ws[4096];
} call;

static void put16(unsigned char *at, unsigned v)
{
    at[0] = (unsigned char)(v & 0xFF);
    at[1] = (unsigned char)(v >> 8);
}

/* bf16 bits of (-1)^neg * 2^k * (1 + r / 8) */
static unsigned bf16_of(int k, int r, int neg)
{
    return (neg ? 0x8000u : 0u) | (unsigned)(127 + k) << 7 |
           (unsigned)r << 4;
}

static int r_of(int64_t t, int64_t n, int64_t e)
{
    return (int)((e + 2 * t + n) % 8);
}

static int k_of(int64_t t, int64_t n, int64_t j)
{
    return (int)(4 * t + 2 * n + j - 6);
}

static unsigned char code_of(int64_t t, int64_t n, int64_t e)
{
    const int r = r_of(t, n, e);
    return (unsigned char)((r == 7 ? 0x7E : 0x78 + r) |
                           ((e + t) % 2 ? 0x80 : 0));
}

static void set_slots(call *c, kvg_dtype sdt, const int64_t *v)
{
    int64_t i;

    for (i = 0; i < c->t; i++) {
        if (sdt == KVG_INT32) {
            const int32_t w = (int32_t)v[i];
            memcpy(c->slot_bytes + 4 * i, &w, 4);
        } else {
            memcpy(c->slot_bytes + 8 * i, &v[i], 8);
        }
    }
}

/* key [t, n, d] bf16 by the formula above, slots of sdt, poisoned caches
 * [bn, n, d/32, bs, 32] and [bn, n, bs/16, d/64, 16, 2]. */
static void setup(call *c, int64_t t, int64_t n, int64_t d, int64_t bs,
                  int64_t bn, kvg_dtype sdt, const int64_t *slot_values)
{
    const int64_t ks[3] = {t, n, d}, ss[1] = {t};
    const int64_t cs[5] = {bn, n, d / 32, bs, 32};
    const int64_t scs[6] = {bn, n, bs / 16, d / 64, 16, 2};
    const size_t kbytes = (size_t)(bn * n * d * bs);
    const size_t sbytes = (size_t)(bn * n * bs * (d / 32));
    int64_t i, h, e;

    memset(c, 0, sizeof *c);
    c->t = t, c->n = n, c->d = d, c->bs = bs, c->bn = bn;
    c->xb = (unsigned char *)calloc((size_t)(t * n * d), 2);
    c->kb = (unsigned char *)kvgt_alloc_poisoned(kbytes, 36);
    c->sb = (unsigned char *)kvgt_alloc_poisoned(sbytes, 37);
    c->kbefore = (unsigned char *)malloc(kbytes);
    c->sbefore = (unsigned char *)malloc(sbytes);
    assert_non_null(c->xb);
    assert_non_null(c->kbefore);
    assert_non_null(c->sbefore);
    memcpy(c->kbefore, c->kb, kbytes);
    memcpy(c->sbefore, c->sb, sbytes);
    for (i = 0; i < t; i++)
        for (h = 0; h < n; h++)
            for (e = 0; e < d; e++)
                put16(c->xb + ((i * n + h) * d + e) * 2,
                      bf16_of(k_of(i, h, e / 32), r_of(i, h, e),
                              (int)((e + i) % 2)));
    set_slots(c, sdt, slot_values);
    kvg_c8_mxfp_k_cache_args_init(&c->a);
    c->key = kvg_tensor_make(c->xb, (size_t)(t * n * d * 2), KVG_BF16, 3, ks);
    c->slots = kvg_tensor_make(c->slot_bytes,
                               (size_t)t * (sdt == KVG_INT32 ? 4 : 8), sdt,
                               1, ss);
    c->kc = kvg_tensor_make(c->kb, kbytes, KVG_FP8_E4M3FN, 5, cs);
    c->sc = kvg_tensor_make(c->sb, sbytes, KVG_E8M0, 6, scs);
    c->a.key = &c->key;
    c->a.slot_mapping = &c->slots;
    c->a.key_cache = &c->kc;
    c->a.key_scale_cache = &c->sc;
    c->a.workspace = c->ws;
    c->a.workspace_size = sizeof c->ws;
}

static void teardown(call *c)
{
    free(c->xb);
    free(c->kb);
    free(c->sb);
    free(c->kbefore);
    free(c->sbefore);
}

static kvg_status run(call *c, kvg_diag *d)
{
    memset(d, 0, sizeof *d);
    return kvg_c8_mxfp_k_cache(&c->a, d);
}

/* The source's index formulas, as nested index arithmetic. */
static size_t nz_at(const call *c, int64_t s, int64_t n, int64_t e)
{
    const int64_t b = s / c->bs, o = s % c->bs;
    return (size_t)((((b * c->n + n) * (c->d / 32) + e / 32) * c->bs + o) *
                        32 + e % 32);
}

static size_t scale_at(const call *c, int64_t s, int64_t n, int64_t blk)
{
    const int64_t b = s / c->bs, o = s % c->bs, j = blk / 2, p = blk % 2;
    return (size_t)(((((b * c->n + n) * (c->bs / 16) + o / 16) * (c->d / 64) +
                      j) * 16 + o % 16) * 2 + p);
}

/* Token t's payload into want at slot s (s >= 0). */
static void want_payload(const call *c, unsigned char *want, int64_t t,
                         int64_t s)
{
    int64_t n, e;

    for (n = 0; n < c->n; n++)
        for (e = 0; e < c->d; e++)
            want[nz_at(c, s, n, e)] = code_of(t, n, e);
}

static void want_scales(const call *c, unsigned char *want, int64_t t,
                        int64_t s)
{
    int64_t n, j;

    for (n = 0; n < c->n; n++)
        for (j = 0; j < c->d / 32; j++)
            want[scale_at(c, s, n, j)] = (unsigned char)(119 + k_of(t, n, j));
}

/* Both caches against the images the tokens' slots give: a real token
 * writes its payload and scales at its slot, a pad row its scales at
 * slot 0 (token order: the last pad row's remain). */
static void check_images(const call *c, const int64_t *slots)
{
    unsigned char *wk = (unsigned char *)malloc(c->kc.nbytes);
    unsigned char *ws = (unsigned char *)malloc(c->sc.nbytes);
    int64_t t;

    assert_non_null(wk);
    assert_non_null(ws);
    memcpy(wk, c->kbefore, c->kc.nbytes);
    memcpy(ws, c->sbefore, c->sc.nbytes);
    for (t = 0; t < c->t; t++) {
        if (slots[t] >= 0)
            want_payload(c, wk, t, slots[t]);
        want_scales(c, ws, t, slots[t] >= 0 ? slots[t] : 0);
    }
    kvgt_assert_bytes_equal(c->kb, wk, c->kc.nbytes, "key_cache");
    kvgt_assert_bytes_equal(c->sb, ws, c->sc.nbytes, "key_scale_cache");
    free(wk);
    free(ws);
}

static void unchanged(const call *c)
{
    kvgt_assert_bytes_equal(c->kb, c->kbefore, c->kc.nbytes, "key_cache");
    kvgt_assert_bytes_equal(c->sb, c->sbefore, c->sc.nbytes,
                            "key_scale_cache");
}

/* N 2, D 64, Bs 64, 2 blocks: token 0 -> 65 (block 1, o 1), token 1 a pad
 * row (its scales in slot 0, its payload nowhere), token 2 -> 127 (the
 * last slot: tile 3, o % 16 = 15), token 3 -> 16 (tile 1 of block 0).
 * Both slot dtypes. Spot values, derived by hand: token 0 head 0 element
 * 0: r 0, k -6, code 0x78 at key_cache[1, 0, 0, 1, 0] = byte 8224; its
 * block-0 scale 113 at key_scale_cache[1, 0, 0, 0, 1, 0] = byte 258. */
static void one_pad_row(void **state)
{
    static call c;
    const int64_t slots[4] = {65, -1, 127, 16};
    const kvg_dtype sdts[2] = {KVG_INT32, KVG_INT64};
    kvg_diag d;
    int k;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, 4, 2, 64, 64, 2, sdts[k], slots);
        assert_int_equal(run(&c, &d), KVG_OK);
        assert_int_equal(c.kb[8224], 0x78);
        assert_int_equal(c.sb[258], 113);
        check_images(&c, slots);
        /* one pad row: its scales are judged, no sink */
        assert_int_equal(kvg_i_mxk_sink(&c.slots, c.t), 0);
        teardown(&c);
    }
}

/* Three pad rows (-1, -3, -2): slot 0 holds the last one's scales (token
 * order; the layout marks it a sink), slot 0's payload is untouched; D 128
 * (two scale pairs), N 1, Bs 128 (8 tiles). */
static void pad_rows_sink(void **state)
{
    static call c;
    const int64_t slots[5] = {-1, 200, -3, 17, -2};
    kvg_diag d;
    (void)state;

    setup(&c, 5, 1, 128, 128, 2, KVG_INT64, slots);
    assert_int_equal(run(&c, &d), KVG_OK);
    check_images(&c, slots);
    assert_int_equal(kvg_i_mxk_sink(&c.slots, c.t), 1);
    teardown(&c);
}

/* No pad row: a real token may write slot 0 (payload and scales). */
static void slot0_without_pad(void **state)
{
    static call c;
    const int64_t slots[2] = {0, 64};
    kvg_diag d;
    (void)state;

    setup(&c, 2, 2, 64, 64, 2, KVG_INT32, slots);
    assert_int_equal(run(&c, &d), KVG_OK);
    check_images(&c, slots);
    teardown(&c);
}

/* The layout the writes and compare use places every element where the
 * source's index formulas do (both caches, every slot, head, element),
 * and passes kvg_row_layout_check against the caches' sizes. */
static void layout_is_the_source(void **state)
{
    static call c;
    const int64_t slots[1] = {5};
    kvg_i_c8_mxfp_k_cache_plan p;
    size_t sizes[2];
    kvg_diag d;
    int64_t s, n, e;
    (void)state;

    setup(&c, 1, 3, 128, 64, 2, KVG_INT32, slots);
    memset(&p, 0, sizeof p);
    assert_int_equal(kvg_i_c8_mxfp_k_cache_check_args(&c.a, &p, &d), KVG_OK);
    sizes[0] = c.kc.nbytes;
    sizes[1] = c.sc.nbytes;
    assert_int_equal(kvg_row_layout_check(&p.layout, sizes, &d), KVG_OK);
    for (s = 0; s < c.bn * c.bs; s++)
        for (n = 0; n < c.n; n++) {
            for (e = 0; e < c.d; e++)
                assert_int_equal(kvg_row_element_at(&p.layout, s, (int)n, 0, e),
                                 (int64_t)nz_at(&c, s, n, e));
            for (e = 0; e < c.d / 32; e++)
                assert_int_equal(kvg_row_element_at(&p.layout, s, (int)n, 1, e),
                                 (int64_t)scale_at(&c, s, n, e));
        }
    teardown(&c);
}

/* fp16 and fp32 keys: 1.5 * 2^-3 and -1.875 * 2^-3 in block 0 (amax
 * 1.875 * 2^-3, E 124, c 116, m 2^11): 0.1875 * 2048 = 384 -> 0x7C,
 * -480 -> -448 0xFE; block 1 all zero: c 0 (E 0 <= 8), codes 0x00. fp16
 * 1.5 * 2^-3 = 0x3200, -1.875 * 2^-3 = 0xB380; fp32 0x3E400000,
 * 0xBE700000. Slot 3 of a one-block cache, N 1, D 64. */
static void wide_keys(void **state)
{
    static call c;
    const int64_t slots[1] = {3};
    const uint32_t f32[2] = {0x3E400000u, 0xBE700000u};
    const int64_t ks[3] = {1, 1, 64};
    unsigned char x[256];
    int w;
    kvg_diag d;
    (void)state;

    for (w = 0; w < 2; w++) {
        setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
        memset(x, 0, sizeof x);
        if (w == 0) {
            put16(x, 0x3200);
            put16(x + 2, 0xB380);
            c.key = kvg_tensor_make(x, 128, KVG_FP16, 3, ks);
        } else {
            memcpy(x, &f32[0], 4);
            memcpy(x + 4, &f32[1], 4);
            c.key = kvg_tensor_make(x, 256, KVG_FP32, 3, ks);
        }
        assert_int_equal(run(&c, &d), KVG_OK);
        assert_int_equal(c.kb[nz_at(&c, 3, 0, 0)], 0x7C);
        assert_int_equal(c.kb[nz_at(&c, 3, 0, 1)], 0xFE);
        assert_int_equal(c.kb[nz_at(&c, 3, 0, 2)], 0x00);
        assert_int_equal(c.kb[nz_at(&c, 3, 0, 40)], 0x00);
        assert_int_equal(c.sb[scale_at(&c, 3, 0, 0)], 116);
        assert_int_equal(c.sb[scale_at(&c, 3, 0, 1)], 0);
        assert_int_equal(c.kb[nz_at(&c, 2, 0, 0)], c.kbefore[nz_at(&c, 2, 0, 0)]);
        assert_int_equal(c.sb[scale_at(&c, 0, 0, 0)],
                         c.sbefore[scale_at(&c, 0, 0, 0)]);
        teardown(&c);
    }
}

/* An Inf in block 1 of a token and in the pad row: code 0xFF, all 32
 * codes of the block +0, the other block as the formula says. */
static void nonfinite_block(void **state)
{
    static call c;
    const int64_t slots[2] = {9, -1};
    unsigned char *wk, *ws;
    int64_t t, e;
    kvg_diag d;
    (void)state;

    setup(&c, 2, 1, 64, 64, 1, KVG_INT32, slots);
    put16(c.xb + 40 * 2, 0x7F80);            /* token 0, element 40: +Inf */
    put16(c.xb + (64 + 33) * 2, 0xFFC0);     /* token 1, element 33: NaN */
    assert_int_equal(run(&c, &d), KVG_OK);
    wk = (unsigned char *)malloc(c.kc.nbytes);
    ws = (unsigned char *)malloc(c.sc.nbytes);
    memcpy(wk, c.kbefore, c.kc.nbytes);
    memcpy(ws, c.sbefore, c.sc.nbytes);
    want_payload(&c, wk, 0, 9);
    for (e = 32; e < 64; e++)
        wk[nz_at(&c, 9, 0, e)] = 0x00;
    for (t = 0; t < 2; t++) {
        want_scales(&c, ws, t, t == 0 ? 9 : 0);
        ws[scale_at(&c, t == 0 ? 9 : 0, 0, 1)] = 0xFF;
    }
    kvgt_assert_bytes_equal(c.kb, wk, c.kc.nbytes, "key_cache");
    kvgt_assert_bytes_equal(c.sb, ws, c.sc.nbytes, "key_scale_cache");
    free(wk);
    free(ws);
    teardown(&c);
}

/* A refusal: the status, the tensor named, a fragment of the reason, and
 * both caches unchanged. */
static void refused(call *c, kvg_status want, const char *tensor,
                    const char *fragment)
{
    kvg_diag d;

    assert_int_equal(run(c, &d), want);
    if (tensor != NULL)
        assert_string_equal(d.tensor, tensor);
    if (fragment != NULL && strstr(d.message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", d.message, fragment);
    unchanged(c);
}

static void refused_slots(void **state)
{
    static call c;
    const int64_t past[2] = {5, 128}, dup[3] = {5, -1, 5},
                  zero_pad[3] = {-1, 0, 7}, zero_pad2[3] = {0, 3, -4};
    (void)state;

    setup(&c, 2, 1, 64, 64, 2, KVG_INT32, past);
    refused(&c, KVG_ERR_PARAM_INVALID, "slot_mapping", "outside");
    teardown(&c);
    setup(&c, 3, 1, 64, 64, 2, KVG_INT64, dup);
    refused(&c, KVG_ERR_PARAM_INVALID, "slot_mapping", "duplicate");
    teardown(&c);
    setup(&c, 3, 1, 64, 64, 2, KVG_INT32, zero_pad);
    refused(&c, KVG_ERR_PARAM_INVALID, "slot_mapping", "slot 0");
    teardown(&c);
    setup(&c, 3, 1, 64, 64, 2, KVG_INT64, zero_pad2);
    refused(&c, KVG_ERR_PARAM_INVALID, "slot_mapping", "slot 0");
    teardown(&c);
}

/* MX quant's value refusals, in a pad row too (its scales are
 * written): a subnormal bf16 element (0x0001); a negative element whose
 * scaled value is subnormal: block amax 2^100 (E 227, c 219, m 2^-92)
 * and -2^-40 (bf16 0xAB80) -> -2^-132, a binary32 subnormal, whose
 * flushed zero's code (0x80 or 0x0) the message names, in the MX quant
 * op's words. */
static void refused_values(void **state)
{
    static call c;
    const int64_t slots[2] = {3, -1};
    (void)state;

    setup(&c, 2, 1, 64, 64, 1, KVG_INT32, slots);
    put16(c.xb + (64 + 5) * 2, 0x0001);
    refused(&c, KVG_ERR_PARAM_INVALID, "key", "subnormal");
    teardown(&c);
    setup(&c, 2, 1, 64, 64, 1, KVG_INT32, slots);
    put16(c.xb + 2 * 2, 0x7180); /* 2^100 */
    put16(c.xb + 3 * 2, 0xAB80); /* -2^-40 */
    refused(&c, KVG_ERR_PARAM_INVALID, "key", "negative");
    refused(&c, KVG_ERR_PARAM_INVALID, "key",
            "whose sign (the code 0x8 / 0x80 or 0x0) is not documented");
    teardown(&c);
}

/* The source's constraints and the shapes, each named. */
static void refused_shapes(void **state)
{
    static call c;
    const int64_t slots[1] = {1}, slots2[2] = {1, 2};
    const int64_t c48[5] = {1, 1, 2, 48, 32}, s48[6] = {1, 1, 3, 1, 16, 2};
    const int64_t c80[5] = {1, 1, 2, 80, 32}, s80[6] = {1, 1, 5, 1, 16, 2};
    const int64_t cheads[5] = {1, 2, 2, 64, 32};
    const int64_t sorder[6] = {1, 1, 1, 4, 16, 2};
    (void)state;

    /* D 96: views inside buffers drawn for 2 tokens and 2 blocks */
    setup(&c, 2, 1, 64, 64, 2, KVG_INT32, slots2);
    c.key.shape[0] = 1, c.key.shape[2] = 96, c.key.nbytes = 192;
    c.kc.shape[0] = 1, c.kc.shape[2] = 3, c.kc.nbytes = 64 * 96;
    refused(&c, KVG_ERR_PARAM_INVALID, "key", "head_dim");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
    memcpy(c.kc.shape, c48, sizeof c48), c.kc.nbytes = 48 * 64;
    memcpy(c.sc.shape, s48, sizeof s48), c.sc.nbytes = 96;
    refused(&c, KVG_ERR_PARAM_INVALID, "key_cache", "block_size");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 2, KVG_INT32, slots);
    memcpy(c.kc.shape, c80, sizeof c80), c.kc.nbytes = 80 * 64;
    memcpy(c.sc.shape, s80, sizeof s80), c.sc.nbytes = 160;
    refused(&c, KVG_ERR_PARAM_INVALID, "key_cache", "block_size");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 2, KVG_INT32, slots);
    memcpy(c.kc.shape, cheads, sizeof cheads);
    refused(&c, KVG_ERR_PARAM_INVALID, "key_cache", "N");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 2, KVG_INT32, slots);
    c.kc.dtype = KVG_FP8_E5M2;
    refused(&c, KVG_ERR_PARAM_INVALID, "key_cache", "fp8_e4m3fn");
    teardown(&c);
    setup(&c, 1, 1, 128, 64, 1, KVG_INT32, slots);
    memcpy(c.sc.shape, sorder, sizeof sorder); /* [.., 16, 2] as [.., D/64
                                                  before Bs/16] */
    c.sc.shape[2] = 2, c.sc.shape[3] = 4;
    refused(&c, KVG_ERR_PARAM_INVALID, "key_scale_cache", "Bs / 16");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
    c.sc.dtype = KVG_FP8_E4M3FN;
    refused(&c, KVG_ERR_PARAM_INVALID, "key_scale_cache", "e8m0");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
    c.key.dtype = KVG_INT8, c.key.nbytes = 64;
    refused(&c, KVG_ERR_PARAM_INVALID, "key", "bf16");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
    c.slots.dtype = KVG_INT16, c.slots.nbytes = 2;
    refused(&c, KVG_ERR_PARAM_INVALID, "slot_mapping", "int32");
    teardown(&c);
    setup(&c, 1, 1, 64, 64, 1, KVG_INT32, slots);
    c.a.key_scale_cache = NULL;
    refused(&c, KVG_ERR_PARAM_NULLPTR, "key_scale_cache", NULL);
    teardown(&c);
}

/* Bs 65536 (a multiple of 64, one past the PA_NZ scatter's bound): a 4 MiB
 * key_cache [1, 1, 2, 65536, 32], refused by name. */
static void refused_block_size_65536(void **state)
{
    const int64_t ks[3] = {1, 1, 64}, ss[1] = {1};
    const int64_t cs[5] = {1, 1, 2, 65536, 32};
    const int64_t scs[6] = {1, 1, 4096, 1, 16, 2};
    const size_t kbytes = (size_t)65536 * 64, sbytes = (size_t)65536 * 2;
    unsigned char x[128], sl[4], ws[256];
    unsigned char *kb = (unsigned char *)kvgt_alloc_poisoned(kbytes, 1);
    unsigned char *sb = (unsigned char *)kvgt_alloc_poisoned(sbytes, 2);
    kvg_tensor key, slots, kc, sc;
    kvg_c8_mxfp_k_cache_args a;
    const int32_t one = 1;
    kvg_diag d;
    (void)state;

    memset(x, 0, sizeof x);
    memcpy(sl, &one, 4);
    key = kvg_tensor_make(x, sizeof x, KVG_BF16, 3, ks);
    slots = kvg_tensor_make(sl, 4, KVG_INT32, 1, ss);
    kc = kvg_tensor_make(kb, kbytes, KVG_FP8_E4M3FN, 5, cs);
    sc = kvg_tensor_make(sb, sbytes, KVG_UINT8, 6, scs);
    kvg_c8_mxfp_k_cache_args_init(&a);
    a.key = &key, a.slot_mapping = &slots, a.key_cache = &kc;
    a.key_scale_cache = &sc, a.workspace = ws, a.workspace_size = sizeof ws;
    memset(&d, 0, sizeof d);
    assert_int_equal(kvg_c8_mxfp_k_cache(&a, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "key_cache");
    assert_non_null(strstr(d.message, "65536"));
    free(kb);
    free(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_pad_row),
        cmocka_unit_test(pad_rows_sink),
        cmocka_unit_test(slot0_without_pad),
        cmocka_unit_test(layout_is_the_source),
        cmocka_unit_test(wide_keys),
        cmocka_unit_test(nonfinite_block),
        cmocka_unit_test(refused_slots),
        cmocka_unit_test(refused_values),
        cmocka_unit_test(refused_shapes),
        cmocka_unit_test(refused_block_size_65536),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
