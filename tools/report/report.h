/*
 * tools/report/report.h - `kvgold compare`'s report files: one
 * self-contained HTML page to look at (cache maps, error histograms, the
 * worst elements), JUnit XML for CI systems, CSV for spreadsheets.
 *
 *   kvg_report_set s = {case_dir, op, tensors, n, skipped, n_skipped};
 *   if (kvg_report_write_file("out.html", kvg_report_html, &s, err,
 *                             sizeof err) != 0)            (or _files)
 *       fprintf(stderr, "kvgold: %s\n", err);
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_REPORT_H
#define KVGOLD_TOOLS_REPORT_H

#include <stddef.h>
#include <stdio.h>

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

/* A renderer writes the whole report to `out`; 0 on success, else -1 with
 * the reason in err (the caller checks `out` for write errors). */
typedef int (*kvg_report_renderer)(FILE *out, const kvg_report_set *set,
                                   char *err, size_t cap);

int kvg_report_html(FILE *out, const kvg_report_set *set, char *err,
                    size_t cap);
int kvg_report_junit(FILE *out, const kvg_report_set *set, char *err,
                     size_t cap);
int kvg_report_csv(FILE *out, const kvg_report_set *set, char *err,
                   size_t cap);

/*
 * Render into a temporary file in the directory of `path`, then rename it
 * over `path` (so a reader never sees half a report, and a symlink at
 * `path` is replaced, never followed). On failure nothing is left behind,
 * an existing `path` is untouched, and err says which file and why
 * (strerror). Returns 0 or -1.
 */
int kvg_report_write_file(const char *path, kvg_report_renderer render,
                          const kvg_report_set *set, char *err, size_t cap);

/* Several files at once, all or none: every file is rendered to its
 * temporary first; only when all are complete are they renamed into place
 * (so a full disk or an unwritable directory for the last one leaves the
 * first ones' targets untouched too). At most KVG_REPORT_MAX_JOBS. */
#define KVG_REPORT_MAX_JOBS 8
typedef struct kvg_report_job {
    const char *path;
    kvg_report_renderer render;
} kvg_report_job;
int kvg_report_write_files(const kvg_report_job *jobs, int n,
                           const kvg_report_set *set, char *err, size_t cap);

#endif /* KVGOLD_TOOLS_REPORT_H */
