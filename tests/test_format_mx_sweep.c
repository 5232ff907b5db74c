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
 * documented policy. The cursors' answer holds up to the next midpoint or
 * value, so the walk is asked once per span of equal answers and the
 * encoder runs over the span against those codes; a block with any
 * difference is rerun one check at a time to report it.
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
#include "sweep_visits.h"

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

/* The first binary32 pattern (0 .. POS_INF, ordered like the values) whose
 * value is >= m >= 0: found from the rounded m by stepping, so it does not
 * depend on the rounding direction. */
static uint32_t first_at_or_above(double m)
{
    uint32_t b;
    if (!(m <= 3.4028234663852886e38))
        return POS_INF; /* above FLT_MAX only +inf is >= m */
    b = u32((float)m);
    while ((double)f32(b) < m)
        b++;
    while (b > 0 && (double)f32(b - 1u) >= m)
        b--;
    return b;
}

/* ==== the visited patterns ================================================ */

/* The visited patterns (every stride-th, and the boundary list):
 * sweep_visits.h. */

/* A run of visited patterns: n from `first`, `step` apart (magnitude
 * bits); `boundary`: the one pattern is on the boundary list. */
typedef void (*run_fn)(void *ctx, uint32_t first, uint32_t n, uint32_t step,
                       int boundary);

/* The visited patterns of lo..hi, in order, as runs: the stride points
 * between two boundaries, and each boundary alone (once, whether a stride
 * point or not), as the one-pattern-at-a-time walk visited them. */
static void visit_range(visits *v, uint64_t lo, uint64_t hi, run_fn fn,
                        void *ctx)
{
    uint64_t p = lo;
    for (;;) {
        const uint64_t s0 = (p + v->stride - 1u) / v->stride * v->stride;
        uint64_t b, end;
        uint32_t n;
        while (v->bi < v->nb && v->bnd[v->bi] < p)
            v->bi++;
        b = v->bi < v->nb ? v->bnd[v->bi] : UINT64_MAX;
        if (b <= s0) {
            if (b > hi)
                return;
            fn(ctx, (uint32_t)b, 1, 1, 1);
            p = b + 1;
            continue;
        }
        if (s0 > hi)
            return;
        end = b - 1 < hi ? b - 1 : hi;
        n = (uint32_t)((end - s0) / v->stride + 1);
        fn(ctx, (uint32_t)s0, n, v->stride, 0);
        p = s0 + (uint64_t)(n - 1) * v->stride + 1;
    }
}

/* ==== FP4 E2M1 ========================================================== */

#define FP4_N 8 /* finite magnitudes; index 8 is the virtual value 8 */

typedef struct fp4_ref {
    double v[FP4_N + 1];
    double mid[FP4_N];
    size_t near, below, above; /* the three cursors */
    double last;
    /* The cursors' answer holds for every x in [last, next): where a
     * cursor would move or a tie sits, the walk runs again. The sweep
     * checks every pattern below next against this one answer (fp4_span)
     * in a tight loop of encoder calls. */
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

/* The span from pattern u (magnitude bits) on which the reference gives
 * one answer per mode: want[] under the Ascend NaN policy, ml[] under
 * ml_dtypes'. Returns its last pattern. The cursors' answer holds on
 * [x, next) (fp4_walk; next = -1: at x alone); every NaN has one answer. */
static uint32_t fp4_span(fp4_ref *r, uint32_t u, int negative,
                         unsigned want[3], unsigned ml[3])
{
    int k;
    fp4_expected(r, u, negative, KVG_FP4_NAN_ZERO, want);
    if (u > POS_INF) {
        fp4_expected(r, u, negative, KVG_FP4_NAN_ML_DTYPES, ml);
        return 0x7FFFFFFFu;
    }
    for (k = 0; k < 3; k++)
        ml[k] = want[k]; /* the NaN policy must not change a number's code */
    if (r->next < 0.0)
        return u;
    if (r->next == HUGE_VAL)
        return POS_INF; /* every cursor beyond 6: +inf saturates too */
    return first_at_or_above(r->next) - 1u;
}

/* Whether input pattern in is also checked under the ml_dtypes policy: a
 * NaN, and every 16th other pattern (its code path is the NaN branch). */
static int fp4_ml_checked(uint32_t in)
{
    return (in & 0x7FFFFFFFu) > POS_INF || (in & 15u) == 0;
}

/* The encoder under test on n inputs from pattern `first` (sign
 * included), `step` apart: the three modes under the Ascend NaN policy,
 * and under ml_dtypes' where fp4_ml_checked. Returns the OR of every
 * got ^ want (a clean run costs the calls alone; fp4_report reruns a
 * dirty one); *ml_n counts the inputs checked under ml_dtypes. */
static unsigned fp4_run(uint32_t first, uint32_t n, uint32_t step,
                        const unsigned want[3], const unsigned ml[3],
                        uint32_t *ml_n)
{
    unsigned diff = 0;
    uint32_t u = first, j, m = 0;
    for (j = 0; j < n; j++, u += step) {
        const float x = f32(u);
        diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_RINT, KVG_FP4_NAN_ZERO) ^
                want[0];
        diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_FLOOR, KVG_FP4_NAN_ZERO) ^
                want[1];
        diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_ROUND, KVG_FP4_NAN_ZERO) ^
                want[2];
        if (fp4_ml_checked(u)) {
            diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_RINT,
                                       KVG_FP4_NAN_ML_DTYPES) ^ ml[0];
            diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_FLOOR,
                                       KVG_FP4_NAN_ML_DTYPES) ^ ml[1];
            diff |= kvg_f32_to_fp4e2m1(x, KVG_FP4_ROUND,
                                       KVG_FP4_NAN_ML_DTYPES) ^ ml[2];
            m++;
        }
    }
    *ml_n = m;
    return diff;
}

/* fp4_run's checks one by one, reporting each difference. */
static void fp4_report(uint32_t first, uint32_t n, uint32_t step,
                       const unsigned want[3], const unsigned ml[3],
                       tally *t)
{
    uint32_t u = first, j;
    int k;
    for (j = 0; j < n; j++, u += step)
        for (k = 0; k < 3; k++) {
            unsigned got = kvg_f32_to_fp4e2m1(f32(u), k_fp4_modes[k],
                                              KVG_FP4_NAN_ZERO);
            if (got != want[k])
                mismatch(t, k_fp4_names[k], u, got, want[k]);
            if (!fp4_ml_checked(u))
                continue;
            got = kvg_f32_to_fp4e2m1(f32(u), k_fp4_modes[k],
                                     KVG_FP4_NAN_ML_DTYPES);
            if (got != ml[k])
                mismatch(t, "fp4 (ml_dtypes NaN policy)", u, got, ml[k]);
        }
}

/* What the visitor's runs of one fp4 span are checked against. */
typedef struct fp4_span_ctx {
    unsigned want[3], ml[3];
    uint32_t sign;
    tally *t;
} fp4_span_ctx;

/* Blocks of at most this many inputs are rerun when dirty. */
#define BLOCK 65536u

static void fp4_check_run(void *ctx, uint32_t first, uint32_t n,
                          uint32_t step, int boundary)
{
    const fp4_span_ctx *c = (const fp4_span_ctx *)ctx;
    (void)boundary; /* a boundary pattern gets the same checks */
    while (n > 0) {
        const uint32_t m = n < BLOCK ? n : BLOCK;
        uint32_t ml_n;
        if (fp4_run(first | c->sign, m, step, c->want, c->ml, &ml_n) != 0) {
            const uint64_t bad = c->t->bad;
            fp4_report(first | c->sign, m, step, c->want, c->ml, c->t);
            if (c->t->bad == bad) /* the encoder is not deterministic */
                fail_msg("fp4: a run from 0x%08X differs, no one input does",
                         (unsigned)(first | c->sign));
        }
        c->t->inputs += m;
        c->t->checks += 3u * (uint64_t)m + 3u * (uint64_t)ml_n;
        first += m * step; /* unsigned: wraps only past the last run */
        n -= m;
    }
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

/* The scale s of CUBLAS (k 4, 5) or s' of the other rules (k >= 6) for
 * the finite amax bits u: the exact product in double, rounded once to
 * binary32. */
static double e8m0_scale(const e8m0_ref *r, uint32_t u, size_t k)
{
    const double a = (double)f32(u);
    const size_t j = k & 1u; /* cases 4.. alternate e4m3fn, e5m2 */
    if (k < 6) /* CUBLAS on s, no amax floor */
        return (double)(float)(a * r->inv[j]);
    return (double)(float)((a > r->amax_floor ? a : r->amax_floor) *
                           r->inv[j]);
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
    s = e8m0_scale(r, u, k);
    if (k < 6) /* CUBLAS */
        return s == 0.0 ? 0 : clamp_code(cursor_ceil(&r->s_ceil[j], s) + 127);
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

/* Whether case k's scale at pattern b has reached t (passed it, if
 * strict). */
static int e8m0_reached(const e8m0_ref *r, uint32_t b, size_t k, double t,
                        int strict)
{
    const double s = e8m0_scale(r, b, k);
    return strict ? s > t : s >= t;
}

/* The first pattern after lo at which case k's scale reaches t (POS_INF:
 * no finite one). The scale does not decrease as the pattern grows, and
 * the pattern of t / inv is within a few ulps of the answer: step from
 * there. */
static uint32_t e8m0_first_reaching(const e8m0_ref *r, uint32_t lo,
                                    size_t k, double t, int strict)
{
    uint32_t b = first_at_or_above(t / r->inv[k & 1u]);
    if (b <= lo)
        b = lo + 1u;
    while (b > lo + 1u && e8m0_reached(r, b - 1u, k, t, strict))
        b--;
    while (b < POS_INF && !e8m0_reached(r, b, k, t, strict))
        b++;
    return b;
}

/* The last pattern of the span from the finite amax bits lo on which case
 * k keeps the answer e8m0_want(r, lo, k) just gave: before the cursor that
 * answered would move (a floor cursor at p when the argument reaches 2p,
 * a ceil cursor at p when it passes p; OCP's argument is amax itself). */
static uint32_t e8m0_span_end(const e8m0_ref *r, uint32_t lo, size_t k)
{
    const size_t j = k & 1u;
    uint32_t next;
    if (k < 4) {
        if (lo == 0)
            return 0; /* amax 0 has a code of its own */
        next = first_at_or_above(2.0 * r->amax_floor_c.p);
    } else if (k < 6) {
        const double t = e8m0_scale(r, lo, k) == 0.0 ? 0.0 : r->s_ceil[j].p;
        next = e8m0_first_reaching(r, lo, k, t, 1);
    } else if (k < 8) {
        next = e8m0_first_reaching(r, lo, k, r->s2_ceil[j].p, 1);
    } else {
        next = e8m0_first_reaching(r, lo, k, 2.0 * r->s2_floor[j].p, 0);
    }
    return next - 1u; /* +inf and NaN make spans of their own */
}

/* The span from lo within its run of 4096 patterns (one case, k): the
 * code *exp every pattern of it must give (0x1A5: refused, code kept),
 * and its last pattern. */
static uint32_t e8m0_span(e8m0_ref *r, uint32_t lo, size_t k, unsigned *exp)
{
    const int want = e8m0_want(r, lo, k);
    const uint32_t run_end = lo | 0xFFFu; /* e8m0_pick's run */
    const uint32_t hi = lo >= POS_INF ? 0x7FFFFFFFu : e8m0_span_end(r, lo, k);
    *exp = want < 0 ? 0x1A5u : (unsigned)want;
    return hi < run_end ? hi : run_end;
}

/* What kvg_e8m0_from_amax gives for amax bits u: the code, 0x1A5 for a
 * refusal that kept the code, 0x2A5 for one that did not. */
static unsigned e8m0_got(const e8m0_case *c, uint32_t u)
{
    uint8_t code = 0xA5;
    const kvg_status st = kvg_e8m0_from_amax(c->rule, c->payload, f32(u),
                                             &code);
    return st == KVG_OK ? code : code == 0xA5 ? 0x1A5u : 0x2A5u;
}

/* Case c on n amax patterns from `first`, `step` apart, against one
 * expected code: the OR of every got ^ exp (e8m0_report reruns a dirty
 * run). */
static unsigned e8m0_run(const e8m0_case *c, uint32_t first, uint32_t n,
                         uint32_t step, unsigned exp)
{
    unsigned diff = 0;
    uint32_t u = first, j;
    for (j = 0; j < n; j++, u += step)
        diff |= e8m0_got(c, u) ^ exp;
    return diff;
}

static void e8m0_report(const e8m0_case *c, uint32_t first, uint32_t n,
                        uint32_t step, unsigned exp, tally *t)
{
    uint32_t u = first, j;
    for (j = 0; j < n; j++, u += step) {
        const unsigned got = e8m0_got(c, u);
        if (got != exp)
            mismatch(t, c->name, u, got, exp);
    }
}

/* What the visitor's runs of one e8m0 span are checked against. */
typedef struct e8m0_span_ctx {
    e8m0_ref *r;
    size_t k;
    unsigned exp;
    tally *t;
} e8m0_span_ctx;

static void e8m0_check_run(void *ctx, uint32_t first, uint32_t n,
                           uint32_t step, int boundary)
{
    const e8m0_span_ctx *c = (const e8m0_span_ctx *)ctx;
    const e8m0_case *ec = &k_e8m0_cases[c->k];
    if (boundary) { /* every case, each asked of the reference */
        e8m0_check(c->r, first, 0, 1, c->t);
        return;
    }
    while (n > 0) {
        const uint32_t m = n < BLOCK ? n : BLOCK;
        if (e8m0_run(ec, first, m, step, c->exp) != 0) {
            const uint64_t bad = c->t->bad;
            e8m0_report(ec, first, m, step, c->exp, c->t);
            if (c->t->bad == bad) /* the rule is not deterministic */
                fail_msg("%s: a run from 0x%08X differs, no one input does",
                         ec->name, (unsigned)first);
        }
        c->t->inputs += m;
        c->t->checks += m;
        first += m * step; /* unsigned: wraps only past the last run */
        n -= m;
    }
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

/* fp4: span by span; the reference is asked at each span's first visited
 * pattern (the patterns a stride skips are never checked). */
static void fp4_sweep(fp4_ref *r, int negative, visits *v, tally *t)
{
    fp4_span_ctx c;
    uint64_t p;
    c.sign = negative ? SIGN32 : 0u;
    c.t = t;
    for (p = next_visit(v, 0); p <= 0x7FFFFFFFu;) {
        const uint32_t hi = fp4_span(r, (uint32_t)p, negative, c.want, c.ml);
        visit_range(v, p, hi, fp4_check_run, &c);
        p = next_visit(v, (uint64_t)hi + 1u);
    }
}

/* e8m0 +, one case per run of 4096 patterns: span by span, as fp4. */
static void e8m0_span_sweep(e8m0_ref *r, visits *v, tally *t)
{
    e8m0_span_ctx c;
    uint64_t p;
    c.r = r;
    c.t = t;
    for (p = next_visit(v, 0); p <= 0x7FFFFFFFu;) {
        uint32_t hi;
        c.k = e8m0_pick((uint32_t)p);
        hi = e8m0_span(r, (uint32_t)p, c.k, &c.exp);
        visit_range(v, p, hi, e8m0_check_run, &c);
        p = next_visit(v, (uint64_t)hi + 1u);
    }
}

/* e8m0 - (refusals) and e8m0 + with every case on every pattern (`all`):
 * pattern by pattern, every case on the boundary patterns. */
static void e8m0_sweep(e8m0_ref *r, const sweep_args *a, visits *v,
                       tally *t)
{
    uint64_t next = 0;
    for (;;) {
        uint64_t u = next;
        if (v->bi < v->nb && v->bnd[v->bi] < u)
            u = v->bnd[v->bi];
        if (u > 0x7FFFFFFFu)
            break;
        e8m0_check(r, (uint32_t)u, a->negative,
                   a->all_cases || (v->bi < v->nb && v->bnd[v->bi] == u), t);
        if (u == next)
            next += v->stride;
        while (v->bi < v->nb && v->bnd[v->bi] <= u)
            v->bi++;
    }
}

static void sweep(void **state)
{
    const sweep_args *a = (const sweep_args *)*state;
    fp4_ref fr;
    e8m0_ref er;
    tally t = {0, 0, 0};
    uint32_t *bnd = NULL;
    size_t nb = 0;
    uint32_t stride = a->stride;
    visits v;
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
    v.stride = stride;
    v.bnd = bnd;
    v.nb = nb;
    v.bi = 0;
    if (a->fp4)
        fp4_sweep(&fr, a->negative, &v, &t);
    else if (!a->negative && !a->all_cases)
        e8m0_span_sweep(&er, &v, &t);
    else
        e8m0_sweep(&er, a, &v, &t);
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
