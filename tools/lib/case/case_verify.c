/*
 * tools/lib/case/case_verify.c - "run a case and verify it bit for bit": the
 * one comparison of an output with the generator's expected tensor that
 * `kvgold check`, the vector tests and the benchmark share.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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

/* ---- streamed ---------------------------------------------------------- */

/* Bytes per step of the streamed verification: what stays resident. */
#define STREAM_CHUNK ((size_t)16 << 20)

static const kvg_case_tensor *item_named(const kvg_case_set *set,
                                         const char *name)
{
    int i;
    for (i = 0; set != NULL && i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i];
    return NULL;
}

/* Differing elements of [off, off + n) bytes; *first set at the first. */
static long long chunk_diffs(const unsigned char *pa, const unsigned char *pb,
                             size_t esize, size_t off, size_t n,
                             long long *first)
{
    long long diffs = 0;
    size_t b, i;

    for (b = off; b < off + n; b += 4096) { /* bulk, then element-wise */
        size_t len = off + n - b < 4096 ? off + n - b : 4096;
        if (memcmp(pa + b, pb + b, len) == 0)
            continue;
        for (i = b; i < b + len; i += esize)
            if (memcmp(pa + i, pb + i, esize) != 0 && diffs++ == 0 &&
                *first < 0)
                *first = (long long)(i / esize);
    }
    return diffs;
}

/* Give back the chunk's pages: the expected's and the initial's (read-only
 * mappings), and the golden's copy-on-write pages that hold the file's
 * bytes again (equal to the initial cache page by page). The golden writes
 * a few scattered pages, so the equal ones come in long runs, each given
 * back with one call: a call per page cost a system call per 4 KiB and
 * split every huge-page mapping of the file into 512 small ones. */
static void drop_chunk(const kvg_case_tensor *g, const kvg_case_tensor *e,
                       const kvg_case_tensor *init, size_t off, size_t n)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096, p, run = SIZE_MAX;
    const unsigned char *gd = (const unsigned char *)g->t.data;

    kvg_file_map_drop(&e->map, (const unsigned char *)e->t.data + off, n);
    if (init == NULL || init->map.base == NULL || g->map.base == NULL)
        return;
    /* whole pages of the golden's mapping (the data starts after the
     * .npy header, not on a page boundary) */
    p = off + (page - ((uintptr_t)gd + off) % page) % page;
    for (; p + page <= off + n; p += page) {
        if (memcmp(gd + p, (const unsigned char *)init->t.data + p, page) ==
            0) {
            if (run == SIZE_MAX)
                run = p; /* a run of equal pages starts */
        } else if (run != SIZE_MAX) {
            kvg_file_map_drop_unchanged(&g->map, gd + run, p - run);
            run = SIZE_MAX;
        }
    }
    if (run != SIZE_MAX)
        kvg_file_map_drop_unchanged(&g->map, gd + run, p - run);
    kvg_file_map_drop(&init->map, (const unsigned char *)init->t.data + off,
                      n);
}

int kvg_case_verify_tensor_streamed(const kvg_case *c,
                                    const kvg_case_set *got, int i,
                                    kvg_case_verdict *v)
{
    const kvg_case_tensor *e = &c->expected.items[i];
    const kvg_case_tensor *g = item_named(got, e->name);
    const kvg_case_tensor *init = item_named(&c->inputs, e->name);
    size_t esize = kvg_dtype_size(e->t.dtype), off;

    if (g == NULL || esize == 0 || (g->map.base == NULL &&
                                    e->map.base == NULL))
        return kvg_case_verify_tensor(c, got, i, v);
    memset(v, 0, sizeof *v);
    v->name = e->name;
    v->want = &e->t;
    v->got = &g->t;
    v->first = -1;
    v->same_geometry = same_geometry(&g->t, &e->t);
    if (!v->same_geometry) {
        v->differing = -1;
        return 0;
    }
    if (init != NULL && !same_geometry(&init->t, &e->t))
        init = NULL;
    for (off = 0; off < e->t.nbytes; off += STREAM_CHUNK) {
        size_t n = e->t.nbytes - off < STREAM_CHUNK ? e->t.nbytes - off
                                                    : STREAM_CHUNK;
        v->differing += chunk_diffs((const unsigned char *)g->t.data,
                                    (const unsigned char *)e->t.data, esize,
                                    off, n, &v->first);
        drop_chunk(g, e, init, off, n);
    }
    return v->differing == 0;
}

int kvg_case_verify(const kvg_case *c, const kvg_case_set *got)
{
    kvg_case_verdict v;
    int i, bad = 0;
    for (i = 0; i < c->expected.count; i++)
        bad += !kvg_case_verify_tensor(c, got, i, &v);
    return bad;
}
