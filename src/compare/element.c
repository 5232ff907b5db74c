/*
 * src/compare/element.c - one element's value, its place on an 8-bit
 * format's value line, and its ULP error (kvgold/compare.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/compare/compare_internal.h"

int kvg_i_cmp_is_int(kvg_dtype dt)
{
    return dt == KVG_INT8 || dt == KVG_INT32 || dt == KVG_INT64 ||
           dt == KVG_UINT8 || dt == KVG_INT16 || dt == KVG_UINT16 ||
           dt == KVG_UINT32;
}

int kvg_i_cmp_is_code(kvg_dtype dt)
{
    return dt == KVG_FP8_E4M3FN || dt == KVG_FP8_E5M2 || dt == KVG_HIF8 ||
           dt == KVG_FP4_E2M1;
}

int kvg_i_cmp_has_ranks(kvg_dtype dt)
{
    return kvg_i_cmp_is_code(dt) || dt == KVG_E8M0;
}

int kvg_i_cmp_codes_per_element(kvg_dtype dt)
{
    return kvg_dtype_is_fp4(dt) ? 2 : 1;
}

/* e8m0: a relative error or a cosine of power-of-two scales says nothing
 * about the error the scale causes in its block (one binade moves every
 * payload code); fp4_e1m2: kvgold has no decoder, so there are no values. */
int kvg_i_cmp_values_apply(kvg_dtype dt)
{
    return dt != KVG_E8M0 && dt != KVG_FP4_E1M2;
}

/* The value of one code of a 1-byte float format, or of the low nibble of
 * `code` for packed fp4_e2m1; NaN where there is none (e8m0 0xFF, and
 * fp4_e1m2, which kvgold cannot decode). */
static double code_value(kvg_dtype dt, unsigned char code)
{
    float f = 0.0f;

    if (dt == KVG_FP4_E2M1)
        return (double)kvg_fp4e2m1_to_f32(code);
    if (dt == KVG_FP4_E1M2 || kvg_decode_f32(dt, &code, &f) != KVG_OK)
        return NAN;
    return (double)f;
}

uint64_t kvg_i_cmp_raw_bits(const unsigned char *p, size_t size)
{
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;

    switch (size) {
    case 1: memcpy(&b8, p, 1); return b8;
    case 2: memcpy(&b16, p, 2); return b16;
    case 4: memcpy(&b32, p, 4); return b32;
    default: memcpy(&b64, p, 8); return b64;
    }
}

void kvg_i_cmp_load(kvg_dtype dt, size_t size, const unsigned char *p,
                    kvg_i_elem *e)
{
    float f = 0.0f;

    e->bits = kvg_i_cmp_raw_bits(p, size);
    e->iv = 0;
    if (dt == KVG_INT8) {
        int8_t v;
        memcpy(&v, p, 1);
        e->iv = v;
    } else if (dt == KVG_INT32) {
        int32_t v;
        memcpy(&v, p, 4);
        e->iv = v;
    } else if (dt == KVG_INT64) {
        memcpy(&e->iv, p, 8);
    } else if (dt == KVG_INT16) {
        int16_t v;
        memcpy(&v, p, 2);
        e->iv = v;
    } else if (dt == KVG_UINT8 || dt == KVG_UINT16 || dt == KVG_UINT32) {
        e->iv = (int64_t)e->bits; /* zero-extended raw bits */
    }
    if (kvg_i_cmp_is_int(dt)) {
        e->v = (double)e->iv;
        e->cls = KVG_I_CLS_FINITE;
        return;
    }
    (void)kvg_decode_f32(dt, p, &f); /* dtype validated by the caller */
    e->v = (double)f;
    e->cls = isnan(e->v)   ? KVG_I_CLS_NAN
             : isinf(e->v) ? KVG_I_CLS_INF
                           : KVG_I_CLS_FINITE;
}

void kvg_i_cmp_load_at(kvg_dtype dt, size_t esize, const unsigned char *base,
                       int64_t index, kvg_i_elem *e)
{
    unsigned char byte;

    if (kvg_i_cmp_codes_per_element(dt) == 1) {
        kvg_i_cmp_load(dt, esize, base + (size_t)index * esize, e);
        return;
    }
    /* packed fp4: code `index` is nibble index & 1 of byte index / 2 (low
     * nibble first, kvg_fp4_unpack); it has no NaN or inf. fp4_e1m2 has no
     * decoder: its code number stands in, and only bitwise judges it. */
    byte = base[(size_t)(index / 2)];
    e->bits = kvg_fp4_unpack(byte, (unsigned)(index & 1));
    e->iv = 0;
    e->v = dt == KVG_FP4_E2M1 ? code_value(dt, (unsigned char)e->bits)
                              : (double)e->bits;
    e->cls = KVG_I_CLS_FINITE;
}

/*
 * The value-line rank of every code of an 8-bit float format (fp8, hif8,
 * e8m0, whose rank is its code: the distance is in binades) or of fp4_e2m1
 * (codes 0..15; a byte's rank is its low nibble's): the number of
 * distinct non-NaN values below the code's value. Equal values share a rank
 * (-0 and +0), so the distance between two codes is the number of
 * representable values one must step over. The int8 view ttk uses is not
 * monotonic for sign-magnitude codes (and HiF8's code order interleaves
 * binades), which this avoids. Built per call: 256^2 comparisons, no state.
 */
void kvg_i_cmp_build_ranks(kvg_dtype dt, int rank[256])
{
    double v[256];
    unsigned char first[256];
    int c, d;

    for (c = 0; c < 256; c++)
        v[c] = code_value(dt, (unsigned char)c); /* fp4: the low nibble */
    for (c = 0; c < 256; c++) {
        first[c] = !isnan(v[c]);
        for (d = 0; d < c && first[c]; d++)
            if (v[d] == v[c])
                first[c] = 0;
    }
    for (c = 0; c < 256; c++) {
        rank[c] = 0;
        if (isnan(v[c]))
            continue;
        for (d = 0; d < 256; d++)
            if (first[d] && v[d] < v[c])
                rank[c]++;
    }
}

uint64_t kvg_i_cmp_int_delta(const kvg_i_elem *want, const kvg_i_elem *got,
                             int *negative)
{
    *negative = got->iv < want->iv;
    return *negative ? (uint64_t)want->iv - (uint64_t)got->iv
                     : (uint64_t)got->iv - (uint64_t)want->iv;
}

/*
 * msprobe's ULP (api_accuracy_checker compare/algorithm.py get_ulp_err):
 * ulp(g) = 2^(eb - m), eb = floor(log2|g|) clamped below at the smallest
 * normal exponent emin, m the stored mantissa bits. At g = 0 msprobe takes
 * eb = 0 (an ULP of 2^-m, as at 1.0); kvgold takes emin, the true spacing
 * of the subnormals around 0. The scaling by a power of two is exact.
 */
double kvg_i_cmp_ulp_error(kvg_dtype dt, double g, double abs_diff)
{
    int m, emin, e = 0;

    switch (dt) {
    case KVG_FP16: m = 10; emin = -14; break;
    case KVG_BF16: m = 7; emin = -126; break;
    default: m = 23; emin = -126; break; /* fp32 */
    }
    if (g != 0.0) {
        (void)frexp(g, &e); /* |g| = f * 2^e, f in [0.5, 1) */
        e -= 1;             /* floor(log2|g|) */
    }
    if (g == 0.0 || e < emin)
        e = emin;
    return ldexp(abs_diff, m - e);
}
