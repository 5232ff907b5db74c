/*
 * tests/cli/npy_poke.c - corrupt one element of an .npy file, for the CLI
 * tests: npy_poke FILE ELEMENT XOR_HEX
 * XORs the element's bytes (little-endian) with XOR_HEX, in place; the
 * element size comes from the header's descr. Exit 0 on success.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/npy.h"

int main(int argc, char **argv)
{
    static unsigned char buf[1 << 24];
    kvg_npy_info info;
    kvg_diag diag;
    unsigned long long x;
    long long elem;
    size_t n, size, i;
    FILE *f;

    if (argc != 4) {
        fprintf(stderr, "usage: npy_poke FILE ELEMENT XOR_HEX\n");
        return 2;
    }
    elem = atoll(argv[2]);
    x = strtoull(argv[3], NULL, 16);
    if ((f = fopen(argv[1], "rb")) == NULL)
        return 2;
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (kvg_npy_parse(buf, n, &info, &diag) != KVG_OK) {
        fprintf(stderr, "npy_poke: %s\n", diag.message);
        return 2;
    }
    size = (size_t)(info.descr[2] - '0'); /* '<f2', '|u1', '<i8', ... */
    if (elem < 0 || size == 0 || (size_t)elem >= info.data_bytes / size) {
        fprintf(stderr, "npy_poke: element %lld out of range\n", elem);
        return 2;
    }
    for (i = 0; i < size; i++)
        buf[info.data_offset + (size_t)elem * size + i] ^=
            (unsigned char)(x >> (8 * i));
    if ((f = fopen(argv[1], "wb")) == NULL || fwrite(buf, 1, n, f) != n)
        return 2;
    return fclose(f) == 0 ? 0 : 2;
}
