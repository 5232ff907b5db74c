/*
 * tools/lib/report/report.h - `kvgold compare`'s report files: one
 * self-contained HTML page to look at (cache maps, error histograms, the
 * worst elements), JUnit XML for CI systems, CSV for spreadsheets.
 *
 *   kvg_report_set s = {case_dir, op, tensors, n, skipped, n_skipped};
 *   st = kvg_report_html(out, &s, &diag);  (KVG_OK, or diag says why)
 *
 * The files are written all or nothing by tools/lib/fsio/outset.h
 * (kvg_outset_add_stream with a renderer, then one commit for all).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_REPORT_H
#define KVGOLD_TOOLS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "kvgold/status.h"

#include "element_class.h"

/* One NPU run: the tensors judged and the outputs not judged. */
typedef struct kvg_report_run {
    const char *npu_dir;             /* for titles; may be NULL */
    const kvg_report_tensor *tensors;
    int count;
    const char *const *skipped;      /* outputs without an NPU dump */
    int n_skipped;
} kvg_report_run;

/* One comparison: a single run in tensors..n_skipped (runs NULL), or
 * several NPU_DIRs (repeated runs) in runs[0..n_runs) with the
 * run-to-run check's verdict; every report then carries every run. */
typedef struct kvg_report_set {
    const char *case_dir;            /* for titles */
    const char *op;                  /* operator name */
    const kvg_report_tensor *tensors;
    int count;
    const char *const *skipped;      /* outputs without an NPU dump */
    int n_skipped;
    const kvg_report_run *runs;      /* NULL: the single run above */
    int n_runs;
    const char *determinism;         /* "PASS", "FAIL", "NOT JUDGED" */
    const char *determinism_why;     /* its one-line conclusion */
} kvg_report_set;

/* The number of runs in `set` (1 without runs) and run k of it. */
int kvg_report_run_count(const kvg_report_set *set);
kvg_report_run kvg_report_get_run(const kvg_report_set *set, int k);

/* "PASS", "FAIL" or "INCOMPLETE" for one run, and for the whole set (every
 * run and the run-to-run check): never PASS with an output not judged. */
const char *kvg_report_run_verdict(const kvg_report_run *run);
const char *kvg_report_set_verdict(const kvg_report_set *set);

/* A renderer writes the whole report to `out`: KVG_OK, or a status with
 * the reason in diag (KVG_ERR_NOMEM: "out of memory mapping q_out"); the
 * caller checks `out` for write errors. Report files are written all or
 * nothing through tools/lib/fsio/outset.h (kvg_outset_add_stream). */
typedef kvg_status (*kvg_report_renderer)(FILE *out,
                                          const kvg_report_set *set,
                                          kvg_diag *diag);

kvg_status kvg_report_html(FILE *out, const kvg_report_set *set,
                           kvg_diag *diag);
kvg_status kvg_report_junit(FILE *out, const kvg_report_set *set,
                            kvg_diag *diag);
kvg_status kvg_report_csv(FILE *out, const kvg_report_set *set,
                          kvg_diag *diag);

/* A renderer's one failure: KVG_ERR_NOMEM, diag "out of memory <doing>
 * <name>" ("out of memory mapping q_out"), tensor `name`. */
kvg_status kvg_report_nomem(kvg_diag *diag, const char *doing,
                            const char *name);

#endif /* KVGOLD_TOOLS_REPORT_H */
