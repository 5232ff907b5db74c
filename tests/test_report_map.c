/*
 * tests/test_report_map.c - the HTML report's element classes, cache map
 * and error histogram (tools/lib/report), and its file writer.
 *
 * Expected classes come from first principles: hand-made caches where each
 * (block, slot) holds one designed situation (exact, rel err 2^-7 under
 * bf16's MARE limit 10*2^-7, rel err 0.5 over it, a NaN where the golden is
 * finite, two NaNs with different payloads, an untouched element changed),
 * placed through kvg_layout_offset in an NZ layout so that the map's
 * inverse addressing is exercised. Initial caches are poisoned.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_map.h"
#include "error_hist.h"
#include "kvgold/compare.h"
#include "kvgold/format.h"
#include "report.h"

#define BF16_ONE 0x3F80u
#define BF16_ONE_PLUS_ULP 0x3F81u /* 1 + 2^-7: rel 2^-7 < 10 * 2^-7 */
#define BF16_ONE_HALF 0x3FC0u     /* 1.5: rel 0.5 > 10 * 2^-7 */
#define BF16_QNAN 0x7FC0u
#define BF16_QNAN_OTHER 0xFFC1u   /* another NaN: sign and payload differ */

/* A 2-block, 4-slot, 1-head, 16-channel bf16 cache in NZ (c0 = 16). */
typedef struct fixture {
    kvg_cache_layout layout;
    uint16_t init[128], gold[128], npu[128];
    unsigned char mask[128];
    kvg_tensor t_init, t_gold, t_npu;
    kvg_compare_result result;
    kvg_report_tensor rt;
} fixture;

static int64_t at(const fixture *f, int64_t block, int64_t slot, int64_t ch)
{
    kvg_cache_coord c;
    c.block = block;
    c.slot = slot;
    c.head = 0;
    c.channel = ch;
    return kvg_layout_offset(&f->layout, &c);
}

/* Write (block, slot) in the golden: every channel 1.0. */
static void write_slot(fixture *f, int64_t block, int64_t slot)
{
    int64_t ch;
    for (ch = 0; ch < 16; ch++) {
        int64_t i = at(f, block, slot, ch);
        f->gold[i] = (uint16_t)BF16_ONE;
        f->npu[i] = (uint16_t)BF16_ONE;
        f->mask[i] = 1;
    }
}

static void fixture_init(fixture *f)
{
    int64_t shape[4] = {2, 1, 4, 16};
    int64_t slot;
    memset(f, 0, sizeof *f);
    f->layout.kind = KVG_LAYOUT_NZ;
    f->layout.blocks = 2;
    f->layout.slots = 4;
    f->layout.heads = 1;
    f->layout.dim = 16;
    f->layout.c0 = 16;
    kvgt_poison(f->init, sizeof f->init, 7);
    memcpy(f->gold, f->init, sizeof f->init);
    memcpy(f->npu, f->init, sizeof f->init);
    for (slot = 0; slot < 4; slot++)
        write_slot(f, 0, slot);
    write_slot(f, 1, 2);
    write_slot(f, 1, 3);
    /* (0,0) exact; (0,1) one element within; (0,2) one out; (0,3) NaN */
    f->npu[at(f, 0, 1, 5)] = (uint16_t)BF16_ONE_PLUS_ULP;
    f->npu[at(f, 0, 2, 9)] = (uint16_t)BF16_ONE_HALF;
    f->npu[at(f, 0, 3, 0)] = (uint16_t)BF16_QNAN;
    /* (1,0) untouched; (1,1) untouched but changed */
    f->npu[at(f, 1, 1, 15)] = (uint16_t)(f->init[at(f, 1, 1, 15)] ^ 0x0100u);
    /* (1,2) both NaN, other payload; (1,3) one within and one out */
    f->gold[at(f, 1, 2, 3)] = (uint16_t)BF16_QNAN;
    f->npu[at(f, 1, 2, 3)] = (uint16_t)BF16_QNAN_OTHER;
    f->npu[at(f, 1, 3, 1)] = (uint16_t)BF16_ONE_PLUS_ULP;
    f->npu[at(f, 1, 3, 14)] = (uint16_t)BF16_ONE_HALF;
    f->t_init = kvg_tensor_make(f->init, sizeof f->init, KVG_BF16, 4, shape);
    f->t_gold = kvg_tensor_make(f->gold, sizeof f->gold, KVG_BF16, 4, shape);
    f->t_npu = kvg_tensor_make(f->npu, sizeof f->npu, KVG_BF16, 4, shape);
}

/* Compare through the public API under `std`, then describe it for the
 * report. */
static void fixture_compare_std(fixture *f, kvg_compare_criterion crit,
                                kvg_compare_standard std)
{
    kvg_compare_args a;
    kvg_diag diag;
    kvg_status st;
    kvg_compare_args_init(&a);
    a.standard = std;
    a.name = "k_cache";
    a.golden = &f->t_gold;
    a.actual = &f->t_npu;
    a.initial = &f->t_init;
    a.written = f->mask;
    a.written_count = 128;
    a.layout = &f->layout;
    a.criterion = crit;
    st = kvg_compare_tensor(&a, &f->result, &diag);
    assert_int_equal(st, KVG_ERR_MISMATCH);
    f->rt.result = &f->result;
    f->rt.golden = &f->t_gold;
    f->rt.actual = &f->t_npu;
    f->rt.initial = &f->t_init;
    f->rt.written = f->mask;
    f->rt.layout = &f->layout;
}

/* The cases below were written for single's limits. */
static void fixture_compare(fixture *f, kvg_compare_criterion crit)
{
    fixture_compare_std(f, crit, KVG_STD_SINGLE);
}

static void assert_cell(const kvg_cache_map *m, int64_t block, int64_t slot,
                        kvg_elem_class want)
{
    const kvg_map_cell *c = kvg_cache_map_cell(m, block, slot);
    assert_non_null(c);
    if (c->worst != want)
        fail_msg("cell (block %lld, slot %lld): class %s, want %s",
                 (long long)block, (long long)slot,
                 kvg_elem_class_name(c->worst), kvg_elem_class_name(want));
}

static void test_classes_float_re(void **state)
{
    static fixture f;
    kvg_cache_map m;
    const kvg_map_cell *c;
    (void)state;
    fixture_init(&f);
    fixture_compare(&f, KVG_CRIT_FLOAT_RE);
    assert_int_equal(kvg_cache_map_build(&f.rt, &m, NULL), KVG_OK);
    assert_int_equal(m.rows, 2);
    assert_int_equal(m.cols, 4);
    assert_cell(&m, 0, 0, KVG_EC_EXACT);
    assert_cell(&m, 0, 1, KVG_EC_WITHIN);
    assert_cell(&m, 0, 2, KVG_EC_OUT);
    assert_cell(&m, 0, 3, KVG_EC_NONFINITE);
    assert_cell(&m, 1, 0, KVG_EC_UNTOUCHED);
    assert_cell(&m, 1, 1, KVG_EC_CHANGED);
    assert_cell(&m, 1, 2, KVG_EC_EXACT);
    assert_cell(&m, 1, 3, KVG_EC_OUT);
    /* the worst element of (1,3) is the out-of-tolerance one, channel 14 */
    c = kvg_cache_map_cell(&m, 1, 3);
    assert_int_equal(c->worst_coord.channel, 14);
    assert_int_equal(c->worst_index, at(&f, 1, 3, 14));
    assert_int_equal(c->worst_elem.actual_bits, BF16_ONE_HALF);
    assert_int_equal(c->count[KVG_EC_WITHIN], 1);
    assert_int_equal(c->count[KVG_EC_EXACT], 14);
    /* the changed cell names the changed element and the initial value */
    c = kvg_cache_map_cell(&m, 1, 1);
    assert_int_equal(c->worst_coord.channel, 15);
    assert_int_equal(c->worst_elem.expected_bits, f.init[at(&f, 1, 1, 15)]);
    /* whole-tensor counts: 16 untouched per untouched slot */
    assert_int_equal(m.count[KVG_EC_CHANGED], 1);
    assert_int_equal(m.count[KVG_EC_UNTOUCHED], 31);
    assert_int_equal(m.count[KVG_EC_NONFINITE], 1);
    assert_int_equal(m.count[KVG_EC_OUT], 2);
    assert_int_equal(m.count[KVG_EC_WITHIN], 2);
    kvg_cache_map_free(&m);
}

/* Under the mixed standards an element is within tolerance by the mixed
 * rule: bf16 1.0625 (0x3F88) for 1.0 is 0.0625 off, below single's MARE
 * limit 10 * 2^-7 = 0.078 (within) but beyond mixed_ttk's 2^-6 + 2^-6 * 1
 * = 0.03125 (out); one bf16 ULP (2^-7) is within both. */
static void test_classes_mixed(void **state)
{
    static fixture f;
    kvg_cache_map m;
    (void)state;
    fixture_init(&f);
    f.npu[at(&f, 0, 1, 5)] = 0x3F88u;
    fixture_compare_std(&f, KVG_CRIT_AUTO, KVG_STD_SINGLE);
    assert_int_equal(kvg_cache_map_build(&f.rt, &m, NULL), KVG_OK);
    assert_cell(&m, 0, 1, KVG_EC_WITHIN);
    kvg_cache_map_free(&m);
    fixture_compare_std(&f, KVG_CRIT_AUTO, KVG_STD_MIXED_TTK);
    assert_int_equal(kvg_cache_map_build(&f.rt, &m, NULL), KVG_OK);
    assert_cell(&m, 0, 1, KVG_EC_OUT);
    assert_cell(&m, 1, 3, KVG_EC_OUT); /* 1.5: beyond both */
    assert_int_equal(m.count[KVG_EC_WITHIN], 1); /* (1,3)'s one ULP */
    kvg_cache_map_free(&m);
}

/* Bitwise: no tolerance, so the within cells become out. */
static void test_classes_bitwise(void **state)
{
    static fixture f;
    kvg_cache_map m;
    (void)state;
    fixture_init(&f);
    fixture_compare(&f, KVG_CRIT_BITWISE);
    assert_int_equal(kvg_cache_map_build(&f.rt, &m, NULL), KVG_OK);
    assert_cell(&m, 0, 1, KVG_EC_OUT);
    assert_cell(&m, 0, 0, KVG_EC_EXACT);
    assert_cell(&m, 1, 1, KVG_EC_CHANGED);
    assert_int_equal(m.count[KVG_EC_WITHIN], 0);
    kvg_cache_map_free(&m);
}

/* fp8 e4m3fn code distance, read off the format's value line: 1.0 (0x38)
 * and its neighbour 0x39 are 1 apart (within), 0x3A is 2 apart (out); the
 * smallest subnormals +-2^-9 (0x01, 0x81) are 2 apart across the shared
 * zero; -0 against +0 is 0 apart but not bit-identical (within). */
static void test_classes_code_dist(void **state)
{
    uint8_t gold[5] = {0x38, 0x38, 0x01, 0x00, 0x38};
    uint8_t npu[5] = {0x39, 0x3A, 0x81, 0x80, 0x38};
    kvg_elem_class want[5] = {KVG_EC_WITHIN, KVG_EC_OUT, KVG_EC_OUT,
                              KVG_EC_WITHIN, KVG_EC_EXACT};
    double dist[5] = {1, 2, 2, 0, 0};
    int64_t n = 5, i;
    kvg_tensor tg = kvg_tensor_make(gold, 5, KVG_FP8_E4M3FN, 1, &n);
    kvg_tensor tn = kvg_tensor_make(npu, 5, KVG_FP8_E4M3FN, 1, &n);
    kvg_compare_args a;
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_elem_judge j;
    kvg_diag diag;
    (void)state;
    kvg_compare_args_init(&a);
    a.standard = KVG_STD_SINGLE; /* written for single's limits */
    a.golden = &tg;
    a.actual = &tn;
    a.criterion = KVG_CRIT_CODE_DIST;
    (void)kvg_compare_tensor(&a, &r, &diag);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &tg;
    rt.actual = &tn;
    kvg_elem_judge_init(&j, &rt);
    for (i = 0; i < n; i++) {
        kvg_elem_judgement e;
        kvg_elem_judge_one(&j, i, &e);
        if (e.cls != want[i] || e.score != dist[i])
            fail_msg("element %lld: class %s score %g, want %s %g",
                     (long long)i, kvg_elem_class_name(e.cls), e.score,
                     kvg_elem_class_name(want[i]), dist[i]);
    }
}

/* The page of an e8m0 tensor: scales as powers of two, binades, no value
 * statistics. */
static void check_e8m0_html(const kvg_report_tensor *rt)
{
    kvg_report_set set;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    memset(&set, 0, sizeof set);
    set.case_dir = "scales";
    set.op = "op";
    set.tensors = rt;
    set.count = 1;
    assert_int_equal(kvg_report_html(f, &set, NULL), KVG_OK);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(buf, "2^-7 (0x78)"));
    assert_non_null(strstr(buf, "2^-4 (0x7b)"));
    assert_non_null(strstr(buf, "<td class=\"l\">max binades off</td><td>3"
                                "</td>"));
    assert_non_null(strstr(buf, "value statistics</td><td>n/a"));
    free(buf);
}

/* Packed fp4 e2m1 under code_dist: a byte shows the worse of its two codes
 * (element 2j in the low nibble). Byte 0: 1.0 -> 1.5 in the low nibble
 * (one step, within) and 3.0 -> 6.0 in the high one (2 steps, out); byte
 * 1: only the high nibble -1 -> -1.5 (within); byte 2 exact. e8m0 scales
 * (bitwise): 2^-7 -> 2^-4 scores 3 binades and bins as a step of 3-4. */
static void test_classes_fp4_and_e8m0(void **state)
{
    uint8_t gold[3] = {0x52, 0xA7, 0x61}, npu[3] = {0x73, 0xB7, 0x61};
    kvg_elem_class want[3] = {KVG_EC_OUT, KVG_EC_WITHIN, KVG_EC_EXACT};
    double dist[3] = {2, 1, 0};
    uint8_t sg[2] = {120, 127}, sn[2] = {123, 127};
    int64_t n = 3, m = 2, i;
    kvg_tensor tg = kvg_tensor_make(gold, 3, KVG_FP4_E2M1, 1, &n);
    kvg_tensor tn = kvg_tensor_make(npu, 3, KVG_FP4_E2M1, 1, &n);
    kvg_tensor ts = kvg_tensor_make(sg, 2, KVG_E8M0, 1, &m);
    kvg_tensor tsn = kvg_tensor_make(sn, 2, KVG_E8M0, 1, &m);
    kvg_compare_args a;
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_elem_judge j;
    kvg_error_hist h;
    kvg_diag diag;
    (void)state;
    kvg_compare_args_init(&a);
    a.standard = KVG_STD_SINGLE;
    a.golden = &tg;
    a.actual = &tn;
    (void)kvg_compare_tensor(&a, &r, &diag);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &tg;
    rt.actual = &tn;
    kvg_elem_judge_init(&j, &rt);
    for (i = 0; i < n; i++) {
        kvg_elem_judgement e;
        kvg_elem_judge_one(&j, i, &e);
        if (e.cls != want[i] || e.score != dist[i])
            fail_msg("byte %lld: class %s score %g, want %s %g",
                     (long long)i, kvg_elem_class_name(e.cls), e.score,
                     kvg_elem_class_name(want[i]), dist[i]);
    }
    a.golden = &ts;
    a.actual = &tsn;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    rt.golden = &ts;
    rt.actual = &tsn;
    kvg_error_hist_build(&rt, &h);
    assert_int_equal(h.steps, 1);
    assert_int_equal(h.written, 2);
    assert_int_equal(h.bin[0].within, 1);
    assert_string_equal(h.bin[3].label, "3-4");
    assert_int_equal(h.bin[3].beyond, 1);
    check_e8m0_html(&rt);
}

/* Count the occurrences of `needle` in `hay`. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (; (hay = strstr(hay, needle)) != NULL; hay++)
        n++;
    return n;
}

/* The page of a folded cache: one SVG cell per grid cell, the changed
 * element's cell titled with its block and slot ranges and coordinates. */
static void check_folded_html(const kvg_report_tensor *rt)
{
    kvg_report_set set;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *cell;
    assert_non_null(f);
    memset(&set, 0, sizeof set);
    set.case_dir = "big<case>";
    set.op = "op";
    set.tensors = rt;
    set.count = 1;
    assert_int_equal(kvg_report_html(f, &set, NULL), KVG_OK);
    assert_int_equal(fclose(f), 0);
    assert_true(len < 1500000);
    assert_int_equal(count_of(buf, "<rect class=\"c"), 25 * 100);
    assert_non_null(strstr(buf, "big&lt;case&gt;"));
    assert_null(strstr(buf, "<script"));
    cell = strstr(buf, "<rect class=\"c5\"");
    assert_non_null(cell);
    assert_int_equal(count_of(buf, "<rect class=\"c5\""), 1);
    assert_non_null(strstr(cell, "data-block=\"56\" data-slot=\"210\">"
                                 "<title>blocks 56-59, slots 210-212: "
                                 "untouched but changed"));
    assert_non_null(strstr(cell, "worst: block=57 slot=211 head=0"));
    free(buf);
}

/* A cache bigger than the grid: blocks and slots fold, the cell holding
 * one changed element still shows it and names its coordinates. */
static void test_folding(void **state)
{
    enum { B = 100, S = 300, N = B * S };
    int64_t shape[4] = {B, S, 1, 1};
    kvg_cache_layout l = {KVG_LAYOUT_ND, B, S, 1, 1, 0};
    int8_t *init = (int8_t *)kvgt_alloc_poisoned(N, 3);
    int8_t *gold = (int8_t *)malloc(N), *npu = (int8_t *)malloc(N);
    unsigned char *mask = (unsigned char *)calloc(N, 1);
    kvg_tensor ti, tg, tn;
    kvg_compare_args a;
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_cache_map m;
    const kvg_map_cell *c;
    kvg_diag diag;
    int64_t i;
    (void)state;
    assert_non_null(gold);
    assert_non_null(npu);
    assert_non_null(mask);
    memcpy(gold, init, N);
    for (i = 0; i < S; i++) { /* block 3 written entirely */
        mask[3 * S + i] = 1;
        gold[3 * S + i] = (int8_t)(i % 100 + 1);
    }
    memcpy(npu, gold, N);
    npu[57 * S + 211] = (int8_t)(init[57 * S + 211] ^ 0x40);
    ti = kvg_tensor_make(init, N, KVG_INT8, 4, shape);
    tg = kvg_tensor_make(gold, N, KVG_INT8, 4, shape);
    tn = kvg_tensor_make(npu, N, KVG_INT8, 4, shape);
    kvg_compare_args_init(&a);
    a.standard = KVG_STD_SINGLE; /* written for single's limits */
    a.golden = &tg;
    a.actual = &tn;
    a.initial = &ti;
    a.written = mask;
    a.written_count = N;
    a.layout = &l;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &tg;
    rt.actual = &tn;
    rt.initial = &ti;
    rt.written = mask;
    rt.layout = &l;
    assert_int_equal(kvg_cache_map_build(&rt, &m, NULL), KVG_OK);
    assert_true(m.rows <= KVG_MAP_MAX_ROWS);
    assert_true(m.cols <= KVG_MAP_MAX_COLS);
    assert_int_equal(m.blocks_per_row, 4); /* ceil(100 / 32) */
    assert_int_equal(m.slots_per_col, 3);  /* ceil(300 / 128) */
    assert_int_equal(m.rows, 25);
    assert_int_equal(m.cols, 100);
    c = kvg_cache_map_cell(&m, 57, 211);
    assert_int_equal(c->worst, KVG_EC_CHANGED);
    assert_int_equal(c->worst_coord.block, 57);
    assert_int_equal(c->worst_coord.slot, 211);
    assert_int_equal(c->count[KVG_EC_UNTOUCHED], 4 * 3 - 1);
    assert_int_equal(kvg_cache_map_cell(&m, 3, 0)->worst, KVG_EC_EXACT);
    assert_int_equal(kvg_cache_map_cell(&m, 99, 299)->worst,
                     KVG_EC_UNTOUCHED);
    assert_null(kvg_cache_map_cell(&m, 100, 0));
    assert_int_equal(m.count[KVG_EC_EXACT], S);
    kvg_cache_map_free(&m);
    check_folded_html(&rt);
    /* a layout that does not describe the tensor draws no map */
    l.slots = 299;
    assert_int_equal(kvg_cache_map_build(&rt, &m, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_null(m.cells);
    /* 100 blocks x 299 slots x 1 head x 1 channel are not the N elements */
    assert_non_null(strstr(diag.message,
                           "layout does not describe its 30000 elements"));
    free(init);
    free(gold);
    free(npu);
    free(mask);
}

/* int8 deltas 0, 1, -1, 2, 5, 200 land in bins "0", "1", "1", "2", "5-8",
 * ">128"; |delta| <= 1 is within tolerance. */
static void test_histogram_steps(void **state)
{
    int8_t gold[6] = {10, 10, 10, 10, 10, -100};
    int8_t npu[6] = {10, 11, 9, 12, 15, 100};
    int64_t n = 6;
    kvg_tensor tg = kvg_tensor_make(gold, 6, KVG_INT8, 1, &n);
    kvg_tensor tn = kvg_tensor_make(npu, 6, KVG_INT8, 1, &n);
    kvg_compare_args a;
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_error_hist h;
    kvg_diag diag;
    (void)state;
    kvg_compare_args_init(&a);
    a.standard = KVG_STD_SINGLE; /* written for single's limits */
    a.golden = &tg;
    a.actual = &tn;
    a.criterion = KVG_CRIT_INT_ABS1;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &tg;
    rt.actual = &tn;
    kvg_error_hist_build(&rt, &h);
    assert_int_equal(h.steps, 1);
    assert_int_equal(h.written, 6);
    assert_string_equal(h.bin[0].label, "0");
    assert_int_equal(h.bin[0].within, 1);
    assert_string_equal(h.bin[1].label, "1");
    assert_int_equal(h.bin[1].within, 2);
    assert_string_equal(h.bin[2].label, "2");
    assert_int_equal(h.bin[2].beyond, 1);
    assert_string_equal(h.bin[4].label, "5-8");
    assert_int_equal(h.bin[4].beyond, 1);
    assert_string_equal(h.bin[h.nbins - 2].label, ">128");
    assert_int_equal(h.bin[h.nbins - 2].beyond, 1);
}

/* bf16 rel errors 2^-7 (bin 1e-3..1e-2, within) and 0.5 (1e-1..1e0, out),
 * and a NaN where the golden is 1 (last bin). */
static void test_histogram_rel(void **state)
{
    uint16_t gold[4] = {BF16_ONE, BF16_ONE, BF16_ONE, BF16_ONE};
    uint16_t npu[4] = {BF16_ONE, BF16_ONE_PLUS_ULP, BF16_ONE_HALF, BF16_QNAN};
    int64_t n = 4;
    kvg_tensor tg = kvg_tensor_make(gold, 8, KVG_BF16, 1, &n);
    kvg_tensor tn = kvg_tensor_make(npu, 8, KVG_BF16, 1, &n);
    kvg_compare_args a;
    kvg_compare_result r;
    kvg_report_tensor rt;
    kvg_error_hist h;
    kvg_diag diag;
    int b, hit_within = -1, hit_out = -1;
    (void)state;
    kvg_compare_args_init(&a);
    a.standard = KVG_STD_SINGLE; /* written for single's limits */
    a.golden = &tg;
    a.actual = &tn;
    assert_int_equal(kvg_compare_tensor(&a, &r, &diag), KVG_ERR_MISMATCH);
    memset(&rt, 0, sizeof rt);
    rt.result = &r;
    rt.golden = &tg;
    rt.actual = &tn;
    kvg_error_hist_build(&rt, &h);
    assert_int_equal(h.steps, 0);
    assert_int_equal(h.bin[0].within, 1);
    for (b = 1; b < h.nbins; b++) {
        if (h.bin[b].within)
            hit_within = b;
        if (h.bin[b].beyond && b != h.nbins - 1)
            hit_out = b;
    }
    assert_true(hit_within > 0);
    assert_true(hit_out > 0);
    assert_string_equal(h.bin[hit_within].label, "1e-3..1e-2");
    assert_string_equal(h.bin[hit_out].label, "1e-1..1e0");
    assert_int_equal(h.bin[h.nbins - 1].beyond, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_float_re),
        cmocka_unit_test(test_classes_mixed),
        cmocka_unit_test(test_classes_bitwise),
        cmocka_unit_test(test_classes_code_dist),
        cmocka_unit_test(test_classes_fp4_and_e8m0),
        cmocka_unit_test(test_folding),
        cmocka_unit_test(test_histogram_steps),
        cmocka_unit_test(test_histogram_rel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
