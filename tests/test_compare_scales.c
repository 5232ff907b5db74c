/*
 * tests/test_compare_scales.c - kvg_compare_tensor and its reports on the
 * MX dtypes (issue 35): e8m0 scales are judged bit for bit in every role
 * and standard, their distance told in binades, their value statistics
 * "not applicable"; packed fp4 is judged per 4-bit code (index = 2 * byte
 * + nibble); a scale tensor and its payload get a verdict each.
 *
 * Expected values come from the formats' definitions, not from the code:
 * e8m0 code c is 2^(c - 127), 0xFF NaN; fp4 e2m1 codes 0..7 are 0, 0.5, 1,
 * 1.5, 2, 3, 4, 6 and 8..15 their negatives; element 2j of a packed byte
 * is its low nibble (docs/formats.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include "json_check.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"

static kvg_tensor vec(void *data, kvg_dtype dt, int64_t n)
{
    return kvg_tensor_make(data, (size_t)n * kvg_dtype_size(dt), dt, 1, &n);
}

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL) {
        /* a report outgrows cmocka's message buffer: print it whole */
        fprintf(stderr, "%s\n", msg);
        fail_msg("the text above lacks \"%s\"", fragment);
    }
}

/* Compare with an explicit role, standard and criterion; the result is
 * poisoned first, so every field checked was written by the call. */
static kvg_status judge(const kvg_tensor *g, const kvg_tensor *a,
                        kvg_compare_role role, kvg_compare_standard standard,
                        kvg_compare_criterion crit, kvg_compare_result *r,
                        kvg_diag *diag)
{
    kvg_compare_args args;

    kvg_compare_args_init(&args);
    args.name = "t";
    args.golden = g;
    args.actual = a;
    args.role = role;
    args.standard = standard;
    args.criterion = crit;
    kvgt_poison(r, sizeof *r, 91);
    kvg_diag_clear(diag);
    return kvg_compare_tensor(&args, r, diag);
}

static const kvg_compare_role k_roles[4] = {
    KVG_ROLE_DEFAULT, KVG_ROLE_COPY, KVG_ROLE_COMPUTE, KVG_ROLE_QUANT};
static const kvg_compare_standard k_stds[4] = {
    KVG_STD_SINGLE, KVG_STD_MIXED, KVG_STD_MIXED_TTK, KVG_STD_COMMERCIAL};

/* ---- the AUTO table ------------------------------------------------------- */

static void test_auto_table(void **state)
{
    int i, j;
    (void)state;

    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
            kvg_compare_role ro = k_roles[i];
            kvg_compare_standard st = k_stds[j];
            kvg_compare_criterion fp4 =
                ro == KVG_ROLE_COPY || st == KVG_STD_MIXED_TTK
                    ? KVG_CRIT_BITWISE
                    : KVG_CRIT_CODE_DIST;
            assert_int_equal(kvg_compare_auto_criterion_for(KVG_E8M0, ro, st),
                             KVG_CRIT_BITWISE);
            assert_int_equal(
                kvg_compare_auto_criterion_for(KVG_FP4_E1M2, ro, st),
                KVG_CRIT_BITWISE);
            assert_int_equal(
                kvg_compare_auto_criterion_for(KVG_FP4_E2M1, ro, st), fp4);
        }
}

/* ---- e8m0 ---------------------------------------------------------------- */

/* 2^-7, 2^-6, 1, 8, 2^73, 2^-127, 2^127, NaN */
static const uint8_t k_scales[8] = {120, 121, 127, 130, 200, 0, 254, 0xFF};

static void test_e8m0_one_binade_fails_everywhere(void **state)
{
    uint8_t g[8], a[8];
    kvg_tensor tg = vec(g, KVG_E8M0, 8), ta = vec(a, KVG_E8M0, 8);
    kvg_compare_result r;
    kvg_diag diag;
    int i, j;
    (void)state;

    memcpy(g, k_scales, 8);
    memcpy(a, k_scales, 8);
    a[0] = 121; /* 2^-7 -> 2^-6: one binade */
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
            assert_int_equal(judge(&tg, &ta, k_roles[i], k_stds[j],
                                   KVG_CRIT_AUTO, &r, &diag),
                             KVG_ERR_MISMATCH);
            assert_int_equal(r.verdict, KVG_VERDICT_FAIL);
            assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
            assert_int_equal(r.codes_per_element, 1);
            assert_int_equal(r.elements, 8);
            assert_int_equal(r.bits_differ, 1);
            assert_int_equal(r.nan_matched, 1);
            assert_int_equal(r.has_code_dist, 1);
            assert_int_equal(r.dist1, 1);
            assert_int_equal(r.max_dist, 1);
            assert_int_equal(r.values_not_applicable, 1);
            assert_true(isnan(r.mere) && isnan(r.mare) && isnan(r.cosine));
            assert_true(isnan(r.max_abs_err) && isnan(r.max_rel_err));
            assert_true(isnan(r.rmse) && isnan(r.over_thousandth_ratio));
            assert_int_equal(r.over_thousandth, 0);
            assert_int_equal(r.worst_count, 1);
            assert_int_equal(r.worst[0].index, 0);
            assert_true(r.worst[0].golden == ldexp(1.0, -7));
            assert_true(r.worst[0].actual == ldexp(1.0, -6));
            assert_true(r.worst[0].score == 1.0); /* binades */
            assert_true(isnan(r.worst[0].abs_err));
            /* ops-test-kit: float8_e8m0 is in _BIN_DTYPES */
            assert_string_equal(r.ttk_rule, "binary_equal");
            assert_int_equal(r.ttk_verdict, KVG_VERDICT_FAIL);
            assert_int_equal(r.ttk_mismatched, 1);
            assert_contains(r.reason, "1 of 8 written e8m0 scales differ "
                                      "bitwise (up to 1 binade off");
        }
    /* the same scales pass, NaN at the same place included */
    assert_int_equal(judge(&tg, &tg, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.verdict, KVG_VERDICT_PASS);
    assert_int_equal(r.ttk_verdict, KVG_VERDICT_PASS);
}

static void test_e8m0_nan_and_far_scales(void **state)
{
    uint8_t g[8], a[8];
    kvg_tensor tg = vec(g, KVG_E8M0, 8), ta = vec(a, KVG_E8M0, 8);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    memcpy(g, k_scales, 8);
    memcpy(a, k_scales, 8);
    a[3] = 133;  /* 8 -> 64: three binades */
    a[7] = 127;  /* NaN -> 1 */
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.bits_differ, 2);
    assert_int_equal(r.nonfinite_mismatch, 1);
    assert_int_equal(r.dist_over1, 1);
    assert_int_equal(r.max_dist, 3);
    assert_int_equal(r.worst_count, 2);
    assert_int_equal(r.worst[0].index, 7); /* a NaN mismatch scores +inf */
    assert_int_equal(r.worst[1].index, 3);
    assert_true(r.worst[1].score == 3.0);
}

static void test_e8m0_refuses_other_criteria(void **state)
{
    uint8_t g[8], a[8];
    kvg_tensor tg = vec(g, KVG_E8M0, 8), ta = vec(a, KVG_E8M0, 8);
    kvg_compare_result r, poisoned;
    kvg_diag diag;
    static const kvg_compare_criterion crits[3] = {
        KVG_CRIT_FLOAT_RE, KVG_CRIT_CODE_DIST, KVG_CRIT_INT_ABS1};
    int i;
    (void)state;

    memcpy(g, k_scales, 8);
    memcpy(a, k_scales, 8);
    for (i = 0; i < 3; i++) {
        assert_int_equal(judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                               crits[i], &r, &diag),
                         KVG_ERR_PARAM_INVALID);
        assert_contains(diag.message, "does not apply to e8m0, which is "
                                      "judged bitwise only");
        kvgt_poison(&poisoned, sizeof poisoned, 91);
        kvgt_assert_bytes_equal(&r, &poisoned, sizeof r,
                                "result after a refusal");
    }
}

static void test_e8m0_reports(void **state)
{
    static char buf[32768];
    uint8_t g[8], a[8];
    kvg_tensor tg = vec(g, KVG_E8M0, 8), ta = vec(a, KVG_E8M0, 8);
    kvg_compare_result r;
    kvg_diag diag;
    kvg_json *doc;
    const kvg_json *res, *w;
    size_t len;
    (void)state;

    memcpy(g, k_scales, 8);
    memcpy(a, k_scales, 8);
    a[0] = 121;
    a[6] = 0xFF; /* 2^127 -> NaN */
    (void)judge(&tg, &ta, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK, KVG_CRIT_AUTO,
                &r, &diag);
    assert_int_equal(kvg_compare_report_text(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "t       e8m0   bitwise    FAIL");
    assert_contains(buf, "n/a");
    assert_contains(buf, "binades=1");
    assert_contains(buf, "2^-6 (0x79) vs golden 2^-7 (0x78): 1 binade\n");
    assert_contains(buf, "NaN (0xff) vs golden 2^127 (0xfe): NaN mismatch");
    assert_contains(buf, "value statistics not applicable: e8m0 scales");
    assert_contains(buf, "ops-test-kit would say: FAIL (binary_equal over "
                         "all 8 elements: 2 mismatched)");
    assert_int_equal(kvg_compare_report_json(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    res = kvg_json_at(kvg_json_get(doc, "results"), 0);
    assert_string_equal(kvgt_json_str(res, "dtype"), "e8m0");
    assert_string_equal(kvgt_json_str(res, "criterion"), "bitwise");
    assert_non_null(strstr(kvgt_json_str(res, "value_statistics"),
                           "not applicable"));
    kvgt_json_assert_null(res, "mere");
    kvgt_json_assert_null(res, "cosine");
    kvgt_json_assert_null(res, "max_rel_err");
    assert_string_equal(
        kvgt_json_str(kvg_json_get(res, "code_distance"), "unit"), "binade");
    w = kvg_json_at(kvg_json_get(res, "worst"), 1); /* the NaN is first */
    assert_true(kvgt_json_num(w, "index") == 0.0);
    assert_string_equal(kvgt_json_str(w, "expected_text"), "2^-7");
    assert_string_equal(kvgt_json_str(w, "actual_text"), "2^-6");
    assert_string_equal(kvgt_json_str(w, "expected_bits"), "0x78");
    assert_true(kvgt_json_num(w, "binades") == 1.0);
    assert_true(kvgt_json_num(w, "expected") == ldexp(1.0, -7));
    w = kvg_json_at(kvg_json_get(res, "worst"), 0);
    assert_string_equal(kvgt_json_str(w, "actual_text"), "NaN");
    kvgt_json_assert_null(w, "binades");
    kvg_json_free(doc);
}

/* ---- packed fp4 ---------------------------------------------------------- */

/* Codes (low nibble first): 1.0, 3.0 | 6.0, -1.0 | 1.5, -2.0 | 0.5, 4.0 */
static const uint8_t k_fp4[4] = {0x52, 0xA7, 0xC3, 0x61};

static void test_fp4_judged_per_code(void **state)
{
    uint8_t a[4];
    kvg_tensor tg = vec((void *)k_fp4, KVG_FP4_E2M1, 4);
    kvg_tensor ta = vec(a, KVG_FP4_E2M1, 4);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    memcpy(a, k_fp4, 4);
    a[1] = 0xB7; /* code 3 (byte 1, high nibble): -1.0 -> -1.5, one step */
    /* ops-test-kit's standard (the default): bitwise, as its "bin" */
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
    assert_int_equal(r.codes_per_element, 2);
    assert_int_equal(r.elements, 8);
    assert_int_equal(r.written, 8);
    assert_int_equal(r.bits_differ, 1);
    assert_int_equal(r.values_not_applicable, 0);
    assert_int_equal(r.worst_count, 1);
    assert_int_equal(r.worst[0].index, 3);
    assert_int_equal(r.worst[0].coord_rank, 1);
    assert_int_equal(r.worst[0].coord[0], 1); /* the byte */
    assert_true(r.worst[0].golden == -1.0 && r.worst[0].actual == -1.5);
    assert_int_equal(r.worst[0].golden_bits, 0xA);
    assert_int_equal(r.worst[0].actual_bits, 0xB);
    assert_true(r.max_abs_err == 0.5);
    assert_int_equal(r.compared, 8);
    assert_string_equal(r.ttk_rule, "binary_equal");
    assert_int_equal(r.ttk_elements, 8);
    assert_int_equal(r.ttk_mismatched, 1);
    assert_contains(r.reason, "1 of 8 written fp4 codes differ bitwise");
    /* the other standards: one code on the value line passes code_dist */
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
    assert_int_equal(r.dist1, 1);
    assert_int_equal(r.dist_over1, 0);
    /* two codes (0.5 -> 1.5 over 1.0, code 6 = byte 3 low) fail */
    a[3] = 0x63;
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.dist_over1, 1);
    assert_int_equal(r.max_dist, 2);
    assert_int_equal(r.worst[0].index, 6);
    assert_true(r.mismatch_ratio == 1.0 / 8.0);
    /* a copy is bitwise under every standard */
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_COPY, KVG_STD_SINGLE,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
    assert_int_equal(r.bits_differ, 2);
}

static void test_fp4_signed_zero_is_no_step(void **state)
{
    uint8_t g[2] = {0x80, 0x27}, a[2] = {0x00, 0x27}; /* -0 -> +0 */
    kvg_tensor tg = vec(g, KVG_FP4_E2M1, 2), ta = vec(a, KVG_FP4_E2M1, 2);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    assert_int_equal(judge(&tg, &ta, KVG_ROLE_DEFAULT, KVG_STD_MIXED,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.bits_differ, 1);
    assert_int_equal(r.dist1, 0);
    assert_int_equal(r.max_dist, 0);
    assert_int_equal(r.worst[0].index, 1); /* byte 0, high nibble */
}

static void test_fp4_untouched_per_code(void **state)
{
    static const unsigned char mask[4] = {1, 0, 1, 1};
    uint8_t a[4];
    kvg_tensor tg = vec((void *)k_fp4, KVG_FP4_E2M1, 4);
    kvg_tensor ta = vec(a, KVG_FP4_E2M1, 4);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    memcpy(a, k_fp4, 4);
    a[1] = 0xB7; /* only the high nibble of the untouched byte changes */
    kvg_compare_args_init(&args);
    args.name = "k_cache";
    args.golden = &tg;
    args.actual = &ta;
    args.initial = &tg;
    args.written = mask;
    args.written_count = 4;
    kvgt_poison(&r, sizeof r, 3);
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.written, 6);
    assert_int_equal(r.untouched, 2);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.untouched_listed, 1);
    assert_int_equal(r.untouched_first[0].index, 3);
    assert_int_equal(r.untouched_first[0].golden_bits, 0xA);
    assert_contains(r.reason, "1 untouched fp4 code changed (first at index "
                              "3)");
}

static void test_fp4_reports(void **state)
{
    static char buf[32768];
    uint8_t a[4];
    kvg_tensor tg = vec((void *)k_fp4, KVG_FP4_E2M1, 4);
    kvg_tensor ta = vec(a, KVG_FP4_E2M1, 4);
    kvg_compare_result r;
    kvg_diag diag;
    kvg_json *doc;
    const kvg_json *res, *w;
    size_t len;
    (void)state;

    memcpy(a, k_fp4, 4);
    a[1] = 0xB7;
    (void)judge(&tg, &ta, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK, KVG_CRIT_AUTO,
                &r, &diag);
    assert_int_equal(kvg_compare_report_text(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "t       fp4_e2m1  bitwise    FAIL");
    assert_contains(buf, "           3 (byte 1 hi)  [1]  ");
    assert_contains(buf, "-1 (0xa)");
    assert_contains(buf, "-1.5 (0xb)");
    assert_contains(buf, "counts are of 4-bit codes, two per byte");
    assert_int_equal(kvg_compare_report_json(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    res = kvg_json_at(kvg_json_get(doc, "results"), 0);
    assert_string_equal(kvgt_json_str(res, "dtype"), "fp4_e2m1");
    assert_true(kvgt_json_num(res, "codes_per_element") == 2.0);
    assert_true(kvgt_json_num(res, "elements") == 8.0);
    assert_string_equal(kvgt_json_str(res, "value_statistics"), "measured");
    w = kvg_json_at(kvg_json_get(res, "worst"), 0);
    assert_true(kvgt_json_num(w, "index") == 3.0);
    assert_true(kvgt_json_num(w, "byte") == 1.0);
    assert_true(kvgt_json_num(w, "nibble") == 1.0);
    assert_string_equal(kvgt_json_str(w, "expected_bits"), "0xa");
    assert_true(kvgt_json_num(w, "expected") == -1.0);
    kvg_json_free(doc);
}

static void test_fp4_e1m2_bitwise_only(void **state)
{
    static char buf[32768];
    uint8_t g[2] = {0x21, 0x9C}, a[2] = {0x21, 0x1C}; /* code 3: 9 -> 1 */
    kvg_tensor tg = vec(g, KVG_FP4_E1M2, 2), ta = vec(a, KVG_FP4_E1M2, 2);
    kvg_compare_result r;
    kvg_diag diag;
    kvg_json *doc;
    const kvg_json *w;
    size_t len;
    (void)state;

    assert_int_equal(judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                           KVG_CRIT_AUTO, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
    assert_int_equal(r.elements, 4);
    assert_int_equal(r.bits_differ, 1);
    assert_int_equal(r.worst[0].index, 3);
    assert_int_equal(r.values_not_applicable, 1);
    assert_true(isnan(r.worst[0].golden) && isnan(r.max_ulp));
    assert_int_equal(judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE,
                           KVG_CRIT_CODE_DIST, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "no fp4_e1m2 decoder");
    (void)judge(&tg, &ta, KVG_ROLE_QUANT, KVG_STD_SINGLE, KVG_CRIT_AUTO, &r,
                &diag);
    assert_int_equal(kvg_compare_report_json(&r, 1, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    w = kvg_json_at(kvg_json_get(kvg_json_at(kvg_json_get(doc, "results"), 0),
                                 "worst"),
                    0);
    kvgt_json_assert_null(w, "expected");
    assert_string_equal(kvgt_json_str(w, "expected_bits"), "0x9");
    assert_string_equal(kvgt_json_str(w, "actual_bits"), "0x1");
    kvg_json_free(doc);
}

/* ---- a payload and its scales: two tensors, two verdicts ------------------ */

static void test_scale_judged_apart_from_payload(void **state)
{
    static char buf[32768];
    /* fp8 e4m3fn payload: 1.0, -2.0, 0.5, 3.0, 448, -0.25, 1.5, 6.0 */
    static const uint8_t payload[8] = {0x38, 0xC0, 0x30, 0x44,
                                       0x7E, 0xA8, 0x3C, 0x4C};
    uint8_t sg[8], sa[8];
    kvg_tensor tp = vec((void *)payload, KVG_FP8_E4M3FN, 8);
    kvg_tensor tsg = vec(sg, KVG_E8M0, 8), tsa = vec(sa, KVG_E8M0, 8);
    kvg_compare_result r[2];
    kvg_diag diag;
    kvg_json *doc;
    size_t len;
    (void)state;

    memcpy(sg, k_scales, 8);
    memcpy(sa, k_scales, 8);
    sa[2] = 126; /* the scale 1 -> 2^-1: the payload is right, the scale not */
    assert_int_equal(judge(&tp, &tp, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK,
                           KVG_CRIT_AUTO, &r[0], &diag),
                     KVG_OK);
    assert_int_equal(judge(&tsg, &tsa, KVG_ROLE_DEFAULT, KVG_STD_MIXED_TTK,
                           KVG_CRIT_AUTO, &r[1], &diag),
                     KVG_ERR_MISMATCH);
    (void)snprintf(r[0].name, sizeof r[0].name, "y");
    (void)snprintf(r[1].name, sizeof r[1].name, "mxscale");
    assert_int_equal(r[0].verdict, KVG_VERDICT_PASS);
    assert_int_equal(r[1].verdict, KVG_VERDICT_FAIL);
    assert_int_equal(kvg_compare_report_text(r, 2, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "y        fp8_e4m3fn  float_re   PASS");
    assert_contains(buf, "mxscale  e8m0        bitwise    FAIL");
    assert_contains(buf, "2^-1 (0x7e) vs golden 2^0 (0x7f): 1 binade");
    assert_contains(buf, "FAIL: 2 tensors, 1 passed, 1 failed");
    assert_int_equal(kvg_compare_report_json(r, 2, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    assert_string_equal(kvgt_json_str(doc, "verdict"), "FAIL");
    assert_string_equal(
        kvgt_json_str(kvg_json_at(kvg_json_get(doc, "results"), 0), "verdict"),
        "PASS");
    assert_string_equal(
        kvgt_json_str(kvg_json_at(kvg_json_get(doc, "results"), 1), "verdict"),
        "FAIL");
    kvg_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_table),
        cmocka_unit_test(test_e8m0_one_binade_fails_everywhere),
        cmocka_unit_test(test_e8m0_nan_and_far_scales),
        cmocka_unit_test(test_e8m0_refuses_other_criteria),
        cmocka_unit_test(test_e8m0_reports),
        cmocka_unit_test(test_fp4_judged_per_code),
        cmocka_unit_test(test_fp4_signed_zero_is_no_step),
        cmocka_unit_test(test_fp4_untouched_per_code),
        cmocka_unit_test(test_fp4_reports),
        cmocka_unit_test(test_fp4_e1m2_bitwise_only),
        cmocka_unit_test(test_scale_judged_apart_from_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
