/*
 * tools/lib/case/case_rows.c - a packed cache judged field by field is
 * its bytes: compare's row judge (kvg_compare_args.row_layout) addresses
 * byte offsets and takes byte tensors, while a scale cache of its own may
 * be held as e8m0 codes, packed fp4 pairs or fp32 scales (the indexer
 * epilog's cache_scale, docs/indexer_quant_cache.md). Here the views of
 * such a tensor are re-made as uint8 [nbytes] and its written runs, which
 * kvg_op_written_runs counts in elements, as byte runs (case.h,
 * kvg_case_rows_as_bytes).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "case.h"

/* The dtypes compare takes as a packed cache as they are. */
static int byte_dtype(kvg_dtype dt)
{
    return dt == KVG_UINT8 || dt == KVG_INT8 || dt == KVG_FP8_E4M3FN ||
           dt == KVG_FP8_E5M2 || dt == KVG_HIF8;
}

static void as_bytes(const kvg_tensor *t, kvg_tensor *out)
{
    const int64_t n = (int64_t)t->nbytes;

    *out = kvg_tensor_make(t->data, t->nbytes, KVG_UINT8, 1, &n);
}

kvg_status kvg_case_rows_as_bytes(kvg_compare_args *a, kvg_case_byte_view *v,
                                  kvg_diag *diag)
{
    size_t es, i;

    v->runs = NULL;
    if (a->row_layout == NULL || a->golden == NULL || a->actual == NULL ||
        byte_dtype(a->golden->dtype))
        return KVG_OK;
    es = kvg_dtype_size(a->golden->dtype);
    if (a->written_runs != NULL && es > 1) {
        v->runs = (kvg_elem_run *)malloc(
            (a->written_run_count ? a->written_run_count : 1) *
            sizeof *v->runs);
        if (v->runs == NULL)
            return kvg_diag_set(diag, KVG_ERR_NOMEM, a->name, -1, -1,
                                "%s: no memory for its byte runs", a->name);
        for (i = 0; i < a->written_run_count; i++) {
            v->runs[i].first = a->written_runs[i].first * (int64_t)es;
            v->runs[i].count = a->written_runs[i].count * (int64_t)es;
        }
        a->written_runs = v->runs;
    }
    as_bytes(a->golden, &v->golden);
    as_bytes(a->actual, &v->actual);
    a->golden = &v->golden;
    a->actual = &v->actual;
    if (a->initial != NULL) {
        as_bytes(a->initial, &v->initial);
        a->initial = &v->initial;
    }
    return KVG_OK;
}

void kvg_case_byte_view_free(kvg_case_byte_view *v)
{
    free(v->runs);
    v->runs = NULL;
}
