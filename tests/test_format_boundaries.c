/*
 * tests/test_format_boundaries.c - round trip of every code of every format
 * in every overflow mode, and the boundaries of each format listed one by
 * one, each expectation derived by hand from the format's definition
 * (docs/formats.md; the derivation is in the comment of each row).
 *
 * Inputs are binary32 values written as C99 hexadecimal literals (exact),
 * moved by `ulp` binary32 steps away from (+1) or toward (-1) zero, or raw
 * bit patterns for NaNs.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"

enum { D = KVG_OVF_DEFAULT, S = KVG_OVF_SATURATE, N = KVG_OVF_NONSAT };
#define ALL (-1) /* the row holds for all three modes */

typedef struct row {
    double value;     /* exact binary32 value */
    int ulp;          /* binary32 steps in magnitude */
    uint32_t raw;     /* if non-zero: the input bit pattern (NaNs) */
    int mode;         /* D, S, N or ALL */
    uint32_t want;    /* expected code */
} row;

static uint32_t input_bits(const row *r)
{
    float f;
    uint32_t u;
    if (r->raw != 0)
        return r->raw;
    f = (float)r->value;
    if ((double)f != r->value)
        fail_msg("row value %a is not a binary32 value", r->value);
    u = kvg_f32_bits(f);
    /* step the magnitude; the sign bit is untouched */
    return (uint32_t)((int64_t)u + r->ulp);
}

typedef uint32_t (*encoder)(float, kvg_overflow);

static void run_rows(const char *name, encoder enc, const row *rows,
                     size_t n)
{
    size_t k;
    int m, bad = 0;
    for (k = 0; k < n; k++) {
        const uint32_t u = input_bits(&rows[k]);
        for (m = D; m <= N; m++) {
            uint32_t got;
            if (rows[k].mode != ALL && rows[k].mode != m)
                continue;
            got = enc(kvg_f32_from_bits(u), (kvg_overflow)m);
            if (got != rows[k].want) {
                fprintf(stderr, "%s row %lu: input 0x%08X (%a) mode %d: got "
                        "0x%X, want 0x%X\n", name, (unsigned long)k,
                        (unsigned)u, (double)kvg_f32_from_bits(u), m,
                        (unsigned)got, (unsigned)rows[k].want);
                bad++;
            }
        }
    }
    if (bad)
        fail_msg("%s: %d boundary checks failed", name, bad);
}

#define RUN(name, enc, rows) run_rows(name, enc, rows, sizeof rows / sizeof rows[0])

static uint32_t e_fp16(float x, kvg_overflow m) { return kvg_f32_to_fp16(x, m); }
static uint32_t e_bf16(float x, kvg_overflow m) { return kvg_f32_to_bf16(x, m); }
static uint32_t e_e4m3(float x, kvg_overflow m) { return kvg_f32_to_fp8e4m3fn(x, m); }
static uint32_t e_e5m2(float x, kvg_overflow m) { return kvg_f32_to_fp8e5m2(x, m); }
static uint32_t e_hif8(float x, kvg_overflow m) { return kvg_f32_to_hif8(x, m); }
static uint32_t e_int8(float x, kvg_overflow m)
{
    (void)m;
    return (uint8_t)kvg_f32_to_int8(x);
}

/* ---- fp16: 1-5-10, bias 15, emin -14, max 65504 = 0x7BFF ---------------- */
static const row k_fp16[] = {
    {0x1.ffcp15, 0, 0, ALL, 0x7BFF},  /* max */
    {0x1.ffcp15, 1, 0, ALL, 0x7BFF},  /* max + 1 binary32 ulp */
    /* 65520 = max + half an fp16 ulp (32): the tie goes to the even code,
     * 0x7C00, which is past max: overflow */
    {0x1.ffep15, -1, 0, ALL, 0x7BFF}, /* just below the threshold */
    {0x1.ffep15, 0, 0, D, 0x7C00},
    {0x1.ffep15, 0, 0, S, 0x7BFF},
    {0x1.ffep15, 0, 0, N, 0x7C00},
    {0x1.ffep15, 1, 0, S, 0x7BFF},    /* just above */
    {0x1.ffep15, 1, 0, N, 0x7C00},
    {-0x1.ffep15, 0, 0, D, 0xFC00},
    {-0x1.ffep15, 0, 0, S, 0xFBFF},
    {0x1p16, 0, 0, D, 0x7C00},
    {0x1.fffffep127, 0, 0, S, 0x7BFF}, /* FLT_MAX */
    {0x1.fffffep127, 0, 0, N, 0x7C00},
    {0x1p-14, 0, 0, ALL, 0x0400},     /* min normal */
    {0x1p-14, -1, 0, ALL, 0x0400},    /* 2^-38 below: still nearest */
    /* 2^-14 - 2^-25: tie between 0x03FF (odd) and 0x0400 (even) */
    {0x1.ffcp-15, 0, 0, ALL, 0x0400},
    {0x1.ffcp-15, -1, 0, ALL, 0x03FF},
    {0x1.ffcp-15, 1, 0, ALL, 0x0400},
    {0x1.ff8p-15, 0, 0, ALL, 0x03FF}, /* max subnormal 1023 * 2^-24 */
    {0x1.ffp-15, 0, 0, ALL, 0x03FE},  /* 2^-14 - 2^-23 = 1022 * 2^-24 */
    {0x1p-24, 0, 0, ALL, 0x0001},     /* min subnormal */
    {0x1p-25, 0, 0, ALL, 0x0000},     /* tie 0 / 1: even 0 */
    {0x1p-25, 1, 0, ALL, 0x0001},
    {-0x1p-25, 0, 0, ALL, 0x8000},    /* rounds to zero: -0 */
    {0x1.8p-24, 0, 0, ALL, 0x0002},   /* tie 1 / 2: even 2 */
    {0x1.4p-23, 0, 0, ALL, 0x0002},   /* 2.5 * 2^-24, tie 2 / 3: 2 */
    {0x1.002p0, 0, 0, ALL, 0x3C00},   /* 1 + 2^-11, tie: even 1.0 */
    {0x1.002p0, 1, 0, ALL, 0x3C01},
    {0x1.006p0, 0, 0, ALL, 0x3C02},   /* 1 + 3 * 2^-11, tie: even */
    {0.0, 0, 0, ALL, 0x0000},
    {-0.0, 0, 0, ALL, 0x8000},
    {0, 0, 0x00000001u, ALL, 0x0000}, /* binary32 subnormal */
    {0, 0, 0x80000001u, ALL, 0x8000},
    {0, 0, 0x7F800000u, D, 0x7C00},   /* +inf */
    {0, 0, 0x7F800000u, S, 0x7BFF},
    {0, 0, 0xFF800000u, S, 0xFBFF},
    {0, 0, 0xFF800000u, N, 0xFC00},
    /* NaN: sign, quiet bit, top 10 payload bits */
    {0, 0, 0x7FC00000u, ALL, 0x7E00},
    {0, 0, 0xFFC00000u, ALL, 0xFE00},
    {0, 0, 0x7F800001u, ALL, 0x7E00}, /* payload below bit 13 is lost */
    {0, 0, 0x7FA00000u, ALL, 0x7F00}, /* signalling, payload bit 21 */
    {0, 0, 0x7F802000u, ALL, 0x7E01},
    {0, 0, 0x7FFFFFFFu, ALL, 0x7FFF},
};

/* ---- bf16: 1-8-7, bias 127, max 0x7F7F = 0x1.fep127 -------------------- */
static const row k_bf16[] = {
    {0x1.fep127, 0, 0, ALL, 0x7F7F},
    /* max + half ulp = 0x7F7F8000: tie, even code 0x7F80 = inf */
    {0, 0, 0x7F7F7FFFu, ALL, 0x7F7F},
    {0, 0, 0x7F7F8000u, D, 0x7F80},
    {0, 0, 0x7F7F8000u, S, 0x7F7F},
    {0, 0, 0x7F7F8000u, N, 0x7F80},
    {0, 0, 0x7F7FFFFFu, S, 0x7F7F},
    {0, 0, 0x7F7FFFFFu, N, 0x7F80},
    {0, 0, 0xFF7F8000u, D, 0xFF80},
    {0x1p-126, 0, 0, ALL, 0x0080},    /* min normal */
    {0, 0, 0x007F8000u, ALL, 0x0080}, /* tie 0x007F / 0x0080: even */
    {0, 0, 0x007F7FFFu, ALL, 0x007F},
    {0x1p-133, 0, 0, ALL, 0x0001},    /* min subnormal */
    {0x1p-134, 0, 0, ALL, 0x0000},    /* tie 0 / 1: even */
    {0x1p-134, 1, 0, ALL, 0x0001},
    {0x1.8p-133, 0, 0, ALL, 0x0002},  /* tie 1 / 2: even */
    {-0x1p-134, 0, 0, ALL, 0x8000},
    {0x1.01p0, 0, 0, ALL, 0x3F80},    /* 1 + 2^-8, tie: even */
    {0x1.03p0, 0, 0, ALL, 0x3F82},    /* 1 + 3 * 2^-8, tie: even */
    {0x1.01p0, 1, 0, ALL, 0x3F81},
    {0, 0, 0x00000001u, ALL, 0x0000}, /* 2^-149: far below 2^-134 */
    {-0.0, 0, 0, ALL, 0x8000},
    {0, 0, 0x7F800000u, D, 0x7F80},
    {0, 0, 0x7F800000u, S, 0x7F7F},
    {0, 0, 0xFF800000u, S, 0xFF7F},
    {0, 0, 0x7FC00000u, ALL, 0x7FC0},
    {0, 0, 0x7F800001u, ALL, 0x7FC0},
    {0, 0, 0x7F810000u, ALL, 0x7FC1},
    {0, 0, 0xFFFFFFFFu, ALL, 0xFFFF},
};

/* ---- fp8 e4m3fn: 1-4-3, bias 7, max 448 = 0x7E, NaN S.1111.111 ---------- */
static const row k_e4m3[] = {
    {448.0, 0, 0, ALL, 0x7E},
    /* 464 = 448 + half ulp (32): tie between 0x7E (even) and the virtual
     * 480 (code 0x7F, odd): stays 448 in every mode */
    {464.0, 0, 0, ALL, 0x7E},
    {464.0, -1, 0, ALL, 0x7E},
    {464.0, 1, 0, D, 0x7E},
    {464.0, 1, 0, S, 0x7E},
    {464.0, 1, 0, N, 0x7F},
    {-464.0, 1, 0, N, 0xFF},
    {480.0, 0, 0, S, 0x7E},
    {480.0, 0, 0, N, 0x7F},
    {256.0, 0, 0, ALL, 0x78},          /* S.1111.000 is a number */
    {0x1p-6, 0, 0, ALL, 0x08},         /* min normal */
    {0x1.ep-7, 0, 0, ALL, 0x08},       /* 7.5 * 2^-9: tie 0x07 / 0x08 */
    {0x1.ep-7, -1, 0, ALL, 0x07},
    {0x1.cp-7, 0, 0, ALL, 0x07},       /* max subnormal 7 * 2^-9 */
    {0x1p-9, 0, 0, ALL, 0x01},         /* min subnormal */
    {0x1p-10, 0, 0, ALL, 0x00},        /* tie 0 / 1: even */
    {0x1p-10, 1, 0, ALL, 0x01},
    {-0x1p-10, 0, 0, ALL, 0x80},
    {0x1.8p-9, 0, 0, ALL, 0x02},       /* tie 1 / 2: even */
    {0x1.4p-8, 0, 0, ALL, 0x02},       /* 2.5 * 2^-9, tie 2 / 3: even */
    {0x1.1p0, 0, 0, ALL, 0x38},        /* 1 + 1/16, tie: even 1.0 */
    {0x1.3p0, 0, 0, ALL, 0x3A},        /* 1 + 3/16, tie: even 1.25 */
    {-0.0, 0, 0, ALL, 0x80},
    {0, 0, 0x7F800000u, D, 0x7E},
    {0, 0, 0x7F800000u, N, 0x7F},
    {0, 0, 0xFF800000u, S, 0xFE},
    {0, 0, 0xFF800000u, N, 0xFF},
    {0, 0, 0x7FC00000u, ALL, 0x7F},
    {0, 0, 0xFFC00000u, ALL, 0xFF},
    {0, 0, 0x7F800001u, ALL, 0x7F},
};

/* ---- fp8 e5m2: 1-5-2, bias 15, max 57344 = 0x7B, IEEE inf/NaN ---------- */
static const row k_e5m2[] = {
    {57344.0, 0, 0, ALL, 0x7B},
    /* 61440 = max + half ulp (4096): tie between 0x7B (odd) and 0x7C
     * (even, past max): overflow */
    {61440.0, -1, 0, ALL, 0x7B},
    {61440.0, 0, 0, D, 0x7B},
    {61440.0, 0, 0, S, 0x7B},
    {61440.0, 0, 0, N, 0x7C},
    {61440.0, 1, 0, N, 0x7C},
    {-61440.0, 0, 0, N, 0xFC},
    {0x1p-14, 0, 0, ALL, 0x04},        /* min normal */
    {0x1.cp-15, 0, 0, ALL, 0x04},      /* 3.5 * 2^-16: tie 0x03 / 0x04 */
    {0x1.cp-15, -1, 0, ALL, 0x03},
    {0x1p-16, 0, 0, ALL, 0x01},        /* min subnormal */
    {0x1p-17, 0, 0, ALL, 0x00},        /* tie: even 0 */
    {0x1p-17, 1, 0, ALL, 0x01},
    {-0x1p-17, 0, 0, ALL, 0x80},
    {0x1.8p-16, 0, 0, ALL, 0x02},      /* tie 1 / 2: even */
    {0x1.2p0, 0, 0, ALL, 0x3C},        /* 1 + 1/8, tie: even 1.0 */
    {0x1.6p0, 0, 0, ALL, 0x3E},        /* 1 + 3/8, tie: even 1.5 */
    {0, 0, 0x7F800000u, D, 0x7B},
    {0, 0, 0x7F800000u, N, 0x7C},
    {0, 0, 0xFF800000u, S, 0xFB},
    {0, 0, 0x7FC00000u, ALL, 0x7E},
    {0, 0, 0xFFC00000u, ALL, 0xFE},
    {0, 0, 0x7F800001u, ALL, 0x7E},
    {0, 0, 0x7FFFFFFFu, ALL, 0x7E},
};

/* ---- hif8: max 32768 = 0x6E, Inf 0x6F, min 2^-22 = 0x01, ties away ------ */
static const row k_hif8[] = {
    {32768.0, 0, 0, ALL, 0x6E},
    /* 40960 = 32768 + half the step to the would-be 49152: tie, away from
     * zero: overflow */
    {40960.0, -1, 0, ALL, 0x6E},
    {40960.0, 0, 0, D, 0x6E},
    {40960.0, 0, 0, S, 0x6E},
    {40960.0, 0, 0, N, 0x6F},
    {-40960.0, 0, 0, N, 0xEF},
    {-40960.0, 0, 0, D, 0xEE},
    {49152.0, 0, 0, S, 0x6E},
    {49152.0, 0, 0, N, 0x6F},
    {0x1p-15, 0, 0, ALL, 0x7E},        /* smallest normal */
    {0x1.8p-15, 0, 0, ALL, 0x7F},
    {0x1.8p-16, 0, 0, ALL, 0x7E},      /* tie 2^-16 / 2^-15: away */
    {0x1.8p-16, -1, 0, ALL, 0x07},
    {0x1p-16, 0, 0, ALL, 0x07},        /* largest denormal */
    {0x1p-22, 0, 0, ALL, 0x01},        /* min */
    {0x1.8p-22, 0, 0, ALL, 0x02},      /* tie 2^-22 / 2^-21: away */
    {0x1p-23, 0, 0, ALL, 0x01},        /* tie 0 / 2^-22: away */
    {0x1p-23, -1, 0, ALL, 0x00},
    {-0x1p-23, 0, 0, ALL, 0x81},
    {-0x1p-23, -1, 0, ALL, 0x00},      /* no -0: +0 */
    {-0.0, 0, 0, ALL, 0x00},
    {0, 0, 0x80000001u, ALL, 0x00},
    {1.75, 0, 0, ALL, 0x0E},           /* a code: exact */
    {0x1.fp0, 0, 0, ALL, 0x10},        /* 1.9375: tie 1.875 / 2: away */
    {0x1.1p0, 0, 0, ALL, 0x09},        /* 1 + 1/16: tie: away */
    {0x1.1p0, -1, 0, ALL, 0x08},
    {15.5, 0, 0, ALL, 0x40},           /* tie 15 / 16 across widths */
    {18.0, 0, 0, ALL, 0x41},           /* tie 16 / 20: away */
    {18.0, -1, 0, ALL, 0x40},
    {0x1.2p-4, 0, 0, ALL, 0x51},       /* tie 2^-4 / 1.25 * 2^-4: away */
    {-0x1.2p-4, 0, 0, ALL, 0xD1},
    {0.5, 0, 0, ALL, 0x18},
    {0, 0, 0x7F800000u, D, 0x6E},
    {0, 0, 0x7F800000u, N, 0x6F},
    {0, 0, 0xFF800000u, S, 0xEE},
    {0, 0, 0xFF800000u, N, 0xEF},
    {0, 0, 0x7FC00000u, ALL, 0x80},
    {0, 0, 0xFFC00000u, ALL, 0x80},
    {0, 0, 0x7F800001u, ALL, 0x80},
};

/* ---- int8: round half to even, saturate, NaN -> 0 ---------------------- */
static const row k_int8[] = {
    {0.5, 0, 0, D, 0x00},  {0.5, 1, 0, D, 0x01},  {0.5, -1, 0, D, 0x00},
    {1.5, 0, 0, D, 0x02},  {2.5, 0, 0, D, 0x02},  {-0.5, 0, 0, D, 0x00},
    {-1.5, 0, 0, D, 0xFE}, {-2.5, 0, 0, D, 0xFE}, {-2.5, 1, 0, D, 0xFD},
    {126.5, 0, 0, D, 0x7E}, {127.0, 0, 0, D, 0x7F}, {127.5, 0, 0, D, 0x7F},
    {128.0, 0, 0, D, 0x7F}, {-127.5, 0, 0, D, 0x80}, {-128.0, 0, 0, D, 0x80},
    {-128.5, 0, 0, D, 0x80}, {-129.0, 0, 0, D, 0x80},
    {0x1.fffffep22, 0, 0, D, 0x7F},   /* 8388607.5 */
    {0x1p100, 0, 0, D, 0x7F}, {-0x1p100, 0, 0, D, 0x80},
    {-0.0, 0, 0, D, 0x00},
    {0, 0, 0x00000001u, D, 0x00},
    {0, 0, 0x7F800000u, D, 0x7F}, {0, 0, 0xFF800000u, D, 0x80},
    {0, 0, 0x7FC00000u, D, 0x00}, {0, 0, 0xFFFFFFFFu, D, 0x00},
};

static void test_boundaries_fp16(void **s) { (void)s; RUN("fp16", e_fp16, k_fp16); }
static void test_boundaries_bf16(void **s) { (void)s; RUN("bf16", e_bf16, k_bf16); }
static void test_boundaries_e4m3(void **s) { (void)s; RUN("e4m3fn", e_e4m3, k_e4m3); }
static void test_boundaries_e5m2(void **s) { (void)s; RUN("e5m2", e_e5m2, k_e5m2); }
static void test_boundaries_hif8(void **s) { (void)s; RUN("hif8", e_hif8, k_hif8); }
static void test_boundaries_int8(void **s) { (void)s; RUN("int8", e_int8, k_int8); }

/* ---- round trip of every code ------------------------------------------- */

/*
 * encode(decode(c)) per mode, from the rules: a finite code comes back
 * unchanged (+-0 included); an infinity comes back under NONSAT and as
 * +-max under SATURATE; a NaN comes back as the format's NaN for that
 * input (fp16/bf16: the same code with the quiet bit set; e5m2: S|0x7E;
 * e4m3fn and hif8: unchanged, their NaNs being unique per sign).
 */
typedef struct rt_format {
    const char *name;
    int bits;
    float (*decode)(uint32_t);
    encoder enc;
    kvg_overflow default_mode;
    uint32_t max_code, quiet; /* quiet: bit OR-ed into a NaN (0: none) */
    int has_inf, nan_canon;   /* nan_canon: NaNs become S|nan_canon */
} rt_format;

static float d_fp16(uint32_t c) { return kvg_fp16_to_f32((uint16_t)c); }
static float d_bf16(uint32_t c) { return kvg_bf16_to_f32((uint16_t)c); }
static float d_e4m3(uint32_t c) { return kvg_fp8e4m3fn_to_f32((uint8_t)c); }
static float d_e5m2(uint32_t c) { return kvg_fp8e5m2_to_f32((uint8_t)c); }
static float d_hif8(uint32_t c) { return kvg_hif8_to_f32((uint8_t)c); }

static const rt_format k_rt[] = {
    {"fp16", 16, d_fp16, e_fp16, KVG_OVF_NONSAT, 0x7BFF, 0x0200, 1, 0},
    {"bf16", 16, d_bf16, e_bf16, KVG_OVF_NONSAT, 0x7F7F, 0x0040, 1, 0},
    {"fp8_e4m3fn", 8, d_e4m3, e_e4m3, KVG_OVF_SATURATE, 0x7E, 0, 0, 0},
    {"fp8_e5m2", 8, d_e5m2, e_e5m2, KVG_OVF_SATURATE, 0x7B, 0, 1, 0x7E},
    {"hif8", 8, d_hif8, e_hif8, KVG_OVF_SATURATE, 0x6E, 0, 1, 0},
};

static void test_round_trip(void **state)
{
    size_t f;
    (void)state;
    for (f = 0; f < sizeof k_rt / sizeof k_rt[0]; f++) {
        const rt_format *r = &k_rt[f];
        const uint32_t sign = 1u << (r->bits - 1);
        uint32_t c, counted[3] = {0, 0, 0};
        for (c = 0; c < (1u << r->bits); c++) {
            const float v = r->decode(c);
            int m;
            for (m = D; m <= N; m++) {
                const kvg_overflow eff =
                    m == D ? r->default_mode : (kvg_overflow)m;
                uint32_t want = c;
                if (isinf(v)) {
                    want = eff == KVG_OVF_SATURATE ? (c & sign) | r->max_code
                                                   : c;
                    counted[0]++;
                } else if (isnan(v)) {
                    want = r->nan_canon ? (c & sign) | (uint32_t)r->nan_canon
                                        : c | r->quiet;
                    counted[1]++;
                } else {
                    counted[2]++;
                }
                if (r->enc(v, (kvg_overflow)m) != want)
                    fail_msg("%s: code 0x%X -> %a -> 0x%X in mode %d, want "
                             "0x%X", r->name, (unsigned)c, (double)v,
                             (unsigned)r->enc(v, (kvg_overflow)m), m,
                             (unsigned)want);
            }
        }
        /* the code census of the header, three modes each: 2 infinities
         * where the format has them; NaNs: fp16 2 * 1023, bf16 2 * 127,
         * e5m2 2 * 3, e4m3fn 2, hif8 1 */
        assert_int_equal(counted[0], r->has_inf ? 6u : 0u);
        if (strcmp(r->name, "fp16") == 0)
            assert_int_equal(counted[1], 3u * 2046u);
        else if (strcmp(r->name, "bf16") == 0)
            assert_int_equal(counted[1], 3u * 254u);
        else if (strcmp(r->name, "fp8_e5m2") == 0)
            assert_int_equal(counted[1], 3u * 6u);
        else if (strcmp(r->name, "fp8_e4m3fn") == 0)
            assert_int_equal(counted[1], 3u * 2u);
        else
            assert_int_equal(counted[1], 3u * 1u);
    }
}

static void test_round_trip_int8(void **state)
{
    int c;
    (void)state;
    for (c = -128; c <= 127; c++) {
        const signed char b = (signed char)c;
        float v = 0.0f;
        assert_int_equal(kvg_decode_f32(KVG_INT8, &b, &v), KVG_OK);
        assert_true(v == (float)c);
        assert_int_equal(kvg_f32_to_int8(v), c);
    }
}

/* HiF8 decodes: the landmarks of docs/formats.md, from the paper. */
static void test_hif8_landmarks(void **state)
{
    uint32_t c, finite = 0, w3 = 0, w2 = 0, w1 = 0, dml = 0;
    (void)state;
    assert_true(kvg_hif8_to_f32(0x00) == 0.0f && !signbit(kvg_hif8_to_f32(0x00)));
    assert_true(isnan(kvg_hif8_to_f32(0x80)));
    assert_true(kvg_hif8_to_f32(0x6F) == HUGE_VALF);
    assert_true(kvg_hif8_to_f32(0xEF) == -HUGE_VALF);
    assert_true(kvg_hif8_to_f32(0x6E) == 32768.0f);
    assert_true(kvg_hif8_to_f32(0x01) == 0x1p-22f);
    assert_true(kvg_hif8_to_f32(0x07) == 0x1p-16f);
    assert_true(kvg_hif8_to_f32(0x7E) == 0x1p-15f);
    assert_true(kvg_hif8_to_f32(0x08) == 1.0f);
    assert_true(kvg_hif8_to_f32(0x0E) == 1.75f);
    assert_true(kvg_hif8_to_f32(0x5B) == 0x1.cp-6f);
    /* per positive code: mantissa width from the spacing to the binade */
    for (c = 1; c < 0x80; c++) {
        const float v = kvg_hif8_to_f32((uint8_t)c);
        int e;
        float m;
        if (isinf(v))
            continue;
        finite++;
        m = frexpf(v, &e) * 2.0f - 1.0f; /* fraction in [0, 1) */
        if (c < 8)
            dml++, assert_true(m == 0.0f && e - 1 == (int)c - 23);
        else if (abs(e - 1) <= 3)
            w3++, assert_true(m * 8.0f == floorf(m * 8.0f));
        else if (abs(e - 1) <= 7)
            w2++, assert_true(m * 4.0f == floorf(m * 4.0f));
        else
            w1++, assert_true(m * 2.0f == floorf(m * 2.0f));
        assert_true(kvg_hif8_to_f32((uint8_t)(c | 0x80)) == -v);
    }
    /* the paper's census: 7 exponents x 8 + 8 x 4 + 16 x 2 (- Inf) + 7 */
    assert_int_equal(w3, 56);
    assert_int_equal(w2, 32);
    assert_int_equal(w1, 31);
    assert_int_equal(dml, 7);
    assert_int_equal(finite, 126);
}

/* ---- the generic API ------------------------------------------------------ */

static void test_generic_errors(void **state)
{
    unsigned char buf[16], before[16];
    float v = 1.25f;
    (void)state;
    kvgt_poison(buf, sizeof buf, 7);
    memcpy(before, buf, sizeof buf);
    assert_int_equal(kvg_encode_f32(KVG_DTYPE_INVALID, 1.0f, KVG_OVF_DEFAULT, buf),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_encode_f32(KVG_INT32, 1.0f, KVG_OVF_DEFAULT, buf),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_encode_f32(KVG_INT64, 1.0f, KVG_OVF_DEFAULT, buf),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_encode_f32((kvg_dtype)99, 1.0f, KVG_OVF_DEFAULT, buf),
                     KVG_ERR_PARAM_INVALID);
    kvgt_assert_bytes_equal(buf, before, sizeof buf, "buffer after errors");
    assert_int_equal(kvg_decode_f32(KVG_DTYPE_INVALID, buf, &v),
                     KVG_ERR_PARAM_INVALID);
    assert_true(v == 1.25f);
}

static void test_generic_wide_types(void **state)
{
    const float x = kvg_f32_from_bits(0x7FA12345u); /* signalling NaN */
    const int32_t i32[] = {16777217, 16777219, -16777217, 2147483647};
    const float f32[] = {16777216.0f, 16777220.0f, -16777216.0f,
                         2147483648.0f};
    const int64_t i64 = ((int64_t)1 << 53) + 1;
    unsigned char buf[8];
    float v;
    size_t k;
    (void)state;
    /* fp32 moves bit for bit, NaN payload and all */
    assert_int_equal(kvg_encode_f32(KVG_FP32, x, KVG_OVF_DEFAULT, buf), KVG_OK);
    assert_int_equal(kvg_decode_f32(KVG_FP32, buf, &v), KVG_OK);
    assert_int_equal(kvg_f32_bits(v), 0x7FA12345u);
    /* int32 / int64 widen with binary32 rounding (ties to even) */
    for (k = 0; k < 4; k++) {
        memcpy(buf, &i32[k], 4);
        assert_int_equal(kvg_decode_f32(KVG_INT32, buf, &v), KVG_OK);
        assert_true(v == f32[k]);
    }
    memcpy(buf, &i64, 8);
    assert_int_equal(kvg_decode_f32(KVG_INT64, buf, &v), KVG_OK);
    assert_true(v == 0x1p53f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundaries_fp16),
        cmocka_unit_test(test_boundaries_bf16),
        cmocka_unit_test(test_boundaries_e4m3),
        cmocka_unit_test(test_boundaries_e5m2),
        cmocka_unit_test(test_boundaries_hif8),
        cmocka_unit_test(test_boundaries_int8),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_int8),
        cmocka_unit_test(test_hif8_landmarks),
        cmocka_unit_test(test_generic_errors),
        cmocka_unit_test(test_generic_wide_types),
    };
    return cmocka_run_group_tests_name("format.boundaries", tests, NULL,
                                       NULL);
}
