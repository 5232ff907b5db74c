/*
 * src/compare/summary.c - totals over the tensors of a case. A tensor that
 * was not judged never counts as passed.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/compare/compare_internal.h"

void kvg_compare_summary_init(kvg_compare_summary *s)
{
    if (s == NULL)
        return;
    memset(s, 0, sizeof *s);
    s->status = KVG_OK;
}

void kvg_compare_summary_add(kvg_compare_summary *s,
                             const kvg_compare_result *r)
{
    if (s == NULL || r == NULL)
        return;
    s->tensors++;
    if (r->verdict == KVG_VERDICT_PASS) {
        s->passed++;
    } else if (r->verdict == KVG_VERDICT_NOT_JUDGED) {
        s->not_judged++;
        s->status = KVG_ERR_MISMATCH;
    } else {
        s->failed++;
        s->status = KVG_ERR_MISMATCH;
    }
    s->untouched_changed += r->untouched_changed;
}

const char *kvg_compare_summary_verdict(const kvg_compare_summary *s)
{
    if (s == NULL)
        return "INCOMPLETE";
    if (s->failed > 0)
        return "FAIL";
    if (s->not_judged > 0 || s->tensors == 0)
        return "INCOMPLETE";
    return "PASS";
}
