/*
 * src/compare/verdict.c - from the measured statistics to the verdict and
 * its reason: kvgold's own rules (untouched elements, NaN/inf) under every
 * standard, then the criterion, and for float_re the standard asked for.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

static void add_reason(kvg_compare_result *r, kvg_verdict v, const char *fmt,
                       ...) KVG_I_PRINTF(3, 4);
static void add_reason(kvg_compare_result *r, kvg_verdict v, const char *fmt,
                       ...)
{
    size_t used = strlen(r->reason);
    va_list ap;

    /* FAIL outranks NOT JUDGED: a tensor with a known failure fails */
    if (r->verdict != KVG_VERDICT_FAIL)
        r->verdict = v;
    if (used != 0 && used + 2 < sizeof r->reason) {
        memcpy(r->reason + used, "; ", 3);
        used += 2;
    }
    if (used + 1 >= sizeof r->reason)
        return;
    va_start(ap, fmt);
    (void)vsnprintf(r->reason + used, sizeof r->reason - used, fmt, ap);
    va_end(ap);
}

static double cosine_of(const kvg_i_cmp_ctx *c)
{
    double cs;

    if (c->norm_a == 0.0 && c->norm_g == 0.0)
        return 1.0; /* msprobe: two zero vectors agree */
    if (c->norm_a == 0.0 || c->norm_g == 0.0)
        return NAN; /* undefined: one side is all zeros */
    cs = c->dot / (sqrt(c->norm_a) * sqrt(c->norm_g));
    /* rounding can step past +-1 by an ulp; the cosine cannot */
    return cs > 1.0 ? 1.0 : cs < -1.0 ? -1.0 : cs;
}

/* npu / max(tp, floor): ops-test-kit cross_check safe_div and msprobe
 * calc_ratio, whose floor is the small-value threshold. */
static double ratio_of(double npu, double tp, double floor)
{
    double den = tp > floor ? tp : floor;
    if (den == 0.0)
        return npu == 0.0 ? 1.0 : HUGE_VAL;
    return npu / den;
}

/* e8m0 / fp4_e1m2: the value statistics are not applicable (see
 * kvg_compare_result.values_not_applicable); reported, never computed on
 * codes. fp4_e1m2 has no value line either: no ULP, no error balance. */
static void drop_value_statistics(kvg_compare_result *r)
{
    r->max_abs_err = r->max_rel_err = r->mere = r->mare = NAN;
    r->rmse = r->cosine = NAN;
    r->over_thousandth = r->over_five_thousandth = 0;
    r->over_thousandth_ratio = r->over_five_thousandth_ratio = NAN;
    if (r->has_ulp)
        return;
    r->max_ulp = r->mean_ulp = r->ulp_over_ratio = NAN;
    r->ulp_threshold = r->error_balance = NAN;
    r->ulp_over = r->err_above = r->err_below = 0;
}

static void finish_statistics(kvg_i_cmp_ctx *c)
{
    kvg_compare_result *r = c->r;
    double n = (double)r->compared;

    if (r->compared > 0) {
        r->mere = c->sum_rel / n;
        r->rmse = sqrt(c->sum_sq / n);
        r->cosine = cosine_of(c);
        r->mean_ulp = c->sum_ulp / n;
    } else {
        r->max_abs_err = r->max_rel_err = r->mere = r->mare = NAN;
        r->rmse = r->cosine = r->max_ulp = r->mean_ulp = NAN;
    }
    r->ulp_over_ratio = r->error_balance = r->matched_ratio = NAN;
    if (r->written > 0) {
        double w = (double)r->written;
        r->over_thousandth_ratio = (double)r->over_thousandth / w;
        r->over_five_thousandth_ratio = (double)r->over_five_thousandth / w;
        r->mismatch_ratio = (double)r->dist_over1 / w;
        r->ulp_over_ratio = (double)r->ulp_over / w;
        r->error_balance =
            fabs((double)r->err_above - (double)r->err_below) / w;
        if (!isnan(r->rtol))
            r->matched_ratio = (double)r->matched / w;
    }
    if (r->has_third_party && r->normal_count > 0) {
        double m = (double)r->normal_count;
        r->npu_mere = c->n_sum_rel / m;
        r->tp_mere = c->tp_sum_rel / m;
        r->npu_rmse = sqrt(c->n_sum_sq / m);
        r->tp_rmse = sqrt(c->tp_sum_sq / m);
        r->mare_ratio = ratio_of(r->npu_mare, r->tp_mare, r->small_value);
        r->mere_ratio = ratio_of(r->npu_mere, r->tp_mere, r->small_value);
        r->rmse_ratio = ratio_of(r->npu_rmse, r->tp_rmse, r->small_value);
    }
    if (r->has_third_party)
        r->small_err_ratio = (double)r->small_err_npu /
                             (double)(r->small_err_tp > 1 ? r->small_err_tp
                                                          : 1);
    if (r->values_not_applicable)
        drop_value_statistics(r);
}

static void judge_single(kvg_compare_result *r)
{
    if (r->compared > 0 && !(r->mere < r->mere_limit))
        add_reason(r, KVG_VERDICT_FAIL, "MERE %.6e >= %.6e", r->mere,
                   r->mere_limit);
    if (r->compared > 0 && !(r->mare < r->mare_limit))
        add_reason(r, KVG_VERDICT_FAIL, "MARE %.6e >= %.6e", r->mare,
                   r->mare_limit);
}

static void judge_mixed(const kvg_i_cmp_ctx *c, kvg_compare_result *r)
{
    if (r->written > 0 && !(r->matched_ratio >= r->matched_ratio_limit))
        add_reason(r, KVG_VERDICT_FAIL,
                   "matched ratio %.6f < %.2f (%lld of %lld within atol + "
                   "rtol*|g|)", r->matched_ratio, r->matched_ratio_limit,
                   (long long)r->matched, (long long)r->written);
    if (r->over_cap > 0)
        add_reason(r, KVG_VERDICT_FAIL,
                   "max |a-g| %g > cap %g = max(limit, %g eps): %lld "
                   "element%s beyond it (first at index %lld)",
                   r->max_abs_err, r->max_abs_limit, r->cap_ulps,
                   (long long)r->over_cap, r->over_cap == 1 ? "" : "s",
                   (long long)c->first_over_cap);
}

static void judge_commercial(kvg_compare_result *r)
{
    if (!r->has_third_party) {
        add_reason(r, KVG_VERDICT_NOT_JUDGED,
                   "the commercial standard needs a third-party result "
                   "(dual benchmark)");
        return;
    }
    if (r->normal_count > 0) {
        if (!(r->mare_ratio <= r->mare_ratio_limit))
            add_reason(r, KVG_VERDICT_FAIL, "MARE ratio %.4g > %g (%s)",
                       r->mare_ratio, r->mare_ratio_limit,
                       kvg_compare_level_name(r->level));
        if (!(r->mere_ratio <= r->mere_ratio_limit))
            add_reason(r, KVG_VERDICT_FAIL, "MERE ratio %.4g > %g (%s)",
                       r->mere_ratio, r->mere_ratio_limit,
                       kvg_compare_level_name(r->level));
        if (!(r->rmse_ratio <= r->rmse_ratio_limit))
            add_reason(r, KVG_VERDICT_FAIL, "RMSE ratio %.4g > %g (%s)",
                       r->rmse_ratio, r->rmse_ratio_limit,
                       kvg_compare_level_name(r->level));
    }
    if (!(r->small_err_ratio <= r->small_err_ratio_limit))
        add_reason(r, KVG_VERDICT_FAIL,
                   "small-value errors %lld vs third party %lld (ratio "
                   "%.4g > %g)", (long long)r->small_err_npu,
                   (long long)r->small_err_tp, r->small_err_ratio,
                   r->small_err_ratio_limit);
}

/* Any difference fails; packed fp4 counts codes, and an e8m0 scale
 * says how many binades it is off (a NaN scale has no distance). */
static void judge_bitwise(kvg_compare_result *r)
{
    if (r->bits_differ == 0)
        return;
    if (r->dtype == KVG_E8M0)
        add_reason(r, KVG_VERDICT_FAIL,
                   "%lld of %lld written e8m0 scales differ bitwise (up to "
                   "%lld binade%s off among the non-NaN ones)",
                   (long long)r->bits_differ, (long long)r->written,
                   (long long)r->max_dist, r->max_dist == 1 ? "" : "s");
    else
        add_reason(r, KVG_VERDICT_FAIL, "%lld of %lld written %s differ "
                   "bitwise", (long long)r->bits_differ,
                   (long long)r->written,
                   r->codes_per_element == 2 ? "fp4 codes" : "elements");
}

static void judge_criterion(const kvg_i_cmp_ctx *c, kvg_compare_result *r)
{
    switch (r->criterion) {
    case KVG_CRIT_BITWISE:
        judge_bitwise(r);
        break;
    case KVG_CRIT_INT_ABS1:
        if (r->delta_over1 > 0)
            add_reason(r, KVG_VERDICT_FAIL,
                       "%lld element%s with |delta| > 1 (max %llu)",
                       (long long)r->delta_over1,
                       r->delta_over1 == 1 ? "" : "s",
                       (unsigned long long)r->max_abs_delta);
        break;
    case KVG_CRIT_FLOAT_RE:
        if (r->standard_id == KVG_STD_MIXED ||
            r->standard_id == KVG_STD_MIXED_TTK)
            judge_mixed(c, r);
        else if (r->standard_id == KVG_STD_COMMERCIAL)
            judge_commercial(r);
        else
            judge_single(r);
        break;
    default: /* KVG_CRIT_CODE_DIST */
        if (r->mismatch_ratio > r->mismatch_ratio_limit)
            add_reason(r, KVG_VERDICT_FAIL,
                       "%lld codes more than 1 apart (ratio %.6g > %.6g, "
                       "max distance %lld)", (long long)r->dist_over1,
                       r->mismatch_ratio, r->mismatch_ratio_limit,
                       (long long)r->max_dist);
        break;
    }
}

void kvg_i_cmp_finish(kvg_i_cmp_ctx *c)
{
    kvg_compare_result *r = c->r;

    finish_statistics(c);
    kvg_i_cmp_ttk_finish(c);
    r->verdict = KVG_VERDICT_PASS;
    r->reason[0] = '\0';
    if (r->untouched_changed > 0)
        add_reason(r, KVG_VERDICT_FAIL,
                   "%lld untouched %s%s changed (first at index %lld)",
                   (long long)r->untouched_changed,
                   r->codes_per_element == 2 ? "fp4 code" : "element",
                   r->untouched_changed == 1 ? "" : "s",
                   (long long)r->untouched_first[0].index);
    if (r->nonfinite_mismatch > 0 && r->special_by_third_party)
        add_reason(r, KVG_VERDICT_FAIL,
                   "%lld NaN/inf position%s where the NPU equals neither "
                   "the third party nor a NaN/inf golden (cross_check; "
                   "first at index %lld)", (long long)r->nonfinite_mismatch,
                   r->nonfinite_mismatch == 1 ? "" : "s",
                   (long long)c->first_nonfinite);
    else if (r->nonfinite_mismatch > 0)
        add_reason(r, KVG_VERDICT_FAIL,
                   "%lld NaN/inf mismatch%s with the golden (first at index "
                   "%lld)", (long long)r->nonfinite_mismatch,
                   r->nonfinite_mismatch == 1 ? "" : "es",
                   (long long)c->first_nonfinite);
    judge_criterion(c, r);
}
