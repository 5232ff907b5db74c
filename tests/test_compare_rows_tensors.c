/*
 * tests/test_compare_rows_tensors.c - kvg_compare_tensor with a row layout
 * over two tensors (args.row_layout + args.row_tensor, issue 36): the
 * codes in "cache", their e8m0 scales in a "cache_scale" of their own.
 * Each tensor is judged by its own comparison: its own segments, and
 * every other byte of it against the initial contents.
 *
 * The scale storage holds two layers' scales interleaved per block
 * ([blocks, 2 layers, 2 slots, 2 scales], as caches that keep K and V or
 * two layers in one allocation do); layer L's region starts 4 L bytes
 * into a block. The fault: a dropped storage offset makes layer
 * 1 write its scales into layer 0's region. Judged against layer 1's
 * layout, those bytes belong to no slot of the call, so the audit of the
 * scale tensor's untouched bytes fails and names them.
 *
 * Expected values come from the formats' definitions (e8m0 code c is
 * 2^(c-127): 0x78 = 2^-7, 0x77 = 2^-8; fp8 e4m3 code 0 eeee mmm) and the
 * layout: a segment at b * block_stride[t] + region_offset[r] +
 * p * slot_stride[r] + offset in tensor t = region_tensor[r].
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL) {
        fprintf(stderr, "%s\n", msg);
        fail_msg("the text above lacks \"%s\"", fragment);
    }
}

/* ---- the layout ----------------------------------------------------------- */

enum { NOPE = 0, ROPE = 1, SCALE = 2 };

/* cache: per slot [32 fp8 codes, 2 groups of 16 | rope 4 bf16], 40 of 48
 * bytes, 2 slots a block, 104 bytes a block (8 of no slot), 3 blocks.
 * cache_scale: per slot 2 e8m0 scales; layer `layer`'s region at
 * 4 * layer of an 8-byte block. */
#define CACHE_BYTES (3 * 104)
#define SCALE_BYTES (3 * 8)

static kvg_row_layout layout_of(int layer)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test split";
    l.segments = 3;
    l.seg[NOPE].name = "nope", l.seg[NOPE].field = KVG_ROW_PAYLOAD;
    l.seg[NOPE].dtype = KVG_FP8_E4M3FN, l.seg[NOPE].region = 0;
    l.seg[NOPE].offset = 0, l.seg[NOPE].count = 32, l.seg[NOPE].group = 16;
    l.seg[NOPE].of = -1;
    l.seg[ROPE].name = "rope", l.seg[ROPE].field = KVG_ROW_COPY;
    l.seg[ROPE].dtype = KVG_BF16, l.seg[ROPE].region = 0;
    l.seg[ROPE].offset = 32, l.seg[ROPE].count = 4, l.seg[ROPE].of = -1;
    l.seg[SCALE].name = "scale", l.seg[SCALE].field = KVG_ROW_SCALE;
    l.seg[SCALE].dtype = KVG_E8M0, l.seg[SCALE].region = 1;
    l.seg[SCALE].count = 2, l.seg[SCALE].of = NOPE;
    l.tensors = 2;
    l.tensor_name[0] = "cache";
    l.tensor_name[1] = "cache_scale";
    l.regions = 2;
    l.region_tensor[0] = 0, l.region_tensor[1] = 1;
    l.region_offset[1] = 4 * layer;
    l.slot_stride[0] = 48, l.slot_stride[1] = 2;
    l.block_size = 2;
    l.block_stride[0] = 104, l.block_stride[1] = 8;
    l.blocks = 3;
    return l;
}

static int64_t at(const kvg_row_layout *l, int64_t slot, int s)
{
    const int r = l->seg[s].region;

    return slot / l->block_size * l->block_stride[l->region_tensor[r]] +
           l->region_offset[r] + slot % l->block_size * l->slot_stride[r] +
           l->seg[s].offset;
}

/* ---- the fixture ---------------------------------------------------------- */

typedef struct side {
    int64_t n;
    unsigned char init[CACHE_BYTES], gold[CACHE_BYTES], npu[CACHE_BYTES];
    unsigned char mask[CACHE_BYTES];
    kvg_tensor ti, tg, ta;
} side;

typedef struct fixture {
    kvg_row_layout l;
    side t[KVG_ROW_TENSORS];
} fixture;

static const int64_t k_slots[2] = {1, 4};

/* Slot `slot`'s golden fields of layer `layer`: codes 0x30 + (slot + k)
 * % 8 (0.5 .. 0.9375), rope 0x3f80 + k, scales 0x79 - k + layer (layer
 * 0: 2^-6, 2^-7; layer 1: 2^-5, 2^-6). */
static void fill_slot(fixture *f, int64_t slot, int layer)
{
    unsigned char *c = f->t[0].gold + at(&f->l, slot, NOPE);
    unsigned char *r = f->t[0].gold + at(&f->l, slot, ROPE);
    unsigned char *s = f->t[1].gold + at(&f->l, slot, SCALE);
    int k;

    for (k = 0; k < 32; k++)
        c[k] = (unsigned char)(0x30 + (slot + k) % 8);
    for (k = 0; k < 4; k++) {
        uint16_t v = (uint16_t)(0x3f80 + k);
        memcpy(r + 2 * k, &v, 2);
    }
    for (k = 0; k < 2; k++)
        s[k] = (unsigned char)(0x79 - k + layer);
    for (k = 0; k < 3; k++) {
        side *t = &f->t[k == SCALE ? 1 : 0];
        int64_t b = kvg_row_segment_bytes(&f->l.seg[k]);
        memset(t->mask + at(&f->l, slot, k), 1, (size_t)b);
    }
}

/* Poisoned initial tensors ((37 i + 11) mod 256), the golden writing
 * k_slots for `layer`, the masks marking exactly their segments of each
 * tensor, the NPU equal to the golden until a test plants a fault. */
static void setup(fixture *f, int layer)
{
    int64_t i;
    int t;

    memset(f, 0, sizeof *f);
    f->l = layout_of(layer);
    f->t[0].n = CACHE_BYTES;
    f->t[1].n = SCALE_BYTES;
    for (t = 0; t < 2; t++)
        for (i = 0; i < f->t[t].n; i++)
            f->t[t].init[i] = (unsigned char)(37 * i + 11 + t);
    for (t = 0; t < 2; t++)
        memcpy(f->t[t].gold, f->t[t].init, (size_t)f->t[t].n);
    for (i = 0; i < 2; i++)
        fill_slot(f, k_slots[i], layer);
    for (t = 0; t < 2; t++) {
        side *s = &f->t[t];
        memcpy(s->npu, s->gold, (size_t)s->n);
        s->ti = kvg_tensor_make(s->init, (size_t)s->n, KVG_UINT8, 1, &s->n);
        s->tg = kvg_tensor_make(s->gold, (size_t)s->n, KVG_UINT8, 1, &s->n);
        s->ta = kvg_tensor_make(s->npu, (size_t)s->n, KVG_UINT8, 1, &s->n);
    }
}

/* Tensor `t` judged by its comparison, under ops-test-kit's standard
 * (payload codes bit for bit); with `masked` 0, no written set (every
 * slot written). */
static kvg_status judge_as(fixture *f, int t, int masked,
                           kvg_compare_result *r, kvg_diag *diag)
{
    side *s = &f->t[t];
    kvg_compare_args a;

    kvg_compare_args_init(&a);
    a.name = f->l.tensor_name[t];
    a.golden = &s->tg;
    a.actual = &s->ta;
    if (masked) { /* the initial contents come with the written set */
        a.initial = &s->ti;
        a.written = s->mask;
        a.written_count = (size_t)s->n;
    }
    a.row_layout = &f->l;
    a.row_tensor = kvg_row_tensor_of(&f->l, a.name);
    assert_int_equal(a.row_tensor, t);
    kvgt_poison(r, sizeof *r, 36);
    kvg_diag_clear(diag);
    return kvg_compare_tensor(&a, r, diag);
}

static kvg_status judge(fixture *f, int t, kvg_compare_result *r,
                        kvg_diag *diag)
{
    return judge_as(f, t, 1, r, diag);
}

/* Exactly one kind fails (or none: kind -1), with `failing` units. */
static void assert_only(const kvg_compare_result *r, int kind,
                        int64_t failing)
{
    int k;

    assert_true(r->has_rows);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        if (k == kind) {
            assert_int_equal(r->rows[k].verdict, KVG_VERDICT_FAIL);
            assert_int_equal(r->rows[k].failing, failing);
        } else if (r->rows[k].verdict != KVG_VERDICT_PASS) {
            fail_msg("kind %s: %s, expected PASS (%s)",
                     kvg_compare_row_kind_name((kvg_compare_row_kind)k),
                     kvg_verdict_name(r->rows[k].verdict), r->reason);
        }
    }
    assert_int_equal(r->verdict,
                     kind < 0 ? KVG_VERDICT_PASS : KVG_VERDICT_FAIL);
}

/* ---- the tests ------------------------------------------------------------ */

/* Each tensor passes on its own segments and untouched bytes. */
static void test_each_tensor_passes(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    setup(f, 0);
    assert_int_equal(judge(f, 0, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.row_slots, 6);
    assert_int_equal(r.row_slots_written, 2);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units, 2 * 32);
    assert_int_equal(r.rows[KVG_ROWK_COPY].units, 2 * 4);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].units, 0); /* cache_scale's */
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units,
                     CACHE_BYTES - 2 * 40);
    assert_int_equal(judge(f, 1, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.row_slots_written, 2);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].units, 2 * 2);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units, 0); /* cache's */
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units, SCALE_BYTES - 4);
    test_free(f);
}

/* A wrong scale in the scale tensor: named by slot, field and group; its
 * payload is in the other tensor, so no note on its codes. The cache
 * tensor still passes. */
static void test_scale_fault_in_scale_tensor(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    setup(f, 0);
    /* slot 4: block 2, position 0: scales at 2 * 8 + 0; group 1 golden
     * 0x78 (2^-7), the NPU wrote 0x77 (2^-8) */
    assert_int_equal(f->t[1].gold[17], 0x78);
    f->t[1].npu[17] = 0x77;
    assert_int_equal(judge(f, 1, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].listed, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 4);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].group, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].byte, 17);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 4: scale of group 1 of nope is 2^-8 (0x77), "
                        "golden 2^-7 (0x78)");
    assert_contains(diag.message, "slot 4: scale of group 1 of nope");
    assert_int_equal(judge(f, 0, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    test_free(f);
}

/* A wrong code in the cache tensor; the scale tensor still passes. */
static void test_payload_fault_in_cache_tensor(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    const int64_t byte = 48 + 20; /* slot 1 (block 0, position 1), code 20 */
    (void)state;

    setup(f, 0);
    /* golden 0x30 + (1 + 20) % 8 = 0x35 (0.8125); the NPU wrote 0x36 */
    assert_int_equal(f->t[0].gold[byte], 0x35);
    f->t[0].npu[byte] = 0x36;
    assert_int_equal(judge(f, 0, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].slot, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].group, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].byte, byte);
    assert_contains(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                    "slot 1: nope code 20 of group 1 is 0x36");
    assert_int_equal(judge(f, 1, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    test_free(f);
}

/* The case: layer 1's scales written at layer 0's region (the
 * storage offset dropped). Judged by layer 1's layout, the scale
 * tensor's region of layer 1 keeps its old bytes (its scales fail) and
 * four bytes of no slot of this call changed (its untouched bytes fail,
 * each named). */
static void test_dropped_offset_layers_share_scales(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_row_verdict *v;
    kvg_compare_result r;
    kvg_diag diag;
    int i;
    (void)state;

    setup(f, 1);
    /* what the NPU did: layer 1's scales (0x7a, 0x79) at offset 0 of the
     * block instead of 4: slot 1 at 2..3 instead of 6..7, slot 4 at
     * 16..17 instead of 20..21 */
    memcpy(f->t[1].npu, f->t[1].init, SCALE_BYTES);
    for (i = 0; i < 2; i++) {
        const int64_t right = at(&f->l, k_slots[i], SCALE);
        memcpy(f->t[1].npu + right - 4, f->t[1].gold + right, 2);
    }
    assert_int_equal(f->t[1].npu[2], 0x7a);
    assert_int_equal(f->t[1].npu[17], 0x79);
    assert_int_equal(judge(f, 1, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.verdict, KVG_VERDICT_FAIL);
    v = &r.rows[KVG_ROWK_UNTOUCHED];
    assert_int_equal(v->verdict, KVG_VERDICT_FAIL);
    assert_int_equal(v->units, SCALE_BYTES - 4);
    assert_int_equal(v->failing, 4);
    assert_int_equal(v->listed, 4);
    assert_int_equal(v->place[0].byte, 2);
    assert_int_equal(v->place[0].slot, -1);
    /* initial byte 2 is (37 * 2 + 11 + 1) mod 256 = 86 = 0x56 */
    assert_string_equal(v->place[0].text,
                        "byte 2 (in no slot's row) is 0x7a, initial 0x56");
    assert_int_equal(v->place[1].byte, 3);
    assert_int_equal(v->place[2].byte, 16);
    assert_int_equal(v->place[3].byte, 17);
    assert_contains(r.reason, "untouched: 4 of 20 fail, byte 2 (in no "
                              "slot's row) is 0x7a, initial 0x56");
    /* and the scales the call owed are missing where they belong */
    assert_int_equal(r.rows[KVG_ROWK_SCALES].verdict, KVG_VERDICT_FAIL);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].failing, 4);
    /* the layer's cache tensor is its own, written right */
    assert_int_equal(judge(f, 0, &r, &diag), KVG_OK);
    test_free(f);
}

/* The same without a written set: every slot of the call written, so
 * the bytes outside every slot's segments of the scale tensor (layer
 * 0's region) are found by the layout's map of THAT tensor. */
static void test_dropped_offset_every_slot_written(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    int64_t slot;
    (void)state;

    setup(f, 1);
    for (slot = 0; slot < 6; slot++)
        fill_slot(f, slot, 1);
    memcpy(f->t[1].npu, f->t[1].gold, SCALE_BYTES);
    memcpy(f->t[0].npu, f->t[0].gold, CACHE_BYTES);
    assert_int_equal(judge_as(f, 1, 0, &r, &diag), KVG_OK);
    assert_int_equal(judge_as(f, 0, 0, &r, &diag), KVG_OK);
    /* every block's 4 bytes at offset 0 (layer 0's region) take layer 1's
     * scales too: 3 blocks x 4 bytes changed outside any slot */
    for (slot = 0; slot < 3; slot++)
        memcpy(f->t[1].npu + 8 * slot, f->t[1].gold + 8 * slot + 4, 4);
    assert_int_equal(judge_as(f, 1, 0, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 12);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units, SCALE_BYTES - 12);
    assert_string_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].text,
                        "byte 0 (in no slot's row) is 0x7a, golden 0x0c");
    test_free(f);
}

/* row_tensor must name a tensor of the layout, and each tensor's size
 * fits its own blocks. */
static void test_refusals(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_diag diag;
    int64_t short_n = SCALE_BYTES - 1;
    kvg_tensor small;
    (void)state;

    setup(f, 0);
    kvg_compare_args_init(&a);
    assert_int_equal(a.row_tensor, 0);
    a.name = "cache_scale";
    a.golden = &f->t[1].tg;
    a.actual = &f->t[1].ta;
    a.row_layout = &f->l;
    a.row_tensor = 2;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "row_tensor must name one of the row "
                                  "layout's 2 tensors (0..1), got 2");
    /* the scale tensor one byte short of its 3 blocks of 8 */
    small = kvg_tensor_make(f->t[1].gold, (size_t)short_n, KVG_UINT8, 1,
                            &short_n);
    a.golden = a.actual = &small;
    a.row_tensor = 1;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "tensor 1: blocks * block_stride exceeds "
                                  "the tensor (a 23-byte cache_scale)");
    /* the scale tensor judged with the default row_tensor 0 (the
     * cache's 3 blocks of 104 bytes): refused, not judged as a cache */
    a.golden = a.actual = &f->t[1].tg;
    a.row_tensor = 0;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "tensor 0: blocks * block_stride exceeds "
                                  "the tensor (a 24-byte cache)");
    test_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_tensor_passes),
        cmocka_unit_test(test_scale_fault_in_scale_tensor),
        cmocka_unit_test(test_payload_fault_in_cache_tensor),
        cmocka_unit_test(test_dropped_offset_layers_share_scales),
        cmocka_unit_test(test_dropped_offset_every_slot_written),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
