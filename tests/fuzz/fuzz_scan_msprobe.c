/*
 * tests/fuzz/fuzz_scan_msprobe.c - kvgold scan's msprobe dump.json reader
 * (the scanner of "data" members and each call's arguments) on arbitrary
 * text, without reading tensor files: it lists calls or refuses with a
 * message, never reading outside the text; then composes chains and reads
 * missing caches back from later records, as kvg_scan_read does.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvg_scan_list l;
    kvg_diag diag;
    char *copy = (char *)malloc(size ? size : 1);
    size_t i;

    if (copy == NULL)
        return 0;
    /* an exact-size copy: ASan sees any read past the text */
    memcpy(copy, data, size);
    memset(&l, 0, sizeof l);
    kvg_diag_clear(&diag);
    if (kvg_scan_msprobe_text(copy, size, ".", "", 0, &l, &diag) !=
            KVG_OK &&
        diag.message[0] == '\0')
        abort();
    if (kvg_scan_compose(&l, &diag) == KVG_OK)
        kvg_scan_read_back(&l);
    for (i = 0; i < l.count; i++)
        if (l.calls[i].n_in > KVG_SCAN_MAX_ARGS ||
            l.calls[i].n_out > KVG_SCAN_MAX_ARGS)
            abort();
    kvg_scan_list_free(&l);
    free(copy);
    return 0;
}
