/*
 * tools/lib/report/element_class.c - judge one element of a compared tensor by
 * the criterion and limits the comparison applied (its kvg_compare_result),
 * so that the picture agrees with the verdict.
 *
 * "Within tolerance" for one element (docs/usage.md, "Read the picture"):
 *   float_re   under mixed / mixed_ttk, |a - g| <= atol + rtol * |g| and
 *              within the cap; otherwise rel = |a - g| / (|g| + 1e-7)
 *              below the result's MARE limit (10 Th): an element that
 *              alone cannot break MARE;
 *   int_abs1   |a - g| <= 1;
 *   code_dist  at most one code apart on the format's value line;
 *   bitwise    never: any difference is beyond tolerance.
 * A packed fp4 element (a byte, two 4-bit codes) is judged per code and
 * shows the worse of its two; an e8m0 scale's score is its distance in
 * binades (docs/compare.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "element_class.h"
#include "kvgold/format.h"

/* CANN's relative-error floor (docs/compare.md). */
#define REL_FLOOR 1e-7

const char *kvg_elem_class_name(kvg_elem_class c)
{
    static const char *const names[KVG_EC_COUNT] = {
        "untouched", "exact", "within", "out", "nonfinite", "changed"};
    return (unsigned)c < KVG_EC_COUNT ? names[c] : "invalid";
}

const char *kvg_elem_class_legend(kvg_elem_class c)
{
    static const char *const legends[KVG_EC_COUNT] = {
        "untouched and unchanged",
        "written and exact",
        "written within tolerance",
        "written out of tolerance",
        "NaN/inf mismatch",
        "untouched but changed"};
    return (unsigned)c < KVG_EC_COUNT ? legends[c] : "invalid";
}

int64_t kvg_report_tensor_elements(const kvg_report_tensor *t)
{
    size_t es = kvg_dtype_size(t->golden->dtype);
    return es ? (int64_t)(t->golden->nbytes / es) : 0;
}

/* Formats whose codes are ranked on their value line (code_dist), and
 * e8m0, whose rank is its code (a distance in binades). */
static int is_ranked(kvg_dtype dt)
{
    return dt == KVG_FP8_E4M3FN || dt == KVG_FP8_E5M2 || dt == KVG_HIF8 ||
           dt == KVG_FP4_E2M1 || dt == KVG_E8M0;
}

/* The value of a 1-byte code (fp4_e2m1: of its low nibble); NaN if none.
 * fp4_e1m2 has no decoder: its code number stands in (judged bitwise). */
static float code_value(kvg_dtype dt, unsigned char code)
{
    float f;
    if (dt == KVG_FP4_E2M1)
        return kvg_fp4e2m1_to_f32(code);
    if (dt == KVG_FP4_E1M2)
        return (float)(code & 0xFu);
    return kvg_decode_f32(dt, &code, &f) == KVG_OK ? f : NAN;
}

static int is_integer(kvg_dtype dt)
{
    return dt == KVG_INT8 || dt == KVG_INT32 || dt == KVG_INT64 ||
           dt == KVG_UINT8 || dt == KVG_INT16 || dt == KVG_UINT16 ||
           dt == KVG_UINT32;
}

/*
 * Rank of every code on the format's value line: the number of distinct
 * non-NaN values below the code's value, so -0 and +0 share a rank and the
 * distance of two codes is the number of representable values crossed.
 */
static void build_ranks(kvg_dtype dt, int rank[256])
{
    float v[256];
    int c, k;
    for (c = 0; c < 256; c++)
        v[c] = code_value(dt, (unsigned char)c);
    for (c = 0; c < 256; c++) {
        rank[c] = 0;
        for (k = 0; k < 256; k++) {
            int first = 1, m;
            if (isnan(v[k]) || !(v[k] < v[c]))
                continue;
            for (m = 0; m < k && first; m++)
                first = !(v[m] == v[k]);
            rank[c] += first;
        }
    }
}

void kvg_elem_judge_init(kvg_elem_judge *j, const kvg_report_tensor *t)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    j->dtype = t->golden->dtype;
    j->esize = kvg_dtype_size(j->dtype);
    if (is_ranked(j->dtype))
        build_ranks(j->dtype, j->rank);
}

/* The raw code and the value of element `index` of `t`. */
static void read_element(const kvg_elem_judge *j, const kvg_tensor *t,
                         int64_t index, uint64_t *bits, double *value)
{
    const unsigned char *p = (const unsigned char *)t->data +
                             (size_t)index * j->esize;
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    float f;
    if (kvg_dtype_is_fp4(j->dtype)) { /* `index` is a code: 2 * byte + nibble */
        p = (const unsigned char *)t->data + (size_t)(index / 2);
        *bits = kvg_fp4_unpack(*p, (unsigned)(index & 1));
        *value = (double)code_value(j->dtype, (unsigned char)*bits);
        return;
    }
    switch (j->esize) {
    case 1: memcpy(&b8, p, 1); *bits = b8; break;
    case 2: memcpy(&b16, p, 2); *bits = b16; break;
    case 4: memcpy(&b32, p, 4); *bits = b32; break;
    default: memcpy(&b64, p, 8); *bits = b64; break;
    }
    if (j->dtype == KVG_INT8)
        *value = (double)(int8_t)(uint8_t)*bits;
    else if (j->dtype == KVG_INT32)
        *value = (double)(int32_t)(uint32_t)*bits;
    else if (j->dtype == KVG_INT64)
        *value = (double)(int64_t)*bits;
    else
        *value = kvg_decode_f32(j->dtype, p, &f) == KVG_OK ? (double)f : NAN;
}

/* |a - g| of two integer codes, exact (int64 wraps are impossible for
 * int8/int32; int64 differences are taken in unsigned arithmetic). */
static double int_distance(const kvg_elem_judge *j, uint64_t a, uint64_t g)
{
    int64_t ia, ig;
    if (j->dtype == KVG_INT8) {
        ia = (int8_t)a;
        ig = (int8_t)g;
    } else if (j->dtype == KVG_INT32) {
        ia = (int32_t)a;
        ig = (int32_t)g;
    } else if (j->dtype == KVG_INT16) {
        ia = (int16_t)a;
        ig = (int16_t)g;
    } else { /* int64, and the unsigned types (zero-extended bits) */
        ia = (int64_t)a;
        ig = (int64_t)g;
    }
    return ia >= ig ? (double)((uint64_t)ia - (uint64_t)ig)
                    : (double)((uint64_t)ig - (uint64_t)ia);
}

/* A written, finite, not bit-identical pair: within tolerance or not. */
static void judge_finite(const kvg_elem_judge *j, kvg_elem_judgement *e)
{
    const kvg_compare_result *r = j->t->result;
    double diff = fabs(e->actual - e->expected);
    int within = 0;
    switch (r->criterion) {
    case KVG_CRIT_INT_ABS1:
        e->score = is_integer(j->dtype)
                       ? int_distance(j, e->actual_bits, e->expected_bits)
                       : diff;
        within = e->score <= 1.0;
        break;
    case KVG_CRIT_FLOAT_RE:
        e->score = diff / (fabs(e->expected) + REL_FLOOR);
        if (r->standard_id == KVG_STD_MIXED ||
            r->standard_id == KVG_STD_MIXED_TTK)
            /* the mixed rule's element test, and the cap */
            within = diff <= r->atol + r->rtol * fabs(e->expected) &&
                     diff <= r->max_abs_limit; /* false on NaN limits */
        else
            within = e->score < r->mare_limit; /* false when NaN */
        break;
    case KVG_CRIT_CODE_DIST:
        if (is_ranked(j->dtype)) {
            int d = j->rank[e->actual_bits & 0xFF] -
                    j->rank[e->expected_bits & 0xFF];
            e->score = d < 0 ? -d : d;
            within = e->score <= 1.0;
        } else {
            e->score = diff;
        }
        break;
    default: /* bitwise, or anything unknown: no tolerance at all */
        e->score = is_integer(j->dtype)
                       ? int_distance(j, e->actual_bits, e->expected_bits)
                       : diff;
        if (j->dtype == KVG_E8M0) /* binades */
            e->score = fabs((double)j->rank[e->actual_bits & 0xFF] -
                            (double)j->rank[e->expected_bits & 0xFF]);
        break;
    }
    e->cls = within ? KVG_EC_WITHIN : KVG_EC_OUT;
}

/* Whether the golden wrote element `index`: by the runs (a binary
 * search), else the mask, else every element is written. */
static int is_written(const kvg_report_tensor *t, int64_t index)
{
    size_t lo = 0, hi = t->written_run_count;

    if (t->written_runs == NULL)
        return t->written == NULL || t->written[index] != 0;
    while (lo < hi) { /* the first run that ends after index */
        size_t mid = lo + (hi - lo) / 2;
        const kvg_elem_run *r = &t->written_runs[mid];
        if (r->first + r->count <= index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->written_run_count && t->written_runs[lo].first <= index;
}

/* Judge unit `unit` (an element, or a code of packed fp4) whose element
 * is written or not. */
static void judge_unit(const kvg_elem_judge *j, int64_t unit, int written,
                       kvg_elem_judgement *e)
{
    const kvg_report_tensor *t = j->t;
    const kvg_tensor *ref = written || t->initial == NULL ? t->golden
                                                          : t->initial;
    read_element(j, ref, unit, &e->expected_bits, &e->expected);
    read_element(j, t->actual, unit, &e->actual_bits, &e->actual);
    e->score = 0.0;
    if (!written) {
        e->cls = e->actual_bits == e->expected_bits ? KVG_EC_UNTOUCHED
                                                    : KVG_EC_CHANGED;
        if (e->cls == KVG_EC_CHANGED) {
            double d = fabs(e->actual - e->expected);
            e->score = isnan(d) ? INFINITY : d;
        }
        return;
    }
    if (e->actual_bits == e->expected_bits ||
        (isnan(e->actual) && isnan(e->expected))) {
        e->cls = KVG_EC_EXACT;
        return;
    }
    if (!isfinite(e->actual) || !isfinite(e->expected)) {
        e->cls = KVG_EC_NONFINITE;
        e->score = INFINITY;
        return;
    }
    judge_finite(j, e);
}

void kvg_elem_judge_one(const kvg_elem_judge *j, int64_t index,
                        kvg_elem_judgement *e)
{
    int written = is_written(j->t, index);
    kvg_elem_judgement hi;

    if (!kvg_dtype_is_fp4(j->dtype)) {
        judge_unit(j, index, written, e);
        return;
    }
    /* a byte of two codes shows the worse one (class, then score) */
    judge_unit(j, 2 * index, written, e);
    judge_unit(j, 2 * index + 1, written, &hi);
    if (hi.cls > e->cls || (hi.cls == e->cls && hi.score > e->score))
        *e = hi;
}
