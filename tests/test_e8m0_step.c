/*
 * tests/test_e8m0_step.c - the inline E8M0 scale step of
 * src/kernels/e8m0_step.h (the group-quantisation engine's, once a group)
 * against the formats layer's kvg_e8m0_from_amax / kvg_e8m0_to_f32,
 * which stay the reference.
 *
 *   test_e8m0_step                 cmocka: kvg_i_e8m0_value on every
 *                                  code; the three rules x two fp8
 *                                  payloads on known codes, on every
 *                                  pattern whose low 16 bits are 0x0000,
 *                                  0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF
 *                                  (non-negative: the engine's amax is a
 *                                  magnitude), and on 2^20 seeded random
 *                                  ones
 *   test_e8m0_step sweep PAYLOAD [STRIDE]
 *                                  every STRIDE-th non-negative binary32
 *                                  pattern (default: all 2^31, NaN and
 *                                  inf included) through the three rules
 *                                  for PAYLOAD (e4m3fn, e5m2); the
 *                                  formats layer is called on every
 *                                  1024th pattern and on both sides of
 *                                  every change of an inline code.
 *
 * Why that suffices (as tests/test_quant_codes.c argues for the casts):
 * on non-negative finite patterns the formats layer's code is a
 * nondecreasing step function of the pattern (a floor, one multiply by
 * a positive constant rounded to nearest, both monotone; then E, E + (M
 * != 0) or E + (E != 0) of the product, nondecreasing in its pattern),
 * and every non-finite amax gives one code (0xFF: refused, the code left
 * as the engine starts it). So where an inline code is constant on a run
 * of patterns and the formats layer agrees at both ends of the run, they
 * agree on all of it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/kernels/e8m0_step.h"

#define CHUNK 16384u
#define SAMPLE_EVERY 1024u
#define RULES 3

static const kvg_e8m0_rule k_rules[RULES] = {KVG_E8M0_CEIL, KVG_E8M0_EBUMP,
                                             KVG_E8M0_TRUNC};

/* The formats layer's code, 0xFF where it refuses (the engine's start). */
static unsigned reference(kvg_e8m0_rule rule, int e5m2, uint32_t amax)
{
    uint8_t c = 0xFF;

    (void)kvg_e8m0_from_amax(rule, e5m2 ? KVG_FP8_E5M2 : KVG_FP8_E4M3FN,
                             kvg_i_float(amax), &c);
    return c;
}

static int agrees(int k, int e5m2, uint32_t u, unsigned code,
                  unsigned long *bad)
{
    const unsigned want = reference(k_rules[k], e5m2, u);

    if (want == code)
        return 1;
    if ((*bad)++ < 8)
        printf("rule %d %s: amax 0x%08X: inline 0x%02X, formats layer "
               "0x%02X\n",
               (int)k_rules[k], e5m2 ? "e5m2" : "e4m3fn", (unsigned)u, code,
               want);
    return 0;
}

static void test_value_every_code(void **state)
{
    unsigned c;
    unsigned long bad = 0;

    (void)state;
    for (c = 0; c <= 0xFFu; c++)
        if (kvg_i_bits(kvg_i_e8m0_value((uint8_t)c)) !=
                kvg_i_bits(kvg_e8m0_to_f32((uint8_t)c)) &&
            bad++ < 4)
            print_error("code 0x%02X differs\n", c);
    assert_int_equal(bad, 0);
}

/* From first principles: amax 448 is s = 1 under fl(1/448) (E 127, M
 * 0): CEIL 127, EBUMP 128, TRUNC 127; amax 449 has M != 0: CEIL 128. */
static void test_known_codes(void **state)
{
    (void)state;
    assert_int_equal(kvg_i_e8m0_fp8_code(KVG_E8M0_CEIL, 0,
                                         kvg_i_bits(448.0f)), 127);
    assert_int_equal(kvg_i_e8m0_fp8_code(KVG_E8M0_EBUMP, 0,
                                         kvg_i_bits(448.0f)), 128);
    assert_int_equal(kvg_i_e8m0_fp8_code(KVG_E8M0_TRUNC, 0,
                                         kvg_i_bits(448.0f)), 127);
    assert_int_equal(kvg_i_e8m0_fp8_code(KVG_E8M0_CEIL, 0,
                                         kvg_i_bits(449.0f)), 128);
    assert_int_equal(kvg_i_e8m0_fp8_code(KVG_E8M0_CEIL, 1, 0x7F800000u),
                     0xFF);
}

static void check_pattern(uint32_t u, unsigned long *bad)
{
    int k, e5m2;

    for (e5m2 = 0; e5m2 < 2; e5m2++)
        for (k = 0; k < RULES; k++)
            (void)agrees(k, e5m2, u,
                         kvg_i_e8m0_fp8_code(k_rules[k], e5m2, u), bad);
}

static void test_boundaries_and_random(void **state)
{
    static const uint32_t lows[] = {0x0000u, 0x0001u, 0x7FFFu,
                                    0x8000u, 0x8001u, 0xFFFFu};
    unsigned long bad = 0;
    uint32_t hi, seed = 0x2545F491u;
    size_t j;
    long i;

    (void)state;
    for (hi = 0; hi < 0x8000u; hi++)
        for (j = 0; j < sizeof lows / sizeof lows[0]; j++)
            check_pattern(hi << 16 | lows[j], &bad);
    for (i = 0; i < (1L << 20); i++) {
        seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
        check_pattern(seed & 0x7FFFFFFFu, &bad);
    }
    assert_int_equal(bad, 0);
}

/* ---- the sweep (label exhaustive) -------------------------------------- */

static int sweep(int e5m2, uint64_t stride)
{
    static uint8_t got[RULES][CHUNK];
    static uint32_t bits[CHUNK];
    unsigned long bad = 0;
    uint64_t u, seen = 0, calls = 0;
    int k;

    for (u = 0; u <= 0x7FFFFFFFull;) {
        const uint64_t left = (0x7FFFFFFFull - u) / stride + 1;
        const size_t n = left < CHUNK ? (size_t)left : CHUNK;
        size_t i;

        for (i = 0; i < n; i++)
            bits[i] = (uint32_t)(u + (uint64_t)i * stride);
        u += (uint64_t)n * stride;
        for (k = 0; k < RULES; k++)
            for (i = 0; i < n; i++)
                got[k][i] = kvg_i_e8m0_fp8_code(k_rules[k], e5m2, bits[i]);
        for (k = 0; k < RULES; k++) {
            calls += 2;
            (void)agrees(k, e5m2, bits[0], got[k][0], &bad);
            (void)agrees(k, e5m2, bits[n - 1], got[k][n - 1], &bad);
            for (i = SAMPLE_EVERY; i < n; i += SAMPLE_EVERY)
                calls++, (void)agrees(k, e5m2, bits[i], got[k][i], &bad);
            for (i = 1; i < n; i++)
                if (got[k][i] != got[k][i - 1]) {
                    calls += 2;
                    (void)agrees(k, e5m2, bits[i - 1], got[k][i - 1], &bad);
                    (void)agrees(k, e5m2, bits[i], got[k][i], &bad);
                }
        }
        seen += n;
    }
    printf("%s: %llu patterns x %d rules, %llu formats-layer calls, %lu "
           "mismatches\n",
           e5m2 ? "e5m2" : "e4m3fn", (unsigned long long)seen, RULES,
           (unsigned long long)calls, bad);
    return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_every_code),
        cmocka_unit_test(test_known_codes),
        cmocka_unit_test(test_boundaries_and_random),
    };
    if (argc >= 3 && strcmp(argv[1], "sweep") == 0) {
        const int e5m2 = strcmp(argv[2], "e5m2") == 0;
        unsigned long long stride = argc >= 4 ? strtoull(argv[3], NULL, 10)
                                              : 1;
        if ((!e5m2 && strcmp(argv[2], "e4m3fn") != 0) || stride == 0) {
            fprintf(stderr, "usage: test_e8m0_step sweep e4m3fn|e5m2 "
                            "[STRIDE]\n");
            return 2;
        }
        return sweep(e5m2, stride);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
