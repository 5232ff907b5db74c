/*
 * tests/test_row_layout_nz.c - heads, tiles and pieces of the packed-row
 * layout (kvgold/row_layout.h, issue 36): the two worked examples of
 * tests/nz_layout.h placed element by element as the kernels' views put
 * them, kvg_row_place_of inverting every byte of both tensors (and of
 * layouts with gaps and with pieces inside a row), and every rule of
 * kvg_row_layout_check about the new fields refused with its reason.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/row_layout.h"
#include "nz_layout.h"

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL) {
        fprintf(stderr, "%s\n", msg);
        fail_msg("the text above lacks \"%s\"", fragment);
    }
}

/* ---- the worked examples -------------------------------------------------- */

/* Every channel of every head of every slot where [Bn, N, D/32, Bs, 32]
 * puts it; the sizes fit exactly (one byte less refused). */
static void test_k_cache_addresses(void **state)
{
    const kvg_row_layout l = nz_layout();
    size_t sizes[2] = {NZ_K_BYTES, NZ_S_BYTES};
    int64_t s, d;
    int n;
    (void)state;

    assert_int_equal(kvg_row_layout_check(&l, sizes, NULL), KVG_OK);
    for (s = 0; s < NZ_SLOTS; s++)
        for (n = 0; n < NZ_N; n++)
            for (d = 0; d < NZ_D; d++)
                assert_int_equal(kvg_row_element_at(&l, s, n, NZ_K, d),
                                 nz_k_index(s, n, d));
    /* slot 17, head 0, channel 0: block 0, position 17, piece 0 */
    assert_int_equal(kvg_row_segment_at(&l, 17, NZ_K), 17 * 32);
    /* slot 33 head 1 channel 70: block 1 (8192), head 1 (4096), piece 2
     * (2048), position 1 (32), 6 */
    assert_int_equal(kvg_row_element_at(&l, 33, 1, NZ_K, 70),
                     8192 + 4096 + 2048 + 32 + 6);
    sizes[0] = NZ_K_BYTES - 1;
    assert_int_equal(kvg_row_layout_check(&l, sizes, NULL),
                     KVG_ERR_PARAM_INVALID);
}

/* Every scale where [Bn, N, Bs/16, D/64, 16, 2] puts it. */
static void test_scale_cache_addresses(void **state)
{
    const kvg_row_layout l = nz_layout();
    int64_t s, k;
    int n;
    (void)state;

    for (s = 0; s < NZ_SLOTS; s++)
        for (n = 0; n < NZ_N; n++)
            for (k = 0; k < NZ_D / 32; k++)
                assert_int_equal(kvg_row_element_at(&l, s, n, NZ_SCALE, k),
                                 nz_scale_index(s, n, k));
    /* slot 17 (tile 1, position 1) head 1 scale 3 (pair 1, element 1):
     * head 1 at 128, tile 1 at 64, pair 1 at 32, position 1 at 2, + 1 */
    assert_int_equal(kvg_row_element_at(&l, 17, 1, NZ_SCALE, 3),
                     128 + 64 + 32 + 2 + 1);
    assert_int_equal(kvg_row_segment_at(&l, 17, NZ_SCALE), 64 + 2);
}

static void test_out_of_range(void **state)
{
    const kvg_row_layout l = nz_layout();
    (void)state;

    assert_int_equal(kvg_row_element_at(&l, -1, 0, NZ_K, 0), -1);
    assert_int_equal(kvg_row_element_at(&l, NZ_SLOTS, 0, NZ_K, 0), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, NZ_N, NZ_K, 0), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, -1, NZ_K, 0), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, 0, 2, 0), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, 0, NZ_K, NZ_D), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, 0, NZ_SCALE, NZ_D / 32), -1);
    assert_int_equal(kvg_row_element_at(&l, 0, 0, NZ_K, -1), -1);
}

static void refused_for(kvg_row_layout l, const char *reason);

/* ---- place_of round trips -------------------------------------------------- */

/* Every byte of tensor t: a byte of a segment goes back through
 * kvg_row_element_at to its element's first byte (fp4: the byte of its
 * code pair), each (slot, head, segment, element) starts at one byte,
 * and `covered` bytes are in segments. */
static void round_trip(const kvg_row_layout *l, int t, int64_t bytes,
                       int64_t covered)
{
    static unsigned char seen[1 << 20];
    int64_t i, in = 0, slots = l->blocks * l->block_size;
    const int heads = l->heads > 0 ? l->heads : 1;

    memset(seen, 0, sizeof seen);
    for (i = 0; i < bytes; i++) {
        const kvg_row_place p = kvg_row_place_of(l, t, i);
        const kvg_row_segment *s;
        int64_t key, at;

        if (p.segment < 0) {
            assert_int_equal(p.element, -1);
            continue;
        }
        s = &l->seg[p.segment];
        assert_true(p.slot >= 0 && p.slot < slots);
        assert_true(p.head >= 0 && p.head < heads);
        assert_int_equal(kvg_row_segment_tensor(l, p.segment), t);
        at = kvg_row_element_at(l, p.slot, p.head, p.segment, p.element);
        /* the element's (fp4: the code pair's) first byte, or within */
        assert_true(at <= i && i < at + (int64_t)kvg_dtype_size(s->dtype));
        in++;
        if (at != i)
            continue;
        if (s->field == KVG_ROW_SCALE)
            assert_int_equal(p.group, p.element);
        else if (s->field == KVG_ROW_PAYLOAD && s->group > 0)
            assert_int_equal(p.group, p.element / s->group);
        key = ((p.slot * heads + p.head) * KVG_ROW_SEGMENTS + p.segment) *
                  256 + p.element;
        assert_true(key < (int64_t)sizeof seen);
        assert_int_equal(seen[key], 0);
        seen[key] = 1;
    }
    assert_int_equal(in, covered);
}

/* The two worked examples are dense: every byte is one element's. */
static void test_round_trip_dense(void **state)
{
    const kvg_row_layout l = nz_layout();
    (void)state;

    round_trip(&l, 0, NZ_K_BYTES, NZ_K_BYTES);
    round_trip(&l, 1, NZ_S_BYTES, NZ_S_BYTES);
    assert_int_equal(kvg_row_place_of(&l, 0, NZ_K_BYTES).slot, -1);
    assert_int_equal(kvg_row_place_of(&l, 1, NZ_S_BYTES).head, -1);
}

/* Gaps: 64 bytes after each head's part of the K region and of the scale
 * region, 32 after each scale tile, 100 after a block; their bytes are
 * no slot's. */
static void test_round_trip_gaps(void **state)
{
    kvg_row_layout l = nz_layout();
    const int64_t kb = NZ_N * (NZ_D * NZ_BS + 64) + 100;
    const int64_t tile = NZ_D / 64 * 32 + 32;
    const int64_t sb = NZ_N * (NZ_BS / 16 * tile + 64) + 100;
    kvg_row_place p;
    (void)state;

    l.head_stride[0] = NZ_D * NZ_BS + 64;
    l.tile_stride[1] = tile;
    l.head_stride[1] = NZ_BS / 16 * tile + 64;
    l.block_stride[0] = kb, l.block_stride[1] = sb;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    round_trip(&l, 0, NZ_BN * kb, NZ_SLOTS * NZ_N * NZ_D);
    round_trip(&l, 1, NZ_BN * sb, NZ_SLOTS * NZ_N * NZ_D / 32);
    /* the first byte after head 0's part of block 0: in no slot */
    p = kvg_row_place_of(&l, 0, NZ_D * NZ_BS);
    assert_int_equal(p.slot, -1);
    assert_int_equal(p.head, -1);
    /* the first byte of head 1: slot 0 head 1 channel 0 */
    p = kvg_row_place_of(&l, 0, NZ_D * NZ_BS + 64);
    assert_int_equal(p.slot, 0);
    assert_int_equal(p.head, 1);
    assert_int_equal(p.element, 0);
    /* the scale tile's 32-byte tail: no slot */
    assert_int_equal(kvg_row_place_of(&l, 1, 64).slot, -1);
    assert_int_equal(kvg_row_place_of(&l, 1, 64 + 32).slot, 16);
}

/* Pieces inside a row, and heads of rows: per slot and head a 48-byte row
 * [fp4 nope 64 codes in 2 pieces of 32 (16 bytes), 20 apart | bf16 rope
 * 2 at 40 | 4 bytes of no segment], 3 heads 160 bytes apart (16 bytes of
 * no slot after each head's 3 rows), blocks of 3 slots, 496 bytes. */
static kvg_row_layout in_row(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test pieces in a row";
    l.segments = 2;
    l.seg[0].name = "nope", l.seg[0].field = KVG_ROW_PAYLOAD;
    l.seg[0].dtype = KVG_FP4_E2M1, l.seg[0].count = 64;
    l.seg[0].group = 16, l.seg[0].of = -1;
    l.seg[0].piece = 32, l.seg[0].piece_stride = 20;
    l.seg[1].name = "rope", l.seg[1].field = KVG_ROW_COPY;
    l.seg[1].dtype = KVG_BF16, l.seg[1].offset = 40, l.seg[1].count = 2;
    l.seg[1].of = -1;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.regions = 1;
    l.slot_stride[0] = 48;
    l.heads = 3;
    l.head_stride[0] = 160;
    l.block_size = 3;
    l.block_stride[0] = 496;
    l.blocks = 2;
    return l;
}

static void test_round_trip_pieces_in_a_row(void **state)
{
    const kvg_row_layout l = in_row();
    kvg_row_place p;
    (void)state;

    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    /* 6 slots x 3 heads x (32 bytes of codes + 4 of rope) */
    round_trip(&l, 0, 2 * 496, 6 * 3 * (32 + 4));
    /* slot 4 (block 1, position 1) head 2 code 37: 496 + 320 + 48 +
     * piece 1 (20) + byte 2 */
    assert_int_equal(kvg_row_element_at(&l, 4, 2, 0, 37),
                     496 + 320 + 48 + 20 + 2);
    p = kvg_row_place_of(&l, 0, 496 + 320 + 48 + 20 + 2);
    assert_int_equal(p.slot, 4);
    assert_int_equal(p.head, 2);
    assert_int_equal(p.element, 36); /* the byte's first code */
    assert_int_equal(p.group, 2);
    /* the gap between the pieces (bytes 16..19 of a row) and the row's
     * tail (44..47): slot 4's, no segment */
    p = kvg_row_place_of(&l, 0, 496 + 320 + 48 + 17);
    assert_int_equal(p.slot, 4);
    assert_int_equal(p.head, 2);
    assert_int_equal(p.segment, -1);
    p = kvg_row_place_of(&l, 0, 496 + 320 + 48 + 45);
    assert_int_equal(p.segment, -1);
    assert_int_equal(p.slot, 4);
    /* after head 0's three rows (144..159): no slot */
    assert_int_equal(kvg_row_place_of(&l, 0, 150).slot, -1);
}

/* Heads side by side inside a slot's row, as an ND cache [Bn, Bs, N, D]:
 * per head [bf16 copy 4 | 2 bytes of no segment], 3 heads 10 bytes
 * apart, a 32-byte row (2 bytes after the heads), 2 slots a block, 2
 * blocks. */
static void test_round_trip_heads_in_a_row(void **state)
{
    kvg_row_layout l;
    kvg_row_place p;
    (void)state;

    memset(&l, 0, sizeof l);
    l.name = "test heads in a row";
    l.segments = 1;
    l.seg[0].name = "k", l.seg[0].field = KVG_ROW_COPY;
    l.seg[0].dtype = KVG_BF16, l.seg[0].count = 4, l.seg[0].of = -1;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.regions = 1;
    l.slot_stride[0] = 32;
    l.heads = 3;
    l.head_stride[0] = 10;
    l.block_size = 2;
    l.block_stride[0] = 64;
    l.blocks = 2;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
    round_trip(&l, 0, 128, 4 * 3 * 8);
    /* slot 3 (block 1, position 1) head 2 element 1: 64 + 32 + 20 + 2 */
    assert_int_equal(kvg_row_element_at(&l, 3, 2, 0, 1), 64 + 32 + 20 + 2);
    p = kvg_row_place_of(&l, 0, 64 + 32 + 20 + 3);
    assert_int_equal(p.slot, 3);
    assert_int_equal(p.head, 2);
    assert_int_equal(p.element, 1);
    /* heads 7 bytes apart would put head 1 on head 0's last byte */
    l.head_stride[0] = 7;
    refused_for(l, "region 0: head_stride 7");
    /* heads spanning 28 of a 24-byte row */
    l.head_stride[0] = 10, l.slot_stride[0] = 24, l.block_stride[0] = 48;
    refused_for(l, "region 0: slot_stride 24");
}

/* ---- refusals ------------------------------------------------------------- */

static void refused_for(kvg_row_layout l, const char *reason)
{
    kvg_diag diag;

    kvg_diag_clear(&diag);
    assert_int_equal(kvg_row_layout_check(&l, NULL, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, reason);
}

static void test_refusals_fields(void **state)
{
    kvg_row_layout l;
    (void)state;

    l = nz_layout(), l.heads = -1;
    refused_for(l, "heads must be >= 0");
    l = nz_layout(), l.head_stride[1] = 0;
    refused_for(l, "region 1: head_stride must be >= 1 with heads > 1");
    l = nz_layout(), l.tile[1] = -16;
    refused_for(l, "region 1: tile must be 0 (untiled) or divide block_size");
    l = nz_layout(), l.tile[1] = 12; /* 32 % 12 != 0 */
    refused_for(l, "region 1: tile must be 0 (untiled) or divide block_size");
    l = nz_layout(), l.tile_stride[1] = 0;
    refused_for(l, "with tile_stride >= 1");
    l = nz_layout(), l.seg[NZ_K].piece = -32;
    refused_for(l, "segment 0 (k): piece must be >= 0");
    l = nz_layout(), l.seg[NZ_SCALE].piece_stride = 1;
    refused_for(l, "segment 1 (k scale): piece_stride is less than a piece's "
               "bytes");
    l = nz_layout(), l.seg[NZ_K].group = 0;
    refused_for(l, "segment 0 (k): a pieced payload needs group > 0 and piece "
               "a multiple of group");
    l = nz_layout(), l.seg[NZ_K].group = 64, l.seg[NZ_SCALE].count = 2;
    refused_for(l, "a pieced payload needs group > 0 and piece a multiple of "
               "group (each group in one piece)");
    l = in_row(), l.seg[0].piece = 31;
    refused_for(l, "an fp4 piece must hold an even number of codes");
    l = nz_layout(), l.has_sink = 2;
    refused_for(l, "has_sink must be 0 or 1");
    l = nz_layout(), l.has_sink = 1, l.sink_slot = NZ_SLOTS;
    refused_for(l, "sink_slot must be a slot of the layout");
    l = nz_layout(), l.has_sink = 1, l.sink_slot = -1;
    refused_for(l, "sink_slot must be a slot of the layout");
    l = nz_layout(), l.has_sink = 1, l.sink_slot = 0;
    assert_int_equal(kvg_row_layout_check(&l, NULL, NULL), KVG_OK);
}

/* Strides that would make two bytes coincide, each named. */
static void test_refusals_nesting(void **state)
{
    kvg_row_layout l;
    (void)state;

    /* pieces 992 apart: piece 1 of slot 0 would be piece 0 of slot 31 */
    l = nz_layout(), l.seg[NZ_K].piece_stride = NZ_BS * 32 - 32;
    refused_for(l, "region 0: piece_stride 992: its stride is less than the "
               "bytes nested inside it");
    /* slots 16 apart in 32-byte pieces */
    l = nz_layout(), l.slot_stride[0] = 16;
    refused_for(l, "region 0: slot_stride 16: its stride is less than the "
               "bytes nested inside it (bytes of different slots, heads "
               "or pieces would coincide) (32 bytes)");
    l = nz_layout(), l.head_stride[0] = NZ_D * NZ_BS - 1;
    refused_for(l, "region 0: head_stride 4095");
    l = nz_layout(), l.tile_stride[1] = 32; /* a tile spans 64 */
    refused_for(l, "region 1: tile_stride 32");
    l = nz_layout(), l.head_stride[1] = 64; /* two tiles span 128 */
    refused_for(l, "region 1: head_stride 64");
    /* heads inside a slot's pieces: legal when they nest (head 32 bytes
     * apart would need slots 64 apart) */
    l = nz_layout(), l.head_stride[0] = 32;
    refused_for(l, "region 0: head_stride 32");
    l = nz_layout(), l.block_stride[0] = NZ_N * NZ_D * NZ_BS - 1;
    refused_for(l, "region 0: extends past its tensor's block_stride");
    /* an NZ segment shares its region with another segment */
    l = nz_layout(), l.seg[NZ_SCALE].region = 0, l.regions = 1;
    l.tensors = 1;
    l.seg[NZ_SCALE].piece = 0;
    l.seg[NZ_SCALE].offset = 0;
    refused_for(l, "must be the only segment of its region");
    /* pieces that overflow int64 */
    l = nz_layout(), l.seg[NZ_K].piece_stride = INT64_MAX / 2;
    refused_for(l, "reach past int64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_k_cache_addresses),
        cmocka_unit_test(test_scale_cache_addresses),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_round_trip_dense),
        cmocka_unit_test(test_round_trip_gaps),
        cmocka_unit_test(test_round_trip_pieces_in_a_row),
        cmocka_unit_test(test_round_trip_heads_in_a_row),
        cmocka_unit_test(test_refusals_fields),
        cmocka_unit_test(test_refusals_nesting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
