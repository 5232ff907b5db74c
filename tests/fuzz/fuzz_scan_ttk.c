/*
 * tests/fuzz/fuzz_scan_ttk.c - kvgold scan's ops-test-kit file-name parser
 * on arbitrary names: it accepts or declines, and what it accepts has a
 * role, an index and a rank in range.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[256];
    kvg_scan_arg a;
    char role = 0;
    int index = -1;

    if (size >= sizeof name)
        size = sizeof name - 1;
    memcpy(name, data, size);
    name[size] = '\0';
    if (kvg_scan_ttk_name(name, &role, &index, &a)) {
        if (strchr("isgo", role) == NULL || role == '\0' || index < 0 ||
            index > 4096 || a.rank < -1 || a.rank > KVG_MAX_RANK)
            abort();
    }
    return 0;
}
