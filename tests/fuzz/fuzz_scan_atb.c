/*
 * tests/fuzz/fuzz_scan_atb.c - kvgold scan's ATB tensor header parser on
 * arbitrary bytes (the input is a whole .bin file): it accepts or refuses
 * with a message, and what it accepts lies inside the file.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvg_scan_arg a;
    kvg_diag diag;
    size_t head = size < 4096 ? size : 4096;

    memset(&a, 0, sizeof a);
    kvg_diag_clear(&diag);
    if (kvg_scan_atb_header(data, head, size, "fuzz.bin", &a, &diag) ==
        KVG_OK) {
        if (a.offset > size || a.nbytes != size - a.offset)
            abort();
    } else if (diag.message[0] == '\0') {
        abort();
    }
    return 0;
}
