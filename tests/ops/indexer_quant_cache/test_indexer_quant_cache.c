/*
 * tests/ops/indexer_quant_cache/test_indexer_quant_cache.c -
 * IndexerQuantCache on calls whose every byte of BOTH caches is derived
 * here from first principles: the codes from the formats' bit layouts,
 * the scales from the kernel's rules (docs/indexer_quant_cache.md), the
 * binary32 products and reciprocals checked with NumPy float32 where a
 * comment gives their bits. fl(1/448) = 0x3B124925 and 448 * fl(1/448) =
 * 1.0 exactly (as fl(1/57344) * 57344). Both caches start poisoned; every
 * byte outside a written slot's codes and scales must keep its poison, and
 * a refused call must leave both byte-identical.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/indexer_quant_cache.h"
#include "src/registry/op_desc.h"

#define MAXB 2048

typedef struct call {
    kvg_indexer_quant_cache_args a;
    kvg_tensor x, slots, cache, scale;
    unsigned char xb[MAXB], sb[64], cb[MAXB], kb[MAXB];
    unsigned char cache0[MAXB], scale0[MAXB];
    unsigned char ws[4096];
} call;

static void put16(unsigned char *at, unsigned v)
{
    at[0] = (unsigned char)(v & 0xFF);
    at[1] = (unsigned char)(v >> 8);
}

static int64_t numel4(const int64_t *s) { return s[0] * s[1] * s[2] * s[3]; }

/* x [tokens, d] of +0 in xdt, slots of sdt, the two caches poisoned. */
static void setup(call *c, int64_t tokens, int64_t d, kvg_dtype xdt,
                  kvg_dtype sdt, const int64_t *slot_values, kvg_dtype cdt,
                  const int64_t *cshape, kvg_dtype kdt, const int64_t *kshape)
{
    const int64_t xs[2] = {tokens, d};
    const size_t ks = kvg_dtype_size(kdt);
    int64_t t;

    memset(c, 0, sizeof *c);
    kvg_indexer_quant_cache_args_init(&c->a);
    assert_true(tokens * d * 2 <= MAXB);
    c->x = kvg_tensor_make(c->xb, (size_t)(tokens * d * 2), xdt, 2, xs);
    c->slots = kvg_tensor_make(c->sb,
                               (size_t)tokens * (sdt == KVG_INT32 ? 4 : 8),
                               sdt, 1, xs);
    for (t = 0; t < tokens; t++) {
        if (sdt == KVG_INT32) {
            const int32_t v = (int32_t)slot_values[t];
            memcpy(c->sb + 4 * t, &v, 4);
        } else {
            memcpy(c->sb + 8 * t, &slot_values[t], 8);
        }
    }
    assert_true(numel4(cshape) <= MAXB && numel4(kshape) * (int64_t)ks <= MAXB);
    kvgt_poison(c->cb, (size_t)numel4(cshape), 36);
    kvgt_poison(c->kb, (size_t)numel4(kshape) * ks, 37);
    c->cache = kvg_tensor_make(c->cb, (size_t)numel4(cshape), cdt, 4, cshape);
    c->scale = kvg_tensor_make(c->kb, (size_t)numel4(kshape) * ks, kdt, 4,
                               kshape);
    memcpy(c->cache0, c->cb, c->cache.nbytes);
    memcpy(c->scale0, c->kb, c->scale.nbytes);
    c->a.x = &c->x;
    c->a.slot_mapping = &c->slots;
    c->a.cache = &c->cache;
    c->a.cache_scale = &c->scale;
    c->a.workspace = c->ws;
    c->a.workspace_size = sizeof c->ws;
}

static unsigned char *xrow(call *c, int64_t t)
{
    return c->xb + t * c->x.shape[1] * 2;
}

static kvg_status run(call *c, kvg_diag *d)
{
    memset(d, 0, sizeof *d);
    return kvg_indexer_quant_cache(&c->a, d);
}

/* The images both caches must hold: the poison, with rows written. */
typedef struct image {
    unsigned char cache[MAXB], scale[MAXB];
} image;

static void image_start(const call *c, image *w)
{
    memcpy(w->cache, c->cache0, c->cache.nbytes);
    memcpy(w->scale, c->scale0, c->scale.nbytes);
}

static void image_check(const call *c, const image *w, const char *what)
{
    kvgt_assert_bytes_equal(c->cb, w->cache, c->cache.nbytes, what);
    kvgt_assert_bytes_equal(c->kb, w->scale, c->scale.nbytes, what);
}

static void put32(unsigned char *at, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

/* Mode 0, e4m3, bf16 x, d = 64 (two MX groups); cache [2, 2, 1, 72]
 * (bytes 64..71 of a row untouched), cache_scale [2, 2, 1, 4] e8m0 (bytes
 * 2..3 untouched). Token 0 -> slot 3 (the last), 1 -> -1 (its x is NaN:
 * never read), 2 -> slot 0. Both slot dtypes.
 *   t0 group 0 = [448, 1 x 30, -3]: s = 1.0, R-CEIL code 127, codes 0x7E,
 *      0x38, -3 = -1.5 * 2^1 -> 0xC4. group 1 all zero: the 1e-4 floor,
 *      s = fl(1e-4) * fl(1/448) in [2^-23, 2^-22), M != 0 -> code 105,
 *      codes 0.
 *   t2 group 0 = 2.0: s = 0x3B924925 (E 119, M != 0) -> code 120, s' =
 *      2^-7, 2 / 2^-7 = 256 -> 0x78. group 1 = -0.5: s = 0x3A924925 ->
 *      code 118, -0.5 / 2^-9 = -256 -> 0xF8. */
static void mode0_mxfp8(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {2, 2, 1, 72}, ks[4] = {2, 2, 1, 4};
    const int64_t slots[3] = {3, -1, 0};
    const kvg_dtype sdts[2] = {KVG_INT32, KVG_INT64};
    kvg_diag d;
    int k, j;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, 3, 64, KVG_BF16, sdts[k], slots, KVG_FP8_E4M3FN, cs,
              KVG_E8M0, ks);
        c.a.quant_mode = 0;
        c.a.round_scale = 0; /* not read by mode 0 */
        for (j = 0; j < 31; j++)
            put16(xrow(&c, 0) + 2 * j, 0x3F80);
        put16(xrow(&c, 0), 0x43E0);          /* 448 */
        put16(xrow(&c, 0) + 2 * 31, 0xC040); /* -3 */
        for (j = 0; j < 64; j++) {
            put16(xrow(&c, 1) + 2 * j, 0x7FC0); /* skipped */
            put16(xrow(&c, 2) + 2 * j, j < 32 ? 0x4000 : 0xBF00);
        }
        assert_int_equal(run(&c, &d), KVG_OK);
        image_start(&c, &w);
        w.cache[3 * 72] = 0x7E;
        memset(w.cache + 3 * 72 + 1, 0x38, 30);
        w.cache[3 * 72 + 31] = 0xC4;
        memset(w.cache + 3 * 72 + 32, 0, 32);
        w.scale[3 * 4] = 127, w.scale[3 * 4 + 1] = 105;
        memset(w.cache, 0x78, 32);
        memset(w.cache + 32, 0xF8, 32);
        w.scale[0] = 120, w.scale[1] = 118;
        image_check(&c, &w, "mode 0 e4m3");
    }
}

/* Mode 0, e5m2, fp16 x, d = 32: [57344, 1, 0...]: s = 1.0, code 127,
 * 57344 -> 0x7B, 1 -> 0x3C. cache [1, 2, 1, 32], cache_scale [1, 2, 1, 1];
 * token 0 -> slot 1. */
static void mode0_e5m2_fp16(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {1, 2, 1, 32}, ks[4] = {1, 2, 1, 1};
    const int64_t slots[1] = {1};
    kvg_diag d;
    (void)state;

    setup(&c, 1, 32, KVG_FP16, KVG_INT32, slots, KVG_FP8_E5M2, cs, KVG_E8M0,
          ks);
    c.a.quant_mode = 0;
    put16(xrow(&c, 0), 0x7B00); /* 57344 */
    put16(xrow(&c, 0) + 2, 0x3C00);
    assert_int_equal(run(&c, &d), KVG_OK);
    image_start(&c, &w);
    memset(w.cache + 32, 0, 32);
    w.cache[32] = 0x7B, w.cache[33] = 0x3C;
    w.scale[1] = 127;
    image_check(&c, &w, "mode 0 e5m2 fp16");
}

/* Mode 1, e4m3, fp16 x, d = 32, one fp32 scale a row. cache [1, 3, 1, 40],
 * cache_scale [1, 3, 1, 2] fp32 (the second float untouched).
 *   t0 -> slot 2: [672, 1, -1.5, 0...]: s = 672 * fl(1/448) = 0x3FC00001
 *      (NumPy float32). round_scale 0: inv = fl(1/s) = 0x3F2AAAAA; 672 *
 *      inv = 447.99997 -> 0x7E, 0.6666666 -> 0x33 (1.333 * 2^-1 nearer
 *      1.375), -0.99999994 -> 0xB8; stored 0x3FC00001. round_scale 1:
 *      s' = 2.0 (0x40000000), 336 = tie 320 / 352 -> even 320 = 0x7A,
 *      0.5 -> 0x30, -0.75 -> 0xB4.
 *   t1 -> slot 0: a zero row with -0 at column 5: scale 0.0, codes 0 and
 *      0x80 (x is kept where x * inv is not finite). */
static void mode1_normal(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {1, 3, 1, 40}, ks[4] = {1, 3, 1, 2};
    const int64_t slots[2] = {2, 0};
    kvg_diag d;
    int rs;
    (void)state;

    for (rs = 0; rs < 2; rs++) {
        setup(&c, 2, 32, KVG_FP16, KVG_INT64, slots, KVG_FP8_E4M3FN, cs,
              KVG_FP32, ks);
        c.a.quant_mode = 1;
        c.a.round_scale = rs;
        put16(xrow(&c, 0), 0x6140); /* 672 */
        put16(xrow(&c, 0) + 2, 0x3C00);
        put16(xrow(&c, 0) + 4, 0xBE00); /* -1.5 */
        put16(xrow(&c, 1) + 10, 0x8000);
        assert_int_equal(run(&c, &d), KVG_OK);
        image_start(&c, &w);
        memset(w.cache + 2 * 40, 0, 32);
        w.cache[80] = rs ? 0x7A : 0x7E;
        w.cache[81] = rs ? 0x30 : 0x33;
        w.cache[82] = rs ? 0xB4 : 0xB8;
        put32(w.scale + 2 * 8, rs ? 0x40000000u : 0x3FC00001u);
        memset(w.cache, 0, 32);
        w.cache[5] = 0x80;
        put32(w.scale, 0);
        image_check(&c, &w, rs ? "mode 1 round_scale" : "mode 1");
    }
}

/* Mode 2, bf16 x, d = 32, x_scale 2: [1, -3, 0.5, 0, ..., 20480]:
 * HiF8 (docs/formats.md) 2 -> 0x10, -6 = -1.5 * 2^2 -> 0xA4, 1 -> 0x08,
 * 0 -> 0x00, 40960 -> the overflow tie, saturated to 32768 = 0x6E.
 * cache uint8 [2, 1, 1, 32], cache_scale fp32 [2, 1, 1, 1]: the kernel
 * copies an unset buffer there; kvgold writes 4 zero bytes. Token 0 ->
 * slot 1, token 1 -> -1. */
static void mode2_hif8(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {2, 1, 1, 32}, ks[4] = {2, 1, 1, 1};
    const int64_t slots[2] = {1, -1};
    kvg_diag d;
    (void)state;

    setup(&c, 2, 32, KVG_BF16, KVG_INT32, slots, KVG_UINT8, cs, KVG_FP32, ks);
    c.a.quant_mode = 2;
    c.a.x_scale = 2.0;
    put16(xrow(&c, 0), 0x3F80);
    put16(xrow(&c, 0) + 2, 0xC040);
    put16(xrow(&c, 0) + 4, 0x3F00);
    put16(xrow(&c, 0) + 62, 0x46A0); /* 20480 */
    assert_int_equal(run(&c, &d), KVG_OK);
    image_start(&c, &w);
    memset(w.cache + 32, 0, 32);
    w.cache[32] = 0x10, w.cache[33] = 0xA4, w.cache[34] = 0x08;
    w.cache[63] = 0x6E;
    put32(w.scale + 4, 0);
    image_check(&c, &w, "mode 2 hif8");
}

/* Mode 3, fp4 e2m1, bf16 x, d = 64: cache [1, 4, 1, 40] (bytes 32..39 of
 * a row untouched), cache_scale e8m0 [1, 4, 1, 2].
 *   t0 -> slot 1: group 0 [6, 5, 0...]: E(6) = 129, code 127, multiplier
 *      1: 6 -> 0x7, 5 -> tie 4 / 6 -> even 4 = 0x6: byte 0x67. group 1
 *      [-0.5, 1, 0...]: E(1) = 127 -> code 125, x * 4: -2 -> 0xC, 4 ->
 *      0x6: byte 0x6C.
 *   t1 -> slot 3: group 0 [2^-126 (bf16 0x0080, E 1)]: code 0, multiplier
 *      2^127: 2 -> 0x4. group 1 [bf16 subnormal 0x0001]: E 0: code 0,
 *      multiplier 0, codes 0. */
static void mode3_mxfp4(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {1, 4, 1, 40}, ks[4] = {1, 4, 1, 2};
    const int64_t slots[2] = {1, 3};
    kvg_diag d;
    (void)state;

    setup(&c, 2, 64, KVG_BF16, KVG_INT32, slots, KVG_FP4_E2M1, cs, KVG_E8M0,
          ks);
    c.a.quant_mode = 3;
    put16(xrow(&c, 0), 0x40C0);
    put16(xrow(&c, 0) + 2, 0x40A0);
    put16(xrow(&c, 0) + 64, 0xBF00);
    put16(xrow(&c, 0) + 66, 0x3F80);
    put16(xrow(&c, 1), 0x0080);
    put16(xrow(&c, 1) + 64, 0x0001);
    assert_int_equal(run(&c, &d), KVG_OK);
    image_start(&c, &w);
    memset(w.cache + 40, 0, 32);
    w.cache[40] = 0x67, w.cache[56] = 0x6C;
    w.scale[2] = 127, w.scale[3] = 125;
    memset(w.cache + 120, 0, 32);
    w.cache[120] = 0x04;
    w.scale[6] = 0, w.scale[7] = 0;
    image_check(&c, &w, "mode 3 bf16");
}

/* Mode 3 with fp16 x, d = 32: [6, 5 + 2^-8 (0x4501), 5 (0x4500), 0x4508,
 * 0...]. The kernel truncates fp16 to bf16 after setting bit 3 where the
 * low byte is 1..7: 0x4501 -> 0x4509 -> bf16 5.03125 -> 6 (0x7); a plain
 * truncation would give the tie 5.0 -> 4 (0x6). 0x4500 -> 5 -> 0x6;
 * 0x4508 (no fix) -> 5.03125 -> 0x7. Code 127 (amax 6). */
static void mode3_fp16_sticky(void **state)
{
    static call c;
    static image w;
    const int64_t cs[4] = {1, 1, 1, 16}, ks[4] = {1, 1, 1, 1};
    const int64_t slots[1] = {0};
    kvg_diag d;
    (void)state;

    setup(&c, 1, 32, KVG_FP16, KVG_INT32, slots, KVG_FP4_E2M1, cs, KVG_E8M0,
          ks);
    c.a.quant_mode = 3;
    put16(xrow(&c, 0), 0x4600);
    put16(xrow(&c, 0) + 2, 0x4501);
    put16(xrow(&c, 0) + 4, 0x4500);
    put16(xrow(&c, 0) + 6, 0x4508);
    assert_int_equal(run(&c, &d), KVG_OK);
    image_start(&c, &w);
    memset(w.cache, 0, 16);
    w.cache[0] = 0x77, w.cache[1] = 0x76;
    w.scale[0] = 127;
    image_check(&c, &w, "mode 3 fp16");
}

/* A refused call: the status, the tensor or attribute named, and both
 * caches byte-identical. */
static void refused(call *c, const char *name, const char *words)
{
    kvg_diag d;

    assert_int_equal(run(c, &d), KVG_ERR_PARAM_INVALID);
    if (strcmp(d.tensor, name) != 0 || strstr(d.message, words) == NULL)
        fail_msg("want %s / \"%s\", got %s / \"%s\"", name, words, d.tensor,
                 d.message);
    kvgt_assert_bytes_equal(c->cb, c->cache0, c->cache.nbytes,
                            "cache after a refused call");
    kvgt_assert_bytes_equal(c->kb, c->scale0, c->scale.nbytes,
                            "cache_scale after a refused call");
}

/* The default call of the refusals: mode 0, d 64, [2, 2, 1, 64] + e8m0
 * [2, 2, 1, 2], slots ok. */
static void base(call *c, const int64_t *slots, kvg_dtype cdt, kvg_dtype kdt,
                 int64_t head, int64_t sdim)
{
    const int64_t cs[4] = {2, 2, 1, head}, ks[4] = {2, 2, 1, sdim};

    setup(c, 2, 64, KVG_BF16, KVG_INT32, slots, cdt, cs, kdt, ks);
    c->a.quant_mode = 0;
}

static void refusals(void **state)
{
    static call c;
    const int64_t ok[2] = {0, 3}, minus2[2] = {0, -2}, past[2] = {4, 0};
    const int64_t dup[2] = {2, 2};
    const int64_t ks3[4] = {2, 3, 1, 2}, cs[4] = {2, 2, 1, 64};
    (void)state;

    base(&c, minus2, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    refused(&c, "slot_mapping", "only -1 skips");
    base(&c, past, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    refused(&c, "slot_mapping", "outside [0, 4)");
    base(&c, dup, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    refused(&c, "slot_mapping", "both write slot 2");
    base(&c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    put16(xrow(&c, 1) + 20, 0x7F80); /* +inf in a written token */
    refused(&c, "x", "not finite");
    base(&c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    c.a.quant_mode = 4;
    refused(&c, "quant_mode", "0 (MX-FP8)");
    base(&c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 63, 2);
    refused(&c, "cache", "at least 64");
    base(&c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 64, 1);
    refused(&c, "cache_scale", "scale_col = 2");
    base(&c, ok, KVG_UINT8, KVG_E8M0, 64, 2);
    refused(&c, "cache", "fp8_e4m3fn or fp8_e5m2");
    base(&c, ok, KVG_FP8_E4M3FN, KVG_FP32, 64, 2);
    refused(&c, "cache_scale", "takes e8m0");
    /* mode 1 with a uint8 cache: the kernel stores no codes */
    base(&c, ok, KVG_UINT8, KVG_FP32, 64, 1);
    c.a.quant_mode = 1;
    refused(&c, "cache", "stores no codes");
    /* mode 2 into an fp8 cache; a NaN x_scale */
    base(&c, ok, KVG_FP8_E4M3FN, KVG_FP32, 64, 1);
    c.a.quant_mode = 2;
    refused(&c, "cache", "HiFloat8 codes");
    base(&c, ok, KVG_UINT8, KVG_FP32, 64, 1);
    c.a.quant_mode = 2;
    c.a.x_scale = strtod("nan", NULL);
    refused(&c, "x_scale", "finite");
    /* mode 3: e1m2 has no codec here */
    base(&c, ok, KVG_FP4_E1M2, KVG_E8M0, 32, 2);
    c.a.quant_mode = 3;
    refused(&c, "cache", "fp4_e2m1");
    /* mode 1, bf16 x: a row of 2^-126 gives a subnormal scale */
    base(&c, ok, KVG_FP8_E4M3FN, KVG_FP32, 64, 1);
    c.a.quant_mode = 1;
    put16(xrow(&c, 0), 0x0080);
    refused(&c, "x", "subnormal scale");
    /* cache_scale with another block_size */
    setup(&c, 2, 64, KVG_BF16, KVG_INT32, ok, KVG_FP8_E4M3FN, cs, KVG_E8M0,
          ks3);
    c.a.quant_mode = 0;
    refused(&c, "cache_scale", "block_size");
    /* d not a multiple of 32 */
    {
        const int64_t c48[4] = {2, 2, 1, 48}, k48[4] = {2, 2, 1, 2};
        setup(&c, 2, 48, KVG_BF16, KVG_INT32, ok, KVG_FP8_E4M3FN, c48,
              KVG_E8M0, k48);
        c.a.quant_mode = 0;
        refused(&c, "x", "multiple of 32");
    }
}

/* The compare hook: one layout over both tensors for both names. Mode 0,
 * d 64, cache [2, 2, 1, 64] + e8m0 [2, 2, 1, 2]: codes (fp8, group 32) in
 * tensor 0 at 0, 2 scales in tensor 1 at 0; strides 64 and 2 bytes a slot,
 * 128 and 4 a block. Mode 2: the scale segment is UNDEFINED. */
static void row_layout_hook(void **state)
{
    static call c;
    const int64_t ok[2] = {0, 1};
    const kvg_op *op = kvg_op_find("indexer_quant_cache");
    kvg_i_op_args a;
    kvg_row_layout l, l2;
    (void)state;

    assert_non_null(op);
    base(&c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 64, 2);
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(op->row_layout(&a, "cache", &l, NULL), KVG_OK);
    assert_int_equal(op->row_layout(&a, "cache_scale", &l2, NULL), KVG_OK);
    assert_int_equal(memcmp(&l, &l2, sizeof l), 0);
    assert_int_equal(l.tensors, 2);
    assert_int_equal(kvg_row_tensor_of(&l, "cache"), 0);
    assert_int_equal(kvg_row_tensor_of(&l, "cache_scale"), 1);
    assert_int_equal(l.segments, 2);
    assert_int_equal(l.seg[0].field, KVG_ROW_PAYLOAD);
    assert_int_equal(l.seg[0].group, 32);
    assert_int_equal(kvg_row_segment_tensor(&l, 0), 0);
    assert_int_equal(l.seg[1].field, KVG_ROW_SCALE);
    assert_int_equal(l.seg[1].count, 2);
    assert_int_equal(kvg_row_segment_tensor(&l, 1), 1);
    assert_int_equal(kvg_row_segment_at(&l, 3, 0), 3 * 64);
    assert_int_equal(kvg_row_segment_at(&l, 3, 1), 3 * 2);
    assert_int_equal(l.block_stride[0], 128);
    assert_int_equal(l.block_stride[1], 4);
    assert_int_equal(op->row_layout(&a, "x", &l, NULL), KVG_OK);
    assert_int_equal(l.segments, 0);
    base(&c, ok, KVG_UINT8, KVG_FP32, 64, 1);
    c.a.quant_mode = 2;
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(op->row_layout(&a, "cache_scale", &l, NULL), KVG_OK);
    assert_int_equal(l.seg[1].field, KVG_ROW_UNDEFINED);
    assert_int_equal(kvg_row_segment_at(&l, 3, 1), 3 * 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mode0_mxfp8),
        cmocka_unit_test(mode0_e5m2_fp16),
        cmocka_unit_test(mode1_normal),
        cmocka_unit_test(mode2_hif8),
        cmocka_unit_test(mode3_mxfp4),
        cmocka_unit_test(mode3_fp16_sticky),
        cmocka_unit_test(refusals),
        cmocka_unit_test(row_layout_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
