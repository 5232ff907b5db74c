/*
 * tools/case/case_verify.c - "run a case and verify it bit for bit": the
 * one comparison of an output with the generator's expected tensor that
 * `kvgold check`, the vector tests and the benchmark share.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "case.h"

static int same_geometry(const kvg_tensor *a, const kvg_tensor *b)
{
    int i;
    if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes)
        return 0;
    for (i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* Differing elements of two tensors of one geometry; *first the first. */
static long long count_diffs(const kvg_tensor *a, const kvg_tensor *b,
                             long long *first)
{
    const unsigned char *pa = (const unsigned char *)a->data;
    const unsigned char *pb = (const unsigned char *)b->data;
    size_t size = kvg_dtype_size(a->dtype), n, i;
    long long diffs = 0;

    *first = -1;
    if (size == 0)
        return memcmp(pa, pb, a->nbytes) != 0;
    n = a->nbytes / size;
    for (i = 0; i < n; i++) {
        if (memcmp(pa + i * size, pb + i * size, size) != 0) {
            if (diffs++ == 0)
                *first = (long long)i;
        }
    }
    return diffs;
}

int kvg_case_verify_tensor(const kvg_case *c, const kvg_case_set *got,
                           int i, kvg_case_verdict *v)
{
    const kvg_case_tensor *e = &c->expected.items[i];

    memset(v, 0, sizeof *v);
    v->name = e->name;
    v->want = &e->t;
    v->got = kvg_case_find(got, e->name);
    v->differing = -1;
    v->first = -1;
    v->same_geometry = v->got != NULL && same_geometry(v->got, &e->t);
    if (v->same_geometry)
        v->differing = count_diffs(v->got, &e->t, &v->first);
    return v->same_geometry && v->differing == 0;
}

int kvg_case_verify(const kvg_case *c, const kvg_case_set *got)
{
    kvg_case_verdict v;
    int i, bad = 0;
    for (i = 0; i < c->expected.count; i++)
        bad += !kvg_case_verify_tensor(c, got, i, &v);
    return bad;
}
