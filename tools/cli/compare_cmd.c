/*
 * tools/cli/compare_cmd.c - `kvgold compare CASE NPU_DIR`: judge NPU outputs
 * against the golden with the CANN precision criteria (kvgold/compare.h).
 *
 * For every output the golden produces, NPU_DIR/<name>.npy (same dtype and
 * shape) is compared; one that is missing or unreadable is NOT JUDGED, and
 * the verdict is then INCOMPLETE, never PASS (compare_dumps.c). Several
 * NPU_DIRs are several runs: each is judged, and the runs must be bit for
 * bit the same (compare_repeat.c). In-place caches are judged in two parts: the elements
 * the golden writes, by the output's criterion, and every other element,
 * which must be bit-identical to the case's initial cache. Which elements
 * the golden writes comes from the operator itself (kvg_op_written_runs),
 * as sorted runs. Big caches and dumps are mapped, not read, and the
 * untouched gaps are compared in chunks whose pages are given back
 * (docs/compare.md, "Big dumps").
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"

#include "cli.h"
#include "kvgold/compare.h"
#include "kvgold/options.h"
#include "compare_dumps.h"
#include "compare_repeat.h"
#include "report_targets.h"
#include "membudget.h"
#include "tensor_file.h"
#include "report.h"

const char *const kvg_cli_compare_help =
    "usage: kvgold compare CASE NPU_DIR [NPU_DIR...] [--json]\n"
    "                      [--standard NAME] [--level L0|L1|L2]\n"
    "                      [--third-party DIR] [--only NAME,NAME...]\n"
    "                      [--html FILE] [--junit FILE] [--csv FILE]\n"
    "\n"
    "Run the golden on CASE and compare each output with NPU_DIR/<name>.npy\n"
    "(the NPU's dump of that output, same dtype tag storage and shape).\n"
    "Per tensor, by what produced it:\n"
    "  copies (paged copies, v caches)     bit for bit\n"
    "  int8 quantised caches               |NPU - golden| <= 1\n"
    "  hif8 quantised caches               code distance <= 1 (<= 0.1% miss)\n"
    "  fp8 quantised caches                as floats under mixed_ttk, else as hif8\n"
    "  fp4, per 4-bit code                 bit for bit (e2m1: as hif8 off mixed_ttk)\n"
    "  e8m0 scales                         bit for bit, distance in binades\n"
    "  fp16 / bf16 / fp32 compute          by --standard:\n"
    "    mixed_ttk (default, mixed_ttk@3675093)  ops-test-kit's rule:\n"
    "                       |a-g| <= atol + rtol*|g| for >= 99%, and\n"
    "                       max |a-g| <= max(limit, 32 eps at 1.0)\n"
    "    mixed              the same with opbase's thresholds\n"
    "    single             MERE < Th, MARE < 10*Th (Th fp16 2^-10, bf16 2^-7)\n"
    "    commercial         MARE/MERE/RMSE ratios to --third-party <= the\n"
    "                       --level's limits (L1: 5/1.5/1.5), small values\n"
    "  cache slots the op must not write   bit for bit with the initial cache\n"
    "A NaN or inf where the golden is finite fails (under commercial, unless\n"
    "the NPU equals the third party there). Every report has ULP statistics\n"
    "and the error balance, the standard (versioned), its source and the\n"
    "thresholds per tensor, what ops-test-kit's own default would say of it,\n"
    "and lists the worst elements in the cache's\n"
    "(block, slot, head, channel) coordinates. docs/compare.md has the\n"
    "details.\n"
    "\n"
    "  --json              one JSON object instead of a table\n"
    "  --standard NAME     mixed_ttk (default), mixed, single or commercial\n"
    "  --level L           commercial ratio limits (default L1)\n"
    "  --third-party DIR   another implementation's outputs (e.g. torch on\n"
    "                      CPU), DIR/<name>.npy: the dual-benchmark ratios\n"
    "  --only NAMES        judge only these outputs (comma-separated)\n"
    "  --html FILE         also write a self-contained HTML page: cache maps\n"
    "                      of blocks x slots, error histograms, the worst\n"
    "                      elements (of every NPU_DIR)\n"
    "  --junit FILE        also write JUnit XML (one testcase per run and\n"
    "                      tensor, one for the run-to-run check)\n"
    "  --csv FILE          also write CSV (one row per run and tensor, every\n"
    "                      metric)\n"
    "Report files are written together or not at all; a FILE that is a\n"
    "case file, in an NPU_DIR or the third party's directory, or not a\n"
    "regular file is refused before anything is computed.\n"
    "With several NPU_DIRs (repeated runs) each run is judged and the runs\n"
    "must also be bit-identical to each other; two NPU_DIRs holding the same\n"
    "files (same device and inode) are one run, and determinism is then\n"
    "NOT JUDGED. A --third-party that is the NPU dump (the same file, or a\n"
    "byte-identical copy where the NPU differs from the golden) or the\n"
    "case's own files is refused.\n"
    "\n"
    "Many cases: kvgold compare --cases LIST_FILE [--jobs N] [--json]\n"
    "                      [--junit FILE] [--standard NAME] [--level L]\n"
    "                      [--only NAMES]\n"
    "  LIST_FILE has a line \"CASE NPU_DIR [NPU_DIR...]\" per case (blank\n"
    "  lines and # comments skipped; relative paths are relative to the\n"
    "  list file's directory). N worker processes (default: the cores this\n"
    "  process may use, cgroup-aware) each judge one case, with 1/N of\n"
    "  --max-memory; the reports come in list order, then one verdict line\n"
    "  per case and the totals. --json: one document; --junit: one\n"
    "  testcase per case. Exit status: the worst case's (a worker that\n"
    "  dies is an ERROR: 2).\n"
    "exit status: 0 every output judged and passed; 1 some output failed or\n"
    "             was not judged (missing, misnamed, unreadable: INCOMPLETE)\n"
    "             or the runs differ; 2 invalid case, usage, or NPU file\n";

#define KVG_CLI_MAX_RUNS 16

typedef struct compare_opts {
    const char *case_dir;
    const char *npu_dir[KVG_CLI_MAX_RUNS];
    int n_runs;
    const char *third_party_dir; /* NULL: none */
    const char *only;            /* NULL: every output */
    int json;
    kvg_compare_standard standard;
    kvg_compare_level level;
    const char *html, *junit, *csv; /* report files; NULL: none */
} compare_opts;

typedef struct compare_run {
    const kvg_case *c;
    const compare_opts *o;
    kvg_case_set gold;                   /* golden outputs */
    int selected[KVG_CASE_MAX_TENSORS];  /* judged (--only) */
    int mask_failed; /* the written runs could not be had */
    /* the written set of each cache as runs (kvg_case_written_runs) */
    kvg_elem_run *runs[KVG_CASE_MAX_TENSORS];
    size_t run_count[KVG_CASE_MAX_TENSORS];
    int have_third;
    kvg_cli_dumps third;
    kvg_cli_dumps npu[KVG_CLI_MAX_RUNS];
    kvg_compare_result result[KVG_CLI_MAX_RUNS][KVG_CASE_MAX_TENSORS];
    int n_results[KVG_CLI_MAX_RUNS];
    kvg_verdict determinism;  /* the run-to-run check (several runs) */
    char determinism_why[200];
} compare_run;

/* The elements the golden writes in each cache, from the operator
 * (kvg_op_written_runs through kvg_case_written_runs): no second run, no
 * mask. A cache whose runs cannot be had (memory) is judged whole against
 * the golden, with a note. */
static void find_written(compare_run *r)
{
    int i;

    for (i = 0; i < r->gold.count; i++) {
        const char *name = r->gold.items[i].name;
        kvg_diag diag;
        if (kvg_case_find(&r->c->inputs, name) == NULL)
            continue; /* an output, written whole */
        kvg_diag_clear(&diag);
        if (kvg_case_written_runs(r->c, &r->gold, name, &r->runs[i],
                                  &r->run_count[i], &diag) != KVG_OK ||
            r->runs[i] == NULL) {
            kvg_case_runs_free(r->runs[i], r->run_count[i]);
            r->runs[i] = NULL;
            r->mask_failed = 1;
        }
    }
}

/*
 * What comparing holds on top of the case and its golden outputs, from the
 * shapes alone: the NPU dumps (one set per NPU_DIR, and the third party's)
 * that are read into memory. Dumps of KVG_TENSOR_MAP_MIN bytes or more
 * are mapped, not read, and count for nothing (npy_map.h); the written
 * runs are a few bytes per written row. Checked before any of it is read
 * or allocated, so a case too big to compare is refused at once with the
 * whole amount (exit 2), not halfway through.
 */
static int fits_compare(const compare_run *r, const char *case_dir)
{
    const uint64_t sets = (uint64_t)r->o->n_runs +
                          (r->o->third_party_dir != NULL);
    uint64_t outputs = 0;
    char what[256];
    kvg_diag diag;
    int i;

    for (i = 0; i < r->gold.count; i++)
        if (r->gold.items[i].t.nbytes < KVG_TENSOR_MAP_MIN)
            outputs += r->gold.items[i].t.nbytes; /* read, not mapped */
    (void)snprintf(what, sizeof what,
                   "comparing (NPU dumps %llu bytes read into memory)",
                   (unsigned long long)(sets * outputs));
    kvg_diag_clear(&diag);
    if (kvg_mem_reserve(sets * outputs, what, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: compare %s: not enough memory: %s\n",
                case_dir, diag.message);
        return 0;
    }
    kvg_mem_release(sets * outputs);
    return 1;
}

static const kvg_file_map *input_map(const kvg_case *c, const char *name)
{
    int i;
    for (i = 0; i < c->inputs.count; i++)
        if (strcmp(c->inputs.items[i].name, name) == 0)
            return &c->inputs.items[i].map;
    return NULL;
}

/* Judge every selected output of run k; an output without a dump is NOT
 * JUDGED with the reason. 0 when the library refuses an input. */
static int compare_all(compare_run *r, int k)
{
    const kvg_cli_dumps *d = &r->npu[k];
    int i, bad_input = 0;

    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        kvg_compare_result *res = &r->result[k][r->n_results[k]];
        kvg_compare_role role = KVG_ROLE_DEFAULT;
        kvg_cache_layout layout;
        int has_layout = 0;
        kvg_compare_args a;
        kvg_case_views views;
        kvg_row_layout row_layout;
        kvg_case_byte_view bytes;
        kvg_diag diag;
        kvg_status st;

        if (!r->selected[i])
            continue;
        if (!d->loaded[i]) {
            (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype,
                                                d->reason[i]);
            r->n_results[k]++;
            continue;
        }
        /* the case already ran, so it describes its outputs */
        (void)kvg_case_describe_output(r->c, g->name, &g->t, &role,
                                       &has_layout, &layout, NULL);
        if (kvg_case_row_layout_or_not_judged(r->c, g->name, g->t.dtype,
                                              &row_layout, res) != KVG_OK) {
            r->n_results[k]++;
            continue;
        }
        kvg_compare_args_init(&a);
        a.row_layout = row_layout.segments > 0 ? &row_layout : NULL;
        /* a layout over two tensors: which one this is (op_call checked
         * that it names it) */
        a.row_tensor =
            a.row_layout ? kvg_row_tensor_of(&row_layout, g->name) : 0;
        a.name = g->name;
        a.golden = &g->t;
        a.actual = &d->t[i];
        a.role = role;
        a.layout = has_layout ? &layout : NULL;
        a.standard = r->o->standard;
        a.level = r->o->level;
        if (r->have_third && r->third.loaded[i])
            a.third_party = &r->third.t[i];
        if (r->runs[i] != NULL) {
            a.initial = kvg_case_find(&r->c->inputs, g->name);
            a.written_runs = r->runs[i];
            a.written_run_count = r->run_count[i];
            /* the untouched gaps' pages are given back as compared */
            kvg_case_views_attach(&views, &a, &r->gold.items[i].map,
                                  &r->npu[k].map[i],
                                  input_map(r->c, g->name),
                                  &r->third.map[i]);
        }
        kvg_diag_clear(&diag);
        st = kvg_case_rows_as_bytes(&a, &bytes, &diag);
        if (st == KVG_OK)
            st = kvg_compare_tensor(&a, res, &diag);
        kvg_case_byte_view_free(&bytes);
        if (st == KVG_OK || st == KVG_ERR_MISMATCH) {
            r->n_results[k]++;
        } else {
            fprintf(stderr, "kvgold: cannot compare %s: %s\n", g->name,
                    diag.message);
            bad_input = 1;
        }
    }
    return !bad_input;
}

/* The result of gold output i in run k (results follow the selected
 * outputs in order), or NULL. */
static const kvg_compare_result *result_of(const compare_run *r, int k, int i)
{
    int j, n = 0;
    for (j = 0; j < i; j++)
        n += r->selected[j] != 0;
    return r->selected[i] && n < r->n_results[k] ? &r->result[k][n] : NULL;
}

/*
 * The pages of a mapped dump that reading its written runs maps in, given
 * back as the reading moves on. A file read with large readahead sits in
 * the page cache as 2 MiB folios, and reading one byte of it maps the
 * whole 2 MiB: the 64 rows of a decode step then hold 128 MiB and more of
 * a cache resident, so the span given back is the 2 MiB around each run.
 */
#define HELD_SPAN ((uintptr_t)2 << 20)

typedef struct held_span {
    const kvg_file_map *m; /* base NULL: the dump was read, not mapped */
    uintptr_t lo, hi;
} held_span;

static void span_release(held_span *h)
{
    if (h->hi > h->lo)
        kvg_file_map_drop(h->m, (const void *)h->lo, (size_t)(h->hi - h->lo));
    h->lo = h->hi = 0;
}

/* [p, p + n) was just read: hold its span, giving back the one before. */
static void span_hold(held_span *h, const unsigned char *p, size_t n)
{
    uintptr_t base = (uintptr_t)h->m->base, end = base + h->m->len;
    uintptr_t lo = (uintptr_t)p / HELD_SPAN * HELD_SPAN;
    uintptr_t hi = ((uintptr_t)p + n + HELD_SPAN - 1) / HELD_SPAN * HELD_SPAN;

    if (h->m->base == NULL)
        return;
    lo = lo < base ? base : lo;
    hi = hi > end ? end : hi;
    if (lo >= h->lo && hi <= h->hi)
        return; /* inside the span held */
    span_release(h);
    h->lo = lo;
    h->hi = hi;
}

/*
 * Whether `a`, a rerun of golden output i, and the NPU's agree bit for bit.
 * For a cache with written runs only the runs are compared: the rest is
 * the initial cache in every golden run, and the NPU's untouched elements
 * were judged already (untouched_changed), so the multi-GiB gaps are not
 * read again, and the dump's pages the runs bring in are given back.
 */
static int bits_equal(const compare_run *r, int k, int i, const kvg_tensor *a)
{
    const kvg_tensor *b = &r->npu[k].t[i];
    const kvg_compare_result *res = result_of(r, k, i);
    size_t es = kvg_dtype_size(a->dtype), j;
    held_span h;
    int same = 1;

    if (a->nbytes != b->nbytes)
        return 0;
    if (r->runs[i] == NULL || res == NULL)
        return memcmp(a->data, b->data, a->nbytes) == 0;
    if (res->untouched_changed != 0)
        return 0;
    memset(&h, 0, sizeof h);
    h.m = &r->npu[k].map[i];
    for (j = 0; same && j < r->run_count[i]; j++) {
        size_t off = (size_t)r->runs[i][j].first * es;
        size_t n = (size_t)r->runs[i][j].count * es;
        const unsigned char *q = (const unsigned char *)b->data + off;
        same = memcmp((const unsigned char *)a->data + off, q, n) == 0;
        span_hold(&h, q, n);
    }
    span_release(&h);
    return same;
}

/* Whether run k's dump of output i is bit for bit the golden's, from its
 * result: every written element bit-identical (bits_differ) and every
 * other one the initial cache's (untouched_changed), which is the golden's
 * there. Reading the dump again for it would map its written pages back
 * in after the comparison gave them back. */
static int judged_exact(const compare_run *r, int k, int i)
{
    const kvg_compare_result *res = result_of(r, k, i);
    return res != NULL && res->bits_differ == 0 && res->untouched_changed == 0;
}

/*
 * When NPU outputs are not bit-exact, rerun the golden with every other
 * reduction order and say which one (if any) reproduces the NPU bit for bit:
 * the most common honest cause of a last-bit difference.
 */
static void reduce_order_hint(compare_run *r, int run, FILE *out)
{
    static const char *const orders[] = {"pairwise", "sequential", "double",
                                         "a2", "npu950"};
    kvg_reduce_order probe;
    kvg_json *opts;
    size_t k;
    int i, inexact = 0, compared = 0;

    for (i = 0; i < r->gold.count; i++) {
        if (!r->selected[i] || !r->npu[run].loaded[i])
            continue;
        compared++;
        inexact |= !judged_exact(r, run, i);
    }
    if (!inexact || !kvg_case_has_option(r->c, "reduce_order"))
        return;
    for (k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        kvg_case alt = *r->c;
        kvg_case_set g;
        kvg_diag diag;
        int same = 0;
        if (!kvg_reduce_order_from_name(orders[k], &probe))
            continue; /* this build lacks that order */
        opts = NULL;
        if (r->c->options != NULL)
            opts = kvg_json_clone(r->c->options);
        else
            (void)kvg_json_parse("{}", 2, "options", &opts, NULL);
        if (opts == NULL ||
            kvg_json_set_string(opts, "reduce_order", orders[k], NULL) !=
                KVG_OK) {
            kvg_json_free(opts);
            return;
        }
        alt.options = opts;
        memset(&g, 0, sizeof g);
        if (kvg_case_run(&alt, &g, &diag) == KVG_OK) {
            for (i = 0; i < r->gold.count; i++) {
                const kvg_tensor *t = kvg_case_find(&g, r->gold.items[i].name);
                if (r->selected[i] && r->npu[run].loaded[i] && t != NULL &&
                    bits_equal(r, run, i, t))
                    same++;
            }
            if (same == compared)
                fprintf(out, "hint: with options.reduce_order = \"%s\" the "
                             "golden reproduces all %d NPU outputs bit for "
                             "bit\n", orders[k], compared);
        }
        kvg_case_set_free(&g);
        kvg_json_free(opts);
    }
}

/* Render run k's results with the library (text or JSON); NULL on
 * failure, else a malloc'd string. */
static char *render(compare_run *r, int k, int json)
{
    size_t len = 0, n = (size_t)r->n_results[k];
    kvg_diag diag;
    char *buf;
    kvg_status st;

    st = json ? kvg_compare_report_json(r->result[k], n, NULL, 0, &len, &diag)
              : kvg_compare_report_text(r->result[k], n, NULL, 0, &len, &diag);
    if (st != KVG_OK || (buf = (char *)malloc(len + 1)) == NULL)
        return NULL;
    st = json ? kvg_compare_report_json(r->result[k], n, buf, len + 1, &len,
                                        &diag)
              : kvg_compare_report_text(r->result[k], n, buf, len + 1, &len,
                                        &diag);
    if (st != KVG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int print_text(compare_run *r, int k, FILE *out)
{
    char *buf = render(r, k, 0);
    int i;

    if (buf == NULL)
        return 0;
    fprintf(out, "%skvgold compare: case %s (%s)\n", k ? "\n" : "",
            r->c->dir, r->c->op);
    if (r->o->n_runs > 1)
        fprintf(out, "run %d of %d: %s\n", k + 1, r->o->n_runs,
                r->o->npu_dir[k]);
    if (r->mask_failed)
        fprintf(out, "note: the written-slot mask could not be derived; "
                     "untouched slots were checked against the golden\n");
    if (r->npu[k].stray[0] != '\0')
        fprintf(out, "note: %s has %s, which matches no output of the "
                     "case\n", r->o->npu_dir[k], r->npu[k].stray);
    for (i = 0; r->have_third && i < r->gold.count; i++)
        if (r->selected[i] && !r->third.loaded[i])
            fprintf(out, "note: third party, %s: %s\n", r->gold.items[i].name,
                    r->third.reason[i]);
    fputs(buf, out);
    reduce_order_hint(r, k, out);
    free(buf);
    return 1;
}

/* The verdict over every run and the run-to-run check: FAIL if anything
 * failed, else INCOMPLETE if anything was not judged, else PASS. */
static const char *overall_verdict(const compare_run *r)
{
    int k, i, incomplete = r->determinism == KVG_VERDICT_NOT_JUDGED;
    int failed = r->determinism == KVG_VERDICT_FAIL;

    for (k = 0; k < r->o->n_runs; k++) {
        kvg_compare_summary s;
        const char *v;
        kvg_compare_summary_init(&s);
        for (i = 0; i < r->n_results[k]; i++)
            kvg_compare_summary_add(&s, &r->result[k][i]);
        v = kvg_compare_summary_verdict(&s);
        failed |= strcmp(v, "FAIL") == 0;
        incomplete |= strcmp(v, "INCOMPLETE") == 0;
    }
    return failed ? "FAIL" : incomplete ? "INCOMPLETE" : "PASS";
}

/* One run: the library's object as it is. Several: {"tool", "verdict",
 * "runs": [{"npu_dir", "report"}...], "determinism"}. */
static int print_json(compare_run *r, FILE *out)
{
    char *buf;
    int k;

    if (r->o->n_runs == 1) {
        if ((buf = render(r, 0, 1)) == NULL)
            return 0;
        fputs(buf, out);
        free(buf);
        return 1;
    }
    fputs("{\"tool\":\"kvgold compare\",\"runs\":[", out);
    for (k = 0; k < r->o->n_runs; k++) {
        if ((buf = render(r, k, 1)) == NULL)
            return 0;
        fprintf(out, "%s{\"npu_dir\":", k ? "," : "");
        kvg_json_write_string(out, r->o->npu_dir[k]);
        fprintf(out, ",\"report\":%s}", buf);
        free(buf);
    }
    fputs("],", out);
    (void)kvg_cli_repeat_check(&r->gold, r->selected, r->npu, r->o->n_runs,
                               NULL, out, NULL, 0);
    fprintf(out, ",\"verdict\":\"%s\"}\n", overall_verdict(r));
    return 1;
}

/* A report file of compare: one of tools/lib/report's renderers over the
 * report set, as an outset writer. */
typedef struct report_job {
    kvg_report_renderer render;
    const kvg_report_set *set;
} report_job;

static kvg_status render_report(FILE *out, void *user, kvg_diag *diag)
{
    const report_job *j = (const report_job *)user;
    return j->render(out, j->set, diag);
}

/* The report files requested on the command line, in a fixed order; each
 * renders the report set `set` (filled in only once judged: the check
 * needs only the flags and paths). */
static int report_targets(const compare_opts *o, kvg_cli_target *t,
                          report_job *jobs, const kvg_report_set *set)
{
    const char *const flags[3] = {"--html", "--junit", "--csv"};
    const char *const paths[3] = {o->html, o->junit, o->csv};
    const kvg_report_renderer renders[3] = {kvg_report_html,
                                            kvg_report_junit, kvg_report_csv};
    int i, n = 0;

    for (i = 0; i < 3; i++) {
        if (paths[i] == NULL)
            continue;
        memset(&t[n], 0, sizeof t[n]);
        jobs[n].render = renders[i];
        jobs[n].set = set;
        t[n].flag = flags[i];
        t[n].path = paths[i];
        t[n].render = render_report;
        t[n].user = &jobs[n];
        n++;
    }
    return n;
}

/* Before anything is computed: every report target must be a file kvgold
 * may replace, never one of the case's files nor among the dumps
 * (report_targets.h). 0 (message printed) if one is not. */
static int check_report_targets(const compare_opts *o, const kvg_case *c)
{
    kvg_cli_target t[3];
    report_job jobs[3];
    kvg_cli_protect p[KVG_CASE_MAX_TENSORS * 2 + 1 + KVG_CLI_MAX_RUNS + 1];
    char **cf = NULL;
    int n = report_targets(o, t, jobs, NULL), k, n_p = 0, n_cf = 0, ok;

    if (n == 0)
        return 1;
    if ((cf = kvg_cli_case_files(c, &n_cf)) == NULL) {
        fprintf(stderr, "kvgold: compare: out of memory\n");
        return 0;
    }
    for (k = 0; k < n_cf && n_p < (int)(sizeof p / sizeof p[0]); k++) {
        p[n_p].path = cf[k];
        p[n_p].role = "the case's file";
        p[n_p].what = "a case's files";
        p[n_p].note = NULL;
        p[n_p++].tree = 0;
    }
    for (k = 0; k < o->n_runs; k++) {
        p[n_p].path = o->npu_dir[k];
        p[n_p].role = "NPU_DIR";
        p[n_p].what = "the dumps";
        p[n_p].note = "the directory being judged";
        p[n_p++].tree = 1;
    }
    if (o->third_party_dir != NULL) {
        p[n_p].path = o->third_party_dir;
        p[n_p].role = "--third-party";
        p[n_p].what = "the dumps";
        p[n_p].note = "the directory being judged";
        p[n_p++].tree = 1;
    }
    ok = kvg_cli_targets_check("compare", "nothing was computed or written",
                               t, n, p, n_p);
    kvg_cli_free_paths(cf, n_cf);
    return ok;
}

/* The tensors of run k for the report files: the judged ones in t, the
 * outputs not judged in skipped. */
static void report_run(compare_run *r, int k, kvg_report_tensor *t,
                       kvg_cache_layout *layout, const char **skipped,
                       kvg_report_run *run)
{
    kvg_compare_role role;
    int i, j = 0, n = 0, has_layout;

    memset(run, 0, sizeof *run);
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        if (!r->selected[i])
            continue;
        if (!r->npu[k].loaded[i]) {
            skipped[run->n_skipped++] = g->name;
            j++;
            continue;
        }
        has_layout = 0;
        (void)kvg_case_describe_output(r->c, g->name, &g->t, &role,
                                       &has_layout, &layout[n], NULL);
        memset(&t[n], 0, sizeof t[n]);
        t[n].result = &r->result[k][j++];
        t[n].golden = &g->t;
        t[n].actual = &r->npu[k].t[i];
        t[n].initial = r->runs[i] ? kvg_case_find(&r->c->inputs, g->name)
                                  : NULL;
        t[n].written_runs = r->runs[i];
        t[n].written_run_count = r->run_count[i];
        t[n].layout = has_layout ? &layout[n] : NULL;
        n++;
    }
    run->npu_dir = r->o->npu_dir[k];
    run->tensors = t;
    run->count = n;
    run->skipped = skipped;
}

/* Write the requested report files, every run in each (one run: as
 * before; several: each run's tensors and the run-to-run check), all or
 * none (report_targets.c); 0 on failure, with the file and the reason
 * printed. An output that was not judged is listed as such, with no map. */
static int write_report_files(compare_run *r)
{
    static kvg_report_tensor t[KVG_CLI_MAX_RUNS][KVG_CASE_MAX_TENSORS];
    static kvg_cache_layout layout[KVG_CLI_MAX_RUNS][KVG_CASE_MAX_TENSORS];
    static const char *skipped[KVG_CLI_MAX_RUNS][KVG_CASE_MAX_TENSORS];
    kvg_report_run runs[KVG_CLI_MAX_RUNS];
    kvg_cli_target targets[3];
    report_job jobs[3];
    kvg_report_set set;
    int k, n_targets = report_targets(r->o, targets, jobs, &set);

    if (n_targets == 0)
        return 1;
    for (k = 0; k < r->o->n_runs; k++)
        report_run(r, k, t[k], layout[k], skipped[k], &runs[k]);
    memset(&set, 0, sizeof set);
    set.case_dir = r->c->dir;
    set.op = r->c->op;
    set.tensors = runs[0].tensors;
    set.count = runs[0].count;
    set.skipped = runs[0].skipped;
    set.n_skipped = runs[0].n_skipped;
    if (r->o->n_runs > 1) {
        set.runs = runs;
        set.n_runs = r->o->n_runs;
        set.determinism = kvg_verdict_name(r->determinism);
        set.determinism_why = r->determinism_why;
    }
    return kvg_cli_targets_write("compare", targets, n_targets);
}

static void free_run(compare_run *r)
{
    int i;
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++) {
        kvg_case_runs_free(r->runs[i], r->run_count[i]);
    }
    for (i = 0; i < KVG_CLI_MAX_RUNS; i++)
        kvg_cli_dumps_free(&r->npu[i]);
    kvg_cli_dumps_free(&r->third);
    kvg_case_set_free(&r->gold);
}

int kvg_cli_only_ok(const char *only)
{
    size_t n = strlen(only);
    return n > 0 && only[0] != ',' && only[n - 1] != ',' &&
           strstr(only, ",,") == NULL;
}

/* --only: mark the named outputs; every name must be one. 0 on error. */
static int select_outputs(compare_run *r, const char *only)
{
    int i;
    for (i = 0; i < r->gold.count; i++)
        r->selected[i] = only == NULL;
    while (only != NULL && *only != '\0') {
        const char *end = strchr(only, ',');
        size_t n = end ? (size_t)(end - only) : strlen(only);
        int hit = 0;
        for (i = 0; i < r->gold.count; i++)
            if (strlen(r->gold.items[i].name) == n &&
                strncmp(r->gold.items[i].name, only, n) == 0)
                hit = r->selected[i] = 1;
        if (!hit) {
            fprintf(stderr, "kvgold: compare --only: %.*s is not an output "
                            "of this case (outputs:", (int)n, only);
            for (i = 0; i < r->gold.count; i++)
                fprintf(stderr, " %s", r->gold.items[i].name);
            fprintf(stderr, ")\n");
            return 0;
        }
        only = end ? end + 1 : only + n;
    }
    return 1;
}

/* Load every NPU_DIR and the third party's; 0 on an invalid directory or
 * file (exit 2). */
static int load_dumps(compare_run *r)
{
    int k, i;

    for (k = 0; k < r->o->n_runs; k++) {
        const char *dir = r->o->npu_dir[k];
        if (!kvg_cli_dumps_dir_ok("NPU_DIR", dir) ||
            !kvg_cli_dumps_load(&r->npu[k], dir, &r->gold, r->selected))
            return 0;
        if (r->npu[k].found == 0) {
            int first = 1;
            fprintf(stderr, "kvgold: %s holds none of the outputs (", dir);
            for (i = 0; i < r->gold.count; i++)
                if (r->selected[i]) {
                    fprintf(stderr, "%s%s.npy", first ? "" : ", ",
                            r->gold.items[i].name);
                    first = 0;
                }
            if (r->npu[k].near[0] != '\0')
                fprintf(stderr, "); %s has %s: renamed?\n", dir,
                        r->npu[k].near);
            else
                fprintf(stderr, ")%s%s\n",
                        r->npu[k].stray[0] ? "; it has " : "",
                        r->npu[k].stray);
            return 0;
        }
    }
    if (r->o->third_party_dir == NULL)
        return 1;
    r->have_third = 1;
    return kvg_cli_dumps_dir_ok("--third-party", r->o->third_party_dir) &&
           kvg_cli_dumps_load(&r->third, r->o->third_party_dir, &r->gold,
                              r->selected);
}

/*
 * A third party is independent evidence only if it is not the NPU's own
 * dump under another name: refuse (exit 2) a third-party file that is the
 * same file (device and inode) as a run's dump of that output, or as one of
 * the case's files, and a third-party directory that is an NPU_DIR or the
 * case directory. Byte-identical copies are found after judging
 * (third_party_copies), for the outputs the third party is used for.
 */
static int third_party_distinct(const compare_run *r)
{
    const char *tp = r->o->third_party_dir;
    struct stat a, b;
    char **cf;
    int i, k, n_cf = 0, ok = 1;

    if (!r->have_third || stat(tp, &a) != 0)
        return 1;
    if (stat(r->c->dir, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
        fprintf(stderr, "kvgold: compare: --third-party %s is the case "
                        "directory %s; a third party must be another "
                        "implementation's outputs\n", tp, r->c->dir);
        return 0;
    }
    for (k = 0; k < r->o->n_runs; k++)
        if (stat(r->o->npu_dir[k], &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            fprintf(stderr, "kvgold: compare: --third-party %s is NPU_DIR "
                            "%s (the same directory); a third party must be "
                            "another implementation's outputs, not the NPU "
                            "dump being judged\n", tp, r->o->npu_dir[k]);
            return 0;
        }
    if ((cf = kvg_cli_case_files(r->c, &n_cf)) == NULL) {
        fprintf(stderr, "kvgold: compare: out of memory\n");
        return 0;
    }
    for (i = 0; ok && i < r->gold.count; i++) {
        if (!r->third.loaded[i])
            continue;
        for (k = 0; ok && k < r->o->n_runs; k++)
            if (kvg_cli_dumps_same_file(&r->third, i, &r->npu[k], i)) {
                fprintf(stderr, "kvgold: compare: third party %s is the "
                                "NPU dump being judged, %s (same device and "
                                "inode); a third party must be another "
                                "implementation's outputs\n",
                        r->third.path[i], r->npu[k].path[i]);
                ok = 0;
            }
        for (k = 0; ok && k < n_cf; k++)
            if (kvg_cli_path_is(cf[k], r->third.dev[i], r->third.ino[i])) {
                fprintf(stderr, "kvgold: compare: third party %s is the "
                                "case's file %s (same device and inode); a "
                                "third party must be another "
                                "implementation's outputs\n",
                        r->third.path[i], cf[k]);
                ok = 0;
            }
    }
    kvg_cli_free_paths(cf, n_cf);
    return ok;
}

/* 1 if tensors a and b hold the same bytes. */
static int same_bytes(const kvg_tensor *a, const kvg_tensor *b)
{
    return a != NULL && b != NULL && a->nbytes == b->nbytes &&
           memcmp(a->data, b->data, a->nbytes) == 0;
}

/*
 * After judging: a third-party output the dual benchmark used that holds
 * the same bytes as an NPU run's dump is a copy of it, and a ratio of a
 * dump to itself passes any error; one that holds the case's initial cache
 * (a copy of the case's input) has every written element wrong, so any
 * NPU would beat it. 0 (message printed) if there is one where it could
 * decide the verdict: where the NPU's dump is bit-identical to the golden,
 * every ratio is 0 whatever the third party holds, so an honest third
 * party that matches an exact NPU is not refused.
 */
static int third_party_copies(const compare_run *r)
{
    int i, k;

    for (k = 0; r->have_third && k < r->o->n_runs; k++)
        for (i = 0; i < r->gold.count; i++) {
            const kvg_compare_result *res = result_of(r, k, i);
            const kvg_tensor *b = &r->third.t[i], *init;
            if (res == NULL || !res->has_third_party ||
                (res->bits_differ == 0 && res->untouched_changed == 0) ||
                !r->npu[k].loaded[i] || !r->third.loaded[i])
                continue;
            if (same_bytes(&r->npu[k].t[i], b)) {
                fprintf(stderr, "kvgold: compare: third party %s is "
                                "byte-identical to the NPU dump being "
                                "judged, %s; a copy of the dump is not "
                                "independent evidence: give another "
                                "implementation's outputs (or judge without "
                                "--third-party)\n",
                        r->third.path[i], r->npu[k].path[i]);
                return 0;
            }
            init = kvg_case_find(&r->c->inputs, r->gold.items[i].name);
            if (same_bytes(init, b)) {
                fprintf(stderr, "kvgold: compare: third party %s is "
                                "byte-identical to the case's input %s (the "
                                "cache before the call); a copy of the "
                                "case is not another implementation's "
                                "output\n",
                        r->third.path[i], r->gold.items[i].name);
                return 0;
            }
        }
    return 1;
}

const char *kvg_cli_compare_last_verdict = "";

/* Judge, print, and return the exit status. */
static int judge_and_report(compare_run *r)
{
    int k, i, rc = KVG_EXIT_PASS;

    find_written(r);
    if (!third_party_distinct(r))
        return KVG_EXIT_INVALID;
    for (k = 0; k < r->o->n_runs; k++)
        if (!compare_all(r, k))
            return KVG_EXIT_INVALID;
    if (!third_party_copies(r))
        return KVG_EXIT_INVALID;
    r->determinism = KVG_VERDICT_PASS;
    if (r->o->n_runs > 1)
        r->determinism = kvg_cli_repeat_check(
            &r->gold, r->selected, r->npu, r->o->n_runs, NULL, NULL,
            r->determinism_why, sizeof r->determinism_why);
    if (r->o->json) {
        if (!print_json(r, stdout))
            return KVG_EXIT_INVALID;
    } else {
        for (k = 0; k < r->o->n_runs; k++)
            if (!print_text(r, k, stdout))
                return KVG_EXIT_INVALID;
        if (r->o->n_runs > 1) {
            (void)kvg_cli_repeat_check(&r->gold, r->selected, r->npu,
                                       r->o->n_runs, stdout, NULL, NULL, 0);
            printf("\n%s: %d runs and the run-to-run check\n",
                   overall_verdict(r), r->o->n_runs);
        }
    }
    if (!write_report_files(r))
        return KVG_EXIT_INVALID;
    for (k = 0; k < r->o->n_runs; k++)
        for (i = 0; i < r->n_results[k]; i++)
            if (r->result[k][i].verdict != KVG_VERDICT_PASS)
                rc = KVG_EXIT_MISMATCH;
    kvg_cli_compare_last_verdict = overall_verdict(r);
    return r->determinism == KVG_VERDICT_PASS ? rc : KVG_EXIT_MISMATCH;
}

/* Parse argv into *o; returns -1 when fine, else the exit status. */
static int parse_args(int argc, char **argv, compare_opts *o)
{
    int i;

    memset(o, 0, sizeof *o);
    o->standard = KVG_STD_MIXED_TTK; /* the library's default */
    o->level = KVG_LEVEL_L1;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(kvg_cli_compare_help, stdout);
            return KVG_EXIT_PASS;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--standard") == 0) {
            if (v == NULL || !kvg_compare_standard_from_name(v, &o->standard))
                return kvg_cli_usage_error("compare: --standard needs "
                                           "single, mixed, mixed_ttk or "
                                           "commercial, got %s",
                                           v ? v : "nothing");
            i++;
        } else if (strcmp(a, "--level") == 0) {
            if (v == NULL || !kvg_compare_level_from_name(v, &o->level))
                return kvg_cli_usage_error("compare: --level needs L0, L1 "
                                           "or L2, got %s", v ? v : "nothing");
            i++;
        } else if (strcmp(a, "--third-party") == 0 ||
                   strcmp(a, "--only") == 0 || strcmp(a, "--html") == 0 ||
                   strcmp(a, "--junit") == 0 || strcmp(a, "--csv") == 0) {
            if (v == NULL)
                return kvg_cli_usage_error("compare: %s needs a value", a);
            if (a[2] == 'o' && !kvg_cli_only_ok(v))
                return kvg_cli_usage_error("compare: --only needs output "
                                           "names separated by commas "
                                           "(--only c_kv,k_cache), got "
                                           "'%s', which names an empty "
                                           "one", v);
            *(a[2] == 't'   ? &o->third_party_dir
              : a[2] == 'o' ? &o->only
              : a[2] == 'h' ? &o->html
              : a[2] == 'j' ? &o->junit
                            : &o->csv) = v;
            i++;
        } else if (a[0] == '-') {
            return kvg_cli_usage_error("compare: unknown option %s", a);
        } else if (o->case_dir == NULL) {
            o->case_dir = a;
        } else if (o->n_runs < KVG_CLI_MAX_RUNS) {
            o->npu_dir[o->n_runs++] = a;
        } else {
            return kvg_cli_usage_error("compare: more than 16 NPU_DIRs at "
                                       "%s", a);
        }
    }
    if (o->case_dir == NULL || o->n_runs == 0)
        return kvg_cli_usage_error("compare: needs CASE and NPU_DIR%s", "");
    return -1;
}

int kvg_cli_compare(int argc, char **argv)
{
    compare_opts o;
    kvg_case c;
    compare_run *r;
    kvg_diag diag;
    kvg_status st;
    int rc;

    if ((rc = parse_args(argc, argv, &o)) >= 0)
        return rc;
    if (!kvg_cli_load_with(o.case_dir, &c,
                           KVG_CASE_NO_EXPECTED_DATA | KVG_CASE_MAP_BIG))
        return KVG_EXIT_INVALID;
    r = (compare_run *)calloc(1, sizeof *r);
    if (r == NULL) {
        kvg_case_free(&c);
        return KVG_EXIT_INVALID;
    }
    r->c = &c;
    r->o = &o;
    kvg_diag_clear(&diag);
    rc = KVG_EXIT_INVALID;
    if (c.expect_error)
        fprintf(stderr, "kvgold: %s is a case the operator must refuse; "
                        "there is nothing to compare\n", o.case_dir);
    else if (!check_report_targets(&o, &c))
        ; /* refused before anything is computed; message printed */
    else if ((st = kvg_case_run(&c, &r->gold, &diag)) != KVG_OK)
        kvg_cli_run_error(o.case_dir, st, &diag);
    else if (fits_compare(r, o.case_dir) && select_outputs(r, o.only) &&
             load_dumps(r))
        rc = judge_and_report(r);
    free_run(r);
    free(r);
    kvg_case_free(&c);
    return rc;
}
