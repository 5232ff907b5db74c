/*
 * tests/test_row_codecs.c - the row conversions of src/kernels, the
 * operators' inner loops, against the format codecs, bit for bit.
 *
 * src/kernels/quant.c has row loops of its own for bf16, fp16, int8,
 * e4m3fn and e5m2 (for speed; docs/performance.md). Their contract is to
 * be the codec of kvgold/format.h element by element, with every NaN
 * written as the format's canonical NaN (docs/architecture.md). The
 * codecs themselves are proven against an independent reference by
 * test_format_sweep; this test proves the row loops equal to the codecs.
 *
 *   test_row_codecs                  cmocka: every 16-bit code through the
 *                                    loaders; the encoders on every
 *                                    rounding boundary of every format and
 *                                    a sample of all binary32 patterns;
 *                                    chunking, scale and offset steps;
 *                                    nothing written past the row
 *   test_row_codecs sweep FMT [STRIDE]
 *                                    every STRIDE-th (default: every)
 *                                    binary32 pattern through the encoder
 *                                    of FMT (int8, bf16, fp16, fp8_e4m3fn,
 *                                    fp8_e5m2), saturating and not (the
 *                                    row loops see the mode only as that
 *                                    flag; which flag KVG_OVF_DEFAULT
 *                                    means per format is checked on every
 *                                    boundary by the cmocka tests)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/kernels/kernels.h"

#define CHUNK 4096u

static const kvg_overflow k_modes[3] = {KVG_OVF_DEFAULT, KVG_OVF_SATURATE,
                                        KVG_OVF_NONSAT};

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t u_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* What an operator must store for x: the canonical NaN, or the codec. */
static kvg_status canonical_or_codec(kvg_dtype dt, float x, kvg_overflow ovf,
                                     unsigned char *out)
{
    static const unsigned char f32_nan[4] = {0x00, 0x00, 0xC0, 0x7F};
    uint16_t h;
    if (x == x)
        return kvg_encode_f32(dt, x, ovf, out);
    switch (dt) {
    case KVG_FP16:
        h = 0x7E00;
        memcpy(out, &h, 2);
        break;
    case KVG_BF16:
        h = 0x7FC0;
        memcpy(out, &h, 2);
        break;
    case KVG_FP32:
        memcpy(out, f32_nan, 4);
        break;
    case KVG_FP8_E4M3FN:
        out[0] = 0x7F;
        break;
    case KVG_FP8_E5M2:
        out[0] = 0x7E;
        break;
    case KVG_HIF8:
        out[0] = 0x80;
        break;
    default:
        out[0] = 0x00;
        break;
    }
    return KVG_OK;
}

static void ref_code(kvg_dtype dt, float x, kvg_overflow ovf,
                     unsigned char *out)
{
    assert_int_equal(canonical_or_codec(dt, x, ovf, out), KVG_OK);
}

/* Encode x[0..n) with kvg_i_store_row and element by element with the
 * codec; returns the number of mismatches (the first few printed). */
static size_t check_store(kvg_dtype dt, kvg_overflow ovf, const float *x,
                          size_t n, unsigned char *got, unsigned char *want)
{
    const size_t es = kvg_dtype_size(dt);
    size_t i, bad = 0;

    kvg_i_store_row(dt, x, n, ovf, got);
    for (i = 0; i < n; i++)
        ref_code(dt, x[i], ovf, want + i * es);
    if (memcmp(got, want, n * es) == 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (memcmp(got + i * es, want + i * es, es) == 0)
            continue;
        if (bad++ < 4)
            print_error("%s mode %d: x = %a (0x%08X): row loop gives "
                        "0x%02X%02X, codec 0x%02X%02X\n",
                        kvg_dtype_name(dt), (int)ovf, (double)x[i],
                        (unsigned)u_of(x[i]),
                        es > 1 ? got[i * es + 1] : 0, got[i * es],
                        es > 1 ? want[i * es + 1] : 0, want[i * es]);
    }
    return bad;
}

/* ---- loaders --------------------------------------------------------- */

static void test_load_16bit_codes(void **state)
{
    static const kvg_dtype dts[2] = {KVG_FP16, KVG_BF16};
    unsigned char *raw = (unsigned char *)malloc(2 * 65536 + 1);
    float *got = (float *)malloc(sizeof(float) * 65536);
    int d;
    uint32_t c;

    (void)state;
    assert_non_null(raw);
    assert_non_null(got);
    for (d = 0; d < 2; d++) {
        /* one byte in: the rows of a tensor need not be aligned */
        for (c = 0; c < 65536; c++) {
            const uint16_t h = (uint16_t)c;
            memcpy(raw + 1 + 2 * c, &h, 2);
        }
        kvgt_poison(got, sizeof(float) * 65536, 7 + (uint64_t)d);
        kvg_i_load_row(dts[d], raw + 1, 65536, got);
        for (c = 0; c < 65536; c++) {
            float want;
            assert_int_equal(kvg_decode_f32(dts[d], raw + 1 + 2 * c, &want),
                             KVG_OK);
            if (u_of(got[c]) != u_of(want))
                fail_msg("%s code 0x%04X: row loop 0x%08X, codec 0x%08X",
                         kvg_dtype_name(dts[d]), (unsigned)c,
                         (unsigned)u_of(got[c]), (unsigned)u_of(want));
        }
    }
    free(raw);
    free(got);
}

/* fp32 rows are copied bit for bit (NaN payloads and signalling NaNs
 * included); the 8-bit formats go through the codec. */
static void test_load_other_dtypes(void **state)
{
    static const kvg_dtype dts[5] = {KVG_FP32, KVG_INT8, KVG_FP8_E4M3FN,
                                     KVG_FP8_E5M2, KVG_HIF8};
    unsigned char raw[4 * 256 + 3];
    float got[256];
    int d;
    size_t i;

    (void)state;
    for (d = 0; d < 5; d++) {
        const size_t es = kvg_dtype_size(dts[d]);
        kvgt_poison(raw, sizeof raw, 40 + (uint64_t)d);
        if (es == 1)
            for (i = 0; i < 256; i++)
                raw[3 + i] = (unsigned char)i;
        else /* a quiet and a signalling NaN with payloads */
            memcpy(raw + 3, "\x01\x00\xC0\xFF\x01\x00\x80\x7F", 8);
        kvg_i_load_row(dts[d], raw + 3, 256, got);
        for (i = 0; i < 256; i++) {
            float want;
            assert_int_equal(kvg_decode_f32(dts[d], raw + 3 + i * es, &want),
                             KVG_OK);
            assert_int_equal(u_of(got[i]), u_of(want));
        }
    }
}

/* ---- encoders -------------------------------------------------------- */

/* The value of a magnitude code (stored as the codec reads it). */
static float code_value(kvg_dtype dt, uint32_t code)
{
    unsigned char b[2];
    const uint16_t h = (uint16_t)code;
    float v;
    if (kvg_dtype_size(dt) == 2)
        memcpy(b, &h, 2);
    else
        b[0] = (unsigned char)code;
    (void)kvg_decode_f32(dt, b, &v);
    return v;
}

/* Values around every rounding boundary of a format: each finite code's
 * value, the midpoint to the next code (exact in binary32: at most 12
 * significant bits) and the binary32 neighbours of both, with both signs;
 * int8 gets the integers and half-integers of [-130, 130]. */
static size_t boundary_values(kvg_dtype dt, float *v, size_t cap)
{
    const uint32_t codes = kvg_dtype_size(dt) == 2 ? 0x8000u : 0x80u;
    size_t n = 0;
    uint32_t c;
    int k, s;

    if (dt == KVG_INT8) {
        for (k = -260; k <= 260 && n + 3 <= cap; k++) {
            const float h = (float)k * 0.5f;
            v[n++] = h;
            v[n++] = nextafterf(h, INFINITY);
            v[n++] = nextafterf(h, -INFINITY);
        }
        return n;
    }
    for (c = 0; c + 1 < codes && n + 12 <= cap; c++) {
        float va = code_value(dt, c), vb = code_value(dt, c + 1), mid;
        if (!isfinite(va))
            continue;
        mid = isfinite(vb) ? (float)(((double)va + (double)vb) / 2.0)
                           : va * 1.0625f; /* past max: overflow region */
        for (s = 0; s < 2; s++) {
            const float sg = s ? -1.0f : 1.0f;
            v[n++] = sg * va;
            v[n++] = sg * nextafterf(va, INFINITY);
            v[n++] = sg * nextafterf(va, 0.0f);
            v[n++] = sg * mid;
            v[n++] = sg * nextafterf(mid, INFINITY);
            v[n++] = sg * nextafterf(mid, 0.0f);
        }
    }
    return n;
}

static const kvg_dtype k_enc[6] = {KVG_INT8, KVG_BF16, KVG_FP16,
                                   KVG_FP8_E4M3FN, KVG_FP8_E5M2, KVG_HIF8};

static void test_store_boundaries(void **state)
{
    const size_t cap = 12 * 0x8000u + 64;
    float *v = (float *)malloc(sizeof(float) * cap);
    unsigned char *got = (unsigned char *)malloc(2 * cap);
    unsigned char *want = (unsigned char *)malloc(2 * cap);
    size_t n, bad = 0;
    int d, m;

    (void)state;
    assert_true(v != NULL && got != NULL && want != NULL);
    for (d = 0; d < 6; d++) {
        n = boundary_values(k_enc[d], v, cap - 8);
        /* the specials: +-0, +-inf, NaNs of both signs with payloads,
         * the binary32 subnormal edges, FLT_MAX */
        v[n++] = 0.0f, v[n++] = -0.0f, v[n++] = INFINITY;
        v[n++] = -INFINITY, v[n++] = f_of(0x7FC00001u);
        v[n++] = f_of(0xFF800001u), v[n++] = f_of(0x00000001u);
        v[n++] = f_of(0x807FFFFFu);
        for (m = 0; m < 3; m++)
            bad += check_store(k_enc[d], k_modes[m], v, n, got, want);
    }
    free(v);
    free(got);
    free(want);
    assert_int_equal(bad, 0);
}

/* Every 65521st binary32 pattern (about 65 000, all exponents). */
static void test_store_sampled_patterns(void **state)
{
    float x[CHUNK];
    unsigned char got[2 * CHUNK], want[2 * CHUNK];
    size_t bad = 0;
    int d, m;

    (void)state;
    for (d = 0; d < 6; d++)
        for (m = 0; m < 3; m++) {
            uint64_t u = 0;
            while (u <= 0xFFFFFFFFull) {
                size_t n = 0;
                for (; n < CHUNK && u <= 0xFFFFFFFFull; u += 65521)
                    x[n++] = f_of((uint32_t)u);
                bad += check_store(k_enc[d], k_modes[m], x, n, got, want);
            }
        }
    assert_int_equal(bad, 0);
}

/* kvg_i_quantize_row: z = x op s[j*ss], z = z + o[j*os], then the codec;
 * rows longer than the kernel's chunk, per-channel and broadcast scales
 * and offsets, both ops; no byte past the row is written. */
static void test_quantize_steps(void **state)
{
    static const size_t lens[7] = {1, 31, 32, 255, 256, 257, 600};
    float x[600], sc[600], of[600];
    unsigned char got[2 * 600 + 16], want[2 * 600];
    kvgt_rng rng;
    int d, li, ss, os, op, withoff;

    (void)state;
    kvgt_rng_seed(&rng, 99);
    for (li = 0; li < 600; li++) {
        x[li] = kvgt_rng_unit(&rng) * 300.0f;
        sc[li] = 0.01f + 4.0f * (kvgt_rng_unit(&rng) + 1.0f);
        of[li] = kvgt_rng_unit(&rng) * 20.0f;
    }
    x[7] = f_of(0x7FC00000u); /* NaN in, canonical NaN out */
    x[300] = INFINITY;
    for (d = 0; d < 6; d++)
        for (li = 0; li < 7; li++)
            for (ss = 0; ss < 2; ss++)
                for (os = 0; os < 2; os++)
                    for (withoff = 0; withoff < 2; withoff++)
                        for (op = 0; op < 2; op++) {
                            const kvg_dtype dt = k_enc[d];
                            const size_t n = lens[li];
                            const size_t es = kvg_dtype_size(dt);
                            size_t j;
                            kvgt_poison(got, sizeof got, 5);
                            kvg_i_quantize_row(
                                x, n, sc, (size_t)ss, withoff ? of : NULL,
                                (size_t)os, (kvg_i_scale_op)op, dt,
                                KVG_OVF_DEFAULT, got);
                            for (j = 0; j < n; j++) {
                                float z = x[j];
                                const float s = sc[j * (size_t)ss];
                                z = op == KVG_I_SCALE_DIV ? z / s : z * s;
                                if (withoff)
                                    z = z + of[j * (size_t)os];
                                ref_code(dt, z, KVG_OVF_DEFAULT,
                                         want + j * es);
                            }
                            kvgt_assert_bytes_equal(got, want, n * es,
                                                    kvg_dtype_name(dt));
                            /* the poison after the row is intact */
                            {
                                unsigned char ref[sizeof got];
                                kvgt_poison(ref, sizeof ref, 5);
                                kvgt_assert_bytes_equal(
                                    got + n * es, ref + n * es,
                                    sizeof got - n * es, "past the row");
                            }
                        }
}

/* kvg_i_norm_quantize_row is RmsNorm's second half and the quantiser in
 * one kernel: z = ((x / rms) * g) (* s[j*ss]) (+ o[j*os]), then the codec,
 * each operation rounded once in that order (spec 1.3, 1.5) - computed
 * here element by element from that definition. Every encoder, rows
 * around the chunk size, scale absent / broadcast / per channel, offset
 * absent / broadcast / per channel; NaN, inf and values that overflow
 * in the scaling; nothing written past the row. */
static void test_norm_quantize_row(void **state)
{
    static const size_t lens[] = {1, 31, 256, 257, 512, 600};
    static const float rmss[] = {0.37109375f, 3.0f, 1e-20f};
    /* the encoders, and fp32, which shows every bit of z */
    static const kvg_dtype dts[7] = {KVG_FP32,       KVG_INT8,
                                     KVG_BF16,       KVG_FP16,
                                     KVG_FP8_E4M3FN, KVG_FP8_E5M2,
                                     KVG_HIF8};
    float x[600], g[600], sc[600], of[600];
    unsigned char got[4 * 600 + 16], want[4 * 600], ref[sizeof got];
    kvgt_rng rng;
    size_t d, li, ri, j;
    int ss, os;

    (void)state;
    kvgt_rng_seed(&rng, 4242);
    for (j = 0; j < 600; j++) {
        x[j] = kvgt_rng_unit(&rng) * 40.0f;
        g[j] = 0.25f + (kvgt_rng_unit(&rng) + 1.0f);
        sc[j] = 0.01f + 4.0f * (kvgt_rng_unit(&rng) + 1.0f);
        of[j] = kvgt_rng_unit(&rng) * 20.0f;
    }
    x[7] = f_of(0x7FC00000u);
    x[300] = -INFINITY;
    g[9] = 3e38f; /* (x/rms)*g overflows to inf */
    kvgt_poison(ref, sizeof ref, 6);
    for (d = 0; d < 7; d++)
        for (li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (ri = 0; ri < sizeof rmss / sizeof rmss[0]; ri++)
                for (ss = -1; ss < 2; ss++)
                    for (os = -1; os < 2; os++) {
                        const kvg_dtype dt = dts[d];
                        const size_t n = lens[li], es = kvg_dtype_size(dt);
                        const float rms = rmss[ri];
                        kvgt_poison(got, sizeof got, 6);
                        kvg_i_norm_quantize_row(
                            x, n, rms, g, ss < 0 ? NULL : sc,
                            ss < 0 ? 0 : (size_t)ss, os < 0 ? NULL : of,
                            os < 0 ? 0 : (size_t)os, dt, KVG_OVF_DEFAULT,
                            got);
                        for (j = 0; j < n; j++) {
                            float z = (x[j] / rms) * g[j];
                            if (ss >= 0)
                                z = z * sc[j * (size_t)ss];
                            if (os >= 0)
                                z = z + of[j * (size_t)os];
                            ref_code(dt, z, KVG_OVF_DEFAULT, want + j * es);
                        }
                        kvgt_assert_bytes_equal(got, want, n * es,
                                                kvg_dtype_name(dt));
                        kvgt_assert_bytes_equal(got + n * es, ref + n * es,
                                                sizeof got - n * es,
                                                "past the row");
                    }
}

/* ---- the exhaustive sweep (label exhaustive) -------------------------- */

static int parse_format(const char *s, kvg_dtype *dt)
{
    static const kvg_dtype all[5] = {KVG_INT8, KVG_BF16, KVG_FP16,
                                     KVG_FP8_E4M3FN, KVG_FP8_E5M2};
    int i;
    for (i = 0; i < 5; i++)
        if (strcmp(s, kvg_dtype_name(all[i])) == 0) {
            *dt = all[i];
            return 1;
        }
    return 0;
}

/* The row loop of pass m: kvg_i_store_row in each overflow mode; for
 * int8 also kvg_i_quantize_row with a per-channel scale of 1 (x * 1 and
 * x / 1 are x, NaN stays NaN), which takes the one-pass loops of the
 * common int8 cache row instead of store_row's: the multiplying one and
 * the dividing one on alternate chunks (`odd`), so each sees half of the
 * patterns and the sweep's time stays that of two passes. */
static void sweep_pass(kvg_dtype dt, int m, int odd, const float *x,
                       size_t n, unsigned char *got)
{
    static float ones[CHUNK];
    size_t i;

    if (dt == KVG_INT8 && m == 1) {
        for (i = 0; i < n; i++)
            ones[i] = 1.0f;
        kvg_i_quantize_row(x, n, ones, 1, NULL, 0,
                           odd ? KVG_I_SCALE_DIV : KVG_I_SCALE_MUL, dt,
                           KVG_OVF_SATURATE, got);
        return;
    }
    kvg_i_store_row(dt, x, n, k_modes[m + 1], got);
}

/* canonical_or_codec on x[0..n), with the dtype switch of
 * kvg_encode_f32 (src/format/codec.c: one codec call per dtype) taken once
 * per row instead of once per element: the same codec calls, the same
 * bytes, in loops the compiler keeps tight (a switch per element cost
 * ~10 %). A NaN takes canonical_or_codec itself. */
static void codec_row(kvg_dtype dt, const float *x, size_t n,
                      kvg_overflow mode, unsigned char *want)
{
    const size_t es = kvg_dtype_size(dt);
    size_t i;
    uint16_t h;
#define NAN_OR(code_stmt)                                                   \
    for (i = 0; i < n; i++) {                                               \
        if (x[i] != x[i])                                                   \
            (void)canonical_or_codec(dt, x[i], mode, want + i * es);        \
        else {                                                              \
            code_stmt;                                                      \
        }                                                                   \
    }
    switch (dt) {
    case KVG_FP16:
        NAN_OR(h = kvg_f32_to_fp16(x[i], mode); memcpy(want + 2 * i, &h, 2))
        break;
    case KVG_BF16:
        NAN_OR(h = kvg_f32_to_bf16(x[i], mode); memcpy(want + 2 * i, &h, 2))
        break;
    case KVG_FP8_E4M3FN:
        NAN_OR(want[i] = kvg_f32_to_fp8e4m3fn(x[i], mode))
        break;
    case KVG_FP8_E5M2:
        NAN_OR(want[i] = kvg_f32_to_fp8e5m2(x[i], mode))
        break;
    case KVG_INT8:
        NAN_OR(want[i] = (unsigned char)kvg_f32_to_int8(x[i]))
        break;
    default: /* not swept: the generic path */
        NAN_OR((void)canonical_or_codec(dt, x[i], mode, want + i * es))
        break;
    }
#undef NAN_OR
}

/* Outside cmocka (its asserts need a test context): reports itself. Each
 * chunk of patterns goes through both passes while it is in cache. */
static int sweep(kvg_dtype dt, uint64_t stride)
{
    static float x[CHUNK];
    static uint32_t bits[CHUNK];
    static unsigned char got[2 * CHUNK], want[2 * CHUNK];
    const size_t es = kvg_dtype_size(dt);
    const int modes = 2; /* int8: store_row, then the scaled row loop */
    uint64_t u, bad = 0, seen = 0;
    int m;

    for (u = 0; u <= 0xFFFFFFFFull;) {
        const uint64_t left = (0xFFFFFFFFull - u) / stride + 1;
        const size_t n = left < CHUNK ? (size_t)left : CHUNK;
        size_t i;
        /* the next n patterns, in a loop the compiler vectorises */
        for (i = 0; i < n; i++)
            bits[i] = (uint32_t)(u + (uint64_t)i * stride);
        memcpy(x, bits, n * sizeof *x);
        u += (uint64_t)n * stride;
        for (m = 0; m < modes; m++) {
            /* SATURATE, NONSAT; int8 saturates in both passes */
            const kvg_overflow mode =
                dt == KVG_INT8 ? KVG_OVF_SATURATE : k_modes[m + 1];
            sweep_pass(dt, m, (int)((u / stride / CHUNK) & 1u), x, n, got);
            codec_row(dt, x, n, mode, want);
            seen += n;
            if (memcmp(got, want, n * es) == 0)
                continue;
            for (i = 0; i < n; i++)
                if (memcmp(got + i * es, want + i * es, es) != 0 &&
                    bad++ < 8)
                    fprintf(stderr, "%s mode %d: 0x%08X: row loop 0x%02X%02X,"
                                    " codec 0x%02X%02X\n",
                            kvg_dtype_name(dt), (int)mode,
                            (unsigned)u_of(x[i]),
                            es > 1 ? got[i * es + 1] : 0, got[i * es],
                            es > 1 ? want[i * es + 1] : 0, want[i * es]);
        }
    }
    printf("%s: %llu patterns x %d passes, %llu mismatches\n",
           kvg_dtype_name(dt), (unsigned long long)(seen / (uint64_t)modes),
           modes, (unsigned long long)bad);
    return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_16bit_codes),
        cmocka_unit_test(test_load_other_dtypes),
        cmocka_unit_test(test_store_boundaries),
        cmocka_unit_test(test_store_sampled_patterns),
        cmocka_unit_test(test_quantize_steps),
        cmocka_unit_test(test_norm_quantize_row),
    };
    if (argc >= 3 && strcmp(argv[1], "sweep") == 0) {
        kvg_dtype dt;
        unsigned long long stride = argc >= 4 ? strtoull(argv[3], NULL, 10)
                                              : 1;
        if (!parse_format(argv[2], &dt) || stride == 0) {
            fprintf(stderr, "usage: test_row_codecs sweep int8|bf16|fp16|"
                            "fp8_e4m3fn|fp8_e5m2 [STRIDE]\n");
            return 2;
        }
        return sweep(dt, stride);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
