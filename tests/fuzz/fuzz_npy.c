/*
 * tests/fuzz/fuzz_npy.c - the .npy parser on arbitrary bytes: it must
 * either accept (and then describe data that lies inside the buffer) or
 * refuse with KVG_ERR_FILE_FORMAT, never read outside the buffer.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvg_npy_info info;
    kvg_diag diag;
    kvg_status st;
    /* A private copy, so ASan sees the exact extent of the input. */
    uint8_t *copy = (uint8_t *)malloc(size ? size : 1);

    if (copy == NULL)
        return 0;
    if (size)
        memcpy(copy, data, size);
    st = kvg_npy_parse(copy, size, &info, &diag);
    if (st == KVG_OK) {
        volatile uint8_t sink = 0;
        size_t i;
        /* The claimed data must be inside the buffer: touch every byte. */
        if (info.data_offset > size || info.data_bytes > size - info.data_offset)
            abort();
        for (i = 0; i < info.data_bytes; i++)
            sink ^= copy[info.data_offset + i];
        (void)sink;
    } else if (st != KVG_ERR_FILE_FORMAT || diag.message[0] == '\0') {
        abort(); /* every refusal is a format error with a message */
    }
    free(copy);
    return 0;
}
