/*
 * tests/fuzz/fuzz_scan_ttk.c - kvgold scan's ops-test-kit readers on
 * arbitrary bytes: the case file-name parser (on the first line) accepts
 * or declines, and what it accepts has a role, an index and a rank in
 * range; the testcase CSV parser (on the whole input, e2e or kernel-mode)
 * accepts or says why, and every row it accepts reads back with its
 * slots, ranks, in-place slots (sorted) and attributes in range.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "ttk_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_row(const kvg_ttk_row *r)
{
    int i;
    if (r->n < 0 || r->n > KVG_SCAN_MAX_ARGS || r->n_attrs < 0 ||
        r->n_attrs > KVG_SCAN_MAX_ARGS || r->line < 1 ||
        memchr(r->name, '\0', sizeof r->name) == NULL ||
        memchr(r->api, '\0', sizeof r->api) == NULL ||
        memchr(r->problem, '\0', sizeof r->problem) == NULL)
        abort();
    for (i = 0; i < r->n; i++)
        if (r->slot[i].rank < 0 || r->slot[i].rank > KVG_MAX_RANK ||
            r->slot[i].srank < -1 || r->slot[i].srank > KVG_MAX_RANK ||
            memchr(r->slot[i].dtype, '\0', sizeof r->slot[i].dtype) == NULL)
            abort();
    if (r->n_inplace < -1 || r->n_inplace > KVG_SCAN_MAX_ARGS ||
        (r->kernel != 0 && r->kernel != 1))
        abort();
    for (i = 0; i < r->n_inplace; i++)
        if (r->inplace[i] < 0 || r->inplace[i] >= KVG_SCAN_MAX_ARGS ||
            (i > 0 && r->inplace[i] < r->inplace[i - 1]))
            abort();
    for (i = 0; i < r->n_attrs; i++)
        if (memchr(r->key[i], '\0', sizeof r->key[i]) == NULL ||
            memchr(r->value[i], '\0', sizeof r->value[i]) == NULL ||
            r->value[i][0] == '\0')
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[256];
    const uint8_t *nl = (const uint8_t *)memchr(data, '\n', size);
    size_t first = nl != NULL ? (size_t)(nl - data) : size;
    kvg_scan_arg a;
    char role = 0;
    int index = -1;
    kvg_ttk_csv *t = NULL;
    kvg_diag diag;

    if (first >= sizeof name)
        first = sizeof name - 1;
    memcpy(name, data, first);
    name[first] = '\0';
    if (kvg_scan_ttk_name(name, &role, &index, &a)) {
        if (strchr("isgo", role) == NULL || role == '\0' || index < 0 ||
            index > 4096 || a.rank < -1 || a.rank > KVG_MAX_RANK)
            abort();
    }

    kvg_diag_clear(&diag);
    if (kvg_ttk_csv_parse((const char *)data, size, "fuzz.csv", &t,
                          &diag) == KVG_OK) {
        size_t i, n = kvg_ttk_csv_count(t);
        kvg_ttk_row *row = (kvg_ttk_row *)malloc(sizeof *row);
        if (row == NULL)
            abort();
        for (i = 0; i < n; i++) {
            kvg_ttk_row byname;
            kvg_ttk_csv_row(t, i, row);
            check_row(row);
            if (row->problem[0] == '\0' && strlen(row->name) < 255 &&
                (!kvg_ttk_csv_find(t, row->name, &byname) ||
                 strcmp(byname.name, row->name) != 0))
                abort();
        }
        free(row);
        kvg_ttk_csv_free(t);
    } else if (t != NULL || diag.message[0] == '\0' ||
               strstr(diag.message, "fuzz.csv") == NULL) {
        abort(); /* a refusal always names the file */
    }
    return 0;
}
