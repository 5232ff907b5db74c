/*
 * tools/cli/compare_repeat.c - see compare_repeat.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "compare_repeat.h"
#include "json.h"
#include "kvgold/compare.h"

/* One output, run k against run 1: a text line and a JSON entry. */
static int check_one(const kvg_case_tensor *g, const kvg_cli_dumps *runs,
                     int i, int k, FILE *out, FILE *json,
                     int *listed)
{
    kvg_compare_runs_result rr;
    kvg_diag diag;
    char bits[40];
    int w = (int)(2 * kvg_dtype_size(g->t.dtype));

    kvg_diag_clear(&diag);
    if (kvg_compare_runs(&runs[0].t[i], &runs[k].t[i], &rr, &diag) !=
        KVG_OK) {
        if (out != NULL)
            fprintf(out, "  %s: run %d cannot be compared with run 1: %s\n",
                    g->name, k + 1, diag.message);
        return 0;
    }
    if (out != NULL && rr.differ == 0)
        fprintf(out, "  %s: run %d is bit-identical to run 1 (%lld "
                     "elements)\n", g->name, k + 1, (long long)rr.elements);
    else if (out != NULL)
        fprintf(out, "  %s: run %d differs from run 1 in %lld of %lld "
                     "elements (first at index %lld: 0x%0*llx in run 1, "
                     "0x%0*llx in run %d)\n", g->name, k + 1,
                (long long)rr.differ, (long long)rr.elements,
                (long long)rr.first_index, w,
                (unsigned long long)rr.first_a_bits, w,
                (unsigned long long)rr.first_b_bits, k + 1);
    if (json != NULL) {
        fprintf(json, "%s{\"name\":", (*listed)++ ? "," : "");
        kvg_json_write_string(json, g->name);
        fprintf(json, ",\"run\":%d,\"elements\":%lld,\"differ\":%lld,"
                      "\"first_index\":%lld,", k + 1, (long long)rr.elements,
                (long long)rr.differ, (long long)rr.first_index);
        (void)snprintf(bits, sizeof bits, "0x%0*llx", w,
                       (unsigned long long)rr.first_a_bits);
        fprintf(json, "\"first_run1_bits\":\"%s\",", rr.differ ? bits : "");
        (void)snprintf(bits, sizeof bits, "0x%0*llx", w,
                       (unsigned long long)rr.first_b_bits);
        fprintf(json, "\"first_bits\":\"%s\"}", rr.differ ? bits : "");
    }
    return rr.differ == 0;
}

int kvg_cli_repeat_check(const kvg_case_set *gold, const int *selected,
                         const kvg_cli_dumps *runs, int n, FILE *out,
                         FILE *json)
{
    int i, k, same = 1, checked = 0, listed = 0;

    if (json != NULL)
        fputs("\"determinism\":{\"tensors\":[", json);
    if (out != NULL)
        fprintf(out, "\ndeterminism (%d runs, bit for bit against run 1):\n",
                n);
    for (i = 0; i < gold->count; i++) {
        int all = selected[i];
        for (k = 0; k < n && all; k++)
            all = runs[k].loaded[i];
        if (!all) {
            if (selected[i] && out != NULL)
                fprintf(out, "  %s: not checked (missing from a run)\n",
                        gold->items[i].name);
            if (selected[i])
                same = 0; /* not judged is not identical */
            continue;
        }
        for (k = 1; k < n; k++) {
            same &= check_one(&gold->items[i], runs, i, k, out, json,
                              &listed);
            checked++;
        }
    }
    if (json != NULL)
        fprintf(json, "],\"identical\":%s}",
                same && checked > 0 ? "true" : "false");
    if (out != NULL)
        fprintf(out, "%s: the runs are %s\n", same ? "PASS" : "FAIL",
                same ? "bit-identical" : "not bit-identical");
    return same;
}
