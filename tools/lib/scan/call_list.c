/*
 * tools/lib/scan/call_list.c - the list of dumped calls the readers fill,
 * and the formats' names. Below the readers and the engine.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

static const char *const k_format_names[KVG_SCAN_FORMATS] = {
    "auto", "msprobe", "atb", "cann", "ttk"};

const char *kvg_scan_format_name(kvg_scan_format f)
{
    return (unsigned)f < KVG_SCAN_FORMATS ? k_format_names[f] : "?";
}

int kvg_scan_format_from_name(const char *name, kvg_scan_format *f)
{
    int i;
    for (i = 0; i < KVG_SCAN_FORMATS; i++)
        if (strcmp(name, k_format_names[i]) == 0) {
            *f = (kvg_scan_format)i;
            return 1;
        }
    return 0;
}

/* Room for one more of `count` items of `size` bytes in *items (cap
 * *cap), doubling; 0 if memory ran out (*items unchanged). */
static int grow(void **items, size_t *cap, size_t count, size_t size)
{
    size_t n = *cap ? *cap * 2 : 16;
    void *p;
    if (count < *cap)
        return 1;
    if (n > SIZE_MAX / size || (p = realloc(*items, n * size)) == NULL)
        return 0;
    *items = p;
    *cap = n;
    return 1;
}

kvg_scan_call *kvg_scan_list_push(kvg_scan_list *l, kvg_diag *diag)
{
    void *calls = l->calls;
    int ok = grow(&calls, &l->cap, l->count, sizeof l->calls[0]);
    l->calls = (kvg_scan_call *)calls;
    if (!ok) {
        kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                     "out of memory listing %lu calls",
                     (unsigned long)l->count);
        return NULL;
    }
    memset(&l->calls[l->count], 0, sizeof l->calls[0]);
    l->calls[l->count].inputs_after = NULL; /* a null pointer, not bytes */
    return &l->calls[l->count++];
}

kvg_scan_later *kvg_scan_list_later(kvg_scan_list *l, kvg_diag *diag)
{
    void *later = l->later;
    int ok = grow(&later, &l->cap_later, l->n_later, sizeof l->later[0]);
    l->later = (kvg_scan_later *)later;
    if (!ok) {
        kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                     "out of memory keeping %lu later inputs",
                     (unsigned long)l->n_later);
        return NULL;
    }
    memset(&l->later[l->n_later], 0, sizeof l->later[0]);
    l->later[l->n_later].before = l->count;
    return &l->later[l->n_later++];
}

void kvg_scan_list_free(kvg_scan_list *l)
{
    free(l->calls);
    free(l->later);
    memset(l, 0, sizeof *l);
}
