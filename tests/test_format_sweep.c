/*
 * tests/test_format_sweep.c - every binary32 input through every encoder,
 * against a slow reference that shares no code with src/format.
 *
 * Usage: test_format_sweep FORMAT SIGN [STRIDE]
 *   FORMAT  fp16 | bf16 | fp8_e4m3fn | fp8_e5m2 | hif8 | int8
 *   SIGN    + or -  (which half of the 2^32 patterns; two ctests per format
 *           so that `ctest -j2` keeps both cores busy)
 *   STRIDE  test every STRIDE-th bit pattern plus every boundary pattern
 *           (1, the default, tests all 2^31 patterns of the half)
 *
 * The reference, written from the format definitions (docs/formats.md):
 *
 *  1. Decode every code with its own small decoder (ldexp of the fields,
 *     in double), keep the finite non-negative values and sort them:
 *     v[0] = 0 < v[1] < ... < v[n-1] = max. Append a *virtual* value
 *     v[n]: the value the format would have one step above max if its
 *     exponent range did not end (max + one ulp of max for IEEE formats,
 *     i.e. 2^(emax+1); for e4m3fn 480, whose code would be S.1111.111;
 *     for HiF8 1.5 * 2^15, the value that code 0x6F would carry if it
 *     were not Inf). Rounding to v[n] is what "overflow" means: the header
 *     judges overflow as if the exponent range were unbounded, and that
 *     rounding picks v[n] exactly when the input is nearer to v[n] than to
 *     max, or at the tie and the tie rule picks v[n].
 *  2. For an input magnitude x, the result is the nearest v[i]. The
 *     midpoints mid[i] = (v[i] + v[i+1]) / 2 are exact in double (the
 *     values have at most 11 significant bits and adjacent ones are within
 *     a factor of 2), and every binary32 input is exact in double, so
 *     `x > mid[i]` and `x == mid[i]` are exact comparisons. A tie goes to
 *     the even code (IEEE formats and int8: the code whose last bit is 0;
 *     for the virtual value, the code max_code + 1 it would have) or, for
 *     HiF8, to the larger magnitude (round half away from zero).
 *  3. The sweep visits magnitudes in increasing order (for a fixed sign,
 *     binary32 bit patterns 0 .. 0x7F800000 are ordered like their values,
 *     +inf last), so the cell index i only moves forward: a merge of two
 *     sorted sequences, and it is checked that x never decreases. The
 *     walk's answer at one pattern holds up to the last pattern below the
 *     next midpoint (the first pattern >= each midpoint is found once, by
 *     stepping from the rounded midpoint), so the walk is asked once per
 *     span of equal answers (a tie is a span of one pattern) and the
 *     encoders run over the span in a tight loop of direct calls against
 *     one code per mode; a block with any difference is rerun one check at
 *     a time to report it. +-inf is simply the largest magnitude: it lands
 *     beyond v[n] like any overflow, which is the documented rule
 *     (saturation applies to inf inputs too).
 *  4. Sign, overflow and NaN are applied by the documented rules: the
 *     overflow code per mode, the NaN code per format, +0 only for HiF8,
 *     saturation to [-128, 127] and NaN -> 0 for int8.
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

typedef enum tie_rule { TIE_EVEN, TIE_AWAY } tie_rule;

/* How sign and zero combine: IEEE (+-0), HiF8 (one zero 0x00), int8. */
typedef enum ref_kind { K_IEEE, K_HIF8, K_INT8 } ref_kind;

/* What the reference knows about one format; nothing here comes from
 * src/format. */
typedef struct ref_format {
    const char *name;
    ref_kind kind;
    int bits;                           /* code width */
    tie_rule tie;
    double (*value)(uint32_t code);     /* reference decode (NaN, +-inf ok) */
    double virtual_value;               /* one step beyond max (see top) */
    uint32_t sat_code;                  /* magnitude code of max */
    uint32_t nonsat_code;               /* overflow code without saturation */
    kvg_overflow default_mode;          /* SATURATE or NONSAT */
    uint32_t (*nan_rule)(uint32_t u);   /* code for the NaN input u */
    uint32_t (*encode)(float x, kvg_overflow mode); /* under test */
    float (*decode)(uint32_t code);                 /* under test */
    /* encode on a run of inputs against one code per mode (see span_fp16) */
    uint32_t (*span)(uint32_t first, uint32_t n, uint32_t step,
                     const uint32_t want[3]);
} ref_format;

/* binary32 from its bits, locally (the library's version is a call). */
static float f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- reference decoders ---------------------------------------------- */

static double ieee_value(uint32_t code, int ebits, int mbits, int bias,
                         int has_inf)
{
    const uint32_t mag_mask = (1u << (ebits + mbits)) - 1u;
    const uint32_t mag = code & mag_mask;
    const uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1u);
    const int negative = (code >> (ebits + mbits)) & 1u;
    double v;

    if (has_inf && e == (1u << ebits) - 1u)
        v = m == 0 ? HUGE_VAL : NAN;
    else if (!has_inf && mag == mag_mask)
        v = NAN; /* e4m3fn: S.1111.111 is the only NaN */
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mbits);
    else
        v = ldexp((double)((1u << mbits) | m), (int)e - bias - mbits);
    return negative ? -v : v;
}

static double fp16_value(uint32_t c) { return ieee_value(c, 5, 10, 15, 1); }
static double bf16_value(uint32_t c) { return ieee_value(c, 8, 7, 127, 1); }
static double e4m3_value(uint32_t c) { return ieee_value(c, 4, 3, 7, 0); }
static double e5m2_value(uint32_t c) { return ieee_value(c, 5, 2, 15, 1); }

/*
 * HiF8 as the paper lays it out: after the sign, a prefix-coded dot field
 * (11, 10, 01, 001, 0001, 0000) gives D, the number of stored exponent
 * bits (4, 3, 2, 1, 0, denormal); the exponent is sign-magnitude with the
 * top magnitude bit implicit; the mantissa takes the remaining bits.
 */
static double hif8_value(uint32_t code)
{
    const unsigned a = code & 0x7Fu;
    const int negative = (code >> 7) & 1u;
    int dot_len, d, w, e;
    unsigned field, ebits, m;
    double v;

    if (a >> 5 != 0) {
        dot_len = 2;
        d = (int)(a >> 5) + 1; /* 01 -> 2, 10 -> 3, 11 -> 4 */
    } else if (a >> 4 != 0) {
        dot_len = 3, d = 1;
    } else if (a >> 3 != 0) {
        dot_len = 4, d = 0;
    } else { /* denormal: 2^(k - 23), k = 1..7; k = 0 is zero or NaN */
        if (a == 0)
            return negative ? NAN : 0.0;
        v = ldexp(1.0, (int)a - 23);
        return negative ? -v : v;
    }
    if (a == 0x6Fu)
        return negative ? -HUGE_VAL : HUGE_VAL;
    w = 7 - dot_len - d;
    field = a & ((1u << (7 - dot_len)) - 1u);
    m = field & ((1u << w) - 1u);
    ebits = field >> w;
    e = 0;
    if (d > 0) {
        e = (int)((1u << (d - 1)) | (ebits & ((1u << (d - 1)) - 1u)));
        if (ebits >> (d - 1))
            e = -e;
    }
    v = ldexp(1.0 + ldexp((double)m, -w), e);
    return negative ? -v : v;
}

static double int8_value(uint32_t c) { return (double)(int)(signed char)c; }

/* ---- NaN rules (docs/formats.md) ---------------------------------------- */

static uint32_t nan_fp16(uint32_t u)
{
    return (u >> 31) << 15 | 0x7C00u | 0x0200u | (u & 0x7FFFFFu) >> 13;
}
static uint32_t nan_bf16(uint32_t u)
{
    return (u >> 31) << 15 | 0x7F80u | 0x0040u | (u & 0x7FFFFFu) >> 16;
}
static uint32_t nan_e4m3(uint32_t u) { return (u >> 31) << 7 | 0x7Fu; }
static uint32_t nan_e5m2(uint32_t u) { return (u >> 31) << 7 | 0x7Eu; }
static uint32_t nan_hif8(uint32_t u) { (void)u; return 0x80u; }
static uint32_t nan_int8(uint32_t u) { (void)u; return 0x00u; }

/* ---- the functions under test -------------------------------------------- */

static uint32_t enc_fp16(float x, kvg_overflow m) { return kvg_f32_to_fp16(x, m); }
static uint32_t enc_bf16(float x, kvg_overflow m) { return kvg_f32_to_bf16(x, m); }
static uint32_t enc_e4m3(float x, kvg_overflow m) { return kvg_f32_to_fp8e4m3fn(x, m); }
static uint32_t enc_e5m2(float x, kvg_overflow m) { return kvg_f32_to_fp8e5m2(x, m); }
static uint32_t enc_hif8(float x, kvg_overflow m) { return kvg_f32_to_hif8(x, m); }
static uint32_t enc_int8(float x, kvg_overflow m)
{
    (void)m;
    return (uint8_t)kvg_f32_to_int8(x);
}
static float dec_fp16(uint32_t c) { return kvg_fp16_to_f32((uint16_t)c); }
static float dec_bf16(uint32_t c) { return kvg_bf16_to_f32((uint16_t)c); }
static float dec_e4m3(uint32_t c) { return kvg_fp8e4m3fn_to_f32((uint8_t)c); }
static float dec_e5m2(uint32_t c) { return kvg_fp8e5m2_to_f32((uint8_t)c); }
static float dec_hif8(uint32_t c) { return kvg_hif8_to_f32((uint8_t)c); }
static float dec_int8(uint32_t c)
{
    float v = 0.0f;
    const signed char b = (signed char)c;
    if (kvg_decode_f32(KVG_INT8, &b, &v) != KVG_OK)
        v = NAN;
    return v;
}

/* The encoder under test on n patterns from `first` (sign included), `step`
 * apart, against one code per mode: the OR of every got ^ want, so that a
 * clean run costs the calls alone (the reporting loop reruns a dirty one).
 * One function per format so that each call is direct. */
#define SPAN_CHECK3(name, enc)                                              \
    static uint32_t name(uint32_t first, uint32_t n, uint32_t step,         \
                         const uint32_t want[3])                            \
    {                                                                       \
        uint32_t diff = 0, u = first, k;                                    \
        for (k = 0; k < n; k++, u += step) {                                \
            const float x = f32(u);                                         \
            diff |= (uint32_t)enc(x, KVG_OVF_DEFAULT) ^ want[0];            \
            diff |= (uint32_t)enc(x, KVG_OVF_SATURATE) ^ want[1];           \
            diff |= (uint32_t)enc(x, KVG_OVF_NONSAT) ^ want[2];             \
        }                                                                   \
        return diff;                                                        \
    }
SPAN_CHECK3(span_fp16, kvg_f32_to_fp16)
SPAN_CHECK3(span_bf16, kvg_f32_to_bf16)
SPAN_CHECK3(span_e4m3, kvg_f32_to_fp8e4m3fn)
SPAN_CHECK3(span_e5m2, kvg_f32_to_fp8e5m2)
SPAN_CHECK3(span_hif8, kvg_f32_to_hif8)

static uint32_t span_int8(uint32_t first, uint32_t n, uint32_t step,
                          const uint32_t want[3])
{
    uint32_t diff = 0, u = first, k;
    for (k = 0; k < n; k++, u += step)
        diff |= (uint32_t)(uint8_t)kvg_f32_to_int8(f32(u)) ^ want[0];
    return diff;
}

static const ref_format k_formats[] = {
    {"fp16", K_IEEE, 16, TIE_EVEN, fp16_value, 0x1p16, 0x7BFFu, 0x7C00u, KVG_OVF_NONSAT,
     nan_fp16, enc_fp16, dec_fp16, span_fp16},
    {"bf16", K_IEEE, 16, TIE_EVEN, bf16_value, 0x1p128, 0x7F7Fu, 0x7F80u, KVG_OVF_NONSAT,
     nan_bf16, enc_bf16, dec_bf16, span_bf16},
    {"fp8_e4m3fn", K_IEEE, 8, TIE_EVEN, e4m3_value, 480.0, 0x7Eu, 0x7Fu, KVG_OVF_SATURATE,
     nan_e4m3, enc_e4m3, dec_e4m3, span_e4m3},
    {"fp8_e5m2", K_IEEE, 8, TIE_EVEN, e5m2_value, 0x1p16, 0x7Bu, 0x7Cu, KVG_OVF_SATURATE,
     nan_e5m2, enc_e5m2, dec_e5m2, span_e5m2},
    {"hif8", K_HIF8, 8, TIE_AWAY, hif8_value, 0x1.8p15, 0x6Eu, 0x6Fu, KVG_OVF_SATURATE,
     nan_hif8, enc_hif8, dec_hif8, span_hif8},
    /* int8: magnitude tables per sign; "overflow" always saturates */
    {"int8", K_INT8, 8, TIE_EVEN, int8_value, 0.0, 0, 0, KVG_OVF_SATURATE, nan_int8,
     enc_int8, dec_int8, span_int8},
};

/* ---- the sorted magnitude table and its walker ---------------------------- */

typedef struct walker {
    size_t n;          /* finite magnitudes v[0..n-1]; index n = overflow */
    double *v;         /* n + 1 values, v[n] virtual */
    double *mid;       /* mid[i] between v[i] and v[i+1], i < n */
    uint32_t *mid_first; /* the first pattern >= mid[i] (+inf: POS_INF) */
    uint32_t *code;    /* magnitude code of v[i]; code[n] of the virtual */
    size_t i;          /* current cell */
    double last;       /* previous input, to prove the walk is monotone */
} walker;

typedef struct entry {
    double v;
    uint32_t code;
} entry;

static int by_value(const void *a, const void *b)
{
    const double x = ((const entry *)a)->v, y = ((const entry *)b)->v;
    return (x > y) - (x < y);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        fail_msg("out of memory (%lu bytes)", (unsigned long)n);
    return p;
}

/* int8 magnitudes: 0..127 for +, 0..128 for -. */
static size_t int8_entries(int negative, entry *out)
{
    size_t k, n = negative ? 129 : 128;
    for (k = 0; k < n; k++) {
        out[k].v = (double)k;
        out[k].code = (uint32_t)k;
    }
    return n;
}

static size_t float_entries(const ref_format *f, entry *out)
{
    const uint32_t half = 1u << (f->bits - 1);
    uint32_t c;
    size_t n = 0;
    for (c = 0; c < half; c++) {
        const double v = f->value(c);
        if (isfinite(v)) {
            out[n].v = v;
            out[n].code = c;
            n++;
        }
    }
    return n;
}

/* The first binary32 pattern (0 .. POS_INF, ordered like the values) whose
 * value is >= m >= 0: found from the rounded m by stepping, so it does not
 * depend on the rounding direction. */
static uint32_t first_at_or_above(double m)
{
    uint32_t b;
    float f;
    if (!(m <= 3.4028234663852886e38))
        return POS_INF; /* above FLT_MAX only +inf is >= m */
    f = (float)m;
    memcpy(&b, &f, sizeof b);
    while ((double)f32(b) < m)
        b++;
    while (b > 0 && (double)f32(b - 1u) >= m)
        b--;
    return b;
}

static void walker_build(walker *w, const ref_format *f, int negative)
{
    const int is_int8 = f->kind == K_INT8;
    entry *e = (entry *)xmalloc(((size_t)1 << f->bits) * sizeof *e);
    size_t n = is_int8 ? int8_entries(negative, e) : float_entries(f, e);
    size_t k;

    qsort(e, n, sizeof *e, by_value);
    assert_true(e[0].v == 0.0);
    w->n = n;
    w->v = (double *)xmalloc((n + 1) * sizeof *w->v);
    w->mid = (double *)xmalloc(n * sizeof *w->mid);
    w->mid_first = (uint32_t *)xmalloc(n * sizeof *w->mid_first);
    w->code = (uint32_t *)xmalloc((n + 1) * sizeof *w->code);
    for (k = 0; k < n; k++) {
        w->v[k] = e[k].v;
        w->code[k] = e[k].code;
        if (k > 0 && !(e[k].v > e[k - 1].v))
            fail_msg("%s: values of codes 0x%X and 0x%X are not distinct",
                     f->name, (unsigned)e[k - 1].code, (unsigned)e[k].code);
    }
    if (is_int8) {
        w->v[n] = (double)n; /* 128 or 129: beyond it, saturation */
        w->code[n] = (uint32_t)n;
    } else if (f->kind == K_HIF8) {
        w->v[n] = f->virtual_value; /* 1.5 * 2^15, 0x6F's would-be value */
        w->code[n] = 0x6Fu;
    } else {
        /* IEEE: max plus one ulp of max (max and the value below it share
         * a binade in all four formats), at code max_code + 1 */
        w->v[n] = f->virtual_value;
        w->code[n] = w->code[n - 1] + 1u;
        assert_true(w->v[n] == 2.0 * w->v[n - 1] - w->v[n - 2]);
    }
    if (!is_int8)
        assert_int_equal(w->code[n - 1], f->sat_code);
    for (k = 0; k < n; k++) {
        w->mid[k] = (w->v[k] + w->v[k + 1]) * 0.5;
        /* the midpoint must be exact, else the comparisons would lie */
        assert_true(w->mid[k] - w->v[k] == w->v[k + 1] - w->mid[k]);
        w->mid_first[k] = first_at_or_above(w->mid[k]);
    }
    w->i = 0;
    w->last = -1.0;
    free(e);
}

static void walker_free(walker *w)
{
    free(w->v);
    free(w->mid);
    free(w->mid_first);
    free(w->code);
}

/* Index of the nearest value to x (n: overflow); x must not decrease. */
static size_t walk(walker *w, tie_rule tie, double x)
{
    if (x < w->last)
        fail_msg("sweep not monotone: %.17g after %.17g", x, w->last);
    w->last = x;
    while (w->i < w->n && x > w->mid[w->i])
        w->i++;
    if (w->i < w->n && x == w->mid[w->i]) {
        if (tie == TIE_AWAY)
            return w->i + 1;
        return (w->code[w->i] & 1u) == 0 ? w->i : w->i + 1;
    }
    return w->i;
}

/* ---- expected codes -------------------------------------------------------- */

static kvg_overflow resolve(const ref_format *f, kvg_overflow mode)
{
    return mode == KVG_OVF_DEFAULT ? f->default_mode : mode;
}

static uint32_t with_sign(const ref_format *f, int negative, uint32_t mag)
{
    if (f->kind == K_HIF8) /* one zero, 0x00, whatever the input's sign */
        return mag == 0 ? 0u : (uint32_t)negative << 7 | mag;
    if (f->kind == K_INT8) /* two's complement of the magnitude */
        return negative ? (uint32_t)(uint8_t)(-(int)mag) : mag;
    return (uint32_t)negative << (f->bits - 1) | mag;
}

static uint32_t expected(const ref_format *f, const walker *w, int negative,
                         size_t idx, kvg_overflow mode)
{
    uint32_t mag;
    if (idx < w->n)
        mag = w->code[idx];
    else if (f->kind == K_INT8) /* saturate: 127 or -128 */
        mag = w->code[w->n - 1];
    else
        mag = resolve(f, mode) == KVG_OVF_SATURATE ? f->sat_code
                                                   : f->nonsat_code;
    return with_sign(f, negative, mag);
}

/* ---- boundary patterns for strided runs ------------------------------------ */

static int by_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void push_near(uint32_t *list, size_t *n, double v)
{
    float f;
    uint32_t b;
    int d;
    if (!(v <= 3.4028234663852886e38))
        return;
    f = (float)v;
    if ((double)f != v)
        fail_msg("boundary %.17g is not a binary32 value", v);
    b = kvg_f32_bits(f);
    for (d = -2; d <= 2; d++) {
        const int64_t u = (int64_t)b + d;
        if (u >= 0 && u <= 0x7FFFFFFF)
            list[(*n)++] = (uint32_t)u;
    }
}

/* Patterns near every value, midpoint and special: sorted, distinct. */
static uint32_t *boundaries(const walker *w, size_t *count)
{
    static const uint32_t specials[] = {
        0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu,
        POS_INF,     0x7F800001u, 0x7F801FFFu, 0x7F802000u, 0x7F80FFFFu,
        0x7F810000u, 0x7FBFFFFFu, 0x7FC00000u, 0x7FC00001u, 0x7FFFFFFFu,
    };
    const size_t ns = sizeof specials / sizeof specials[0];
    uint32_t *list = (uint32_t *)xmalloc((10 * (w->n + 1) + ns) *
                                         sizeof *list);
    size_t n = 0, k, out;

    for (k = 0; k <= w->n; k++)
        push_near(list, &n, w->v[k]);
    for (k = 0; k < w->n; k++)
        push_near(list, &n, w->mid[k]);
    for (k = 0; k < ns; k++)
        list[n++] = specials[k];
    qsort(list, n, sizeof *list, by_u32);
    for (k = 0, out = 0; k < n; k++)
        if (out == 0 || list[k] != list[out - 1])
            list[out++] = list[k];
    *count = out;
    return list;
}

/* ---- the sweep ----------------------------------------------------------- */

typedef struct sweep_args {
    const ref_format *f;
    int negative;
    uint32_t stride;
} sweep_args;

typedef struct tally {
    uint64_t inputs, checks, bad;
} tally;

static void report(tally *t, const ref_format *f, kvg_overflow mode,
                   uint32_t u, uint32_t got, uint32_t want)
{
    static const char *names[] = {"DEFAULT", "SATURATE", "NONSAT"};
    const char *mode_name = f->kind == K_INT8 ? "(no mode)" : names[mode];
    if (t->bad < MAX_REPORTS)
        fprintf(stderr, "%s %s: input 0x%08X (%.9g): got 0x%X, want 0x%X\n",
                f->name, mode_name, (unsigned)u,
                (double)kvg_f32_from_bits(u), (unsigned)got, (unsigned)want);
    t->bad++;
}

static const kvg_overflow k_modes[3] = {KVG_OVF_DEFAULT, KVG_OVF_SATURATE,
                                        KVG_OVF_NONSAT};

/* expected(f, w, sign, i, mode) for every cell i and mode, so that the
 * inner loop is a lookup: want[k * (n + 1) + i]. */
static uint32_t *want_table(const ref_format *f, const walker *w,
                            int negative)
{
    uint32_t *want = (uint32_t *)xmalloc(3 * (w->n + 1) * sizeof *want);
    size_t i;
    int k;
    for (k = 0; k < 3; k++)
        for (i = 0; i <= w->n; i++)
            want[(size_t)k * (w->n + 1) + i] =
                expected(f, w, negative, i, k_modes[k]);
    return want;
}

/* A span: consecutive patterns lo..hi of the half on which the reference
 * gives the same code per mode, want[k] for k_modes[k]. */
typedef struct span {
    uint32_t lo, hi;
    uint32_t want[3];
} span;

/*
 * The span that starts at pattern lo (magnitude bits). The walk gives the
 * answer at lo and leaves its cell i with mid[i-1] < x <= mid[i]; every
 * pattern up to the last one below mid[i] has the same cell and no tie,
 * hence the same answer. A tie (x == mid[i]) is a span of its own, cell n
 * (overflow) reaches +inf, and a NaN is a span of its own (the NaN rule
 * reads the payload).
 */
static void span_at(const ref_format *f, walker *w, const uint32_t *want,
                    int negative, uint32_t lo, span *s)
{
    const size_t cells = w->n + 1;
    double x;
    size_t idx;
    int k;

    s->lo = s->hi = lo;
    if (lo > POS_INF) {
        const uint32_t nan = f->nan_rule(negative ? lo | SIGN32 : lo);
        for (k = 0; k < 3; k++)
            s->want[k] = nan;
        return;
    }
    x = (double)f32(lo);
    idx = walk(w, f->tie, x);
    for (k = 0; k < 3; k++)
        s->want[k] = want[(size_t)k * cells + idx];
    if (w->i == w->n)
        s->hi = POS_INF;
    else if (x < w->mid[w->i])
        s->hi = w->mid_first[w->i] - 1u;
}

/* The same checks one by one, through ref_format's encode, reporting. */
static void span_report(const ref_format *f, uint32_t first, uint32_t n,
                        uint32_t step, const uint32_t want[3], tally *t)
{
    const int nmodes = f->kind == K_INT8 ? 1 : 3;
    uint32_t u = first, j;
    int k;
    for (j = 0; j < n; j++, u += step)
        for (k = 0; k < nmodes; k++) {
            const uint32_t got = f->encode(f32(u), k_modes[k]);
            if (got != want[k])
                report(t, f, k_modes[k], u, got, want[k]);
        }
}

/* Blocks of at most this many inputs are rerun when dirty. */
#define BLOCK 65536u

/* Check n inputs from `first`, `step` apart (patterns with the sign). */
static void check_run(const sweep_args *a, uint32_t first, uint32_t n,
                      uint32_t step, const uint32_t want[3], tally *t)
{
    const ref_format *f = a->f;
    const uint32_t sign = a->negative ? SIGN32 : 0u;
    const int nmodes = f->kind == K_INT8 ? 1 : 3;
    while (n > 0) {
        const uint32_t m = n < BLOCK ? n : BLOCK;
        if (f->span(first | sign, m, step, want) != 0) {
            const uint64_t bad = t->bad;
            span_report(f, first | sign, m, step, want, t);
            if (t->bad == bad) /* the encoder is not deterministic */
                fail_msg("%s: a run from 0x%08X differs, no one input does",
                         f->name, (unsigned)(first | sign));
        }
        t->inputs += m;
        t->checks += (uint64_t)m * (uint64_t)nmodes;
        first += m * step; /* unsigned: wraps only past the last run */
        n -= m;
    }
}

/* The visited patterns (every stride-th, and the boundary list):
 * sweep_visits.h. */

/* Check the visited patterns of span s, in order: runs of stride points
 * between boundaries, and each boundary (a stride point or not) once. */
static void visit_span(const sweep_args *a, visits *v, const span *s,
                       tally *t)
{
    uint64_t p = s->lo;
    for (;;) {
        const uint64_t s0 = (p + v->stride - 1u) / v->stride * v->stride;
        uint64_t b, end;
        uint32_t n;
        while (v->bi < v->nb && v->bnd[v->bi] < p)
            v->bi++;
        b = v->bi < v->nb ? v->bnd[v->bi] : UINT64_MAX;
        if (b <= s0) { /* a boundary first */
            if (b > s->hi)
                return;
            check_run(a, (uint32_t)b, 1, 1, s->want, t);
            p = b + 1;
            continue;
        }
        if (s0 > s->hi)
            return;
        end = b - 1 < s->hi ? b - 1 : s->hi;
        n = (uint32_t)((end - s0) / v->stride + 1);
        check_run(a, (uint32_t)s0, n, v->stride, s->want, t);
        p = s0 + (uint64_t)(n - 1) * v->stride + 1;
    }
}

/* The C decoder agrees with the reference decoder on every code. */
static void check_decoders(const ref_format *f)
{
    uint32_t c;
    for (c = 0; c < (1u << f->bits); c++) {
        const double want = f->value(c);
        const float got = f->decode(c);
        if (isnan(want) ? !isnan(got)
                        : ((double)got != want ||
                           !signbit(got) != !signbit(want)))
            fail_msg("%s: code 0x%X decodes to %.9g, reference %.17g",
                     f->name, (unsigned)c, (double)got, want);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sweep(void **state)
{
    const sweep_args *a = (const sweep_args *)*state;
    walker w;
    tally t = {0, 0, 0};
    uint32_t *bnd = NULL, *want;
    size_t nb = 0;
    visits v;
    uint64_t p;
    const double t0 = now();

    check_decoders(a->f);
    walker_build(&w, a->f, a->negative);
    want = want_table(a->f, &w, a->negative);
    if (a->stride > 1)
        bnd = boundaries(&w, &nb);
    v.stride = a->stride;
    v.bnd = bnd;
    v.nb = nb;
    v.bi = 0;
    /* span by span; the reference is asked where a span's first visited
     * pattern lies (the patterns it skips are never checked) */
    for (p = next_visit(&v, 0); p <= 0x7FFFFFFFu;) {
        span s;
        span_at(a->f, &w, want, a->negative, (uint32_t)p, &s);
        visit_span(a, &v, &s, &t);
        p = next_visit(&v, (uint64_t)s.hi + 1u);
    }
    printf("%s %c: %llu inputs, %llu checks, %llu mismatches, %.1f s "
           "(stride %u, %lu boundary patterns)\n", a->f->name,
           a->negative ? '-' : '+', (unsigned long long)t.inputs,
           (unsigned long long)t.checks, (unsigned long long)t.bad,
           now() - t0, (unsigned)a->stride, (unsigned long)nb);
    walker_free(&w);
    free(want);
    free(bnd);
    /* every pattern of the half was visited, or every stride-th */
    if (a->stride == 1)
        assert_true(t.inputs == 0x80000000ull);
    else
        assert_true(t.inputs >= 0x80000000ull / a->stride);
    if (t.bad != 0)
        fail_msg("%s: %llu of %llu checks differ from the reference",
                 a->f->name, (unsigned long long)t.bad,
                 (unsigned long long)t.checks);
}

int main(int argc, char **argv)
{
    sweep_args a;
    size_t k;
    char name[64];
    struct CMUnitTest tests[1];

    if (argc < 3 || argc > 4 || (strcmp(argv[2], "+") != 0 &&
                                 strcmp(argv[2], "-") != 0)) {
        fprintf(stderr, "usage: %s FORMAT +|- [STRIDE]\n", argv[0]);
        return 2;
    }
    a.f = NULL;
    for (k = 0; k < sizeof k_formats / sizeof k_formats[0]; k++)
        if (strcmp(argv[1], k_formats[k].name) == 0)
            a.f = &k_formats[k];
    if (a.f == NULL) {
        fprintf(stderr, "unknown format %s\n", argv[1]);
        return 2;
    }
    a.negative = argv[2][0] == '-';
    a.stride = argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1u;
    if (a.stride == 0) {
        fprintf(stderr, "STRIDE must be at least 1\n");
        return 2;
    }
    (void)snprintf(name, sizeof name, "%s%s", a.f->name, argv[2]);
    tests[0].name = name;
    tests[0].test_func = sweep;
    tests[0].setup_func = NULL;
    tests[0].teardown_func = NULL;
    tests[0].initial_state = &a;
    return cmocka_run_group_tests_name("format.sweep", tests, NULL, NULL);
}
