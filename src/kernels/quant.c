/*
 * src/kernels/quant.c - per-channel quantisation of one row and the
 * fp16/bf16 row conversions (spec 1.5).
 *
 * The scale is applied as one rounded binary32 operation, then the offset as
 * a second one, then the value is narrowed once: z = fl(fl(x op s) + o).
 * Whether `op` divides or multiplies is the operator's (QkvRmsNormRopeCache
 * divides, KvRmsNormRopeCache multiplies), and x/s is not x*(1/s).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/kernels.h"

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
        (void)kvg_encode_f32(dtype, z, overflow, out + j * size);
    }
}

void kvg_i_load_row(kvg_dtype dtype, const void *src, size_t n, float *dst)
{
    const unsigned char *p = (const unsigned char *)src;
    const size_t size = kvg_dtype_size(dtype);
    size_t j;

    if (dtype == KVG_FP32) {
        memcpy(dst, src, n * sizeof(float));
        return;
    }
    for (j = 0; j < n; j++)
        (void)kvg_decode_f32(dtype, p + j * size, &dst[j]);
}

void kvg_i_store_row(kvg_dtype dtype, const float *src, size_t n,
                     kvg_overflow overflow, void *dst)
{
    kvg_i_quantize_row(src, n, NULL, 0, NULL, 0, KVG_I_SCALE_MUL, dtype,
                       overflow, dst);
}
