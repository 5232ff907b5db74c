/*
 * tools/cli/compare_written.c - written runs (see compare_written.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "compare_written.h"

#include <stdlib.h>

#include "membudget.h"

/* Number of runs of non-zero bytes. */
static size_t count_runs(const unsigned char *mask, int64_t n)
{
    size_t runs = 0;
    int64_t i;
    for (i = 0; i < n; i++)
        runs += mask[i] != 0 && (i == 0 || mask[i - 1] == 0);
    return runs;
}

kvg_elem_run *kvg_cli_mask_runs(const unsigned char *mask, int64_t n,
                                size_t *count)
{
    size_t cap = count_runs(mask, n), k = 0;
    size_t bytes = (cap ? cap : 1) * sizeof(kvg_elem_run);
    kvg_elem_run *runs;
    int64_t i = 0;
    kvg_diag diag;

    *count = 0;
    if (kvg_mem_reserve(bytes, "the written runs", &diag) != KVG_OK)
        return NULL;
    if ((runs = (kvg_elem_run *)malloc(bytes)) == NULL) {
        kvg_mem_release(bytes);
        return NULL;
    }
    while (i < n) {
        int64_t j;
        if (mask[i] == 0) {
            i++;
            continue;
        }
        for (j = i; j < n && mask[j] != 0; j++)
            ;
        runs[k].first = i;
        runs[k].count = j - i;
        k++;
        i = j;
    }
    *count = k;
    return runs;
}

void kvg_cli_runs_free(kvg_elem_run *runs, size_t count)
{
    if (runs == NULL)
        return;
    free(runs);
    kvg_mem_release((count ? count : 1) * sizeof(kvg_elem_run));
}
