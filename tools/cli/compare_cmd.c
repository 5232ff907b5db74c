/*
 * tools/cli/compare_cmd.c - `kvgold compare CASE NPU_DIR`: judge NPU outputs
 * against the golden with the CANN precision criteria (kvgold/compare.h).
 *
 * For every output the golden produces, NPU_DIR/<name>.npy (same dtype and
 * shape) is compared. In-place caches are judged in two parts: the elements
 * the golden writes, by the output's criterion, and every other element,
 * which must be bit-identical to the case's initial cache. Which elements
 * the golden writes is found by running it a second time from caches whose
 * every bit is inverted (kvg_compare_written_mask): an element is written
 * iff both runs agree on it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "kvgold/compare.h"
#include "kvgold/npy.h"
#include "kvgold/options.h"
#include "report.h"
#include "roles.h"

const char *const kvg_cli_compare_help =
    "usage: kvgold compare CASE NPU_DIR [--json] [--html FILE] [--junit FILE]\n"
    "                      [--csv FILE]\n"
    "\n"
    "Run the golden on CASE and compare each output with NPU_DIR/<name>.npy\n"
    "(the NPU's dump of that output, same dtype tag storage and shape).\n"
    "Per tensor, by what produced it:\n"
    "  copies (ReshapeAndCache, v caches)  bit for bit\n"
    "  int8 quantised caches               |NPU - golden| <= 1\n"
    "  fp8 / hif8 quantised caches         code distance <= 1 (<= 0.1% miss)\n"
    "  fp16 / bf16 / fp32 compute          MERE < Th, MARE < 10*Th\n"
    "                                      (Th fp16 2^-10, bf16 2^-7)\n"
    "  cache slots the op must not write   bit for bit with the initial cache\n"
    "A NaN or inf where the golden is finite always fails. The report lists\n"
    "the worst elements in the cache's (block, slot, head, channel)\n"
    "coordinates. docs/compare.md and docs/usage.md have the details.\n"
    "\n"
    "  --json   print the report as one JSON object instead of a table\n"
    "  --html FILE   also write a self-contained HTML page: cache maps of\n"
    "                blocks x slots, error histograms, the worst elements\n"
    "  --junit FILE  also write JUnit XML (one testcase per tensor)\n"
    "  --csv FILE    also write CSV (one row per tensor, every metric)\n"
    "exit status: 0 every tensor passes, 1 some tensor fails, 2 invalid case,\n"
    "             usage, or NPU file\n";

typedef struct compare_run {
    const kvg_case *c;
    kvg_case_set gold;                   /* golden outputs */
    kvg_tensor npu[KVG_CASE_MAX_TENSORS];  /* loaded NPU outputs */
    int have_npu[KVG_CASE_MAX_TENSORS];
    unsigned char *mask[KVG_CASE_MAX_TENSORS];
    kvg_compare_result result[KVG_CASE_MAX_TENSORS];
    int n_results;
    int mask_failed; /* the inverted-cache run was refused */
} compare_run;

/* Run the golden from caches whose bits are all inverted; fills masks. */
static void find_masks(compare_run *r)
{
    kvg_case alt = *r->c; /* shallow: shares json and tensor buffers */
    kvg_case_set gold_b;
    unsigned char *inverted[KVG_CASE_MAX_TENSORS] = {0};
    kvg_diag diag;
    int i;

    for (i = 0; i < alt.inputs.count; i++) {
        kvg_tensor *t = &alt.inputs.items[i].t;
        size_t k;
        if (kvg_case_find(&r->gold, alt.inputs.items[i].name) == NULL)
            continue; /* not an in-place output */
        inverted[i] = (unsigned char *)malloc(t->nbytes ? t->nbytes : 1);
        if (inverted[i] == NULL)
            goto out;
        for (k = 0; k < t->nbytes; k++)
            inverted[i][k] = (unsigned char)~((unsigned char *)t->data)[k];
        t->data = inverted[i];
    }
    memset(&gold_b, 0, sizeof gold_b);
    kvg_diag_clear(&diag);
    if (kvg_case_run(&alt, &gold_b, &diag) != KVG_OK) {
        r->mask_failed = 1;
        kvg_case_set_free(&gold_b);
        goto out;
    }
    for (i = 0; i < r->gold.count; i++) {
        const char *name = r->gold.items[i].name;
        const kvg_tensor *init_a = kvg_case_find(&r->c->inputs, name);
        const kvg_tensor *init_b = kvg_case_find(&alt.inputs, name);
        const kvg_tensor *out_b = kvg_case_find(&gold_b, name);
        size_t n;
        if (init_a == NULL || out_b == NULL)
            continue;
        n = init_a->nbytes / kvg_dtype_size(init_a->dtype);
        r->mask[i] = (unsigned char *)malloc(n ? n : 1);
        if (r->mask[i] == NULL ||
            kvg_compare_written_mask(&r->gold.items[i].t, init_a, out_b, init_b,
                                     r->mask[i], n, &diag) != KVG_OK) {
            free(r->mask[i]);
            r->mask[i] = NULL;
            r->mask_failed = 1;
        }
    }
    kvg_case_set_free(&gold_b);
out:
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++)
        free(inverted[i]);
}

/* Load NPU_DIR/<name>.npy for every golden output; 0 on a bad file. */
static int load_npu(compare_run *r, const char *npu_dir, int *found)
{
    int i;
    *found = 0;
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        char path[2 * KVG_CASE_PATH_MAX];
        FILE *f;
        kvg_diag diag;
        (void)snprintf(path, sizeof path, "%s/%s.npy", npu_dir, g->name);
        if ((f = fopen(path, "rb")) == NULL)
            continue; /* not dumped: reported as skipped */
        fclose(f);
        if (kvg_npy_load(path, g->t.dtype, &r->npu[i], &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: NPU output %s: %s\n", g->name,
                    diag.message);
            return 0;
        }
        r->have_npu[i] = 1;
        ++*found;
    }
    return 1;
}

static int compare_all(compare_run *r)
{
    int i, bad_input = 0;
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        kvg_cli_output_info info;
        kvg_compare_args a;
        kvg_diag diag;
        kvg_status st;

        if (!r->have_npu[i])
            continue;
        kvg_cli_describe_output(r->c, g->name, &g->t, &info);
        kvg_compare_args_init(&a);
        a.name = g->name;
        a.golden = &g->t;
        a.actual = &r->npu[i];
        a.role = info.role;
        a.layout = info.has_layout ? &info.layout : NULL;
        if (r->mask[i] != NULL) {
            a.initial = kvg_case_find(&r->c->inputs, g->name);
            a.written = r->mask[i];
            a.written_count = g->t.nbytes / kvg_dtype_size(g->t.dtype);
        }
        kvg_diag_clear(&diag);
        st = kvg_compare_tensor(&a, &r->result[r->n_results], &diag);
        if (st == KVG_OK || st == KVG_ERR_MISMATCH) {
            r->n_results++;
        } else {
            fprintf(stderr, "kvgold: cannot compare %s: %s\n", g->name,
                    diag.message);
            bad_input = 1;
        }
    }
    return !bad_input;
}

static int bits_equal(const kvg_tensor *a, const kvg_tensor *b)
{
    return a->nbytes == b->nbytes && memcmp(a->data, b->data, a->nbytes) == 0;
}

/*
 * When NPU outputs are not bit-exact, rerun the golden with every other
 * reduction order and say which one (if any) reproduces the NPU bit for bit:
 * the most common honest cause of a last-bit difference.
 */
static void reduce_order_hint(compare_run *r, FILE *out)
{
    static const char *const orders[] = {"pairwise", "sequential", "double",
                                         "a2", "npu950"};
    kvg_reduce_order probe;
    cJSON *opts;
    size_t k;
    int i, inexact = 0, compared = 0;

    for (i = 0; i < r->gold.count; i++) {
        if (!r->have_npu[i])
            continue;
        compared++;
        inexact |= !bits_equal(&r->gold.items[i].t, &r->npu[i]);
    }
    if (!inexact || !kvg_cli_has_reduce_order(r->c))
        return;
    for (k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        kvg_case alt = *r->c;
        kvg_case_set g;
        kvg_diag diag;
        int same = 0;
        if (!kvg_reduce_order_from_name(orders[k], &probe))
            continue; /* this build lacks that order */
        opts = r->c->options ? cJSON_Duplicate(r->c->options, 1)
                             : cJSON_CreateObject();
        if (opts == NULL)
            return;
        cJSON_DeleteItemFromObjectCaseSensitive(opts, "reduce_order");
        cJSON_AddStringToObject(opts, "reduce_order", orders[k]);
        alt.options = opts;
        memset(&g, 0, sizeof g);
        if (kvg_case_run(&alt, &g, &diag) == KVG_OK) {
            for (i = 0; i < r->gold.count; i++) {
                const kvg_tensor *t = kvg_case_find(&g, r->gold.items[i].name);
                if (r->have_npu[i] && t != NULL && bits_equal(t, &r->npu[i]))
                    same++;
            }
            if (same == compared)
                fprintf(out, "hint: with options.reduce_order = \"%s\" the "
                             "golden reproduces all %d NPU outputs bit for "
                             "bit\n", orders[k], compared);
        }
        kvg_case_set_free(&g);
        cJSON_Delete(opts);
    }
}

static int print_report(compare_run *r, int json, FILE *out)
{
    size_t len = 0;
    char *buf;
    kvg_status st;
    kvg_diag diag;
    int i;

    st = json ? kvg_compare_report_json(r->result, (size_t)r->n_results, NULL,
                                        0, &len, &diag)
              : kvg_compare_report_text(r->result, (size_t)r->n_results, NULL,
                                        0, &len, &diag);
    if (st != KVG_OK || (buf = (char *)malloc(len + 1)) == NULL)
        return 0;
    st = json ? kvg_compare_report_json(r->result, (size_t)r->n_results, buf,
                                        len + 1, &len, &diag)
              : kvg_compare_report_text(r->result, (size_t)r->n_results, buf,
                                        len + 1, &len, &diag);
    if (st == KVG_OK) {
        if (!json) {
            fprintf(out, "kvgold compare: case %s (%s)\n", r->c->dir, r->c->op);
            if (r->mask_failed)
                fprintf(out, "note: the written-slot mask could not be "
                             "derived; untouched slots were checked against "
                             "the golden\n");
        }
        fputs(buf, out);
        if (!json) {
            for (i = 0; i < r->gold.count; i++)
                if (!r->have_npu[i])
                    fprintf(out, "skipped: %s (no %s.npy in the NPU "
                                 "directory)\n", r->gold.items[i].name,
                            r->gold.items[i].name);
            reduce_order_hint(r, out);
        }
    }
    free(buf);
    return st == KVG_OK;
}

/* Report files requested on the command line (NULL: not wanted). */
typedef struct report_files {
    const char *html, *junit, *csv;
} report_files;

static void add_job(kvg_report_job *jobs, int *n, const char *path,
                    kvg_report_renderer render)
{
    jobs[*n].path = path;
    jobs[*n].render = render;
    ++*n;
}

/* Write the requested report files, all or none (tools/report); 0 on
 * failure, with the file and the reason printed. */
static int write_report_files(compare_run *r, const report_files *files)
{
    kvg_report_tensor t[KVG_CASE_MAX_TENSORS];
    kvg_cli_output_info info[KVG_CASE_MAX_TENSORS];
    const char *skipped[KVG_CASE_MAX_TENSORS];
    kvg_report_job jobs[3];
    kvg_report_set set;
    char err[512];
    int i, n = 0, n_jobs = 0;

    memset(&set, 0, sizeof set);
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        if (!r->have_npu[i]) {
            skipped[set.n_skipped++] = g->name;
            continue;
        }
        kvg_cli_describe_output(r->c, g->name, &g->t, &info[n]);
        t[n].result = &r->result[n];
        t[n].golden = &g->t;
        t[n].actual = &r->npu[i];
        t[n].initial = r->mask[i] ? kvg_case_find(&r->c->inputs, g->name)
                                  : NULL;
        t[n].written = r->mask[i];
        t[n].layout = info[n].has_layout ? &info[n].layout : NULL;
        n++;
    }
    set.case_dir = r->c->dir;
    set.op = r->c->op;
    set.tensors = t;
    set.count = n;
    set.skipped = skipped;
    if (files->html)
        add_job(jobs, &n_jobs, files->html, kvg_report_html);
    if (files->junit)
        add_job(jobs, &n_jobs, files->junit, kvg_report_junit);
    if (files->csv)
        add_job(jobs, &n_jobs, files->csv, kvg_report_csv);
    if (n_jobs == 0 ||
        kvg_report_write_files(jobs, n_jobs, &set, err, sizeof err) == 0)
        return 1;
    fprintf(stderr, "kvgold: %s\n", err);
    return 0;
}

static void free_run(compare_run *r)
{
    int i;
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++) {
        if (r->have_npu[i])
            kvg_npy_free(&r->npu[i]);
        free(r->mask[i]);
    }
    kvg_case_set_free(&r->gold);
}

int kvg_cli_compare(int argc, char **argv)
{
    const char *case_dir = NULL, *npu_dir = NULL;
    int json = 0, i, found = 0, rc = KVG_EXIT_PASS;
    report_files files = {NULL, NULL, NULL};
    kvg_case c;
    compare_run *r;
    kvg_diag diag;

    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(kvg_cli_compare_help, stdout);
            return KVG_EXIT_PASS;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--html") == 0 ||
                   strcmp(argv[i], "--junit") == 0 ||
                   strcmp(argv[i], "--csv") == 0) {
            const char **slot = argv[i][2] == 'h'   ? &files.html
                                : argv[i][2] == 'j' ? &files.junit
                                                    : &files.csv;
            if (i + 1 >= argc)
                return kvg_cli_usage_error("compare: %s needs a FILE",
                                           argv[i]);
            *slot = argv[++i];
        } else if (argv[i][0] == '-') {
            return kvg_cli_usage_error("compare: unknown option %s", argv[i]);
        } else if (case_dir == NULL) {
            case_dir = argv[i];
        } else if (npu_dir == NULL) {
            npu_dir = argv[i];
        } else {
            return kvg_cli_usage_error("compare: unexpected argument %s",
                                       argv[i]);
        }
    }
    if (case_dir == NULL || npu_dir == NULL)
        return kvg_cli_usage_error("compare: needs CASE and NPU_DIR%s", "");
    if (!kvg_cli_load(case_dir, &c))
        return KVG_EXIT_INVALID;
    r = (compare_run *)calloc(1, sizeof *r);
    if (r == NULL) {
        kvg_case_free(&c);
        return KVG_EXIT_INVALID;
    }
    r->c = &c;
    kvg_diag_clear(&diag);
    if (c.expect_error) {
        fprintf(stderr, "kvgold: %s is a case the operator must refuse; "
                        "there is nothing to compare\n", case_dir);
        rc = KVG_EXIT_INVALID;
    } else if (kvg_case_run(&c, &r->gold, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: %s: the operator refused the case: %s\n",
                case_dir, diag.message);
        rc = KVG_EXIT_INVALID;
    } else if (!load_npu(r, npu_dir, &found)) {
        rc = KVG_EXIT_INVALID;
    } else if (found == 0) {
        fprintf(stderr, "kvgold: %s holds none of the outputs (", npu_dir);
        for (i = 0; i < r->gold.count; i++)
            fprintf(stderr, "%s%s.npy", i ? ", " : "", r->gold.items[i].name);
        fprintf(stderr, ")\n");
        rc = KVG_EXIT_INVALID;
    } else {
        find_masks(r);
        if (!compare_all(r) || !print_report(r, json, stdout) ||
            !write_report_files(r, &files)) {
            rc = KVG_EXIT_INVALID;
        } else {
            for (i = 0; i < r->n_results; i++)
                if (r->result[i].verdict != KVG_VERDICT_PASS)
                    rc = KVG_EXIT_MISMATCH;
        }
    }
    free_run(r);
    free(r);
    kvg_case_free(&c);
    return rc;
}
