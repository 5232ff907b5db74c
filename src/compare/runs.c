/*
 * src/compare/runs.c - kvg_compare_runs: are two runs of an output bit for
 * bit the same? (The commercial standard requires repeated runs of a
 * deterministic operator to agree.)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

kvg_status kvg_compare_runs(const kvg_tensor *run_a, const kvg_tensor *run_b,
                            kvg_compare_runs_result *result, kvg_diag *diag)
{
    const unsigned char *a, *b;
    int64_t numel, i = 0;
    size_t es;

    if (result == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "runs", -1, -1,
                            "runs: NULL result");
    KVG_TRY(kvg_i_cmp_check_view(run_a, "run_a", &numel, diag));
    KVG_TRY(kvg_i_cmp_check_like(run_b, "run_b", run_a, diag));
    es = kvg_dtype_size(run_a->dtype);
    a = (const unsigned char *)run_a->data;
    b = (const unsigned char *)run_b->data;
    memset(result, 0, sizeof *result);
    result->elements = numel;
    result->first_index = -1;
    while ((i = kvg_i_cmp_first_diff(a, b, es, i, numel)) < numel) {
        if (result->differ++ == 0) {
            result->first_index = i;
            result->first_a_bits = kvg_i_cmp_raw_bits(a + (size_t)i * es, es);
            result->first_b_bits = kvg_i_cmp_raw_bits(b + (size_t)i * es, es);
        }
        i++;
    }
    return KVG_OK;
}
