/*
 * src/common/sort.c - heapsort of key/position pairs and duplicate search,
 * for the operators' index checks (unique slots, unique blocks).
 *
 * Heapsort because it needs no memory beyond the array, no recursion and has
 * an O(n log n) worst case: validation cost must not depend on the data.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/internal.h"

static int less(const kvg_i_keypos *a, const kvg_i_keypos *b)
{
    return a->key < b->key || (a->key == b->key && a->pos < b->pos);
}

static void sift_down(kvg_i_keypos *v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        kvg_i_keypos tmp;
        if (child >= n)
            return;
        if (child + 1 < n && less(&v[child], &v[child + 1]))
            child++;
        if (!less(&v[root], &v[child]))
            return;
        tmp = v[root];
        v[root] = v[child];
        v[child] = tmp;
        root = child;
    }
}

void kvg_i_sort_keypos(kvg_i_keypos *v, size_t n)
{
    size_t i;
    if (n < 2)
        return;
    for (i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (i = n - 1; i > 0; i--) {
        kvg_i_keypos tmp = v[0];
        v[0] = v[i];
        v[i] = tmp;
        sift_down(v, 0, i);
    }
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
