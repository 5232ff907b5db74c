/*
 * tools/lib/report/error_hist.c - bin the written elements by the size of their
 * error (error_hist.h).
 *
 * Relative-error bins (floating-point data, any criterion but code_dist and
 * integer deltas): "exact", "< 1e-6", "1e-6..1e-5", ..., "1e0..1e1",
 * ">= 1e1", "NaN/inf". Step bins (integers, code distance): "0", "1", "2",
 * "3-4", "5-8", ..., "> 128", "NaN/inf".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error_hist.h"

#define DECADE_LO (-6) /* first decade edge, 1e-6 */
#define DECADE_HI 1    /* last decade edge, 1e1 */
#define STEP_POW_MAX 7 /* last power-of-two step bin ends at 2^7 = 128 */

static void set_rel_labels(kvg_error_hist *h)
{
    int k, b = 0;
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "exact");
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "<1e%d",
                   DECADE_LO);
    for (k = DECADE_LO; k < DECADE_HI; k++)
        (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label,
                       "1e%d..1e%d", k, k + 1);
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, ">=1e%d",
                   DECADE_HI);
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "NaN/inf");
    h->nbins = b;
}

static void set_step_labels(kvg_error_hist *h)
{
    int k, b = 0;
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "0");
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "1");
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "2");
    for (k = 1; k < STEP_POW_MAX; k++)
        (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "%d-%d",
                       (1 << k) + 1, 1 << (k + 1));
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, ">%d",
                   1 << STEP_POW_MAX);
    (void)snprintf(h->bin[b++].label, sizeof h->bin[0].label, "NaN/inf");
    h->nbins = b;
}

/* Bin of a finite, differing element's relative error. */
static int rel_bin(double rel)
{
    int k;
    if (rel < pow(10.0, DECADE_LO))
        return 1;
    for (k = DECADE_LO; k < DECADE_HI; k++)
        if (rel < pow(10.0, k + 1))
            return 2 + (k - DECADE_LO);
    return 2 + (DECADE_HI - DECADE_LO);
}

/* Bin of a finite, differing element's step (|delta| or distance >= 0). */
static int step_bin(double step)
{
    int k;
    if (step <= 2.0)
        return (int)step; /* 0, 1, 2 */
    for (k = 1; k < STEP_POW_MAX; k++)
        if (step <= (double)(1 << (k + 1)))
            return 2 + k;
    return 2 + STEP_POW_MAX;
}

static int uses_steps(const kvg_report_tensor *t)
{
    kvg_dtype dt = t->golden->dtype;
    /* e8m0: its distance in binades, never a relative error */
    return dt == KVG_INT8 || dt == KVG_INT32 || dt == KVG_INT64 ||
           dt == KVG_E8M0 || t->result->criterion == KVG_CRIT_CODE_DIST;
}

/* The bin of one written element. */
static int bin_of(const kvg_error_hist *h, const kvg_elem_judgement *e)
{
    double d;
    if (e->cls == KVG_EC_NONFINITE)
        return h->nbins - 1;
    if (e->cls == KVG_EC_EXACT)
        return 0;
    if (h->steps) /* score is |delta| or distance, except a float bitwise */
        return step_bin(e->score);
    d = fabs(e->actual - e->expected);
    return rel_bin(d / (fabs(e->expected) + 1e-7));
}

void kvg_error_hist_build(const kvg_report_tensor *t, kvg_error_hist *h)
{
    kvg_elem_judge judge;
    int64_t n = kvg_report_tensor_elements(t), i;

    memset(h, 0, sizeof *h);
    h->steps = uses_steps(t);
    if (h->steps)
        set_step_labels(h);
    else
        set_rel_labels(h);
    kvg_elem_judge_init(&judge, t);
    for (i = 0; i < n; i++) {
        kvg_elem_judgement e;
        int b;
        kvg_elem_judge_one(&judge, i, &e);
        if (e.cls == KVG_EC_UNTOUCHED)
            continue;
        if (e.cls == KVG_EC_CHANGED) {
            h->untouched_changed++;
            continue;
        }
        h->written++;
        b = bin_of(h, &e);
        if (e.cls <= KVG_EC_WITHIN)
            h->bin[b].within++;
        else
            h->bin[b].beyond++;
    }
}
