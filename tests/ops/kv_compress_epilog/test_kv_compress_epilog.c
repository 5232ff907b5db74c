/*
 * tests/ops/kv_compress_epilog/test_kv_compress_epilog.c - KvCompressEpilog
 * on calls whose every cache byte is derived here from first principles:
 * the row of each preset from the tiling formulas, the codes from the
 * formats' bit layouts (derivations in tests/test_group_quant.c: amax 448
 * -> s = 1.0 exactly, R-CEIL code 127, 448 -> e4m3 0x7E, 1 -> 0x38; a zero
 * group under R-CEIL -> code 105, s' = 2^-22 = bf16 0x3480; cr_v2 mxfp4
 * amax 6 -> scale bf16 0x3F80, 6 -> 0x7, 5 -> tie 4 -> 0x6). Every byte
 * not in a written slot's segments must keep its poison; every refused
 * call must leave the cache byte-identical.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/kv_compress_epilog.h"
#include "src/ops/kv_compress_epilog/internal.h"
#include "src/registry/op_desc.h"

#define MAXB 4096

typedef struct call {
    kvg_kv_compress_epilog_args a;
    kvg_tensor x, slots, cache;
    unsigned char xb[MAXB], sb[64], cb[MAXB], before[MAXB];
    unsigned char ws[4096];
} call;

static void put16(unsigned char *at, unsigned v)
{
    at[0] = (unsigned char)(v & 0xFF);
    at[1] = (unsigned char)(v >> 8);
}

/* x [tokens, d] of +0, slots of `sdt`, a poisoned cache of `shape`. */
static void setup(call *c, int64_t tokens, int64_t d, kvg_dtype sdt,
                  const int64_t *slot_values, kvg_dtype cdt, int crank,
                  const int64_t *cshape)
{
    const int64_t xs[2] = {tokens, d};
    int64_t n = 1, t;
    int i;

    memset(c, 0, sizeof *c);
    kvg_kv_compress_epilog_args_init(&c->a);
    c->x = kvg_tensor_make(c->xb, (size_t)(tokens * d * 2), KVG_BF16, 2, xs);
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
    for (i = 0; i < crank; i++)
        n *= cshape[i];
    assert_true(n <= MAXB);
    kvgt_poison(c->cb, (size_t)n, 36);
    c->cache = kvg_tensor_make(c->cb, (size_t)n, cdt, crank, cshape);
    memcpy(c->before, c->cb, (size_t)n);
    c->a.x = &c->x;
    c->a.slot_mapping = &c->slots;
    c->a.cache = &c->cache;
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
    return kvg_kv_compress_epilog(&c->a, d);
}

/* The expected image: the poison, with `row` bytes at `at`. */
static void expect(const call *c, int64_t at, const unsigned char *row,
                   size_t len, const char *what)
{
    unsigned char want[MAXB];

    memcpy(want, c->before, c->cache.nbytes);
    memcpy(want + at, row, len);
    kvgt_assert_bytes_equal(c->cb, want, c->cache.nbytes, what);
}

/* ot mode 1, d = 128 (one group of 64 + the rope), 4-D cache [2, 2, 1,
 * 200]: the row is [rope 128 | e4m3 64 | e8m0 1] = 193 bytes, bytes
 * 193..199 of the row untouched. Token 0 -> slot 3 (the last: block 1,
 * row 1, at 3 * 200), token 1 -> -1 (skipped). nope = [448, 1, 1, ...,
 * -3]: R-CEIL code 127, codes 0x7E, 0x38..., -3 -> 0xC4. Rope columns
 * 64..127 hold bf16 codes 0x4000 + j: copied byte for byte. Both slot
 * dtypes. */
static void ot_mode1(void **state)
{
    static call c;
    const int64_t shape[4] = {2, 2, 1, 200}, slots[2] = {3, -1};
    const kvg_dtype sdts[2] = {KVG_INT32, KVG_INT64};
    unsigned char row[193];
    kvg_diag d;
    int k, j;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, 2, 128, sdts[k], slots, KVG_UINT8, 4, shape);
        for (j = 0; j < 64; j++)
            put16(xrow(&c, 0) + 2 * j, 0x3F80); /* 1.0 */
        put16(xrow(&c, 0), 0x43E0);             /* 448 */
        put16(xrow(&c, 0) + 2 * 63, 0xC040);    /* -3 */
        for (j = 64; j < 128; j++) {
            put16(xrow(&c, 0) + 2 * j, 0x4000u + (unsigned)j);
            put16(xrow(&c, 1) + 2 * j, 0x7F80); /* skipped: never read */
        }
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(row, xrow(&c, 0) + 128, 128);
        row[128] = 0x7E;
        memset(row + 129, 0x38, 62);
        row[191] = 0xC4;
        row[192] = 127;
        expect(&c, 3 * 200, row, sizeof row, "ot mode 1 slot 3");
    }
}

/* ot mode 0, d = 128, an all-zero nope: R-CEIL on the 1e-4 floor, code
 * 105, stored as bf16 2^-22 = 0x3480; codes 0; the row 128 + 64 + 2 = 194
 * padded with zeros to 224. 2-D cache [1, 224] (one slot, slot 0). */
static void ot_mode0_zero_group(void **state)
{
    static call c;
    const int64_t shape[2] = {1, 224}, slots[1] = {0};
    unsigned char row[224];
    kvg_diag d;
    (void)state;

    setup(&c, 1, 128, KVG_INT32, slots, KVG_UINT8, 2, shape);
    c.a.quant_mode = 0;
    memset(xrow(&c, 0) + 128, 0x11, 128); /* the rope: bf16 0x1111 */
    assert_int_equal(run(&c, &d), KVG_OK);
    memset(row, 0, sizeof row);
    memset(row, 0x11, 128);
    row[192] = 0x80, row[193] = 0x34;
    expect(&c, 0, row, sizeof row, "ot mode 0 zero group");
}

/* cr_v2 mode 4, d = 32, g 32, layout 1: [fp4 16 B | bf16 scale 2 B | pad
 * 14] = 32-byte rows, 2-D cache [3, 32]. Slots -1, -3 and 3 (= rows) are
 * skipped; token 3 -> slot 1: x = [6, 5, 0, ...]: scale 0x3F80, first
 * byte 0x67 (low nibble 6 -> 0x7, high 5 -> 0x6), the rest 0. */
static void cr_v2_mxfp4_skips(void **state)
{
    static call c;
    const int64_t shape[2] = {3, 32}, slots[4] = {-1, -3, 3, 1};
    unsigned char row[32];
    kvg_diag d;
    (void)state;

    setup(&c, 4, 32, KVG_INT64, slots, KVG_UINT8, 2, shape);
    c.a.impl = KVG_KCE_CR_V2;
    c.a.quant_mode = 4;
    put16(xrow(&c, 3), 0x40C0);
    put16(xrow(&c, 3) + 2, 0x40A0);
    assert_int_equal(run(&c, &d), KVG_OK);
    memset(row, 0, sizeof row);
    row[0] = 0x67;
    row[16] = 0x80, row[17] = 0x3F;
    expect(&c, 32, row, sizeof row, "cr_v2 mode 4 slot 1");
}

/* A refused call: the status, the tensor or attribute named, and the
 * cache byte-identical. */
static void refused(call *c, const char *name, const char *words)
{
    kvg_diag d;

    assert_int_equal(run(c, &d), KVG_ERR_PARAM_INVALID);
    if (strcmp(d.tensor, name) != 0 || strstr(d.message, words) == NULL)
        fail_msg("want %s / \"%s\", got %s / \"%s\"", name, words, d.tensor,
                 d.message);
    kvgt_assert_bytes_equal(c->cb, c->before, c->cache.nbytes,
                            "cache after a refused call");
}

static void refusals(void **state)
{
    static call c;
    const int64_t shape[4] = {2, 2, 1, 200}, ok[2] = {0, 1};
    const int64_t minus2[2] = {0, -2}, past[2] = {4, 0}, dup[2] = {2, 2};
    const int64_t wide[2] = {(int64_t)1 << 32, 0};
    const int64_t narrow[4] = {2, 2, 1, 192};
    const int64_t sgk[2] = {4, 256}; /* 64 + 128 + 4 -> 256 */
    (void)state;

    setup(&c, 2, 128, KVG_INT32, minus2, KVG_UINT8, 4, shape);
    refused(&c, "slot_mapping", "only -1 skips");
    setup(&c, 2, 128, KVG_INT32, past, KVG_UINT8, 4, shape);
    refused(&c, "slot_mapping", "outside [0, 4)");
    setup(&c, 2, 128, KVG_INT64, dup, KVG_UINT8, 4, shape);
    refused(&c, "slot_mapping", "both write slot 2");
    setup(&c, 2, 128, KVG_INT32, ok, KVG_UINT8, 4, shape);
    put16(xrow(&c, 1) + 20, 0xFFC0); /* NaN in a written token */
    refused(&c, "x", "x: token 1, column 10: bf16 0xFFC0 is not finite "
                     "(refused: what the kernel does with it is not "
                     "established)"); /* half_row.h's one wording */
    setup(&c, 2, 128, KVG_INT32, ok, KVG_UINT8, 4, shape);
    c.a.quant_mode = 3;
    refused(&c, "quant_mode", "0 (fp8, bf16 scales)");
    setup(&c, 2, 128, KVG_INT32, ok, KVG_UINT8, 4, shape);
    c.a.layout = 2;
    refused(&c, "layout", "no layout attribute");
    setup(&c, 2, 128, KVG_INT32, ok, KVG_UINT8, 4, narrow);
    refused(&c, "cache", "needs 193");
    setup(&c, 2, 128, KVG_INT32, ok, KVG_FP8_E4M3FN, 4, shape);
    refused(&c, "cache", "takes uint8");
    setup(&c, 2, 128, KVG_INT32, ok, KVG_UINT8, 4, shape);
    c.a.quant_mode = 2;
    c.a.quant_group_size = 48;
    refused(&c, "quant_group_size", "16, 32 or 64");
    /* sgk: x_scale is not its attribute; an int64 slot outside int32 */
    setup(&c, 2, 128, KVG_INT32, ok, KVG_FP8_E4M3FN, 4, shape);
    c.a.impl = KVG_KCE_SGK;
    c.a.x_scale = 2.0;
    refused(&c, "x_scale", "1.0 only");
    setup(&c, 2, 128, KVG_INT64, wide, KVG_FP8_E4M3FN, 2, sgk);
    c.a.impl = KVG_KCE_SGK;
    refused(&c, "slot_mapping", "does not fit int32");
    /* sgk layout 1 strides rows by the cache's dim 0: one slot a block */
    setup(&c, 2, 128, KVG_INT32, ok, KVG_FP8_E4M3FN, 4, shape);
    c.a.impl = KVG_KCE_SGK;
    refused(&c, "cache", "needs block_size 1");
    /* cr rows are at slot * row length: no wider cache */
    setup(&c, 2, 128, KVG_INT32, ok, KVG_FP8_E4M3FN, 4, shape);
    c.a.impl = KVG_KCE_CR;
    refused(&c, "cache", "exactly 256");
}

/* cr mode 3 (hif8(x * scale), d bytes at slot * d), d = 128, x_scale =
 * -FLT_MAX, the most negative finite binary32: x = 1 -> -FLT_MAX, -0.5 ->
 * 2^127 (1 - 2^-24), -1.0078125 -> +Inf in binary32, all saturating to
 * +-32768 (0xEE, 0x6E, 0x6E); 2^-126 -> -4 (1 - 2^-24), rounding to -4 =
 * 0xA0; +0 -> -0 -> 0x00 (hif8 has no -0). Refused: the next double past
 * FLT_MAX (printed in full, not as FLT_MAX), -2 FLT_MAX, -Inf and NaN,
 * naming x_scale, the cache untouched. */
static void cr_mode3_x_scale_bounds(void **state)
{
    static call c;
    const int64_t shape[2] = {2, 128}, slots[1] = {1};
    const double bad[4] = {0x1.fffffe0000001p127, -2.0 * (double)FLT_MAX,
                           -(double)INFINITY, (double)NAN};
    unsigned char row[128];
    kvg_diag d;
    int k;
    (void)state;

    setup(&c, 1, 128, KVG_INT32, slots, KVG_UINT8, 2, shape);
    c.a.impl = KVG_KCE_CR;
    c.a.quant_mode = 3;
    c.a.x_scale = -(double)FLT_MAX;
    put16(xrow(&c, 0), 0x3F80);
    put16(xrow(&c, 0) + 2, 0xBF00);
    put16(xrow(&c, 0) + 4, 0xBF81);
    put16(xrow(&c, 0) + 6, 0x0080);
    assert_int_equal(run(&c, &d), KVG_OK);
    memset(row, 0, sizeof row);
    row[0] = 0xEE, row[1] = 0x6E, row[2] = 0x6E, row[3] = 0xA0;
    expect(&c, 128, row, sizeof row, "cr mode 3 at x_scale -FLT_MAX");
    for (k = 0; k < 4; k++) {
        setup(&c, 1, 128, KVG_INT32, slots, KVG_UINT8, 2, shape);
        c.a.impl = KVG_KCE_CR;
        c.a.quant_mode = 3;
        c.a.x_scale = bad[k];
        refused(&c, "x_scale", k == 0 ? "got 3.402823466385289e+38"
                                      : "(|x_scale| <= FLT_MAX)");
    }
}

/* The compare hook: ot mode 1, d = 128, cache [2, 2, 1, 200]: rope
 * (COPY, 64 bf16) at 0, nope (64 e4m3, group 64) at 128, one E8M0 scale
 * at 192 naming the nope, no pad; slots 200 bytes apart, 2 x 2 slots.
 * Another tensor name: an all-zero layout (none). */
static void row_layout_hook(void **state)
{
    static call c;
    const int64_t shape[4] = {2, 2, 1, 200}, slots[2] = {0, 1};
    kvg_i_op_args a;
    kvg_row_layout l;
    (void)state;

    setup(&c, 2, 128, KVG_INT32, slots, KVG_UINT8, 4, shape);
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(
        kvg_i_kv_compress_epilog_row_layout(&a, "cache", &l, NULL), KVG_OK);
    assert_int_equal(l.segments, 3);
    assert_int_equal(l.seg[0].field, KVG_ROW_COPY);
    assert_int_equal(l.seg[0].offset, 0);
    assert_int_equal(l.seg[0].count, 64);
    assert_int_equal(l.seg[1].field, KVG_ROW_PAYLOAD);
    assert_int_equal(l.seg[1].offset, 128);
    assert_int_equal(l.seg[1].group, 64);
    assert_int_equal(l.seg[2].field, KVG_ROW_SCALE);
    assert_int_equal(l.seg[2].offset, 192);
    assert_int_equal(l.seg[2].dtype, KVG_E8M0);
    assert_int_equal(l.seg[2].of, 1);
    assert_int_equal(l.slot_stride[0], 200);
    assert_int_equal(l.block_size, 2);
    assert_int_equal(l.block_stride[0], 400);
    assert_int_equal(l.blocks, 2);
    /* one tensor: the scales live in the cache row */
    assert_int_equal(l.tensors, 1);
    assert_string_equal(l.tensor_name[0], "cache");
    assert_int_equal(l.region_tensor[0], 0);
    assert_int_equal(kvg_row_tensor_of(&l, "cache"), 0);
    assert_int_equal(kvg_row_tensor_of(&l, "x"), -1);
    {
        const size_t bytes[KVG_ROW_TENSORS] = {800, 0};
        assert_int_equal(kvg_row_layout_check(&l, bytes, NULL), KVG_OK);
    }
    assert_int_equal(kvg_i_kv_compress_epilog_row_layout(&a, "x", &l, NULL),
                     KVG_OK);
    assert_int_equal(l.segments, 0);
    c.a.quant_mode = 5;
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(
        kvg_i_kv_compress_epilog_row_layout(&a, "cache", &l, NULL),
        KVG_ERR_PARAM_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ot_mode1),
        cmocka_unit_test(ot_mode0_zero_group),
        cmocka_unit_test(cr_v2_mxfp4_skips),
        cmocka_unit_test(refusals),
        cmocka_unit_test(cr_mode3_x_scale_bounds),
        cmocka_unit_test(row_layout_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
