/*
 * tools/lib/report/html.c - `kvgold compare --html`: one self-contained page
 * (inline CSS and SVG, no script, nothing fetched), readable offline and
 * attachable to a CI run. Per tensor: verdict and reason, a cache map
 * (caches) or the error histogram, the metrics, the worst elements.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_common.h"
#include "report.h"

/* The anchor of tensor i of run k: "t<i>" (run 1, as with one run), else
 * "r<k+1>-t<i>", unique across runs. */
static void put_anchor(FILE *out, int k, int i)
{
    if (k == 0)
        fprintf(out, "t%d", i);
    else
        fprintf(out, "r%d-t%d", k + 1, i);
}

static const char k_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;"
    "background:#fff}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 4px;"
    "border-top:1px solid #ccc;padding-top:12px}h3{font-size:14px;"
    "margin:12px 0 4px}\n"
    "code{font:12px monospace}.muted{color:#666}\n"
    ".badge{display:inline-block;padding:1px 8px;border-radius:3px;"
    "color:#fff;font-weight:bold}.PASS{background:#2e7d32}"
    ".FAIL{background:#c62828}.SKIPPED{background:#757575}\n"
    "table{border-collapse:collapse;margin:4px 0 8px}"
    "td,th{padding:2px 8px;border-bottom:1px solid #e5e5e5;text-align:right;"
    "font:12px monospace}th{background:#f5f5f5}td.l,th.l{text-align:left}\n"
    ".legend span{display:inline-block;margin-right:14px}"
    ".legend i{display:inline-block;width:14px;height:14px;margin-right:4px;"
    "vertical-align:-2px;border:1px solid #999}\n"
    "svg text{font:11px sans-serif;fill:#333}svg .tick{text-anchor:start}"
    "svg .blk{text-anchor:end}svg .cnt,svg .bin{text-anchor:middle}\n"
    ".reason{color:#b71c1c;font-weight:bold}.row{display:flex;gap:32px;"
    "flex-wrap:wrap;align-items:flex-start}\n";

static void put_class_css(FILE *out)
{
    int k;
    for (k = 0; k < KVG_EC_COUNT; k++)
        fprintf(out, "svg .c%d{fill:%s}", k,
                kvg_html_class_colour((kvg_elem_class)k));
    fputc('\n', out);
}

static void put_legend(FILE *out)
{
    int k;
    fputs("<p class=\"legend\">", out);
    for (k = 0; k < KVG_EC_COUNT; k++)
        fprintf(out, "<span><i style=\"background:%s\"></i>%s</span>",
                kvg_html_class_colour((kvg_elem_class)k),
                kvg_elem_class_legend((kvg_elem_class)k));
    fputs("</p>\n", out);
}

static void put_head(FILE *out, const kvg_report_set *set)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "\n<title>kvgold compare: ", out);
    kvg_html_put(out, set->case_dir ? set->case_dir : "case");
    fputs("</title>\n<style>\n", out);
    fputs(k_css, out);
    put_class_css(out);
    fputs("</style></head><body>\n", out);
}

/* The verdict line of one run: the text report's summary, never
 * optimistic (an output not judged makes it INCOMPLETE, not PASS). */
static void put_run_verdict(FILE *out, const kvg_report_run *run)
{
    long long failed = 0, changed = 0;
    int i;
    for (i = 0; i < run->count; i++) {
        failed += run->tensors[i].result->verdict != KVG_VERDICT_PASS;
        changed += run->tensors[i].result->untouched_changed;
    }
    fprintf(out, "%d tensors, %lld passed, %lld failed, %lld untouched "
                 "elements changed",
            run->count, (long long)run->count - failed, failed, changed);
    if (run->n_skipped)
        fprintf(out, "; <b>%d output%s not judged</b> (no NPU dump)",
                run->n_skipped, run->n_skipped == 1 ? "" : "s");
}

static const char *badge_class(const char *verdict)
{
    return strcmp(verdict, "PASS") == 0   ? "PASS"
           : strcmp(verdict, "FAIL") == 0 ? "FAIL"
                                          : "SKIPPED";
}

static void put_verdict(FILE *out, const kvg_report_set *set)
{
    const char *v = kvg_report_set_verdict(set);
    kvg_report_run run = kvg_report_get_run(set, 0);
    fprintf(out, "<h1>kvgold compare <span class=\"badge %s\">%s</span></h1>"
                 "\n<p>case <code>", badge_class(v), v);
    kvg_html_put(out, set->case_dir ? set->case_dir : "");
    fputs("</code> (", out);
    kvg_html_put(out, set->op ? set->op : "");
    fputs("): ", out);
    if (set->runs == NULL) {
        put_run_verdict(out, &run);
    } else {
        fprintf(out, "%d runs; determinism <span class=\"badge %s\">%s"
                     "</span> ", set->n_runs,
                badge_class(set->determinism ? set->determinism : ""),
                set->determinism ? set->determinism : "NOT JUDGED");
        kvg_html_put(out, set->determinism_why ? set->determinism_why : "");
    }
    fputs("</p>\n", out);
}

static void put_summary_table(FILE *out, const kvg_report_run *run, int k)
{
    int i;
    fputs("<table><tr><th class=\"l\">tensor</th><th class=\"l\">dtype</th>"
          "<th class=\"l\">criterion</th><th class=\"l\">verdict</th>"
          "<th>elements</th><th>written</th><th>bits differ</th>"
          "<th>untouched changed</th><th>NaN/inf mismatch</th><th>MERE</th>"
          "<th>MARE</th><th>cosine</th></tr>\n", out);
    for (i = 0; i < run->count; i++) {
        const kvg_compare_result *r = run->tensors[i].result;
        char mere[32], mare[32], cosv[32];
        kvg_html_num(mere, sizeof mere, r->mere);
        kvg_html_num(mare, sizeof mare, r->mare);
        kvg_html_num(cosv, sizeof cosv, r->cosine);
        fputs("<tr><td class=\"l\"><a href=\"#t", out);
        put_anchor(out, k, i);
        fputs("\">", out);
        kvg_html_put(out, r->name);
        fprintf(out, "</a></td><td class=\"l\">%s</td><td class=\"l\">%s</td>"
                     "<td class=\"l\"><span class=\"badge %s\">%s</span></td>"
                     "<td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
                     "<td>%lld</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                kvg_dtype_name(r->dtype),
                kvg_compare_criterion_name(r->criterion),
                kvg_verdict_name(r->verdict), kvg_verdict_name(r->verdict),
                (long long)r->elements, (long long)r->written,
                (long long)r->bits_differ, (long long)r->untouched_changed,
                (long long)r->nonfinite_mismatch, mere, mare, cosv);
    }
    for (i = 0; i < run->n_skipped; i++) {
        fputs("<tr><td class=\"l\">", out);
        kvg_html_put(out, run->skipped[i]);
        fputs("</td><td></td><td></td><td class=\"l\"><span class=\"badge "
              "SKIPPED\">NOT JUDGED</span></td><td colspan=\"8\" class=\"l\">"
              "no NPU dump of this output</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* One metric row; `v` printed with kvg_html_num. */
static void metric(FILE *out, const char *name, double v)
{
    char buf[32];
    kvg_html_num(buf, sizeof buf, v);
    fprintf(out, "<tr><td class=\"l\">%s</td><td>%s</td></tr>\n", name, buf);
}

static void metric_int(FILE *out, const char *name, long long v)
{
    fprintf(out, "<tr><td class=\"l\">%s</td><td>%lld</td></tr>\n", name, v);
}

static void put_metrics(FILE *out, const kvg_compare_result *r)
{
    fputs("<div><h3>Metrics</h3><table>\n", out);
    metric_int(out, "elements", r->elements);
    metric_int(out, "written", r->written);
    metric_int(out, "untouched", r->untouched);
    metric_int(out, "untouched changed", r->untouched_changed);
    metric_int(out, "bits differ (written)", r->bits_differ);
    metric_int(out, "compared (finite pairs)", r->compared);
    metric_int(out, "NaN matched", r->nan_matched);
    metric_int(out, "inf matched", r->inf_matched);
    metric_int(out, "NaN/inf mismatch", r->nonfinite_mismatch);
    metric(out, "max abs err", r->max_abs_err);
    metric(out, "max rel err", r->max_rel_err);
    metric(out, "MERE", r->mere);
    metric(out, "MERE limit", r->mere_limit);
    metric(out, "MARE", r->mare);
    metric(out, "MARE limit", r->mare_limit);
    metric(out, "RMSE", r->rmse);
    metric(out, "cosine", r->cosine);
    metric(out, "ratio rel err >= 1e-3", r->over_thousandth_ratio);
    metric(out, "ratio rel err >= 5e-3", r->over_five_thousandth_ratio);
    if (r->has_int_delta) {
        metric_int(out, "delta -1", r->delta_minus1);
        metric_int(out, "delta +1", r->delta_plus1);
        metric_int(out, "|delta| > 1", r->delta_over1);
        metric_int(out, "max |delta|", (long long)r->max_abs_delta);
    }
    if (r->values_not_applicable)
        fputs("<tr><td class=\"l\">value statistics</td><td>n/a (judged "
              "bit for bit)</td></tr>\n", out);
    if (r->has_code_dist && r->dtype == KVG_E8M0) {
        metric_int(out, "1 binade off", r->dist1);
        metric_int(out, "more than 1 binade off", r->dist_over1);
        metric_int(out, "max binades off", r->max_dist);
    } else if (r->has_code_dist) {
        metric_int(out, "code distance 1", r->dist1);
        metric_int(out, "code distance > 1", r->dist_over1);
        metric_int(out, "max code distance", r->max_dist);
        metric(out, "mismatch ratio", r->mismatch_ratio);
        metric(out, "mismatch ratio limit", r->mismatch_ratio_limit);
    }
    fputs("</table></div>\n", out);
}

static void put_coord(FILE *out, const kvg_compare_element *e)
{
    int k;
    if (e->coord_rank == 4) {
        fprintf(out, "block=%lld slot=%lld head=%lld channel=%lld",
                (long long)e->coord[0], (long long)e->coord[1],
                (long long)e->coord[2], (long long)e->coord[3]);
        return;
    }
    fputc('[', out);
    for (k = 0; k < e->coord_rank; k++)
        fprintf(out, "%s%lld", k ? ", " : "", (long long)e->coord[k]);
    fputc(']', out);
}

static void put_elements(FILE *out, const char *title,
                         const kvg_compare_element *list, int n,
                         kvg_dtype dtype)
{
    int i;
    if (n == 0)
        return;
    fprintf(out, "<div><h3>%s</h3><table><tr><th>index</th>"
                 "<th class=\"l\">coordinate</th><th class=\"l\">expected</th>"
                 "<th class=\"l\">actual</th><th>abs err</th><th>rel err</th>"
                 "</tr>\n", title);
    for (i = 0; i < n; i++) {
        const kvg_compare_element *e = &list[i];
        char g[64], a[64], ae[32], re[32];
        kvg_html_value(g, sizeof g, e->golden,
                       (unsigned long long)e->golden_bits, dtype);
        kvg_html_value(a, sizeof a, e->actual,
                       (unsigned long long)e->actual_bits, dtype);
        kvg_html_num(ae, sizeof ae, e->abs_err);
        kvg_html_num(re, sizeof re, e->rel_err);
        if (kvg_dtype_is_fp4(dtype))
            /* a code of a packed byte: 2 * byte + nibble */
            fprintf(out, "<tr><td>%lld (byte %lld %s)</td><td class=\"l\">",
                    (long long)e->index, (long long)(e->index / 2),
                    e->index % 2 ? "hi" : "lo");
        else
            fprintf(out, "<tr><td>%lld</td><td class=\"l\">",
                    (long long)e->index);
        put_coord(out, e);
        fprintf(out, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td>"
                     "<td>%s</td><td>%s</td></tr>\n", g, a, ae, re);
    }
    fputs("</table></div>\n", out);
}

/* The cache map of a tensor with a layout; KVG_ERR_NOMEM when out of
 * memory. */
static kvg_status put_map(FILE *out, const kvg_report_tensor *t,
                          kvg_diag *diag)
{
    kvg_cache_map map;
    kvg_diag why;
    kvg_status st = kvg_cache_map_build(t, &map, &why);
    if (st == KVG_ERR_NOMEM)
        return kvg_diag_set(diag, st, why.tensor, -1, -1, "%s", why.message);
    if (st != KVG_OK)
        return KVG_OK; /* the layout does not describe it: no map, no harm */
    fprintf(out, "<h3>Cache map: %lld blocks &times; %lld slots</h3>\n"
                 "<p class=\"muted\">One cell per ",
            (long long)map.blocks, (long long)map.slots);
    if (map.blocks_per_row > 1)
        fprintf(out, "%lld blocks &times; ", (long long)map.blocks_per_row);
    else
        fputs("block &times; ", out);
    if (map.slots_per_col > 1)
        fprintf(out, "%lld slots", (long long)map.slots_per_col);
    else
        fputs("slot", out);
    fputs(" (all heads and channels), coloured by the worst element in it; "
          "hover a cell for its coordinates and worst element.</p>\n", out);
    kvg_html_cache_map(out, t, &map);
    kvg_cache_map_free(&map);
    return KVG_OK;
}

static kvg_status put_tensor(FILE *out, const kvg_report_tensor *t, int i,
                             int k, kvg_diag *diag)
{
    kvg_status st;
    const kvg_compare_result *r = t->result;
    kvg_error_hist h;
    fputs("<section><h2 id=\"", out);
    put_anchor(out, k, i);
    fputs("\">", out);
    if (k)
        fprintf(out, "run %d: ", k + 1);
    kvg_html_put(out, r->name);
    fprintf(out, " <span class=\"badge %s\">%s</span> <span class=\"muted\">"
                 "%s, %s</span></h2>\n",
            kvg_verdict_name(r->verdict), kvg_verdict_name(r->verdict),
            kvg_dtype_name(r->dtype),
            r->has_rows ? "packed rows"
                        : kvg_compare_criterion_name(r->criterion));
    if (r->reason[0]) {
        fputs("<p class=\"reason\">", out);
        kvg_html_put(out, r->reason);
        fputs("</p>\n", out);
    }
    fputs("<p class=\"muted\">", out);
    if (r->standard_version != NULL && r->standard_version[0] != '\0') {
        kvg_html_put(out, r->standard_version);
        fputs(": ", out);
    }
    kvg_html_put(out, r->standard ? r->standard : "");
    if (r->ttk_rule != NULL && r->ttk_rule[0] != '\0') {
        fputs("; ops-test-kit would say: ", out);
        kvg_html_put(out, kvg_verdict_name(r->ttk_verdict));
        fputs(" (", out);
        kvg_html_put(out, r->ttk_rule);
        fputs(")", out);
    }
    fputs("</p>\n", out);
    if (t->layout != NULL && (st = put_map(out, t, diag)) != KVG_OK)
        return st;
    if (r->has_rows) {
        /* the bytes of several fields have no one error distribution */
        kvg_html_rows(out, r);
        fputs("</section>\n", out);
        return KVG_OK;
    }
    kvg_error_hist_build(t, &h);
    fprintf(out, "<h3>Error distribution of the %lld written elements (%s)"
                 "</h3>\n",
            (long long)h.written,
            h.steps ? "|delta| or code distance" : "relative error");
    kvg_html_histogram(out, t, &h);
    fputs("<div class=\"row\">\n", out);
    put_metrics(out, r);
    put_elements(out, "Worst written elements", r->worst, r->worst_count,
                 r->dtype);
    put_elements(out, "Untouched elements that changed (first)",
                 r->untouched_first, r->untouched_listed, r->dtype);
    fputs("</div></section>\n", out);
    return KVG_OK;
}

kvg_status kvg_report_html(FILE *out, const kvg_report_set *set,
                           kvg_diag *diag)
{
    kvg_status st;
    int i, k, n = kvg_report_run_count(set);
    put_head(out, set);
    put_verdict(out, set);
    put_legend(out);
    for (k = 0; k < n; k++) {
        kvg_report_run run = kvg_report_get_run(set, k);
        if (set->runs != NULL) {
            const char *v = kvg_report_run_verdict(&run);
            fprintf(out, "<h2>Run %d of %d: <code>", k + 1, n);
            kvg_html_put(out, run.npu_dir ? run.npu_dir : "");
            fprintf(out, "</code> <span class=\"badge %s\">%s</span></h2>"
                         "\n<p>", badge_class(v), v);
            put_run_verdict(out, &run);
            fputs("</p>\n", out);
        }
        put_summary_table(out, &run, k);
    }
    for (k = 0; k < n; k++) {
        kvg_report_run run = kvg_report_get_run(set, k);
        for (i = 0; i < run.count; i++)
            if ((st = put_tensor(out, &run.tensors[i], i, k, diag)) !=
                KVG_OK)
                return st;
    }
    fputs("<p class=\"muted\">Written by kvgold compare. Within tolerance, "
          "per element: float_re rel err below the MARE limit; int_abs1 "
          "|delta| &lt;= 1; code_dist at most one code apart; bitwise never "
          "(docs/usage.md).</p>\n</body></html>\n", out);
    return KVG_OK;
}
