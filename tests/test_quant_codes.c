/*
 * tests/test_quant_codes.c - the inline payload casts of
 * src/kernels/quant_codes.h (what the group-quantisation engine's chunk
 * loops call) against the formats layer's encoders, which stay the
 * reference, in the one mode each inline cast copies.
 *
 *   test_quant_codes                 cmocka: every format on every
 *                                    pattern whose low 16 bits are a
 *                                    rounding boundary of one of them
 *                                    (0x0000, 0x0001, 0x7FFF, 0x8000,
 *                                    0x8001, 0xFFFF: every tie of every
 *                                    target grid and its two neighbours,
 *                                    inf and the NaN edges included), and
 *                                    on 2^20 seeded random patterns; and
 *                                    widen.h's fp16 widening, which the
 *                                    engine also inlines, on every code
 *   test_quant_codes sweep FMT [STRIDE]
 *                                    every STRIDE-th binary32 pattern
 *                                    (default: every one) through the
 *                                    inline cast of FMT (e4m3fn, e5m2,
 *                                    fp4, hif8, bf16); the formats
 *                                    layer's encoder is called on every
 *                                    1024th pattern and on both sides of
 *                                    every change of the inline code.
 *
 * Why the sweep need not call the formats layer on every pattern (it
 * costs 2-10 ns a call: 2^32 calls a format is a minute, more than the
 * CI stage can give): for a fixed sign, each of these encoders is a
 * nondecreasing step function of the pattern (magnitudes order as their
 * patterns, and a rounding maps an ordered input to ordered codes), and
 * NaN patterns map to one code or (bf16) to their own high bits, also in
 * order. test_format_sweep and test_format_mx_sweep prove that of the
 * formats layer against an independent reference, on every pattern, in
 * the same CI stage. So where the inline code is the same on a run of
 * consecutive patterns and the formats layer gives that code at both ends
 * of the run, it gives it on the whole run: equal on every pattern,
 * checked at every change. (With STRIDE > 1, the sampled ASan stage, the
 * runs are over the sampled patterns only: a sample, not a proof.)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/quant_codes.h"

#define CHUNK 16384u
#define SAMPLE_EVERY 1024u

typedef enum fmt {
    F_E4M3FN,
    F_E5M2,
    F_FP4,
    F_HIF8,
    F_BF16,
    F_COUNT
} fmt;

static const char *const k_names[F_COUNT] = {"e4m3fn", "e5m2", "fp4",
                                             "hif8", "bf16"};

/* The formats layer's encoder: the reference. */
static unsigned reference(fmt f, float v)
{
    switch (f) {
    case F_E4M3FN:
        return kvg_f32_to_fp8e4m3fn(v, KVG_OVF_NONSAT);
    case F_E5M2:
        return kvg_f32_to_fp8e5m2(v, KVG_OVF_NONSAT);
    case F_FP4:
        return kvg_f32_to_fp4e2m1(v, KVG_FP4_RINT, KVG_FP4_NAN_ZERO);
    case F_HIF8:
        return kvg_f32_to_hif8(v, KVG_OVF_SATURATE);
    default:
        return kvg_f32_to_bf16(v, KVG_OVF_DEFAULT);
    }
}

/* The inline casts over n values, one loop per format, as the engine
 * runs them: vectorised, and built per CPU like the engine's loops where
 * the build dispatches (KVG_I_ROW_KERNEL), so that the sweep checks the
 * code the engine runs here, in a few seconds a format. */
KVG_I_ROW_KERNEL
static void inline_codes(fmt f, const float *x, size_t n, uint16_t *out)
{
    size_t i;

    switch (f) {
    case F_E4M3FN:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_e4m3fn_code(x[i]);
        break;
    case F_E5M2:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_e5m2_code(x[i]);
        break;
    case F_FP4:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_fp4_code(x[i]);
        break;
    case F_HIF8:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_hif8_sat_code(x[i]);
        break;
    default:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_bf16_rne_code(x[i]);
        break;
    }
}

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Mismatches of the inline cast against the reference on n patterns
 * (the first few printed). */
static unsigned long check_patterns(fmt f, const uint32_t *bits, size_t n)
{
    static float x[CHUNK];
    static uint16_t got[CHUNK];
    unsigned long bad = 0;
    size_t i;
    unsigned want;

    memcpy(x, bits, n * sizeof *x);
    inline_codes(f, x, n, got);
    for (i = 0; i < n; i++) {
        want = reference(f, x[i]);
        if (got[i] != want && bad++ < 4)
            print_error("%s: pattern 0x%08X: inline 0x%02X, formats layer "
                        "0x%02X\n", k_names[f], (unsigned)bits[i],
                        (unsigned)got[i], want);
    }
    return bad;
}

/* ---- cmocka ------------------------------------------------------------ */

static void test_boundaries(void **state)
{
    static const uint32_t k_low[6] = {0x0000u, 0x0001u, 0x7FFFu,
                                      0x8000u, 0x8001u, 0xFFFFu};
    static uint32_t bits[CHUNK];
    unsigned long bad = 0;
    uint32_t hi = 0;
    size_t n = 0;
    int f, k;

    (void)state;
    for (f = 0; f < F_COUNT; f++) {
        /* every high half with each low half, CHUNK at a time */
        for (hi = 0;; hi++) {
            for (k = 0; k < 6; k++)
                bits[n++] = hi << 16 | k_low[k];
            if (n + 6 > CHUNK || hi == 0xFFFFu) {
                bad += check_patterns((fmt)f, bits, n);
                n = 0;
            }
            if (hi == 0xFFFFu)
                break;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_random_patterns(void **state)
{
    static uint32_t bits[CHUNK];
    uint32_t s = 0x2545F491u; /* xorshift32, fixed seed */
    unsigned long bad = 0;
    size_t i, round;
    int f;

    (void)state;
    for (round = 0; round < (1u << 20) / CHUNK; round++) {
        for (i = 0; i < CHUNK; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            bits[i] = s;
        }
        for (f = 0; f < F_COUNT; f++)
            bad += check_patterns((fmt)f, bits, CHUNK);
    }
    assert_int_equal(bad, 0);
}

/* A few values worked out by hand from the formats' definitions, so that
 * the test fails if both sides went wrong together. */
static void test_known_codes(void **state)
{
    (void)state;
    assert_int_equal(kvg_i_e4m3fn_code(448.0f), 0x7E);
    assert_int_equal(kvg_i_e4m3fn_code(464.0f), 0x7E); /* tie: even 448 */
    assert_int_equal(kvg_i_e4m3fn_code(480.0f), 0x7F); /* past max: NaN */
    assert_int_equal(kvg_i_e4m3fn_code(-0x1p-9f), 0x81); /* subnormal */
    assert_int_equal(kvg_i_e5m2_code(57344.0f), 0x7B);
    assert_int_equal(kvg_i_e5m2_code(61440.0f), 0x7C); /* tie: inf */
    assert_int_equal(kvg_i_fp4_code(0.25f), 0x0);  /* tie to even 0 */
    assert_int_equal(kvg_i_fp4_code(-0.75f), 0xA); /* tie to even 1.0 */
    assert_int_equal(kvg_i_fp4_code(5.0f), 0x6);   /* tie to even 4 */
    assert_int_equal(kvg_i_fp4_code(1e30f), 0x7);
    assert_int_equal(kvg_i_fp4_code(f_of(0xFFC00000u)), 0x0);
    assert_int_equal(kvg_i_hif8_sat_code(1.0f), 0x08);
    assert_int_equal(kvg_i_hif8_sat_code(-1.5f), 0x8C);
    assert_int_equal(kvg_i_hif8_sat_code(40000.0f), 0x6E);
    assert_int_equal(kvg_i_hif8_sat_code(0x1p-23f), 0x01);
    assert_int_equal(kvg_i_hif8_sat_code(-0x1p-24f), 0x00);
    assert_int_equal(kvg_i_hif8_sat_code(f_of(0xFFC00000u)), 0x80);
    assert_int_equal(kvg_i_bf16_rne_code(1.00390625f), 0x3F80); /* tie */
    assert_int_equal(kvg_i_bf16_rne_code(f_of(0xFF812345u)), 0xFFC1);
}

/* The group engine widens an fp16 x with widen.h's kvg_i_fp16_value
 * (test_row_codecs proves it through the row loader too): every code
 * against the formats layer, bit for bit. */
static void test_fp16_widening_every_code(void **state)
{
    uint32_t c, got, want;
    unsigned long bad = 0;

    (void)state;
    for (c = 0; c <= 0xFFFFu; c++) {
        got = kvg_i_bits(kvg_i_fp16_value((uint16_t)c));
        want = kvg_i_bits(kvg_fp16_to_f32((uint16_t)c));
        if (got != want && bad++ < 4)
            print_error("fp16 0x%04X: 0x%08X, formats layer 0x%08X\n",
                        (unsigned)c, (unsigned)got, (unsigned)want);
    }
    assert_int_equal(bad, 0);
}

/* ---- the sweep (label exhaustive) -------------------------------------- */

static int parse_fmt(const char *s, fmt *f)
{
    int i;

    for (i = 0; i < F_COUNT; i++)
        if (strcmp(s, k_names[i]) == 0) {
            *f = (fmt)i;
            return 1;
        }
    return 0;
}

/* One reference check of pattern u against the inline code `code`. */
static int agrees(fmt f, uint32_t u, unsigned code, unsigned long *bad)
{
    const unsigned want = reference(f, f_of(u));

    if (want == code)
        return 1;
    if ((*bad)++ < 8)
        printf("%s: pattern 0x%08X: inline 0x%02X, formats layer 0x%02X\n",
               k_names[f], (unsigned)u, code, want);
    return 0;
}

/* 1 when the n codes are all equal (no exit: it vectorises). */
static int all_equal(const uint16_t *c, size_t n)
{
    unsigned acc = 0;
    size_t i;

    for (i = 0; i < n; i++)
        acc |= (unsigned)(c[i] ^ c[0]);
    return acc == 0;
}

static int sweep(fmt f, uint64_t stride)
{
    static uint32_t bits[CHUNK];
    static float x[CHUNK];
    static uint16_t got[CHUNK];
    unsigned long bad = 0;
    uint64_t u, seen = 0, calls = 0;

    for (u = 0; u <= 0xFFFFFFFFull;) {
        const uint64_t left = (0xFFFFFFFFull - u) / stride + 1;
        const size_t n = left < CHUNK ? (size_t)left : CHUNK;
        size_t i;

        for (i = 0; i < n; i++)
            bits[i] = (uint32_t)(u + (uint64_t)i * stride);
        memcpy(x, bits, n * sizeof *x);
        u += (uint64_t)n * stride;
        inline_codes(f, x, n, got);
        /* the chunk's ends, every SAMPLE_EVERY-th pattern, and both
         * sides of every change of the code inside the chunk */
        calls += 2;
        (void)agrees(f, bits[0], got[0], &bad);
        (void)agrees(f, bits[n - 1], got[n - 1], &bad);
        for (i = SAMPLE_EVERY; i < n; i += SAMPLE_EVERY)
            calls++, (void)agrees(f, bits[i], got[i], &bad);
        if (!all_equal(got, n))
            for (i = 1; i < n; i++)
                if (got[i] != got[i - 1]) {
                    calls += 2;
                    (void)agrees(f, bits[i - 1], got[i - 1], &bad);
                    (void)agrees(f, bits[i], got[i], &bad);
                }
        seen += n;
    }
    printf("%s: %llu patterns, %llu formats-layer calls, %lu mismatches\n",
           k_names[f], (unsigned long long)seen, (unsigned long long)calls,
           bad);
    return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_codes),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_random_patterns),
        cmocka_unit_test(test_fp16_widening_every_code),
    };
    if (argc >= 3 && strcmp(argv[1], "sweep") == 0) {
        fmt f;
        unsigned long long stride = argc >= 4 ? strtoull(argv[3], NULL, 10)
                                              : 1;
        if (!parse_fmt(argv[2], &f) || stride == 0) {
            fprintf(stderr, "usage: test_quant_codes sweep e4m3fn|e5m2|fp4|"
                            "hif8|bf16 [STRIDE]\n");
            return 2;
        }
        return sweep(f, stride);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
