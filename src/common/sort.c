/*
 * src/common/sort.c - sorting of key/position pairs (src/common/heapsort.h),
 * duplicate search, and the unique-index check the operators' index
 * validation shares (unique slots, unique blocks).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/internal.h"

#include "src/common/heapsort.h"

static int less(const kvg_i_keypos *a, const kvg_i_keypos *b)
{
    return a->key < b->key || (a->key == b->key && a->pos < b->pos);
}

KVG_I_HEAPSORT(heapsort_keypos, kvg_i_keypos, less)

void kvg_i_sort_keypos(kvg_i_keypos *v, size_t n)
{
    heapsort_keypos(v, n);
}

int kvg_i_find_duplicate(kvg_i_keypos *v, size_t n, int64_t *key,
                         int64_t *first, int64_t *second)
{
    size_t i, run = 0; /* v[run] starts the current run of equal keys */
    int found = 0;

    kvg_i_sort_keypos(v, n);
    for (i = 1; i < n; i++) {
        if (v[i].key != v[run].key) {
            run = i;
            continue;
        }
        /* Sorted by position within the run: v[run] is the earliest. */
        if (!found || v[i].pos < *second) {
            *key = v[i].key;
            *first = v[run].pos;
            *second = v[i].pos;
            found = 1;
        }
    }
    return found;
}

kvg_status kvg_i_check_unique(const kvg_i_unique *u, kvg_i_keypos *keys,
                              kvg_diag *diag)
{
    size_t n = 0;
    int64_t i, key, first, second;

    for (i = 0; i < u->n; i++) {
        const int64_t v = kvg_i_index_at(u->index, i);
        if (v < 0 && u->negative != NULL)
            return u->negative(u->ctx, i, v, diag);
        if (v < 0)
            continue; /* skipped, like the kernels: any negative value */
        if (v >= u->limit)
            return u->out_of_range(u->ctx, i, v, diag);
        keys[n].key = u->key_of != NULL ? u->key_of(u->ctx, i, v) : v;
        keys[n].pos = i;
        n++;
    }
    if (kvg_i_find_duplicate(keys, n, &key, &first, &second))
        return u->repeated(u->ctx, key, first, second, diag);
    return KVG_OK;
}
