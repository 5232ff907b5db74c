/*
 * src/kernels/quant.c - per-channel quantisation of one row and the
 * fp16/bf16 row conversions (spec 1.5).
 *
 * The scale is applied as one rounded binary32 operation, then the offset as
 * a second one, then the value is narrowed once: z = fl(fl(x op s) + o).
 * Whether `op` divides or multiplies is the operator's (its page in docs/
 * says which), and x/s is not x*(1/s).
 *
 * A NaN is written as the target's canonical NaN (positive, quiet: fp16
 * 0x7E00, bf16 0x7FC0, fp32 0x7FC00000, e4m3fn 0x7F, e5m2 0x7E, hif8 0x80;
 * int8 0). IEEE 754 leaves the sign and payload of a NaN produced by
 * arithmetic to the platform (x86 makes 0xFFC00000, ARM 0x7FC00000), so
 * without this an operator's output bits would depend on the machine the
 * oracle runs on. The format codecs themselves keep sign and payload.
 *
 * Speed (docs/performance.md). The rows are the operators' inner loops, so
 * the dtype is dispatched once per row, not per element, and the common
 * formats have row loops the compiler can vectorise: bf16 and fp16 widen
 * with integer bit moves; int8, bf16, fp16, e4m3fn and e5m2 narrow with the
 * classic exact integer round-to-nearest-even on the binary32 bit pattern,
 * with the subnormal range rounded by one binary32 addition of a power of
 * two whose ulp is the target's subnormal quantum (exact RNE in the default
 * rounding mode the library requires). Each is the same function as the
 * format codec (kvgold/format.h) on every non-NaN input; test_row_codecs
 * proves it over all 2^32 binary32 patterns (label exhaustive) and every
 * 16-bit code. Other formats (hif8) use the codec per element.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/bits.h"
#include "src/common/dtype_size.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/kernels.h"
#include "src/kernels/narrow.h"
#include "src/kernels/widen.h"

/* Rows are processed in chunks of this many scaled values (stack scratch;
 * the library does not allocate). */
#define KVG_I_CHUNK 256u

/* ---- widening ------------------------------------------------------------ */

static void load_bf16(const unsigned char *restrict p, size_t n,
                      float *restrict dst)
{
    size_t j;
    for (j = 0; j < n; j++) {
        uint16_t h;
        memcpy(&h, p + 2 * j, 2);
        dst[j] = kvg_i_bf16_value(h);
    }
}

static void load_fp16(const unsigned char *p, size_t n, float *dst)
{
    size_t j;
    for (j = 0; j < n; j++) {
        uint16_t h;
        memcpy(&h, p + 2 * j, 2);
        dst[j] = kvg_i_fp16_value(h);
    }
}

KVG_I_ROW_KERNEL
void kvg_i_load_row(kvg_dtype dtype, const void *src, size_t n, float *dst)
{
    const unsigned char *p = (const unsigned char *)src;
    const size_t size = kvg_i_dtype_size(dtype);
    size_t j;

    switch (dtype) {
    case KVG_BF16:
        load_bf16(p, n, dst);
        return;
    case KVG_FP16:
        load_fp16(p, n, dst);
        return;
    case KVG_FP32:
        memcpy(dst, p, n * sizeof *dst);
        return;
    default:
        for (j = 0; j < n; j++)
            (void)kvg_decode_f32(dtype, p + j * size, &dst[j]);
        return;
    }
}

/* ---- narrowing: the codec's result, every NaN as the canonical NaN -------- */

/* The narrowing loops select on bit patterns, for the reason widen.h
 * gives. */

/*
 * RNE to int8 with saturation. Clamping before rounding gives the same
 * result (everything above 127 rounds or saturates to 127, everything
 * below -128 to -128), and it is done on the bit pattern read as a signed
 * int32: positive values order as their patterns, so min(u, pattern of
 * 127) limits them; negative ones order the other way (-0 is INT32_MIN,
 * -inf and the negative NaNs are near -1), so min(u, pattern of -128) is
 * what limits their magnitude to 128. Adding 1.5 * 2^23 then rounds to an
 * integer (that binade's ulp is 1) and leaves it, two's complement, in the
 * low bits of the sum: its low byte is the int8 code. NaN -> 0: its
 * clamped pattern is masked to +0 before the addition, whose low byte is
 * then 0. Signed compares only (SSE2 has no unsigned one), and the mask
 * applied to the pattern, not to the sum, so the compiler folds it into
 * the select: this form is 20-36% faster per int8 row than the earlier
 * magnitude-and-sign one, at every ISA level (docs/performance.md), and
 * gives the same code for all 2^32 inputs (test_row_codecs' sweep).
 */
KVG_I_IN_EVERY_CLONE
static inline unsigned char int8_code(float z)
{
    const int32_t u = (int32_t)kvg_i_bits(z);
    const int32_t lim = u < 0 ? -0x3D000000 /* 0xC3000000, -128.0f */
                              : 0x42FE0000; /* 127.0f */
    const int32_t m = u < lim ? u : lim;
    const int32_t keep = -(int32_t)(z == z); /* not NaN */
    return (unsigned char)kvg_i_bits(kvg_i_float((uint32_t)(m & keep)) +
                                     12582912.0f);
}

static void enc_int8(const float *restrict z, size_t n,
                     unsigned char *restrict out)
{
    size_t j;
    for (j = 0; j < n; j++)
        out[j] = int8_code(z[j]);
}

/* The common int8 cache row, a per-channel scale and no offset, in one
 * pass: out[j] = int8(x[j] * s[j]) (or x[j] / s[j]), no binary32 chunk
 * in between. The row, its scale and its output never overlap
 * (validation refuses an output that overlaps an input; x is the
 * workspace). */
KVG_I_IN_EVERY_CLONE
static inline void quant_int8(const float *restrict x,
                              const float *restrict s, size_t n, int div,
                              unsigned char *restrict out)
{
    size_t j;
    if (div)
        for (j = 0; j < n; j++)
            out[j] = int8_code(x[j] / s[j]);
    else
        for (j = 0; j < n; j++)
            out[j] = int8_code(x[j] * s[j]);
}

/* The same row normalised first: int8(((x[j] / rms) * gamma[j]) * s[j]). */
KVG_I_IN_EVERY_CLONE
static inline void norm_quant_int8_mul(const float *restrict x, size_t n,
                                       float rms,
                                       const float *restrict gamma,
                                       const float *restrict s,
                                       unsigned char *restrict out)
{
    size_t j;
    for (j = 0; j < n; j++)
        out[j] = int8_code(((x[j] / rms) * gamma[j]) * s[j]);
}

/* An IEEE-style 8-bit format: M mantissa bits, bias B, largest finite
 * magnitude code `max`, and what overflow gives without saturation. */
typedef struct fmt8 {
    int m, bias;
    uint32_t max, over, nan;
} fmt8;

/* Below 2^(1-B) round on the subnormal grid 2^(1-B-M) by adding the power
 * of two whose ulp that is (2^(24-B-M)); above, rebias and RNE on the low
 * 23-M bits. A result past `max` (or inf) overflows. */
KVG_I_IN_EVERY_CLONE
static inline uint8_t fp8_code(const fmt8 *f, float v, int sat)
{
    const uint32_t u = kvg_i_bits(v);
    const uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu;
    const int shift = 23 - f->m;
    const uint32_t min_normal = (uint32_t)(128 - f->bias) << 23;
    const uint32_t magic = (uint32_t)(151 - f->bias - f->m) << 23;
    const uint32_t over = sat ? f->max : f->over;
    const uint32_t small = a < min_normal ? a : min_normal;
    const uint32_t sub = kvg_i_bits(kvg_i_float(small) + kvg_i_float(magic)) - magic;
    const uint32_t big = a < min_normal ? min_normal : a;
    uint32_t o = (big - ((uint32_t)(127 - f->bias) << 23) +
                  ((1u << (shift - 1)) - 1u) + ((big >> shift) & 1u)) >> shift;

    o = kvg_i_pick(kvg_i_mask_if(a < min_normal), sub, o);
    o = o > f->max ? over : o;
    return kvg_i_nan_bits(u) ? (uint8_t)f->nan : (uint8_t)(sign | o);
}

static const fmt8 k_e4m3fn = {3, 7, 0x7Eu, 0x7Fu, 0x7Fu};
static const fmt8 k_e5m2 = {2, 15, 0x7Bu, 0x7Cu, 0x7Eu};

static void store_canonical_nan(kvg_dtype dtype, unsigned char *dst)
{
    static const unsigned char f32_nan[4] = {0x00, 0x00, 0xC0, 0x7F};
    switch (dtype) {
    case KVG_FP16:
        dst[0] = 0x00, dst[1] = 0x7E;
        break;
    case KVG_BF16:
        dst[0] = 0xC0, dst[1] = 0x7F;
        break;
    case KVG_FP32:
        memcpy(dst, f32_nan, 4);
        break;
    case KVG_FP8_E4M3FN:
        dst[0] = 0x7F;
        break;
    case KVG_FP8_E5M2:
        dst[0] = 0x7E;
        break;
    case KVG_HIF8:
        dst[0] = 0x80;
        break;
    default: /* int8: the codec's NaN -> 0 */
        dst[0] = 0x00;
        break;
    }
}

/* Narrow n values (NaN -> canonical) into dst, one dispatch per call. */
KVG_I_IN_EVERY_CLONE
static inline void encode_values(kvg_dtype dtype, kvg_overflow overflow,
                                 const float *z, size_t n, unsigned char *out)
{
    const int sat = kvg_i_saturates(dtype, overflow);
    const size_t size = kvg_i_dtype_size(dtype);
    size_t j;

    switch (dtype) {
    case KVG_INT8:
        enc_int8(z, n, out);
        return;
    case KVG_BF16:
    case KVG_FP16:
        kvg_i_narrow16_row(dtype, sat, z, n, out);
        return;
    case KVG_FP8_E4M3FN:
        for (j = 0; j < n; j++)
            out[j] = fp8_code(&k_e4m3fn, z[j], sat);
        return;
    case KVG_FP8_E5M2:
        for (j = 0; j < n; j++)
            out[j] = fp8_code(&k_e5m2, z[j], sat);
        return;
    default:
        for (j = 0; j < n; j++) {
            if (z[j] != z[j])
                store_canonical_nan(dtype, out + j * size);
            else
                (void)kvg_encode_f32(dtype, z[j], overflow, out + j * size);
        }
        return;
    }
}

/* z = x (op) s for n values: per channel (step 1) and broadcast (step 0)
 * get their own loops, which the compiler can vectorise. */
KVG_I_IN_EVERY_CLONE
static inline void scale_values(const float *x, size_t n, const float *s,
                                size_t ss, kvg_i_scale_op op, float *z)
{
    const int div = op == KVG_I_SCALE_DIV;
    size_t j;

    if (s == NULL) {
        memcpy(z, x, n * sizeof *z);
    } else if (ss == 1) {
        if (div)
            for (j = 0; j < n; j++)
                z[j] = x[j] / s[j];
        else
            for (j = 0; j < n; j++)
                z[j] = x[j] * s[j];
    } else if (ss == 0) {
        const float v = s[0];
        if (div)
            for (j = 0; j < n; j++)
                z[j] = x[j] / v;
        else
            for (j = 0; j < n; j++)
                z[j] = x[j] * v;
    } else {
        for (j = 0; j < n; j++)
            z[j] = div ? x[j] / s[j * ss] : x[j] * s[j * ss];
    }
}

/* z = z + o, the same way. */
KVG_I_IN_EVERY_CLONE
static inline void offset_values(float *z, size_t n, const float *o,
                                 size_t os)
{
    size_t j;

    if (os == 1) {
        for (j = 0; j < n; j++)
            z[j] = z[j] + o[j];
    } else if (os == 0) {
        const float v = o[0];
        for (j = 0; j < n; j++)
            z[j] = z[j] + v;
    } else {
        for (j = 0; j < n; j++)
            z[j] = z[j] + o[j * os];
    }
}

KVG_I_ROW_KERNEL
void kvg_i_quantize_row(const float *x, size_t n, const float *scale,
                        size_t scale_step, const float *offset,
                        size_t offset_step, kvg_i_scale_op op, kvg_dtype dtype,
                        kvg_overflow overflow, void *dst)
{
    unsigned char *out = (unsigned char *)dst;
    const size_t size = kvg_i_dtype_size(dtype);
    float z[KVG_I_CHUNK];
    size_t j0;

    if (scale == NULL && offset == NULL) {
        encode_values(dtype, overflow, x, n, out);
        return;
    }
    if (dtype == KVG_INT8 && scale_step == 1 && offset == NULL) {
        quant_int8(x, scale, n, op == KVG_I_SCALE_DIV, out);
        return;
    }
    for (j0 = 0; j0 < n; j0 += KVG_I_CHUNK) {
        const size_t m = n - j0 < KVG_I_CHUNK ? n - j0 : KVG_I_CHUNK;
        scale_values(x + j0, m, scale ? scale + j0 * scale_step : NULL,
                     scale_step, op, z);
        if (offset != NULL)
            offset_values(z, m, offset + j0 * offset_step, offset_step);
        encode_values(dtype, overflow, z, m, out + j0 * size);
    }
}

/* z = (x / rms) * gamma for n values (the RmsNorm of spec 1.3), then the
 * scale (KVG_I_SCALE_MUL) in the same loop when it is per channel. */
KVG_I_IN_EVERY_CLONE
static inline void norm_values(const float *restrict x, size_t n,
                               float rms, const float *restrict gamma,
                               const float *restrict s, size_t ss,
                               float *restrict z)
{
    size_t j;

    if (s != NULL && ss == 1) {
        for (j = 0; j < n; j++)
            z[j] = ((x[j] / rms) * gamma[j]) * s[j];
        return;
    }
    for (j = 0; j < n; j++)
        z[j] = (x[j] / rms) * gamma[j];
    if (s != NULL)
        scale_values(z, n, s, ss, KVG_I_SCALE_MUL, z);
}

/* Chunk by chunk, so the normalised row never exists in full: the chunk
 * stays in L1 between its passes (measured: docs/performance.md). */
KVG_I_ROW_KERNEL
void kvg_i_norm_quantize_row(const float *x, size_t n, float rms,
                             const float *gamma, const float *scale,
                             size_t scale_step, const float *offset,
                             size_t offset_step, kvg_dtype dtype,
                             kvg_overflow overflow, void *dst)
{
    unsigned char *out = (unsigned char *)dst;
    const size_t size = kvg_i_dtype_size(dtype);
    float z[KVG_I_CHUNK];
    size_t j0;

    if (dtype == KVG_INT8 && scale != NULL && scale_step == 1 &&
        offset == NULL) {
        norm_quant_int8_mul(x, n, rms, gamma, scale, out);
        return;
    }
    for (j0 = 0; j0 < n; j0 += KVG_I_CHUNK) {
        const size_t m = n - j0 < KVG_I_CHUNK ? n - j0 : KVG_I_CHUNK;
        norm_values(x + j0, m, rms, gamma + j0,
                    scale ? scale + j0 * scale_step : NULL, scale_step, z);
        if (offset != NULL)
            offset_values(z, m, offset + j0 * offset_step, offset_step);
        encode_values(dtype, overflow, z, m, out + j0 * size);
    }
}

KVG_I_ROW_KERNEL
void kvg_i_store_row(kvg_dtype dtype, const float *src, size_t n,
                     kvg_overflow overflow, void *dst)
{
    encode_values(dtype, overflow, src, n, (unsigned char *)dst);
}
