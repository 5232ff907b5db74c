/*
 * tools/lib/report/csv.c - one CSV row per tensor with every metric of its
 * kvg_compare_result (RFC 4180: comma-separated, CRLF-free "\n" lines,
 * fields with a comma, quote or newline quoted). Numbers are printed with
 * 17 significant digits so a spreadsheet gets the exact binary64 value; a
 * metric that does not exist for the data (NaN) is an empty field. Outputs
 * that were not judged get a row with verdict NOT JUDGED and no metrics.
 * With several NPU runs the rows of every run follow each other, each
 * starting with columns run and npu_dir, and a last row "determinism"
 * holds the run-to-run check's verdict.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>

#include "report.h"

static const char k_header[] =
    "tensor,dtype,role,criterion,verdict,reason,elements,written,untouched,"
    "untouched_changed,bits_differ,compared,nan_matched,inf_matched,"
    "nonfinite_mismatch,max_abs_err,max_rel_err,mere,mare,rmse,cosine,"
    "over_thousandth,over_five_thousandth,over_thousandth_ratio,"
    "over_five_thousandth_ratio,delta_minus1,delta_plus1,delta_over1,"
    "max_abs_delta,dist1,dist_over1,max_dist,threshold,mere_limit,"
    "mare_limit,mismatch_ratio_limit,mismatch_ratio\n";

/* Number of metric columns after "reason" (kept in step with k_header). */
#define METRIC_COLUMNS 31

static void put_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void put_double(FILE *out, double v)
{
    if (!isnan(v))
        fprintf(out, isinf(v) ? (v > 0 ? "inf" : "-inf") : "%.17g", v);
    fputc(',', out);
}

static void put_int(FILE *out, long long v)
{
    fprintf(out, "%lld,", v);
}

/* An int64 metric that only exists for some dtypes. */
static void put_opt_int(FILE *out, int has, long long v)
{
    if (has)
        fprintf(out, "%lld", v);
    fputc(',', out);
}

/* With several runs every row starts with the run's number and NPU_DIR. */
static void put_run_columns(FILE *out, const kvg_report_set *set, int k,
                            const kvg_report_run *run)
{
    if (set->runs == NULL)
        return;
    fprintf(out, "%d,", k + 1);
    put_text(out, run->npu_dir ? run->npu_dir : "");
    fputc(',', out);
}

static void put_row(FILE *out, const kvg_compare_result *r)
{
    put_text(out, r->name);
    fprintf(out, ",%s,%s,%s,%s,", kvg_dtype_name(r->dtype),
            kvg_compare_role_name(r->role),
            kvg_compare_criterion_name(r->criterion),
            kvg_verdict_name(r->verdict));
    put_text(out, r->reason);
    fputc(',', out);
    put_int(out, r->elements);
    put_int(out, r->written);
    put_int(out, r->untouched);
    put_int(out, r->untouched_changed);
    put_int(out, r->bits_differ);
    put_int(out, r->compared);
    put_int(out, r->nan_matched);
    put_int(out, r->inf_matched);
    put_int(out, r->nonfinite_mismatch);
    put_double(out, r->max_abs_err);
    put_double(out, r->max_rel_err);
    put_double(out, r->mere);
    put_double(out, r->mare);
    put_double(out, r->rmse);
    put_double(out, r->cosine);
    put_int(out, r->over_thousandth);
    put_int(out, r->over_five_thousandth);
    put_double(out, r->over_thousandth_ratio);
    put_double(out, r->over_five_thousandth_ratio);
    put_opt_int(out, r->has_int_delta, r->delta_minus1);
    put_opt_int(out, r->has_int_delta, r->delta_plus1);
    put_opt_int(out, r->has_int_delta, r->delta_over1);
    if (r->has_int_delta)
        fprintf(out, "%llu", (unsigned long long)r->max_abs_delta);
    fputc(',', out);
    put_opt_int(out, r->has_code_dist, r->dist1);
    put_opt_int(out, r->has_code_dist, r->dist_over1);
    put_opt_int(out, r->has_code_dist, r->max_dist);
    put_double(out, r->threshold);
    put_double(out, r->mere_limit);
    put_double(out, r->mare_limit);
    put_double(out, r->mismatch_ratio_limit);
    if (!isnan(r->mismatch_ratio))
        fprintf(out, "%.17g", r->mismatch_ratio);
    fputc('\n', out);
}

static void put_skipped(FILE *out, const char *name)
{
    int k;
    put_text(out, name);
    fputs(",,,,NOT JUDGED,", out);
    fputs("\"no NPU dump of this output: not judged\"", out);
    for (k = 0; k < METRIC_COLUMNS; k++)
        fputc(',', out);
    fputc('\n', out);
}

kvg_status kvg_report_csv(FILE *out, const kvg_report_set *set,
                          kvg_diag *diag)
{
    int i, k, n = kvg_report_run_count(set);
    (void)diag; /* nothing to allocate: it cannot fail */
    if (set->runs != NULL)
        fputs("run,npu_dir,", out);
    fputs(k_header, out);
    for (k = 0; k < n; k++) {
        kvg_report_run run = kvg_report_get_run(set, k);
        for (i = 0; i < run.count; i++) {
            put_run_columns(out, set, k, &run);
            put_row(out, run.tensors[i].result);
        }
        for (i = 0; i < run.n_skipped; i++) {
            put_run_columns(out, set, k, &run);
            put_skipped(out, run.skipped[i]);
        }
    }
    if (set->runs != NULL && set->determinism != NULL) {
        /* the run-to-run check: a row of its own, with its verdict */
        fputs("all,\"\",\"determinism\",,,bitwise,", out);
        fputs(set->determinism, out);
        fputc(',', out);
        put_text(out, set->determinism_why ? set->determinism_why : "");
        for (k = 0; k < METRIC_COLUMNS; k++)
            fputc(',', out);
        fputc('\n', out);
    }
    return KVG_OK;
}
