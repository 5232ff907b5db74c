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

#include "json.h"

#include "cli.h"
#include "kvgold/compare.h"
#include "kvgold/options.h"
#include "membudget.h"
#include "npy_file.h"
#include "tensor_file.h"

const char *const kvg_cli_compare_help =
    "usage: kvgold compare CASE NPU_DIR [--json]\n"
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
    uint64_t mask_bytes; /* reserved for the masks (membudget.h) */
} compare_run;

/* Run the golden from caches whose bits are all inverted; fills masks. */
static void find_masks(compare_run *r)
{
    kvg_case alt = *r->c; /* shallow: shares json and tensor buffers */
    kvg_case_set gold_b;
    unsigned char *inverted[KVG_CASE_MAX_TENSORS] = {0};
    uint64_t inverted_bytes = 0;
    kvg_diag diag;
    int i;

    for (i = 0; i < alt.inputs.count; i++) {
        kvg_tensor *t = &alt.inputs.items[i].t;
        size_t k;
        if (kvg_case_find(&r->gold, alt.inputs.items[i].name) == NULL)
            continue; /* not an in-place output */
        if (kvg_mem_reserve(t->nbytes, "an inverted copy of a cache",
                            &diag) != KVG_OK) {
            r->mask_failed = 1;
            goto out;
        }
        inverted[i] = (unsigned char *)malloc(t->nbytes ? t->nbytes : 1);
        inverted_bytes += t->nbytes;
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
        if (kvg_mem_reserve(n, "a written-element mask", &diag) != KVG_OK) {
            r->mask_failed = 1;
            continue;
        }
        r->mask_bytes += n;
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
    kvg_mem_release(inverted_bytes);
}

/* Load NPU_DIR/<name>.npy (or <name>.bin, with the golden's dtype and
 * shape) for every golden output; 0 on a bad file. */
static int load_npu(compare_run *r, const char *npu_dir, int *found)
{
    int i;
    *found = 0;
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        kvg_diag diag;
        int have = 0;
        kvg_diag_clear(&diag);
        if (kvg_tensor_file_load_dump(npu_dir, g->name, &g->t, &r->npu[i],
                                      &have, &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: NPU output %s: %s\n", g->name,
                    diag.message);
            return 0;
        }
        if (!have)
            continue; /* not dumped: reported as skipped */
        r->have_npu[i] = 1;
        ++*found;
    }
    return 1;
}

/*
 * What comparing holds on top of the case and its golden outputs, from the
 * shapes alone: the NPU dumps (at most one per output), the inverted
 * caches and the second golden run find_masks makes, one mask byte per
 * cache element. Checked before any of it is read or allocated, so a case
 * too big to compare is refused at once with the whole amount (exit 2),
 * not halfway through.
 */
static int fits_compare(const compare_run *r, const char *case_dir)
{
    uint64_t outputs = 0, caches = 0, masks = 0;
    char what[256];
    kvg_diag diag;
    int i;

    for (i = 0; i < r->gold.count; i++) {
        const kvg_tensor *init =
            kvg_case_find(&r->c->inputs, r->gold.items[i].name);
        outputs += r->gold.items[i].t.nbytes;
        if (init != NULL) {
            caches += init->nbytes;
            masks += init->nbytes / kvg_dtype_size(init->dtype);
        }
    }
    (void)snprintf(what, sizeof what,
                   "comparing (NPU dumps %llu, a second golden run %llu, "
                   "inverted caches %llu, masks %llu bytes)",
                   (unsigned long long)outputs, (unsigned long long)outputs,
                   (unsigned long long)caches, (unsigned long long)masks);
    kvg_diag_clear(&diag);
    if (kvg_mem_reserve(2 * outputs + caches + masks, what, &diag) !=
        KVG_OK) {
        fprintf(stderr, "kvgold: compare %s: not enough memory: %s\n",
                case_dir, diag.message);
        return 0;
    }
    kvg_mem_release(2 * outputs + caches + masks);
    return 1;
}

static int compare_all(compare_run *r)
{
    int i, bad_input = 0;
    for (i = 0; i < r->gold.count; i++) {
        const kvg_case_tensor *g = &r->gold.items[i];
        kvg_compare_role role = KVG_ROLE_DEFAULT;
        kvg_cache_layout layout;
        int has_layout = 0;
        kvg_compare_args a;
        kvg_diag diag;
        kvg_status st;

        if (!r->have_npu[i])
            continue;
        /* the case already ran, so it describes its outputs */
        (void)kvg_case_describe_output(r->c, g->name, &g->t, &role,
                                       &has_layout, &layout, NULL);
        kvg_compare_args_init(&a);
        a.name = g->name;
        a.golden = &g->t;
        a.actual = &r->npu[i];
        a.role = role;
        a.layout = has_layout ? &layout : NULL;
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
    kvg_json *opts;
    size_t k;
    int i, inexact = 0, compared = 0;

    for (i = 0; i < r->gold.count; i++) {
        if (!r->have_npu[i])
            continue;
        compared++;
        inexact |= !bits_equal(&r->gold.items[i].t, &r->npu[i]);
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
        opts = r->c->options ? kvg_json_clone(r->c->options)
                             : kvg_json_parse("{}", 2, "options", NULL, 0);
        if (opts == NULL ||
            kvg_json_set_string(opts, "reduce_order", orders[k]) != 0) {
            kvg_json_free(opts);
            return;
        }
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
        kvg_json_free(opts);
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

static void free_run(compare_run *r)
{
    int i;
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++) {
        if (r->have_npu[i])
            kvg_npy_free(&r->npu[i]);
        free(r->mask[i]);
    }
    kvg_mem_release(r->mask_bytes);
    kvg_case_set_free(&r->gold);
}

int kvg_cli_compare(int argc, char **argv)
{
    const char *case_dir = NULL, *npu_dir = NULL;
    int json = 0, i, found = 0, rc = KVG_EXIT_PASS;
    kvg_case c;
    compare_run *r;
    kvg_diag diag;
    kvg_status st;

    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(kvg_cli_compare_help, stdout);
            return KVG_EXIT_PASS;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
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
    } else if ((st = kvg_case_run(&c, &r->gold, &diag)) != KVG_OK) {
        kvg_cli_run_error(case_dir, st, &diag);
        rc = KVG_EXIT_INVALID;
    } else if (!fits_compare(r, case_dir) || !load_npu(r, npu_dir, &found)) {
        rc = KVG_EXIT_INVALID;
    } else if (found == 0) {
        fprintf(stderr, "kvgold: %s holds none of the outputs (", npu_dir);
        for (i = 0; i < r->gold.count; i++)
            fprintf(stderr, "%s%s.npy", i ? ", " : "", r->gold.items[i].name);
        fprintf(stderr, ")\n");
        rc = KVG_EXIT_INVALID;
    } else {
        find_masks(r);
        if (!compare_all(r) || !print_report(r, json, stdout)) {
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
