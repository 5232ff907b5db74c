/*
 * tests/test_compare.c - the precision comparison (kvgold/compare.h).
 *
 * Every expected metric comes from the definitions in docs/compare.md,
 * evaluated by hand or by the formula written out here on small hand-made
 * tensors: golden zeros, NaN/inf at the same and at different places,
 * -0 vs +0, one-element and all-equal tensors, int8 deltas of 1 and 2,
 * untouched elements that changed, coordinates in ND and NZ layouts, code
 * distances read off the format tables, and each threshold just under and
 * just over. Results are poisoned before each call; on an error they must
 * come back byte-identical. JSON reports are parsed back with the strict
 * reader of tools/lib/json (so they are RFC 8259 JSON without duplicate keys).
 * These tests pin the criteria under the `single` standard (MERE / MARE),
 * which they ask for explicitly; the default standard and the other
 * standards are tested in test_compare_standards.c.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include "json_check.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/compare.h"
#include "kvgold/format.h"

/* ---- helpers --------------------------------------------------------- */

static kvg_tensor vec(void *data, kvg_dtype dt, int64_t n)
{
    return kvg_tensor_make(data, (size_t)n * kvg_dtype_size(dt), dt, 1, &n);
}

static float fbits(uint32_t u) { return kvg_f32_from_bits(u); }

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL)
        fail_msg("\"%s\" lacks \"%s\"", msg, fragment);
}

static void assert_dbl(double got, double want, const char *what)
{
    if (!(got == want) && !(isnan(got) && isnan(want)))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* Compare with defaults except criterion/role; result poisoned first. */
static kvg_status run(const kvg_tensor *g, const kvg_tensor *a,
                      kvg_compare_criterion crit, kvg_compare_role role,
                      kvg_compare_result *r, kvg_diag *diag)
{
    kvg_compare_args args;
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "t";
    args.golden = g;
    args.actual = a;
    args.criterion = crit;
    args.role = role;
    kvgt_poison(r, sizeof *r, 42);
    kvg_diag_clear(diag);
    return kvg_compare_tensor(&args, r, diag);
}

static kvg_status run_args(const kvg_compare_args *args,
                           kvg_compare_result *r, kvg_diag *diag)
{
    kvgt_poison(r, sizeof *r, 43);
    kvg_diag_clear(diag);
    return kvg_compare_tensor(args, r, diag);
}

/* Expect an error with a fragment, naming `tensor`, result untouched. */
static void expect_error(const kvg_compare_args *args, kvg_status want,
                         const char *tensor, const char *fragment)
{
    kvg_compare_result r, before;
    kvg_diag diag;
    kvg_status st;

    kvgt_poison(&r, sizeof r, 44);
    memcpy(&before, &r, sizeof r);
    kvg_diag_clear(&diag);
    st = kvg_compare_tensor(args, &r, &diag);
    if (st != want)
        fail_msg("status %s, want %s (%s); expecting \"%s\"",
                 kvg_status_name(st), kvg_status_name(want), diag.message,
                 fragment);
    assert_int_equal(diag.status, want);
    if (tensor != NULL)
        assert_string_equal(diag.tensor, tensor);
    assert_contains(diag.message, fragment);
    kvgt_assert_bytes_equal(&r, &before, sizeof r, "result after an error");
}

/* ---- tables ---------------------------------------------------------------- */

static void test_auto_table(void **state)
{
    static const struct {
        kvg_dtype dt;
        kvg_compare_criterion dflt, compute, quant;
    } rows[] = {
        {KVG_FP16, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE},
        {KVG_BF16, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE},
        {KVG_FP32, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE, KVG_CRIT_FLOAT_RE},
        {KVG_FP8_E4M3FN, KVG_CRIT_CODE_DIST, KVG_CRIT_FLOAT_RE,
         KVG_CRIT_CODE_DIST},
        {KVG_FP8_E5M2, KVG_CRIT_CODE_DIST, KVG_CRIT_FLOAT_RE,
         KVG_CRIT_CODE_DIST},
        {KVG_HIF8, KVG_CRIT_CODE_DIST, KVG_CRIT_CODE_DIST, KVG_CRIT_CODE_DIST},
        {KVG_INT8, KVG_CRIT_INT_ABS1, KVG_CRIT_BITWISE, KVG_CRIT_INT_ABS1},
        {KVG_INT32, KVG_CRIT_BITWISE, KVG_CRIT_BITWISE, KVG_CRIT_INT_ABS1},
        {KVG_INT64, KVG_CRIT_BITWISE, KVG_CRIT_BITWISE, KVG_CRIT_INT_ABS1},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(kvg_compare_auto_criterion(rows[i].dt,
                                                    KVG_ROLE_DEFAULT),
                         rows[i].dflt);
        assert_int_equal(kvg_compare_auto_criterion(rows[i].dt,
                                                    KVG_ROLE_COMPUTE),
                         rows[i].compute);
        assert_int_equal(kvg_compare_auto_criterion(rows[i].dt,
                                                    KVG_ROLE_QUANT),
                         rows[i].quant);
        assert_int_equal(kvg_compare_auto_criterion(rows[i].dt,
                                                    KVG_ROLE_COPY),
                         KVG_CRIT_BITWISE);
    }
    assert_int_equal(kvg_compare_auto_criterion(KVG_DTYPE_INVALID,
                                                KVG_ROLE_DEFAULT),
                     KVG_CRIT_AUTO);
    assert_dbl(kvg_compare_default_threshold(KVG_FP16), ldexp(1, -10), "fp16");
    assert_dbl(kvg_compare_default_threshold(KVG_BF16), ldexp(1, -7), "bf16");
    assert_dbl(kvg_compare_default_threshold(KVG_FP32), ldexp(1, -13), "fp32");
    assert_dbl(kvg_compare_default_threshold(KVG_FP8_E4M3FN), ldexp(1, -3),
               "e4m3");
    assert_dbl(kvg_compare_default_threshold(KVG_FP8_E5M2), ldexp(1, -2),
               "e5m2");
    assert_dbl(kvg_compare_default_threshold(KVG_HIF8), 0.0, "hif8");
    assert_dbl(kvg_compare_default_threshold(KVG_INT8), 0.0, "int8");
    assert_string_equal(kvg_compare_criterion_name(KVG_CRIT_CODE_DIST),
                        "code_dist");
    assert_string_equal(kvg_compare_criterion_name((kvg_compare_criterion)77),
                        "invalid");
    assert_string_equal(kvg_compare_role_name(KVG_ROLE_QUANT), "quant");
    assert_string_equal(kvg_verdict_name(KVG_VERDICT_FAIL), "FAIL");
}

/* ---- float metrics by hand ----------------------------------------------- */

static void test_fp32_metrics_by_hand(void **state)
{
    float g[4] = {1.0f, 2.0f, 4.0f, 8.0f};
    float a[4] = {1.0f, 2.5f, 4.0f, 6.0f};
    kvg_tensor tg = vec(g, KVG_FP32, 4), ta = vec(a, KVG_FP32, 4);
    kvg_compare_result r;
    kvg_diag diag;
    double r1 = 0.5 / (2.0 + 1e-7), r3 = 2.0 / (8.0 + 1e-7), sum = 0.0;

    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_string_equal(r.name, "t");
    assert_int_equal(r.dtype, KVG_FP32);
    assert_int_equal(r.criterion, KVG_CRIT_FLOAT_RE);
    assert_int_equal(r.role, KVG_ROLE_DEFAULT);
    assert_non_null(r.standard);
    assert_contains(r.standard, "ecosystem");
    assert_int_equal(r.elements, 4);
    assert_int_equal(r.written, 4);
    assert_int_equal(r.untouched, 0);
    assert_int_equal(r.untouched_changed, 0);
    assert_int_equal(r.bits_differ, 2);
    assert_int_equal(r.compared, 4);
    assert_int_equal(r.nan_matched + r.inf_matched + r.nonfinite_mismatch, 0);
    assert_dbl(r.max_abs_err, 2.0, "max_abs_err");
    assert_dbl(r.max_rel_err, 0.25, "max_rel_err (msprobe)");
    assert_dbl(r.mare, r3, "MARE");
    /* MERE: the sum in element order, then one division */
    sum += 0.0 / (1.0 + 1e-7);
    sum += r1;
    sum += 0.0 / (4.0 + 1e-7);
    sum += r3;
    assert_dbl(r.mere, sum / 4.0, "MERE");
    assert_dbl(r.rmse, sqrt((0.25 + 4.0) / 4.0), "RMSE");
    assert_dbl(r.cosine, 70.0 / (sqrt(59.25) * sqrt(85.0)), "cosine");
    assert_int_equal(r.over_thousandth, 2);
    assert_int_equal(r.over_five_thousandth, 2);
    assert_dbl(r.over_thousandth_ratio, 0.5, "ratio 1e-3");
    assert_dbl(r.over_five_thousandth_ratio, 0.5, "ratio 5e-3");
    assert_dbl(r.threshold, ldexp(1, -13), "Th");
    assert_dbl(r.mere_limit, ldexp(1, -13), "MERE limit");
    assert_dbl(r.mare_limit, 10 * ldexp(1, -13), "MARE limit");
    assert_true(isnan(r.mismatch_ratio_limit));
    assert_false(r.has_int_delta);
    assert_false(r.has_code_dist);
    assert_false(r.has_layout);
    assert_int_equal(r.verdict, KVG_VERDICT_FAIL);
    assert_contains(r.reason, "MERE");
    assert_contains(r.reason, "MARE");
    assert_contains(diag.message, "t: FAIL (float_re)");
    assert_string_equal(diag.tensor, "t");
    /* worst first: index 3 (rel 2/8.0000001) beats index 1 (0.5/2.0000001) */
    assert_int_equal(r.worst_count, 2);
    assert_int_equal(r.worst[0].index, 3);
    assert_int_equal(r.worst[0].coord_rank, 1);
    assert_int_equal(r.worst[0].coord[0], 3);
    assert_dbl(r.worst[0].golden, 8.0, "worst golden");
    assert_dbl(r.worst[0].actual, 6.0, "worst actual");
    assert_true(r.worst[0].golden_bits == 0x41000000u);
    assert_true(r.worst[0].actual_bits == 0x40C00000u);
    assert_dbl(r.worst[0].abs_err, 2.0, "worst abs");
    assert_dbl(r.worst[0].rel_err, r3, "worst rel");
    assert_dbl(r.worst[0].score, r3, "worst score");
    assert_int_equal(r.worst[1].index, 1);
    assert_dbl(r.worst[1].score, r1, "second score");
    assert_int_equal(r.untouched_listed, 0);
}

static void test_golden_zero(void **state)
{
    float g[4] = {0.0f, 0.0f, 1.0f, -0.0f};
    float a[4] = {0.0f, 0.0f, 1.0f, 0.0f};
    kvg_tensor tg = vec(g, KVG_FP32, 4), ta = vec(a, KVG_FP32, 4);
    kvg_compare_result r;
    kvg_diag diag;
    double tiny = ldexp(1, -20);

    (void)state;
    a[1] = (float)tiny;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.bits_differ, 2); /* 2^-20 vs 0, and +0 vs -0 */
    /* CANN: |a| / (0 + 1e-7); msprobe: |a| / DBL_EPSILON = 2^-20 / 2^-52 */
    assert_dbl(r.mare, tiny / 1e-7, "MARE at golden 0");
    assert_dbl(r.max_rel_err, ldexp(1, 32), "msprobe rel at golden 0");
    assert_dbl(r.max_abs_err, tiny, "max abs");
    assert_int_equal(r.over_thousandth, 1);
    assert_dbl(r.cosine, 1.0 / (sqrt(tiny * tiny + 1.0) * sqrt(1.0)),
               "cosine");
    assert_int_equal(r.worst_count, 2);
    assert_int_equal(r.worst[0].index, 1);
    /* -0 vs +0: not bit-identical, so listed, with score 0 */
    assert_int_equal(r.worst[1].index, 3);
    assert_dbl(r.worst[1].score, 0.0, "signed zero score");
    assert_true(r.worst[1].golden_bits == 0x80000000u);
    assert_true(r.worst[1].actual_bits == 0);
}

static void test_signed_zero(void **state)
{
    float g[2] = {-0.0f, 1.0f}, a[2] = {0.0f, 1.0f};
    uint8_t g8[2] = {0x00, 0x38}, a8[2] = {0x80, 0x38};
    kvg_tensor tg = vec(g, KVG_FP32, 2), ta = vec(a, KVG_FP32, 2);
    kvg_tensor tg8 = vec(g8, KVG_FP8_E4M3FN, 2), ta8 = vec(a8, KVG_FP8_E4M3FN, 2);
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.bits_differ, 1);
    assert_dbl(r.mare, 0.0, "MARE");
    assert_string_equal(r.reason, "");
    assert_int_equal(run(&tg, &ta, KVG_CRIT_BITWISE, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_ERR_MISMATCH);
    assert_contains(r.reason, "1 of 2 written elements differ bitwise");
    /* fp8 +0 (0x00) vs -0 (0x80): distance 0 on the value line (the int8
     * view ttk uses would call it 128) */
    assert_int_equal(run(&tg8, &ta8, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
    assert_true(r.has_code_dist);
    assert_int_equal(r.max_dist, 0);
    assert_int_equal(r.bits_differ, 1);
    assert_int_equal(run(&tg8, &ta8, KVG_CRIT_AUTO, KVG_ROLE_COPY, &r, &diag),
                     KVG_ERR_MISMATCH);
}

/* ---- NaN and inf ------------------------------------------------------------ */

static void test_nonfinite_same_places(void **state)
{
    float g[4], a[4];
    kvg_tensor tg = vec(g, KVG_FP32, 4), ta = vec(a, KVG_FP32, 4);
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    g[0] = fbits(0x7FC00000u);
    a[0] = fbits(0xFFC00123u); /* another NaN: sign and payload differ */
    g[1] = a[1] = (float)HUGE_VAL;
    g[2] = a[2] = (float)-HUGE_VAL;
    g[3] = a[3] = 1.5f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.nan_matched, 1);
    assert_int_equal(r.inf_matched, 2);
    assert_int_equal(r.nonfinite_mismatch, 0);
    assert_int_equal(r.compared, 1);
    assert_int_equal(r.bits_differ, 1);
    assert_dbl(r.mere, 0.0, "MERE over the one finite pair");
    assert_dbl(r.cosine, 1.0, "cosine");
    assert_int_equal(r.over_thousandth, 0);
    assert_int_equal(r.worst_count, 1);
    assert_int_equal(r.worst[0].index, 0);
    /* bitwise minds the payload */
    assert_int_equal(run(&tg, &ta, KVG_CRIT_BITWISE, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_ERR_MISMATCH);
}

static void test_nonfinite_mismatch(void **state)
{
    float g[6], a[6];
    kvg_tensor tg = vec(g, KVG_FP32, 6), ta = vec(a, KVG_FP32, 6);
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    g[0] = 1.0f;                   a[0] = fbits(0x7FC00000u);
    g[1] = fbits(0x7FC00000u);     a[1] = 1.0f;
    g[2] = 2.0f;                   a[2] = (float)HUGE_VAL;
    g[3] = (float)HUGE_VAL;        a[3] = (float)-HUGE_VAL;
    g[4] = (float)HUGE_VAL;        a[4] = 3.0e38f;
    g[5] = 3.0f;                   a[5] = 3.0f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 5);
    assert_int_equal(r.compared, 1);
    /* the finite pair alone would pass: the non-finite rule fails it */
    assert_dbl(r.mere, 0.0, "MERE");
    assert_dbl(r.mare, 0.0, "MARE");
    assert_contains(r.reason, "5 NaN/inf mismatches with the golden (first "
                              "at index 0)");
    assert_false(strstr(r.reason, "MERE") != NULL);
    assert_int_equal(r.over_thousandth, 5);
    assert_int_equal(r.worst_count, 5);
    for (i = 0; i < 5; i++) {
        assert_int_equal(r.worst[i].index, i); /* equal scores: by index */
        assert_true(isinf(r.worst[i].score));
    }
}

static void test_all_nan(void **state)
{
    uint16_t g[3] = {0x7E00, 0xFE00, 0x7C01}, a[3] = {0x7E00, 0x7E00, 0x7D00};
    kvg_tensor tg = vec(g, KVG_FP16, 3), ta = vec(a, KVG_FP16, 3);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;
    /* ttk stat_rel_err: all non-finite and consistent is a PASS */
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.nan_matched, 3);
    assert_int_equal(r.compared, 0);
    assert_true(isnan(r.mere) && isnan(r.mare) && isnan(r.cosine));
    assert_true(isnan(r.max_abs_err) && isnan(r.rmse));
    assert_int_equal(r.bits_differ, 2);
}

/* ---- shapes: one element, all equal, empty ------------------------------------ */

static void test_one_element(void **state)
{
    float g = 2.0f, a = -2.0f;
    kvg_tensor tg = kvg_tensor_make(&g, 4, KVG_FP32, 0, NULL);
    kvg_tensor ta = kvg_tensor_make(&a, 4, KVG_FP32, 0, NULL);
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.elements, 1);
    assert_dbl(r.cosine, -1.0, "cosine of one opposite element");
    assert_dbl(r.mere, 4.0 / (2.0 + 1e-7), "MERE");
    assert_dbl(r.max_rel_err, 2.0, "max rel");
    assert_int_equal(r.worst_count, 1);
    assert_int_equal(r.worst[0].coord_rank, 0);
    assert_int_equal(r.worst[0].index, 0);
    a = 2.0f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_dbl(r.cosine, 1.0, "cosine of one equal element");
    assert_int_equal(r.worst_count, 0);
}

static void test_all_equal(void **state)
{
    float g[64], a[64];
    kvg_tensor tg = vec(g, KVG_FP32, 64), ta = vec(a, KVG_FP32, 64);
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    for (i = 0; i < 64; i++)
        g[i] = a[i] = 3.0f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.bits_differ, 0);
    assert_dbl(r.cosine, 1.0, "cosine");
    assert_dbl(r.mere, 0.0, "MERE");
    assert_dbl(r.max_abs_err, 0.0, "max abs");
    assert_int_equal(r.worst_count, 0);
    assert_int_equal(run(&tg, &ta, KVG_CRIT_BITWISE, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_OK);
    /* zero vectors: msprobe calls two zero norms a cosine of 1 ... */
    for (i = 0; i < 64; i++)
        g[i] = a[i] = 0.0f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_dbl(r.cosine, 1.0, "cosine of two zero vectors");
    /* ... and one zero norm an undefined cosine */
    a[7] = 1.0f;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_true(isnan(r.cosine));
}

static void test_empty(void **state)
{
    int64_t shape[2] = {3, 0};
    kvg_tensor tg = kvg_tensor_make(NULL, 0, KVG_BF16, 2, shape);
    kvg_tensor ta = kvg_tensor_make(NULL, 0, KVG_BF16, 2, shape);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.elements, 0);
    assert_int_equal(r.written, 0);
    assert_true(isnan(r.mere));
    assert_dbl(r.over_thousandth_ratio, 0.0, "ratio");
}

/* ---- integers ----------------------------------------------------------------- */

static void test_int8_delta(void **state)
{
    int8_t g[6] = {10, -5, 127, -128, 0, 50};
    int8_t a[6] = {11, -6, 127, -128, 0, 50};
    kvg_tensor tg = vec(g, KVG_INT8, 6), ta = vec(a, KVG_INT8, 6);
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_INT_ABS1);
    assert_true(r.has_int_delta);
    assert_int_equal(r.delta_plus1, 1);
    assert_int_equal(r.delta_minus1, 1);
    assert_int_equal(r.delta_over1, 0);
    assert_true(r.max_abs_delta == 1);
    assert_int_equal(r.bits_differ, 2);
    assert_contains(r.standard, "quantisation");
    a[5] = 52;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.delta_over1, 1);
    assert_true(r.max_abs_delta == 2);
    assert_contains(r.reason, "1 element with |delta| > 1 (max 2)");
    assert_int_equal(r.worst[0].index, 5);
    assert_dbl(r.worst[0].score, 2.0, "score = |delta|");
    a[5] = 48;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.delta_over1, 1);
    /* the full range: no wrap-around in the delta */
    a[5] = 50;
    a[3] = 127;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_true(r.max_abs_delta == 255);
    /* int8 from a compute op is an integer op: bitwise */
    a[3] = -128;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_COMPUTE, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
}

static void test_int64_extremes(void **state)
{
    int64_t g[2] = {INT64_MIN, 5}, a[2] = {INT64_MAX, 6};
    kvg_tensor tg = vec(g, KVG_INT64, 2), ta = vec(a, KVG_INT64, 2);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_QUANT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_INT_ABS1);
    assert_true(r.max_abs_delta == UINT64_MAX);
    assert_int_equal(r.delta_plus1, 1);
    assert_int_equal(r.delta_over1, 1);
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
}

/* ---- untouched elements ----------------------------------------------------------- */

/* fp16 ND cache [blocks 2, slots 4, heads 1, dim 8]; the golden writes
 * (block 0, slot 1) and (block 1, slot 3). */
static void test_untouched_nd(void **state)
{
    enum { N = 64 };
    uint16_t init[N], gold[N], act[N];
    unsigned char mask[N];
    kvg_cache_layout nd = {KVG_LAYOUT_ND, 2, 4, 1, 8, 0};
    kvg_tensor ti = vec(init, KVG_FP16, N), tg = vec(gold, KVG_FP16, N);
    kvg_tensor ta = vec(act, KVG_FP16, N);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    int i, c;

    (void)state;
    kvgt_poison(init, sizeof init, 7);
    memcpy(gold, init, sizeof gold);
    memset(mask, 0, sizeof mask);
    for (c = 0; c < 8; c++) {
        int w0 = (0 * 4 + 1) * 8 + c, w1 = (1 * 4 + 3) * 8 + c;
        gold[w0] = (uint16_t)(0x3C00 + c); /* 1.0 + c ulp */
        gold[w1] = (uint16_t)(0xBC00 + c);
        mask[w0] = mask[w1] = 1;
    }
    memcpy(act, gold, sizeof act);
    act[(1 * 4 + 3) * 8 + 2] += 1; /* one written element, one ulp off */

    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "k_cache";
    args.golden = &tg;
    args.actual = &ta;
    args.initial = &ti;
    args.written = mask;
    args.written_count = N;
    args.layout = &nd;
    assert_int_equal(run_args(&args, &r, &diag), KVG_OK);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.untouched, 48);
    assert_int_equal(r.untouched_changed, 0);
    assert_int_equal(r.bits_differ, 1);
    assert_true(r.has_layout);
    assert_int_equal(r.worst[0].index, 58);
    assert_int_equal(r.worst[0].coord_rank, 4);
    assert_int_equal(r.worst[0].coord[0], 1);
    assert_int_equal(r.worst[0].coord[1], 3);
    assert_int_equal(r.worst[0].coord[2], 0);
    assert_int_equal(r.worst[0].coord[3], 2);

    /* the kernel also wrote (block 1, slot 0, channel 5), where it must not */
    act[(1 * 4 + 0) * 8 + 5] ^= 0x0001;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.untouched_listed, 1);
    assert_int_equal(r.untouched_first[0].index, 37);
    assert_int_equal(r.untouched_first[0].coord[0], 1);
    assert_int_equal(r.untouched_first[0].coord[1], 0);
    assert_int_equal(r.untouched_first[0].coord[2], 0);
    assert_int_equal(r.untouched_first[0].coord[3], 5);
    assert_true(r.untouched_first[0].golden_bits == init[37]);
    assert_true(r.untouched_first[0].actual_bits == act[37]);
    assert_contains(r.reason, "1 untouched element changed (first at index "
                              "37)");
    /* the criterion alone passes: the untouched rule fails the tensor */
    assert_true(r.mere < r.mere_limit);
    /* without `initial`, untouched elements are checked against the golden */
    args.initial = NULL;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.untouched_changed, 1);

    /* more than K changes: all counted, the first K listed by index */
    for (i = 0; i < 8; i++)
        act[i] ^= 0x0100; /* block 0 slot 0, all untouched */
    act[63 - 8 - 7] ^= 0x0100;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.untouched_changed, 10);
    assert_int_equal(r.untouched_listed, KVG_COMPARE_WORST);
    for (i = 0; i < KVG_COMPARE_WORST; i++)
        assert_int_equal(r.untouched_first[i].index, i);
}

static void test_untouched_inconsistent_golden(void **state)
{
    int8_t init[8], gold[8], act[8];
    unsigned char mask[8] = {1, 1, 0, 0, 0, 0, 0, 0};
    kvg_tensor ti = vec(init, KVG_INT8, 8), tg = vec(gold, KVG_INT8, 8);
    kvg_tensor ta = vec(act, KVG_INT8, 8);
    kvg_compare_args args;
    (void)state;
    kvgt_poison(init, sizeof init, 3);
    memcpy(gold, init, 8);
    gold[0] = 1;
    gold[5] = (int8_t)(init[5] ^ 0x10); /* the golden wrote an untouched slot */
    memcpy(act, gold, 8);
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "v_cache";
    args.golden = &tg;
    args.actual = &ta;
    args.initial = &ti;
    args.written = mask;
    args.written_count = 8;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "v_cache.golden",
                 "element 5 is marked untouched but differs from "
                 "v_cache.initial");
}

/* ---- coordinates --------------------------------------------------------------------- */

static void test_worst_coords_nz(void **state)
{
    /* int8 NZ [blocks 2, heads*dim/c0 = 2, slots 4, c0 32], heads 2, dim 32.
     * (block 1, slot 3, head 1, channel 5): c = 1*32 + 5 = 37, row 1, col 5,
     * offset ((1*2 + 1)*4 + 3)*32 + 5 = 485.
     * (block 0, slot 2, head 0, channel 31): ((0*2 + 0)*4 + 2)*32 + 31 = 95. */
    enum { N = 512 };
    int8_t g[N], a[N];
    kvg_cache_layout nz = {KVG_LAYOUT_NZ, 2, 4, 2, 32, 32};
    kvg_tensor tg = vec(g, KVG_INT8, N), ta = vec(a, KVG_INT8, N);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    for (i = 0; i < N; i++)
        g[i] = (int8_t)((i * 37) % 200 - 100);
    memcpy(a, g, N);
    a[485] = (int8_t)(g[485] + 3);
    a[95] = (int8_t)(g[95] - 2);
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "k_cache";
    args.golden = &tg;
    args.actual = &ta;
    args.layout = &nz;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.worst_count, 2);
    assert_int_equal(r.worst[0].index, 485);
    assert_int_equal(r.worst[0].coord[0], 1);
    assert_int_equal(r.worst[0].coord[1], 3);
    assert_int_equal(r.worst[0].coord[2], 1);
    assert_int_equal(r.worst[0].coord[3], 5);
    assert_dbl(r.worst[0].score, 3.0, "score 3");
    assert_int_equal(r.worst[1].index, 95);
    assert_int_equal(r.worst[1].coord[0], 0);
    assert_int_equal(r.worst[1].coord[1], 2);
    assert_int_equal(r.worst[1].coord[2], 0);
    assert_int_equal(r.worst[1].coord[3], 31);
    assert_int_equal(diag.position, 485);
}

static void test_worst_coords_nd_and_plain(void **state)
{
    /* bf16 ND [2, 4, 2, 8]: (1, 2, 1, 6) = ((1*4 + 2)*2 + 1)*8 + 6 = 110 */
    uint16_t g[128], a[128];
    kvg_cache_layout nd = {KVG_LAYOUT_ND, 2, 4, 2, 8, 0};
    int64_t shape3[3] = {3, 4, 5};
    float g3[60], a3[60];
    kvg_tensor tg = vec(g, KVG_BF16, 128), ta = vec(a, KVG_BF16, 128);
    kvg_tensor tg3 = kvg_tensor_make(g3, sizeof g3, KVG_FP32, 3, shape3);
    kvg_tensor ta3 = kvg_tensor_make(a3, sizeof a3, KVG_FP32, 3, shape3);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    for (i = 0; i < 128; i++)
        g[i] = a[i] = (uint16_t)(0x3F80 + i);
    a[110] = 0xC000; /* -2.0: far outside bf16's MARE limit */
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.golden = &tg;
    args.actual = &ta;
    args.layout = &nd;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_string_equal(r.name, "tensor"); /* name NULL -> "tensor" */
    assert_int_equal(r.worst[0].index, 110);
    assert_int_equal(r.worst[0].coord[0], 1);
    assert_int_equal(r.worst[0].coord[1], 2);
    assert_int_equal(r.worst[0].coord[2], 1);
    assert_int_equal(r.worst[0].coord[3], 6);

    /* no layout: the C-order multi-index, 37 = 1*20 + 3*5 + 2 */
    for (i = 0; i < 60; i++)
        g3[i] = a3[i] = (float)(i + 1);
    a3[37] = 100.0f;
    assert_int_equal(run(&tg3, &ta3, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.worst[0].coord_rank, 3);
    assert_int_equal(r.worst[0].coord[0], 1);
    assert_int_equal(r.worst[0].coord[1], 3);
    assert_int_equal(r.worst[0].coord[2], 2);
}

static void test_worst_list_keeps_top_k(void **state)
{
    /* 20 differing elements with rel errors rising then falling: the list
     * must hold the 8 largest, sorted, ties by index */
    float g[20], a[20];
    static const int err[20] = {1, 5, 3, 9, 9, 2, 7, 8, 4, 6,
                                10, 1, 9, 3, 11, 2, 5, 8, 7, 12};
    static const int want[8] = {19, 14, 10, 3, 4, 12, 7, 17};
    kvg_tensor tg = vec(g, KVG_FP32, 20), ta = vec(a, KVG_FP32, 20);
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    for (i = 0; i < 20; i++) {
        g[i] = 1.0f;
        a[i] = 1.0f + (float)err[i] * 0.0625f;
    }
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.worst_count, KVG_COMPARE_WORST);
    for (i = 0; i < KVG_COMPARE_WORST; i++)
        if (r.worst[i].index != want[i])
            fail_msg("worst[%d] is index %lld, want %d", i,
                     (long long)r.worst[i].index, want[i]);
}

/* ---- code distance --------------------------------------------------------------- */

static int64_t dist_of(kvg_dtype dt, uint8_t gc, uint8_t ac)
{
    kvg_tensor tg = vec(&gc, dt, 1), ta = vec(&ac, dt, 1);
    kvg_compare_result r;
    kvg_diag diag;
    kvg_status st =
        run(&tg, &ta, KVG_CRIT_CODE_DIST, KVG_ROLE_DEFAULT, &r, &diag);
    if (st != KVG_OK && st != KVG_ERR_MISMATCH)
        fail_msg("code distance: %s", diag.message);
    return r.max_dist;
}

static void test_code_distance(void **state)
{
    (void)state;
    /* HiF8 (number_formats.md §3.2): 1.875 (0x0F) -> 2.0 (0x10) */
    assert_int_equal(dist_of(KVG_HIF8, 0x0F, 0x10), 1);
    /* 2.0 (0x10) vs 0.5 (0x18): between them 0.5625..0.9375 (0x19-0x1F)
     * and 1.0..1.875 (0x08-0x0F), 15 values, so 16 steps (the int8 view
     * would say 8) */
    assert_int_equal(dist_of(KVG_HIF8, 0x10, 0x18), 16);
    assert_int_equal(dist_of(KVG_HIF8, 0x18, 0x10), 16);
    /* +-2^-22 with only zero between: 2 (int8 view: 128) */
    assert_int_equal(dist_of(KVG_HIF8, 0x01, 0x81), 2);
    assert_int_equal(dist_of(KVG_HIF8, 0x00, 0x01), 1);
    /* 32768 (0x6E) vs 24576 (0x6D) */
    assert_int_equal(dist_of(KVG_HIF8, 0x6E, 0x6D), 1);
    /* smallest normal 2^-15 (0x7E) vs largest denormal 2^-16 (0x07) */
    assert_int_equal(dist_of(KVG_HIF8, 0x7E, 0x07), 1);
    assert_int_equal(dist_of(KVG_HIF8, 0x7F, 0x7E), 1);
    /* 1.0 (0x08) vs -1.0 (0x88). Positive values below 1.0: 7 DML, the
     * binades 2^-15..2^-8 with 2 codes each (16), 2^-7..2^-4 with 4 (16),
     * 2^-3..2^-1 with 8 (24): 63. Strictly between -1 and 1 lie 63 + 1 + 63
     * = 127 values, so the distance is 128. */
    assert_int_equal(dist_of(KVG_HIF8, 0x08, 0x88), 128);
    /* e4m3fn: +-min subnormal 2 apart, max (0x7E) vs 0x7D, subnormal max
     * (0x07) vs min normal (0x08) */
    assert_int_equal(dist_of(KVG_FP8_E4M3FN, 0x01, 0x81), 2);
    assert_int_equal(dist_of(KVG_FP8_E4M3FN, 0x7E, 0x7D), 1);
    assert_int_equal(dist_of(KVG_FP8_E4M3FN, 0x07, 0x08), 1);
    /* 1.0 (0x38) vs -1.0: codes 0x01..0x37 (55) on each side plus zero lie
     * between: 111 values, distance 112 */
    assert_int_equal(dist_of(KVG_FP8_E4M3FN, 0x38, 0xB8), 112);
    assert_int_equal(dist_of(KVG_FP8_E5M2, 0x7B, 0x7A), 1);
    assert_int_equal(dist_of(KVG_FP8_E5M2, 0x80, 0x00), 0);
}

static void test_code_nonfinite(void **state)
{
    uint8_t g[3] = {0x7B, 0x7E, 0x6E}, a[3] = {0x7C, 0x7F, 0x6F};
    kvg_tensor tg = vec(g, KVG_FP8_E5M2, 2), ta = vec(a, KVG_FP8_E5M2, 2);
    kvg_tensor th = vec(g + 2, KVG_HIF8, 1), tah = vec(a + 2, KVG_HIF8, 1);
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;
    /* e5m2 max finite vs +inf: a non-finite mismatch, whatever the
     * distance; NaN 0x7E vs NaN 0x7F: matched */
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 1);
    assert_int_equal(r.nan_matched, 1);
    /* hif8 32768 vs +inf (0x6F) */
    assert_int_equal(run(&th, &tah, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r,
                         &diag),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 1);
}

static void test_code_ratio_boundary(void **state)
{
    enum { N = 1000 };
    uint8_t g[N], a[N];
    kvg_tensor tg = vec(g, KVG_HIF8, N), ta = vec(a, KVG_HIF8, N);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    int i;

    (void)state;
    for (i = 0; i < N; i++)
        g[i] = a[i] = 0x09; /* 1.125 */
    for (i = 0; i < N; i += 3)
        a[i] = 0x0A; /* distance 1: allowed everywhere */
    a[1] = 0x0B;     /* 1.125 -> 1.375: distance 2 */
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_OK); /* 1/1000 <= 0.001 */
    assert_int_equal(r.dist_over1, 1);
    assert_int_equal(r.dist1, 334);
    assert_int_equal(r.max_dist, 2);
    assert_dbl(r.mismatch_ratio, 0.001, "ratio");
    assert_dbl(r.mismatch_ratio_limit, 0.001, "limit");
    a[2] = 0x0B;
    assert_int_equal(run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag),
                     KVG_ERR_MISMATCH); /* 2/1000 > 0.001 */
    assert_contains(r.reason, "2 codes more than 1 apart");
    /* a caller limit */
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.golden = &tg;
    args.actual = &ta;
    args.mismatch_ratio = 0.002;
    assert_int_equal(run_args(&args, &r, &diag), KVG_OK);
    args.mismatch_ratio = 0.0;
    assert_int_equal(run_args(&args, &r, &diag), KVG_ERR_MISMATCH);
}

/* ---- float_re thresholds, just under and just over ---------------------------- */

static kvg_status fp32_const(int n, float golden, float actual0,
                             float actual_rest, double threshold,
                             kvg_compare_result *r)
{
    static float g[128], a[128];
    kvg_tensor tg = vec(g, KVG_FP32, n), ta = vec(a, KVG_FP32, n);
    kvg_compare_args args;
    kvg_diag diag;
    int i;

    for (i = 0; i < n; i++) {
        g[i] = golden;
        a[i] = i == 0 ? actual0 : actual_rest;
    }
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.golden = &tg;
    args.actual = &ta;
    args.threshold = threshold;
    return run_args(&args, r, &diag);
}

static void test_float_re_boundaries(void **state)
{
    const float th = (float)ldexp(1, -13), ulp = (float)ldexp(1, -23);
    kvg_compare_result r;
    double t_exact;

    (void)state;
    /* MERE = 2^-13 / (1 + 1e-7): just under Th */
    assert_int_equal(fp32_const(4, 1.0f, 1.0f + th, 1.0f + th, 0, &r),
                     KVG_OK);
    assert_true(r.mere < ldexp(1, -13));
    /* one fp32 ulp more: just over */
    assert_int_equal(fp32_const(4, 1.0f, 1.0f + th + ulp, 1.0f + th + ulp, 0,
                                &r),
                     KVG_ERR_MISMATCH);
    assert_contains(r.reason, "MERE");
    assert_false(strstr(r.reason, "MARE") != NULL);
    /* MARE: one element at 10 Th (= 5 * 2^-12) among 100 exact ones */
    assert_int_equal(fp32_const(100, 1.0f, 1.0f + 5 * (float)ldexp(1, -12),
                                1.0f, 0, &r),
                     KVG_OK);
    assert_true(r.mare < 10 * ldexp(1, -13));
    assert_int_equal(fp32_const(100, 1.0f,
                                1.0f + 5 * (float)ldexp(1, -12) + ulp, 1.0f,
                                0, &r),
                     KVG_ERR_MISMATCH);
    assert_contains(r.reason, "MARE");
    assert_false(strstr(r.reason, "MERE") != NULL);
    /* strict: MERE exactly equal to the threshold fails */
    t_exact = ldexp(1, -13) / (1.0 + 1e-7);
    assert_int_equal(fp32_const(1, 1.0f, 1.0f + th, 1.0f, t_exact, &r),
                     KVG_ERR_MISMATCH);
    assert_dbl(r.mere, t_exact, "MERE == Th");
    assert_dbl(r.threshold, t_exact, "caller threshold");
    assert_int_equal(fp32_const(1, 1.0f, 1.0f + th, 1.0f,
                                nextafter(t_exact, 1.0), &r),
                     KVG_OK);
}

static kvg_status codes16(kvg_dtype dt, uint16_t golden, uint16_t actual,
                          kvg_compare_result *r)
{
    uint16_t g[4], a[4];
    kvg_tensor tg = vec(g, dt, 4), ta = vec(a, dt, 4);
    kvg_diag diag;
    int i;
    for (i = 0; i < 4; i++) {
        g[i] = golden;
        a[i] = actual;
    }
    return run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, r, &diag);
}

static void test_float_re_per_dtype(void **state)
{
    uint8_t g8[2] = {0x38, 0x38}, a8[2] = {0x39, 0x39};
    kvg_tensor tg8 = vec(g8, KVG_FP8_E4M3FN, 2);
    kvg_tensor ta8 = vec(a8, KVG_FP8_E4M3FN, 2);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    double rel, sum;
    int i;

    (void)state;
    /* fp16: one ulp at 1.0 everywhere is 2^-10 / (1 + 1e-7) < 2^-10 */
    assert_int_equal(codes16(KVG_FP16, 0x3C00, 0x3C01, &r), KVG_OK);
    rel = ldexp(1, -10) / (1.0 + 1e-7);
    sum = 0.0;
    for (i = 0; i < 4; i++)
        sum += rel;
    assert_dbl(r.mere, sum / 4.0, "fp16 MERE");
    assert_int_equal(codes16(KVG_FP16, 0x3C00, 0x3C02, &r), KVG_ERR_MISMATCH);
    /* bf16: Th 2^-7, one bf16 ulp at 1.0 */
    assert_int_equal(codes16(KVG_BF16, 0x3F80, 0x3F81, &r), KVG_OK);
    assert_int_equal(codes16(KVG_BF16, 0x3F80, 0x3F82, &r), KVG_ERR_MISMATCH);
    /* fp8 e4m3 from a compute op: float_re with Th 2^-3; 1.0 -> 1.125 */
    assert_int_equal(run(&tg8, &ta8, KVG_CRIT_AUTO, KVG_ROLE_COMPUTE, &r,
                         &diag),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_FLOAT_RE);
    assert_dbl(r.threshold, 0.125, "e4m3 Th");
    a8[0] = a8[1] = 0x3A; /* 1.25 */
    assert_int_equal(run(&tg8, &ta8, KVG_CRIT_AUTO, KVG_ROLE_COMPUTE, &r,
                         &diag),
                     KVG_ERR_MISMATCH);
    /* hif8 has no default Th; with one given, float_re works */
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.golden = &tg8;
    args.actual = &ta8;
    tg8.dtype = ta8.dtype = KVG_HIF8;
    g8[0] = g8[1] = 0x08; /* 1.0 */
    a8[0] = a8[1] = 0x09; /* 1.125 */
    args.criterion = KVG_CRIT_FLOAT_RE;
    args.threshold = 0.25;
    assert_int_equal(run_args(&args, &r, &diag), KVG_OK);
    assert_dbl(r.mere, 0.125 / (1.0 + 1e-7), "hif8 MERE");
}

static void test_thousandth_boundaries(void **state)
{
    float g[4] = {1.0f, 1.0f, 1.0f, 1.0f}, a[4];
    kvg_tensor tg = vec(g, KVG_FP32, 4), ta = vec(a, KVG_FP32, 4);
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    a[0] = 1.0f + (float)ldexp(1, -10); /* 0.000977 < 0.001 */
    a[1] = 1.0f + (float)(ldexp(1, -10) + ldexp(1, -13)); /* 0.0011 */
    a[2] = 1.0f + (float)ldexp(1, -8);  /* 0.0039 < 0.005 */
    a[3] = 1.0f + (float)ldexp(1, -7);  /* 0.0078 */
    (void)run(&tg, &ta, KVG_CRIT_AUTO, KVG_ROLE_DEFAULT, &r, &diag);
    assert_int_equal(r.over_thousandth, 3);
    assert_int_equal(r.over_five_thousandth, 1);
    assert_dbl(r.over_thousandth_ratio, 0.75, "1e-3 ratio");
    assert_dbl(r.over_five_thousandth_ratio, 0.25, "5e-3 ratio");
    assert_dbl(r.max_rel_err, ldexp(1, -7), "max rel");
}

/* ---- validation ----------------------------------------------------------------- */

static void test_errors(void **state)
{
    uint16_t g[16], a[16], in[16];
    unsigned char mask[16];
    int64_t shape[2] = {2, 8}, shape_bad[2] = {2, 4}, shape3[3] = {2, 8, 1};
    kvg_tensor tg = kvg_tensor_make(g, sizeof g, KVG_FP16, 2, shape);
    kvg_tensor ta = kvg_tensor_make(a, sizeof a, KVG_FP16, 2, shape);
    kvg_tensor ti = kvg_tensor_make(in, sizeof in, KVG_FP16, 2, shape);
    kvg_tensor bad;
    kvg_cache_layout lay = {KVG_LAYOUT_NZ, 1, 1, 1, 16, 16};
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;

    (void)state;
    kvgt_poison(g, sizeof g, 1);
    memcpy(a, g, sizeof a);
    memcpy(in, g, sizeof in);
    memset(mask, 1, sizeof mask);
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "k";
    args.golden = &tg;
    args.actual = &ta;

    assert_int_equal(kvg_compare_tensor(NULL, &r, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_compare_tensor(&args, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    args.golden = NULL;
    expect_error(&args, KVG_ERR_PARAM_NULLPTR, "k.golden",
                 "required tensor is NULL");
    args.golden = &tg;
    bad = ta;
    bad.data = NULL;
    args.actual = &bad;
    expect_error(&args, KVG_ERR_PARAM_NULLPTR, "k.actual",
                 "data pointer is NULL");
    bad = ta;
    bad.dtype = KVG_BF16;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.actual",
                 "dtype must be fp16 (the golden's), got bf16");
    bad = kvg_tensor_make(a, sizeof a, KVG_FP16, 3, shape3);
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.actual",
                 "rank must be 2 (golden shape [2, 8]), got 3");
    bad = kvg_tensor_make(a, 16, KVG_FP16, 2, shape_bad);
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.actual",
                 "dim 1 must be 8 (golden shape [2, 8]), got 4");
    bad = ta;
    bad.nbytes = 30;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.actual",
                 "buffer is 30 bytes");
    bad = tg;
    bad.dtype = KVG_DTYPE_INVALID;
    args.golden = &bad;
    args.actual = &ta;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.golden", "invalid dtype");
    args.golden = &tg;

    args.initial = &ti;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.initial",
                 "need the written mask");
    args.written = mask;
    args.written_count = 15;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.written",
                 "15 mask bytes for 16 elements");
    args.written_count = 16;
    mask[5] = 2;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.written",
                 "element 5 is 2; the mask must hold 0");
    mask[5] = 1;
    args.initial = NULL;
    args.written = NULL;

    args.layout = &lay;
    lay.dim = 8;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.layout",
                 "= 8 must equal the tensor's 16 elements");
    lay.dim = 16;
    lay.c0 = 32;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.layout",
                 "c0 must be 16 (32 bytes of fp16), got 32");
    lay.c0 = 16;
    lay.blocks = 0;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.layout",
                 "blocks must be >= 1, got 0");
    lay.blocks = 1;
    lay.kind = (kvg_layout_kind)7;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.layout",
                 "kind 7 is not ND, BNSD or NZ");
    lay.kind = KVG_LAYOUT_NZ;
    lay.heads = 2;
    lay.dim = 8;
    lay.slots = 1;
    assert_int_equal(run_args(&args, &r, &diag), KVG_OK); /* 2*8 % 16 == 0 */
    lay.heads = 4;
    lay.dim = 4;
    assert_int_equal(run_args(&args, &r, &diag), KVG_OK);
    lay.blocks = 2;
    lay.heads = 1;
    lay.dim = 8;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k.layout",
                 "heads*dim = 8 must be a multiple of c0 = 16");
    args.layout = NULL;

    args.criterion = KVG_CRIT_INT_ABS1;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "criterion int_abs1 needs an integer dtype");
    args.criterion = KVG_CRIT_CODE_DIST;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "criterion code_dist needs an 8-bit float dtype");
    args.criterion = (kvg_compare_criterion)9;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "criterion 9 is not a kvg_compare_criterion");
    args.criterion = KVG_CRIT_AUTO;
    args.role = (kvg_compare_role)9;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "role 9 is not a kvg_compare_role");
    args.role = KVG_ROLE_DEFAULT;
    args.threshold = -1.0;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "threshold must be finite and >= 0");
    args.threshold = NAN;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "threshold must be finite and >= 0");
    args.threshold = HUGE_VAL;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "threshold must be finite and >= 0");
    args.threshold = 0.0;
    args.mismatch_ratio = 2.0;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "mismatch_ratio must be in [0, 1]");
    args.mismatch_ratio = NAN;
    expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                 "mismatch_ratio must be in [0, 1]");
    args.mismatch_ratio = -1.0;

    /* float_re on integers, and on hif8 without a threshold */
    {
        int8_t gi[2] = {1, 2};
        uint8_t gh[2] = {0x08, 0x09};
        kvg_tensor ti8 = vec(gi, KVG_INT8, 2), th8 = vec(gh, KVG_HIF8, 2);
        args.criterion = KVG_CRIT_FLOAT_RE;
        args.golden = args.actual = &ti8;
        expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                     "criterion float_re needs a floating dtype, got int8");
        args.golden = args.actual = &th8;
        expect_error(&args, KVG_ERR_PARAM_INVALID, "k",
                     "no default threshold for hif8");
    }
}

/* ---- the written mask from two runs -------------------------------------------- */

static void test_written_mask(void **state)
{
    int8_t ia[8], ib[8], oa[8], ob[8];
    unsigned char mask[8], before[8];
    kvg_tensor tia = vec(ia, KVG_INT8, 8), tib = vec(ib, KVG_INT8, 8);
    kvg_tensor toa = vec(oa, KVG_INT8, 8), tob = vec(ob, KVG_INT8, 8);
    kvg_diag diag;
    int i;

    (void)state;
    kvgt_poison(ia, sizeof ia, 11);
    for (i = 0; i < 8; i++)
        ib[i] = (int8_t)~ia[i];
    memcpy(oa, ia, 8);
    memcpy(ob, ib, 8);
    oa[2] = ob[2] = 7;
    oa[5] = ob[5] = ia[5]; /* written with the value that was there */
    kvgt_poison(mask, sizeof mask, 12);
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask, 8,
                                              &diag),
                     KVG_OK);
    for (i = 0; i < 8; i++)
        assert_int_equal(mask[i], i == 2 || i == 5);

    kvgt_poison(mask, sizeof mask, 12);
    memcpy(before, mask, sizeof mask);
    ib[4] = ia[4];
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask, 8,
                                              &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "init_b: element 4 equals init_a");
    assert_int_equal(diag.position, 4);
    kvgt_assert_bytes_equal(mask, before, 8, "mask after an error");
    ib[4] = (int8_t)~ia[4];
    ob[6] = (int8_t)(ob[6] ^ 0x40); /* depends on the initial contents */
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask, 8,
                                              &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "out_b: element 6 depends on the initial");
    kvgt_assert_bytes_equal(mask, before, 8, "mask after an error");
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask, 7,
                                              &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, NULL, 8,
                                              &diag),
                     KVG_ERR_PARAM_NULLPTR);
}

/* ---- summary and reports ------------------------------------------------------------- */

/* Three results: a PASS, an int8 NZ FAIL with an untouched change, and a
 * float FAIL with NaN metrics and an awkward name. */
static void three_results(kvg_compare_result res[3])
{
    static float g0[4] = {1, 2, 3, 4}, a0[4] = {1, 2, 3, 4};
    static int8_t g1[512], a1[512];
    static unsigned char m1[512];
    static float g2[2], a2[2];
    kvg_cache_layout nz = {KVG_LAYOUT_NZ, 2, 4, 2, 32, 32};
    kvg_tensor t0g = vec(g0, KVG_FP32, 4), t0a = vec(a0, KVG_FP32, 4);
    kvg_tensor t1g = vec(g1, KVG_INT8, 512), t1a = vec(a1, KVG_INT8, 512);
    kvg_tensor t2g = vec(g2, KVG_FP32, 2), t2a = vec(a2, KVG_FP32, 2);
    kvg_compare_args args;
    kvg_diag diag;
    int i;

    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "q_out";
    args.golden = &t0g;
    args.actual = &t0a;
    assert_int_equal(run_args(&args, &res[0], &diag), KVG_OK);

    kvgt_poison(g1, sizeof g1, 5);
    memcpy(a1, g1, sizeof a1);
    for (i = 0; i < 512; i++)
        m1[i] = (unsigned char)(i % 4 == 0);
    a1[485] = (int8_t)(g1[485] ^ 0x01); /* untouched (485 % 4 == 1) */
    a1[484] = (int8_t)(g1[484] == 127 ? 126 : g1[484] + 1); /* |delta| 1 */
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "k_cache";
    args.golden = &t1g;
    args.actual = &t1a;
    args.written = m1;
    args.written_count = 512;
    args.layout = &nz;
    assert_int_equal(run_args(&args, &res[1], &diag), KVG_ERR_MISMATCH);

    g2[0] = 1.0f;
    g2[1] = 2.0f;
    a2[0] = fbits(0x7FC00000u);
    a2[1] = (float)HUGE_VAL;
    kvg_compare_args_init(&args);
    args.standard = KVG_STD_SINGLE; /* written for single's verdicts */
    args.name = "we\"ird\\name\n\x01\xc3\xa9";
    args.golden = &t2g;
    args.actual = &t2a;
    assert_int_equal(run_args(&args, &res[2], &diag), KVG_ERR_MISMATCH);
}

static void test_summary(void **state)
{
    kvg_compare_result res[3];
    kvg_compare_summary s;
    (void)state;
    three_results(res);
    kvg_compare_summary_init(&s);
    assert_int_equal(s.status, KVG_OK);
    kvg_compare_summary_add(&s, &res[0]);
    assert_int_equal(s.status, KVG_OK);
    kvg_compare_summary_add(&s, &res[1]);
    kvg_compare_summary_add(&s, &res[2]);
    assert_int_equal(s.tensors, 3);
    assert_int_equal(s.passed, 1);
    assert_int_equal(s.failed, 2);
    assert_int_equal(s.untouched_changed, 1);
    assert_int_equal(s.status, KVG_ERR_MISMATCH);
}

static void test_json(void **state)
{
    kvg_compare_result res[3];
    size_t len = 0, len2 = 0;
    char *buf;
    kvg_json *doc;
    const kvg_json *results, *r0, *r1, *r2, *w, *coord, *lim, *u;
    kvg_diag diag;

    (void)state;
    three_results(res);
    assert_int_equal(kvg_compare_report_json(res, 3, NULL, 0, &len, &diag),
                     KVG_OK);
    buf = (char *)kvgt_alloc_poisoned(len + 1, 9);
    assert_int_equal(kvg_compare_report_json(res, 3, buf, len + 1, &len2,
                                             &diag),
                     KVG_OK);
    assert_int_equal(len2, len);
    assert_int_equal(strlen(buf), len);
    doc = kvgt_json_parse(buf);
    assert_string_equal(kvgt_json_str(doc, "tool"), "kvgold compare");
    assert_string_equal(kvgt_json_str(doc, "verdict"), "FAIL");
    assert_dbl(kvgt_json_num(doc, "tensors"), 3, "tensors");
    assert_dbl(kvgt_json_num(doc, "passed"), 1, "passed");
    assert_dbl(kvgt_json_num(doc, "failed"), 2, "failed");
    assert_dbl(kvgt_json_num(doc, "untouched_changed"), 1, "untouched");
    results = kvg_json_get(doc, "results");
    assert_true(kvg_json_is(results, KVG_JSON_ARRAY));
    assert_int_equal(results->count, 3);
    r0 = kvg_json_at(results, 0);
    r1 = kvg_json_at(results, 1);
    r2 = kvg_json_at(results, 2);

    assert_string_equal(kvgt_json_str(r0, "name"), "q_out");
    assert_string_equal(kvgt_json_str(r0, "verdict"), "PASS");
    assert_string_equal(kvgt_json_str(r0, "criterion"), "float_re");
    assert_string_equal(kvgt_json_str(r0, "dtype"), "fp32");
    assert_string_equal(kvgt_json_str(r0, "reason"), "");
    assert_dbl(kvgt_json_num(r0, "cosine"), res[0].cosine, "cosine");
    kvgt_json_assert_null(r0, "layout");
    kvgt_json_assert_null(r0, "int_delta");
    lim = kvg_json_get(r0, "limits");
    assert_dbl(kvgt_json_num(lim, "threshold"), ldexp(1, -13), "Th");
    assert_dbl(kvgt_json_num(lim, "mare_below"), 10 * ldexp(1, -13), "10 Th");
    kvgt_json_assert_null(lim, "mismatch_ratio_max");

    assert_string_equal(kvgt_json_str(r1, "name"), "k_cache");
    assert_string_equal(kvgt_json_str(r1, "verdict"), "FAIL");
    assert_string_equal(kvgt_json_str(r1, "reason"), res[1].reason);
    assert_dbl(kvgt_json_num(r1, "untouched_changed"), 1, "untouched");
    assert_dbl(kvgt_json_num(r1, "written"), 128, "written");
    assert_dbl(kvgt_json_num(r1, "mere"), res[1].mere, "mere round trip");
    assert_dbl(kvgt_json_num(r1, "max_rel_err"), res[1].max_rel_err, "max rel");
    assert_string_equal(
        kvgt_json_str(kvg_json_get(r1, "layout"), "kind"), "nz");
    assert_dbl(kvgt_json_num(kvg_json_get(r1, "int_delta"), "plus1") +
                   kvgt_json_num(kvg_json_get(r1, "int_delta"), "minus1"),
               1, "one delta of 1");
    u = kvg_json_at(kvg_json_get(r1, "untouched_changed_first"), 0);
    assert_non_null(u);
    assert_dbl(kvgt_json_num(u, "index"), 485, "untouched index");
    coord = kvg_json_get(u, "coord");
    assert_dbl(kvgt_json_num(coord, "block"), 1, "block");
    assert_dbl(kvgt_json_num(coord, "slot"), 3, "slot");
    assert_dbl(kvgt_json_num(coord, "head"), 1, "head");
    assert_dbl(kvgt_json_num(coord, "channel"), 5, "channel");
    assert_int_equal(strlen(kvgt_json_str(u, "expected_bits")), 4); /* "0x.." */
    assert_true(strncmp(kvgt_json_str(u, "actual_bits"), "0x", 2) == 0);

    /* control bytes come back as themselves; bytes >= 0x80 were escaped as
     * \u00XX, which decodes to U+00C3 U+00A9 in UTF-8 */
    assert_string_equal(kvgt_json_str(r2, "name"),
                        "we\"ird\\name\n\x01\xc3\x83\xc2\xa9");
    kvgt_json_assert_null(r2, "cosine"); /* no finite pair: undefined */
    kvgt_json_assert_null(r2, "mere");
    w = kvg_json_at(kvg_json_get(r2, "worst"), 0);
    kvgt_json_assert_null(w, "actual");   /* NaN */
    kvgt_json_assert_null(w, "abs_err");  /* inf */
    assert_dbl(kvgt_json_num(w, "expected"), 1.0, "expected");
    coord = kvg_json_get(w, "coord");
    assert_true(kvg_json_is(coord, KVG_JSON_ARRAY));
    assert_int_equal(coord->count, 1);
    kvg_json_free(doc);

    /* one byte short: refused, buffer untouched */
    {
        char *small = (char *)kvgt_alloc_poisoned(len, 9);
        char *ref = (char *)kvgt_alloc_poisoned(len, 9);
        assert_int_equal(kvg_compare_report_json(res, 3, small, len, &len2,
                                                 &diag),
                         KVG_ERR_PARAM_INVALID);
        assert_contains(diag.message, "needed");
        kvgt_assert_bytes_equal(small, ref, len, "refused report buffer");
        free(small);
        free(ref);
    }
    /* zero results: still a valid document, and nothing judged is not a
     * pass */
    assert_int_equal(kvg_compare_report_json(res, 0, buf, len + 1, &len2,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    assert_string_equal(kvgt_json_str(doc, "verdict"), "INCOMPLETE");
    kvg_json_free(doc);
    assert_int_equal(kvg_compare_report_json(NULL, 1, buf, len, &len2, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    free(buf);
}

static void test_text_report(void **state)
{
    kvg_compare_result res[3];
    size_t len = 0, len2 = 0, first_len = 0;
    char *buf, *line, *save = NULL;
    kvg_diag diag;
    int row = 0;

    (void)state;
    three_results(res);
    assert_int_equal(kvg_compare_report_text(res, 3, NULL, 0, &len, &diag),
                     KVG_OK);
    buf = (char *)kvgt_alloc_poisoned(len + 1, 10);
    assert_int_equal(kvg_compare_report_text(res, 3, buf, len + 1, &len2,
                                             &diag),
                     KVG_OK);
    assert_int_equal(strlen(buf), len);
    assert_true(strncmp(buf, "tensor ", 7) == 0);
    assert_contains(buf, "block=1 slot=3 head=1 channel=5");
    assert_contains(buf, "untouched elements that changed (first 1 of 1):");
    assert_contains(buf, "FAIL: 3 tensors, 1 passed, 2 failed, 1 untouched "
                         "element changed\n");
    assert_contains(buf, "k_cache (int8, int_abs1): FAIL: 1 untouched element "
                         "changed");
    /* the table: header and three rows of equal length (aligned columns) */
    for (line = strtok_r(buf, "\n", &save); line != NULL && row < 4;
         line = strtok_r(NULL, "\n", &save), row++) {
        if (row == 0)
            first_len = strlen(line);
        else if (strlen(line) != first_len)
            fail_msg("table row %d is %lu wide, header %lu: \"%s\"", row,
                     (unsigned long)strlen(line), (unsigned long)first_len,
                     line);
    }
    assert_int_equal(row, 4);
    free(buf);
    assert_int_equal(kvg_compare_report_text(res, 3, NULL, 0, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_table),
        cmocka_unit_test(test_fp32_metrics_by_hand),
        cmocka_unit_test(test_golden_zero),
        cmocka_unit_test(test_signed_zero),
        cmocka_unit_test(test_nonfinite_same_places),
        cmocka_unit_test(test_nonfinite_mismatch),
        cmocka_unit_test(test_all_nan),
        cmocka_unit_test(test_one_element),
        cmocka_unit_test(test_all_equal),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_int8_delta),
        cmocka_unit_test(test_int64_extremes),
        cmocka_unit_test(test_untouched_nd),
        cmocka_unit_test(test_untouched_inconsistent_golden),
        cmocka_unit_test(test_worst_coords_nz),
        cmocka_unit_test(test_worst_coords_nd_and_plain),
        cmocka_unit_test(test_worst_list_keeps_top_k),
        cmocka_unit_test(test_code_distance),
        cmocka_unit_test(test_code_nonfinite),
        cmocka_unit_test(test_code_ratio_boundary),
        cmocka_unit_test(test_float_re_boundaries),
        cmocka_unit_test(test_float_re_per_dtype),
        cmocka_unit_test(test_thousandth_boundaries),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_written_mask),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_text_report),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
