/*
 * tools/bench/bench.c - kvgold_bench: time one operator on one case.
 *
 *   kvgold_bench CASE_DIR [--budget SECONDS] [--sample SECONDS]
 *                         [--min-samples N]
 *
 * Loads the case, runs it through the case adapter with the timing shim in
 * place of kvg_op_run (bench.h explains how only the operator call is
 * timed), checks every expected tensor bit for bit, and prints one JSON object on stdout:
 *
 *   {"case", "op", "verified", "expected", "op_ns", "op_min_ns",
 *    "op_first_ns", "samples", "calls_per_sample", "memcpy_ns",
 *    "bytes_written", "bytes_read", "copy_only", "load_ns", "setup_ns",
 *    "written_runs", "memcpy_places_ns", "memcpy_places_min_ns",
 *    "order_runs", "memcpy_order_ns", "memcpy_order_min_ns",
 *    "memcpy_dst_order_ns", "memcpy_dst_order_min_ns",
 *    "memcpy_paired_ratio", "memcpy_pairs"}
 *
 * times in nanoseconds per call (op_ns: the median). memcpy_ns: a memcpy
 * of bytes_written bytes into one buffer of that size; written_runs: how
 * many maximal runs of consecutive bytes the op writes; memcpy_places_ns
 * (median) and memcpy_places_min_ns (best sample): those runs copied to
 * the same offsets of buffers the size of the outputs (bench.h);
 * order_runs, memcpy_order_ns, memcpy_order_min_ns: copy-only ops, the
 * same bytes to the same places in the order of the source bytes, from
 * their own source offsets, and memcpy_dst_order_*: the same moves in
 * destination order (bench.h); memcpy_paired_ratio: copy-only ops, the
 * median over memcpy_pairs pairs of an op sample and a memcpy sample
 * taken back to back of their per-call ratio. The memcpy_places, order
 * and paired fields are left out when they could not be measured (no
 * memory, nothing written, not a byte copy), never printed as 0.
 * tools/bench/bench.py drives it over the benchmark shapes. Exit
 * status: 0 measured and verified, 1 the outputs differ from expected,
 * 2 usage or case error.
 * This is a benchmark, not a test: nothing here judges the times.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "case.h"
#include "timed_ops.h"

static int usage(void)
{
    fprintf(stderr, "usage: kvgold_bench CASE_DIR [--budget SECONDS] "
                    "[--sample SECONDS] [--min-samples N]\n");
    return 2;
}

static int parse_args(int argc, char **argv, const char **dir,
                      kvgb_config *cfg)
{
    int i;
    cfg->budget_s = 0.3;
    cfg->sample_s = 0.002;
    cfg->min_samples = 5;
    cfg->max_samples = 2000;
    *dir = NULL;
    for (i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 < argc && strcmp(argv[i], "--budget") == 0)
            cfg->budget_s = strtod(argv[++i], &end);
        else if (i + 1 < argc && strcmp(argv[i], "--sample") == 0)
            cfg->sample_s = strtod(argv[++i], &end);
        else if (i + 1 < argc && strcmp(argv[i], "--min-samples") == 0)
            cfg->min_samples = (int)strtol(argv[++i], &end, 10);
        else if (argv[i][0] != '-' && *dir == NULL)
            *dir = argv[i];
        else
            return 0;
        if (end != NULL && *end != '\0')
            return 0;
    }
    return *dir != NULL && cfg->budget_s >= 0 && cfg->sample_s > 0 &&
           cfg->min_samples >= 1 && cfg->min_samples <= cfg->max_samples;
}

/* Every expected tensor must be an output with the same dtype, shape and
 * bytes. Returns the number that differ (a message for each on stderr). */
static int verify(const kvg_case *c, const kvg_case_set *out)
{
    kvg_case_verdict v;
    int i, bad = 0;
    for (i = 0; i < c->expected.count; i++) {
        if (!kvg_case_verify_tensor(c, out, i, &v)) {
            fprintf(stderr, "kvgold_bench: %s: output %s differs from "
                            "expected\n", c->dir, v.name);
            bad++;
        }
    }
    return bad;
}

static void print_json(const kvg_case *c, const kvgb_result *r, int bad,
                       double load_ns)
{
    /* The case path is printed as given; bench.py passes plain paths. */
    printf("{\"case\": \"%s\", \"op\": \"%s\", \"verified\": %s, "
           "\"expected\": %d, \"op_ns\": %.1f, \"op_min_ns\": %.1f, "
           "\"op_first_ns\": %.1f, \"samples\": %d, "
           "\"calls_per_sample\": %ld, \"memcpy_ns\": %.1f, "
           "\"bytes_written\": %llu, \"bytes_read\": %llu, "
           "\"copy_only\": %s, \"load_ns\": %.1f, \"setup_ns\": %.1f, "
           "\"written_runs\": %llu",
           c->dir, c->op, bad == 0 ? "true" : "false", c->expected.count,
           r->op.median_ns, r->op.min_ns, r->op.first_ns, r->op.samples,
           r->op.per_sample, r->copy.median_ns,
           (unsigned long long)r->bytes_written,
           (unsigned long long)r->bytes_read,
           r->copy_only ? "true" : "false", load_ns, r->setup_ns,
           (unsigned long long)r->written_runs);
    if (r->pairs > 0)
        printf(", \"memcpy_paired_ratio\": %.4f, \"memcpy_pairs\": %d",
               r->paired_ratio, r->pairs);
    if (r->places_measured)
        printf(", \"memcpy_places_ns\": %.1f, "
               "\"memcpy_places_min_ns\": %.1f", r->places.median_ns,
               r->places.min_ns);
    if (r->order_measured)
        printf(", \"order_runs\": %llu, \"memcpy_order_ns\": %.1f, "
               "\"memcpy_order_min_ns\": %.1f",
               (unsigned long long)r->order_runs, r->order.median_ns,
               r->order.min_ns);
    if (r->dst_order_measured)
        printf(", \"memcpy_dst_order_ns\": %.1f, "
               "\"memcpy_dst_order_min_ns\": %.1f", r->dst_order.median_ns,
               r->dst_order.min_ns);
    printf("}\n");
}

int main(int argc, char **argv)
{
    kvgb_config cfg;
    kvgb_result res;
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    const char *dir;
    double t0, load_ns;
    kvg_status st;
    int bad;

    if (!parse_args(argc, argv, &dir, &cfg))
        return usage();
    kvg_diag_clear(&diag);
    t0 = kvgb_now_ns();
    if (kvg_case_load(dir, &c, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold_bench: %s\n", diag.message);
        return 2;
    }
    load_ns = kvgb_now_ns() - t0;
    if (c.expect_error || c.expected.count == 0) {
        fprintf(stderr, "kvgold_bench: %s: a benchmark needs a valid case "
                        "with expected outputs\n", dir);
        kvg_case_free(&c);
        return 2;
    }
    memset(&out, 0, sizeof out);
    kvgb_session_begin(&cfg, &res, kvgb_now_ns());
    st = kvg_case_run_with(&c, &out, kvgb_timed_op, &diag);
    kvgb_session_end();
    if (st != KVG_OK || !res.measured) {
        fprintf(stderr, "kvgold_bench: %s: %s (status %d)\n", dir,
                st != KVG_OK ? diag.message : "the operator was not called",
                (int)st);
        kvg_case_set_free(&out);
        kvg_case_free(&c);
        return 2;
    }
    bad = verify(&c, &out);
    print_json(&c, &res, bad, load_ns);
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return bad == 0 ? 0 : 1;
}
