/*
 * tests/fuzz/fuzz_scan_pt.c - kvgold scan's .pt reader (read_pt.c: the
 * zip archive torch.save writes and its pickle, interpreted, never run)
 * on arbitrary bytes: it accepts or refuses with a message naming the
 * file, and what it accepts is a tensor whose bytes lie inside the file,
 * of the declared dtype, as many as its shape says. Each input is read
 * with no dtype declared, with fp16 declared, and as an ops-test-kit
 * file of hifloat8 (raw-byte payloads allowed).
 *
 * An input that starts as a zip archive does ("PK") is the whole .pt
 * file. Any other input is a pickle: it is wrapped as data.pkl (its
 * CRC-32 right) of an archive that also holds a 256-byte storage "0", so
 * that mutations reach the pickle interpreter instead of stopping at the
 * archive's CRC check.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read_common.h"
#include "read_pt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *data, size_t size, kvg_dtype decl,
                unsigned flags)
{
    kvg_scan_arg a;
    kvg_diag diag;
    uint64_t need;

    memset(&a, 0, sizeof a);
    a.dtype = decl;
    kvg_diag_clear(&diag);
    if (kvg_scan_pt_parse(data, size, size, "fuzz.pt", flags, &a, &diag) ==
        KVG_OK) {
        if (a.kind != KVG_SCAN_TENSOR || a.rank < 0 ||
            a.rank > KVG_MAX_RANK || a.offset > size ||
            a.nbytes > size - a.offset ||
            (decl != KVG_DTYPE_INVALID && a.dtype != decl) ||
            !kvg_scan_nbytes(a.dtype, a.rank, a.shape, &need) ||
            need != a.nbytes)
            abort();
    } else if (diag.message[0] == '\0' ||
               strstr(diag.message, "fuzz.pt") == NULL) {
        abort();
    }
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xFFFFu);
    put16(p + 2, v >> 16);
}

/* A stored zip of f/data.pkl (the pickle) and f/data/0 (256 bytes). */
static uint8_t *wrap(const uint8_t *pkl, size_t n, size_t *out_len)
{
    static const char *const names[2] = {"f/data.pkl", "f/data/0"};
    uint8_t store[256];
    const uint8_t *body[2];
    size_t len[2], i, at = 0, cd_at, total;
    uint32_t offs[2];
    uint8_t *z;

    for (i = 0; i < sizeof store; i++)
        store[i] = (uint8_t)(i * 7 + 1);
    body[0] = pkl;
    len[0] = n;
    body[1] = store;
    len[1] = sizeof store;
    total = 2 * (30 + 10) + n + 256 + 2 * (46 + 10) + 22;
    if ((z = (uint8_t *)calloc(1, total)) == NULL)
        abort();
    for (i = 0; i < 2; i++) {
        size_t nl = strlen(names[i]);
        offs[i] = (uint32_t)at;
        put32(z + at, 0x04034b50u);
        put32(z + at + 14, kvg_scan_pt_crc32(body[i], len[i]));
        put32(z + at + 18, (uint32_t)len[i]);
        put32(z + at + 22, (uint32_t)len[i]);
        put16(z + at + 26, (unsigned)nl);
        memcpy(z + at + 30, names[i], nl);
        if (len[i] != 0)
            memcpy(z + at + 30 + nl, body[i], len[i]);
        at += 30 + nl + len[i];
    }
    cd_at = at;
    for (i = 0; i < 2; i++) {
        size_t nl = strlen(names[i]);
        put32(z + at, 0x02014b50u);
        put32(z + at + 16, kvg_scan_pt_crc32(body[i], len[i]));
        put32(z + at + 20, (uint32_t)len[i]);
        put32(z + at + 24, (uint32_t)len[i]);
        put16(z + at + 28, (unsigned)nl);
        put32(z + at + 42, offs[i]);
        memcpy(z + at + 46, names[i], nl);
        at += 46 + nl;
    }
    put32(z + at, 0x06054b50u);
    put16(z + at + 8, 2);
    put16(z + at + 10, 2);
    put32(z + at + 12, (uint32_t)(at - cd_at));
    put32(z + at + 16, (uint32_t)cd_at);
    *out_len = at + 22;
    return z;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *z = NULL;
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
        one(data, size, KVG_DTYPE_INVALID, 0);
        one(data, size, KVG_FP16, 0);
        one(data, size, KVG_HIF8, KVG_SCAN_PT_TTK_RAW);
        return 0;
    }
    if (size > (1u << 16))
        return 0;
    z = wrap(data, size, &size);
    one(z, size, KVG_DTYPE_INVALID, 0);
    one(z, size, KVG_FP16, 0);
    one(z, size, KVG_HIF8, KVG_SCAN_PT_TTK_RAW);
    free(z);
    return 0;
}
