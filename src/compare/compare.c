/*
 * src/compare/compare.c - the per-tensor precision comparison (see
 * kvgold/compare.h; definitions and sources in docs/compare.md).
 *
 * One pass validates (nothing is written until every check passed), one
 * pass measures. All statistics are accumulated in binary64 in element
 * order, so a result is reproducible bit for bit on any IEEE machine.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"
#include "kvgold/format.h"
#include "src/common/internal.h"

/* CANN's relative-error floor: rel = |a - g| / (|g| + 1e-7). */
#define REL_FLOOR 1e-7

static const char k_std_bitwise[] =
    "bitwise: every written element bit-identical (CANN commercial "
    "standard: non-compute and integer ops)";
static const char k_std_int[] =
    "int_abs1: |actual - golden| <= 1 for every written element (CANN "
    "commercial standard: quantisation, float in, integer out)";
static const char k_std_float[] =
    "float_re: MERE < Th and MARE < 10*Th, rel = |a-g|/(|g|+1e-7) over "
    "finite pairs (CANN ecosystem standard; ops-test-kit stat_rel_err)";
static const char k_std_code[] =
    "code_dist: a code distance > 1 on the format's value line is a "
    "mismatch; mismatches <= limit * written (ops-test-kit requant, with "
    "sign-magnitude codes ranked by value)";

/* ---- names and tables ---------------------------------------------------- */

const char *kvg_compare_criterion_name(kvg_compare_criterion c)
{
    switch (c) {
    case KVG_CRIT_AUTO: return "auto";
    case KVG_CRIT_BITWISE: return "bitwise";
    case KVG_CRIT_INT_ABS1: return "int_abs1";
    case KVG_CRIT_FLOAT_RE: return "float_re";
    case KVG_CRIT_CODE_DIST: return "code_dist";
    }
    return "invalid";
}

const char *kvg_compare_role_name(kvg_compare_role role)
{
    switch (role) {
    case KVG_ROLE_DEFAULT: return "default";
    case KVG_ROLE_COPY: return "copy";
    case KVG_ROLE_COMPUTE: return "compute";
    case KVG_ROLE_QUANT: return "quant";
    }
    return "invalid";
}

const char *kvg_verdict_name(kvg_verdict v)
{
    return v == KVG_VERDICT_PASS ? "PASS" : "FAIL";
}

static int is_int_dtype(kvg_dtype dt)
{
    return dt == KVG_INT8 || dt == KVG_INT32 || dt == KVG_INT64;
}

static int is_code_dtype(kvg_dtype dt)
{
    return dt == KVG_FP8_E4M3FN || dt == KVG_FP8_E5M2 || dt == KVG_HIF8;
}

double kvg_compare_default_threshold(kvg_dtype dtype)
{
    switch (dtype) {
    case KVG_FP16: return 1.0 / 1024.0;  /* 2^-10 */
    case KVG_BF16: return 1.0 / 128.0;   /* 2^-7 */
    case KVG_FP32: return 1.0 / 8192.0;  /* 2^-13 */
    case KVG_FP8_E4M3FN: return 0.125;   /* 2^-3 */
    case KVG_FP8_E5M2: return 0.25;      /* 2^-2 */
    default: return 0.0;
    }
}

kvg_compare_criterion kvg_compare_auto_criterion(kvg_dtype dtype,
                                                 kvg_compare_role role)
{
    if (kvg_dtype_size(dtype) == 0)
        return KVG_CRIT_AUTO;
    if (role == KVG_ROLE_COPY)
        return KVG_CRIT_BITWISE;
    switch (dtype) {
    case KVG_FP16:
    case KVG_BF16:
    case KVG_FP32:
        return KVG_CRIT_FLOAT_RE;
    case KVG_FP8_E4M3FN:
    case KVG_FP8_E5M2:
        return role == KVG_ROLE_COMPUTE ? KVG_CRIT_FLOAT_RE
                                        : KVG_CRIT_CODE_DIST;
    case KVG_HIF8:
        return KVG_CRIT_CODE_DIST;
    case KVG_INT8:
        return role == KVG_ROLE_COMPUTE ? KVG_CRIT_BITWISE : KVG_CRIT_INT_ABS1;
    default: /* int32, int64 */
        return role == KVG_ROLE_QUANT ? KVG_CRIT_INT_ABS1 : KVG_CRIT_BITWISE;
    }
}

void kvg_compare_args_init(kvg_compare_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->name = NULL;
    args->golden = args->actual = args->initial = NULL;
    args->written = NULL;
    args->layout = NULL;
    args->criterion = KVG_CRIT_AUTO;
    args->role = KVG_ROLE_DEFAULT;
    args->threshold = 0.0;
    args->mismatch_ratio = -1.0;
}

/* ---- elements -------------------------------------------------------------- */

enum { CLS_FINITE = 0, CLS_NAN = 1, CLS_INF = 2 };

typedef struct elem {
    double v;      /* widened value */
    uint64_t bits; /* raw code */
    int64_t iv;    /* integer dtypes: the exact value */
    int cls;
} elem;

static uint64_t raw_bits(const unsigned char *p, size_t size)
{
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;

    switch (size) {
    case 1: memcpy(&b8, p, 1); return b8;
    case 2: memcpy(&b16, p, 2); return b16;
    case 4: memcpy(&b32, p, 4); return b32;
    default: memcpy(&b64, p, 8); return b64;
    }
}

static void load(kvg_dtype dt, size_t size, const unsigned char *p, elem *e)
{
    float f = 0.0f;

    e->bits = raw_bits(p, size);
    e->iv = 0;
    if (dt == KVG_INT8) {
        int8_t v;
        memcpy(&v, p, 1);
        e->iv = v;
    } else if (dt == KVG_INT32) {
        int32_t v;
        memcpy(&v, p, 4);
        e->iv = v;
    } else if (dt == KVG_INT64) {
        memcpy(&e->iv, p, 8);
    }
    if (is_int_dtype(dt)) {
        e->v = (double)e->iv;
        e->cls = CLS_FINITE;
        return;
    }
    (void)kvg_decode_f32(dt, p, &f); /* dtype validated by the caller */
    e->v = (double)f;
    e->cls = isnan(e->v) ? CLS_NAN : isinf(e->v) ? CLS_INF : CLS_FINITE;
}

/*
 * The value-line rank of every code of an 8-bit float format: the number of
 * distinct non-NaN values below the code's value. Equal values share a rank
 * (-0 and +0), so the distance between two codes is the number of
 * representable values one must step over. The int8 view ttk uses is not
 * monotonic for sign-magnitude codes (and HiF8's code order interleaves
 * binades), which this avoids. Built per call: 256^2 comparisons, no state.
 */
static void build_ranks(kvg_dtype dt, int rank[256])
{
    double v[256];
    unsigned char first[256];
    int c, d;

    for (c = 0; c < 256; c++) {
        unsigned char b = (unsigned char)c;
        float f = 0.0f;
        (void)kvg_decode_f32(dt, &b, &f);
        v[c] = (double)f;
    }
    for (c = 0; c < 256; c++) {
        first[c] = !isnan(v[c]);
        for (d = 0; d < c && first[c]; d++)
            if (v[d] == v[c])
                first[c] = 0;
    }
    for (c = 0; c < 256; c++) {
        rank[c] = 0;
        if (isnan(v[c]))
            continue;
        for (d = 0; d < 256; d++)
            if (first[d] && v[d] < v[c])
                rank[c]++;
    }
}

/* ---- the comparison context -------------------------------------------- */

typedef struct ctx {
    const kvg_compare_args *a;
    kvg_compare_result *r;
    kvg_dtype dt;
    size_t esize;
    int64_t numel;
    const unsigned char *g, *x, *init; /* golden, actual, initial bytes */
    int rank[256];
    /* binary64 accumulators, in element order */
    double sum_rel, sum_sq, dot, norm_a, norm_g;
    int64_t first_nonfinite;
} ctx;

static void coords_of(const ctx *c, int64_t index, kvg_compare_element *e)
{
    int i;

    memset(e->coord, 0, sizeof e->coord);
    if (c->r->has_layout) {
        kvg_cache_coord cc = kvg_layout_coord(&c->r->layout, index);
        e->coord_rank = 4;
        e->coord[0] = cc.block;
        e->coord[1] = cc.slot;
        e->coord[2] = cc.head;
        e->coord[3] = cc.channel;
        return;
    }
    e->coord_rank = c->a->golden->rank;
    for (i = e->coord_rank - 1; i >= 0; i--) {
        int64_t dim = c->a->golden->shape[i];
        e->coord[i] = index % dim;
        index /= dim;
    }
}

static void fill_element(const ctx *c, int64_t index, const elem *want,
                         const elem *got, double abs_err, double rel_err,
                         double score, kvg_compare_element *e)
{
    e->index = index;
    coords_of(c, index, e);
    e->golden = want->v;
    e->actual = got->v;
    e->golden_bits = want->bits;
    e->actual_bits = got->bits;
    e->abs_err = abs_err;
    e->rel_err = rel_err;
    e->score = score;
}

/* Keep the K highest scores; elements arrive in index order, so an equal
 * score never displaces an earlier element (ties stay by index). */
static void offer_worst(ctx *c, int64_t index, const elem *want,
                        const elem *got, double abs_err, double rel_err,
                        double score)
{
    kvg_compare_result *r = c->r;
    int pos = r->worst_count;

    if (pos == KVG_COMPARE_WORST) {
        if (!(score > r->worst[KVG_COMPARE_WORST - 1].score))
            return;
        pos = KVG_COMPARE_WORST - 1;
    } else {
        r->worst_count++;
    }
    while (pos > 0 && score > r->worst[pos - 1].score) {
        r->worst[pos] = r->worst[pos - 1];
        pos--;
    }
    fill_element(c, index, want, got, abs_err, rel_err, score,
                 &r->worst[pos]);
}

static void measure_untouched(ctx *c, int64_t i)
{
    const unsigned char *ref = c->init != NULL ? c->init : c->g;
    size_t off = (size_t)i * c->esize;
    kvg_compare_result *r = c->r;
    elem want, got;
    double d;

    r->untouched++;
    if (memcmp(ref + off, c->x + off, c->esize) == 0)
        return;
    r->untouched_changed++;
    if (r->untouched_listed == KVG_COMPARE_WORST)
        return;
    load(c->dt, c->esize, ref + off, &want);
    load(c->dt, c->esize, c->x + off, &got);
    d = fabs(got.v - want.v);
    fill_element(c, i, &want, &got, d, d / (fabs(want.v) + REL_FLOOR),
                 d, &r->untouched_first[r->untouched_listed++]);
}

/* |got - want| of integer elements, exactly, and its sign. */
static uint64_t int_delta(const elem *want, const elem *got, int *negative)
{
    *negative = got->iv < want->iv;
    return *negative ? (uint64_t)want->iv - (uint64_t)got->iv
                     : (uint64_t)got->iv - (uint64_t)want->iv;
}

static void measure_finite(ctx *c, int64_t i, const elem *want,
                           const elem *got, int same_bits)
{
    kvg_compare_result *r = c->r;
    double d = got->v - want->v;
    double ad = fabs(d), ag = fabs(want->v);
    double rel = ad / (ag + REL_FLOOR);
    double mrel = ag != 0.0 ? ad / ag : ad == 0.0 ? 0.0 : ad / DBL_EPSILON;
    double score = ad;

    r->compared++;
    c->sum_rel += rel;
    c->sum_sq += d * d;
    c->dot += got->v * want->v;
    c->norm_a += got->v * got->v;
    c->norm_g += want->v * want->v;
    if (r->compared == 1 || ad > r->max_abs_err)
        r->max_abs_err = ad;
    if (r->compared == 1 || rel > r->mare)
        r->mare = rel;
    if (r->compared == 1 || mrel > r->max_rel_err)
        r->max_rel_err = mrel;
    if (!(mrel < 0.001))
        r->over_thousandth++;
    if (!(mrel < 0.005))
        r->over_five_thousandth++;
    if (r->has_int_delta) {
        int neg;
        uint64_t ud = int_delta(want, got, &neg);
        if (ud == 1 && neg)
            r->delta_minus1++;
        else if (ud == 1)
            r->delta_plus1++;
        else if (ud > 1)
            r->delta_over1++;
        if (ud > r->max_abs_delta)
            r->max_abs_delta = ud;
        if (r->criterion == KVG_CRIT_INT_ABS1)
            score = (double)ud;
    }
    if (r->has_code_dist) {
        int64_t dist = c->rank[got->bits & 0xFF] - c->rank[want->bits & 0xFF];
        if (dist < 0)
            dist = -dist;
        if (dist == 1)
            r->dist1++;
        else if (dist > 1)
            r->dist_over1++;
        if (dist > r->max_dist)
            r->max_dist = dist;
        if (r->criterion == KVG_CRIT_CODE_DIST)
            score = (double)dist;
    }
    if (r->criterion == KVG_CRIT_FLOAT_RE)
        score = rel;
    if (!same_bits)
        offer_worst(c, i, want, got, ad, rel, score);
}

static void measure_written(ctx *c, int64_t i)
{
    size_t off = (size_t)i * c->esize;
    kvg_compare_result *r = c->r;
    elem want, got;
    int same_bits;

    r->written++;
    load(c->dt, c->esize, c->g + off, &want);
    load(c->dt, c->esize, c->x + off, &got);
    same_bits = want.bits == got.bits;
    if (!same_bits)
        r->bits_differ++;
    if (want.cls == CLS_FINITE && got.cls == CLS_FINITE) {
        measure_finite(c, i, &want, &got, same_bits);
        return;
    }
    if (want.cls == CLS_NAN && got.cls == CLS_NAN) {
        r->nan_matched++;
        if (!same_bits) /* another payload: only bitwise minds */
            offer_worst(c, i, &want, &got, 0.0, 0.0, 0.0);
        return;
    }
    if (want.cls == CLS_INF && got.cls == CLS_INF &&
        (want.v > 0) == (got.v > 0)) {
        r->inf_matched++;
        return;
    }
    /* A NaN or inf where the golden has something else (or vice versa). */
    r->nonfinite_mismatch++;
    if (c->first_nonfinite < 0)
        c->first_nonfinite = i;
    r->over_thousandth++;
    r->over_five_thousandth++;
    offer_worst(c, i, &want, &got, HUGE_VAL, HUGE_VAL, HUGE_VAL);
}

/* ---- verdict ------------------------------------------------------------ */

static void add_reason(kvg_compare_result *r, const char *fmt, ...)
    KVG_I_PRINTF(2, 3);
static void add_reason(kvg_compare_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->reason);
    va_list ap;

    if (used != 0 && used + 2 < sizeof r->reason) {
        memcpy(r->reason + used, "; ", 3);
        used += 2;
    }
    if (used + 1 >= sizeof r->reason)
        return;
    va_start(ap, fmt);
    (void)vsnprintf(r->reason + used, sizeof r->reason - used, fmt, ap);
    va_end(ap);
    r->verdict = KVG_VERDICT_FAIL;
}

static void finish(ctx *c)
{
    kvg_compare_result *r = c->r;
    double n = (double)r->compared;

    if (r->compared > 0) {
        r->mere = c->sum_rel / n;
        r->rmse = sqrt(c->sum_sq / n);
        if (c->norm_a == 0.0 && c->norm_g == 0.0)
            r->cosine = 1.0; /* msprobe: two zero vectors agree */
        else if (c->norm_a == 0.0 || c->norm_g == 0.0)
            r->cosine = NAN; /* undefined: one side is all zeros */
        else
            r->cosine = c->dot / (sqrt(c->norm_a) * sqrt(c->norm_g));
        /* rounding can step past +-1 by an ulp; the cosine cannot */
        if (r->cosine > 1.0)
            r->cosine = 1.0;
        if (r->cosine < -1.0)
            r->cosine = -1.0;
    } else {
        r->max_abs_err = r->max_rel_err = r->mere = r->mare = NAN;
        r->rmse = r->cosine = NAN;
    }
    if (r->written > 0) {
        r->over_thousandth_ratio = (double)r->over_thousandth / r->written;
        r->over_five_thousandth_ratio =
            (double)r->over_five_thousandth / r->written;
        r->mismatch_ratio = (double)r->dist_over1 / r->written;
    }

    r->verdict = KVG_VERDICT_PASS;
    r->reason[0] = '\0';
    if (r->untouched_changed > 0)
        add_reason(r, "%lld untouched element%s changed (first at index "
                      "%lld)", (long long)r->untouched_changed,
                   r->untouched_changed == 1 ? "" : "s",
                   (long long)r->untouched_first[0].index);
    if (r->nonfinite_mismatch > 0)
        add_reason(r, "%lld NaN/inf mismatch%s with the golden (first at "
                      "index %lld)", (long long)r->nonfinite_mismatch,
                   r->nonfinite_mismatch == 1 ? "" : "es",
                   (long long)c->first_nonfinite);
    switch (r->criterion) {
    case KVG_CRIT_BITWISE:
        if (r->bits_differ > 0)
            add_reason(r, "%lld of %lld written elements differ bitwise",
                       (long long)r->bits_differ, (long long)r->written);
        break;
    case KVG_CRIT_INT_ABS1:
        if (r->delta_over1 > 0)
            add_reason(r, "%lld element%s with |delta| > 1 (max %llu)",
                       (long long)r->delta_over1,
                       r->delta_over1 == 1 ? "" : "s",
                       (unsigned long long)r->max_abs_delta);
        break;
    case KVG_CRIT_FLOAT_RE:
        if (r->compared > 0 && !(r->mere < r->mere_limit))
            add_reason(r, "MERE %.6e >= %.6e", r->mere, r->mere_limit);
        if (r->compared > 0 && !(r->mare < r->mare_limit))
            add_reason(r, "MARE %.6e >= %.6e", r->mare, r->mare_limit);
        break;
    default: /* KVG_CRIT_CODE_DIST */
        if (r->mismatch_ratio > r->mismatch_ratio_limit)
            add_reason(r, "%lld codes more than 1 apart (ratio %.6g > %.6g, "
                          "max distance %lld)", (long long)r->dist_over1,
                       r->mismatch_ratio, r->mismatch_ratio_limit,
                       (long long)r->max_dist);
        break;
    }
}

/* ---- validation --------------------------------------------------------- */

typedef struct labels {
    char golden[KVG_DIAG_NAME_MAX], actual[KVG_DIAG_NAME_MAX];
    char initial[KVG_DIAG_NAME_MAX], written[KVG_DIAG_NAME_MAX];
    char layout[KVG_DIAG_NAME_MAX], args[KVG_DIAG_NAME_MAX];
} labels;

static void make_labels(const char *name, labels *l)
{
    (void)snprintf(l->golden, sizeof l->golden, "%.36s.golden", name);
    (void)snprintf(l->actual, sizeof l->actual, "%.36s.actual", name);
    (void)snprintf(l->initial, sizeof l->initial, "%.36s.initial", name);
    (void)snprintf(l->written, sizeof l->written, "%.36s.written", name);
    (void)snprintf(l->layout, sizeof l->layout, "%.36s.layout", name);
    (void)snprintf(l->args, sizeof l->args, "%.36s", name);
}

/* A present, consistent view (0-element tensors allowed). */
static kvg_status check_view(const kvg_tensor *t, const char *label,
                             int64_t *numel, kvg_diag *diag)
{
    kvg_status st;

    if (t == NULL)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, label, -1, -1,
                          "%s: required tensor is NULL", label);
    if ((st = kvg_tensor_numel(t, label, numel, diag)) != KVG_OK)
        return st;
    if ((uint64_t)t->nbytes != (uint64_t)*numel * kvg_dtype_size(t->dtype)) {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: buffer is %llu bytes but shape %s of %s needs "
                          "%llu", label, (unsigned long long)t->nbytes, shape,
                          kvg_dtype_name(t->dtype),
                          (unsigned long long)((uint64_t)*numel *
                                               kvg_dtype_size(t->dtype)));
    }
    if (t->data == NULL && t->nbytes != 0)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, label, -1, -1,
                          "%s: data pointer is NULL", label);
    return KVG_OK;
}

/* `t` has the golden's dtype and shape. */
static kvg_status check_like(const kvg_tensor *t, const char *label,
                             const kvg_tensor *golden, kvg_diag *diag)
{
    char want[160], got[160];
    int64_t numel;
    kvg_status st;
    int i;

    if ((st = check_view(t, label, &numel, diag)) != KVG_OK)
        return st;
    if (t->dtype != golden->dtype)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: dtype must be %s (the golden's), got %s",
                          label, kvg_dtype_name(golden->dtype),
                          kvg_dtype_name(t->dtype));
    kvg_i_shape_str(golden, want, sizeof want);
    kvg_i_shape_str(t, got, sizeof got);
    if (t->rank != golden->rank)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: rank must be %d (golden shape %s), got %d "
                          "(shape %s)", label, golden->rank, want, t->rank,
                          got);
    for (i = 0; i < t->rank; i++)
        if (t->shape[i] != golden->shape[i])
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                              "%s: dim %d must be %lld (golden shape %s), "
                              "got %lld (shape %s)", label, i,
                              (long long)golden->shape[i], want,
                              (long long)t->shape[i], got);
    return KVG_OK;
}

static kvg_status check_layout(const kvg_cache_layout *l, kvg_dtype dt,
                               int64_t numel, const char *label,
                               kvg_diag *diag)
{
    int64_t n = 1;
    const int64_t dims[4] = {l->blocks, l->slots, l->heads, l->dim};
    static const char *const names[4] = {"blocks", "slots", "heads", "dim"};
    int i;

    if (l->kind != KVG_LAYOUT_ND && l->kind != KVG_LAYOUT_BNSD &&
        l->kind != KVG_LAYOUT_NZ)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: kind %d is not ND, BNSD or NZ", label,
                          (int)l->kind);
    for (i = 0; i < 4; i++) {
        if (dims[i] < 1)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                              "%s: %s must be >= 1, got %lld", label, names[i],
                              (long long)dims[i]);
        if (!kvg_i_mul_i64(n, dims[i], &n))
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                              "%s: blocks*slots*heads*dim overflows", label);
    }
    if (n != numel)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: blocks*slots*heads*dim = %lld*%lld*%lld*%lld "
                          "= %lld must equal the tensor's %lld elements",
                          label, (long long)l->blocks, (long long)l->slots,
                          (long long)l->heads, (long long)l->dim,
                          (long long)n, (long long)numel);
    if (l->kind == KVG_LAYOUT_NZ) {
        int64_t want = kvg_c0_of(dt);
        if (l->c0 < 1 || (want != 0 && l->c0 != want))
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                              "%s: c0 must be %lld (32 bytes of %s), got "
                              "%lld", label, (long long)(want ? want : 1),
                              kvg_dtype_name(dt), (long long)l->c0);
        if ((l->heads * l->dim) % l->c0 != 0)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                              "%s: heads*dim = %lld must be a multiple of c0 "
                              "= %lld", label, (long long)(l->heads * l->dim),
                              (long long)l->c0);
    }
    return KVG_OK;
}

static kvg_status check_criterion(const kvg_compare_args *a, kvg_dtype dt,
                                  kvg_compare_criterion *crit,
                                  const char *label, kvg_diag *diag)
{
    const char *cname;

    if ((int)a->role < KVG_ROLE_DEFAULT || (int)a->role > KVG_ROLE_QUANT)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: role %d is not a kvg_compare_role", label,
                          (int)a->role);
    if ((int)a->criterion < KVG_CRIT_AUTO ||
        (int)a->criterion > KVG_CRIT_CODE_DIST)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: criterion %d is not a kvg_compare_criterion",
                          label, (int)a->criterion);
    *crit = a->criterion == KVG_CRIT_AUTO
                ? kvg_compare_auto_criterion(dt, a->role)
                : a->criterion;
    cname = kvg_compare_criterion_name(*crit);
    if (*crit == KVG_CRIT_INT_ABS1 && !is_int_dtype(dt))
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: criterion %s needs an integer dtype (int8, "
                          "int32, int64), got %s", label, cname,
                          kvg_dtype_name(dt));
    if (*crit == KVG_CRIT_CODE_DIST && !is_code_dtype(dt))
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: criterion %s needs an 8-bit float dtype "
                          "(fp8_e4m3fn, fp8_e5m2, hif8), got %s", label,
                          cname, kvg_dtype_name(dt));
    if (*crit == KVG_CRIT_FLOAT_RE && is_int_dtype(dt))
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: criterion %s needs a floating dtype, got %s",
                          label, cname, kvg_dtype_name(dt));
    if (!(a->threshold >= 0.0) || isinf(a->threshold))
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: threshold must be finite and >= 0 (0 = the "
                          "dtype's default), got %g", label, a->threshold);
    if (*crit == KVG_CRIT_FLOAT_RE && a->threshold == 0.0 &&
        kvg_compare_default_threshold(dt) == 0.0)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: criterion float_re has no default threshold "
                          "for %s (no CANN standard gives one); set "
                          "args.threshold", label, kvg_dtype_name(dt));
    if (isnan(a->mismatch_ratio) || a->mismatch_ratio > 1.0)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                          "%s: mismatch_ratio must be in [0, 1] (< 0 = the "
                          "default %g), got %g", label, KVG_COMPARE_CODE_RATIO,
                          a->mismatch_ratio);
    return KVG_OK;
}

/* The mask holds only 0/1; where it is 0 and `initial` is given, the golden
 * must not differ from `initial`. */
static kvg_status check_mask(const kvg_compare_args *a, int64_t numel,
                             size_t esize, const labels *l, kvg_diag *diag)
{
    const unsigned char *g = (const unsigned char *)a->golden->data;
    const unsigned char *init =
        a->initial ? (const unsigned char *)a->initial->data : NULL;
    int64_t i;

    if (a->written == NULL)
        return KVG_OK;
    if ((uint64_t)a->written_count != (uint64_t)numel)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->written, -1, -1,
                          "%s: %llu mask bytes for %lld elements",
                          l->written, (unsigned long long)a->written_count,
                          (long long)numel);
    for (i = 0; i < numel; i++) {
        unsigned char m = a->written[i];
        if (m > 1)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->written, -1, i,
                              "%s: element %lld is %u; the mask must hold "
                              "0 (untouched) or 1 (written)", l->written,
                              (long long)i, (unsigned)m);
        if (m == 0 && init != NULL &&
            memcmp(g + (size_t)i * esize, init + (size_t)i * esize, esize) !=
                0)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->golden, -1, i,
                              "%s: element %lld is marked untouched but "
                              "differs from %s; the mask does not describe "
                              "the golden", l->golden, (long long)i,
                              l->initial);
    }
    return KVG_OK;
}

static kvg_status validate(const kvg_compare_args *a, const labels *l,
                           int64_t *numel, kvg_compare_criterion *crit,
                           kvg_diag *diag)
{
    kvg_status st;
    int64_t n;

    if ((st = check_view(a->golden, l->golden, numel, diag)) != KVG_OK)
        return st;
    if ((st = check_like(a->actual, l->actual, a->golden, diag)) != KVG_OK)
        return st;
    if (a->initial != NULL) {
        if ((st = check_like(a->initial, l->initial, a->golden, diag)) !=
            KVG_OK)
            return st;
        if (a->written == NULL)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->initial, -1, -1,
                              "%s: initial contents need the written mask "
                              "(which elements the golden wrote)",
                              l->initial);
    }
    n = *numel;
    if (a->layout != NULL &&
        (st = check_layout(a->layout, a->golden->dtype, n, l->layout,
                           diag)) != KVG_OK)
        return st;
    if ((st = check_criterion(a, a->golden->dtype, crit, l->args, diag)) !=
        KVG_OK)
        return st;
    return check_mask(a, n, kvg_dtype_size(a->golden->dtype), l, diag);
}

/* ---- entry points ------------------------------------------------------- */

static void init_result(ctx *c, const kvg_compare_args *a, const char *name,
                        kvg_compare_criterion crit, int64_t numel)
{
    kvg_compare_result *r = c->r;

    memset(r, 0, sizeof *r);
    (void)snprintf(r->name, sizeof r->name, "%s", name);
    r->dtype = a->golden->dtype;
    r->role = a->role;
    r->criterion = crit;
    r->standard = crit == KVG_CRIT_BITWISE    ? k_std_bitwise
                  : crit == KVG_CRIT_INT_ABS1 ? k_std_int
                  : crit == KVG_CRIT_FLOAT_RE ? k_std_float
                                              : k_std_code;
    r->has_layout = a->layout != NULL;
    if (a->layout != NULL)
        r->layout = *a->layout;
    r->elements = numel;
    r->has_int_delta = is_int_dtype(r->dtype);
    r->has_code_dist = is_code_dtype(r->dtype);
    r->threshold = r->mere_limit = r->mare_limit = NAN;
    r->mismatch_ratio_limit = NAN;
    if (crit == KVG_CRIT_FLOAT_RE) {
        r->threshold = a->threshold > 0.0
                           ? a->threshold
                           : kvg_compare_default_threshold(r->dtype);
        r->mere_limit = r->threshold;
        r->mare_limit = 10.0 * r->threshold;
    }
    if (crit == KVG_CRIT_CODE_DIST)
        r->mismatch_ratio_limit =
            a->mismatch_ratio >= 0.0 ? a->mismatch_ratio
                                     : KVG_COMPARE_CODE_RATIO;
    if (r->has_code_dist)
        build_ranks(r->dtype, c->rank);
    c->first_nonfinite = -1;
}

kvg_status kvg_compare_tensor(const kvg_compare_args *args,
                              kvg_compare_result *result, kvg_diag *diag)
{
    const char *name;
    kvg_compare_criterion crit = KVG_CRIT_AUTO;
    labels l;
    int64_t numel = 0, i;
    kvg_status st;
    ctx c;

    if (args == NULL || result == NULL)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, "compare", -1, -1,
                          "compare: NULL args or result");
    name = args->name != NULL ? args->name : "tensor";
    make_labels(name, &l);
    if ((st = validate(args, &l, &numel, &crit, diag)) != KVG_OK)
        return st;

    memset(&c, 0, sizeof c);
    c.a = args;
    c.r = result;
    c.dt = args->golden->dtype;
    c.esize = kvg_dtype_size(c.dt);
    c.numel = numel;
    c.g = (const unsigned char *)args->golden->data;
    c.x = (const unsigned char *)args->actual->data;
    c.init = args->initial ? (const unsigned char *)args->initial->data
                           : NULL;
    init_result(&c, args, name, crit, numel);
    for (i = 0; i < numel; i++) {
        if (args->written != NULL && args->written[i] == 0)
            measure_untouched(&c, i);
        else
            measure_written(&c, i);
    }
    finish(&c);
    if (result->verdict == KVG_VERDICT_PASS)
        return KVG_OK;
    return kvg_i_fail(diag, KVG_ERR_MISMATCH, l.args, -1,
                      result->worst_count ? result->worst[0].index : -1,
                      "%s: FAIL (%s): %s", result->name,
                      kvg_compare_criterion_name(crit), result->reason);
}

/* ---- written mask from two runs -------------------------------------- */

kvg_status kvg_compare_written_mask(const kvg_tensor *out_a,
                                    const kvg_tensor *init_a,
                                    const kvg_tensor *out_b,
                                    const kvg_tensor *init_b,
                                    unsigned char *mask, size_t count,
                                    kvg_diag *diag)
{
    const unsigned char *oa, *ia, *ob, *ib;
    int64_t numel, i;
    size_t es;
    kvg_status st;

    if (mask == NULL && count != 0)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, "mask", -1, -1,
                          "mask: NULL output buffer");
    if ((st = check_view(out_a, "out_a", &numel, diag)) != KVG_OK ||
        (st = check_like(init_a, "init_a", out_a, diag)) != KVG_OK ||
        (st = check_like(out_b, "out_b", out_a, diag)) != KVG_OK ||
        (st = check_like(init_b, "init_b", out_a, diag)) != KVG_OK)
        return st;
    if ((uint64_t)count != (uint64_t)numel)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, "mask", -1, -1,
                          "mask: room for %llu elements, the tensors have "
                          "%lld", (unsigned long long)count,
                          (long long)numel);
    es = kvg_dtype_size(out_a->dtype);
    oa = (const unsigned char *)out_a->data;
    ia = (const unsigned char *)init_a->data;
    ob = (const unsigned char *)out_b->data;
    ib = (const unsigned char *)init_b->data;
    for (i = 0; i < numel; i++) {
        size_t off = (size_t)i * es;
        if (memcmp(ia + off, ib + off, es) == 0)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, "init_b", -1, i,
                              "init_b: element %lld equals init_a; every "
                              "element must differ (e.g. init_b = ~init_a)",
                              (long long)i);
        if (memcmp(oa + off, ob + off, es) != 0 &&
            (memcmp(oa + off, ia + off, es) != 0 ||
             memcmp(ob + off, ib + off, es) != 0))
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, "out_b", -1, i,
                              "out_b: element %lld depends on the initial "
                              "contents but was not left untouched; the op "
                              "reads its output, no written mask exists",
                              (long long)i);
    }
    for (i = 0; i < numel; i++) {
        size_t off = (size_t)i * es;
        mask[i] = memcmp(oa + off, ob + off, es) == 0 ? 1 : 0;
    }
    return KVG_OK;
}

/* ---- summary ----------------------------------------------------------- */

void kvg_compare_summary_init(kvg_compare_summary *s)
{
    if (s == NULL)
        return;
    memset(s, 0, sizeof *s);
    s->status = KVG_OK;
}

void kvg_compare_summary_add(kvg_compare_summary *s,
                             const kvg_compare_result *r)
{
    if (s == NULL || r == NULL)
        return;
    s->tensors++;
    if (r->verdict == KVG_VERDICT_PASS) {
        s->passed++;
    } else {
        s->failed++;
        s->status = KVG_ERR_MISMATCH;
    }
    s->untouched_changed += r->untouched_changed;
}
