/*
 * tests/test_compare_standards.c - the precision standards of
 * kvg_compare_tensor, the NOT JUDGED verdict, the
 * bulk byte comparisons and kvg_compare_runs.
 *
 * Every expected number is worked out by hand from the definitions in
 * docs/compare.md. Values are chosen so that the arithmetic is exact
 * (powers of two, small integers times a power of two), which lets each
 * limit be hit exactly: a case on the limit and a case one step beyond it.
 * The dual-benchmark cases use goldens of 2^30, where |g| + 1e-7 rounds to
 * |g| in binary64, so every relative error is an exact multiple of 2^-23.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include "json_check.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/compare.h"

/* ---- helpers ------------------------------------------------------------- */

#define P2(e) ldexp(1.0, (e))

static kvg_tensor vec(void *data, kvg_dtype dt, int64_t n)
{
    return kvg_tensor_make(data, (size_t)n * kvg_dtype_size(dt), dt, 1, &n);
}

static void assert_dbl(double got, double want, const char *what)
{
    if (!(got == want) && !(isnan(got) && isnan(want)))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL)
        fail_msg("\"%s\" lacks \"%s\"", msg, fragment);
}

/* Compare g with a under `standard` (AUTO criterion, COMPUTE role);
 * tp optional. The result is poisoned first. */
static kvg_status judge(const kvg_tensor *g, const kvg_tensor *a,
                        const kvg_tensor *tp, kvg_compare_standard standard,
                        kvg_compare_level level, kvg_compare_result *r)
{
    kvg_compare_args args;
    kvg_diag diag;

    kvg_compare_args_init(&args);
    args.name = "t";
    args.golden = g;
    args.actual = a;
    args.third_party = tp;
    args.role = KVG_ROLE_COMPUTE;
    args.standard = standard;
    args.level = level;
    kvgt_poison(r, sizeof *r, 77);
    kvg_diag_clear(&diag);
    return kvg_compare_tensor(&args, r, &diag);
}

static void fill_f32(float *p, int n, double v)
{
    int i;
    for (i = 0; i < n; i++)
        p[i] = (float)v;
}

/* ---- names and defaults ------------------------------------------------- */

static void test_names(void **state)
{
    kvg_compare_standard s;
    kvg_compare_level l;
    kvg_compare_args a;
    (void)state;

    assert_true(kvg_compare_standard_from_name("mixed_ttk", &s));
    assert_int_equal(s, KVG_STD_MIXED_TTK);
    assert_string_equal(kvg_compare_standard_name(KVG_STD_COMMERCIAL),
                        "commercial");
    assert_false(kvg_compare_standard_from_name("Mixed", &s));
    assert_false(kvg_compare_standard_from_name(NULL, &s));
    assert_string_equal(kvg_compare_standard_name((kvg_compare_standard)9),
                        "invalid");
    assert_true(kvg_compare_level_from_name("L2", &l));
    assert_int_equal(l, KVG_LEVEL_L2);
    assert_false(kvg_compare_level_from_name("L3", &l));
    assert_string_equal(kvg_verdict_name(KVG_VERDICT_NOT_JUDGED),
                        "NOT JUDGED");
    /* the default is ops-test-kit's mixed tolerance, named with the
     * commit it was read at; the versioned name parses, another commit's
     * does not (its rule may differ) */
    assert_string_equal(kvg_compare_standard_version(KVG_STD_MIXED_TTK),
                        "mixed_ttk@3675093");
    assert_string_equal(kvg_compare_standard_version(KVG_STD_SINGLE),
                        "single@3e62966");
    assert_string_equal(
        kvg_compare_standard_version((kvg_compare_standard)9), "invalid");
    assert_true(kvg_compare_standard_from_name("mixed_ttk@3675093", &s));
    assert_int_equal(s, KVG_STD_MIXED_TTK);
    assert_true(kvg_compare_standard_from_name("single@3e62966", &s));
    assert_int_equal(s, KVG_STD_SINGLE);
    assert_false(kvg_compare_standard_from_name("mixed_ttk@03a2bfd", &s));
    kvgt_poison(&a, sizeof a, 5);
    kvg_compare_args_init(&a);
    assert_int_equal(a.standard, KVG_STD_MIXED_TTK);
    assert_int_equal(a.level, KVG_LEVEL_L1);
    assert_null(a.third_party);
}

/* ---- ULP statistics ------------------------------------------------------ */

static void test_ulp_fp32(void **state)
{
    /* ulp(1) = 2^-23, ulp(2) = 2^-22, ulp(0.5) = 2^-24, ulp(0) = 2^-149 */
    float g[6] = {1.0f, 1.0f, 2.0f, 2.0f, -0.5f, 0.0f};
    float a[6];
    kvg_tensor tg = vec(g, KVG_FP32, 6), ta = vec(a, KVG_FP32, 6);
    kvg_compare_result r;
    (void)state;

    a[0] = (float)(1.0 + P2(-23));       /* 1 ULP, above */
    a[1] = (float)(1.0 + 3 * P2(-23));   /* 3, above */
    a[2] = (float)(2.0 + 32 * P2(-22));  /* 32: on the threshold */
    a[3] = (float)(2.0 + 33 * P2(-22));  /* 33: over it */
    a[4] = (float)(-0.5 - 2 * P2(-24));  /* 2, below */
    a[5] = (float)P2(-148);              /* 2 subnormal steps, above */
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1, &r),
                     KVG_OK);
    assert_true(r.has_ulp);
    assert_dbl(r.ulp_threshold, 32.0, "fp32 ULP threshold");
    assert_dbl(r.max_ulp, 33.0, "max ULP");
    assert_dbl(r.mean_ulp, (1 + 3 + 32 + 33 + 2 + 2) / 6.0, "mean ULP");
    assert_int_equal(r.ulp_over, 1);
    assert_dbl(r.ulp_over_ratio, 1.0 / 6.0, "ULP over ratio");
    /* error balance: 5 above, 1 below */
    assert_int_equal(r.err_above, 5);
    assert_int_equal(r.err_below, 1);
    assert_dbl(r.error_balance, 4.0 / 6.0, "EB");
}

static void test_ulp_fp16_bf16(void **state)
{
    /* fp16: 1.0 = 0x3C00 (ulp 2^-10); 2^-24 = 0x0001, a subnormal whose
     * exponent is clamped at -14: ulp 2^-24. bf16: 1.0 = 0x3F80 (2^-7). */
    uint16_t g16[3] = {0x3C00, 0x3C00, 0x0001};
    uint16_t a16[3] = {0x3C01, 0x3C02, 0x0003};
    uint16_t gb[2] = {0x3F80, 0xBF80};
    uint16_t ab[2] = {0x3F81, 0xBF80};
    kvg_tensor tg = vec(g16, KVG_FP16, 3), ta = vec(a16, KVG_FP16, 3);
    kvg_compare_result r;
    (void)state;

    (void)judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1, &r);
    assert_dbl(r.ulp_threshold, 1.0, "fp16 ULP threshold");
    assert_dbl(r.max_ulp, 2.0, "fp16 max ULP");
    assert_dbl(r.mean_ulp, (1 + 2 + 2) / 3.0, "fp16 mean ULP");
    assert_int_equal(r.ulp_over, 2); /* 1 is on the threshold, not over */
    tg = vec(gb, KVG_BF16, 2);
    ta = vec(ab, KVG_BF16, 2);
    (void)judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1, &r);
    assert_dbl(r.max_ulp, 1.0, "bf16 max ULP");
    assert_int_equal(r.ulp_over, 0);
    assert_dbl(r.error_balance, 0.5, "bf16 EB: one above of two");
}

static void test_ulp_int_and_nonfinite(void **state)
{
    int8_t g[4] = {5, -3, 7, 0};
    int8_t a[4] = {6, -5, 7, 0};
    float fg[3] = {1.0f, 2.0f, 3.0f}, fa[3] = {1.0f, 2.0f, 3.0f};
    kvg_tensor tg = vec(g, KVG_INT8, 4), ta = vec(a, KVG_INT8, 4);
    kvg_compare_result r;
    (void)state;

    (void)judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1, &r);
    assert_dbl(r.max_ulp, 2.0, "int8 ULP = |delta|");
    assert_dbl(r.mean_ulp, 3.0 / 4.0, "int8 mean ULP");
    assert_int_equal(r.err_above, 1);
    assert_int_equal(r.err_below, 1);
    assert_dbl(r.error_balance, 0.0, "balanced");
    /* a NaN where the golden is finite is an ULP outlier, and no ULP
     * metric stands in for it */
    fa[1] = NAN;
    tg = vec(fg, KVG_FP32, 3);
    ta = vec(fa, KVG_FP32, 3);
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.ulp_over, 1);
    assert_int_equal(r.matched, 2);
    assert_int_equal(r.nonfinite_mismatch, 1);
}

/* ---- mixed tolerance ---------------------------------------------------- */

static void test_mixed_element_boundary(void **state)
{
    /* opbase fp32: rtol = atol = 2^-13; at g = 1: |a-g| <= 2^-12 */
    float g[2] = {1.0f, 1.0f}, a[2];
    kvg_tensor tg = vec(g, KVG_FP32, 2), ta = vec(a, KVG_FP32, 2);
    kvg_compare_result r;
    (void)state;

    a[0] = (float)(1.0 + P2(-12));               /* on the tolerance */
    a[1] = (float)(1.0 + P2(-12) + P2(-23));     /* one ULP beyond */
    (void)judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r);
    assert_dbl(r.rtol, P2(-13), "opbase fp32 rtol");
    assert_dbl(r.atol, P2(-13), "opbase fp32 atol");
    assert_dbl(r.max_abs_limit, 1e-2, "opbase fp32 cap");
    assert_dbl(r.cap_ulps, 32.0, "cap ULPs");
    assert_dbl(r.matched_ratio_limit, 0.99, "required ratio");
    assert_int_equal(r.matched, 1);
    assert_dbl(r.matched_ratio, 0.5, "matched ratio");
    assert_int_equal(r.verdict, KVG_VERDICT_FAIL);
    assert_contains(r.reason, "matched ratio 0.500000 < 0.99");
    assert_contains(r.standard_source, "mixed_tolerance_standard.md @233ee24");
}

static void test_mixed_ratio_boundary(void **state)
{
    /* 100 elements at g = 1; unmatched ones are 2^-11 off: beyond the
     * tolerance 2^-12 but below the 1e-2 cap */
    float g[100], a[100];
    kvg_tensor tg = vec(g, KVG_FP32, 100), ta = vec(a, KVG_FP32, 100);
    kvg_compare_result r;
    (void)state;

    fill_f32(g, 100, 1.0);
    fill_f32(a, 100, 1.0);
    a[7] = (float)(1.0 + P2(-11));
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r),
                     KVG_OK); /* 99 / 100 = 0.99: on the limit */
    assert_int_equal(r.matched, 99);
    assert_int_equal(r.over_cap, 0);
    a[50] = (float)(1.0 + P2(-11));
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r),
                     KVG_ERR_MISMATCH); /* 0.98 */
    assert_contains(r.reason, "matched ratio 0.980000 < 0.99");
    /* the same data under the single standard: MARE 2^-11/(1+1e-7) is
     * below 10 * 2^-13, MERE 2 * that / 100 below 2^-13: PASS */
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1, &r),
                     KVG_OK);
    assert_int_equal(r.matched, 98); /* measured, not judged */
}

static void test_mixed_cap_boundary(void **state)
{
    /* ops-test-kit's cap is one number, max(limit, 32 * eps at 1.0),
     * against max |a-g| (resolve.py MIX_TOLERANCE, mix_tolerance.py
     * @3675093). bf16 under mixed_ttk: max(1e-0, 32 * 2^-7) = 1. At
     * g = 64 (0x4280) bf16 steps by 0.5 and the tolerance is 2^-6 +
     * 2^-6 * 64 = 1.015625: 65 (0x4282) is 1 off, on the cap and
     * matched; 65.5 (0x4283) is 1.5 off, beyond the cap and unmatched,
     * 99 of 100 matched being still enough. */
    uint16_t g[100], a[100];
    float fg[100], fa[100];
    kvg_tensor tg = vec(g, KVG_BF16, 100), ta = vec(a, KVG_BF16, 100);
    kvg_tensor fgt = vec(fg, KVG_FP32, 100), fat = vec(fa, KVG_FP32, 100);
    kvg_compare_result r;
    int i;
    (void)state;

    for (i = 0; i < 100; i++)
        g[i] = a[i] = 0x4280;
    a[3] = 0x4282;
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED_TTK, KVG_LEVEL_L1,
                           &r),
                     KVG_OK);
    assert_dbl(r.max_abs_limit, 1.0, "ttk bf16 cap");
    assert_int_equal(r.matched, 100);
    assert_int_equal(r.over_cap, 0);
    a[3] = 0x4283;
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED_TTK, KVG_LEVEL_L1,
                           &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.matched, 99); /* 0.99: the ratio alone passes */
    assert_int_equal(r.over_cap, 1);
    assert_contains(r.reason, "max |a-g| 1.5 > cap 1 = max(limit, 32 eps): "
                              "1 element beyond it (first at index 3)");
    /* 1.5 at 64 is 3 bf16 ULPs: a per-element "beyond the limit AND
     * beyond 32 ULP" reading would have passed it */
    assert_dbl(r.max_ulp, 3.0, "1.5 off at 64 is 3 ULP");
    /* opbase's table read the same way: bf16 max(1e-1, 32 * 2^-7) =
     * 0.25, so 0.5 off (64.5, 0x4281) fails there */
    a[3] = 0x4281;
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r),
                     KVG_ERR_MISMATCH);
    assert_dbl(r.max_abs_limit, 0.25, "opbase bf16 cap");
    assert_int_equal(r.over_cap, 1);
    /* fp32 under mixed_ttk: the cap is 1e-2 (32 * 2^-23 is far below).
     * At g = 2^20, 32 ULP = 4 off is matched (tolerance 2^-16 + 2^-10 *
     * 2^20 = 1024 + 2^-16) but beyond the cap: FAIL, where the per-element
     * reading passed it. */
    fill_f32(fg, 100, P2(20));
    fill_f32(fa, 100, P2(20));
    fa[3] = (float)(P2(20) + 32 * P2(-3));
    assert_int_equal(judge(&fgt, &fat, NULL, KVG_STD_MIXED_TTK,
                           KVG_LEVEL_L1, &r),
                     KVG_ERR_MISMATCH);
    assert_dbl(r.max_abs_limit, 1e-2, "ttk fp32 cap");
    assert_int_equal(r.matched, 100);
    assert_int_equal(r.over_cap, 1);
    assert_dbl(r.max_ulp, 32.0, "32 ULP");
    /* ops-test-kit's own verdict agrees */
    assert_int_equal(r.ttk_verdict, KVG_VERDICT_FAIL);
    assert_dbl(r.ttk_max_abs_error, 4.0, "ttk max_abs_error");
}

static void test_mixed_cap_fp8(void **state)
{
    /* fp8 e4m3fn under mixed_ttk: max(1e-0, 32 * 2^-3) = 4, so the
     * 32-eps term is the cap. At g = 16 (0x58) e4m3fn steps by 2 and the
     * tolerance is 2^-4 + 2^-2 * 16 = 4.0625: 20 (0x5A) is 4 off, on the
     * cap and matched; 22 (0x5B) is 6 off, beyond both. e5m2: max(1e-1,
     * 32 * 2^-2) = 8; at g = 16 (0x4C) it steps by 4 and the tolerance is
     * 2^-3 + 2^-1 * 16 = 8.125: 24 (0x4E) is 8 off (inside), 28 (0x4F)
     * 12 off (outside). */
    static const struct {
        kvg_dtype dt;
        unsigned char g, in, out;
        double cap;
    } rows[] = {{KVG_FP8_E4M3FN, 0x58, 0x5A, 0x5B, 4.0},
                {KVG_FP8_E5M2, 0x4C, 0x4E, 0x4F, 8.0}};
    unsigned char g[100], a[100];
    kvg_compare_result r;
    size_t k;
    (void)state;

    for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        kvg_tensor tg = vec(g, rows[k].dt, 100), ta = vec(a, rows[k].dt, 100);
        memset(g, rows[k].g, sizeof g);
        memset(a, rows[k].g, sizeof a);
        a[40] = rows[k].in;
        assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED_TTK,
                               KVG_LEVEL_L1, &r),
                         KVG_OK);
        assert_dbl(r.max_abs_limit, rows[k].cap, "fp8 cap");
        assert_int_equal(r.matched, 100);
        a[40] = rows[k].out;
        assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED_TTK,
                               KVG_LEVEL_L1, &r),
                         KVG_ERR_MISMATCH);
        assert_int_equal(r.matched, 99);
        assert_int_equal(r.over_cap, 1);
    }
}

static void test_mixed_ttk_table(void **state)
{
    /* fp16 at 1.0, 2^-8 off (0x3C04): ttk rtol = atol = 2^-9 gives a
     * tolerance of exactly 2^-8 (matched); opbase's 2^-10 gives 2^-9 */
    uint16_t g[1] = {0x3C00}, a[1] = {0x3C04};
    kvg_tensor tg = vec(g, KVG_FP16, 1), ta = vec(a, KVG_FP16, 1);
    kvg_compare_result r;
    (void)state;

    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED_TTK, KVG_LEVEL_L1,
                           &r),
                     KVG_OK);
    assert_dbl(r.rtol, P2(-9), "ttk fp16 rtol");
    assert_int_equal(r.matched, 1);
    assert_contains(r.standard_source, "Precision_Comparison.md @3675093");
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_MIXED, KVG_LEVEL_L1, &r),
                     KVG_ERR_MISMATCH);
    assert_dbl(r.rtol, P2(-10), "opbase fp16 rtol");
    assert_int_equal(r.matched, 0);
}

static void test_mixed_tables_per_dtype(void **state)
{
    /* read back the tables through one-element comparisons */
    static const struct {
        kvg_compare_standard s;
        kvg_dtype dt;
        int rtol_e, atol_e;
        double cap;
    } rows[] = {
        /* caps: max(the table's limit, 32 * eps at 1.0) with eps fp16
         * 2^-10, bf16 2^-7, fp32 2^-23, e4m3fn 2^-3, e5m2 2^-2 */
        {KVG_STD_MIXED, KVG_FP16, -10, -10, 1e-1},
        {KVG_STD_MIXED, KVG_BF16, -7, -7, 0.25},
        {KVG_STD_MIXED, KVG_FP32, -13, -13, 1e-2},
        {KVG_STD_MIXED, KVG_FP8_E4M3FN, -3, -3, 4.0},
        {KVG_STD_MIXED, KVG_FP8_E5M2, -2, -2, 8.0},
        {KVG_STD_MIXED_TTK, KVG_FP16, -9, -9, 1e-1},
        {KVG_STD_MIXED_TTK, KVG_BF16, -6, -6, 1.0},
        {KVG_STD_MIXED_TTK, KVG_FP32, -10, -16, 1e-2},
        {KVG_STD_MIXED_TTK, KVG_FP8_E4M3FN, -2, -4, 4.0},
        {KVG_STD_MIXED_TTK, KVG_FP8_E5M2, -1, -3, 8.0},
    };
    unsigned char buf[8] = {0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38};
    kvg_compare_result r;
    size_t i;
    (void)state;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kvg_tensor t = vec(buf, rows[i].dt, 1);
        assert_int_equal(judge(&t, &t, NULL, rows[i].s, KVG_LEVEL_L1, &r),
                         KVG_OK);
        assert_dbl(r.rtol, P2(rows[i].rtol_e), "rtol");
        assert_dbl(r.atol, P2(rows[i].atol_e), "atol");
        assert_dbl(r.max_abs_limit, rows[i].cap, "cap");
    }
}

static void test_mixed_refusals(void **state)
{
    unsigned char h[2] = {0x10, 0x18};
    kvg_tensor t = vec(h, KVG_HIF8, 2);
    kvg_compare_args args;
    kvg_compare_result r, before;
    kvg_diag diag;
    (void)state;

    /* hif8 has no mixed table: float_re under mixed needs a threshold */
    kvg_compare_args_init(&args);
    args.name = "h";
    args.golden = args.actual = &t;
    args.criterion = KVG_CRIT_FLOAT_RE;
    args.standard = KVG_STD_MIXED;
    kvgt_poison(&r, sizeof r, 3);
    memcpy(&before, &r, sizeof r);
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "standard mixed has no rtol/atol for hif8");
    kvgt_assert_bytes_equal(&r, &before, sizeof r, "refused result");
    args.threshold = 0.25; /* rtol = atol = 0.25, no cap */
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag), KVG_OK);
    assert_dbl(r.rtol, 0.25, "given rtol");
    assert_true(isinf(r.max_abs_limit));
    /* commercial has no small-value threshold for hif8 */
    args.standard = KVG_STD_COMMERCIAL;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "no small-value threshold for hif8");
    /* unknown standard and level */
    args.standard = (kvg_compare_standard)7;
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "standard 7 is not a kvg_compare_standard");
    args.standard = KVG_STD_SINGLE;
    args.level = (kvg_compare_level)3;
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "level 3 is not L0, L1 or L2");
}

/* ---- the commercial standard ------------------------------------------- */

#define N_DUAL 16
#define G30 1073741824.0 /* 2^30: rel = d / 2^30 exactly, +1e-7 vanishes */
#define STEP 128.0       /* the fp32 ULP at 2^30; rel of one step 2^-23 */

/* All goldens 2^30; the third party and the NPU m[i] steps off. */
static void dual(const int *m_tp, const int *m_npu, kvg_compare_level level,
                 kvg_compare_result *r, kvg_status want)
{
    float g[N_DUAL], tp[N_DUAL], a[N_DUAL];
    kvg_tensor tg = vec(g, KVG_FP32, N_DUAL), tt = vec(tp, KVG_FP32, N_DUAL),
               ta = vec(a, KVG_FP32, N_DUAL);
    int i;

    for (i = 0; i < N_DUAL; i++) {
        g[i] = (float)G30;
        tp[i] = (float)(G30 + m_tp[i] * STEP);
        a[i] = (float)(G30 + m_npu[i] * STEP);
    }
    assert_int_equal(judge(&tg, &ta, &tt, KVG_STD_COMMERCIAL, level, r),
                     want);
}

static void test_commercial_mare_ratio(void **state)
{
    /* third party 512 steps everywhere: rel 2^-14 = the fp32 small value,
     * so no floor; NPU 5 * 512 steps once: MARE ratio 5 (L1 limit),
     * MERE ratio 5/16, RMSE ratio 5/4 */
    int tp[N_DUAL], npu[N_DUAL] = {0};
    kvg_compare_result r;
    int i;
    (void)state;

    for (i = 0; i < N_DUAL; i++)
        tp[i] = 512;
    npu[4] = 2560;
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_OK);
    assert_true(r.has_third_party);
    assert_int_equal(r.normal_count, N_DUAL);
    assert_dbl(r.tp_mare, P2(-14), "third-party MARE");
    assert_dbl(r.tp_mere, P2(-14), "third-party MERE");
    assert_dbl(r.tp_rmse, 512 * STEP, "third-party RMSE");
    assert_dbl(r.npu_mare, 2560 * P2(-23), "NPU MARE");
    assert_dbl(r.mare_ratio, 5.0, "MARE ratio");
    assert_dbl(r.mere_ratio, 5.0 / 16.0, "MERE ratio");
    assert_dbl(r.rmse_ratio, 1.25, "RMSE ratio");
    assert_dbl(r.mare_ratio_limit, 5.0, "L1 MARE limit");
    assert_dbl(r.mere_ratio_limit, 1.5, "L1 MERE limit");
    assert_dbl(r.rmse_ratio_limit, 1.5, "L1 RMSE limit");
    assert_contains(r.standard_source, "commercial_standard.md @3e62966");
    npu[4] = 2561; /* one step beyond */
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_ERR_MISMATCH);
    assert_contains(r.reason, "MARE ratio 5.002 > 5 (L1)");
    assert_null(strstr(r.reason, "RMSE"));
    /* the same NPU at L0 (10 / 2 / 2) passes, at L2 (2 / 1.2 / 1.2) not */
    dual(tp, npu, KVG_LEVEL_L0, &r, KVG_OK);
    assert_dbl(r.mare_ratio_limit, 10.0, "L0 MARE limit");
    assert_dbl(r.rmse_ratio_limit, 2.0, "L0 RMSE limit");
    dual(tp, npu, KVG_LEVEL_L2, &r, KVG_ERR_MISMATCH);
    assert_dbl(r.mare_ratio_limit, 2.0, "L2 MARE limit");
    assert_dbl(r.mere_ratio_limit, 1.2, "L2 MERE limit");
    assert_dbl(r.rmse_ratio_limit, 1.2, "L2 RMSE limit");
}

static void test_commercial_rmse_ratio(void **state)
{
    /* NPU 1536 steps on 4 of 16: RMSE 768 steps, ratio 1.5 (on the L1
     * limit), MERE ratio 0.75, MARE ratio 3 */
    int tp[N_DUAL], npu[N_DUAL] = {0};
    kvg_compare_result r;
    int i;
    (void)state;

    for (i = 0; i < N_DUAL; i++)
        tp[i] = 512;
    for (i = 0; i < 4; i++)
        npu[3 * i] = 1536;
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_OK);
    assert_dbl(r.rmse_ratio, 1.5, "RMSE ratio");
    assert_dbl(r.mere_ratio, 0.75, "MERE ratio");
    assert_dbl(r.mare_ratio, 3.0, "MARE ratio");
    npu[0] = 1537;
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_ERR_MISMATCH);
    assert_contains(r.reason, "RMSE ratio");
    assert_null(strstr(r.reason, "MERE"));
    assert_null(strstr(r.reason, "MARE"));
}

static void test_commercial_mere_ratio(void **state)
{
    /* third party 2048 steps on 4 of 16: MERE 512 steps (2^-14), RMSE
     * 1024 steps, MARE 2048; NPU 768 everywhere: MERE ratio 1.5 (on the
     * L1 limit), RMSE ratio 0.75, MARE ratio 0.375 */
    int tp[N_DUAL] = {0}, npu[N_DUAL];
    kvg_compare_result r;
    int i;
    (void)state;

    for (i = 0; i < 4; i++)
        tp[4 * i + 1] = 2048;
    for (i = 0; i < N_DUAL; i++)
        npu[i] = 768;
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_OK);
    assert_dbl(r.mere_ratio, 1.5, "MERE ratio");
    assert_dbl(r.rmse_ratio, 0.75, "RMSE ratio");
    assert_dbl(r.mare_ratio, 0.375, "MARE ratio");
    for (i = 0; i < N_DUAL; i++)
        npu[i] = 769;
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_ERR_MISMATCH);
    assert_contains(r.reason, "MERE ratio");
    assert_null(strstr(r.reason, "RMSE"));
    assert_null(strstr(r.reason, "MARE"));
}

static void test_commercial_ratio_floor(void **state)
{
    /* a third party better than the small value: the denominator is the
     * small value 2^-14 (512 steps) */
    int tp[N_DUAL] = {0}, npu[N_DUAL] = {0};
    kvg_compare_result r;
    (void)state;

    tp[0] = 1;
    npu[2] = 1024; /* MARE 2^-13: ratio 2^-13 / 2^-14 = 2 */
    dual(tp, npu, KVG_LEVEL_L1, &r, KVG_ERR_MISMATCH);
    assert_dbl(r.mare_ratio, 2.0, "MARE ratio over the floor");
    assert_dbl(r.mere_ratio, 0.125, "MERE ratio over the floor");
    /* RMSE is absolute: 256 steps against the third party's 128 / 4 = 32,
     * which is far above the floor: ratio 1024 */
    assert_dbl(r.rmse_ratio, 1024.0, "RMSE ratio");
    assert_contains(r.reason, "RMSE ratio 1024 > 1.5");
    assert_null(strstr(r.reason, "MARE"));
    /* both exact: ratio 0 */
    npu[2] = 0;
    dual(tp, npu, KVG_LEVEL_L2, &r, KVG_OK);
    assert_dbl(r.mare_ratio, 0.0, "exact NPU");
}

static void test_commercial_small_values(void **state)
{
    /* fp32: small value 2^-14, error 2^-30. Goldens 2^-20 (small) and one
     * exactly 2^-14 (normal, not small). */
    float g[6], tp[6], a[6];
    kvg_tensor tg = vec(g, KVG_FP32, 6), tt = vec(tp, KVG_FP32, 6),
               ta = vec(a, KVG_FP32, 6);
    kvg_compare_result r;
    double e = P2(-30), u = P2(-43); /* ulp at 2^-20 */
    int i;
    (void)state;

    for (i = 0; i < 6; i++)
        g[i] = tp[i] = a[i] = (float)P2(-20);
    g[5] = tp[5] = a[5] = (float)P2(-14);
    tp[0] = (float)(P2(-20) + e + u);  /* third party: 1 error */
    a[0] = (float)(P2(-20) + e);       /* exactly the error: not counted */
    a[1] = (float)(P2(-20) + e + u);   /* counted */
    a[2] = (float)(P2(-20) - e - u);   /* counted */
    assert_int_equal(judge(&tg, &ta, &tt, KVG_STD_COMMERCIAL, KVG_LEVEL_L1,
                           &r),
                     KVG_OK);
    assert_dbl(r.small_value, P2(-14), "fp32 small value");
    assert_dbl(r.small_error, P2(-30), "fp32 small error");
    assert_int_equal(r.small_count, 5);
    assert_int_equal(r.normal_count, 1);
    assert_int_equal(r.small_err_npu, 2);
    assert_int_equal(r.small_err_tp, 1);
    assert_dbl(r.small_err_ratio, 2.0, "on the limit");
    a[3] = (float)(P2(-20) + 2 * e);
    assert_int_equal(judge(&tg, &ta, &tt, KVG_STD_COMMERCIAL, KVG_LEVEL_L1,
                           &r),
                     KVG_ERR_MISMATCH);
    assert_dbl(r.small_err_ratio, 3.0, "beyond");
    assert_contains(r.reason, "small-value errors 3 vs third party 1");
    /* a third party without small errors counts as 1 */
    tp[0] = (float)P2(-20);
    a[3] = (float)P2(-20);
    assert_int_equal(judge(&tg, &ta, &tt, KVG_STD_COMMERCIAL, KVG_LEVEL_L1,
                           &r),
                     KVG_OK);
    assert_int_equal(r.small_err_tp, 0);
    assert_dbl(r.small_err_ratio, 2.0, "2 / max(0, 1)");
}

static void test_commercial_bf16_tables(void **state)
{
    uint16_t b[2] = {0x3F80, 0x4000};
    kvg_tensor t = vec(b, KVG_BF16, 2);
    kvg_compare_result r;
    (void)state;

    assert_int_equal(judge(&t, &t, &t, KVG_STD_COMMERCIAL, KVG_LEVEL_L0, &r),
                     KVG_OK);
    assert_dbl(r.small_value, P2(-8), "bf16 small value");
    assert_dbl(r.small_error, P2(-16), "bf16 small error");
    assert_dbl(r.mare_ratio, 0.0, "identical");
}

static void test_commercial_without_third_party(void **state)
{
    float g[2] = {1.0f, 2.0f};
    int8_t q[2] = {3, 4}, q2[2] = {4, 4};
    kvg_tensor tg = vec(g, KVG_FP32, 2), tq = vec(q, KVG_INT8, 2),
               tq2 = vec(q2, KVG_INT8, 2);
    kvg_compare_summary s;
    kvg_compare_result r[2];
    kvg_compare_args args;
    kvg_diag diag;
    (void)state;

    assert_int_equal(judge(&tg, &tg, NULL, KVG_STD_COMMERCIAL, KVG_LEVEL_L1,
                           &r[0]),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r[0].verdict, KVG_VERDICT_NOT_JUDGED);
    assert_contains(r[0].reason, "needs a third-party result");
    /* integer quantisation is single benchmark: judged without one */
    kvg_compare_args_init(&args);
    args.name = "q";
    args.golden = &tq;
    args.actual = &tq2;
    args.standard = KVG_STD_COMMERCIAL;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&args, &r[1], &diag), KVG_OK);
    assert_int_equal(r[1].criterion, KVG_CRIT_INT_ABS1);
    kvg_compare_summary_init(&s);
    kvg_compare_summary_add(&s, &r[0]);
    kvg_compare_summary_add(&s, &r[1]);
    assert_int_equal(s.not_judged, 1);
    assert_int_equal(s.passed, 1);
    assert_int_equal(s.status, KVG_ERR_MISMATCH);
    assert_string_equal(kvg_compare_summary_verdict(&s), "INCOMPLETE");
}

static void test_third_party_checked(void **state)
{
    float g[2] = {1.0f, 2.0f}, t3[3] = {1.0f, 2.0f, 3.0f};
    uint16_t h[2] = {0x3C00, 0x4000};
    kvg_tensor tg = vec(g, KVG_FP32, 2), tbad = vec(t3, KVG_FP32, 3),
               th = vec(h, KVG_FP16, 2);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    (void)state;

    kvg_compare_args_init(&args);
    args.name = "q_out";
    args.golden = args.actual = &tg;
    args.third_party = &tbad;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(diag.tensor, "q_out.third_party");
    assert_contains(diag.message, "dim 0 must be 2");
    args.third_party = &th;
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "dtype must be fp32");
}

/* ---- not judged, summary ------------------------------------------------ */

static void test_not_judged_result(void **state)
{
    kvg_compare_result r[3];
    kvg_compare_summary s;
    float g[1] = {1.0f}, a[1] = {2.0f};
    kvg_tensor tg = vec(g, KVG_FP32, 1), ta = vec(a, KVG_FP32, 1);
    (void)state;

    kvgt_poison(r, sizeof r, 9);
    assert_int_equal(kvg_compare_result_not_judged(&r[0], "k_cache",
                                                   KVG_BF16,
                                                   "missing: no k_cache.npy"),
                     KVG_OK);
    assert_int_equal(r[0].verdict, KVG_VERDICT_NOT_JUDGED);
    assert_string_equal(r[0].name, "k_cache");
    assert_string_equal(r[0].reason, "missing: no k_cache.npy");
    assert_int_equal(r[0].dtype, KVG_BF16);
    assert_int_equal(r[0].written, 0);
    assert_int_equal(r[0].worst_count, 0);
    assert_true(isnan(r[0].mere) && isnan(r[0].max_ulp) &&
                isnan(r[0].error_balance) && isnan(r[0].rtol));
    assert_int_equal(kvg_compare_result_not_judged(NULL, "x", KVG_BF16, "y"),
                     KVG_ERR_PARAM_NULLPTR);
    kvg_compare_summary_init(&s);
    assert_string_equal(kvg_compare_summary_verdict(&s), "INCOMPLETE");
    kvg_compare_summary_add(&s, &r[0]);
    assert_string_equal(kvg_compare_summary_verdict(&s), "INCOMPLETE");
    /* a failure outranks not judged */
    assert_int_equal(judge(&tg, &ta, NULL, KVG_STD_SINGLE, KVG_LEVEL_L1,
                           &r[1]),
                     KVG_ERR_MISMATCH);
    kvg_compare_summary_add(&s, &r[1]);
    assert_string_equal(kvg_compare_summary_verdict(&s), "FAIL");
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.not_judged, 1);
    assert_int_equal(s.passed, 0);
}

static void test_reports_carry_standards(void **state)
{
    kvg_compare_result r[2];
    float g[2] = {1.0f, 2.0f}, a[2] = {1.0f, 2.0f};
    kvg_tensor tg = vec(g, KVG_FP32, 2), ta = vec(a, KVG_FP32, 2);
    char buf[65536];
    size_t len;
    kvg_diag diag;
    kvg_json *doc;
    const kvg_json *res;
    (void)state;

    (void)judge(&tg, &ta, &ta, KVG_STD_COMMERCIAL, KVG_LEVEL_L2, &r[0]);
    (void)kvg_compare_result_not_judged(&r[1], "k_rope", KVG_BF16,
                                        "dangling link: npu/k_rope.npy");
    assert_int_equal(kvg_compare_report_json(r, 2, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    assert_string_equal(kvgt_json_str(doc, "verdict"), "INCOMPLETE");
    assert_dbl(kvgt_json_num(doc, "not_judged"), 1.0, "JSON not_judged");
    res = kvg_json_at(kvg_json_get(doc, "results"), 0);
    assert_string_equal(kvgt_json_str(res, "standard_name"), "commercial");
    assert_string_equal(kvgt_json_str(res, "level"), "L2");
    assert_non_null(strstr(kvgt_json_str(res, "standard_source"), "@3e62966"));
    assert_dbl(kvgt_json_num(kvg_json_get(res, "ulp"), "max"), 0.0, "JSON ULP max");
    assert_dbl(kvgt_json_num(kvg_json_get(res, "dual_benchmark"), "mare_ratio_max"),
               2.0, "JSON L2 MARE limit");
    assert_true(kvg_json_is(
        kvg_json_get(kvg_json_get(res, "error_balance"), "eb"),
        KVG_JSON_NUMBER));
    res = kvg_json_at(kvg_json_get(doc, "results"), 1);
    assert_string_equal(kvgt_json_str(res, "verdict"), "NOT JUDGED");
    assert_string_equal(kvgt_json_str(res, "reason"),
                        "dangling link: npu/k_rope.npy");
    assert_true(kvg_json_is(kvg_json_get(res, "mere"), KVG_JSON_NULL));
    kvg_json_free(doc);
    assert_int_equal(kvg_compare_report_text(r, 2, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "t: commercial, float_re: L2: MARE/MERE/RMSE ratio "
                         "<= 2/1.2/1.2");
    assert_contains(buf, "NOT JUDGED: k_rope: dangling link");
    assert_contains(buf, "INCOMPLETE: 2 tensors, 1 passed, 0 failed, 1 not "
                         "judged");
}

/* ---- ops-test-kit's rule as the default ---------------------------------- */

/* The args' defaults except golden, actual, role (and a written mask with
 * initial contents when given); the result is poisoned first. */
static kvg_status judge_default(const kvg_tensor *g, const kvg_tensor *a,
                                kvg_compare_role role,
                                const kvg_tensor *init,
                                const unsigned char *mask,
                                kvg_compare_result *r)
{
    kvg_compare_args args;
    kvg_diag diag;

    kvg_compare_args_init(&args);
    args.name = "c";
    args.golden = g;
    args.actual = a;
    args.role = role;
    if (mask != NULL) {
        args.initial = init;
        args.written = mask;
        args.written_count = (size_t)g->shape[0];
    }
    kvgt_poison(r, sizeof *r, 78);
    kvg_diag_clear(&diag);
    return kvg_compare_tensor(&args, r, &diag);
}

static void test_default_fp8_routing(void **state)
{
    /* ops-test-kit resolve.py @3675093 sends only hifloat8 to requant;
     * fp8 e4m3fn / e5m2 take the float rule. A quantised e4m3fn cache of
     * 16s (0x58) with one 20 (0x5A), two codes up: as a float, 4 off is
     * within the tolerance 4.0625 and the cap 4 (PASS); by code distance
     * 1 mismatch in 100 is beyond 0.001 (FAIL, single's routing). */
    unsigned char g[100], a[100];
    unsigned char h[100], ha[100];
    kvg_tensor tg = vec(g, KVG_FP8_E4M3FN, 100);
    kvg_tensor ta = vec(a, KVG_FP8_E4M3FN, 100);
    kvg_tensor th = vec(h, KVG_HIF8, 100), tha = vec(ha, KVG_HIF8, 100);
    kvg_compare_result r;
    kvg_compare_args args;
    kvg_diag diag;
    (void)state;

    memset(g, 0x58, sizeof g);
    memset(a, 0x58, sizeof a);
    a[17] = 0x5A;
    assert_int_equal(judge_default(&tg, &ta, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r),
                     KVG_OK);
    assert_int_equal(r.standard_id, KVG_STD_MIXED_TTK);
    assert_string_equal(r.standard_version, "mixed_ttk@3675093");
    assert_int_equal(r.criterion, KVG_CRIT_FLOAT_RE);
    assert_int_equal(r.matched, 100);
    assert_int_equal(r.dist_over1, 1); /* still measured */
    assert_int_equal(judge_default(&tg, &ta, KVG_ROLE_QUANT, NULL, NULL, &r),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_FLOAT_RE);
    /* a copy stays bit for bit */
    assert_int_equal(judge_default(&tg, &ta, KVG_ROLE_COPY, NULL, NULL, &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_BITWISE);
    /* --standard single keeps today's routing and verdict */
    kvg_compare_args_init(&args);
    args.golden = &tg;
    args.actual = &ta;
    args.standard = KVG_STD_SINGLE;
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
    assert_contains(r.reason, "1 codes more than 1 apart");
    /* e5m2 the same way; hif8 stays on the code distance */
    assert_int_equal(kvg_compare_auto_criterion_for(KVG_FP8_E5M2,
                                                    KVG_ROLE_DEFAULT,
                                                    KVG_STD_MIXED_TTK),
                     KVG_CRIT_FLOAT_RE);
    assert_int_equal(kvg_compare_auto_criterion_for(KVG_FP8_E5M2,
                                                    KVG_ROLE_DEFAULT,
                                                    KVG_STD_SINGLE),
                     KVG_CRIT_CODE_DIST);
    assert_int_equal(kvg_compare_auto_criterion_for(KVG_FP8_E4M3FN,
                                                    KVG_ROLE_DEFAULT,
                                                    KVG_STD_MIXED),
                     KVG_CRIT_CODE_DIST);
    memset(h, 0x10, sizeof h); /* HiF8 2.0 */
    memset(ha, 0x10, sizeof ha);
    assert_int_equal(judge_default(&th, &tha, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r),
                     KVG_OK);
    assert_int_equal(r.criterion, KVG_CRIT_CODE_DIST);
}

/* One fp32 position under the dual benchmark with a third party; the
 * other three elements are exact in both. */
static kvg_status special_case(float g0, float a0, float tp0,
                               kvg_compare_standard standard,
                               kvg_compare_result *r)
{
    float g[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    float tp[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    kvg_tensor tg = vec(g, KVG_FP32, 4), ta = vec(a, KVG_FP32, 4),
               tt = vec(tp, KVG_FP32, 4);

    g[2] = g0;
    a[2] = a0;
    tp[2] = tp0;
    return judge(&tg, &ta, &tt, standard, KVG_LEVEL_L1, r);
}

static void test_cross_check_special_values(void **state)
{
    /* ops-test-kit cross_check.py @1d360ca _check_special: a position
     * where golden, NPU or third party is NaN/inf passes only if the NPU
     * equals the third party, or the golden is NaN/inf and the NPU
     * equals it. */
    const float nan = NAN, inf = (float)HUGE_VAL;
    kvg_compare_result r;
    (void)state;

    /* NPU = third party = NaN where the golden is 3: passes */
    assert_int_equal(special_case(3.0f, nan, nan, KVG_STD_COMMERCIAL, &r),
                     KVG_OK);
    assert_true(r.special_by_third_party);
    assert_int_equal(r.tp_special_passed, 1);
    assert_int_equal(r.nonfinite_mismatch, 0);
    /* ... but not under the other standards, where the third party is
     * measured, not judged */
    assert_int_equal(special_case(3.0f, nan, nan, KVG_STD_MIXED_TTK, &r),
                     KVG_ERR_MISMATCH);
    assert_false(r.special_by_third_party);
    assert_int_equal(r.nonfinite_mismatch, 1);
    /* NPU NaN, third party finite: fails */
    assert_int_equal(special_case(3.0f, nan, 3.0f, KVG_STD_COMMERCIAL, &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 1);
    assert_contains(r.reason, "1 NaN/inf position where the NPU equals "
                              "neither the third party nor a NaN/inf "
                              "golden (cross_check; first at index 2)");
    /* golden NaN, NPU NaN, third party finite: passes by the golden */
    assert_int_equal(special_case(nan, nan, 3.0f, KVG_STD_COMMERCIAL, &r),
                     KVG_OK);
    assert_int_equal(r.nan_matched, 1);
    assert_int_equal(r.tp_special_passed, 0);
    /* golden +inf, NPU +inf, third party NaN: passes by the golden */
    assert_int_equal(special_case(inf, inf, nan, KVG_STD_COMMERCIAL, &r),
                     KVG_OK);
    assert_int_equal(r.inf_matched, 1);
    /* golden +inf, NPU -inf, third party +inf: fails */
    assert_int_equal(special_case(inf, -inf, inf, KVG_STD_COMMERCIAL, &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 1);
    /* golden NaN, NPU 5 = third party 5: passes by the third party */
    assert_int_equal(special_case(nan, 5.0f, 5.0f, KVG_STD_COMMERCIAL, &r),
                     KVG_OK);
    assert_int_equal(r.tp_special_passed, 1);
    /* golden NaN, NPU 5, third party 6: fails */
    assert_int_equal(special_case(nan, 5.0f, 6.0f, KVG_STD_COMMERCIAL, &r),
                     KVG_ERR_MISMATCH);
    /* NPU +inf = third party +inf where the golden is 3: passes; a
     * third party of -inf does not excuse it */
    assert_int_equal(special_case(3.0f, inf, inf, KVG_STD_COMMERCIAL, &r),
                     KVG_OK);
    assert_int_equal(special_case(3.0f, inf, -inf, KVG_STD_COMMERCIAL, &r),
                     KVG_ERR_MISMATCH);
    /* only the third party is NaN, golden and NPU both 3: the position
     * is special and the NPU equals neither a NaN third party nor a
     * NaN/inf golden, so cross_check fails it */
    assert_int_equal(special_case(3.0f, 3.0f, nan, KVG_STD_COMMERCIAL, &r),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r.nonfinite_mismatch, 1);
    assert_int_equal(r.compared, 4); /* the finite pair is still measured */
    assert_int_equal(r.tp_nonfinite_mismatch, 1);
}

static void test_ops_test_kit_would_say(void **state)
{
    /* 1. The whole-tensor denominator. 1000 fp16 cache elements, 5
     * written, each 1.0625 (0x3C40) where the golden is 1.0: beyond the
     * tolerance 2^-9 + 2^-9 = 2^-8, within the cap 0.1. kvgold: 0 of 5
     * written matched, FAIL. ops-test-kit counts the 995 untouched ones:
     * 995 / 1000 = 0.995 >= 0.99 and max |a-g| 0.0625 <= 0.1, PASS. */
    enum { N = 1000 };
    uint16_t g[N], a[N], init[N];
    unsigned char mask[N];
    unsigned char h[N], ha[N];
    uint16_t cg[2] = {0x7E01, 0x3C00}, ca[2] = {0x7E00, 0x3C00};
    int8_t ig[4] = {5, 6, 7, 8}, ia[4] = {5, 7, 7, 8};
    kvg_tensor tg = vec(g, KVG_FP16, N), ta = vec(a, KVG_FP16, N),
               ti = vec(init, KVG_FP16, N);
    kvg_tensor th = vec(h, KVG_HIF8, N), tha = vec(ha, KVG_HIF8, N);
    kvg_tensor tcg = vec(cg, KVG_FP16, 2), tca = vec(ca, KVG_FP16, 2);
    kvg_tensor tig = vec(ig, KVG_INT8, 4), tia = vec(ia, KVG_INT8, 4);
    kvg_compare_result r[4];
    char buf[65536];
    size_t len;
    kvg_diag diag;
    kvg_json *doc;
    const kvg_json *res, *ttk;
    int i;
    (void)state;

    for (i = 0; i < N; i++) {
        init[i] = g[i] = a[i] = (uint16_t)(0x3800 + (i % 64)); /* ~0.5 */
        mask[i] = (unsigned char)(i % 200 == 0);
        if (mask[i]) {
            g[i] = 0x3C00;
            a[i] = 0x3C40;
        }
    }
    assert_int_equal(judge_default(&tg, &ta, KVG_ROLE_COMPUTE, &ti, mask,
                                   &r[0]),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r[0].written, 5);
    assert_int_equal(r[0].matched, 0);
    assert_string_equal(r[0].ttk_rule, "mix_tolerance");
    assert_int_equal(r[0].ttk_verdict, KVG_VERDICT_PASS);
    assert_int_equal(r[0].ttk_elements, N);
    assert_int_equal(r[0].ttk_matched, 995);
    assert_dbl(r[0].ttk_matched_ratio, 0.995, "ttk matched ratio");
    assert_dbl(r[0].ttk_max_abs_error, 0.0625, "ttk max |a-g|");
    assert_dbl(r[0].ttk_max_abs_limit, 0.1, "ttk fp16 cap");

    /* 2. HiF8 viewed as int8: +2.0 (0x10) against -2.0 (0x90), twice in
     * 1000. The int8 difference -112 - 16 = -128 wraps in int8 and np.abs
     * leaves -128, which is never > 1: ops-test-kit's requant counts no
     * mismatch. kvgold's value line puts them far apart, and 2 in 1000 is
     * beyond 0.001: FAIL. */
    memset(h, 0x10, sizeof h);
    memset(ha, 0x10, sizeof ha);
    ha[300] = ha[301] = 0x90;
    assert_int_equal(judge_default(&th, &tha, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r[1]),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r[1].dist_over1, 2);
    assert_string_equal(r[1].ttk_rule, "requant");
    assert_int_equal(r[1].ttk_mismatched, 0);
    assert_int_equal(r[1].ttk_verdict, KVG_VERDICT_PASS);
    /* two codes apart in int8 (0x10 vs 0x12) is a mismatch for both.
     * 1 in 1000 is within kvgold's 0.001 * written; requant computes
     * 1 - 999/1000 in binary64, which is 0.0010000000000000009 > 0.001,
     * so it fails exactly one mismatch in a thousand */
    ha[301] = 0x10;
    ha[300] = 0x12;
    assert_int_equal(judge_default(&th, &tha, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r[1]),
                     KVG_OK);
    assert_int_equal(r[1].ttk_mismatched, 1);
    assert_true(1.0 - 999.0 / 1000.0 > 0.001);
    assert_int_equal(r[1].ttk_verdict, KVG_VERDICT_FAIL);
    ha[301] = 0x12; /* 2 in 1000: both fail */
    assert_int_equal(judge_default(&th, &tha, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r[1]),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r[1].ttk_mismatched, 2);
    assert_int_equal(r[1].ttk_verdict, KVG_VERDICT_FAIL);
    ha[300] = ha[301] = 0x90;
    assert_int_equal(judge_default(&th, &tha, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r[1]),
                     KVG_ERR_MISMATCH);

    /* 3. A NaN payload dropped in a copy: 0x7E01 copied as 0x7E00. A copy
     * is bit for bit (FAIL); mix_tolerance takes any two NaNs as equal. */
    assert_int_equal(judge_default(&tcg, &tca, KVG_ROLE_COPY, NULL, NULL,
                                   &r[2]),
                     KVG_ERR_MISMATCH);
    assert_int_equal(r[2].ttk_verdict, KVG_VERDICT_PASS);
    assert_int_equal(r[2].ttk_matched, 2);

    /* 4. Where ops-test-kit is the stricter: an int8 quantised cache one
     * step off passes |delta| <= 1, binary_equal fails it. */
    assert_int_equal(judge_default(&tig, &tia, KVG_ROLE_DEFAULT, NULL, NULL,
                                   &r[3]),
                     KVG_OK);
    assert_string_equal(r[3].ttk_rule, "binary_equal");
    assert_int_equal(r[3].ttk_mismatched, 1);
    assert_int_equal(r[3].ttk_verdict, KVG_VERDICT_FAIL);

    /* every report names the default and says both verdicts */
    assert_int_equal(kvg_compare_report_text(r, 4, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    assert_contains(buf, "standards and thresholds: mixed_ttk@3675093\n");
    assert_contains(buf, "    ops-test-kit would say: PASS (mix_tolerance "
                         "over all 1000 elements: matched ratio 0.995, max "
                         "|a-g| 0.0625, cap 0.1); kvgold says FAIL\n");
    assert_contains(buf, "    ops-test-kit would say: PASS (requant over "
                         "all 1000 elements: 0 mismatched); kvgold says "
                         "FAIL\n");
    assert_contains(buf, "    ops-test-kit would say: FAIL (binary_equal "
                         "over all 4 elements: 1 mismatched); kvgold says "
                         "PASS\n");
    assert_int_equal(kvg_compare_report_json(r, 4, buf, sizeof buf, &len,
                                             &diag),
                     KVG_OK);
    doc = kvgt_json_parse(buf);
    assert_string_equal(kvgt_json_str(doc, "standard"), "mixed_ttk@3675093");
    res = kvg_json_at(kvg_json_get(doc, "results"), 0);
    assert_string_equal(kvgt_json_str(res, "standard_version"),
                        "mixed_ttk@3675093");
    assert_string_equal(kvgt_json_str(res, "verdict"), "FAIL");
    ttk = kvg_json_get(res, "ops_test_kit");
    assert_string_equal(kvgt_json_str(ttk, "verdict"), "PASS");
    assert_string_equal(kvgt_json_str(ttk, "rule"), "mix_tolerance");
    assert_non_null(strstr(kvgt_json_str(ttk, "source"), "@3675093"));
    assert_dbl(kvgt_json_num(ttk, "matched"), 995.0, "JSON ttk matched");
    assert_dbl(kvgt_json_num(ttk, "elements"), 1000.0, "JSON ttk elements");
    res = kvg_json_at(kvg_json_get(doc, "results"), 3);
    ttk = kvg_json_get(res, "ops_test_kit");
    assert_string_equal(kvgt_json_str(ttk, "verdict"), "FAIL");
    kvgt_json_assert_null(ttk, "matched_ratio");
    kvg_json_free(doc);
}

/* ---- bulk comparisons and repeated runs ---------------------------------- */

static void test_runs(void **state)
{
    enum { N = 12000 }; /* several 4096-element blocks */
    int32_t *a = (int32_t *)kvgt_alloc_poisoned(N * 4, 21);
    int32_t *b = (int32_t *)malloc(N * 4);
    kvg_tensor ta = vec(a, KVG_INT32, N), tb = vec(b, KVG_INT32, N);
    kvg_tensor tshort = vec(b, KVG_INT32, N - 1);
    kvg_compare_runs_result rr;
    kvg_diag diag;
    (void)state;

    assert_non_null(a);
    assert_non_null(b);
    memcpy(b, a, N * 4);
    assert_int_equal(kvg_compare_runs(&ta, &tb, &rr, &diag), KVG_OK);
    assert_int_equal(rr.elements, N);
    assert_int_equal(rr.differ, 0);
    assert_int_equal(rr.first_index, -1);
    b[4095] ^= 0x100; /* last of the first block */
    b[4096] ^= 1;     /* first of the second */
    b[N - 1] ^= 0x80000000u;
    assert_int_equal(kvg_compare_runs(&ta, &tb, &rr, &diag), KVG_OK);
    assert_int_equal(rr.differ, 3);
    assert_int_equal(rr.first_index, 4095);
    assert_int_equal(rr.first_a_bits, (uint32_t)a[4095]);
    assert_int_equal(rr.first_b_bits, (uint32_t)b[4095]);
    assert_int_equal(kvg_compare_runs(&ta, &tshort, &rr, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_compare_runs(&ta, &tb, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    free(a);
    free(b);
}

static void test_bulk_untouched(void **state)
{
    /* 10000 elements, written only at 100..199; changes in untouched runs
     * at block edges must each be found, in index order */
    enum { N = 10000 };
    uint16_t *g = (uint16_t *)kvgt_alloc_poisoned(N * 2, 31);
    uint16_t *x = (uint16_t *)malloc(N * 2);
    unsigned char *m = (unsigned char *)malloc(N);
    kvg_tensor tg = vec(g, KVG_FP16, N);
    kvg_tensor tx = vec(x, KVG_FP16, N);
    kvg_compare_args args;
    kvg_compare_result r;
    kvg_diag diag;
    int i;
    (void)state;

    assert_non_null(g);
    assert_non_null(x);
    assert_non_null(m);
    for (i = 0; i < N; i++)
        g[i] = (uint16_t)(0x3C00 + (i & 0xFF)); /* finite, non-zero */
    memcpy(x, g, N * 2);
    memset(m, 0, N);
    memset(m + 100, 1, 100);
    x[99] ^= 1;   /* untouched, just before the written run */
    x[4295] ^= 1; /* untouched: 4096 elements into the second run */
    x[N - 1] ^= 1;
    kvg_compare_args_init(&args);
    args.name = "cache";
    args.golden = &tg;
    args.actual = &tx;
    args.written = m;
    args.written_count = N;
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_compare_tensor(&args, &r, &diag), KVG_ERR_MISMATCH);
    assert_int_equal(r.written, 100);
    assert_int_equal(r.untouched, N - 100);
    assert_int_equal(r.untouched_changed, 3);
    assert_int_equal(r.untouched_listed, 3);
    assert_int_equal(r.untouched_first[0].index, 99);
    assert_int_equal(r.untouched_first[1].index, 4295);
    assert_int_equal(r.untouched_first[2].index, N - 1);
    assert_int_equal(r.bits_differ, 0);
    free(g);
    free(x);
    free(m);
}

static void test_bulk_written_mask(void **state)
{
    /* the op wrote elements 5000..5009 and 9000: the mask has 1 there and
     * 0 elsewhere, across block boundaries */
    enum { N = 10000 };
    uint8_t *ia = (uint8_t *)kvgt_alloc_poisoned(N, 41);
    uint8_t *ib = (uint8_t *)malloc(N), *oa = (uint8_t *)malloc(N);
    uint8_t *ob = (uint8_t *)malloc(N);
    unsigned char *mask = (unsigned char *)malloc(N);
    kvg_tensor tia = vec(ia, KVG_INT8, N), tib = vec(ib, KVG_INT8, N),
               toa = vec(oa, KVG_INT8, N), tob = vec(ob, KVG_INT8, N);
    kvg_diag diag;
    int i;
    (void)state;

    for (i = 0; i < N; i++)
        ib[i] = (uint8_t)~ia[i];
    memcpy(oa, ia, N);
    memcpy(ob, ib, N);
    for (i = 5000; i < 5010; i++)
        oa[i] = ob[i] = (uint8_t)i;
    oa[9000] = ob[9000] = 7;
    memset(mask, 0xAA, N);
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask,
                                              N, &diag),
                     KVG_OK);
    for (i = 0; i < N; i++)
        if (mask[i] != ((i >= 5000 && i < 5010) || i == 9000))
            fail_msg("mask[%d] = %u", i, mask[i]);
    /* an element the op read and changed differently: refused, untouched */
    ob[8191] ^= 1;
    memset(mask, 0xAA, N);
    assert_int_equal(kvg_compare_written_mask(&toa, &tia, &tob, &tib, mask,
                                              N, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "element 8191 depends on the initial");
    for (i = 0; i < N; i++)
        assert_int_equal(mask[i], 0xAA);
    free(ia);
    free(ib);
    free(oa);
    free(ob);
    free(mask);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_ulp_fp32),
        cmocka_unit_test(test_ulp_fp16_bf16),
        cmocka_unit_test(test_ulp_int_and_nonfinite),
        cmocka_unit_test(test_mixed_element_boundary),
        cmocka_unit_test(test_mixed_ratio_boundary),
        cmocka_unit_test(test_mixed_cap_boundary),
        cmocka_unit_test(test_mixed_cap_fp8),
        cmocka_unit_test(test_mixed_ttk_table),
        cmocka_unit_test(test_mixed_tables_per_dtype),
        cmocka_unit_test(test_mixed_refusals),
        cmocka_unit_test(test_commercial_mare_ratio),
        cmocka_unit_test(test_commercial_rmse_ratio),
        cmocka_unit_test(test_commercial_mere_ratio),
        cmocka_unit_test(test_commercial_ratio_floor),
        cmocka_unit_test(test_commercial_small_values),
        cmocka_unit_test(test_commercial_bf16_tables),
        cmocka_unit_test(test_commercial_without_third_party),
        cmocka_unit_test(test_third_party_checked),
        cmocka_unit_test(test_not_judged_result),
        cmocka_unit_test(test_reports_carry_standards),
        cmocka_unit_test(test_default_fp8_routing),
        cmocka_unit_test(test_cross_check_special_values),
        cmocka_unit_test(test_ops_test_kit_would_say),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_bulk_untouched),
        cmocka_unit_test(test_bulk_written_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
