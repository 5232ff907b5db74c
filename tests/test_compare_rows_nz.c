/*
 * tests/test_compare_rows_nz.c - kvg_compare_tensor judging C8-MXFP's K
 * caches field by field (issue 36): the fp8 codes of a PA_NZ cache
 * [Bn, N, D/32, Bs, 32] and their E8M0 scales in a tiled scale cache
 * [Bn, N, Bs/16, D/64, 16, 2] (tests/nz_layout.h), each tensor judged by
 * its own comparison. A fault is named by slot, head and group; a byte
 * of an unwritten slot inside a written slot's tile is an untouched byte
 * that changed; the sink slot (pad rows clamped to slot 0) is counted as
 * undefined and never fails, while a fault elsewhere still does.
 *
 * Every address comes from the views' shapes (nz_k_index,
 * nz_scale_index), not from the layout's formula; e8m0 code c is
 * 2^(c - 127): 0x78 = 2^-7, 0x77 = 2^-8.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"
#include "nz_layout.h"

#define TOKENS 4

static const int64_t k_slot[TOKENS] = {0, 17, 33, 50};

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL) {
        fprintf(stderr, "%s\n", msg);
        fail_msg("the text above lacks \"%s\"", fragment);
    }
}

typedef struct side {
    int64_t n;
    unsigned char init[NZ_K_BYTES], gold[NZ_K_BYTES], npu[NZ_K_BYTES];
    unsigned char mask[NZ_K_BYTES];
    kvg_tensor ti, tg, ta;
} side;

typedef struct fixture {
    kvg_row_layout l;
    side t[2];
} fixture;

/* Slot s's golden: code 0x30 + (s + h + d) % 8 at channel d of head h,
 * scale 0x78 + g % 2 - h (head 0: 2^-7, 2^-6; head 1: 2^-8, 2^-7); its
 * bytes marked written. */
static void fill_slot(fixture *f, int64_t s)
{
    int64_t d, g;
    int h;

    for (h = 0; h < NZ_N; h++) {
        for (d = 0; d < NZ_D; d++) {
            const int64_t i = nz_k_index(s, h, d);
            f->t[0].gold[i] = (unsigned char)(0x30 + (s + h + d) % 8);
            f->t[0].mask[i] = 1;
        }
        for (g = 0; g < NZ_D / 32; g++) {
            const int64_t i = nz_scale_index(s, h, g);
            f->t[1].gold[i] = (unsigned char)(0x78 + g % 2 - h);
            f->t[1].mask[i] = 1;
        }
    }
}

/* Poisoned initial tensors ((37 i + 11 + t) mod 256), the golden writing
 * the slots of k_slot from `first` on, the NPU equal to the golden. */
static void setup(fixture *f, int first)
{
    int64_t i;
    int t;

    memset(f, 0, sizeof *f);
    f->l = nz_layout();
    f->t[0].n = NZ_K_BYTES;
    f->t[1].n = NZ_S_BYTES;
    for (t = 0; t < 2; t++)
        for (i = 0; i < f->t[t].n; i++)
            f->t[t].init[i] = (unsigned char)(37 * i + 11 + t);
    for (t = 0; t < 2; t++)
        memcpy(f->t[t].gold, f->t[t].init, (size_t)f->t[t].n);
    for (i = first; i < TOKENS; i++)
        fill_slot(f, k_slot[i]);
    for (t = 0; t < 2; t++) {
        side *s = &f->t[t];
        memcpy(s->npu, s->gold, (size_t)s->n);
        s->ti = kvg_tensor_make(s->init, (size_t)s->n, KVG_UINT8, 1, &s->n);
        s->tg = kvg_tensor_make(s->gold, (size_t)s->n, KVG_UINT8, 1, &s->n);
        s->ta = kvg_tensor_make(s->npu, (size_t)s->n, KVG_UINT8, 1, &s->n);
    }
}

/* Tensor t judged by its own comparison, with the written set (masked)
 * or without one (every slot written). */
static kvg_status judge_as(fixture *f, int t, int masked,
                           kvg_compare_result *r, kvg_diag *diag)
{
    side *s = &f->t[t];
    kvg_compare_args a;

    kvg_compare_args_init(&a);
    a.name = f->l.tensor_name[t];
    a.golden = &s->tg;
    a.actual = &s->ta;
    if (masked) {
        a.initial = &s->ti;
        a.written = s->mask;
        a.written_count = (size_t)s->n;
    }
    a.row_layout = &f->l;
    a.row_tensor = t;
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

/* Both tensors pass on their own fields, with and without a written
 * set; every head's codes and scales are counted. */
static void test_honest_pass(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    int masked;
    (void)state;

    setup(f, 0);
    for (masked = 0; masked < 2; masked++) {
        assert_int_equal(judge_as(f, 0, masked, &r, &diag), KVG_OK);
        assert_only(&r, -1, 0);
        assert_int_equal(r.row_slots, NZ_SLOTS);
        assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units,
                         (masked ? TOKENS : NZ_SLOTS) * NZ_N * NZ_D);
        assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].units,
                         masked ? NZ_K_BYTES - TOKENS * NZ_N * NZ_D : 0);
        assert_int_equal(judge_as(f, 1, masked, &r, &diag), KVG_OK);
        assert_only(&r, -1, 0);
        assert_int_equal(r.rows[KVG_ROWK_SCALES].units,
                         (masked ? TOKENS : NZ_SLOTS) * NZ_N * NZ_D / 32);
    }
    assert_int_equal(r.row_slots_written, TOKENS); /* the masked pass */
    test_free(f);
}

/* One wrong scale: group 2 of head 1 of slot 17, named with its head. */
static void test_scale_fault_named_with_head(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    const int64_t byte = nz_scale_index(17, 1, 2);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    setup(f, 0);
    /* by hand: head 1 at 128, tile 1 at 64, pair 1 at 32, position 1 at
     * 2, element 0 */
    assert_int_equal(byte, 128 + 64 + 32 + 2);
    assert_int_equal(f->t[1].gold[byte], 0x77);
    f->t[1].npu[byte] = 0x76;
    assert_int_equal(judge(f, 1, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 17);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].head, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].group, 2);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].byte, byte);
    assert_string_equal(r.rows[KVG_ROWK_SCALES].place[0].text,
                        "slot 17 head 1: scale of group 2 of k is 2^-9 "
                        "(0x76), golden 2^-8 (0x77)");
    assert_int_equal(judge(f, 0, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    test_free(f);
}

/* One wrong code: channel 70 of head 1 of slot 17 (piece 2). */
static void test_payload_fault_named_with_head(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    const int64_t byte = nz_k_index(17, 1, 70);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    setup(f, 0);
    /* golden 0x30 + (17 + 1 + 70) % 8 = 0x30 (0.5) */
    assert_int_equal(f->t[0].gold[byte], 0x30);
    f->t[0].npu[byte] = 0x31;
    assert_int_equal(judge(f, 0, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_PAYLOAD, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].slot, 17);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].head, 1);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].group, 2);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].place[0].byte, byte);
    assert_contains(r.rows[KVG_ROWK_PAYLOAD].place[0].text,
                    "slot 17 head 1: k code 70 of group 2 is 0x31");
    test_free(f);
}

/* Slot 18 is not written but shares slot 17's tile of the scale cache:
 * a byte of it changed is an untouched byte, named by slot and head. */
static void test_untouched_byte_of_a_tile(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    const int64_t byte = nz_scale_index(18, 0, 1);
    kvg_compare_row_verdict *v;
    kvg_compare_result r;
    kvg_diag diag;
    char want[160];
    (void)state;

    setup(f, 0);
    assert_int_equal(f->t[1].mask[byte], 0);
    f->t[1].npu[byte] ^= 0x01;
    assert_int_equal(judge(f, 1, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    v = &r.rows[KVG_ROWK_UNTOUCHED];
    assert_int_equal(v->place[0].byte, byte);
    assert_int_equal(v->place[0].slot, 18);
    assert_int_equal(v->place[0].head, 0);
    (void)snprintf(want, sizeof want,
                   "slot 18 head 0 (not written): k scale element 1 is "
                   "0x%02x, initial 0x%02x",
                   (unsigned)f->t[1].npu[byte],
                   (unsigned)f->t[1].init[byte]);
    assert_string_equal(v->place[0].text, want);
    /* without a written set every slot is written: the same byte is a
     * scale of slot 18 that differs from the golden */
    assert_int_equal(judge_as(f, 1, 0, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 18);
    test_free(f);
}

/* The sink slot 0: its bytes differ everywhere and are counted as
 * undefined, never failing; a fault in slot 17 still fails. */
static void test_sink_slot_undefined(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_row_verdict *u;
    kvg_compare_result r;
    kvg_diag diag;
    int64_t d, g;
    int h;
    (void)state;

    setup(f, 0);
    f->l.has_sink = 1;
    f->l.sink_slot = 0;
    for (h = 0; h < NZ_N; h++) {
        for (d = 0; d < NZ_D; d++)
            f->t[0].npu[nz_k_index(0, h, d)] ^= 0x5A;
        for (g = 0; g < NZ_D / 32; g++)
            f->t[1].npu[nz_scale_index(0, h, g)] ^= 0x0F;
    }
    assert_int_equal(judge(f, 0, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    u = &r.rows[KVG_ROWK_UNDEFINED];
    assert_int_equal(u->units, NZ_N * NZ_D);
    assert_int_equal(u->differ, NZ_N * NZ_D);
    assert_int_equal(u->failing, 0);
    assert_int_equal(r.rows[KVG_ROWK_PAYLOAD].units,
                     (TOKENS - 1) * NZ_N * NZ_D);
    assert_int_equal(judge(f, 1, &r, &diag), KVG_OK);
    assert_only(&r, -1, 0);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].units, NZ_N * NZ_D / 32);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].differ, NZ_N * NZ_D / 32);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].units,
                     (TOKENS - 1) * NZ_N * NZ_D / 32);
    /* slot 17's scale 0 of head 0 wrong as well: that fails */
    f->t[1].npu[nz_scale_index(17, 0, 0)] ^= 0x01;
    assert_int_equal(judge(f, 1, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_SCALES, 1);
    assert_int_equal(r.rows[KVG_ROWK_SCALES].place[0].slot, 17);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].differ, NZ_N * NZ_D / 32);
    test_free(f);
}

/* A sink slot no pad row reached (not in the written set) is untouched:
 * a changed byte of it fails. */
static void test_sink_not_written_is_untouched(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    setup(f, 1); /* slots 17, 33, 50 */
    f->l.has_sink = 1;
    f->l.sink_slot = 0;
    f->t[0].npu[nz_k_index(0, 1, 5)] ^= 0x01;
    assert_int_equal(judge(f, 0, &r, &diag), KVG_ERR_MISMATCH);
    assert_only(&r, KVG_ROWK_UNTOUCHED, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].slot, 0);
    assert_int_equal(r.rows[KVG_ROWK_UNTOUCHED].place[0].head, 1);
    assert_int_equal(r.rows[KVG_ROWK_UNDEFINED].units, 0);
    test_free(f);
}

/* A written set that leaves out one piece of one head does not describe
 * the layout: refused, naming the slot, segment and head. */
static void test_partial_mask_refused(void **state)
{
    fixture *f = (fixture *)test_malloc(sizeof *f);
    kvg_compare_result r;
    kvg_diag diag;
    int64_t at;
    (void)state;

    setup(f, 0);
    /* piece 2 of head 1 of slot 17 unmarked, its bytes as they were (a
     * mask and data agreeing with each other, not with the layout) */
    at = nz_k_index(17, 1, 64);
    memset(f->t[0].mask + at, 0, 32);
    memcpy(f->t[0].gold + at, f->t[0].init + at, 32);
    memcpy(f->t[0].npu + at, f->t[0].init + at, 32);
    assert_int_equal(judge(f, 0, &r, &diag), KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "slot 17 is written by its first byte, "
                                  "but 96 of the 128 bytes of its segment "
                                  "0 (k, head 1");
    test_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_honest_pass),
        cmocka_unit_test(test_scale_fault_named_with_head),
        cmocka_unit_test(test_payload_fault_named_with_head),
        cmocka_unit_test(test_untouched_byte_of_a_tile),
        cmocka_unit_test(test_sink_slot_undefined),
        cmocka_unit_test(test_sink_not_written_is_untouched),
        cmocka_unit_test(test_partial_mask_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
