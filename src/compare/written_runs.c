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
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->written, -1,
                              (int64_t)k,
                              "%s: run %llu [%lld, +%lld) must be non-empty "
                              "and inside the %lld elements", l->written,
                              (unsigned long long)k,
                              (long long)run->first, (long long)run->count,
                              (long long)numel);
        if (run->first < end)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->written, -1,
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

/* Tell the caller that [from, to) is behind us. */
static void left_behind(const kvg_compare_args *a, int64_t from, int64_t to)
{
    if (a->left_behind != NULL && to > from)
        a->left_behind(a->left_behind_user, from, to);
}

kvg_status kvg_i_cmp_check_runs(const kvg_compare_args *a, int64_t numel,
                                const kvg_i_labels *l, kvg_diag *diag)
{
    if (a->written_runs == NULL)
        return KVG_OK;
    if (a->written != NULL)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->written, -1, -1,
                          "%s: give the mask `written` or the runs "
                          "`written_runs`, not both", l->written);
    return check_run_shape(a, numel, l, diag);
}

/* Bytes of each tensor per step: the golden's, the initial's and the
 * actual's step stay in the core's cache from the golden-vs-initial check
 * to the measurement, so a gap is read from memory once. */
#define STEP_BYTES ((int64_t)256 << 10)

/* Bytes of each tensor per left_behind call (at most KVG_COMPARE_CHUNK
 * elements): what a caller that maps its tensors holds resident at once,
 * three times over (golden, initial, actual). */
#define CHUNK_BYTES ((int64_t)4 << 20)

/*
 * Gap [from, to): with `initial`, first check that the golden equals it
 * (the runs describe the golden), then measure it as untouched, step by
 * step, and leave each chunk behind once both are done. The first element
 * where the golden differs from `initial`, or `to`.
 */
static int64_t measure_gap(kvg_i_cmp_ctx *c, int64_t from, int64_t to)
{
    const kvg_compare_args *a = c->a;
    const int64_t step = STEP_BYTES / (int64_t)c->esize;
    const int64_t chunk = CHUNK_BYTES / (int64_t)c->esize;

    while (from < to) {
        int64_t end = to - from > chunk ? from + chunk : to;
        int64_t s, e, d;
        for (s = from; s < end; s = e) {
            e = end - s > step ? s + step : end;
            if (a->initial != NULL &&
                (d = kvg_i_cmp_first_diff(c->g, c->init, c->esize, s, e)) <
                    e)
                return d;
            kvg_i_cmp_measure_untouched(c, s, e);
        }
        left_behind(a, from, end);
        from = end;
    }
    return to;
}

kvg_status kvg_i_cmp_measure_runs(kvg_i_cmp_ctx *c, const kvg_i_labels *l,
                                  kvg_diag *diag)
{
    const kvg_compare_args *a = c->a;
    int64_t from = 0, i, d;
    size_t k;

    for (k = 0; k <= a->written_run_count; k++) {
        const kvg_elem_run *run =
            k < a->written_run_count ? &a->written_runs[k] : NULL;
        int64_t to = run != NULL ? run->first : c->numel;
        if (to > from && (d = measure_gap(c, from, to)) < to)
            return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, l->golden, -1, d,
                              "%s: element %lld is outside the written runs "
                              "but differs from %s; the runs do not "
                              "describe the golden", l->golden, (long long)d,
                              l->initial);
        if (run == NULL)
            break;
        for (i = run->first; i < run->first + run->count; i++)
            kvg_i_cmp_measure_written(c, i);
        from = run->first + run->count;
    }
    return KVG_OK;
}
