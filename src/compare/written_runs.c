/*
 * src/compare/written_runs.c - the written set as sorted runs of elements
 * (kvg_compare_args.written_runs): checking the runs and walking
 * a tensor by them. A multi-GiB cache has a few written runs and long
 * untouched gaps, so the runs cost nothing to hold (the byte mask cost one
 * byte per element) and each gap is compared in bulk.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/op.h"
#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

/* Each run inside the tensor, non-empty, after the previous one. */
static kvg_status check_run_shape(const kvg_compare_args *a, int64_t numel,
                                  const kvg_i_labels *l, kvg_diag *diag)
{
    int64_t end = 0;
    size_t k;

    for (k = 0; k < a->written_run_count; k++) {
        const kvg_elem_run *run = &a->written_runs[k];
        if (run->count <= 0 || run->first < 0 || run->first > numel ||
            run->count > numel - run->first)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1,
                                (int64_t)k,
                                "%s: run %llu [%lld, +%lld) must be non-empty "
                                "and inside the %lld elements", l->written,
                                (unsigned long long)k,
                                (long long)run->first, (long long)run->count,
                                (long long)numel);
        if (run->first < end)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1,
                                (int64_t)k,
                                "%s: run %llu starts at element %lld, before "
                                "the end %lld of the run before it; runs "
                                "must be sorted and disjoint", l->written,
                                (unsigned long long)k, (long long)run->first,
                                (long long)end);
        end = run->first + run->count;
    }
    return KVG_OK;
}

/* The first element of [from, to) where the golden differs from
 * `initial`, or `to`. */
static int64_t gap_diff(const kvg_compare_args *a, size_t esize,
                        int64_t from, int64_t to)
{
    return kvg_i_cmp_first_diff((const unsigned char *)a->golden->data,
                                (const unsigned char *)a->initial->data,
                                esize, from, to);
}

/* Tell the caller that [from, to) is behind us. */
static void left_behind(const kvg_compare_args *a, int64_t from, int64_t to)
{
    if (a->left_behind != NULL && to > from)
        a->left_behind(a->left_behind_user, from, to);
}

/* Bytes of a tensor per left_behind call (at most KVG_COMPARE_CHUNK
 * elements): what a caller that maps its tensors holds resident at once,
 * twice over (golden and initial, then initial and actual). */
#define CHUNK_BYTES ((int64_t)4 << 20)

/* Elements per left_behind call. */
static int64_t chunk_of(size_t esize)
{
    return CHUNK_BYTES / (int64_t)esize;
}

/* The first element of gap [from, to) where the golden differs from
 * `initial`, or `to`; chunk by chunk, each one left behind once checked. */
static int64_t gap_diff_chunked(const kvg_compare_args *a, size_t esize,
                                int64_t from, int64_t to)
{
    const int64_t chunk = chunk_of(esize);

    while (from < to) {
        int64_t end = to - from > chunk ? from + chunk : to;
        int64_t d = gap_diff(a, esize, from, end);
        if (d < end)
            return d;
        left_behind(a, from, end);
        from = end;
    }
    return to;
}

/* Measure gap [from, to) as untouched, chunk by chunk. */
static void measure_gap(kvg_i_cmp_ctx *c, int64_t from, int64_t to)
{
    const int64_t chunk = chunk_of(c->esize);

    while (from < to) {
        int64_t end = to - from > chunk ? from + chunk : to;
        kvg_i_cmp_measure_untouched(c, from, end);
        left_behind(c->a, from, end);
        from = end;
    }
}

kvg_status kvg_i_cmp_check_runs(const kvg_compare_args *a, int64_t numel,
                                size_t esize, const kvg_i_labels *l,
                                kvg_diag *diag)
{
    int64_t from = 0, d;
    size_t k;

    if (a->written_runs == NULL)
        return KVG_OK;
    if (a->written != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1, -1,
                            "%s: give the mask `written` or the runs "
                            "`written_runs`, not both", l->written);
    KVG_TRY(check_run_shape(a, numel, l, diag));
    if (a->initial == NULL)
        return KVG_OK;
    for (k = 0; k <= a->written_run_count; k++) {
        int64_t to = k < a->written_run_count ? a->written_runs[k].first
                                              : numel;
        if ((d = gap_diff_chunked(a, esize, from, to)) < to)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->golden, -1, d,
                                "%s: element %lld is outside the written runs "
                                "but differs from %s; the runs do not "
                                "describe the golden", l->golden, (long long)d,
                                l->initial);
        if (k < a->written_run_count)
            from = to + a->written_runs[k].count;
    }
    return KVG_OK;
}

void kvg_i_cmp_measure_runs(kvg_i_cmp_ctx *c)
{
    const kvg_compare_args *a = c->a;
    int64_t from = 0, i;
    size_t k;

    for (k = 0; k < a->written_run_count; k++) {
        const kvg_elem_run *run = &a->written_runs[k];
        if (run->first > from)
            measure_gap(c, from, run->first);
        for (i = run->first; i < run->first + run->count; i++)
            kvg_i_cmp_measure_written(c, i);
        from = run->first + run->count;
    }
    if (from < c->numel)
        measure_gap(c, from, c->numel);
}
