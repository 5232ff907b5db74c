/*
 * src/registry/written_runs.c - kvg_op_written_runs (kvgold/op.h): the
 * element runs a call writes, from the operator's own addressing.
 *
 * Each descriptor's `written` entry validates the call as its entry point
 * does, then hands an enumeration of its runs to kvg_i_written_collect.
 * The enumeration runs twice - once to count, once to store - so that a
 * capacity too small is refused before anything is stored and no memory
 * is needed beyond the caller's array; sorting (the library's heapsort,
 * src/common/heapsort.h: in place, no recursion, O(n log n) whatever the
 * order) and merging happen there too.
 * The cost is O(runs written), not O(cache): an NZ enumeration is repeated
 * once per C0 group (src/registry/op_desc.h says why), each pass handing
 * over one run per row.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/heapsort.h"
#include "src/common/internal.h"
#include "src/registry/op_desc.h"

void kvg_i_sink_put(kvg_i_run_sink *s, int64_t first, int64_t count)
{
    if (count <= 0)
        return;
    /* first <= limit - count: first + count cannot overflow */
    if (first < 0 || count > s->limit || first > s->limit - count) {
        s->outside = 1;
        return;
    }
    if (s->n > 0 && first == s->last_end) { /* extends the last run */
        if (s->runs != NULL && s->n <= s->cap)
            s->runs[s->n - 1].count += count;
        s->last_end += count;
        return;
    }
    if (s->n == (size_t)-1) {
        s->overflow = 1;
        return;
    }
    if (s->runs != NULL && s->n < s->cap) {
        s->runs[s->n].first = first;
        s->runs[s->n].count = count;
    }
    s->n++;
    s->last_end = first + count;
}

void kvg_i_sink_row(kvg_i_run_sink *s, const kvg_cache_layout *l,
                    kvg_cache_coord at, int64_t len)
{
    int64_t c, k, groups;

    if (l->kind != KVG_LAYOUT_NZ) {
        if (s->group == 0)
            kvg_i_sink_put(s, kvg_layout_offset(l, &at), len);
        return;
    }
    groups = len / l->c0 + (len % l->c0 != 0);
    if (groups > s->groups)
        s->groups = groups;
    k = s->group * l->c0;
    if (k >= len)
        return;
    /* channel c + k of the row, counted over all heads, so that the
     * run's coordinate stays inside the layout */
    c = at.head * l->dim + at.channel;
    at.head = (c + k) / l->dim;
    at.channel = (c + k) % l->dim;
    kvg_i_sink_put(s, kvg_layout_offset(l, &at),
                   len - k < l->c0 ? len - k : l->c0);
}

/* The whole enumeration: C0 group 0 of every row (and every ND row), then
 * each further group of the NZ rows. */
static void enumerate(kvg_i_enumerate_fn fn, const void *ctx,
                      kvg_i_run_sink *s)
{
    s->n = 0;
    s->groups = 0;
    for (s->group = 0; s->group == 0 || s->group < s->groups; s->group++)
        fn(ctx, s);
}

/* ---- sorting and merging in place --------------------------------------- */

#define RUN_BEFORE(a, b) ((a)->first < (b)->first)
KVG_I_HEAPSORT(sort_runs, kvg_elem_run, RUN_BEFORE)

/* Join each run that starts where (or before) the previous one ends;
 * returns the number left. The operators' validation refuses calls whose
 * writes overlap, so only touching runs (consecutive slots of a prefill,
 * C0 groups of a slot) join in practice. */
static size_t merge_runs(kvg_elem_run *v, size_t n)
{
    size_t i, out = 0;
    for (i = 0; i < n; i++) {
        if (out > 0 && v[i].first <= v[out - 1].first + v[out - 1].count) {
            const int64_t end = v[i].first + v[i].count;
            if (end > v[out - 1].first + v[out - 1].count)
                v[out - 1].count = end - v[out - 1].first;
            continue;
        }
        v[out++] = v[i];
    }
    return out;
}

/* ---- collecting ----------------------------------------------------------- */

kvg_status kvg_i_written_collect(const kvg_i_written *w,
                                 kvg_i_enumerate_fn fn, const void *ctx,
                                 kvg_diag *diag)
{
    kvg_i_run_sink s;

    if (w->tensor == NULL) /* validation requires it: cannot happen */
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: not given, so it has no elements to write",
                            w->name);
    memset(&s, 0, sizeof s);
    s.limit = kvg_i_numel(w->tensor);
    enumerate(fn, ctx, &s);
    if (s.overflow)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: the number of runs the call writes overflows "
                            "size_t", w->name);
    if (s.outside) /* validated calls stay inside: a kvgold bug */
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: a run reaches outside its %lld elements "
                            "(internal error)", w->name, (long long)s.limit);
    *w->produced = 1;
    *w->count = s.n;
    if (w->runs == NULL)
        return KVG_OK;
    if (w->cap < s.n)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: room for %lu runs, the call needs %lu (ask "
                            "with runs NULL)", w->name, (unsigned long)w->cap,
                            (unsigned long)s.n);
    s.runs = w->runs;
    s.cap = w->cap;
    enumerate(fn, ctx, &s);
    sort_runs(w->runs, s.n);
    *w->count = merge_runs(w->runs, s.n);
    return KVG_OK;
}

static void whole(const void *ctx, kvg_i_run_sink *s)
{
    (void)ctx;
    kvg_i_sink_put(s, 0, s->limit);
}

kvg_status kvg_i_written_whole(const kvg_i_written *w, kvg_diag *diag)
{
    return kvg_i_written_collect(w, whole, NULL, diag);
}

kvg_status kvg_i_written_none(const kvg_i_written *w)
{
    *w->produced = 0;
    *w->count = 0;
    return KVG_OK;
}

kvg_status kvg_op_written_runs(const kvg_op_call *call, const char *name,
                               int *produced, kvg_elem_run *runs, size_t cap,
                               size_t *count, kvg_diag *diag)
{
    const kvg_i_op_tensor *entry;
    kvg_i_written w;
    kvg_i_op_args a;

    if (diag != NULL)
        kvg_diag_clear(diag);
    if (produced == NULL || count == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: produced or count is NULL",
                            name ? name : "(null)");
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    KVG_TRY(kvg_i_op_written_entry(call->op, name, &entry, diag));
    w.name = entry->info.name;
    w.tensor = kvg_i_op_tensor_of(call->op, &a, name);
    w.runs = runs;
    w.cap = runs != NULL ? cap : 0;
    w.count = count;
    w.produced = produced;
    return call->op->written(&a, &w, diag);
}
