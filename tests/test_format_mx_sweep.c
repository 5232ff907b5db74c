/*
 * tests/test_format_mx_sweep.c - every binary32 input through the FP4 E2M1
 * encoder (all three rounding modes) and every binary32 amax through every
 * E8M0 scale rule, against slow references that share no code with
 * src/format.
 *
 * Usage: test_format_mx_sweep FORMAT SIGN [STRIDE]
 *   FORMAT  fp4_e2m1 | e8m0
 *   SIGN    + or -  (which half of the 2^32 patterns)
 *   STRIDE  test every STRIDE-th pattern plus every boundary pattern
 *           (1, the default, tests all 2^31 patterns of the half)
 *   all     e8m0: check every rule and payload on every pattern (12 cases,
 *           ~130 s; a dev-time run, docs/formats.md). Without it each
 *           run of 4096 consecutive patterns is checked against one case,
 *           the cases taking turns, so every case sees 1/12 of every
 *           binade (all 12 low mantissa bits), and the boundary patterns (within 2 ulps of 2^k and of
 *           MAX * 2^k, where a code changes) against all twelve. The e8m0
 *           - half (refusal of a negative amax) runs at stride >= 97.
 *
 * FP4 reference (docs/formats.md): the eight magnitudes come from the
 * format definition (ldexp of the fields, in double) with the virtual
 * value 8 = 2^(emax+1) appended. For a magnitude x, exact in double, three
 * cursors walk the sorted table as x grows: the nearest value (x against
 * the exact midpoints; a tie goes to the even code for rint, to the larger
 * magnitude for round), the largest value <= x and the smallest value >= x
 * (floor of a positive x, and of a negative x, whose magnitude rounds up).
 * Landing on the virtual value means saturation to 6. The sign is applied
 * by the documented rule (a negative zero result is 0x8), NaN by the
 * documented policy.
 *
 * E8M0 reference: each rule is restated with log2 instead of bit fields:
 * OCP c = max(floor(log2 amax) + 127 - emax, 0); CUBLAS c = ceil(log2 s) +
 * 127 clamped to [0, 254]; CEIL c = ceil(log2 s') + 127; TRUNC c =
 * floor(log2 s') + 127; EBUMP = TRUNC + 1, where s and s' are the exact
 * products in double rounded once to binary32. floor and ceil of log2 are
 * cursors over the powers of two 2^k (in double) that only move forward as
 * amax grows, which the sweep checks. Negative amax must be refused.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kvgold/format.h"

#define POS_INF 0x7F800000u
#define SIGN32 0x80000000u
#define MAX_REPORTS 8

typedef struct tally {
    uint64_t inputs, checks, bad;
} tally;

static float f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t u32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void mismatch(tally *t, const char *what, uint32_t in, unsigned got,
                     unsigned want)
{
    if (t->bad < MAX_REPORTS)
        fprintf(stderr, "%s: input 0x%08X (%.9g): got 0x%X, want 0x%X\n",
                what, (unsigned)in, (double)f32(in), got, want);
    t->bad++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The binary32 patterns within 2 ulps of v (v >= 0, exact in binary32). */
static void push_near(uint32_t *list, size_t *n, double v)
{
    uint32_t b;
    int d;
    if (!(v <= 3.4028234663852886e38))
        return;
    if ((double)(float)v != v)
        fail_msg("boundary %.17g is not a binary32 value", v);
    b = u32((float)v);
    for (d = -2; d <= 2; d++) {
        const int64_t u = (int64_t)b + d;
        if (u >= 0 && u <= 0x7FFFFFFF)
            list[(*n)++] = (uint32_t)u;
    }
}

static void push_specials(uint32_t *list, size_t *n)
{
    static const uint32_t specials[] = {
        0x00000000u, 0x00000001u, 0x00400000u, 0x007FFFFFu, 0x00800000u,
        0x7F7FFFFFu, POS_INF,     0x7F800001u, 0x7FC00000u, 0x7FFFFFFFu,
    };
    size_t k;
    for (k = 0; k < sizeof specials / sizeof specials[0]; k++)
        list[(*n)++] = specials[k];
}

static size_t sort_unique(uint32_t *list, size_t n)
{
    size_t k, out = 0;
    qsort(list, n, sizeof *list, by_u32);
    for (k = 0; k < n; k++)
        if (out == 0 || list[k] != list[out - 1])
            list[out++] = list[k];
    return out;
}

/* ==== FP4 E2M1 ========================================================== */

#define FP4_N 8 /* finite magnitudes; index 8 is the virtual value 8 */

typedef struct fp4_ref {
    double v[FP4_N + 1];
    double mid[FP4_N];
    size_t near, below, above; /* the three cursors */
    double last;
    /* The cursors' answer for every x in [last, next): where a cursor
     * would move or a tie sits, the walk runs again (a memo: it halves the
     * sweep's time and changes no answer). */
    double next;
    size_t cached[4];
} fp4_ref;

/* E2M1 by definition: s | e(2) | m(1), bias 1; e = 0 is m * 2^-1. */
static double fp4_value(unsigned code)
{
    const unsigned e = (code >> 1) & 3u, m = code & 1u;
    const double v = e == 0 ? ldexp((double)m, -1)
                            : ldexp(1.0 + 0.5 * (double)m, (int)e - 1);
    return (code & 8u) ? -v : v;
}

static void fp4_ref_init(fp4_ref *r)
{
    unsigned c;
    for (c = 0; c < FP4_N; c++) {
        r->v[c] = fp4_value(c);
        if (c > 0 && !(r->v[c] > r->v[c - 1]))
            fail_msg("fp4 magnitude codes are not in value order");
    }
    r->v[FP4_N] = 8.0; /* 2^(emax + 1): one step above 6 */
    for (c = 0; c < FP4_N; c++)
        r->mid[c] = 0.5 * (r->v[c] + r->v[c + 1]);
    r->near = r->below = r->above = 0;
    r->last = -1.0;
    r->next = -1.0; /* nothing cached yet */
}

/* The smallest point at or above the current x where a cursor's answer
 * can change: x itself when x is a midpoint or the value `above` points
 * at (the answer there holds for x only). */
static double fp4_next_event(const fp4_ref *r)
{
    double next = HUGE_VAL;
    if (r->near < FP4_N)
        next = r->mid[r->near]; /* >= x */
    if (r->below < FP4_N && r->v[r->below + 1] < next)
        next = r->v[r->below + 1]; /* > x */
    if (r->above < FP4_N && r->v[r->above] < next)
        next = r->v[r->above]; /* >= x */
    return next;
}

/* Magnitude codes (8 = beyond max) of x for nearest, <= x and >= x. */
static void fp4_walk(fp4_ref *r, double x, size_t out[4])
{
    int tie;
    if (x < r->last)
        fail_msg("fp4 sweep not monotone: %.17g after %.17g", x, r->last);
    r->last = x;
    if (x < r->next) {
        memcpy(out, r->cached, sizeof r->cached);
        return;
    }
    while (r->near < FP4_N && x > r->mid[r->near])
        r->near++;
    while (r->below < FP4_N && x >= r->v[r->below + 1])
        r->below++;
    while (r->above < FP4_N && x > r->v[r->above])
        r->above++;
    tie = r->near < FP4_N && x == r->mid[r->near];
    /* [0] half-even: codes are in value order, so parity of the index */
    out[0] = tie && (r->near & 1u) ? r->near + 1 : r->near;
    out[1] = tie ? r->near + 1 : r->near; /* [1] half-away */
    out[2] = r->below;                    /* [2] toward zero */
    out[3] = r->above;                    /* [3] away from zero */
    memcpy(r->cached, out, sizeof r->cached);
    r->next = fp4_next_event(r);
    if (r->next == x)
        r->next = -1.0; /* a tie or a value: valid for x alone */
}

static unsigned fp4_sat(size_t idx)
{
    return idx >= FP4_N ? 7u : (unsigned)idx;
}

static const kvg_fp4_round k_fp4_modes[3] = {KVG_FP4_RINT, KVG_FP4_FLOOR,
                                             KVG_FP4_ROUND};
static const char *const k_fp4_names[3] = {"fp4 rint", "fp4 floor",
                                           "fp4 round"};

/* Expected codes of input `in` (magnitude bits u) per mode. */
static void fp4_expected(fp4_ref *r, uint32_t u, int negative,
                         kvg_fp4_nan nan, unsigned want[3])
{
    size_t idx[4];
    const unsigned s = negative ? 8u : 0u;
    int k;
    if (u > POS_INF) {
        const unsigned code = nan == KVG_FP4_NAN_ML_DTYPES && !negative ? 8u
                                                                        : 0u;
        for (k = 0; k < 3; k++)
            want[k] = code;
        return;
    }
    fp4_walk(r, (double)f32(u), idx);
    want[0] = s | fp4_sat(idx[0]);
    want[1] = s | fp4_sat(negative ? idx[3] : idx[2]);
    want[2] = s | fp4_sat(idx[1]);
}

static uint32_t *fp4_boundaries(const fp4_ref *r, size_t *count)
{
    uint32_t *list = (uint32_t *)malloc(128 * sizeof *list);
    size_t n = 0, k;
    if (list == NULL)
        fail_msg("out of memory");
    for (k = 0; k <= FP4_N; k++)
        push_near(list, &n, r->v[k]);
    for (k = 0; k < FP4_N; k++)
        push_near(list, &n, r->mid[k]);
    push_specials(list, &n);
    *count = sort_unique(list, n);
    return list;
}

/* One input: three modes under the Ascend NaN policy; the ml_dtypes
 * policy too on NaN patterns and every 16th other pattern (it must not
 * change any non-NaN result, and its code path is the NaN branch). */
static void fp4_check(fp4_ref *r, uint32_t u, int negative, tally *t)
{
    const uint32_t in = negative ? u | SIGN32 : u;
    const float x = f32(in);
    unsigned want[3];
    int k;

    fp4_expected(r, u, negative, KVG_FP4_NAN_ZERO, want);
    for (k = 0; k < 3; k++) {
        const unsigned got =
            kvg_f32_to_fp4e2m1(x, k_fp4_modes[k], KVG_FP4_NAN_ZERO);
        if (got != want[k])
            mismatch(t, k_fp4_names[k], in, got, want[k]);
    }
    t->checks += 3;
    if (u > POS_INF || (u & 15u) == 0) {
        if (u > POS_INF)
            want[0] = want[1] = want[2] = negative ? 0u : 8u;
        for (k = 0; k < 3; k++) {
            const unsigned got = kvg_f32_to_fp4e2m1(x, k_fp4_modes[k],
                                                    KVG_FP4_NAN_ML_DTYPES);
            if (got != want[k])
                mismatch(t, "fp4 (ml_dtypes NaN policy)", in, got, want[k]);
        }
        t->checks += 3;
    }
    t->inputs++;
}

static void fp4_decoder_check(void)
{
    unsigned c;
    for (c = 0; c < 256; c++) {
        const double want = fp4_value(c & 15u);
        const float got = kvg_fp4e2m1_to_f32((uint8_t)c);
        if ((double)got != want || !signbit(got) != !signbit(want))
            fail_msg("fp4 code 0x%02X decodes to %.9g, want %.17g", c,
                     (double)got, want);
    }
}

/* ==== E8M0 =============================================================== */

/* floor / ceil of log2 x as a cursor: k only grows, p = 2^k. */
typedef struct pow2_cursor {
    int k;
    double p;
} pow2_cursor;

static void cursor_init(pow2_cursor *c)
{
    c->k = -150;
    c->p = ldexp(1.0, -150);
}

/* floor(log2 x) for x > 0 (x must not decrease between calls) */
static int cursor_floor(pow2_cursor *c, double x)
{
    while (2.0 * c->p <= x) {
        c->p *= 2.0;
        c->k++;
    }
    if (c->p > x)
        fail_msg("e8m0 reference: floor cursor went past %.17g", x);
    return c->k;
}

/* ceil(log2 x) for x > 0 */
static int cursor_ceil(pow2_cursor *c, double x)
{
    while (c->p < x) {
        c->p *= 2.0;
        c->k++;
    }
    if (0.5 * c->p >= x)
        fail_msg("e8m0 reference: ceil cursor went past %.17g", x);
    return c->k;
}

/* The payloads each rule is used with. */
typedef struct e8m0_case {
    kvg_e8m0_rule rule;
    kvg_dtype payload;
    const char *name;
} e8m0_case;

static const e8m0_case k_e8m0_cases[] = {
    {KVG_E8M0_OCP, KVG_FP4_E2M1, "OCP e2m1"},
    {KVG_E8M0_OCP, KVG_FP4_E1M2, "OCP e1m2"},
    {KVG_E8M0_OCP, KVG_FP8_E4M3FN, "OCP e4m3fn"},
    {KVG_E8M0_OCP, KVG_FP8_E5M2, "OCP e5m2"},
    {KVG_E8M0_CUBLAS, KVG_FP8_E4M3FN, "CUBLAS e4m3fn"},
    {KVG_E8M0_CUBLAS, KVG_FP8_E5M2, "CUBLAS e5m2"},
    {KVG_E8M0_CEIL, KVG_FP8_E4M3FN, "CEIL e4m3fn"},
    {KVG_E8M0_CEIL, KVG_FP8_E5M2, "CEIL e5m2"},
    {KVG_E8M0_EBUMP, KVG_FP8_E4M3FN, "EBUMP e4m3fn"},
    {KVG_E8M0_EBUMP, KVG_FP8_E5M2, "EBUMP e5m2"},
    {KVG_E8M0_TRUNC, KVG_FP8_E4M3FN, "TRUNC e4m3fn"},
    {KVG_E8M0_TRUNC, KVG_FP8_E5M2, "TRUNC e5m2"},
};
#define E8M0_CASES (sizeof k_e8m0_cases / sizeof k_e8m0_cases[0])

/* -1: refused */
typedef struct e8m0_ref {
    double inv[2];     /* fl(1/448), fl(1/57344) as doubles */
    double amax_floor; /* fl(1e-4) */
    pow2_cursor amax_floor_c, s_ceil[2], s2_ceil[2], s2_floor[2];
    double last;
} e8m0_ref;

static void e8m0_ref_init(e8m0_ref *r)
{
    int j;
    /* the spec reference's constants, derived here from first principles */
    r->inv[0] = (double)(float)(1.0 / 448.0);
    r->inv[1] = (double)(float)(1.0 / 57344.0);
    if (u32((float)r->inv[0]) != 0x3B124925u ||
        u32((float)r->inv[1]) != 0x37924925u)
        fail_msg("fl(1/448) or fl(1/57344) is not the spec's constant");
    r->amax_floor = (double)(float)1e-4;
    cursor_init(&r->amax_floor_c);
    for (j = 0; j < 2; j++) {
        cursor_init(&r->s_ceil[j]);
        cursor_init(&r->s2_ceil[j]);
        cursor_init(&r->s2_floor[j]);
    }
    r->last = -1.0;
}

static int clamp_code(int c)
{
    return c < 0 ? 0 : c > 254 ? 254 : c;
}

/* The expected code of case k for the non-negative amax bits u; -1 for a
 * refusal. Only the cursors case k needs move (they may skip ahead). */
static int e8m0_want(e8m0_ref *r, uint32_t u, size_t k)
{
    static const int emax[4] = {2, 0, 8, 15};
    const double a = (double)f32(u);
    const size_t j = k & 1u; /* cases 4.. alternate e4m3fn, e5m2 */
    double s;

    if (u >= POS_INF) /* inf and NaN: 0xFF, refused by the s' rules */
        return k < 6 ? 0xFF : -1;
    if (a < r->last)
        fail_msg("e8m0 sweep not monotone");
    r->last = a;
    if (k < 4) /* OCP */
        return a == 0.0 ? 0
                        : clamp_code(cursor_floor(&r->amax_floor_c, a) + 127 -
                                     emax[k]);
    if (k < 6) { /* CUBLAS on s, no amax floor */
        s = (double)(float)(a * r->inv[j]);
        return s == 0.0 ? 0 : clamp_code(cursor_ceil(&r->s_ceil[j], s) + 127);
    }
    s = (double)(float)((a > r->amax_floor ? a : r->amax_floor) * r->inv[j]);
    if (k < 8) /* CEIL */
        return cursor_ceil(&r->s2_ceil[j], s) + 127;
    if (k < 10) /* EBUMP: s' is normal, so one above TRUNC */
        return cursor_floor(&r->s2_floor[j], s) + 127 + 1;
    return cursor_floor(&r->s2_floor[j], s) + 127; /* TRUNC */
}

/* The case a pattern is checked against when not all are: runs of 4096
 * consecutive patterns (every value of the 12 low mantissa bits) take the
 * cases in turn, so each case sees 1/12 of every binade, and the branches
 * stay predictable (a per-pattern hash made the sweep 3x slower). */
static size_t e8m0_pick(uint32_t u)
{
    return (size_t)((u >> 12) % E8M0_CASES);
}

/* Case k on the non-negative amax bits u; a refusal must leave the code. */
static void e8m0_check_case(e8m0_ref *r, uint32_t u, size_t k, tally *t)
{
    const e8m0_case *c = &k_e8m0_cases[k];
    const int want = e8m0_want(r, u, k);
    const unsigned exp = want < 0 ? 0x1A5u : (unsigned)want;
    uint8_t code = 0xA5;
    const kvg_status st = kvg_e8m0_from_amax(c->rule, c->payload, f32(u),
                                             &code);
    const unsigned got = st == KVG_OK ? code
                         : code == 0xA5 ? 0x1A5u : 0x2A5u;
    if (got != exp)
        mismatch(t, c->name, u, got, exp);
}

static void e8m0_check(e8m0_ref *r, uint32_t u, int negative, int all_cases,
                       tally *t)
{
    const uint32_t in = negative ? u | SIGN32 : u;
    size_t k;

    if (negative) {
        /* refused whatever the rule; one rule and payload per pattern */
        const e8m0_case *c = &k_e8m0_cases[u % E8M0_CASES];
        uint8_t code = 0xA5;
        const kvg_status st = kvg_e8m0_from_amax(c->rule, c->payload,
                                                 f32(in), &code);
        if (st != KVG_ERR_PARAM_INVALID || code != 0xA5)
            mismatch(t, c->name, in, code, 0x1A5);
        t->checks++;
        t->inputs++;
        return;
    }
    if (!all_cases) {
        e8m0_check_case(r, in, e8m0_pick(u), t);
    } else {
        for (k = 0; k < E8M0_CASES; k++)
            e8m0_check_case(r, in, k, t);
    }
    t->checks += all_cases ? E8M0_CASES : 1;
    t->inputs++;
}

static void e8m0_decoder_check(void)
{
    unsigned c;
    for (c = 0; c < 256; c++) {
        const float got = kvg_e8m0_to_f32((uint8_t)c);
        if (c == 0xFF ? u32(got) != 0x7FC00000u
                      : (double)got != ldexp(1.0, (int)c - 127))
            fail_msg("e8m0 code 0x%02X decodes to %a", c, (double)got);
    }
}

/* Near every power of two, every 2^k / inv (where s crosses 2^k) and
 * fl(1e-4). */
static uint32_t *e8m0_boundaries(size_t *count)
{
    static const double k_max[2] = {448.0, 57344.0};
    uint32_t *list = (uint32_t *)malloc(8192 * sizeof *list);
    size_t n = 0;
    int k, j;
    if (list == NULL)
        fail_msg("out of memory");
    for (k = -149; k <= 127; k++) {
        push_near(list, &n, ldexp(1.0, k));
        for (j = 0; j < 2; j++) {
            const double x = ldexp(k_max[j], k);
            /* 448 * 2^k is a binary32 value wherever it is in range */
            if (x >= ldexp(1.0, -149) && x <= 3.4028234663852886e38)
                push_near(list, &n, x);
        }
    }
    push_near(list, &n, (double)(float)1e-4);
    push_specials(list, &n);
    *count = sort_unique(list, n);
    return list;
}

/* ==== driver ============================================================ */

typedef struct sweep_args {
    int fp4; /* 1: fp4_e2m1, 0: e8m0 */
    int negative;
    uint32_t stride;
    int all_cases; /* e8m0: every case on every pattern (dev-time) */
} sweep_args;

/* The e8m0 - half only checks a refusal (one compare in the library), so
 * it is sampled at the sanitizer stage's stride at most. */
#define E8M0_NEG_STRIDE 97u

static void sweep(void **state)
{
    const sweep_args *a = (const sweep_args *)*state;
    fp4_ref fr;
    e8m0_ref er;
    tally t = {0, 0, 0};
    uint32_t *bnd = NULL;
    size_t nb = 0, bi = 0;
    uint64_t next = 0;
    uint32_t stride = a->stride;
    const double t0 = now();

    if (a->fp4) {
        fp4_decoder_check();
        fp4_ref_init(&fr);
        if (a->stride > 1)
            bnd = fp4_boundaries(&fr, &nb);
    } else {
        e8m0_decoder_check();
        e8m0_ref_init(&er);
        if (a->negative && stride < E8M0_NEG_STRIDE)
            stride = E8M0_NEG_STRIDE;
        bnd = e8m0_boundaries(&nb); /* all cases run on these */
    }
    for (;;) {
        uint64_t u = next;
        if (bi < nb && bnd[bi] < u)
            u = bnd[bi];
        if (u > 0x7FFFFFFFu)
            break;
        if (a->fp4)
            fp4_check(&fr, (uint32_t)u, a->negative, &t);
        else
            e8m0_check(&er, (uint32_t)u, a->negative,
                       a->all_cases || (bi < nb && bnd[bi] == u), &t);
        if (u == next)
            next += stride;
        while (bi < nb && bnd[bi] <= u)
            bi++;
    }
    printf("%s %c: %llu inputs, %llu checks, %llu mismatches, %.1f s "
           "(stride %u, %lu boundary patterns)\n",
           a->fp4 ? "fp4_e2m1" : "e8m0", a->negative ? '-' : '+',
           (unsigned long long)t.inputs, (unsigned long long)t.checks,
           (unsigned long long)t.bad, now() - t0, (unsigned)stride,
           (unsigned long)nb);
    free(bnd);
    if (stride == 1)
        assert_true(t.inputs == 0x80000000ull);
    else
        assert_true(t.inputs >= 0x80000000ull / stride);
    if (t.bad != 0)
        fail_msg("%llu of %llu checks differ from the reference",
                 (unsigned long long)t.bad, (unsigned long long)t.checks);
}

int main(int argc, char **argv)
{
    sweep_args a;
    char name[64];
    struct CMUnitTest tests[1];

    if (argc < 3 || argc > 5 || (argc == 5 && strcmp(argv[4], "all") != 0) ||
        (strcmp(argv[1], "fp4_e2m1") != 0 && strcmp(argv[1], "e8m0") != 0) ||
        (strcmp(argv[2], "+") != 0 && strcmp(argv[2], "-") != 0)) {
        fprintf(stderr, "usage: %s fp4_e2m1|e8m0 +|- [STRIDE [all]]\n",
                argv[0]);
        return 2;
    }
    a.fp4 = strcmp(argv[1], "fp4_e2m1") == 0;
    a.negative = argv[2][0] == '-';
    a.stride = argc >= 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1u;
    a.all_cases = argc == 5;
    if (a.stride == 0) {
        fprintf(stderr, "STRIDE must be at least 1\n");
        return 2;
    }
    (void)snprintf(name, sizeof name, "%s%s", argv[1], argv[2]);
    tests[0].name = name;
    tests[0].test_func = sweep;
    tests[0].setup_func = NULL;
    tests[0].teardown_func = NULL;
    tests[0].initial_state = &a;
    return cmocka_run_group_tests_name("format.mx_sweep", tests, NULL, NULL);
}
