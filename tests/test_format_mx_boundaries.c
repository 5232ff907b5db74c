/*
 * tests/test_format_mx_boundaries.c - FP4 E2M1 and E8M0 one boundary at a
 * time, each expectation derived by hand from the definitions in
 * docs/formats.md (the derivation is in the row's comment): every code,
 * every tie in each rounding mode, saturation at +-6, binary32 subnormals,
 * -0, NaN and inf, the nibble order, each E8M0 rule around the amax where
 * its code changes, the refusals, and divide vs multiply by the reciprocal.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/format.h"

/* ---- FP4 E2M1 ------------------------------------------------------------ */

enum { RINT = KVG_FP4_RINT, FLOOR = KVG_FP4_FLOOR, ROUND = KVG_FP4_ROUND };

typedef struct fp4_row {
    uint32_t in;        /* binary32 bit pattern */
    uint8_t want[3];    /* rint, floor, round */
} fp4_row;

/* Positive rows; the test also runs each negated (see test_fp4_rows). */
static const fp4_row k_fp4_pos[] = {
    {0x00000000u, {0x0, 0x0, 0x0}}, /* +0 */
    {0x00000001u, {0x0, 0x0, 0x0}}, /* min subnormal: below 0.25 */
    {0x007FFFFFu, {0x0, 0x0, 0x0}}, /* max subnormal */
    {0x3E7FFFFFu, {0x0, 0x0, 0x0}}, /* 0.25 - ulp */
    {0x3E800000u, {0x0, 0x0, 0x1}}, /* 0.25 tie 0|0.5: even 0, away 0.5 */
    {0x3E800001u, {0x1, 0x0, 0x1}}, /* 0.25 + ulp: nearest 0.5 */
    {0x3F000000u, {0x1, 0x1, 0x1}}, /* 0.5 exact */
    {0x3F3FFFFFu, {0x1, 0x1, 0x1}}, /* 0.75 - ulp */
    {0x3F400000u, {0x2, 0x1, 0x2}}, /* 0.75 tie 0.5|1: even code 0x2 */
    {0x3F7FFFFFu, {0x2, 0x1, 0x2}}, /* 1 - ulp: floor 0.5 */
    {0x3F800000u, {0x2, 0x2, 0x2}}, /* 1 */
    {0x3FA00000u, {0x2, 0x2, 0x3}}, /* 1.25 tie 1|1.5: even 0x2 */
    {0x3FA00001u, {0x3, 0x2, 0x3}},
    {0x3FC00000u, {0x3, 0x3, 0x3}}, /* 1.5 */
    {0x3FE00000u, {0x4, 0x3, 0x4}}, /* 1.75 tie 1.5|2: even 0x4 */
    {0x3FDFFFFFu, {0x3, 0x3, 0x3}},
    {0x40000000u, {0x4, 0x4, 0x4}}, /* 2 */
    {0x401FFFFFu, {0x4, 0x4, 0x4}}, /* 2.5 - ulp */
    {0x40200000u, {0x4, 0x4, 0x5}}, /* 2.5 tie 2|3: even 0x4 */
    {0x40200001u, {0x5, 0x4, 0x5}},
    {0x40400000u, {0x5, 0x5, 0x5}}, /* 3 */
    {0x40600000u, {0x6, 0x5, 0x6}}, /* 3.5 tie 3|4: even 0x6 */
    {0x405FFFFFu, {0x5, 0x5, 0x5}},
    {0x40800000u, {0x6, 0x6, 0x6}}, /* 4 */
    {0x409FFFFFu, {0x6, 0x6, 0x6}}, /* 5 - ulp */
    {0x40A00000u, {0x6, 0x6, 0x7}}, /* 5 tie 4|6: even 0x6, away 6 */
    {0x40A00001u, {0x7, 0x6, 0x7}},
    {0x40BFFFFFu, {0x7, 0x6, 0x7}}, /* 6 - ulp: floor 4 */
    {0x40C00000u, {0x7, 0x7, 0x7}}, /* 6 = max */
    {0x40C00001u, {0x7, 0x7, 0x7}}, /* above max: saturate */
    {0x40E00000u, {0x7, 0x7, 0x7}}, /* 7 tie 6|8 (virtual): saturate */
    {0x40FFFFFFu, {0x7, 0x7, 0x7}},
    {0x41000000u, {0x7, 0x7, 0x7}}, /* 8 */
    {0x7F7FFFFFu, {0x7, 0x7, 0x7}}, /* FLT_MAX */
    {0x7F800000u, {0x7, 0x7, 0x7}}, /* +inf: saturates like any overflow */
};

/* The floor column of a negated row: toward -inf the magnitude rounds up
 * (the smallest code >= |x|), saturating at 6; -0 stays -0. */
static const uint8_t k_fp4_neg_floor[] = {
    0x8, /* -0 */
    0x9, 0x9, 0x9, 0x9, 0x9, 0x9, /* (0, 0.5]: -0.5 */
    0xA, 0xA, 0xA, /* (0.5, 1]: -1 */
    0xA, /* 1 */
    0xB, 0xB, /* 1.25, 1.25+: -1.5 */
    0xB, /* 1.5 */
    0xC, 0xC, /* 1.75, 1.75-: -2 */
    0xC, /* 2 */
    0xD, 0xD, 0xD, /* 2.5-, 2.5, 2.5+: -3 */
    0xD, /* 3 */
    0xE, 0xE, /* 3.5, 3.5-: -4 */
    0xE, /* 4 */
    0xF, 0xF, 0xF, 0xF, /* (4, 6): -6 */
    0xF, /* 6 */
    0xF, 0xF, 0xF, 0xF, 0xF, 0xF, /* beyond: saturate to -6 */
};

static float bits(uint32_t u) { return kvg_f32_from_bits(u); }

static void test_fp4_rows(void **state)
{
    const size_t n = sizeof k_fp4_pos / sizeof k_fp4_pos[0];
    size_t k;
    int m, bad = 0;
    (void)state;
    assert_int_equal(n, sizeof k_fp4_neg_floor);
    for (k = 0; k < n; k++) {
        for (m = 0; m < 3; m++) {
            const uint8_t pos = kvg_f32_to_fp4e2m1(
                bits(k_fp4_pos[k].in), (kvg_fp4_round)m, KVG_FP4_NAN_ZERO);
            const uint8_t neg = kvg_f32_to_fp4e2m1(
                bits(k_fp4_pos[k].in | 0x80000000u), (kvg_fp4_round)m,
                KVG_FP4_NAN_ZERO);
            /* rint and round mirror the magnitude; floor has its column */
            const uint8_t want_neg = m == FLOOR
                                         ? k_fp4_neg_floor[k]
                                         : (uint8_t)(k_fp4_pos[k].want[m] | 8u);
            if (pos != k_fp4_pos[k].want[m] || neg != want_neg) {
                fprintf(stderr, "fp4 row %lu (0x%08X) mode %d: got 0x%X/0x%X, "
                        "want 0x%X/0x%X\n", (unsigned long)k,
                        (unsigned)k_fp4_pos[k].in, m, pos, neg,
                        k_fp4_pos[k].want[m], want_neg);
                bad++;
            }
        }
    }
    if (bad)
        fail_msg("%d fp4 boundary checks failed", bad);
}

/* Each code decodes to its table value and encodes back to itself in every
 * mode (the values are on the grid, so no mode moves them). */
static void test_fp4_codes(void **state)
{
    static const double k_values[16] = {0,  0.5,  1,  1.5,  2,  3,  4,  6,
                                        -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
    unsigned c;
    int m;
    (void)state;
    for (c = 0; c < 16; c++) {
        const float v = kvg_fp4e2m1_to_f32((uint8_t)c);
        assert_true((double)v == k_values[c]);
        assert_true(!signbit(v) == !signbit(k_values[c]));
        /* the high nibble is ignored */
        assert_true(kvg_f32_bits(kvg_fp4e2m1_to_f32((uint8_t)(c | 0xA0u))) ==
                    kvg_f32_bits(v));
        for (m = 0; m < 3; m++)
            assert_int_equal(kvg_f32_to_fp4e2m1(v, (kvg_fp4_round)m,
                                                KVG_FP4_NAN_ZERO), c);
    }
}

static void test_fp4_nan_and_args(void **state)
{
    static const uint32_t nans[] = {0x7F800001u, 0x7FC00000u, 0x7FFFFFFFu};
    size_t k;
    int m;
    (void)state;
    for (k = 0; k < sizeof nans / sizeof nans[0]; k++) {
        for (m = 0; m < 3; m++) {
            const kvg_fp4_round r = (kvg_fp4_round)m;
            /* Ascend: every NaN is +0 */
            assert_int_equal(kvg_f32_to_fp4e2m1(bits(nans[k]), r,
                                                KVG_FP4_NAN_ZERO), 0x0);
            assert_int_equal(kvg_f32_to_fp4e2m1(bits(nans[k] | 0x80000000u), r,
                                                KVG_FP4_NAN_ZERO), 0x0);
            /* ml_dtypes: quiet NaN 0x8, negated by the sign */
            assert_int_equal(kvg_f32_to_fp4e2m1(bits(nans[k]), r,
                                                KVG_FP4_NAN_ML_DTYPES), 0x8);
            assert_int_equal(kvg_f32_to_fp4e2m1(bits(nans[k] | 0x80000000u), r,
                                                KVG_FP4_NAN_ML_DTYPES), 0x0);
        }
    }
    /* the NaN policy changes nothing else */
    assert_int_equal(kvg_f32_to_fp4e2m1(-0.0f, KVG_FP4_RINT,
                                        KVG_FP4_NAN_ML_DTYPES), 0x8);
    assert_int_equal(kvg_f32_to_fp4e2m1(-7.0f, KVG_FP4_ROUND,
                                        KVG_FP4_NAN_ML_DTYPES), 0xF);
    /* arguments outside the enums */
    assert_int_equal(kvg_f32_to_fp4e2m1(1.0f, (kvg_fp4_round)3,
                                        KVG_FP4_NAN_ZERO), 0xFF);
    assert_int_equal(kvg_f32_to_fp4e2m1(1.0f, KVG_FP4_RINT, (kvg_fp4_nan)2),
                     0xFF);
}

static void test_fp4_packing(void **state)
{
    (void)state;
    /* element 2j = 1.5 (0x3) low, element 2j+1 = -1 (0xA) high */
    assert_int_equal(kvg_fp4_pack(0x3, 0xA), 0xA3);
    assert_int_equal(kvg_fp4_pack(0xF3, 0x1A), 0xA3); /* high bits dropped */
    assert_int_equal(kvg_fp4_unpack(0xA3, 0), 0x3);
    assert_int_equal(kvg_fp4_unpack(0xA3, 1), 0xA);
    assert_int_equal(kvg_fp4_unpack(0xA3, 2), 0x3); /* parity only */
    assert_int_equal(kvg_fp4_unpack(0xA3, 7), 0xA);
}

/* ---- E8M0 --------------------------------------------------------------- */

static void test_e8m0_decode(void **state)
{
    unsigned c;
    (void)state;
    assert_int_equal(kvg_f32_bits(kvg_e8m0_to_f32(0x00)), 0x00400000u);
    assert_int_equal(kvg_f32_bits(kvg_e8m0_to_f32(0x01)), 0x00800000u);
    assert_true(kvg_e8m0_to_f32(0x7F) == 1.0f);
    assert_true(kvg_e8m0_to_f32(0x80) == 2.0f);
    assert_int_equal(kvg_f32_bits(kvg_e8m0_to_f32(0xFE)), 0x7F000000u);
    assert_int_equal(kvg_f32_bits(kvg_e8m0_to_f32(0xFF)), 0x7FC00000u);
    for (c = 0; c < 255; c++) /* every code is a power of two, in order */
        assert_true((double)kvg_e8m0_to_f32((uint8_t)c) ==
                    ldexp(1.0, (int)c - 127));
}

typedef struct e8m0_row {
    kvg_e8m0_rule rule;
    kvg_dtype payload;
    uint32_t amax;   /* bit pattern */
    int want;        /* code, or -1: refused */
} e8m0_row;

#define OCP KVG_E8M0_OCP
#define CUB KVG_E8M0_CUBLAS
#define CEIL KVG_E8M0_CEIL
#define EBUMP KVG_E8M0_EBUMP
#define TRUNC KVG_E8M0_TRUNC
#define E2M1 KVG_FP4_E2M1
#define E1M2 KVG_FP4_E1M2
#define E4M3 KVG_FP8_E4M3FN
#define E5M2 KVG_FP8_E5M2

static const e8m0_row k_e8m0[] = {
    /* OCP: c = max(E(amax), emax) - emax */
    {OCP, E2M1, 0x40C00000u, 127},  /* 6 = 1.5 * 2^2: E 129 - 2 -> scale 1 */
    {OCP, E2M1, 0x40FFFFFFu, 127},  /* 8 - ulp: still E 129 */
    {OCP, E2M1, 0x41000000u, 128},  /* 8: E 130 */
    {OCP, E2M1, 0x00000000u, 0},    /* zero block */
    {OCP, E2M1, 0x00000001u, 0},    /* subnormal amax: E 0 */
    {OCP, E2M1, 0x01000000u, 0},    /* 2^-125: E 2 = emax */
    {OCP, E2M1, 0x01800000u, 1},    /* 2^-124: E 3 */
    {OCP, E2M1, 0x7F7FFFFFu, 252},  /* FLT_MAX: E 254 */
    {OCP, E2M1, 0x7F800000u, 0xFF}, /* inf */
    {OCP, E2M1, 0x7FC00000u, 0xFF}, /* NaN */
    {OCP, E1M2, 0x3FE00000u, 127},  /* 1.75 = e1m2 max: emax 0 */
    {OCP, E1M2, 0x7F7FFFFFu, 254},
    {OCP, E4M3, 0x43E00000u, 127},  /* 448 = 1.75 * 2^8 */
    {OCP, E4M3, 0x43800000u, 127},  /* 256 */
    {OCP, E4M3, 0x437FFFFFu, 126},  /* 256 - ulp */
    {OCP, E5M2, 0x47600000u, 127},  /* 57344 = 1.75 * 2^15 */
    /* CUBLAS e4m3fn: s = fl(amax * 0x3B124925), fl(1/448) = (1 + 4.47e-8)
     * / 448, so s = fl(448 * fl(1/448)) = 1 exactly (4.47e-8 < half an
     * ulp of 1) */
    {CUB, E4M3, 0x43E00000u, 127},  /* 448: s = 1, M = 0: no bump */
    {CUB, E4M3, 0x43E00001u, 128},  /* 448 + ulp: s > 1 -> 2 */
    {CUB, E4M3, 0x43DFFFFFu, 127},  /* 448 - ulp: s < 1 -> 1 */
    {CUB, E4M3, 0x00000000u, 0},    /* amax = 0 -> 0x00 */
    {CUB, E4M3, 0x00000001u, 0},    /* s underflows to 0 */
    /* amax = 448 * 2^-127 (0x04600000): s = 2^-127 (E 0, M 0x400000):
     * not above 2^-127, code 0 */
    {CUB, E4M3, 0x04600000u, 0},
    /* amax 4 ulps above: s = 2^-127 + 1.33 * 2^-149 -> M = 0x400001 > 2^22:
     * the subnormal bump, code 1 (2^-126) */
    {CUB, E4M3, 0x04600004u, 1},
    {CUB, E4M3, 0x7F7FFFFFu, 247},  /* FLT_MAX / 448 = 1.14 * 2^119 */
    {CUB, E4M3, 0x7F800000u, 0xFF},
    {CUB, E4M3, 0x7FC00001u, 0xFF},
    {CUB, E5M2, 0x47600000u, 127},  /* 57344 * fl(1/57344) = 1 likewise */
    {CUB, E5M2, 0x47600001u, 128},
    {CUB, E2M1, 0x40C00000u, -1},   /* scaleAlg 1 is fp8 only */
    /* CEIL / EBUMP / TRUNC on s' = fl(max(amax, fl(1e-4)) * fl(1/448)) */
    {CEIL, E4M3, 0x43E00000u, 127},  /* s' = 1 */
    {EBUMP, E4M3, 0x43E00000u, 128}, /* M(s') = 0 and still +1 */
    {TRUNC, E4M3, 0x43E00000u, 127},
    {CEIL, E4M3, 0x43E00001u, 128},  /* s' just above 1 */
    {EBUMP, E4M3, 0x43E00001u, 128},
    {TRUNC, E4M3, 0x43E00001u, 127},
    {CEIL, E4M3, 0x44600000u, 128},  /* 896: s' = 2 */
    {EBUMP, E4M3, 0x44600000u, 129},
    {TRUNC, E4M3, 0x44600000u, 128},
    /* amax = 0: s' = fl(1e-4) / 448 = 2.23e-7 = 1.87 * 2^-23 */
    {CEIL, E4M3, 0x00000000u, 105},
    {EBUMP, E4M3, 0x00000000u, 105},
    {TRUNC, E4M3, 0x00000000u, 104},
    {CEIL, E4M3, 0x38D1B717u, 105},  /* fl(1e-4) itself: same s' */
    {CEIL, E5M2, 0x47600000u, 127},  /* 57344: s' = 1 */
    {EBUMP, E5M2, 0x47600000u, 128},
    {TRUNC, E5M2, 0x47600001u, 127},
    {CEIL, E4M3, 0x7F800000u, -1},   /* non-finite: refused */
    {EBUMP, E4M3, 0x7FC00000u, -1},
    {TRUNC, E4M3, 0x7F800000u, -1},
    {CEIL, E2M1, 0x40C00000u, -1},   /* not used with fp4 */
    {TRUNC, E1M2, 0x40C00000u, -1},
    /* refusals common to all rules */
    {OCP, KVG_FP16, 0x3F800000u, -1},        /* not an MX payload */
    {OCP, KVG_BF16, 0x3F800000u, -1},
    {OCP, E2M1, 0x80000000u, -1},            /* -0: sign bit set */
    {OCP, E2M1, 0xBF800000u, -1},            /* -1 */
    {CUB, E4M3, 0xFFC00000u, -1},            /* -NaN */
    {(kvg_e8m0_rule)5, E4M3, 0x3F800000u, -1}, /* rule outside the enum */
};

static void test_e8m0_rules(void **state)
{
    size_t k;
    int bad = 0;
    (void)state;
    for (k = 0; k < sizeof k_e8m0 / sizeof k_e8m0[0]; k++) {
        const e8m0_row *r = &k_e8m0[k];
        uint8_t code = 0x5A;
        const kvg_status st =
            kvg_e8m0_from_amax(r->rule, r->payload, bits(r->amax), &code);
        const int ok = r->want < 0
                           ? st == KVG_ERR_PARAM_INVALID && code == 0x5A
                           : st == KVG_OK && code == (uint8_t)r->want;
        if (!ok) {
            fprintf(stderr, "e8m0 row %lu (rule %d, amax 0x%08X): status %d "
                    "code 0x%02X, want %d\n", (unsigned long)k, (int)r->rule,
                    (unsigned)r->amax, (int)st, code, r->want);
            bad++;
        }
    }
    assert_int_equal(kvg_e8m0_from_amax(OCP, E2M1, 1.0f, NULL),
                     KVG_ERR_PARAM_INVALID);
    if (bad)
        fail_msg("%d e8m0 rule rows failed", bad);
}

/* ---- payload scaling ----------------------------------------------------- */

/* Correctly rounded binary32 quotient and reciprocal product: double has
 * more than 2 * 24 + 2 bits, so rounding the double result to binary32
 * once more gives the correctly rounded binary32 result. */
static float ref_div(float x, float s) { return (float)((double)x / s); }
static float ref_mul_recip(float x, float s)
{
    const float r = (float)(1.0 / (double)s);
    return (float)((double)x * (double)r);
}

static void test_scale_payload(void **state)
{
    uint32_t u;
    unsigned c;
    int differ = 0;
    (void)state;
    /* scale 448 (not a power of two): the two properties are both exact
     * to their definitions and differ on some x */
    for (u = 0x3F800000u; u < 0x3F800000u + 100000u; u++) {
        const float x = bits(u);
        const float d = kvg_scale_payload(x, 448.0f, KVG_SCALE_DIVIDE);
        const float m = kvg_scale_payload(x, 448.0f, KVG_SCALE_MUL_RECIP);
        assert_int_equal(kvg_f32_bits(d), kvg_f32_bits(ref_div(x, 448.0f)));
        assert_int_equal(kvg_f32_bits(m),
                         kvg_f32_bits(ref_mul_recip(x, 448.0f)));
        differ += kvg_f32_bits(d) != kvg_f32_bits(m);
    }
    assert_true(differ > 0);
    /* every E8M0 scale: both agree bit for bit, subnormal results too */
    for (c = 0; c < 255; c++) {
        const float s = kvg_e8m0_to_f32((uint8_t)c);
        for (u = 0; u < 0xFF800000u; u += 0x10001u) {
            const float x = bits(u);
            const uint32_t d =
                kvg_f32_bits(kvg_scale_payload(x, s, KVG_SCALE_DIVIDE));
            const uint32_t m =
                kvg_f32_bits(kvg_scale_payload(x, s, KVG_SCALE_MUL_RECIP));
            if (d != m && !(isnan(bits(d)) && isnan(bits(m))))
                fail_msg("code 0x%02X, x 0x%08X: divide 0x%08X, "
                         "reciprocal 0x%08X", c, (unsigned)u, (unsigned)d,
                         (unsigned)m);
        }
    }
    assert_true(isnan(kvg_scale_payload(1.0f, 2.0f, (kvg_scale_apply)2)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp4_rows),
        cmocka_unit_test(test_fp4_codes),
        cmocka_unit_test(test_fp4_nan_and_args),
        cmocka_unit_test(test_fp4_packing),
        cmocka_unit_test(test_e8m0_decode),
        cmocka_unit_test(test_e8m0_rules),
        cmocka_unit_test(test_scale_payload),
    };
    return cmocka_run_group_tests_name("format.mx_boundaries", tests, NULL,
                                       NULL);
}
