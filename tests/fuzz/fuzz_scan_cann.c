/*
 * tests/fuzz/fuzz_scan_cann.c - kvgold scan's decoder of a CANN dump file
 * (8-byte length, protobuf DumpData header, payloads) on arbitrary bytes:
 * it accepts or refuses with a message, and every tensor it accepts lies
 * inside the file, after the header, without overlapping the next.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kvg_scan_call c;
    kvg_diag diag;
    uint64_t at = 0;
    int i;

    memset(&c, 0, sizeof c);
    kvg_diag_clear(&diag);
    if (kvg_scan_cann_header(data, size, size, "fuzz.dump", &c, &diag) !=
        KVG_OK) {
        if (diag.message[0] == '\0')
            abort();
        return 0;
    }
    if (c.n_in < 0 || c.n_in > KVG_SCAN_MAX_ARGS || c.n_out < 0 ||
        c.n_out > KVG_SCAN_MAX_ARGS)
        abort();
    /* every payload lies in the file past the length; the outputs follow
     * one another in file order. Inputs placed by OpInput.arg_index are in
     * kernel order, not file order, and a position no input takes is an
     * empty None (read_cann.c place_inputs). */
    for (i = 0; i < c.n_in + c.n_out; i++) {
        const kvg_scan_arg *a = i < c.n_in ? &c.in[i] : &c.out[i - c.n_in];
        if (a->kind == KVG_SCAN_NONE && a->nbytes == 0)
            continue;
        if (a->offset < 8 || a->offset > size || a->nbytes > size - a->offset)
            abort();
        if (i >= c.n_in) {
            if (a->offset < at)
                abort();
            at = a->offset + a->nbytes;
        }
    }
    return 0;
}
