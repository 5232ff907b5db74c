/*
 * tests/test_compare_rows.c - kvg_compare_tensor with a row layout
 * (args.row_layout, issue 36): a packed cache judged field by field, each
 * planted fault reported alone with its slot, field and group.
 *
 * The layouts are built by hand here (the operator that makes them lands
 * apart): a per-slot row [nope fp8 | rope bf16 | e8m0 scales | pad | not
 * written] with a gap after each block, a block-major one (a block's fp4
 * values and rope, then its bf16 scales and pad), and an int8 row with an
 * fp32 scale. Initial caches are poisoned (no zeros where a slot is not
 * written). Expected values come from the formats' definitions: fp8 e4m3
 * code 0 eeee mmm is 2^(e-7) * (1 + m/8), e8m0 code c is 2^(c-127), bf16
 * 0x3c00 is 2^-7, fp4 e2m1 codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6 with
 * element 2j in the low nibble (docs/formats.md), and from the layouts:
 * a slot's segments start at block * block_stride + region_offset +
 * position * slot_stride + offset.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include "json_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/compare.h"
#include "kvgold/op.h"
#include "report.h"

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL) {
        fprintf(stderr, "%s\n", msg);
        fail_msg("the text above lacks \"%s\"", fragment);
    }
}

/* ---- the layouts ---------------------------------------------------------- */

enum { NOPE = 0, ROPE = 1, SCALE = 2, PAD = 3 };

static kvg_row_segment seg(const char *name, kvg_row_field f, kvg_dtype dt,
                           int region, int64_t offset, int64_t count,
                           int64_t group, int of)
{
    kvg_row_segment s;

    s.name = name, s.field = f, s.dtype = dt, s.region = region;
    s.offset = offset, s.count = count, s.group = group, s.of = of;
    s.piece = 0, s.piece_stride = 0; /* one piece */
    return s;
}

/* Per slot, 64-byte rows: nope 32 fp8 codes (2 groups of 16) at 0, rope
 * 8 bf16 at 32, 2 e8m0 scales at 48, 6 pad bytes at 50, bytes 56..63 not
 * written; 4 slots a block, 288 bytes a block (32 bytes of gap), 2 blocks:
 * 576 bytes. */
#define A_BYTES 576
static kvg_row_layout layout_a(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test per-slot";
    l.segments = 4;
    l.seg[NOPE] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, 32, 16,
                      -1);
    l.seg[ROPE] = seg("rope", KVG_ROW_COPY, KVG_BF16, 0, 32, 8, 0, -1);
    l.seg[SCALE] = seg("scale", KVG_ROW_SCALE, KVG_E8M0, 0, 48, 2, 0, NOPE);
    l.seg[PAD] = seg("pad", KVG_ROW_PAD, KVG_UINT8, 0, 50, 6, 0, -1);
    l.regions = 1;
    l.slot_stride[0] = 64;
    l.block_size = 4;
    l.block_stride[0] = 288;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 2;
    return l;
}

/* Block-major: region 0 holds a block's values (per slot 32 fp4 codes =
 * 16 bytes, then rope 8 bf16), region 1 at byte 128 its scales (per slot
 * 2 bf16 for groups of 16, then 4 pad bytes); 160 bytes a block, 2
 * blocks: 320 bytes. */
#define B_BYTES 320
static kvg_row_layout layout_b(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test block-major";
    l.segments = 4;
    l.seg[NOPE] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP4_E2M1, 0, 0, 32, 16,
                      -1);
    l.seg[ROPE] = seg("rope", KVG_ROW_COPY, KVG_BF16, 0, 16, 8, 0, -1);
    l.seg[SCALE] = seg("scale", KVG_ROW_SCALE, KVG_BF16, 1, 0, 2, 0, NOPE);
    l.seg[PAD] = seg("pad", KVG_ROW_PAD, KVG_UINT8, 1, 4, 4, 0, -1);
    l.regions = 2;
    l.region_offset[0] = 0;
    l.slot_stride[0] = 32;
    l.region_offset[1] = 128;
    l.slot_stride[1] = 8;
    l.block_size = 4;
    l.block_stride[0] = 160;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 2;
    return l;
}

/* int8 codes with one fp32 scale a row: 16 + 4 bytes, 8 slots of 20. */
#define C_BYTES 160
static kvg_row_layout layout_c(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test int8";
    l.segments = 2;
    l.seg[0] = seg("k", KVG_ROW_PAYLOAD, KVG_INT8, 0, 0, 16, 16, -1);
    l.seg[1] = seg("scale", KVG_ROW_SCALE, KVG_FP32, 0, 16, 1, 0, 0);
    l.regions = 1;
    l.slot_stride[0] = 20;
    l.block_size = 1;
    l.block_stride[0] = 20;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 8;
    return l;
}

/* Byte offset of a slot's segment, from the layout's definition (not
 * from kvg_row_segment_at). */
static int64_t at(const kvg_row_layout *l, int64_t slot, int s)
{
    const kvg_row_segment *g = &l->seg[s];
    return slot / l->block_size *
               l->block_stride[l->region_tensor[g->region]] +
           l->region_offset[g->region] +
           slot % l->block_size * l->slot_stride[g->region] + g->offset;
}

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32f(unsigned char *p, float v) { memcpy(p, &v, 4); }

/* A slot's golden fields, all non-zero but the pad:
 *  fp8 e4m3 codes 0x30..0x37 (0.5 .. 0.9375), fp4 codes 1..6 (0.5 .. 3),
 *  int8 7k - 50; e8m0 scales 0x79 (2^-6) and 0x78 (2^-7); bf16 scales
 *  0x3c00 (2^-7) and 0x3c80 (2^-6); fp32 scale 2^-5; rope bf16 0x3f80 +
 *  8 slot + k. */
static void fill_slot(const kvg_row_layout *l, unsigned char *c, int64_t slot)
{
    int i;
    int64_t k;

    for (i = 0; i < l->segments; i++) {
        const kvg_row_segment *s = &l->seg[i];
        unsigned char *p = c + at(l, slot, i);
        if (s->field == KVG_ROW_DONT_CARE)
            continue; /* never written: keeps the initial bytes */
        for (k = 0; k < s->count; k++) {
            switch (s->dtype) {
            case KVG_FP8_E4M3FN:
                p[k] = (unsigned char)(0x30 + (slot + k) % 8);
                break;
            case KVG_FP4_E2M1: {
                unsigned code = (unsigned)(1 + (slot + k) % 6);
                if (k % 2 == 0)
                    p[k / 2] = (unsigned char)code;
                else
                    p[k / 2] = (unsigned char)(p[k / 2] | code << 4);
                break;
            }
            case KVG_INT8:
                p[k] = (unsigned char)(signed char)(7 * k - 50);
                break;
            case KVG_E8M0:
                p[k] = (unsigned char)(0x79 - k);
                break;
            case KVG_BF16:
                put16(p + 2 * k, s->field == KVG_ROW_SCALE
                                     ? (uint16_t)(0x3c00 + 0x80 * k)
                                     : (uint16_t)(0x3f80 + 8 * slot + k));
                break;
            case KVG_FP32:
                put32f(p + 4 * k, 0.03125f);
                break;
            default: /* pad */
                p[k] = 0;
                break;
            }
        }
    }
}

/* ---- one comparison ------------------------------------------------------- */

typedef struct fixture {
    kvg_row_layout l;
    int64_t n;
    unsigned char init[A_BYTES], gold[A_BYTES], npu[A_BYTES];
    unsigned char mask[A_BYTES];
    kvg_tensor ti, tg, ta;
} fixture;

/* Poisoned initial contents ((37 i + 11) mod 256, never all zero), the
 * golden writing `slots`, the mask marking exactly their segments, the
 * NPU equal to the golden until a test plants a fault. */
static void setup(fixture *f, kvg_row_layout l, int64_t n,
                  const int64_t *slots, int count)
{
    int64_t i;
    int j, s;

    memset(f, 0, sizeof *f);
    f->l = l;
    f->n = n;
    for (i = 0; i < n; i++)
        f->init[i] = (unsigned char)(37 * i + 11);
    memcpy(f->gold, f->init, (size_t)n);
    for (j = 0; j < count; j++) {
        fill_slot(&f->l, f->gold, slots[j]);
        for (s = 0; s < l.segments; s++) {
            int64_t b = kvg_row_segment_bytes(&l.seg[s]);
            if (l.seg[s].field != KVG_ROW_DONT_CARE)
                memset(f->mask + at(&f->l, slots[j], s), 1, (size_t)b);
        }
    }
    memcpy(f->npu, f->gold, (size_t)n);
    f->ti = kvg_tensor_make(f->init, (size_t)n, KVG_UINT8, 1, &f->n);
    f->tg = kvg_tensor_make(f->gold, (size_t)n, KVG_UINT8, 1, &f->n);
    f->ta = kvg_tensor_make(f->npu, (size_t)n, KVG_UINT8, 1, &f->n);
}

static void args_of(fixture *f, kvg_compare_args *a)
{
    kvg_compare_args_init(a);
    a->name = "cache";
    a->golden = &f->tg;
    a->actual = &f->ta;
    a->initial = &f->ti;
    a->written = f->mask;
    a->written_count = (size_t)f->n;
    a->row_layout = &f->l;
    /* CANN's standard: payload codes by their dtype's quant rule (code
     * distance for fp8); under the default, ops-test-kit's, they are bit
     * for bit (test_mixed_ttk_payload_bitwise) */
    a->standard = KVG_STD_SINGLE;
}

static kvg_status judge(fixture *f, kvg_compare_result *r)
{
    kvg_compare_args a;
    kvg_diag diag;

    args_of(f, &a);
    kvgt_poison(r, sizeof *r, 36);
    return kvg_compare_tensor(&a, r, &diag);
}

/* The same under the default standard, ops-test-kit's: payload codes
 * bit for bit, as its binary_equal judges the uint8 cache holding them. */
static kvg_status judge_ttk(fixture *f, kvg_compare_result *r)
{
    kvg_compare_args a;
    kvg_diag diag;

    args_of(f, &a);
    a.standard = KVG_STD_MIXED_TTK;
    kvgt_poison(r, sizeof *r, 36);
    return kvg_compare_tensor(&a, r, &diag);
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

static const int64_t k_slots_a[3] = {1, 2, 6};

/* ---- a clean cache -------------------------------------------------------- */

static void test_clean_cache_passes(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.row_slots, 8);
    assert_int_equal(r.row_slots_written, 3);
    /* 3 slots: 32 codes, 2 scales, 8 rope elements, 6 pad bytes each;
     * the other 576 - 3 * 48 bytes untouched */
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units, 96);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].units, 6);
    assert_int_equal(r.rows[KVG_ROWK_COPY].units, 24);
    assert_int_equal(r.rows[KVG_ROWK_PAD].units, 18);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units, 576 - 3 * 56);
    /* fp8 payload under the default standard: code distance */
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_CODE_DIST);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].criterion, KVG_CRIT_BITWISE);
    assert_string_equal(r.row_layout_name, "test per-slot");
    test_free(f);
}

/* ---- one fault in each field ---------------------------------------------- */

static void test_scale_fault_alone(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    /* slot 2, group 1: golden 0x78 (2^-7); the NPU wrote 0x77 (2^-8) */
    f->npu[at(&f->l, 2, SCALE) + 1] = 0x77;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].listed, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 2);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].group, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].distance, 1);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 2: scale of group 1 of nope is 2^-8 (0x77), "
                        "golden 2^-7 (0x78); its 16 payload codes are "
                        "bit-identical");
    test_free(f);
}

/* A scale cache typed e8m0 (how a scale tensor of its own is declared)
 * is a byte array too: the same bytes judge the same, a fault in a
 * scale still fails alone. */
static void test_e8m0_typed_cache_is_judged(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->ti.dtype = f->tg.dtype = f->ta.dtype = KVG_E8M0;
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.row_slots_written, 3);
    f->npu[at(&f->l, 6, SCALE)] ^= 0x01;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 6);
    test_free(f);
}

/* A kernel that picked a scale one binade too small: its codes of that
 * group come out one binade larger (e4m3: exponent field + 1 = code +
 * 8), every one of them. */
static void test_scale_and_its_group_shifted(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    int64_t k;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 6, SCALE) + 0] = 0x78; /* golden 0x79 */
    for (k = 0; k < 16; k++)
        f->npu[at(&f->l, 6, NOPE) + k] =
            (unsigned char)(f->gold[at(&f->l, 6, NOPE) + k] + 8);
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 6: scale of group 0 of nope is 2^-7 (0x78), "
                        "golden 2^-6 (0x79); 16 of 16 payload codes of that "
                        "group differ, all by one binade (x2)");
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].verdict, KVG_VERDICT_FAIL);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].differ, 16);
    /* one binade of e4m3 is 8 codes */
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].max_dist, 8);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].group, 0);
    assert_int_equal(r.rows[KVG_ROWK_PAD].verdict, KVG_VERDICT_PASS);
    assert_int_equal(r.rows[KVG_ROWK_COPY].verdict, KVG_VERDICT_PASS);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].verdict, KVG_VERDICT_PASS);
    test_free(f);
}

static void test_payload_code_fault_alone(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    unsigned char *p;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    /* slot 6 code 20 (group 1): golden 0x30 + 26 % 8 = 0x32 (0.625);
     * 0x34 (0.75) is 2 codes away: fails (1 of 96 > 0.001) */
    p = &f->npu[at(&f->l, 6, NOPE) + 20];
    assert_int_equal(*p, 0x32);
    *p = 0x34;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_string_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                        "slot 6: nope code 20 of group 1 is 0x34 (0.75), "
                        "golden 0x32 (0.625): 2 codes apart");
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].byte,
                     288 + 2 * 64 + 20);
    /* one code away is within code_dist: listed, not failing */
    *p = 0x33;
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].differ, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].listed, 1);
    test_free(f);
}

static void test_rope_byte_fault_alone(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    /* slot 1 rope element 3: golden 0x3f80 + 8 + 3 = 0x3f8b; its low
     * byte + 1 */
    f->npu[at(&f->l, 1, ROPE) + 6] = 0x8c;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_COPY, 1);
    assert_string_equal(r.rows[KVG_ROWK_COPY].place[0].text,
                        "slot 1: rope element 3 is 0x3f8c (1.09375), golden "
                        "0x3f8b (1.0859375)");
    test_free(f);
}

static void test_pad_byte_fault_alone(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 2, PAD) + 4] = 0x01;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAD, 1);
    assert_string_equal(r.rows[KVG_ROWK_PAD].place[0].text,
                        "slot 2: pad byte 4 is 0x01, golden 0x00");
    assert_int_equal(r.rows[KVG_ROWK_PAD].place[0].byte, 2 * 64 + 54);
    test_free(f);
}

static void test_untouched_byte_faults(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    char want[KVG_COMPARE_PLACE_TEXT];
    int64_t b;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    /* slot 3 is not written: its nope byte 5 must keep the initial */
    b = at(&f->l, 3, NOPE) + 5;
    f->npu[b] = (unsigned char)~f->init[b];
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    (void)snprintf(want, sizeof want, "slot 3 (not written): nope byte 5 is "
                   "0x%02x, initial 0x%02x", (unsigned)f->npu[b],
                   (unsigned)f->init[b]);
    assert_string_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].text, want);
    assert_int_equal(r.untouched_changed, 1);
    f->npu[b] = f->init[b];

    /* written slot 1, byte 60 of its row: past its segments */
    b = 1 * 64 + 60;
    f->npu[b] = (unsigned char)~f->init[b];
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    (void)snprintf(want, sizeof want, "slot 1 (written): byte 60 of its "
                   "row, outside its segments, is 0x%02x, initial 0x%02x",
                   (unsigned)f->npu[b], (unsigned)f->init[b]);
    assert_string_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].text, want);
    f->npu[b] = f->init[b];

    /* the gap after block 0's four rows belongs to no slot */
    b = 4 * 64 + 3;
    f->npu[b] = (unsigned char)~f->init[b];
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].slot, -1);
    (void)snprintf(want, sizeof want, "byte 259 (in no slot's row) is "
                   "0x%02x, initial 0x%02x", (unsigned)f->npu[b],
                   (unsigned)f->init[b]);
    assert_string_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].text, want);
    test_free(f);
}

/* A kernel that clears the whole cache first: the poisoned initial bytes
 * of every unwritten slot fail, the written fields pass. */
static void test_cleared_cache_fails_untouched_only(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    int64_t i, zeros = 0;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    for (i = 0; i < A_BYTES; i++)
        if (!f->mask[i]) {
            zeros += f->init[i] != 0;
            f->npu[i] = 0;
        }
    assert_true(zeros > 300);
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, zeros);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].listed,
                     KVG_COMPARE_ROW_PLACES);
    test_free(f);
}

/* ---- the block-major layout: fp4 codes, bf16 scales ----------------------- */

static const int64_t k_slots_b[2] = {0, 5};

static void test_block_major_fp4(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_diag diag;
    unsigned char *p;
    (void)state;

    setup(f, layout_b(), B_BYTES, k_slots_b, 2);
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units, 64); /* codes */
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units, 320 - 2 * 40);
    /* fp4_e2m1 under the default standard is bitwise (as ops-test-kit) */
    assert_int_equal(judge_ttk(f, &r), KVG_OK);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_BITWISE);

    /* slot 5 (block 1, position 1) code 7, byte 3's high nibble: golden
     * 1 + 12 % 6 = 1 (0.5); the NPU wrote 3 (1.5), two values away */
    p = &f->npu[160 + 32 + 3];
    assert_int_equal(*p >> 4, 1);
    *p = (unsigned char)((*p & 0x0F) | 0x30);
    assert_int_equal(judge_ttk(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_string_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                        "slot 5: nope code 7 (byte 3 hi) of group 0 is 0x3 "
                        "(1.5), golden 0x1 (0.5)");
    /* under SINGLE fp4_e2m1 is judged by code distance: 2 apart */
    args_of(f, &a);
    a.standard = KVG_STD_SINGLE;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_CODE_DIST);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].distance, 2);
    *p = f->gold[160 + 32 + 3];

    /* slot 5's bf16 scale of group 1 (region 1 at 160 + 128 + 8 + 2):
     * golden 0x3c80 (2^-6), the NPU 0x3c00 (2^-7) */
    put16(&f->npu[160 + 128 + 8 + 2], 0x3c00);
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 5: scale of group 1 of nope is 0x3c00 "
                        "(0.0078125), golden 0x3c80 (0.015625); its 16 "
                        "payload codes are bit-identical");
    put16(&f->npu[160 + 128 + 8 + 2], 0x3c80);

    /* a pad byte in region 1 and an untouched scale slot (position 2) */
    f->npu[160 + 128 + 8 + 4 + 3] = 0x7f;
    f->npu[160 + 128 + 16] = (unsigned char)~f->init[160 + 128 + 16];
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.rows[KVG_ROWK_PAD].failing, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].failing, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].verdict, KVG_VERDICT_PASS);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].verdict, KVG_VERDICT_PASS);
    assert_string_equal(r.rows[KVG_ROWK_PAD].place[0].text,
                        "slot 5: pad byte 3 is 0x7f, golden 0x00");
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].slot, 6);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].segment, SCALE);
    test_free(f);
}

/* The vendor comparators' int8 view (at most 0.1 % of bytes more than 1
 * apart) passes the fp4 byte 0x10 (codes +0, 0.5) written as 0x0f
 * (codes -6, +0): 16 - 15 = 1. Per code, both codes are wrong. */
static void test_int8_view_trap_fp4(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_diag diag;
    int64_t b;
    (void)state;

    setup(f, layout_b(), B_BYTES, k_slots_b, 2);
    b = at(&f->l, 0, NOPE);
    f->gold[b] = 0x10;
    f->npu[b] = 0x0f;
    assert_int_equal((int)(signed char)f->gold[b] -
                         (int)(signed char)f->npu[b],
                     1);
    args_of(f, &a);
    a.standard = KVG_STD_SINGLE; /* code distance for fp4_e2m1 */
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    /* the high code is one value off (within code_dist), the low one 7 */
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].differ, 2);
    /* -6 is the lowest value, +0 its 7 negatives and 0.5 above: -6 .. -0.5
     * are 7 values, then 0 (both zeros), so |rank(-6) - rank(0)| = 7 */
    assert_string_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                        "slot 0: nope code 0 (byte 0 lo) of group 0 is 0xf "
                        "(-6), golden 0x0 (0): 7 codes apart");
    assert_string_equal(r.rows[KVG_ROWK_PAYLOAD].place[1].text,
                        "slot 0: nope code 1 (byte 0 hi) of group 0 is 0x0 "
                        "(0), golden 0x1 (0.5): 1 code apart");
    /* the default standard judges fp4_e2m1 bit for bit: both fail */
    assert_int_equal(judge_ttk(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 2);
    test_free(f);
}

/* ---- int8 codes with an fp32 scale ---------------------------------------- */

static void test_int8_fp32_scale(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    const int64_t slots[3] = {0, 3, 7};
    kvg_compare_result r;
    (void)state;

    setup(f, layout_c(), C_BYTES, slots, 3);
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_INT_ABS1);
    /* code 2 of slot 3: golden 7 * 2 - 50 = -36; -35 is within 1 */
    f->npu[3 * 20 + 2] = (unsigned char)(signed char)-35;
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].differ, 1);
    f->npu[3 * 20 + 2] = (unsigned char)(signed char)-38;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_string_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                        "slot 3: k code 2 of group 0 is 0xda (-38), golden "
                        "0xdc (-36): |delta| 2");
    f->npu[3 * 20 + 2] = f->gold[3 * 20 + 2];
    /* the fp32 scale 2^-5 of slot 7 written as 2^-4 */
    put32f(&f->npu[7 * 20 + 16], 0.0625f);
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 7: scale of group 0 of k is 0x3d800000 "
                        "(0.0625), golden 0x3d000000 (0.03125); its 16 "
                        "payload codes are bit-identical");
    test_free(f);
}

/* ---- the written set: runs, none, and refusals ---------------------------- */

static void test_runs_judge_as_the_mask(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result *r = (kvg_compare_result *)test_malloc(2 * sizeof *r);
    kvg_elem_run runs[8];
    kvg_compare_args a;
    kvg_diag diag;
    size_t n = 0;
    int64_t i = 0, k;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 2, SCALE) + 1] = 0x77;
    f->npu[3 * 64 + 1] ^= 0x40;
    while (i < A_BYTES) { /* the mask as runs */
        if (!f->mask[i]) {
            i++;
            continue;
        }
        for (k = i; k < A_BYTES && f->mask[k]; k++)
            ;
        runs[n].first = i, runs[n].count = k - i, n++;
        i = k;
    }
    assert_int_equal(n, 3); /* each written row's 56 bytes */
    assert_int_equal(judge(f, &r[0]), KVG_ERR_MISMATCH);
    args_of(f, &a);
    a.written = NULL;
    a.written_count = 0;
    a.written_runs = runs;
    a.written_run_count = n;
    kvgt_poison(&r[1], sizeof r[1], 7);
    assert_int_equal(kvg_compare_tensor(&a, &r[1], &diag), KVG_ERR_MISMATCH);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        assert_int_equal(r[0].rows[k].verdict, r[1].rows[k].verdict);
        assert_int_equal(r[0].rows[k].units, r[1].rows[k].units);
        assert_int_equal(r[0].rows[k].failing, r[1].rows[k].failing);
    }
    assert_int_equal(r[1].rows[KVG_ROWK_SCALES].failing, 1);
    assert_int_equal(r[1].rows[KVG_ROWK_UNTOUCHED].failing, 1);
    assert_string_equal(r[0].rows[KVG_ROWK_UNTOUCHED].place[0].text,
                        r[1].rows[KVG_ROWK_UNTOUCHED].place[0].text);
    test_free(r);
    test_free(f);
}

/* No written set: every slot is written, bytes outside every segment
 * must equal the golden. */
static void test_no_mask_every_slot(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    const int64_t all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_diag diag;
    (void)state;

    setup(f, layout_a(), A_BYTES, all, 8);
    f->npu[5 * 64 + 288 - 256 + 58] ^= 0x01; /* slot 5's byte 58 */
    args_of(f, &a);
    a.initial = NULL;
    a.written = NULL;
    a.written_count = 0;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.row_slots_written, 8);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units, 576 - 8 * 56);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].slot, 5);
    assert_contains(r.rows[KVG_ROWK_UNTOUCHED].place[0].text,
                    "slot 5 (written): byte 58 of its row, outside its "
                    "segments");
    assert_contains(r.rows[KVG_ROWK_UNTOUCHED].place[0].text, ", golden 0x");
    test_free(f);
}

static void test_refusals(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_tensor bf;
    kvg_diag diag;
    int64_t half = A_BYTES / 2;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    kvgt_poison(&r, sizeof r, 5);
    /* a mask marking part of unwritten slot 3's scales */
    f->mask[at(&f->l, 3, SCALE) + 1] = 1;
    args_of(f, &a);
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "slot 3 is untouched by its first byte, "
                                  "but 1 of the 2 bytes of its segment 2 "
                                  "(scale");
    f->mask[at(&f->l, 3, SCALE) + 1] = 0;
    /* a byte marked outside every segment (and equal to the initial) */
    f->mask[1 * 64 + 60] = 1;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "bytes outside every segment are marked");
    f->mask[1 * 64 + 60] = 0;
    /* a criterion of its own */
    a.criterion = KVG_CRIT_BITWISE;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "criterion must be auto with a row_layout");
    a.criterion = KVG_CRIT_AUTO;
    /* a layout larger than the cache */
    f->l.blocks = 3;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "cache.layout");
    f->l.blocks = 2;
    /* not a byte array */
    bf = kvg_tensor_make(f->gold, (size_t)A_BYTES, KVG_BF16, 1, &half);
    a.golden = a.actual = &bf;
    a.initial = NULL;
    a.written = NULL;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "must be a byte array");
    /* nothing of the result was written by a refused call */
    {
        kvg_compare_result p;
        kvgt_poison(&p, sizeof p, 5);
        assert_memory_equal(&p, &r, sizeof r);
    }
    test_free(f);
}

/* ---- the reports ---------------------------------------------------------- */

static void test_reports_name_the_places(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    static char buf[1 << 16];
    const kvg_json *fields, *scales;
    kvg_json *doc;
    size_t len;
    kvg_diag diag;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 2, SCALE) + 1] = 0x77;
    f->npu[at(&f->l, 1, PAD) + 0] = 0x05;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_int_equal(kvg_compare_report_text(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "cache   uint8  rows       FAIL          576      168");
    assert_contains(buf, "  cache: single, rows: packed rows, field by "
                         "field");
    assert_contains(buf, "packed rows (layout test per-slot; 3 of 8 slots "
                         "written), field by field:");
    assert_contains(buf, "scales        bitwise    FAIL  1 of 6 fail");
    assert_contains(buf, "pad           bitwise    FAIL  1 of 18 fail");
    assert_contains(buf, "payload       code_dist  PASS  0 of 96 fail");
    assert_contains(buf, "      slot 2: scale of group 1 of nope is 2^-8 "
                         "(0x77), golden 2^-7 (0x78)");
    assert_contains(buf, "      slot 1: pad byte 0 is 0x05, golden 0x00");
    assert_int_equal(kvg_compare_report_json(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    fields = kvg_json_get(kvg_json_get(kvg_json_at(kvg_json_get(doc,
                                                                "results"),
                                                   0),
                                       "rows"),
                          "fields");
    scales = kvg_json_at(fields, KVG_ROWK_SCALES);
    assert_string_equal(kvgt_json_str(scales, "kind"), "scales");
    assert_string_equal(kvgt_json_str(scales, "verdict"), "FAIL");
    assert_true(kvgt_json_num(scales, "failing") == 1.0);
    assert_true(kvgt_json_num(kvg_json_at(kvg_json_get(scales, "places"), 0),
                              "group") == 1.0);
    assert_string_equal(
        kvgt_json_str(kvg_json_at(kvg_json_get(scales, "places"), 0),
                      "actual"),
        "0x77");
    assert_string_equal(
        kvgt_json_str(kvg_json_at(fields, KVG_ROWK_PAYLOAD), "verdict"),
        "PASS");
    kvg_json_free(doc);
    test_free(f);
}

/* The HTML page: the field table with each kind's verdict and the
 * places, no byte histogram. */
static void test_html_names_the_places(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_report_set set;
    char *buf = NULL;
    size_t len = 0;
    FILE *out;
    (void)state;

    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 2, SCALE) + 1] = 0x77;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &f->tg;
    rt.actual = &f->ta;
    memset(&set, 0, sizeof set);
    set.case_dir = "rows";
    set.op = "op";
    set.tensors = &rt;
    set.count = 1;
    out = open_memstream(&buf, &len);
    assert_non_null(out);
    assert_int_equal(kvg_report_html(out, &set, NULL), KVG_OK);
    assert_int_equal(fclose(out), 0);
    assert_contains(buf, "Packed rows, field by field (layout test per-slot; "
                         "3 of 8 slots written)");
    assert_contains(buf, "<td class=\"l\">scales</td><td class=\"l\">"
                         "bitwise</td><td><span class=\"badge FAIL\">FAIL"
                         "</span></td><td>6</td><td>1</td>");
    assert_contains(buf, "<td class=\"l\">payload</td><td class=\"l\">"
                         "code_dist</td><td><span class=\"badge PASS\">");
    assert_contains(buf, "slot 2: scale of group 1 of nope is 2^-8 (0x77), "
                         "golden 2^-7 (0x78)");
    assert_true(strstr(buf, "Error distribution") == NULL);
    free(buf);
    test_free(f);
}

/* ---- the registry: kvg_op_row_layout ------------------------------------- */

/* Every operator's outputs and caches: "none" (KVG_OK, segments 0) where
 * the operator has no row layout, a checked layout or the call's refusal
 * (this call has no tensors) where it has one; inputs are refused. The
 * operators of this branch have none, so "none" is seen. */
/* ---- a short last group, and bytes the kernel leaves unset -------------- */

/* Per slot, 48-byte rows: 40 fp8 codes in groups of 16 (16, 16 and a
 * short last group of 8, as 448 columns in groups of 128 end in 64),
 * their 3 e8m0 scales at 40, 5 undefined bytes at 43; 4 slots. */
static kvg_row_layout layout_d(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test short group";
    l.segments = 3;
    l.seg[0] = seg("nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, 40, 16,
                   -1);
    l.seg[1] = seg("scale", KVG_ROW_SCALE, KVG_E8M0, 0, 40, 3, 0, 0);
    l.seg[2] = seg("scale pad", KVG_ROW_UNDEFINED, KVG_UINT8, 0, 43, 5, 0,
                   -1);
    l.regions = 1;
    l.slot_stride[0] = 48;
    l.block_size = 4;
    l.block_stride[0] = 192;
    l.tensors = 1;
    l.tensor_name[0] = "cache";
    l.blocks = 1;
    return l;
}

static void test_mixed_ttk_payload_bitwise(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    (void)state;

    /* slot 6's nope code 20 one code up (0x32 -> 0x33): under CANN's
     * single standard one code apart passes (code_dist); under the
     * default, ops-test-kit's, it fails bit for bit - kvgold is never
     * more lenient than the standard it names */
    setup(f, layout_a(), A_BYTES, k_slots_a, 3);
    f->npu[at(&f->l, 6, NOPE) + 20] ^= 0x01;
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_CODE_DIST);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].differ, 1);
    assert_int_equal(judge_ttk(f, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].criterion, KVG_CRIT_BITWISE);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    test_free(f);
}

static void test_short_group_and_undefined_bytes(void **state)
{
    static const int64_t slots[2] = {0, 3};
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    char text[8192];
    size_t len;
    kvg_diag diag;
    int k;
    (void)state;

    setup(f, layout_d(), 192, slots, 2);
    /* the NPU leaves its own garbage in the unset bytes: any value */
    for (k = 0; k < 5; k++)
        f->npu[3 * 48 + 43 + k] = (unsigned char)(0xC0 + k);
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].units, 10);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].differ, 5);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units, 80);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].units, 6);
    assert_int_equal(kvg_compare_report_text(&r, 1, text, sizeof text, &len,
                                             &diag), KVG_OK);
    assert_contains(text, "undefined");
    assert_contains(text, "10 bytes, 5 differ, not judged by value");

    /* slot 3's short group 2 (codes 32..39, golden 0x30 + (3 + k) % 8)
     * read one binade up (code + 8: exponent + 1) and its scale 0x77
     * (2^-8) one binade down as 0x76 */
    for (k = 32; k < 40; k++)
        f->npu[3 * 48 + k] = (unsigned char)(f->gold[3 * 48 + k] + 8);
    f->npu[3 * 48 + 40 + 2] = 0x76;
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].verdict, KVG_VERDICT_FAIL);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].failing, 1);
    assert_contains(r.rows[KVG_ROWK_SCALES].place[0].text,
                    "slot 3: scale of group 2");
    assert_contains(r.rows[KVG_ROWK_SCALES].place[0].text,
                    "8 of 8 payload codes of that group differ, all by one "
                    "binade (x2)");
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].verdict, KVG_VERDICT_PASS);
    test_free(f);
}

/* layout_b with its scale pad never written (DONT_CARE, FlashMLA
 * MODEL1's pad byte): in a written slot any value passes and is counted
 * with the undefined bytes, in an unwritten slot it is untouched; the
 * written set must leave it unmarked. With the mask and with its runs. */
static void test_dont_care_bytes(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_compare_args a;
    kvg_elem_run runs[8];
    kvg_diag diag;
    kvg_row_layout l = layout_b();
    size_t n = 0;
    int64_t i = 0, k;
    (void)state;

    l.seg[PAD].field = KVG_ROW_DONT_CARE;
    setup(f, l, B_BYTES, k_slots_b, 2); /* slots 0 and 5 */
    f->npu[at(&f->l, 5, PAD) + 2] ^= 0x5A; /* written slot: any value */
    f->npu[at(&f->l, 0, PAD)] ^= 0x01;
    assert_int_equal(judge(f, &r), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].units, 8);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].differ, 2);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units,
                     B_BYTES - 2 * (16 + 16 + 4) - 8);
    f->npu[at(&f->l, 6, PAD) + 3] ^= 0x10; /* slot 6 is not written */
    assert_int_equal(judge(f, &r), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    assert_contains(r.rows[KVG_ROWK_UNTOUCHED].place[0].text,
                    "slot 6 (not written): pad");
    while (i < B_BYTES) { /* the mask as runs: no DONT_CARE byte in them */
        if (!f->mask[i]) {
            i++;
            continue;
        }
        for (k = i; k < B_BYTES && f->mask[k]; k++)
            ;
        runs[n].first = i, runs[n].count = k - i, n++;
        i = k;
    }
    args_of(f, &a);
    a.written = NULL;
    a.written_count = 0;
    a.written_runs = runs;
    a.written_run_count = n;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units,
                     B_BYTES - 2 * (16 + 16 + 4) - 8);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].differ, 2);
    /* a written set marking a DONT_CARE byte does not describe the
     * layout: refused */
    f->mask[at(&f->l, 5, PAD)] = 1;
    args_of(f, &a);
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "segment 3 (pad");
    test_free(f);
}

static void test_op_row_layout(void **state)
{
    kvg_row_layout rl;
    kvg_diag diag;
    size_t i, t;
    int nones = 0;
    (void)state;

    assert_int_equal(kvg_op_row_layout_size(), sizeof(kvg_row_layout));
    for (i = 0; i < kvg_op_count(); i++) {
        const kvg_op *op = kvg_op_at(i);
        kvg_op_call call;
        kvg_op_call_init(&call, op);
        for (t = 0; t < kvg_op_tensor_count(op); t++) {
            const kvg_op_tensor_info *ti = kvg_op_tensor_at(op, t);
            kvg_status st;
            kvgt_poison(&rl, sizeof rl, 3);
            st = kvg_op_row_layout(&call, ti->name, &rl, &diag);
            if (ti->kind == KVG_OP_INPUT) {
                assert_int_equal(st, KVG_ERR_PARAM_INVALID);
                assert_contains(diag.message, ti->name);
            } else if (st == KVG_OK && rl.segments == 0) {
                nones++;
                assert_int_equal(rl.blocks, 0);
            } else if (st == KVG_OK) {
                assert_int_equal(kvg_row_layout_check(&rl, NULL, &diag),
                                 KVG_OK);
            } else {
                assert_true(st == KVG_ERR_PARAM_INVALID ||
                            st == KVG_ERR_PARAM_NULLPTR);
            }
        }
        if (kvg_op_tensor_count(op) > 0)
            assert_int_equal(kvg_op_row_layout(&call,
                                               kvg_op_tensor_at(op, 0)->name,
                                               NULL, &diag),
                             KVG_ERR_PARAM_NULLPTR);
    }
    assert_true(nones > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_cache_passes),
        cmocka_unit_test(test_scale_fault_alone),
        cmocka_unit_test(test_e8m0_typed_cache_is_judged),
        cmocka_unit_test(test_scale_and_its_group_shifted),
        cmocka_unit_test(test_payload_code_fault_alone),
        cmocka_unit_test(test_rope_byte_fault_alone),
        cmocka_unit_test(test_pad_byte_fault_alone),
        cmocka_unit_test(test_untouched_byte_faults),
        cmocka_unit_test(test_cleared_cache_fails_untouched_only),
        cmocka_unit_test(test_block_major_fp4),
        cmocka_unit_test(test_int8_view_trap_fp4),
        cmocka_unit_test(test_int8_fp32_scale),
        cmocka_unit_test(test_runs_judge_as_the_mask),
        cmocka_unit_test(test_no_mask_every_slot),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_reports_name_the_places),
        cmocka_unit_test(test_html_names_the_places),
        cmocka_unit_test(test_mixed_ttk_payload_bitwise),
        cmocka_unit_test(test_short_group_and_undefined_bytes),
        cmocka_unit_test(test_dont_care_bytes),
        cmocka_unit_test(test_op_row_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
