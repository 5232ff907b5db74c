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

kvg_scan_call *kvg_scan_list_push(kvg_scan_list *l, kvg_diag *diag)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        kvg_scan_call *p;
        if (cap > SIZE_MAX / sizeof *p ||
            (p = (kvg_scan_call *)realloc(l->calls, cap * sizeof *p)) ==
                NULL) {
            kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                         "out of memory listing %lu calls",
                         (unsigned long)l->count);
            return NULL;
        }
        l->calls = p;
        l->cap = cap;
    }
    memset(&l->calls[l->count], 0, sizeof l->calls[0]);
    l->calls[l->count].inputs_after = NULL; /* a null pointer, not bytes */
    return &l->calls[l->count++];
}

kvg_scan_later *kvg_scan_list_later(kvg_scan_list *l, kvg_diag *diag)
{
    if (l->n_later == l->cap_later) {
        size_t cap = l->cap_later ? l->cap_later * 2 : 16;
        kvg_scan_later *p;
        if (cap > SIZE_MAX / sizeof *p ||
            (p = (kvg_scan_later *)realloc(l->later, cap * sizeof *p)) ==
                NULL) {
            kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                         "out of memory keeping %lu later inputs",
                         (unsigned long)l->n_later);
            return NULL;
        }
        l->later = p;
        l->cap_later = cap;
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
