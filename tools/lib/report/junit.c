/*
 * tools/lib/report/junit.c - the comparison as JUnit XML, the format CI systems
 * (Jenkins, GitLab, GitHub actions' test reporters) display: one
 * <testsuite> for the case, one <testcase> per output tensor. A failing
 * tensor's <failure> holds its text report (kvg_compare_report_text of that
 * tensor alone); an output with no NPU dump is a <failure type="NOT
 * JUDGED">, never a pass or a skip. With several NPU runs: one <testsuite>
 * per run, and one more holding the run-to-run check, a failure unless the
 * runs were shown bit-identical.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "kvgold/compare.h"
#include "report.h"

/* XML text or attribute value; characters XML 1.0 forbids are dropped. */
static void put_xml(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (ch >= 0x20 || ch == '\n' || ch == '\t')
                fputc(ch, out);
        }
    }
}

/* The text report of one result, malloc'd; NULL when out of memory. */
static char *text_of(const kvg_compare_result *r)
{
    size_t len = 0;
    kvg_diag diag;
    char *buf;
    if (kvg_compare_report_text(r, 1, NULL, 0, &len, &diag) != KVG_OK)
        return NULL;
    if ((buf = (char *)malloc(len + 1)) == NULL)
        return NULL;
    if (kvg_compare_report_text(r, 1, buf, len + 1, &len, &diag) != KVG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* kvgold.compare.<op>, and .runK when there are several runs (so each
 * run's testcases stay apart in a CI system's tree). */
static void put_classname(FILE *out, const kvg_report_set *set, int run)
{
    fputs("kvgold.compare.", out);
    put_xml(out, set->op ? set->op : "case");
    if (run < 0)
        fputs(".runs", out);
    else if (set->runs != NULL)
        fprintf(out, ".run%d", run + 1);
}

static kvg_status put_testcase(FILE *out, const kvg_report_set *set,
                               int run, const kvg_compare_result *r,
                               kvg_diag *diag)
{
    char *text;
    fputs("    <testcase name=\"", out);
    put_xml(out, r->name);
    fputs("\" classname=\"", out);
    put_classname(out, set, run);
    fputs("\" time=\"0\"", out);
    if (r->verdict == KVG_VERDICT_PASS) {
        fputs("/>\n", out);
        return KVG_OK;
    }
    if ((text = text_of(r)) == NULL)
        return kvg_report_nomem(diag, "rendering", r->name);
    fputs(">\n      <failure type=\"", out);
    put_xml(out, kvg_compare_criterion_name(r->criterion));
    fputs("\" message=\"", out);
    put_xml(out, r->reason);
    fputs("\">", out);
    put_xml(out, text);
    fputs("</failure>\n    </testcase>\n", out);
    free(text);
    return KVG_OK;
}

/* A run's suite's <properties>: the standard that judged it, by its
 * versioned name (each once), and per tensor what ops-test-kit's own
 * default would say of it, so a CI reading only the XML sees both
 * verdicts. */
static void put_properties(FILE *out, const kvg_report_run *run)
{
    int i, j;
    fputs("    <properties>\n", out);
    for (i = 0; i < run->count; i++) {
        const kvg_compare_result *r = run->tensors[i].result;
        int seen = r->standard_version == NULL ||
                   r->standard_version[0] == '\0';
        for (j = 0; j < i && !seen; j++) {
            const char *v = run->tensors[j].result->standard_version;
            seen = v != NULL && strcmp(v, r->standard_version) == 0;
        }
        if (seen)
            continue;
        fputs("      <property name=\"kvgold.standard\" value=\"", out);
        put_xml(out, r->standard_version);
        fputs("\"/>\n", out);
    }
    for (i = 0; i < run->count; i++) {
        const kvg_compare_result *r = run->tensors[i].result;
        if (r->ttk_rule == NULL || r->ttk_rule[0] == '\0')
            continue;
        fputs("      <property name=\"ops_test_kit.", out);
        put_xml(out, r->name);
        fputs("\" value=\"", out);
        put_xml(out, kvg_verdict_name(r->ttk_verdict));
        fputs(" (", out);
        put_xml(out, r->ttk_rule);
        fputs(")\"/>\n", out);
    }
    fputs("    </properties>\n", out);
}

static int run_failures(const kvg_report_run *run)
{
    /* an output that was not judged is a failure, never a skip: CI systems
     * count a skip as green, and an unjudged tensor must not pass */
    int i, failures = run->n_skipped;
    for (i = 0; i < run->count; i++)
        failures += run->tensors[i].result->verdict != KVG_VERDICT_PASS;
    return failures;
}

/* One <testsuite> per run: one <testcase> per output tensor. */
static kvg_status put_run(FILE *out, const kvg_report_set *set, int k,
                          kvg_diag *diag)
{
    kvg_report_run run = kvg_report_get_run(set, k);
    int i, failures = run_failures(&run);
    kvg_status st;

    fputs("  <testsuite name=\"", out);
    put_xml(out, set->case_dir ? set->case_dir : "case");
    if (set->runs != NULL) {
        fprintf(out, " run %d of %d", k + 1, set->n_runs);
        if (run.npu_dir != NULL) {
            fputs(": ", out);
            put_xml(out, run.npu_dir);
        }
    }
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
                 "skipped=\"0\" time=\"0\">\n",
            run.count + run.n_skipped, failures);
    put_properties(out, &run);
    for (i = 0; i < run.count; i++)
        if ((st = put_testcase(out, set, k, run.tensors[i].result, diag)) !=
            KVG_OK)
            return st;
    for (i = 0; i < run.n_skipped; i++) {
        fputs("    <testcase name=\"", out);
        put_xml(out, run.skipped[i]);
        fputs("\" classname=\"", out);
        put_classname(out, set, k);
        fputs("\" time=\"0\">\n      <failure type=\"NOT JUDGED\" message=\"no "
              "usable NPU dump of this output: not judged\">NOT JUDGED: the "
              "text report gives the reason</failure>\n    </testcase>\n",
              out);
    }
    fputs("  </testsuite>\n", out);
    return KVG_OK;
}

kvg_status kvg_report_junit(FILE *out, const kvg_report_set *set,
                            kvg_diag *diag)
{
    int k, n = kvg_report_run_count(set), total = 0, failures = 0;
    int det = set->runs != NULL && set->determinism != NULL;
    int det_fail = det && strcmp(set->determinism, "PASS") != 0;

    for (k = 0; k < n; k++) {
        kvg_report_run run = kvg_report_get_run(set, k);
        total += run.count + run.n_skipped;
        failures += run_failures(&run);
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"kvgold compare\" tests=\"%d\" "
                 "failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
            total + det, failures + det_fail);
    for (k = 0; k < n; k++)
        KVG_TRY(put_run(out, set, k, diag));
    if (det) {
        /* the runs must be bit for bit the same: a test of its own, which
         * fails when they differ or when it could not be shown */
        fputs("  <testsuite name=\"", out);
        put_xml(out, set->case_dir ? set->case_dir : "case");
        fprintf(out, " determinism\" tests=\"1\" failures=\"%d\" errors=\"0\""
                     " skipped=\"0\" time=\"0\">\n    <testcase "
                     "name=\"determinism\" classname=\"", det_fail);
        put_classname(out, set, -1);
        fputs("\" time=\"0\"", out);
        if (!det_fail) {
            fputs("/>\n", out);
        } else {
            fputs(">\n      <failure type=\"", out);
            put_xml(out, set->determinism);
            fputs("\" message=\"", out);
            put_xml(out, set->determinism_why ? set->determinism_why : "");
            fputs("\">", out);
            put_xml(out, set->determinism_why ? set->determinism_why : "");
            fputs("</failure>\n    </testcase>\n", out);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    return KVG_OK;
}
