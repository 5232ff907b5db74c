/*
 * tests/test_format_vectors.c - the C codecs equal the NumPy generator's
 * tables in vectors/formats/ bit for bit (file layout: docs/formats.md and
 * tools/gen/kvgen/cases_formats.py):
 *
 *   - the decode of every code of fp16, bf16, fp8_e4m3fn, fp8_e5m2, hif8
 *     and int8, through the per-format function and kvg_decode_f32;
 *   - the encode of every input of the boundary and random lists in every
 *     overflow mode (DEFAULT compared with the documented default's file),
 *     through the per-format function and kvg_encode_f32, the latter into a
 *     poisoned slot to show it writes exactly one element;
 *   - docs/formats.md embeds the generated 256-code HiF8 table verbatim;
 *   - FP4 E2M1: the 16 decodes and every input in the three rounding
 *     modes; E8M0: the 256 decodes and every amax under each of the 12
 *     rule/payload cases (refusals included).
 *
 * Usage: test_format_vectors DOCS_FORMATS_MD   (vectors: $KVG_VECTORS_DIR)
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/npy.h"

static const char *g_docs;

typedef struct blob {
    unsigned char *bytes; /* whole file */
    size_t size;
} blob;

static blob read_file(const char *path)
{
    blob b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    size_t cap = 0, got;

    if (f == NULL)
        fail_msg("cannot open %s", path);
    for (;;) {
        if (b.size == cap) {
            unsigned char *p;
            cap = cap ? cap * 2 : 65536;
            p = (unsigned char *)realloc(b.bytes, cap);
            if (p == NULL)
                fail_msg("out of memory reading %s", path);
            b.bytes = p;
        }
        got = fread(b.bytes + b.size, 1, cap - b.size, f);
        b.size += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return b;
}

/* A 1-D table from vectors/formats/<name>.npy with the given descr. */
typedef struct table {
    blob file;
    const unsigned char *data;
    size_t count, item;
} table;

static table load(const char *name, const char *descr, size_t item)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    char path[2048];
    kvg_npy_info info;
    kvg_diag diag;
    table t;

    if (root == NULL)
        fail_msg("KVG_VECTORS_DIR is not set");
    (void)snprintf(path, sizeof path, "%s/formats/%s", root, name);
    t.file = read_file(path);
    if (kvg_npy_parse(t.file.bytes, t.file.size, &info, &diag) != KVG_OK)
        fail_msg("%s: %s", path, diag.message);
    if (strcmp(info.descr, descr) != 0 || info.rank != 1)
        fail_msg("%s: descr %s rank %d, want %s rank 1", path, info.descr,
                 info.rank, descr);
    t.data = t.file.bytes + info.data_offset;
    t.count = (size_t)info.shape[0];
    t.item = item;
    assert_int_equal(info.data_bytes, t.count * item);
    return t;
}

static void unload(table *t) { free(t->file.bytes); }

/* Element k, little-endian, as an unsigned integer. */
static uint32_t at(const table *t, size_t k)
{
    const unsigned char *p = t->data + k * t->item;
    uint32_t v = 0;
    size_t i;
    for (i = t->item; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* ---- formats ------------------------------------------------------------ */

typedef struct fmt {
    const char *name;
    kvg_dtype dtype;
    int bits;
    const char *code_descr;
    const char *default_file; /* "sat" or "nonsat" */
} fmt;

static const fmt k_fmt[] = {
    {"fp16", KVG_FP16, 16, "<u2", "nonsat"},
    {"bf16", KVG_BF16, 16, "<u2", "nonsat"},
    {"fp8_e4m3fn", KVG_FP8_E4M3FN, 8, "|u1", "sat"},
    {"fp8_e5m2", KVG_FP8_E5M2, 8, "|u1", "sat"},
    {"hif8", KVG_HIF8, 8, "|u1", "sat"},
    {"int8", KVG_INT8, 8, "|i1", NULL},
};

static uint32_t c_decode(const fmt *f, uint32_t code)
{
    switch (f->dtype) {
    case KVG_FP16: return kvg_f32_bits(kvg_fp16_to_f32((uint16_t)code));
    case KVG_BF16: return kvg_f32_bits(kvg_bf16_to_f32((uint16_t)code));
    case KVG_FP8_E4M3FN:
        return kvg_f32_bits(kvg_fp8e4m3fn_to_f32((uint8_t)code));
    case KVG_FP8_E5M2:
        return kvg_f32_bits(kvg_fp8e5m2_to_f32((uint8_t)code));
    case KVG_HIF8: return kvg_f32_bits(kvg_hif8_to_f32((uint8_t)code));
    default: break;
    }
    fail_msg("no per-format decoder for %s", f->name);
    return 0;
}

static uint32_t c_encode(const fmt *f, float x, kvg_overflow mode)
{
    switch (f->dtype) {
    case KVG_FP16: return kvg_f32_to_fp16(x, mode);
    case KVG_BF16: return kvg_f32_to_bf16(x, mode);
    case KVG_FP8_E4M3FN: return kvg_f32_to_fp8e4m3fn(x, mode);
    case KVG_FP8_E5M2: return kvg_f32_to_fp8e5m2(x, mode);
    case KVG_HIF8: return kvg_f32_to_hif8(x, mode);
    case KVG_INT8: return (uint8_t)kvg_f32_to_int8(x);
    default: break;
    }
    fail_msg("no encoder for %s", f->name);
    return 0;
}

/* Code of one element written by kvg_encode_f32 into a poisoned slot;
 * fails if it wrote past the element. */
static uint32_t generic_encode(const fmt *f, float x, kvg_overflow mode)
{
    unsigned char slot[8], before[8];
    const size_t size = kvg_dtype_size(f->dtype);
    uint16_t h;
    kvg_status st;

    kvgt_poison(slot, sizeof slot, kvg_f32_bits(x));
    memcpy(before, slot, sizeof slot);
    st = kvg_encode_f32(f->dtype, x, mode, slot);
    assert_int_equal(st, KVG_OK);
    kvgt_assert_bytes_equal(slot + size, before + size, sizeof slot - size,
                            "bytes after the encoded element");
    if (size == 2) {
        memcpy(&h, slot, 2);
        return h;
    }
    return slot[0];
}

static void test_decode(void **state)
{
    const fmt *f = (const fmt *)*state;
    char name[64];
    table t;
    uint32_t code;

    (void)snprintf(name, sizeof name, "%s_decode.npy", f->name);
    t = load(name, "<f4", 4);
    assert_int_equal(t.count, (size_t)1 << f->bits);
    for (code = 0; code < (1u << f->bits); code++) {
        const uint32_t want = at(&t, code);
        const uint16_t h = (uint16_t)code;
        unsigned char src[2];
        float v;
        uint32_t got;
        if (f->bits == 16)
            memcpy(src, &h, 2); /* kvg_decode_f32 reads host order */
        else
            src[0] = (unsigned char)code;
        assert_int_equal(kvg_decode_f32(f->dtype, src, &v), KVG_OK);
        if (kvg_f32_bits(v) != want)
            fail_msg("%s code 0x%X: kvg_decode_f32 gives 0x%08X, NumPy "
                     "0x%08X", f->name, (unsigned)code,
                     (unsigned)kvg_f32_bits(v), (unsigned)want);
        if (f->dtype == KVG_INT8)
            continue;
        got = c_decode(f, code);
        if (got != want)
            fail_msg("%s code 0x%X decodes to 0x%08X, NumPy 0x%08X", f->name,
                     (unsigned)code, (unsigned)got, (unsigned)want);
    }
    unload(&t);
}

static void compare_mode(const fmt *f, const table *in, const table *want,
                         kvg_overflow mode, const char *label)
{
    size_t k, bad = 0;
    assert_int_equal(in->count, want->count);
    for (k = 0; k < in->count; k++) {
        const uint32_t u = at(in, k);
        const float x = kvg_f32_from_bits(u);
        const uint32_t w = at(want, k);
        const uint32_t got = c_encode(f, x, mode);
        const uint32_t gen = generic_encode(f, x, mode);
        if (got != w || gen != w) {
            if (bad < 8)
                fprintf(stderr, "%s %s: input %lu 0x%08X (%.9g): got 0x%X "
                        "(generic 0x%X), NumPy 0x%X\n", f->name, label,
                        (unsigned long)k, (unsigned)u, (double)x,
                        (unsigned)got, (unsigned)gen, (unsigned)w);
            bad++;
        }
    }
    if (bad != 0)
        fail_msg("%s %s: %lu of %lu inputs differ from the NumPy vectors",
                 f->name, label, (unsigned long)bad,
                 (unsigned long)in->count);
}

static void test_encode(void **state)
{
    const fmt *f = (const fmt *)*state;
    const size_t item = f->bits / 8u;
    char name[64];
    table in, sat, nonsat;

    (void)snprintf(name, sizeof name, "%s_encode_input.npy", f->name);
    in = load(name, "<f4", 4);
    assert_true(in.count > 1000);
    if (f->dtype == KVG_INT8) {
        sat = load("int8_encode.npy", "|i1", 1);
        compare_mode(f, &in, &sat, KVG_OVF_DEFAULT, "(int8)");
        unload(&sat);
        unload(&in);
        return;
    }
    (void)snprintf(name, sizeof name, "%s_encode_sat.npy", f->name);
    sat = load(name, f->code_descr, item);
    (void)snprintf(name, sizeof name, "%s_encode_nonsat.npy", f->name);
    nonsat = load(name, f->code_descr, item);
    compare_mode(f, &in, &sat, KVG_OVF_SATURATE, "SATURATE");
    compare_mode(f, &in, &nonsat, KVG_OVF_NONSAT, "NONSAT");
    compare_mode(f, &in, strcmp(f->default_file, "sat") == 0 ? &sat : &nonsat,
                 KVG_OVF_DEFAULT, "DEFAULT");
    unload(&nonsat);
    unload(&sat);
    unload(&in);
}

/* docs/formats.md shows exactly the table the generator wrote. */
static void test_docs_table(void **state)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    char path[2048];
    blob doc, tab;
    size_t k;
    int found = 0;

    (void)state;
    assert_non_null(root);
    (void)snprintf(path, sizeof path, "%s/formats/hif8_table.md", root);
    tab = read_file(path);
    doc = read_file(g_docs);
    assert_true(tab.size > 128 * 40); /* 128 rows of text */
    for (k = 0; !found && k + tab.size <= doc.size; k++)
        found = memcmp(doc.bytes + k, tab.bytes, tab.size) == 0;
    free(tab.bytes);
    free(doc.bytes);
    if (!found)
        fail_msg("%s does not contain %s verbatim; paste the regenerated "
                 "table into the document", g_docs, path);
}

/* ---- FP4 E2M1 and E8M0 (generator: tools/gen/kvgen/formats_mx.py) ------- */

static void test_fp4_vectors(void **state)
{
    static const char *const modes[3] = {"rint", "floor", "round"};
    static const kvg_fp4_round enums[3] = {KVG_FP4_RINT, KVG_FP4_FLOOR,
                                           KVG_FP4_ROUND};
    table dec = load("fp4_e2m1_decode.npy", "<f4", 4);
    table in = load("fp4_e2m1_encode_input.npy", "<f4", 4);
    size_t k;
    int m, bad = 0;
    (void)state;
    assert_int_equal(dec.count, 16);
    for (k = 0; k < 16; k++)
        assert_int_equal(kvg_f32_bits(kvg_fp4e2m1_to_f32((uint8_t)k)),
                         at(&dec, k));
    for (m = 0; m < 3; m++) {
        char name[64];
        table want;
        (void)snprintf(name, sizeof name, "fp4_e2m1_encode_%s.npy", modes[m]);
        want = load(name, "|u1", 1);
        assert_int_equal(want.count, in.count);
        for (k = 0; k < in.count; k++) {
            const uint8_t got = kvg_f32_to_fp4e2m1(
                kvg_f32_from_bits(at(&in, k)), enums[m], KVG_FP4_NAN_ZERO);
            if (got != at(&want, k) && bad++ < 8)
                fprintf(stderr, "fp4 %s: input 0x%08X: got 0x%X, NumPy "
                        "0x%X\n", modes[m], (unsigned)at(&in, k), got,
                        (unsigned)at(&want, k));
        }
        unload(&want);
    }
    unload(&dec);
    unload(&in);
    if (bad)
        fail_msg("fp4: %d codes differ from the NumPy generator", bad);
}

static void test_e8m0_vectors(void **state)
{
    static const struct {
        const char *file;
        kvg_e8m0_rule rule;
        kvg_dtype payload;
    } cases[] = {
        {"e8m0_ocp_e2m1.npy", KVG_E8M0_OCP, KVG_FP4_E2M1},
        {"e8m0_ocp_e1m2.npy", KVG_E8M0_OCP, KVG_FP4_E1M2},
        {"e8m0_ocp_e4m3fn.npy", KVG_E8M0_OCP, KVG_FP8_E4M3FN},
        {"e8m0_ocp_e5m2.npy", KVG_E8M0_OCP, KVG_FP8_E5M2},
        {"e8m0_cublas_e4m3fn.npy", KVG_E8M0_CUBLAS, KVG_FP8_E4M3FN},
        {"e8m0_cublas_e5m2.npy", KVG_E8M0_CUBLAS, KVG_FP8_E5M2},
        {"e8m0_ceil_e4m3fn.npy", KVG_E8M0_CEIL, KVG_FP8_E4M3FN},
        {"e8m0_ceil_e5m2.npy", KVG_E8M0_CEIL, KVG_FP8_E5M2},
        {"e8m0_ebump_e4m3fn.npy", KVG_E8M0_EBUMP, KVG_FP8_E4M3FN},
        {"e8m0_ebump_e5m2.npy", KVG_E8M0_EBUMP, KVG_FP8_E5M2},
        {"e8m0_trunc_e4m3fn.npy", KVG_E8M0_TRUNC, KVG_FP8_E4M3FN},
        {"e8m0_trunc_e5m2.npy", KVG_E8M0_TRUNC, KVG_FP8_E5M2},
    };
    table dec = load("e8m0_decode.npy", "<f4", 4);
    table amax = load("e8m0_amax.npy", "<f4", 4);
    size_t c, k;
    int bad = 0;
    (void)state;
    assert_int_equal(dec.count, 256);
    for (k = 0; k < 256; k++) /* 0xFF: both the quiet NaN 0x7FC00000 */
        assert_int_equal(kvg_f32_bits(kvg_e8m0_to_f32((uint8_t)k)),
                         at(&dec, k));
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        table want = load(cases[c].file, "<i2", 2);
        assert_int_equal(want.count, amax.count);
        for (k = 0; k < amax.count; k++) {
            uint8_t code = 0xA5;
            const kvg_status st = kvg_e8m0_from_amax(
                cases[c].rule, cases[c].payload,
                kvg_f32_from_bits(at(&amax, k)), &code);
            /* -1 (0xFFFF): refused, code untouched */
            const uint32_t got = st == KVG_OK ? code
                                 : code == 0xA5 ? 0xFFFFu : 0x1A5u;
            if (got != at(&want, k) && bad++ < 8)
                fprintf(stderr, "%s: amax 0x%08X: got 0x%X, NumPy 0x%X\n",
                        cases[c].file, (unsigned)at(&amax, k),
                        (unsigned)got, (unsigned)at(&want, k));
        }
        unload(&want);
    }
    unload(&dec);
    unload(&amax);
    if (bad)
        fail_msg("e8m0: %d codes differ from the NumPy generator", bad);
}

int main(int argc, char **argv)
{
    enum { NF = sizeof k_fmt / sizeof k_fmt[0] };
    static char names[2 * NF][48];
    struct CMUnitTest tests[2 * NF + 3];
    size_t i;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DOCS_FORMATS_MD\n", argv[0]);
        return 2;
    }
    g_docs = argv[1];
    memset(tests, 0, sizeof tests);
    for (i = 0; i < NF; i++) {
        (void)snprintf(names[2 * i], sizeof names[0], "decode.%s",
                       k_fmt[i].name);
        (void)snprintf(names[2 * i + 1], sizeof names[0], "encode.%s",
                       k_fmt[i].name);
        tests[2 * i].name = names[2 * i];
        tests[2 * i].test_func = test_decode;
        tests[2 * i].initial_state = (void *)&k_fmt[i];
        tests[2 * i + 1].name = names[2 * i + 1];
        tests[2 * i + 1].test_func = test_encode;
        tests[2 * i + 1].initial_state = (void *)&k_fmt[i];
    }
    tests[2 * NF].name = "docs.hif8_table";
    tests[2 * NF].test_func = test_docs_table;
    tests[2 * NF + 1].name = "fp4_e2m1";
    tests[2 * NF + 1].test_func = test_fp4_vectors;
    tests[2 * NF + 2].name = "e8m0";
    tests[2 * NF + 2].test_func = test_e8m0_vectors;
    return _cmocka_run_group_tests("format.vectors", tests, 2 * NF + 3, NULL,
                                   NULL);
}
