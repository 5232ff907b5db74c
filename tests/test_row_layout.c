/*
 * tests/test_row_layout.c - the packed-row layout (src/layout/row_layout.c):
 * the refusals of kvg_row_layout_check, kvg_row_segment_at and
 * kvg_row_place_of, on a per-slot row and a block-major layout. Every
 * expected offset is computed here from the layout arithmetic of
 * kvgold/row_layout.h: slot s in block b = s / bs at position p = s % bs,
 * segment i at b * block_stride + region_offset[r] + p * slot_stride[r] +
 * offset.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "kvgold/row_layout.h"

static kvg_row_segment seg(const char *name, kvg_row_field f, kvg_dtype t,
                           int region, int64_t off, int64_t count,
                           int64_t group, int of)
{
    kvg_row_segment s;

    s.name = name, s.field = f, s.dtype = t, s.region = region;
    s.offset = off, s.count = count, s.group = group, s.of = of;
    return s;
}

/* [rope bf16 64 | fp8 256 (g64) | bf16 scale x4 | pad 24]: 128 + 256 + 8
 * = 392, padded to 416 (a multiple of 32); headDim 448: 32 bytes not
 * covered. block_size 4, 3 blocks. */
static kvg_row_layout per_slot(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "per slot";
    l.segments = 4;
    l.seg[0] = seg("rope", KVG_ROW_COPY, KVG_BF16, 0, 0, 64, 0, -1);
    l.seg[1] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 128, 256, 64,
                   -1);
    l.seg[2] = seg("scale", KVG_ROW_SCALE, KVG_BF16, 0, 384, 4, 0, 1);
    l.seg[3] = seg("pad", KVG_ROW_PAD, KVG_UINT8, 0, 392, 24, 0, -1);
    l.regions = 1;
    l.slot_stride[0] = 448;
    l.block_size = 4;
    l.block_stride[0] = 4 * 448;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 3;
    return l;
}

/* Block-major: region 0 [fp8 128 | rope bf16 64] per slot (256 B), region
 * 1 at 8 * 256 = 2048: e8m0 scales x2 (g64) per slot, padded to 8 B.
 * block_size 8, block_stride 2048 + 64 + 8 = 2120 (8 bytes of no slot
 * after the scales), 2 blocks. */
static kvg_row_layout block_major(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "block major";
    l.segments = 3;
    l.seg[0] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, 128, 64,
                   -1);
    l.seg[1] = seg("rope", KVG_ROW_COPY, KVG_BF16, 0, 128, 64, 0, -1);
    l.seg[2] = seg("scale", KVG_ROW_SCALE, KVG_E8M0, 1, 0, 2, 0, 0);
    l.regions = 2;
    l.region_offset[1] = 2048;
    l.slot_stride[0] = 256;
    l.slot_stride[1] = 8;
    l.block_size = 8;
    l.block_stride[0] = 2120;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 2;
    return l;
}

static void expect_refused(const kvg_row_layout *l, const char *words)
{
    kvg_diag d;

    memset(&d, 0, sizeof d);
    assert_int_equal(kvg_row_layout_check(l, NULL, &d), KVG_ERR_PARAM_INVALID);
    if (strstr(d.message, words) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", d.message, words);
}

static void check_refusals(void **state)
{
    kvg_row_layout l = per_slot();
    (void)state;

    size_t bytes[KVG_ROW_TENSORS] = {3 * 4 * 448, 0};

    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL), KVG_OK);
    bytes[0]--;
    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL),
                     KVG_ERR_PARAM_INVALID);
    l.seg[3].count = 57; /* 392 + 57 > 448 */
    expect_refused(&l, "does not fit");
    l = per_slot();
    l.seg[2].offset = 383; /* into the payload's last byte */
    expect_refused(&l, "overlaps");
    l = per_slot();
    l.seg[1].group = 48; /* ceil(256 / 48) = 6 groups, 4 scales */
    expect_refused(&l, "one scale per payload group");
    l.seg[1].group = 96; /* groups of 96, 96 and a short 64: 3 scales */
    l.seg[2].count = 3;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    l = per_slot();
    l.seg[2].count = 3; /* 256 / 64 = 4 scales */
    expect_refused(&l, "one scale per payload group");
    l = per_slot();
    l.seg[2].of = 0; /* the rope is a COPY */
    expect_refused(&l, "not a grouped payload");
    l = per_slot();
    l.block_stride[0] = 4 * 448 - 1;
    expect_refused(&l, "past its tensor's block_stride");
    l = block_major();
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    l.region_offset[1] = 2040; /* region 0 spans [0, 2048) */
    expect_refused(&l, "regions overlap");
    l = block_major();
    l.seg[1].dtype = KVG_FP4_E2M1, l.seg[1].count = 63;
    expect_refused(&l, "odd fp4");
}

static void per_slot_addressing(void **state)
{
    const kvg_row_layout l = per_slot();
    const int64_t slot = 6; /* block 1, position 2 */
    const int64_t base = 1 * 4 * 448 + 2 * 448;
    kvg_row_place p;
    (void)state;

    assert_int_equal(kvg_row_segment_at(&l, slot, 0), base);
    assert_int_equal(kvg_row_segment_at(&l, slot, 1), base + 128);
    assert_int_equal(kvg_row_segment_at(&l, slot, 2), base + 384);
    assert_int_equal(kvg_row_segment_at(&l, slot, 3), base + 392);
    assert_int_equal(kvg_row_segment_at(&l, 12, 0), -1); /* 3 * 4 slots */
    assert_int_equal(kvg_row_segment_at(&l, -1, 0), -1);
    /* byte 200 of the payload: element 200 - 128 = 72, group 1 */
    p = kvg_row_place_of(&l, 0, base + 200);
    assert_int_equal(p.slot, slot);
    assert_int_equal(p.segment, 1);
    assert_int_equal(p.element, 72);
    assert_int_equal(p.group, 1);
    /* scale byte 387: element (387 - 384) / 2 = 1, group 1 */
    p = kvg_row_place_of(&l, 0, base + 387);
    assert_int_equal(p.segment, 2);
    assert_int_equal(p.element, 1);
    assert_int_equal(p.group, 1);
    /* rope byte 5: element 2, no group */
    p = kvg_row_place_of(&l, 0, base + 5);
    assert_int_equal(p.segment, 0);
    assert_int_equal(p.element, 2);
    assert_int_equal(p.group, -1);
    /* byte 420: past the pad (416), inside the slot's 448 */
    p = kvg_row_place_of(&l, 0, base + 420);
    assert_int_equal(p.slot, slot);
    assert_int_equal(p.segment, -1);
    p = kvg_row_place_of(&l, 0, 3 * 4 * 448);
    assert_int_equal(p.slot, -1);
}

/* Every byte of every segment of every slot maps back to it. */
static void round_trip(const kvg_row_layout *l)
{
    int64_t slot, b;
    int i;
    kvg_row_place p;

    for (slot = 0; slot < l->blocks * l->block_size; slot++)
        for (i = 0; i < l->segments; i++)
            for (b = 0; b < kvg_row_segment_bytes(&l->seg[i]); b++) {
                p = kvg_row_place_of(l, 0, kvg_row_segment_at(l, slot, i) + b);
                assert_int_equal(p.slot, slot);
                assert_int_equal(p.segment, i);
            }
}

static void block_major_addressing(void **state)
{
    const kvg_row_layout l = block_major();
    kvg_row_place p;
    (void)state;

    /* slot 11: block 1, position 3 */
    assert_int_equal(kvg_row_segment_at(&l, 11, 0), 2120 + 3 * 256);
    assert_int_equal(kvg_row_segment_at(&l, 11, 1), 2120 + 3 * 256 + 128);
    assert_int_equal(kvg_row_segment_at(&l, 11, 2), 2120 + 2048 + 3 * 8);
    /* block 0's scale pad byte of slot 7: 2048 + 7 * 8 + 5 */
    p = kvg_row_place_of(&l, 0, 2048 + 7 * 8 + 5);
    assert_int_equal(p.slot, 7);
    assert_int_equal(p.segment, -1);
    /* the scale of group 1 of slot 7 */
    p = kvg_row_place_of(&l, 0, 2048 + 7 * 8 + 1);
    assert_int_equal(p.segment, 2);
    assert_int_equal(p.group, 1);
    /* bytes [2048 + 64, 2120) of a block belong to no slot */
    p = kvg_row_place_of(&l, 0, 2120 - 1);
    assert_int_equal(p.slot, -1);
    round_trip(&l);
    {
        const kvg_row_layout m = per_slot();
        round_trip(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_refusals),
        cmocka_unit_test(per_slot_addressing),
        cmocka_unit_test(block_major_addressing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
