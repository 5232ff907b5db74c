/*
 * tests/support/sweep_visits.h - which binary32 patterns a 2^32 sweep
 * visits: every stride-th pattern of a sign's half, and every pattern of a
 * sorted boundary list (test_format_sweep.c and test_format_mx_sweep.c,
 * which walk the visited patterns span by span).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVG_TEST_SWEEP_VISITS_H
#define KVG_TEST_SWEEP_VISITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct visits {
    uint32_t stride;
    const uint32_t *bnd; /* sorted, distinct */
    size_t nb, bi;
} visits;

/* The first visited pattern at or after p (above 0x7FFFFFFF: none). */
static inline uint64_t next_visit(visits *v, uint64_t p)
{
    const uint64_t s = (p + v->stride - 1u) / v->stride * v->stride;
    while (v->bi < v->nb && v->bnd[v->bi] < p)
        v->bi++;
    return v->bi < v->nb && v->bnd[v->bi] < s ? v->bnd[v->bi] : s;
}

#endif /* KVG_TEST_SWEEP_VISITS_H */
