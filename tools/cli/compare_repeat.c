/*
 * tools/cli/compare_repeat.c - see compare_repeat.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "compare_repeat.h"
#include "json.h"
#include "kvgold/compare.h"

/* Same dtype, rank and shape: the runs can be compared chunk by chunk. */
static int alike(const kvg_tensor *a, const kvg_tensor *b)
{
    int d;
    if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes)
        return 0;
    for (d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

/* A 1-D view of elements [first, first + n) of t. */
static kvg_tensor slice(const kvg_tensor *t, int64_t first, int64_t n)
{
    kvg_tensor v = *t;
    const size_t es = kvg_dtype_size(t->dtype);
    v.data = (unsigned char *)t->data + (size_t)first * es;
    v.rank = 1;
    v.shape[0] = n;
    v.nbytes = (size_t)n * es;
    return v;
}

/* kvg_compare_runs of run 1 and run k of output i, KVG_COMPARE_CHUNK
 * elements at a time, each chunk's mapped pages given back after it: a
 * run-to-run check of multi-GiB dumps then holds a chunk of each, not the
 * whole files (the same result as one call). */
static kvg_status compare_runs(const kvg_cli_dumps *runs, int i, int k,
                               kvg_compare_runs_result *rr, kvg_diag *diag)
{
    const kvg_tensor *a = &runs[0].t[i], *b = &runs[k].t[i];
    const size_t es = kvg_dtype_size(a->dtype);
    int64_t total, first;

    if (!alike(a, b) || es == 0)
        return kvg_compare_runs(a, b, rr, diag); /* its refusal */
    total = (int64_t)(a->nbytes / es);
    memset(rr, 0, sizeof *rr);
    rr->first_index = -1;
    for (first = 0; first < total; first += KVG_COMPARE_CHUNK) {
        const int64_t n = total - first < KVG_COMPARE_CHUNK
                              ? total - first
                              : KVG_COMPARE_CHUNK;
        const kvg_tensor va = slice(a, first, n), vb = slice(b, first, n);
        kvg_compare_runs_result part;
        kvg_status st = kvg_compare_runs(&va, &vb, &part, diag);
        if (st != KVG_OK)
            return st;
        if (part.differ != 0 && rr->differ == 0) {
            rr->first_index = first + part.first_index;
            rr->first_a_bits = part.first_a_bits;
            rr->first_b_bits = part.first_b_bits;
        }
        rr->differ += part.differ;
        kvg_file_map_drop(&runs[0].map[i], va.data, va.nbytes);
        kvg_file_map_drop(&runs[k].map[i], vb.data, vb.nbytes);
    }
    rr->elements = total;
    return KVG_OK;
}

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
    if (compare_runs(runs, i, k, &rr, &diag) != KVG_OK) {
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

/* The first earlier run (0-based) whose dump of output i is the same file
 * as run k's, or -1. */
static int same_as_earlier(const kvg_cli_dumps *runs, int i, int k)
{
    int j;
    for (j = 0; j < k; j++)
        if (kvg_cli_dumps_same_file(&runs[j], i, &runs[k], i))
            return j;
    return -1;
}

kvg_verdict kvg_cli_repeat_check(const kvg_case_set *gold,
                                 const int *selected,
                                 const kvg_cli_dumps *runs, int n, FILE *out,
                                 FILE *json, char *why, size_t cap)
{
    int i, k, differ = 0, missing = 0, checked = 0, listed = 0, nsame = 0;
    int same_j = -1, same_k = -1;
    kvg_verdict v;
    char line[200];

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
            missing += selected[i] != 0; /* not judged is not identical */
            continue;
        }
        for (k = 1; k < n; k++) {
            int j = same_as_earlier(runs, i, k);
            if (j >= 0) {
                if (out != NULL)
                    fprintf(out, "  %s: runs %d and %d are the same files "
                                 "(%s and %s: same device and inode): not a "
                                 "determinism check\n", gold->items[i].name,
                            j + 1, k + 1, runs[j].path[i], runs[k].path[i]);
                if (nsame++ == 0) {
                    same_j = j;
                    same_k = k;
                }
                continue;
            }
            differ += !check_one(&gold->items[i], runs, i, k, out, json,
                                 &listed);
            checked++;
        }
    }
    if (differ)
        v = KVG_VERDICT_FAIL;
    else if (missing || nsame || checked == 0)
        v = KVG_VERDICT_NOT_JUDGED;
    else
        v = KVG_VERDICT_PASS;
    if (v == KVG_VERDICT_FAIL)
        (void)snprintf(line, sizeof line, "FAIL: the runs are not "
                                          "bit-identical");
    else if (nsame)
        (void)snprintf(line, sizeof line, "NOT JUDGED: runs %d and %d are "
                       "the same files, not separate runs (%d output%s): "
                       "determinism was not shown", same_j + 1, same_k + 1,
                       nsame, nsame == 1 ? "" : "s");
    else if (v == KVG_VERDICT_NOT_JUDGED)
        (void)snprintf(line, sizeof line, "NOT JUDGED: %d output%s missing "
                       "from a run: determinism was not shown", missing,
                       missing == 1 ? " is" : "s are");
    else
        (void)snprintf(line, sizeof line, "PASS: the runs are "
                                          "bit-identical");
    if (json != NULL) {
        int listed_same = 0;
        fputs("],\"same_files\":[", json);
        for (i = 0; nsame && i < gold->count; i++)
            for (k = 1; selected[i] && k < n; k++) {
                int j = same_as_earlier(runs, i, k);
                if (j < 0)
                    continue;
                fprintf(json, "%s{\"name\":", listed_same++ ? "," : "");
                kvg_json_write_string(json, gold->items[i].name);
                fprintf(json, ",\"runs\":[%d,%d]}", j + 1, k + 1);
            }
        fprintf(json, "],\"identical\":%s,\"verdict\":\"%s\",\"summary\":",
                v == KVG_VERDICT_PASS ? "true" : "false", kvg_verdict_name(v));
        kvg_json_write_string(json, line);
        fputc('}', json);
    }
    if (out != NULL)
        fprintf(out, "%s\n", line);
    if (why != NULL && cap > 0)
        (void)snprintf(why, cap, "%s", line);
    return v;
}
