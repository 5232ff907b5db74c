/*
 * src/kernels/quant.c - per-channel quantisation of one row and the
 * fp16/bf16 row conversions (spec 1.5).
 *
 * The scale is applied as one rounded binary32 operation, then the offset as
 * a second one, then the value is narrowed once: z = fl(fl(x op s) + o).
 * Whether `op` divides or multiplies is the operator's (QkvRmsNormRopeCache
 * divides, KvRmsNormRopeCache multiplies), and x/s is not x*(1/s).
 *
 * A NaN is written as the target's canonical NaN (positive, quiet: fp16
 * 0x7E00, bf16 0x7FC0, fp32 0x7FC00000, e4m3fn 0x7F, e5m2 0x7E, hif8 0x80;
 * int8 0). IEEE 754 leaves the sign and payload of a NaN produced by
 * arithmetic to the platform (x86 makes 0xFFC00000, ARM 0x7FC00000), so
 * without this an operator's output bits would depend on the machine the
 * oracle runs on. The format codecs themselves keep sign and payload.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/kernels.h"

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

void kvg_i_quantize_row(const float *x, size_t n, const float *scale,
                        size_t scale_step, const float *offset,
                        size_t offset_step, kvg_i_scale_op op, kvg_dtype dtype,
                        kvg_overflow overflow, void *dst)
{
    unsigned char *out = (unsigned char *)dst;
    const size_t size = kvg_dtype_size(dtype);
    size_t j;

    for (j = 0; j < n; j++) {
        float z = x[j];
        if (scale != NULL) {
            const float s = scale[j * scale_step];
            z = op == KVG_I_SCALE_DIV ? z / s : z * s;
        }
        if (offset != NULL)
            z = z + offset[j * offset_step];
        if (z != z)
            store_canonical_nan(dtype, out + j * size);
        else
            (void)kvg_encode_f32(dtype, z, overflow, out + j * size);
    }
}

void kvg_i_load_row(kvg_dtype dtype, const void *src, size_t n, float *dst)
{
    const unsigned char *p = (const unsigned char *)src;
    const size_t size = kvg_dtype_size(dtype);
    size_t j;

    for (j = 0; j < n; j++)
        (void)kvg_decode_f32(dtype, p + j * size, &dst[j]);
}

void kvg_i_store_row(kvg_dtype dtype, const float *src, size_t n,
                     kvg_overflow overflow, void *dst)
{
    kvg_i_quantize_row(src, n, NULL, 0, NULL, 0, KVG_I_SCALE_MUL, dtype,
                       overflow, dst);
}
