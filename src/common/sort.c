/*
 * src/common/sort.c - sorting of key/position pairs (src/common/heapsort.h),
 * duplicate search, and the unique-index check the operators' index
 * validation shares (unique slots, unique blocks).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

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

/* ---- the unique-index check --------------------------------------------
 *
 * Sorting is only needed to name a repeat. Valid calls have none, so the
 * check first decides with a hash set whether there is one (exact either
 * way: the set holds the keys themselves), laid over the `keys` workspace
 * (n key/position pairs are room for 2n keys), and sorts only when there
 * is, to name the pair kvg_i_find_duplicate names. A heapsort of a decode
 * step's slots was 8% of a copy operator's time (docs/performance.md).
 */

/* Probes per key, on average, before the set gives up on keys that
 * collide (built to, or clustered by chance): the check then sorts. */
#define KVG_I_PROBES_PER_KEY 8u

typedef struct key_set {
    uint64_t *slot;      /* key + 1, or 0 for an empty slot */
    uint64_t mask;       /* slots - 1 (a power of two) */
    unsigned shift;      /* 64 - log2(slots) */
    size_t probes_left;
} key_set;

/* A set for up to n keys in the room of n pairs: the largest power of
 * two of slots that fits (more than n, so one is always empty); none
 * when n is 0. */
static void set_init(key_set *s, kvg_i_keypos *room, size_t n)
{
    unsigned bits = 0;

    while (bits < 62 && ((uint64_t)2 << bits) <= (uint64_t)2 * n)
        bits++;
    s->slot = (uint64_t *)(void *)room;
    s->mask = ((uint64_t)1 << bits) - 1u;
    s->shift = 64u - bits;
    s->probes_left = KVG_I_PROBES_PER_KEY * n;
    if (n > 0)
        memset(s->slot, 0, (size_t)(s->mask + 1u) * sizeof *s->slot);
}

/* 0: `key` added; 1: it was there (or the set gave up: the caller
 * sorts, which is right either way). */
static int set_seen(key_set *s, int64_t key)
{
    const uint64_t k = (uint64_t)key + 1u;
    uint64_t i;

    if (key < 0 || s->shift == 64u)
        return 1;
    i = ((uint64_t)key * 0x9E3779B97F4A7C15u) >> s->shift;
    for (;;) {
        if (s->slot[i & s->mask] == 0) {
            s->slot[i & s->mask] = k;
            return 0;
        }
        if (s->slot[i & s->mask] == k || s->probes_left == 0)
            return 1;
        s->probes_left--;
        i++;
    }
}

/* The entries in position order: the first one refused (negative, when
 * negatives are refused, or >= limit) is reported; *repeat is set when
 * some kept key may repeat an earlier one. */
static kvg_status check_values(const kvg_i_unique *u, kvg_i_keypos *room,
                               int *repeat, kvg_diag *diag)
{
    key_set set;
    int64_t i;

    set_init(&set, room, (size_t)u->n);
    *repeat = 0;
    for (i = 0; i < u->n; i++) {
        const int64_t v = kvg_i_index_at(u->index, i);
        if (v < 0 && u->negative != NULL)
            return u->negative(u->ctx, i, v, diag);
        if (v < 0)
            continue; /* skipped, like the kernels: any negative value */
        if (v >= u->limit)
            return u->out_of_range(u->ctx, i, v, diag);
        if (!*repeat)
            *repeat = set_seen(&set,
                               u->key_of != NULL ? u->key_of(u->ctx, i, v)
                                                 : v);
    }
    return KVG_OK;
}

kvg_status kvg_i_check_unique(const kvg_i_unique *u, kvg_i_keypos *keys,
                              kvg_diag *diag)
{
    size_t n = 0;
    int64_t i, key, first, second;
    int repeat;

    KVG_TRY(check_values(u, keys, &repeat, diag));
    if (!repeat)
        return KVG_OK;
    for (i = 0; i < u->n; i++) { /* every value passed check_values */
        const int64_t v = kvg_i_index_at(u->index, i);
        if (v < 0)
            continue;
        keys[n].key = u->key_of != NULL ? u->key_of(u->ctx, i, v) : v;
        keys[n].pos = i;
        n++;
    }
    if (kvg_i_find_duplicate(keys, n, &key, &first, &second))
        return u->repeated(u->ctx, key, first, second, diag);
    return KVG_OK;
}
