/*
 * tests/test_group_quant.c - the group-quantisation engine
 * (src/engines/group_quant.c) under each rule the packed-row epilogs use,
 * on hand-picked groups whose codes are derived here from first
 * principles (the bit patterns of the formats, the rule's arithmetic).
 *
 * Constants: fl(1/448) = 0x3B124925 = 2^-9 * 1.14285719...; fl(1/57344) =
 * 0x37924925; fl(1/6) = 0x3E2AAAAB = 2^-3 * 1.33333337. bf16 codes used:
 * 448 0x43E0, 1 0x3F80, -3 0xC040, 0.5 0x3F00, 2^-20 0x3580, 3 0x4040,
 * 1.25 0x3FA0, -0.375 0xBEC0, 0.125 0x3E00, -0.0625 0xBD80, 5 0x40A0,
 * 2 0x4000, 6 0x40C0, 7 0x40E0, 2^-126 0x0080, -0 0x8000.
 * e4m3fn codes: s eeee mmm, bias 7 (448 0x7E, 256 0x78, 224 0x76,
 * 4 0x48, 3 0x44, 1 0x38, 0.5 0x30, 1.5 0x3C). e5m2 57344 = 1.75 * 2^15:
 * 0 11110 11 = 0x7B. fp4 e2m1: 0 0x0, 0.5 0x1, 1 0x2, 2 0x4, 4 0x6,
 * 6 0x7, sign 0x8.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "kvgold/format.h"
#include "src/engines/group_quant.h"

#define G 64

/* The rules, written here as data from the spec's descriptions
 * (quant_epilogs.md section 5), not taken from the operator's presets. */
static kvg_i_group_rule rule_e8m0(int e8m0, kvg_i_scale_store store,
                                  kvg_dtype cast)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.name = "test";
    r.amax = KVG_I_AMAX_ALL;
    r.floor_1e4 = 1;
    r.coeff = cast == KVG_FP8_E5M2 ? 0x37924925u : 0x3B124925u;
    r.e8m0 = e8m0;
    r.store = store;
    r.op = KVG_I_PAY_DIV;
    r.clamp = 1;
    r.cast = cast;
    return r;
}

static kvg_i_group_rule rule_blk128(kvg_dtype cast)
{
    kvg_i_group_rule r = rule_e8m0(KVG_I_NO_E8M0, KVG_I_STORE_F32, cast);

    r.amax = KVG_I_AMAX_FINITE;
    r.floor_1e4 = 0;
    r.zero_scale_zero = 1;
    r.keep_x_nonfinite = 1;
    r.clamp = 0;
    return r;
}

static kvg_i_group_rule rule_amax6(void)
{
    kvg_i_group_rule r = rule_e8m0(KVG_I_NO_E8M0, KVG_I_STORE_BF16,
                                   KVG_FP4_E2M1);

    r.floor_1e4 = 0;
    r.coeff = 0x3E2AAAABu;
    r.op = KVG_I_PAY_INV6_BF16;
    return r;
}

static kvg_i_group_rule rule_ocp_bf16(void)
{
    kvg_i_group_rule r = rule_e8m0(KVG_I_NO_E8M0, KVG_I_STORE_OCP_BF16,
                                   KVG_FP4_E2M1);

    r.floor_1e4 = 0;
    r.coeff = 0;
    r.op = KVG_I_PAY_POW2_BF16;
    r.clamp = 0;
    return r;
}

/* A group of n bf16 codes: the given ones, then +0. */
static void group(unsigned char *x, int n, const uint16_t *codes, int k)
{
    int i;

    memset(x, 0, (size_t)n * 2);
    for (i = 0; i < k; i++) {
        x[2 * i] = (unsigned char)(codes[i] & 0xFF);
        x[2 * i + 1] = (unsigned char)(codes[i] >> 8);
    }
}

static void run(const kvg_i_group_rule *r, const uint16_t *codes, int k,
                int n, unsigned char *q, unsigned char *scale)
{
    unsigned char x[2 * G];

    group(x, n, codes, k);
    memset(q, 0xA5, G);
    memset(scale, 0xA5, 4);
    kvg_i_group_quant(r, x, n, 1.0f, q, scale);
}

/* amax = 448 = 1.75 * 2^8: s = 448 * fl(1/448) = 2^8 * 1.75 * 2^-9 *
 * 1.14285719 = 1.0000000298 -> rounds to exactly 1.0 (M(s) = 0).
 * R-CEIL: c = 127, s' = 1: 448 -> 0x7E, 1 -> 0x38, -3 -> 0xC4.
 * R-EBUMP: c = E + 1 = 128, s' = 2 (one binade up): 448 -> 224 0x76,
 * 1 -> 0.5 0x30, -3 -> -1.5 0xBC. R-TRUNC: c = 127, payload x / 1. */
static void ceil_vs_ebump(void **state)
{
    const uint16_t x[] = {0x43E0, 0x3F80, 0xC040};
    kvg_i_group_rule ceil = rule_e8m0(KVG_E8M0_CEIL, KVG_I_STORE_E8M0,
                                      KVG_FP8_E4M3FN);
    kvg_i_group_rule ebump = rule_e8m0(KVG_E8M0_EBUMP, KVG_I_STORE_E8M0,
                                       KVG_FP8_E4M3FN);
    unsigned char q[G], s[4];
    (void)state;

    run(&ceil, x, 3, G, q, s);
    assert_int_equal(s[0], 127);
    assert_int_equal(s[1], 0xA5); /* one byte stored, no more */
    assert_int_equal(q[0], 0x7E);
    assert_int_equal(q[1], 0x38);
    assert_int_equal(q[2], 0xC4);
    assert_int_equal(q[63], 0x00);
    run(&ebump, x, 3, G, q, s);
    assert_int_equal(s[0], 128);
    assert_int_equal(q[0], 0x76);
    assert_int_equal(q[1], 0x30);
    assert_int_equal(q[2], 0xBC);
}

/* amax = 1: s = fl(1/448) = 0x3B124925, E = 0x76 = 118, M != 0.
 * R-CEIL: c = 119, s' = 2^-8: x = 1 -> 256 = 0x78; bf16 store 2^-8 =
 * 0x3B80. R-EBUMP also 119 here. R-TRUNC: E8M0 byte 118 (0x76) while the
 * payload divides by the unrounded s: 1 / s = 447.99998 -> 448 (0x7E);
 * its bf16 store rounds 0x3B124925 to 0x3B12 (low half 0x4925 < 0x8000). */
static void binade_inside(void **state)
{
    const uint16_t x[] = {0x3F80};
    kvg_i_group_rule r = rule_e8m0(KVG_E8M0_CEIL, KVG_I_STORE_E8M0,
                                   KVG_FP8_E4M3FN);
    unsigned char q[G], s[4];
    (void)state;

    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0], 119);
    assert_int_equal(q[0], 0x78);
    r.e8m0 = KVG_E8M0_EBUMP;
    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0], 119);
    assert_int_equal(q[0], 0x78);
    r.e8m0 = KVG_E8M0_TRUNC;
    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0], 118);
    assert_int_equal(q[0], 0x7E);
    r.store = KVG_I_STORE_BF16;
    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x3B12);
    assert_int_equal(s[2], 0xA5);
    r.e8m0 = KVG_E8M0_CEIL;
    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x3B80);
    assert_int_equal(q[0], 0x78);
}

/* amax = 2^-20 < 1e-4: a = fl(1e-4); s = 1e-4 / 448 ~ 2.23e-7, between
 * 2^-23 and 2^-22: E = 104, M != 0, R-CEIL c = 105, s' = 2^-22, so
 * 2^-20 -> 4 (0x48). Without the floor c would follow 2^-20 / 448. An
 * all-zero group: the same c = 105 (0x69) and +0 codes. */
static void below_floor_and_zero(void **state)
{
    const uint16_t x[] = {0x3580};
    kvg_i_group_rule r = rule_e8m0(KVG_E8M0_CEIL, KVG_I_STORE_E8M0,
                                   KVG_FP8_E4M3FN);
    unsigned char q[G], s[4], zero[G];
    (void)state;

    run(&r, x, 1, G, q, s);
    assert_int_equal(s[0], 105);
    assert_int_equal(q[0], 0x48);
    run(&r, x, 0, G, q, s);
    assert_int_equal(s[0], 105);
    memset(zero, 0, sizeof zero);
    kvgt_assert_bytes_equal(q, zero, G, "zero group payload");
}

/* R-BLK128-FP32: s = amax * fl(1/448) stored as 4 fp32 bytes (LE);
 * amax = 1: s = 0x3B124925, 1 / s = 447.99998 -> 0x7E, 0.5 -> 224 0x76.
 * e5m2: s = 0x37924925, 1 / s -> 57344 = 0x7B. A zero group: s = 0
 * (bytes 0), q = x / 0 is NaN, so q := x: +0 -> 0x00, -0 -> 0x80. */
static void blk128_fp32(void **state)
{
    const uint16_t x[] = {0x3F80, 0x3F00};
    const uint16_t negzero[] = {0x0000, 0x8000};
    kvg_i_group_rule r = rule_blk128(KVG_FP8_E4M3FN);
    unsigned char q[G], s[4];
    (void)state;

    run(&r, x, 2, G, q, s);
    assert_int_equal(s[0], 0x25);
    assert_int_equal(s[1], 0x49);
    assert_int_equal(s[2], 0x12);
    assert_int_equal(s[3], 0x3B);
    assert_int_equal(q[0], 0x7E);
    assert_int_equal(q[1], 0x76);
    run(&r, negzero, 2, G, q, s);
    assert_int_equal(s[0] | s[1] | s[2] | s[3], 0);
    assert_int_equal(q[0], 0x00);
    assert_int_equal(q[1], 0x80);
    r = rule_blk128(KVG_FP8_E5M2);
    run(&r, x, 1, G, q, s);
    assert_int_equal(s[3] << 24 | s[2] << 16 | s[1] << 8 | s[0],
                     0x37924925);
    assert_int_equal(q[0], 0x7B);
}

/* FP4-AMAX6, group 16. amax = 3: scale = 3 * fl(1/6) = 2^-1 *
 * 1.0000000298, a quarter ulp above 0.5: 0.5, bf16 0x3F00; inv =
 * bf16(6/3) = 2. 3 -> 6 (0x7); 1.25 -> 2.5, a tie: even code 2 (0x4);
 * -0.375 -> -0.75, tie between 0.5 (0x1) and 1 (0x2): -1 (0xA); 0.125 ->
 * 0.25, tie: 0 (0x0); -0.0625 -> -0.125: -0 (0x8). Packed low nibble
 * first: bytes 0x47, 0x0A, 0x08. */
static void amax6_ties(void **state)
{
    const uint16_t x[] = {0x4040, 0x3FA0, 0xBEC0, 0x3E00, 0xBD80};
    kvg_i_group_rule r = rule_amax6();
    unsigned char q[G], s[4];
    (void)state;

    run(&r, x, 5, 16, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x3F00);
    assert_int_equal(q[0], 0x47);
    assert_int_equal(q[1], 0x0A);
    assert_int_equal(q[2], 0x08);
    assert_int_equal(q[7], 0x00);
    assert_int_equal(q[8], 0xA5); /* 16 codes are 8 bytes */
}

/* amax = 5: inv = bf16(6/5 = 1.2 = 0x3F99999A) = 0x3F99 = 1.1953125;
 * 5 * inv = 5.9765625 needs 8 mantissa bits: bf16 5.96875 -> (5, 6]: 6
 * (0x7); 2 * inv = 2.390625 (exact) -> [1.75, 2.5]: 2 (0x4). Scale:
 * 5 * fl(1/6) ~ 0.8333334 = 2^-1 * 1.6666668, bf16 mantissa 85.33/128 ->
 * 85: 0x3F55. A zero group: scale 0, inv 0, codes 0. */
static void amax6_inexact_inverse(void **state)
{
    const uint16_t x[] = {0x40A0, 0x4000};
    kvg_i_group_rule r = rule_amax6();
    unsigned char q[G], s[4];
    (void)state;

    run(&r, x, 2, 16, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x3F55);
    assert_int_equal(q[0], 0x47);
    run(&r, x, 0, 16, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x0000);
    assert_int_equal(q[0], 0x00);
}

/* R-OCP as a bf16 pattern (cr_v2 mxfp4). amax = 6: E = 129, scale
 * (129 - 2) << 7 = 0x3F80 (1.0), multiplier 0x7F00 - 0x3F80 = 1: 6 ->
 * 0x7, 5 -> tie 4 (0x6); amax = 7 (same E): 7 saturates to 6 in the
 * cast (no clamp) -> 0x7. amax = 2^-126 (E = 1): scale +0 but
 * multiplier 2^127: 2^-126 -> 2 (0x4). A zero group (E = 0): scale 0,
 * multiplier 0. */
static void ocp_bf16(void **state)
{
    const uint16_t six[] = {0x40C0, 0x40A0};
    const uint16_t seven[] = {0x40E0};
    const uint16_t tiny[] = {0x0080, 0x0080};
    kvg_i_group_rule r = rule_ocp_bf16();
    unsigned char q[G], s[4];
    (void)state;

    run(&r, six, 2, 32, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x3F80);
    assert_int_equal(q[0], 0x67);
    run(&r, seven, 1, 32, q, s);
    assert_int_equal(q[0], 0x07);
    run(&r, tiny, 2, 32, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x0000);
    assert_int_equal(q[0], 0x44);
    run(&r, tiny, 0, 32, q, s);
    assert_int_equal(s[0] | s[1] << 8, 0x0000);
    assert_int_equal(q[0], 0x00);
}

/* x * x_scale to hif8 (nearest-away, saturating), no scale: 1 * 2 = 2
 * decodes back to exactly 2; 7 * 8192 = 57344 > 40960 (hif8's overflow
 * boundary) saturates to 32768. */
static void xscale_hif8(void **state)
{
    const uint16_t x[] = {0x3F80, 0x40E0};
    kvg_i_group_rule r;
    unsigned char xb[4], q[2];
    (void)state;

    memset(&r, 0, sizeof r);
    r.e8m0 = KVG_I_NO_E8M0;
    r.store = KVG_I_STORE_NONE;
    r.op = KVG_I_PAY_XSCALE;
    r.cast = KVG_HIF8;
    group(xb, 2, x, 2);
    kvg_i_group_quant(&r, xb, 1, 2.0f, q, NULL);
    assert_true(kvg_hif8_to_f32(q[0]) == 2.0f);
    kvg_i_group_quant(&r, xb + 2, 1, 8192.0f, q, NULL);
    assert_true(kvg_hif8_to_f32(q[0]) == 32768.0f);
}

/* MX quant (e4m3fn, block 32, scale_alg 0) as a rule: R-OCP code
 * max(E(amax), 8) - 8, payload x * 2^(127 - c) saturating, code 0 zeroes,
 * 0xFF casts to +0 (docs/formats.md). */
static kvg_i_group_rule rule_dmq(kvg_dtype x_dtype)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.name = "dmq";
    r.amax = KVG_I_AMAX_ALL;
    r.e8m0 = KVG_E8M0_OCP;
    r.store = KVG_I_STORE_E8M0;
    r.op = KVG_I_PAY_DIV;
    r.clamp = 1;
    r.cast = KVG_FP8_E4M3FN;
    r.x_dtype = x_dtype;
    r.code0_zero = 1;
    r.nan_code_zero = 1;
    return r;
}

/* bf16 groups of 32. amax 448 = 1.75 * 2^8 (E 135): c = 127, m = 1:
 * 448 0x7E, 1 0x38, -3 0xC4. amax 3 (E 128): c = 120, m = 2^7: 3 -> 384
 * = 1.5 * 2^8 0x7C, 1 -> 128 0x70, -3 0xFC. amax 1.9375 (0x3FF8, E 127):
 * c = 119, m = 2^8: 496 > 448 saturates to 0x7E (not the NaN 0x7F).
 * amax 2^-120 (0x0380, E 7 <= 8): c = 0, payload x * 0: +0 0x00, -0 0x80.
 * An Inf in the group: c = 0xFF, every code +0. */
static void dmq_ocp_bf16(void **state)
{
    const uint16_t a[] = {0x43E0, 0x3F80, 0xC040};
    const uint16_t b[] = {0x4040, 0x3F80, 0xC040};
    const uint16_t c[] = {0x3FF8};
    const uint16_t d[] = {0x0380, 0x8380};
    const uint16_t e[] = {0x3F80, 0x7F80, 0xC000};
    kvg_i_group_rule r = rule_dmq(KVG_BF16);
    unsigned char q[G], s[4];
    (void)state;

    run(&r, a, 3, 32, q, s);
    assert_int_equal(s[0], 127);
    assert_int_equal(s[1], 0xA5);
    assert_int_equal(q[0], 0x7E);
    assert_int_equal(q[1], 0x38);
    assert_int_equal(q[2], 0xC4);
    assert_int_equal(q[31], 0x00);
    assert_int_equal(q[32], 0xA5); /* 32 codes, no more */
    run(&r, b, 3, 32, q, s);
    assert_int_equal(s[0], 120);
    assert_int_equal(q[0], 0x7C);
    assert_int_equal(q[1], 0x70);
    assert_int_equal(q[2], 0xFC);
    run(&r, c, 1, 32, q, s);
    assert_int_equal(s[0], 119);
    assert_int_equal(q[0], 0x7E);
    run(&r, d, 2, 32, q, s);
    assert_int_equal(s[0], 0);
    assert_int_equal(q[0], 0x00);
    assert_int_equal(q[1], 0x80);
    run(&r, e, 3, 32, q, s);
    assert_int_equal(s[0], 0xFF);
    assert_int_equal(q[0], 0x00);
    assert_int_equal(q[1], 0x00);
    assert_int_equal(q[2], 0x00);
}

/* fp16 and fp32 x, widened exactly: fp16 3 0x4200, 1 0x3C00, -3 0xC200
 * and fp32 3 0x40400000 give bf16's amax-3 group (c 120). q NULL: the
 * scale only, the payload bytes left as they were. */
static void dmq_ocp_wide(void **state)
{
    kvg_i_group_rule h = rule_dmq(KVG_FP16), f = rule_dmq(KVG_FP32);
    unsigned char x[4 * 32], q[32], s[2];
    const uint32_t f3 = 0x40400000u, fm1 = 0xBF800000u;
    (void)state;

    memset(x, 0, sizeof x);
    x[0] = 0x00, x[1] = 0x42, x[2] = 0x00, x[3] = 0x3C, x[4] = 0x00,
    x[5] = 0xC2;
    memset(q, 0xA5, sizeof q);
    kvg_i_group_quant(&h, x, 32, 1.0f, q, s);
    assert_int_equal(s[0], 120);
    assert_int_equal(q[0], 0x7C);
    assert_int_equal(q[1], 0x70);
    assert_int_equal(q[2], 0xFC);
    assert_int_equal(q[3], 0x00);
    memset(x, 0, sizeof x);
    memcpy(x, &f3, 4); /* kvgold's tensors are little-endian: so is the host */
    memcpy(x + 4, &fm1, 4);
    memset(q, 0xA5, sizeof q);
    kvg_i_group_quant(&f, x, 32, 1.0f, q, s);
    assert_int_equal(s[0], 120);
    assert_int_equal(q[0], 0x7C);
    assert_int_equal(q[1], 0xF0);
    memset(q, 0xA5, sizeof q);
    s[0] = 0;
    kvg_i_group_quant(&f, x, 32, 1.0f, NULL, s);
    assert_int_equal(s[0], 120);
    assert_int_equal(q[0], 0xA5);
}

/* ---- a row's groups in one call -------------------------------------- */

static uint32_t s_rng = 0x2545F491u;

static uint32_t next_rand(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 17;
    s_rng ^= s_rng << 5;
    return s_rng;
}

/* n_x elements of xb bytes: random codes around a per-group binade
 * (bf16 / fp16 / fp32 alike: the top 16 bits hold sign, exponent and
 * the top mantissa bits; fp32's low half random), one group in eight all
 * zero, one element in 64 an inf or NaN. */
static void random_groups(unsigned char *x, int n, int groups, size_t xb)
{
    int k, i;
    size_t at;

    for (k = 0; k < groups; k++) {
        const uint32_t e = xb == 2 && (next_rand() & 1) ? 8 + next_rand() % 14
                                                        : 96 + next_rand() % 60;
        const int zero = next_rand() % 8 == 0;

        for (i = 0; i < n; i++) {
            uint32_t c = (next_rand() & 0x807Fu) | (e + next_rand() % 5) << 7;
            if (xb == 2 && e < 30) /* fp16: 5-bit exponent */
                c = (next_rand() & 0x83FFu) | (e + next_rand() % 5) << 10;
            if (next_rand() % 64 == 0)
                c |= 0x7FFFu; /* a NaN (fp16: also past inf) */
            if (zero)
                c = 0;
            at = xb * (size_t)(k * n + i);
            if (xb == 4) {
                const uint32_t lo = zero ? 0 : next_rand() & 0xFFFFu;
                x[at] = (unsigned char)lo;
                x[at + 1] = (unsigned char)(lo >> 8);
                at += 2;
            }
            x[at] = (unsigned char)c;
            x[at + 1] = (unsigned char)(c >> 8);
        }
    }
}

/* How many of the n bytes at p are the payload poison 0xA5: a run of
 * 8 codes equal to it (a possible code) is improbable on random groups,
 * so 0 here means the payload was written. */
static size_t poisoned(const unsigned char *p, size_t n)
{
    size_t i, run = 0, longest = 0;

    for (i = 0; i < n; i++) {
        run = p[i] == 0xA5 ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    return longest == n ? n : longest >= 8 ? longest : 0;
}

/* kvg_i_group_quant_run is, by its contract, `groups` calls of
 * kvg_i_group_quant (tested above from first principles); it quantises
 * several groups a loop where they fit, so it is checked against those
 * calls on random groups, for every rule above and group counts around
 * the batches (1, 3, 4, 5, 9 and 13 groups of 16 to 128 elements): the
 * codes and scales equal, nothing written past them, and with q NULL the
 * scales only. */
static void run_is_groups(void **state)
{
    enum { MAXN = 128, MAXG = 13, TAIL = 8 };
    kvg_i_group_rule rules[8];
    static unsigned char x[4 * MAXN * MAXG];
    static unsigned char q1[MAXN * MAXG + TAIL], q2[MAXN * MAXG + TAIL];
    unsigned char s1[4 * MAXG + TAIL], s2[4 * MAXG + TAIL];
    const int ns[] = {16, 32, 64, 128};
    const int gs[] = {1, 3, 4, 5, 9, 13};
    int ri, ni, gi, k, rep;
    (void)state;

    rules[0] = rule_e8m0(KVG_E8M0_CEIL, KVG_I_STORE_E8M0, KVG_FP8_E4M3FN);
    rules[1] = rule_e8m0(KVG_E8M0_EBUMP, KVG_I_STORE_E8M0, KVG_FP8_E5M2);
    rules[2] = rule_e8m0(KVG_E8M0_TRUNC, KVG_I_STORE_BF16, KVG_FP8_E4M3FN);
    rules[3] = rule_blk128(KVG_FP8_E4M3FN);
    rules[4] = rule_amax6();
    rules[5] = rule_ocp_bf16();
    rules[5].x_dtype = KVG_FP16; /* the sticky bf16 multiply */
    rules[6] = rule_dmq(KVG_FP16);
    rules[7] = rule_dmq(KVG_FP32);
    for (ri = 0; ri < 8; ri++)
        for (ni = 0; ni < 4; ni++)
            for (gi = 0; gi < 6; gi++)
                for (rep = 0; rep < 2; rep++) {
                    const kvg_i_group_rule *r = &rules[ri];
                    const int n = ns[ni], groups = gs[gi];
                    const size_t xb = kvg_i_group_x_bytes(r);
                    const size_t qb = kvg_i_group_payload_bytes(r, n);
                    const size_t sb = kvg_i_group_scale_bytes(r);
                    const size_t qall = qb * (size_t)groups;
                    const size_t sall = sb * (size_t)groups;

                    random_groups(x, n, groups, xb);
                    memset(q1, 0xA5, sizeof q1);
                    memset(q2, 0xA5, sizeof q2);
                    memset(s1, 0x5A, sizeof s1);
                    memset(s2, 0x5A, sizeof s2);
                    kvg_i_group_quant_run(r, x, n, groups, 0.75f,
                                          rep ? NULL : q1, s1);
                    for (k = 0; k < groups; k++)
                        kvg_i_group_quant(r, x + xb * (size_t)(k * n), n,
                                          0.75f,
                                          rep ? NULL : q2 + qb * (size_t)k,
                                          s2 + sb * (size_t)k);
                    assert_memory_equal(q1, q2, qall + TAIL);
                    assert_memory_equal(s1, s2, sall + TAIL);
                    assert_int_equal(q1[qall], 0xA5);
                    assert_int_equal(s1[sall], 0x5A);
                    /* q NULL: no payload byte written; else some
                     * code is not the poison */
                    assert_int_equal(poisoned(q1, qall), rep ? qall : 0);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ceil_vs_ebump),
        cmocka_unit_test(binade_inside),
        cmocka_unit_test(below_floor_and_zero),
        cmocka_unit_test(blk128_fp32),
        cmocka_unit_test(amax6_ties),
        cmocka_unit_test(amax6_inexact_inverse),
        cmocka_unit_test(ocp_bf16),
        cmocka_unit_test(xscale_hif8),
        cmocka_unit_test(dmq_ocp_bf16),
        cmocka_unit_test(dmq_ocp_wide),
        cmocka_unit_test(run_is_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
