/*
 * tests/test_row_layout.c - the packed-row layout (src/layout/row_layout.c):
 * the refusals of kvg_row_layout_check, kvg_row_segment_at and
 * kvg_row_place_of, on a per-slot row, a block-major layout and a layout
 * over two tensors (codes in one, their scales in a tensor of their own).
 * Every expected offset is computed here from the layout arithmetic of
 * kvgold/row_layout.h: slot s in block b = s / bs at position p = s % bs,
 * segment i at b * block_stride[t] + region_offset[r] + p * slot_stride[r]
 * + offset of tensor t = region_tensor[r].
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

/* Two tensors: "cache" holds per slot 128 fp8 codes (2 groups of 64),
 * 4 slots a block (512 bytes); "cache_scale" holds per slot the 2 fp32
 * scales (8 bytes) from byte 8 of a block, whose 48 bytes end in 8 bytes
 * of no slot. 3 blocks: 1536 and 144 bytes. */
static kvg_row_layout split(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "split";
    l.segments = 2;
    l.seg[0] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, 128, 64,
                   -1);
    l.seg[1] = seg("scale", KVG_ROW_SCALE, KVG_FP32, 1, 0, 2, 0, 0);
    l.tensors = 2;
    l.tensor_name[0] = "cache";
    l.tensor_name[1] = "cache_scale";
    l.regions = 2;
    l.region_tensor[0] = 0;
    l.region_tensor[1] = 1;
    l.region_offset[1] = 8;
    l.slot_stride[0] = 128;
    l.slot_stride[1] = 8;
    l.block_size = 4;
    l.block_stride[0] = 512;
    l.block_stride[1] = 48;
    l.blocks = 3;
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

/* Each rule a second tensor brings, refused with its reason. */
static void two_tensor_refusals(void **state)
{
    kvg_row_layout l = split();
    size_t bytes[KVG_ROW_TENSORS] = {3 * 512, 3 * 48};
    kvg_diag d;
    (void)state;

    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL), KVG_OK);
    /* each tensor's size against its own block_stride */
    bytes[1] = 3 * 48 - 1;
    memset(&d, 0, sizeof d);
    assert_int_equal(kvg_row_layout_check(&l, bytes, &d),
                     KVG_ERR_PARAM_INVALID);
    if (strstr(d.message, "tensor 1: blocks * block_stride exceeds the "
                          "tensor") == NULL)
        fail_msg("message \"%s\"", d.message);
    bytes[0] = 0; /* 0: that size not checked; tensor 1's still is */
    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL),
                     KVG_ERR_PARAM_INVALID);
    bytes[1] = 3 * 48;
    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL), KVG_OK);
    bytes[0] = 3 * 512 - 1;
    assert_int_equal(kvg_row_layout_check(&l, bytes, NULL),
                     KVG_ERR_PARAM_INVALID);
    l.tensors = 0;
    expect_refused(&l, "1..2 tensors");
    l.tensors = 3;
    expect_refused(&l, "1..2 tensors");
    l = split();
    l.tensor_name[1] = NULL;
    expect_refused(&l, "tensor 1: has no name");
    l.tensor_name[1] = "cache";
    expect_refused(&l, "tensor 1: has the name of tensor 0");
    l = split();
    l.block_stride[1] = 0;
    expect_refused(&l, "tensor 1: block_stride must be >= 1");
    l.block_stride[1] = 39; /* region 1 spans [8, 8 + 4 * 8) */
    expect_refused(&l, "region 1: extends past its tensor's block_stride");
    l.block_stride[1] = 40;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    l = split();
    l.region_tensor[1] = 2;
    expect_refused(&l, "region 1: its tensor is out of range");
    l.region_tensor[1] = -1;
    expect_refused(&l, "region 1: its tensor is out of range");
    /* regions of two tensors share no byte: both at offset 0 is fine */
    l = split();
    l.region_offset[1] = 0;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    /* ... but in one tensor they overlap */
    l.region_tensor[1] = 0;
    expect_refused(&l, "the two regions overlap");
    /* both regions in tensor 0, disjoint: tensor 1 holds nothing */
    l.region_offset[1] = 512;
    l.block_stride[0] = 544;
    expect_refused(&l, "tensor 1: holds no segment");
    l.tensors = 1; /* the same as a one-tensor layout is fine */
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
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
                p = kvg_row_place_of(l, kvg_row_segment_tensor(l, i),
                                     kvg_row_segment_at(l, slot, i) + b);
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

/* Each segment in its own tensor, and each tensor's bytes mapped back. */
static void two_tensor_addressing(void **state)
{
    const kvg_row_layout l = split();
    kvg_row_place p;
    (void)state;

    assert_int_equal(kvg_row_segment_tensor(&l, 0), 0);
    assert_int_equal(kvg_row_segment_tensor(&l, 1), 1);
    assert_int_equal(kvg_row_segment_tensor(&l, 2), -1);
    assert_int_equal(kvg_row_segment_tensor(&l, -1), -1);
    assert_int_equal(kvg_row_tensor_of(&l, "cache"), 0);
    assert_int_equal(kvg_row_tensor_of(&l, "cache_scale"), 1);
    assert_int_equal(kvg_row_tensor_of(&l, "cache_scal"), -1);
    assert_int_equal(kvg_row_tensor_of(&l, NULL), -1);
    /* slot 6: block 1, position 2 */
    assert_int_equal(kvg_row_segment_at(&l, 6, 0), 512 + 2 * 128);
    assert_int_equal(kvg_row_segment_at(&l, 6, 1), 48 + 8 + 2 * 8);
    assert_int_equal(kvg_row_segment_at(&l, 12, 1), -1);
    /* tensor 1, byte 72 + 4: slot 6's scale of group 1 */
    p = kvg_row_place_of(&l, 1, 72 + 4);
    assert_int_equal(p.slot, 6);
    assert_int_equal(p.segment, 1);
    assert_int_equal(p.element, 1);
    assert_int_equal(p.group, 1);
    /* tensor 0, byte 768 + 70: slot 6's code 70, group 1 */
    p = kvg_row_place_of(&l, 0, 768 + 70);
    assert_int_equal(p.slot, 6);
    assert_int_equal(p.segment, 0);
    assert_int_equal(p.element, 70);
    assert_int_equal(p.group, 1);
    /* the same offset means another place in the other tensor: byte 76
     * of tensor 0 is code 76 of slot 0 */
    p = kvg_row_place_of(&l, 0, 72 + 4);
    assert_int_equal(p.slot, 0);
    assert_int_equal(p.segment, 0);
    assert_int_equal(p.element, 76);
    /* tensor 1's bytes before and after the region of block 1 */
    p = kvg_row_place_of(&l, 1, 48 + 7);
    assert_int_equal(p.slot, -1);
    p = kvg_row_place_of(&l, 1, 48 + 40);
    assert_int_equal(p.slot, -1);
    p = kvg_row_place_of(&l, 1, 3 * 48); /* past the blocks */
    assert_int_equal(p.slot, -1);
    p = kvg_row_place_of(&l, 2, 0); /* no tensor 2 */
    assert_int_equal(p.slot, -1);
    p = kvg_row_place_of(&l, -1, 0);
    assert_int_equal(p.slot, -1);
    round_trip(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_refusals),
        cmocka_unit_test(per_slot_addressing),
        cmocka_unit_test(block_major_addressing),
        cmocka_unit_test(two_tensor_refusals),
        cmocka_unit_test(two_tensor_addressing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
