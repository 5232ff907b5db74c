/*
 * tests/test_packed_row.c - the packed-row engine (src/engines/
 * packed_row.c) writing through a layout over two tensors: the payload
 * codes, the copied rope and the pad into the cache tensor, the scales
 * into a scale tensor of their own, each at its own tensor's address, and
 * no other byte of either tensor touched. The byte runs of a slot's
 * write are given per tensor. A call's tokens under the slot policies
 * (kvg_i_packed_row_write_tokens): skipped, kept, a pad row's scales
 * clamped to the sink slot, and the runs those writes cover.
 *
 * Expected bytes come from first principles. The rule is written here:
 * amax over the group, s = amax * 1.0 (coeff 0x3F800000, no E8M0 step),
 * stored as fp32, codes x / s in fp8 e4m3fn. Each group's x are chosen so
 * that x / s is an e4m3fn value exactly: code s eeee mmm, bias 7, so
 * 1 = 0x38, 0.75 = 0x34, 0.5 = 0x30, 0.375 = 0x2C, 0.25 = 0x28,
 * 0.125 = 0x20, 0.0625 = 0x18, 0 = 0x00, sign 0x80. fp32 4.0 is
 * 0x40800000, 8.0 0x41000000; bf16 is the upper half of fp32 (exact for
 * these x). Addresses: slot s in block s / 2 at position s % 2; a segment
 * at b * block_stride[t] + region_offset[r] + p * slot_stride[r] +
 * offset of tensor t = region_tensor[r].
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "src/engines/packed_row.h"

/* cache: per slot [16 fp8 codes, 2 groups of 8 | rope 4 bf16 | pad 4],
 * 28 of 32 bytes, 2 slots a block, 72 bytes a block (8 of no slot);
 * cache_scale: per slot 2 fp32 scales from byte 4 of a 24-byte block.
 * 3 blocks. */
#define CACHE_BYTES (3 * 72)
#define SCALE_BYTES (3 * 24)
#define COLS 20 /* x: 16 quantised columns, then 4 rope columns */

static kvg_row_layout split(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test split";
    l.segments = 4;
    l.seg[0].name = "nope", l.seg[0].field = KVG_ROW_PAYLOAD;
    l.seg[0].dtype = KVG_FP8_E4M3FN, l.seg[0].region = 0;
    l.seg[0].offset = 0, l.seg[0].count = 16, l.seg[0].group = 8;
    l.seg[0].of = -1;
    l.seg[1].name = "rope", l.seg[1].field = KVG_ROW_COPY;
    l.seg[1].dtype = KVG_BF16, l.seg[1].region = 0;
    l.seg[1].offset = 16, l.seg[1].count = 4, l.seg[1].of = -1;
    l.seg[2].name = "pad", l.seg[2].field = KVG_ROW_PAD;
    l.seg[2].dtype = KVG_UINT8, l.seg[2].region = 0;
    l.seg[2].offset = 24, l.seg[2].count = 4, l.seg[2].of = -1;
    l.seg[3].name = "scale", l.seg[3].field = KVG_ROW_SCALE;
    l.seg[3].dtype = KVG_FP32, l.seg[3].region = 1;
    l.seg[3].offset = 0, l.seg[3].count = 2, l.seg[3].of = 0;
    l.tensors = 2;
    l.tensor_name[0] = "cache";
    l.tensor_name[1] = "cache_scale";
    l.regions = 2;
    l.region_tensor[0] = 0, l.region_tensor[1] = 1;
    l.region_offset[0] = 0, l.region_offset[1] = 4;
    l.slot_stride[0] = 32, l.slot_stride[1] = 8;
    l.block_size = 2;
    l.block_stride[0] = 72, l.block_stride[1] = 24;
    l.blocks = 3;
    return l;
}

static kvg_i_group_rule rule_amax_fp32(void)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.name = "test amax";
    r.amax = KVG_I_AMAX_ALL;
    r.coeff = 0x3F800000u; /* 1.0: s = amax */
    r.e8m0 = KVG_I_NO_E8M0;
    r.store = KVG_I_STORE_F32;
    r.op = KVG_I_PAY_DIV;
    r.cast = KVG_FP8_E4M3FN;
    return r;
}

/* Two groups of x and their codes: amax 4, then amax 8. */
static const float k_g4[8] = {4, 2, 1, 0.5f, -3, 0.25f, 0, -4};
static const unsigned char k_c4[8] = {0x38, 0x30, 0x28, 0x20,
                                      0xB4, 0x18, 0x00, 0xB8};
static const float k_g8[8] = {8, -8, 6, 1, 2, 0.5f, 4, 3};
static const unsigned char k_c8[8] = {0x38, 0xB8, 0x34, 0x20,
                                      0x28, 0x18, 0x30, 0x2C};

static void put_bf16(unsigned char *p, float v)
{
    uint32_t b;
    uint16_t h;

    memcpy(&b, &v, 4);
    h = (uint16_t)(b >> 16);
    memcpy(p, &h, 2);
}

/* An x row: groups `first` then `second`, then the rope codes. */
static void make_row(unsigned char *x, const float *first,
                     const float *second, const uint16_t *rope)
{
    int k;

    for (k = 0; k < 8; k++) {
        put_bf16(x + 2 * k, first[k]);
        put_bf16(x + 2 * (8 + k), second[k]);
    }
    for (k = 0; k < 4; k++)
        memcpy(x + 2 * (16 + k), &rope[k], 2);
}

static void put_f32(unsigned char *p, uint32_t bits) { memcpy(p, &bits, 4); }

static void writes_each_tensor(void **state)
{
    static const uint16_t rope_a[4] = {0x1234, 0xABCD, 0x0F0F, 0x7E01};
    static const uint16_t rope_b[4] = {0x4321, 0xDCBA, 0xF0F0, 0x017E};
    const kvg_row_layout l = split();
    const kvg_i_group_rule rule = rule_amax_fp32();
    unsigned char cache[CACHE_BYTES], scale[SCALE_BYTES];
    unsigned char want_c[CACHE_BYTES], want_s[SCALE_BYTES];
    unsigned char xa[2 * COLS], xb[2 * COLS];
    unsigned char *const tensor[KVG_ROW_TENSORS] = {cache, scale};
    kvg_i_packed_row p;
    (void)state;

    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    memset(&p, 0, sizeof p);
    p.layout = &l;
    p.rule[0] = &rule;
    p.column[0] = 0;
    p.column[1] = 16;
    p.x_scale = 1.0f;
    make_row(xa, k_g4, k_g8, rope_a);
    make_row(xb, k_g8, k_g4, rope_b);
    kvgt_poison(cache, sizeof cache, 1);
    kvgt_poison(scale, sizeof scale, 2);
    memcpy(want_c, cache, sizeof cache);
    memcpy(want_s, scale, sizeof scale);

    kvg_i_packed_row_write(&p, tensor, xa, 3);
    kvg_i_packed_row_write(&p, tensor, xb, 4);

    /* slot 3: block 1, position 1: cache byte 72 + 32 = 104, scales at
     * 24 + 4 + 8 = 36; bytes 132..135 of its row are no segment's */
    memcpy(want_c + 104, k_c4, 8);
    memcpy(want_c + 112, k_c8, 8);
    memcpy(want_c + 120, rope_a, 8);
    memset(want_c + 128, 0, 4);
    put_f32(want_s + 36, 0x40800000u);
    put_f32(want_s + 40, 0x41000000u);
    /* slot 4: block 2, position 0: cache byte 144, scales at 48 + 4 */
    memcpy(want_c + 144, k_c8, 8);
    memcpy(want_c + 152, k_c4, 8);
    memcpy(want_c + 160, rope_b, 8);
    memset(want_c + 168, 0, 4);
    put_f32(want_s + 52, 0x41000000u);
    put_f32(want_s + 56, 0x40800000u);

    assert_memory_equal(cache, want_c, sizeof cache);
    assert_memory_equal(scale, want_s, sizeof scale);
}

typedef struct runs {
    int n;
    int64_t first[8], bytes[8];
} runs;

static void collect(void *ctx, int64_t first, int64_t bytes)
{
    runs *r = (runs *)ctx;

    assert_true(r->n < 8);
    r->first[r->n] = first;
    r->bytes[r->n] = bytes;
    r->n++;
}

/* A slot's write as byte runs of each tensor, in address order. */
static void runs_per_tensor(void **state)
{
    const kvg_row_layout l = split();
    runs r;
    (void)state;

    memset(&r, 0, sizeof r);
    kvg_i_packed_row_runs(&l, 0, 3, collect, &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.first[0], 104);
    assert_int_equal(r.bytes[0], 16);
    assert_int_equal(r.first[1], 120);
    assert_int_equal(r.bytes[1], 8);
    assert_int_equal(r.first[2], 128);
    assert_int_equal(r.bytes[2], 4);
    memset(&r, 0, sizeof r);
    kvg_i_packed_row_runs(&l, 1, 3, collect, &r);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.first[0], 36);
    assert_int_equal(r.bytes[0], 8);
    memset(&r, 0, sizeof r);
    kvg_i_packed_row_runs(&l, 1, 4, collect, &r);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.first[0], 52);
}

/* A NULL tensor base: nothing of that tensor is written, while the
 * payload living there still gives its scales (a row whose payload is
 * skipped and whose scales are written, as a pad row clamped to a sink
 * slot is); x here is fp32 (the rule's x_dtype): groups of amax 4 and 8
 * give the fp32 scales 0x40800000 and 0x41000000 at slot 3's 36. */
static void null_tensor_scales_only(void **state)
{
    const kvg_row_layout l = split();
    kvg_i_group_rule rule = rule_amax_fp32();
    unsigned char scale[SCALE_BYTES], want_s[SCALE_BYTES];
    unsigned char x[4 * COLS];
    unsigned char *const tensor[KVG_ROW_TENSORS] = {NULL, scale};
    kvg_i_packed_row p;
    int k;
    (void)state;

    rule.x_dtype = KVG_FP32;
    memset(&p, 0, sizeof p);
    p.layout = &l;
    p.rule[0] = &rule;
    p.column[1] = 16;
    p.x_scale = 1.0f;
    memset(x, 0, sizeof x);
    for (k = 0; k < 8; k++) {
        memcpy(x + 4 * k, &k_g4[k], 4);
        memcpy(x + 4 * (8 + k), &k_g8[k], 4);
    }
    kvgt_poison(scale, sizeof scale, 4);
    memcpy(want_s, scale, sizeof scale);

    kvg_i_packed_row_write(&p, tensor, x, 3);

    put_f32(want_s + 36, 0x40800000u);
    put_f32(want_s + 40, 0x41000000u);
    assert_memory_equal(scale, want_s, sizeof scale);
}

/* Tokens {4, -1, 3} (int32), rows xa, xb, xb. SKIP_MINUS1: slots 4 and 3
 * written, token 1 skipped. SINK_SCALES with sink_slot 1: the same, and
 * token 1's scales (amax 8, then 4: xb) at slot 1 of the scale tensor
 * (block 0, position 1: byte 4 + 8 = 12), none of its payload, rope or
 * pad in the cache. Rows made by a callback give the same bytes. The
 * runs of the writes follow token order, per tensor. */
static void make_xb(const void *ctx, int64_t t, unsigned char *buf)
{
    (void)t;
    memcpy(buf, ctx, 2 * COLS);
}

static void tokens_under_policies(void **state)
{
    static const uint16_t rope_a[4] = {0x1234, 0xABCD, 0x0F0F, 0x7E01};
    static const uint16_t rope_b[4] = {0x4321, 0xDCBA, 0xF0F0, 0x017E};
    int32_t slots[3] = {4, -1, 3};
    const int64_t n = 3;
    kvg_row_layout l = split();
    const kvg_i_group_rule rule = rule_amax_fp32();
    unsigned char cache[CACHE_BYTES], scale[SCALE_BYTES];
    unsigned char want_c[CACHE_BYTES], want_s[SCALE_BYTES];
    unsigned char x[3][2 * COLS], buf[2 * COLS];
    unsigned char *const tensor[KVG_ROW_TENSORS] = {cache, scale};
    kvg_tensor sm;
    kvg_i_packed_tokens k;
    kvg_i_token_rows rows;
    kvg_i_packed_row p;
    runs r;
    int policy;
    (void)state;

    l.sink_slot = 1;
    memset(&p, 0, sizeof p);
    p.layout = &l;
    p.rule[0] = &rule;
    p.column[1] = 16;
    p.x_scale = 1.0f;
    make_row(x[0], k_g4, k_g8, rope_a);
    make_row(x[1], k_g8, k_g4, rope_b);
    make_row(x[2], k_g8, k_g4, rope_b);
    sm = kvg_tensor_make(slots, sizeof slots, KVG_INT32, 1, &n);
    k.slot_mapping = &sm;
    k.tokens = 3;
    k.slots = 6;
    for (policy = 0; policy < 3; policy++) {
        k.policy = policy == 0 ? KVG_I_SLOT_SKIP_MINUS1
                               : KVG_I_SLOT_SINK_SCALES;
        memset(&rows, 0, sizeof rows);
        rows.x = x[0];
        rows.x_stride = sizeof x[0];
        if (policy == 2) { /* every row made: xb's bytes, for token 0 xa */
            rows.x = NULL;
            rows.make = make_xb;
            rows.ctx = x[1];
            rows.buf = buf;
            slots[0] = 3, slots[2] = 4;
        }
        kvgt_poison(cache, sizeof cache, 5);
        kvgt_poison(scale, sizeof scale, 6);
        memcpy(want_c, cache, sizeof cache);
        memcpy(want_s, scale, sizeof scale);

        kvg_i_packed_row_write_tokens(&p, &k, tensor, &rows);

        /* slot 4 (cache 144, scales 52) from xa, slot 3 (104, 36) from
         * xb; with made rows both xb */
        memcpy(want_c + 144, policy == 2 ? k_c8 : k_c4, 8);
        memcpy(want_c + 152, policy == 2 ? k_c4 : k_c8, 8);
        memcpy(want_c + 160, policy == 2 ? rope_b : rope_a, 8);
        memset(want_c + 168, 0, 4);
        put_f32(want_s + 52, policy == 2 ? 0x41000000u : 0x40800000u);
        put_f32(want_s + 56, policy == 2 ? 0x40800000u : 0x41000000u);
        memcpy(want_c + 104, k_c8, 8);
        memcpy(want_c + 112, k_c4, 8);
        memcpy(want_c + 120, rope_b, 8);
        memset(want_c + 128, 0, 4);
        put_f32(want_s + 36, 0x41000000u);
        put_f32(want_s + 40, 0x40800000u);
        if (policy > 0) { /* the pad row's scales at the sink */
            put_f32(want_s + 12, 0x41000000u);
            put_f32(want_s + 16, 0x40800000u);
        }
        assert_memory_equal(cache, want_c, sizeof cache);
        assert_memory_equal(scale, want_s, sizeof scale);
    }
    /* runs under SINK_SCALES, slots {3, -1, 4}: the cache gets slot 3's
     * three segments then slot 4's; the scales slot 3, the sink, slot 4 */
    memset(&r, 0, sizeof r);
    kvg_i_packed_row_token_runs(&l, &k, 0, collect, &r);
    assert_int_equal(r.n, 6);
    assert_int_equal(r.first[0], 104);
    assert_int_equal(r.first[3], 144);
    assert_int_equal(r.bytes[5], 4);
    memset(&r, 0, sizeof r);
    kvg_i_packed_row_token_runs(&l, &k, 1, collect, &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.first[0], 36);
    assert_int_equal(r.first[1], 12);
    assert_int_equal(r.bytes[1], 8);
    assert_int_equal(r.first[2], 52);
    /* one pad row leaves the sink's bytes defined; two race there; a
     * policy that skips pad rows has no sink */
    assert_int_equal(kvg_i_packed_row_sink_raced(&k), 0);
    slots[0] = -7;
    assert_int_equal(kvg_i_packed_row_sink_raced(&k), 1);
    k.policy = KVG_I_SLOT_SKIP_NEGATIVE;
    assert_int_equal(kvg_i_packed_row_sink_raced(&k), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_each_tensor),
        cmocka_unit_test(runs_per_tensor),
        cmocka_unit_test(null_tensor_scales_only),
        cmocka_unit_test(tokens_under_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
