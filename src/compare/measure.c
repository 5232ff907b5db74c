/*
 * src/compare/measure.c - the statistics of one comparison, element by
 * element in index order, accumulated in binary64 so a result is
 * reproducible bit for bit on any IEEE machine (kvgold/compare.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>

#include "src/compare/compare_internal.h"

/* Unit u (an element, or a code of packed fp4) is untouched and its byte
 * changed: count and list it if the unit itself differs. */
static void untouched_unit(kvg_i_cmp_ctx *c, const unsigned char *ref,
                           int64_t u)
{
    kvg_compare_result *r = c->r;
    kvg_i_elem want, got;
    double d;

    kvg_i_cmp_load_at(c->dt, c->esize, ref, u, &want);
    kvg_i_cmp_load_at(c->dt, c->esize, c->x, u, &got);
    if (want.bits == got.bits)
        return; /* the other code of a packed byte changed */
    r->untouched_changed++;
    kvg_i_cmp_ttk_element(c, &want, &got);
    if (r->untouched_listed < KVG_COMPARE_WORST) {
        d = fabs(got.v - want.v);
        kvg_i_cmp_fill_element(c, u, &want, &got, d,
                               d / (fabs(want.v) + KVG_I_REL_FLOOR), d,
                               &r->untouched_first[r->untouched_listed++]);
    }
}

void kvg_i_cmp_measure_untouched(kvg_i_cmp_ctx *c, int64_t from, int64_t to)
{
    const unsigned char *ref = c->init != NULL ? c->init : c->g;
    int64_t i = from;
    int k;

    c->r->untouched += (to - from) * c->per;
    while ((i = kvg_i_cmp_first_diff(ref, c->x, c->esize, i, to)) < to) {
        for (k = 0; k < c->per; k++)
            untouched_unit(c, ref, i * c->per + k);
        i++;
    }
}

/* ULP error of a finite pair (see kvg_compare_result.has_ulp). */
static double ulp_of(const kvg_i_cmp_ctx *c, const kvg_i_elem *want,
                     const kvg_i_elem *got, double abs_diff)
{
    if (kvg_i_cmp_is_int(c->dt)) {
        int neg;
        return (double)kvg_i_cmp_int_delta(want, got, &neg);
    }
    if (kvg_i_cmp_has_ranks(c->dt)) {
        int d = c->rank[got->bits & 0xFF] - c->rank[want->bits & 0xFF];
        return d < 0 ? -(double)d : (double)d;
    }
    return kvg_i_cmp_ulp_error(c->dt, want->v, abs_diff);
}

static void measure_ulp_and_mixed(kvg_i_cmp_ctx *c, int64_t i,
                                  const kvg_i_elem *want,
                                  const kvg_i_elem *got, double ad)
{
    kvg_compare_result *r = c->r;
    double ulp = ulp_of(c, want, got, ad);

    c->sum_ulp += ulp;
    if (r->compared == 1 || ulp > r->max_ulp)
        r->max_ulp = ulp;
    if (ulp > r->ulp_threshold)
        r->ulp_over++;
    if (kvg_i_cmp_is_int(c->dt) ? got->iv > want->iv : got->v > want->v)
        r->err_above++;
    else if (kvg_i_cmp_is_int(c->dt) ? got->iv < want->iv : got->v < want->v)
        r->err_below++;
    if (isnan(r->rtol))
        return;
    if (ad <= r->atol + r->rtol * fabs(want->v))
        r->matched++;
    if (ad > r->max_abs_limit) {
        r->over_cap++;
        if (c->first_over_cap < 0)
            c->first_over_cap = i;
    }
}

/* The dual benchmark: NPU and third party against the golden, split at
 * small_value. Only pairs where all three are finite take part. */
static void measure_third_party(kvg_i_cmp_ctx *c, int64_t u,
                                const kvg_i_elem *want,
                                const kvg_i_elem *got)
{
    kvg_compare_result *r = c->r;
    kvg_i_elem tp;
    double g = want->v, ag = fabs(g), dn, dt, rn, rt;

    kvg_i_cmp_load_at(c->dt, c->esize, c->tp, u, &tp);
    if (want->cls != KVG_I_CLS_FINITE || tp.cls != KVG_I_CLS_FINITE) {
        if (!(want->cls == KVG_I_CLS_NAN && tp.cls == KVG_I_CLS_NAN) &&
            !(want->cls == KVG_I_CLS_INF && tp.cls == KVG_I_CLS_INF &&
              (want->v > 0) == (tp.v > 0)))
            r->tp_nonfinite_mismatch++;
        return;
    }
    if (got->cls != KVG_I_CLS_FINITE)
        return;
    dn = fabs(got->v - g);
    dt = fabs(tp.v - g);
    if (ag < r->small_value) {
        r->small_count++;
        r->small_err_npu += dn > r->small_error;
        r->small_err_tp += dt > r->small_error;
        return;
    }
    rn = dn / (ag + KVG_I_REL_FLOOR);
    rt = dt / (ag + KVG_I_REL_FLOOR);
    r->normal_count++;
    c->n_sum_rel += rn;
    c->n_sum_sq += dn * dn;
    c->tp_sum_rel += rt;
    c->tp_sum_sq += dt * dt;
    if (r->normal_count == 1 || rn > r->npu_mare)
        r->npu_mare = rn;
    if (r->normal_count == 1 || rt > r->tp_mare)
        r->tp_mare = rt;
}

static void measure_finite(kvg_i_cmp_ctx *c, int64_t i, const kvg_i_elem *want,
                           const kvg_i_elem *got, int same_bits)
{
    kvg_compare_result *r = c->r;
    double d = got->v - want->v;
    double ad = fabs(d), ag = fabs(want->v);
    double rel = ad / (ag + KVG_I_REL_FLOOR);
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
    measure_ulp_and_mixed(c, i, want, got, ad);
    if (r->has_int_delta) {
        int neg;
        uint64_t ud = kvg_i_cmp_int_delta(want, got, &neg);
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
        if (r->criterion == KVG_CRIT_CODE_DIST || c->dt == KVG_E8M0)
            score = (double)dist; /* e8m0: binades, whatever judges it */
    }
    if (r->criterion == KVG_CRIT_FLOAT_RE)
        score = rel;
    if (!same_bits)
        kvg_i_cmp_offer_worst(c, i, want, got, ad, rel, score);
}

/* x and y are the same value: both NaN, the same infinity, or equal
 * finite numbers (+0 = -0), as cross_check compares them. */
static int same_value(const kvg_i_elem *x, const kvg_i_elem *y)
{
    if (x->cls != y->cls)
        return 0;
    return x->cls == KVG_I_CLS_NAN || x->v == y->v;
}

static void count_nonfinite_mismatch(kvg_i_cmp_ctx *c, int64_t i)
{
    c->r->nonfinite_mismatch++;
    if (c->first_nonfinite < 0)
        c->first_nonfinite = i;
}

/* ops-test-kit cross_check's rule for a position where golden, NPU or
 * third party is NaN/inf: it passes only if the NPU equals the third
 * party, or the golden is NaN/inf and the NPU equals it. Returns 1 when
 * the position is settled here (the caller measures nothing more). */
static int cross_check_special(kvg_i_cmp_ctx *c, int64_t i,
                               const kvg_i_elem *want, const kvg_i_elem *got,
                               int same_bits)
{
    kvg_i_elem tp;
    int pass;

    kvg_i_cmp_load_at(c->dt, c->esize, c->tp, i, &tp);
    if (want->cls == KVG_I_CLS_FINITE && got->cls == KVG_I_CLS_FINITE &&
        tp.cls == KVG_I_CLS_FINITE)
        return 0;
    pass = same_value(got, &tp) ||
           (want->cls != KVG_I_CLS_FINITE && same_value(got, want));
    if (want->cls == KVG_I_CLS_FINITE && got->cls == KVG_I_CLS_FINITE) {
        /* only the third party is NaN/inf: the NPU cannot equal it */
        measure_finite(c, i, want, got, same_bits);
        count_nonfinite_mismatch(c, i);
        return 1;
    }
    if (!pass || same_value(got, want))
        return 0; /* a mismatch, or a NaN/inf the golden has too */
    c->r->tp_special_passed++;
    return 1;
}

/* Unit i: an element, or code i of a packed fp4 tensor. */
static void measure_unit(kvg_i_cmp_ctx *c, int64_t i)
{
    kvg_compare_result *r = c->r;
    kvg_i_elem want, got;
    int same_bits;

    r->written++;
    kvg_i_cmp_load_at(c->dt, c->esize, c->g, i, &want);
    kvg_i_cmp_load_at(c->dt, c->esize, c->x, i, &got);
    kvg_i_cmp_ttk_element(c, &want, &got);
    if (c->tp != NULL)
        measure_third_party(c, i, &want, &got);
    same_bits = want.bits == got.bits;
    if (!same_bits)
        r->bits_differ++;
    if (c->cross_check && cross_check_special(c, i, &want, &got, same_bits))
        return;
    if (want.cls == KVG_I_CLS_FINITE && got.cls == KVG_I_CLS_FINITE) {
        measure_finite(c, i, &want, &got, same_bits);
        return;
    }
    if (want.cls == KVG_I_CLS_NAN && got.cls == KVG_I_CLS_NAN) {
        r->nan_matched++;
        r->matched++;
        if (!same_bits) /* another payload: only bitwise minds */
            kvg_i_cmp_offer_worst(c, i, &want, &got, 0.0, 0.0, 0.0);
        return;
    }
    if (want.cls == KVG_I_CLS_INF && got.cls == KVG_I_CLS_INF &&
        (want.v > 0) == (got.v > 0)) {
        r->inf_matched++;
        r->matched++;
        return;
    }
    /* A NaN or inf where the golden has something else (or vice versa). */
    count_nonfinite_mismatch(c, i);
    r->over_thousandth++;
    r->over_five_thousandth++;
    r->ulp_over++;
    kvg_i_cmp_offer_worst(c, i, &want, &got, HUGE_VAL, HUGE_VAL, HUGE_VAL);
}

void kvg_i_cmp_measure_written(kvg_i_cmp_ctx *c, int64_t i)
{
    int k;

    for (k = 0; k < c->per; k++)
        measure_unit(c, i * c->per + k);
}
