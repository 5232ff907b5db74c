/*
 * tests/ops/indexer_compress_epilog/test_indexer_compress_epilog.c - the
 * indexer compress epilogs on calls whose every byte of every cache is
 * derived here from first principles: codes from the formats' bit
 * layouts, scales from the kernels' rules (docs/indexer_compress_epilog.md),
 * binary32 products and quotients checked with NumPy float32 where a
 * comment gives their bits: fl(1/448) = 0x3B124925; 448 * it = 1.0,
 * 7 * it = 2^-6, 2 * it = 0x3B924925, 3 * it = 0x3BDB6DB8; 2 / (2 * it) =
 * 447.99997 (e4m3 0x7E), 1 / (3 * it) = 149.33333 (e4m3 144 = 0x71);
 * fl(1e-4) * it = 0x346FACAD, E = 104. Caches start poisoned; every byte
 * outside a written slot's codes and scales must keep its poison, and a
 * refused call must leave them byte-identical.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/indexer_compress_epilog.h"
#include "kvgold/row_layout.h"
#include "src/registry/op_desc.h"

#define MAXB 4096

typedef struct call {
    kvg_indexer_compress_epilog_args a;
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

static void put32(unsigned char *at, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

static int64_t numel(int rank, const int64_t *s)
{
    int64_t n = 1;
    int i;

    for (i = 0; i < rank; i++)
        n *= s[i];
    return n;
}

/* x [tokens, d] of +0 in xdt, int32 slots, the caches poisoned (crank 0:
 * no cache_scale). */
static void setup(call *c, int64_t tokens, int64_t d, kvg_dtype xdt,
                  const int32_t *slot_values, kvg_dtype cdt, int crank,
                  const int64_t *cshape, kvg_dtype kdt, int krank,
                  const int64_t *kshape)
{
    const int64_t xs[2] = {tokens, d};
    const size_t ks = krank ? kvg_dtype_size(kdt) : 1;
    const int64_t cn = numel(crank, cshape) * (int64_t)kvg_dtype_size(cdt);
    const int64_t kn = krank ? numel(krank, kshape) * (int64_t)ks : 0;

    memset(c, 0, sizeof *c);
    kvg_indexer_compress_epilog_args_init(&c->a);
    assert_true(tokens * d * 2 <= MAXB && cn <= MAXB && kn <= MAXB);
    c->x = kvg_tensor_make(c->xb, (size_t)(tokens * d * 2), xdt, 2, xs);
    c->slots = kvg_tensor_make(c->sb, (size_t)tokens * 4, KVG_INT32, 1, xs);
    memcpy(c->sb, slot_values, (size_t)tokens * 4);
    kvgt_poison(c->cb, (size_t)cn, 46);
    c->cache = kvg_tensor_make(c->cb, (size_t)cn, cdt, crank, cshape);
    memcpy(c->cache0, c->cb, (size_t)cn);
    c->a.x = &c->x;
    c->a.slot_mapping = &c->slots;
    c->a.cache = &c->cache;
    if (krank) {
        kvgt_poison(c->kb, (size_t)kn, 47);
        c->scale = kvg_tensor_make(c->kb, (size_t)kn, kdt, krank, kshape);
        memcpy(c->scale0, c->kb, (size_t)kn);
        c->a.cache_scale = &c->scale;
    }
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
    return kvg_indexer_compress_epilog(&c->a, d);
}

/* The images the caches must hold: the poison, with rows written. */
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

#define BF16_NAN 0x7FC0u
#define BF16_NEG0 0x8000u

/* cr mode 1, e4m3, bf16 x, d = 200: groups of 128 and 72 (the short last
 * group), scale_col 2. cache [4, 200], cache_scale [4, 2] fp32. Token 0 ->
 * slot 3 (the last), 1 -> -1 (its x holds a NaN: never read), 2 -> 0.
 *   t0 g0: x0 = 448, x5 = -3, x7 = 1: s = 448 * fl(1/448) = 1.0, codes
 *          448 -> 0x7E, -3 -> 0xC4, 1 -> 0x38, +0 -> 0x00.
 *   t0 g1: all +0 but x130 = -0: s = 0 (zero group), x / 0 is NaN so x
 *          is kept: codes 0x00 and 0x80 (-0); scale 0.0.
 *   t2 g0: every x = 2: s = 0x3B924925, q = 447.99997 -> 0x7E.
 *   t2 g1: x128 = 3, x129 = 1: s = 0x3BDB6DB8, 3 -> 0x7E, 1 -> 144 =
 *          0x71, +0 -> 0x00. */
static void cr_mode1(void **state)
{
    const int32_t slots[3] = {3, -1, 0};
    const int64_t cs[2] = {4, 200}, ks[2] = {4, 2};
    call *c = malloc(sizeof *c);
    image *w = malloc(sizeof *w);
    kvg_diag d;
    int i;

    (void)state;
    assert_non_null(c);
    assert_non_null(w);
    setup(c, 3, 200, KVG_BF16, slots, KVG_FP8_E4M3FN, 2, cs, KVG_FP32, 2,
          ks);
    put16(xrow(c, 0) + 0, 0x43E0); /* 448 */
    put16(xrow(c, 0) + 10, 0xC040); /* -3 */
    put16(xrow(c, 0) + 14, 0x3F80); /* 1 */
    put16(xrow(c, 0) + 260, BF16_NEG0);
    put16(xrow(c, 1) + 20, BF16_NAN);
    for (i = 0; i < 128; i++)
        put16(xrow(c, 2) + 2 * i, 0x4000); /* 2 */
    put16(xrow(c, 2) + 256, 0x4040); /* 3 */
    put16(xrow(c, 2) + 258, 0x3F80); /* 1 */
    assert_int_equal(run(c, &d), KVG_OK);
    image_start(c, w);
    memset(w->cache + 3 * 200, 0, 200);
    w->cache[3 * 200 + 0] = 0x7E;
    w->cache[3 * 200 + 5] = 0xC4;
    w->cache[3 * 200 + 7] = 0x38;
    w->cache[3 * 200 + 130] = 0x80;
    put32(w->scale + 3 * 8, 0x3F800000u);
    put32(w->scale + 3 * 8 + 4, 0);
    memset(w->cache, 0x7E, 128);
    memset(w->cache + 128, 0, 72);
    w->cache[128] = 0x7E;
    w->cache[129] = 0x71;
    put32(w->scale, 0x3B924925u);
    put32(w->scale + 4, 0x3BDB6DB8u);
    image_check(c, w, "cr mode 1");
    free(c);
    free(w);
}

/* cr mode 0, e4m3, bf16 x, d = 128, cache [2, 128], cache_scale [2, 1]
 * e8m0. Token 0 -> slot 1: x0 = 7, x1 = -1, the rest +0: s = 7 *
 * fl(1/448) = 2^-6 exactly (E 121, mantissa 0). R-EBUMP: code 122, q =
 * x * 2^5: 224 -> 0x76, -32 -> 0xE0. R-TRUNC (round_scale false): code
 * 121, q = x / 2^-6: 448 -> 0x7E, -64 -> 0xE8. (R-CEIL would give 121
 * with 0x7E / 0xE8: EBUMP's one-binade shift shows here.) Token 1 -> slot
 * 0, all +0: the fl(1e-4) floor, s = 0x346FACAD (E 104): EBUMP 105,
 * TRUNC 104; codes 0. */
static void cr_mode0(void **state)
{
    const int32_t slots[2] = {1, 0};
    const int64_t cs[2] = {2, 128}, ks[2] = {2, 1};
    call *c = malloc(sizeof *c);
    image *w = malloc(sizeof *w);
    kvg_diag d;
    int trunc;

    (void)state;
    assert_non_null(c);
    assert_non_null(w);
    for (trunc = 0; trunc < 2; trunc++) {
        setup(c, 2, 128, KVG_BF16, slots, KVG_FP8_E4M3FN, 2, cs, KVG_E8M0,
              2, ks);
        c->a.quant_mode = 0;
        c->a.round_scale = !trunc;
        put16(xrow(c, 0) + 0, 0x40E0); /* 7 */
        put16(xrow(c, 0) + 2, 0xBF80); /* -1 */
        assert_int_equal(run(c, &d), KVG_OK);
        image_start(c, w);
        memset(w->cache, 0, 256);
        w->cache[128] = trunc ? 0x7E : 0x76;
        w->cache[129] = trunc ? 0xE8 : 0xE0;
        w->scale[1] = trunc ? 121 : 122;
        w->scale[0] = trunc ? 104 : 105;
        image_check(c, w, trunc ? "cr mode 0 R-TRUNC" : "cr mode 0 R-EBUMP");
    }
    free(c);
    free(w);
}

/* cr mode 2: hif8(x * scale), scale 0.5, uint8 cache [3, 64], cache_scale
 * [3, 1] fp32. Token 0 -> slot 2: x0 = 1, x1 = -4, rest +0; token 1 -> -1.
 * The codes are checked by what they decode to (0.5, -2, 0: powers of
 * two, exact in HiF8); the scale row of slot 2 is the kernel's unset
 * buffer, written as zeros; the rest keeps its poison. */
static void cr_mode2(void **state)
{
    const int32_t slots[2] = {2, -1};
    const int64_t cs[2] = {3, 64}, ks[2] = {3, 1};
    call *c = malloc(sizeof *c);
    image *w = malloc(sizeof *w);
    kvg_diag d;
    int i;

    (void)state;
    assert_non_null(c);
    assert_non_null(w);
    setup(c, 2, 64, KVG_FP16, slots, KVG_UINT8, 2, cs, KVG_FP32, 2, ks);
    c->a.quant_mode = 2;
    c->a.scale = 0.5;
    put16(xrow(c, 0) + 0, 0x3C00); /* fp16 1 */
    put16(xrow(c, 0) + 2, 0xC400); /* fp16 -4 */
    assert_int_equal(run(c, &d), KVG_OK);
    assert_true(kvg_hif8_to_f32(c->cb[128]) == 0.5f);
    assert_true(kvg_hif8_to_f32(c->cb[129]) == -2.0f);
    for (i = 2; i < 64; i++)
        assert_true(kvg_hif8_to_f32(c->cb[128 + i]) == 0.0f);
    image_start(c, w);
    memcpy(w->cache + 128, c->cb + 128, 64); /* judged above */
    put32(w->scale + 8, 0);
    image_check(c, w, "cr mode 2");
    free(c);
    free(w);
}

/* va_v2, bf16 x, d = 130 (groups 128 + 2), scale_col 2; cache uint8 [2,
 * 2, 1, 140]: a block is 280 bytes, codes at p * 130, scales at 260 + p *
 * 8, bytes 276..279 never written. Token 0 -> slot 3 (block 1, p 1), 1
 * -> -1, 2 -> slot 0. t0: x0 = 448, x129 = 3 (g1 amax 3: q(3) = -447.99997
 * mirrored: +3 -> 0x7E); t2: all +0 (two zero groups: scales 0.0, codes
 * 0x00). block_stride given as the dense 280. */
static void va_v2(void **state)
{
    const int32_t slots[3] = {3, -1, 0};
    const int64_t cs[4] = {2, 2, 1, 140};
    call *c = malloc(sizeof *c);
    image *w = malloc(sizeof *w);
    kvg_diag d;

    (void)state;
    assert_non_null(c);
    assert_non_null(w);
    setup(c, 3, 130, KVG_BF16, slots, KVG_UINT8, 4, cs, KVG_FP32, 0, NULL);
    c->a.impl = KVG_ICE_VA_V2;
    c->a.block_stride = 280;
    put16(xrow(c, 0) + 0, 0x43E0);   /* 448 */
    put16(xrow(c, 0) + 258, 0x4040); /* 3 */
    put16(xrow(c, 1) + 0, BF16_NAN);
    assert_int_equal(run(c, &d), KVG_OK);
    image_start(c, w);
    memset(w->cache + 280 + 130, 0, 130);
    w->cache[280 + 130] = 0x7E;
    w->cache[280 + 130 + 129] = 0x7E;
    put32(w->cache + 280 + 260 + 8, 0x3F800000u);
    put32(w->cache + 280 + 260 + 12, 0x3BDB6DB8u);
    memset(w->cache, 0, 130);
    memset(w->cache + 260, 0, 8);
    kvgt_assert_bytes_equal(c->cb, w->cache, c->cache.nbytes, "va_v2");
    free(c);
    free(w);
}

/* A refused call: status, the name in the diag, every cache untouched. */
static void refused(call *c, const char *name)
{
    kvg_diag d;

    assert_int_equal(run(c, &d), KVG_ERR_PARAM_INVALID);
    if (strcmp(d.tensor, name) != 0)
        fail_msg("refusal names %s, want %s: %s", d.tensor, name, d.message);
    kvgt_assert_bytes_equal(c->cb, c->cache0, c->cache.nbytes, "cache");
    if (c->a.cache_scale != NULL)
        kvgt_assert_bytes_equal(c->kb, c->scale0, c->scale.nbytes,
                                "cache_scale");
}

static void cr_base(call *c, const int32_t *slots, kvg_dtype cdt,
                    kvg_dtype kdt, int64_t d)
{
    const int64_t cs[2] = {4, d}, ks[2] = {4, (d + 127) / 128};
    setup(c, 2, d, KVG_BF16, slots, cdt, 2, cs, kdt, 2, ks);
}

static void refusals(void **state)
{
    static const int32_t ok[2] = {1, -1}, minus2[2] = {1, -2},
                         past[2] = {4, 0}, twice[2] = {2, 2};
    const int64_t wide[2] = {4, 160}, vs[4] = {2, 2, 1, 131};
    call *c = malloc(sizeof *c);

    (void)state;
    assert_non_null(c);
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.impl = (kvg_ice_impl)7;
    refused(c, "impl");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.quant_mode = 3;
    refused(c, "quant_mode");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.quant_mode = 0; /* MX wants e8m0 scales */
    refused(c, "cache_scale");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 128);
    refused(c, "cache_scale");
    cr_base(c, ok, KVG_UINT8, KVG_FP32, 128); /* no uint8 codes in mode 1 */
    refused(c, "cache");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.quant_mode = 2; /* HiF8 codes into fp8 */
    refused(c, "cache");
    cr_base(c, ok, KVG_UINT8, KVG_FP32, 128);
    c->a.quant_mode = 2;
    c->a.scale = 1e39;
    refused(c, "scale");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.layout = 1;
    refused(c, "layout");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.block_stride = 128;
    refused(c, "block_stride");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->cache = kvg_tensor_make(c->cb, 640, KVG_FP8_E4M3FN, 2, wide);
    refused(c, "cache");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->a.cache_scale = NULL;
    {
        kvg_diag d;
        assert_int_equal(run(c, &d), KVG_ERR_PARAM_NULLPTR);
        assert_string_equal(d.tensor, "cache_scale");
        kvgt_assert_bytes_equal(c->cb, c->cache0, c->cache.nbytes, "cache");
    }
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->slots.dtype = KVG_INT64;
    c->slots.nbytes = 16;
    refused(c, "slot_mapping");
    cr_base(c, minus2, KVG_FP8_E4M3FN, KVG_FP32, 128);
    refused(c, "slot_mapping");
    cr_base(c, past, KVG_FP8_E4M3FN, KVG_FP32, 128);
    refused(c, "slot_mapping");
    cr_base(c, twice, KVG_FP8_E4M3FN, KVG_FP32, 128);
    refused(c, "slot_mapping");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    put16(xrow(c, 0) + 6, 0x7F80); /* +Inf in a written token */
    refused(c, "x");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    put16(xrow(c, 0) + 6, 0x0001); /* amax 2^-133: subnormal scale */
    refused(c, "x");
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_E8M0, 128);
    c->a.quant_mode = 0; /* MX: the 1e-4 floor keeps s normal */
    put16(xrow(c, 0) + 6, 0x0001);
    { kvg_diag d; assert_int_equal(run(c, &d), KVG_OK); }
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 128);
    c->x.dtype = KVG_FP32;
    refused(c, "x");
    /* va_v2 */
    setup(c, 2, 128, KVG_BF16, ok, KVG_UINT8, 4, vs, KVG_FP32, 0, NULL);
    c->a.impl = KVG_ICE_VA_V2;
    refused(c, "cache"); /* 131 < 128 + 4 */
    free(c);
}

/* va_v2's own refusals, each on an otherwise valid call. */
static void va_refusals(void **state)
{
    static const int32_t ok[2] = {1, -1};
    const int64_t vs[4] = {2, 2, 1, 132}, v3[3] = {2, 2, 132},
                  v2[4] = {2, 1, 2, 132}, ks[2] = {4, 1};
    call *c = malloc(sizeof *c);
    kvg_diag d;

    (void)state;
    assert_non_null(c);
#define VA() setup(c, 2, 128, KVG_BF16, ok, KVG_UINT8, 4, vs, KVG_FP32, 0, \
                   NULL), c->a.impl = KVG_ICE_VA_V2
    VA();
    assert_int_equal(run(c, &d), KVG_OK);
    VA();
    c->a.layout = 1;
    refused(c, "layout");
    VA();
    c->a.quant_mode = 0;
    refused(c, "quant_mode");
    VA();
    c->a.round_scale = 0;
    refused(c, "round_scale");
    VA();
    c->a.scale = 2.0;
    refused(c, "scale");
    VA();
    c->a.block_stride = 264 + 32;
    refused(c, "block_stride");
    VA();
    c->cache.dtype = KVG_FP8_E4M3FN;
    refused(c, "cache");
    VA();
    c->cache = kvg_tensor_make(c->cb, 528, KVG_UINT8, 3, v3);
    refused(c, "cache");
    VA();
    c->cache = kvg_tensor_make(c->cb, 528, KVG_UINT8, 4, v2);
    refused(c, "cache");
    VA();
    c->scale = kvg_tensor_make(c->kb, 16, KVG_FP32, 2, ks);
    c->a.cache_scale = &c->scale;
    refused(c, "cache_scale");
#undef VA
    free(c);
}

/* The row_layout hook: the layout the writes use, per impl. */
static void row_layout_hook(void **state)
{
    static const int32_t ok[2] = {1, -1};
    const int64_t vs[4] = {2, 2, 1, 140};
    const kvg_op *op = kvg_op_find("indexer_compress_epilog");
    call *c = malloc(sizeof *c);
    kvg_i_op_args a;
    kvg_row_layout l;

    (void)state;
    assert_non_null(c);
    assert_non_null(op);
    assert_non_null(op->row_layout);
    cr_base(c, ok, KVG_FP8_E4M3FN, KVG_FP32, 200);
    memset(&a, 0, sizeof a);
    memcpy(a.u.bytes, &c->a, sizeof c->a);
    assert_int_equal(op->row_layout(&a, "cache_scale", &l, NULL), KVG_OK);
    assert_int_equal(l.tensors, 2);
    assert_int_equal(kvg_row_tensor_of(&l, "cache_scale"), 1);
    assert_int_equal(l.segments, 4); /* codes, tail; their scales */
    assert_int_equal(l.seg[0].group, 128);
    assert_int_equal(l.seg[1].count, 72);
    assert_int_equal(kvg_row_segment_at(&l, 3, 1), 3 * 200 + 128);
    assert_int_equal(kvg_row_segment_at(&l, 3, 3), 3 * 8 + 4);
    assert_int_equal(op->row_layout(&a, "x", &l, NULL), KVG_OK);
    assert_int_equal(l.segments, 0);
    setup(c, 2, 130, KVG_BF16, ok, KVG_UINT8, 4, vs, KVG_FP32, 0, NULL);
    c->a.impl = KVG_ICE_VA_V2;
    memcpy(a.u.bytes, &c->a, sizeof c->a);
    assert_int_equal(op->row_layout(&a, "cache", &l, NULL), KVG_OK);
    assert_int_equal(l.tensors, 1);
    assert_int_equal(kvg_row_segment_at(&l, 3, 0), 280 + 130);
    assert_int_equal(kvg_row_segment_at(&l, 3, 2), 280 + 260 + 8);
    assert_int_equal(op->row_layout(&a, "cache_scale", &l, NULL), KVG_OK);
    assert_int_equal(l.segments, 0);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cr_mode1),
        cmocka_unit_test(cr_mode0),
        cmocka_unit_test(cr_mode2),
        cmocka_unit_test(va_v2),
        cmocka_unit_test(refusals),
        cmocka_unit_test(va_refusals),
        cmocka_unit_test(row_layout_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
