/*
 * tools/lib/report/report_set.c - what every report renders from: the runs of
 * a set, their verdicts, and the one failure a renderer can have.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"
#include "report.h"

kvg_status kvg_report_nomem(kvg_diag *diag, const char *doing,
                            const char *name)
{
    return kvg_diag_set(diag, KVG_ERR_NOMEM, name, -1, -1,
                        "out of memory %s %s", doing, name);
}

int kvg_report_run_count(const kvg_report_set *set)
{
    return set->runs != NULL ? set->n_runs : 1;
}

kvg_report_run kvg_report_get_run(const kvg_report_set *set, int k)
{
    kvg_report_run r;
    if (set->runs != NULL)
        return set->runs[k];
    r.npu_dir = NULL;
    r.tensors = set->tensors;
    r.count = set->count;
    r.skipped = set->skipped;
    r.n_skipped = set->n_skipped;
    return r;
}

const char *kvg_report_run_verdict(const kvg_report_run *run)
{
    int i, incomplete = run->n_skipped != 0;
    for (i = 0; i < run->count; i++) {
        kvg_verdict v = run->tensors[i].result->verdict;
        if (v == KVG_VERDICT_FAIL)
            return "FAIL";
        incomplete |= v != KVG_VERDICT_PASS;
    }
    return incomplete ? "INCOMPLETE" : "PASS";
}

const char *kvg_report_set_verdict(const kvg_report_set *set)
{
    int k, n = kvg_report_run_count(set), incomplete = 0;
    for (k = 0; k < n; k++) {
        kvg_report_run r = kvg_report_get_run(set, k);
        const char *v = kvg_report_run_verdict(&r);
        if (strcmp(v, "FAIL") == 0)
            return "FAIL";
        incomplete |= strcmp(v, "PASS") != 0;
    }
    if (set->determinism != NULL) {
        if (strcmp(set->determinism, "FAIL") == 0)
            return "FAIL";
        incomplete |= strcmp(set->determinism, "PASS") != 0;
    }
    return incomplete ? "INCOMPLETE" : "PASS";
}
