/*
 * src/compare/compare.c - kvg_compare_tensor: validate everything, then
 * one pass over the elements (untouched runs in bulk, written elements one
 * by one), then the verdict (kvgold/compare.h; docs/compare.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

/* Metrics that may not exist start as NaN; counts start at 0. */
static void init_metrics_nan(kvg_compare_result *r)
{
    r->threshold = r->mere_limit = r->mare_limit = NAN;
    r->mismatch_ratio_limit = NAN;
    r->rtol = r->atol = r->matched_ratio_limit = NAN;
    r->max_abs_limit = r->cap_ulps = NAN;
    r->max_ulp = r->mean_ulp = r->ulp_over_ratio = r->error_balance = NAN;
    r->matched_ratio = r->ulp_threshold = NAN;
    r->npu_mare = r->npu_mere = r->npu_rmse = NAN;
    r->tp_mare = r->tp_mere = r->tp_rmse = NAN;
    r->mare_ratio = r->mere_ratio = r->rmse_ratio = NAN;
    r->mare_ratio_limit = r->mere_ratio_limit = r->rmse_ratio_limit = NAN;
    r->small_value = r->small_error = NAN;
    r->small_err_ratio = r->small_err_ratio_limit = NAN;
}

/* Mixed tolerance is measured under every standard; MIXED_TTK's table
 * when asked for, else opbase's; args.threshold replaces rtol and atol. */
static void init_mixed(kvg_compare_result *r, const kvg_compare_args *a)
{
    kvg_compare_standard s =
        a->standard == KVG_STD_MIXED_TTK ? KVG_STD_MIXED_TTK : KVG_STD_MIXED;
    kvg_i_mixed_table t = kvg_i_cmp_mixed_table(s, r->dtype);
    int mixed = a->standard == KVG_STD_MIXED ||
                a->standard == KVG_STD_MIXED_TTK;

    if (mixed && a->threshold > 0.0 && r->criterion == KVG_CRIT_FLOAT_RE) {
        t.rtol = t.atol = a->threshold;
        if (t.max_abs_limit == 0.0)
            t.max_abs_limit = HUGE_VAL; /* no cap without a table */
    }
    if (t.rtol == 0.0)
        return;
    r->rtol = t.rtol;
    r->atol = t.atol;
    r->max_abs_limit = t.max_abs_limit;
    r->matched_ratio_limit = KVG_I_MIXED_RATIO;
    r->cap_ulps = KVG_I_MIXED_CAP_ULPS;
}

static void init_standard(kvg_compare_result *r, const kvg_compare_args *a,
                          int has_tp)
{
    kvg_i_small_table sm = kvg_i_cmp_small_table(r->dtype);

    r->standard_id = a->standard;
    r->standard_version = kvg_compare_standard_version(a->standard);
    r->level = a->level;
    r->standard = kvg_i_cmp_rule_text(a->standard, r->criterion);
    r->standard_source = kvg_i_cmp_standard_source(a->standard, r->criterion);
    /* fp4_e1m2 has neither values nor a value line: no ULP */
    r->has_ulp = r->dtype != KVG_FP4_E1M2;
    r->ulp_threshold = kvg_i_cmp_ulp_threshold(r->dtype);
    init_mixed(r, a);
    r->has_third_party = has_tp;
    if (has_tp || a->standard == KVG_STD_COMMERCIAL) {
        (void)kvg_i_cmp_level_limits(a->level, &r->mare_ratio_limit,
                                     &r->mere_ratio_limit,
                                     &r->rmse_ratio_limit);
        r->small_value = sm.small_value;
        r->small_error = sm.small_error;
        r->small_err_ratio_limit = KVG_I_SMALL_ERR_RATIO;
    }
}

static void init_result(kvg_i_cmp_ctx *c, const kvg_compare_args *a,
                        const char *name, kvg_compare_criterion crit,
                        int64_t numel)
{
    kvg_compare_result *r = c->r;

    memset(r, 0, sizeof *r);
    (void)snprintf(r->name, sizeof r->name, "%s", name);
    r->dtype = a->golden->dtype;
    r->role = a->role;
    r->criterion = crit;
    r->has_layout = a->layout != NULL;
    if (a->layout != NULL)
        r->layout = *a->layout;
    r->codes_per_element = c->per;
    r->elements = numel * c->per;
    r->values_not_applicable = !kvg_i_cmp_values_apply(r->dtype);
    r->has_int_delta = kvg_i_cmp_is_int(r->dtype);
    r->has_code_dist = kvg_i_cmp_has_ranks(r->dtype);
    init_metrics_nan(r);
    if (crit == KVG_CRIT_FLOAT_RE && a->standard == KVG_STD_SINGLE) {
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
    init_standard(r, a, a->third_party != NULL);
    if (r->has_code_dist)
        kvg_i_cmp_build_ranks(r->dtype, c->rank);
    c->first_nonfinite = -1;
    c->first_over_cap = -1;
    /* with a third party, the dual benchmark takes ops-test-kit
     * cross_check's rule for NaN/inf positions */
    c->cross_check = crit == KVG_CRIT_FLOAT_RE &&
                     a->standard == KVG_STD_COMMERCIAL &&
                     a->third_party != NULL;
    r->special_by_third_party = c->cross_check;
    kvg_i_cmp_ttk_init(c);
}

/* Walk the mask in runs: untouched runs are checked in bulk. */
static void measure_all(kvg_i_cmp_ctx *c, const unsigned char *written)
{
    int64_t i = 0, j;

    while (i < c->numel) {
        if (written == NULL || written[i] != 0) {
            kvg_i_cmp_measure_written(c, i++);
            continue;
        }
        for (j = i + 1; j < c->numel && written[j] == 0; j++)
            ;
        kvg_i_cmp_measure_untouched(c, i, j);
        i = j;
    }
}

kvg_status kvg_compare_tensor(const kvg_compare_args *args,
                              kvg_compare_result *result, kvg_diag *diag)
{
    const char *name;
    kvg_compare_criterion crit = KVG_CRIT_AUTO;
    kvg_i_labels l;
    int64_t numel = 0;
    kvg_i_cmp_ctx c;
    kvg_compare_args bytes;

    if (args == NULL || result == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "compare", -1, -1,
                            "compare: NULL args or result");
    name = args->name != NULL ? args->name : "tensor";
    kvg_i_cmp_make_labels(name, &l);
    KVG_TRY(kvg_i_cmp_validate(args, &l, &numel, &crit, diag));

    memset(&c, 0, sizeof c);
    c.a = args;
    if (args->row_layout != NULL) {
        /* a packed cache: every byte is compared bit for bit for the
         * counts, then the rows judge it field by field */
        bytes = *args;
        bytes.criterion = crit = KVG_CRIT_BITWISE;
        bytes.role = KVG_ROLE_COPY;
        c.a = &bytes;
    }
    c.r = result;
    c.dt = args->golden->dtype;
    c.esize = kvg_dtype_size(c.dt);
    c.numel = numel;
    c.per = kvg_i_cmp_codes_per_element(c.dt);
    c.g = (const unsigned char *)args->golden->data;
    c.x = (const unsigned char *)args->actual->data;
    c.init = args->initial ? (const unsigned char *)args->initial->data
                           : NULL;
    c.tp = args->third_party
               ? (const unsigned char *)args->third_party->data
               : NULL;
    init_result(&c, c.a, name, crit, numel);
    if (args->written_runs != NULL)
        kvg_i_cmp_measure_runs(&c);
    else
        measure_all(&c, args->written);
    kvg_i_cmp_finish(&c);
    if (args->row_layout != NULL)
        kvg_i_rows_judge(&c, args);
    if (result->verdict == KVG_VERDICT_PASS)
        return KVG_OK;
    return kvg_diag_set(diag, KVG_ERR_MISMATCH, l.args, -1,
                        result->worst_count ? result->worst[0].index : -1,
                        "%s: %s (%s): %s", result->name,
                        kvg_verdict_name(result->verdict),
                        kvg_compare_criterion_name(crit), result->reason);
}

kvg_status kvg_compare_result_not_judged(kvg_compare_result *r,
                                         const char *name, kvg_dtype dtype,
                                         const char *reason)
{
    if (r == NULL)
        return KVG_ERR_PARAM_NULLPTR;
    memset(r, 0, sizeof *r);
    (void)snprintf(r->name, sizeof r->name, "%s",
                   name != NULL ? name : "tensor");
    r->dtype = dtype;
    r->codes_per_element = kvg_i_cmp_codes_per_element(dtype);
    r->values_not_applicable = !kvg_i_cmp_values_apply(dtype);
    r->criterion = KVG_CRIT_AUTO;
    r->standard = "not judged";
    r->standard_source = "";
    r->standard_version = "";
    r->ttk_verdict = KVG_VERDICT_NOT_JUDGED;
    r->ttk_rule = "";
    r->ttk_matched_ratio = r->ttk_max_abs_error = NAN;
    r->ttk_max_abs_limit = NAN;
    init_metrics_nan(r);
    r->max_abs_err = r->max_rel_err = r->mere = r->mare = NAN;
    r->rmse = r->cosine = NAN;
    r->over_thousandth_ratio = r->over_five_thousandth_ratio = NAN;
    r->mismatch_ratio = NAN;
    r->verdict = KVG_VERDICT_NOT_JUDGED;
    (void)snprintf(r->reason, sizeof r->reason, "%s",
                   reason != NULL ? reason : "not judged");
    return KVG_OK;
}
