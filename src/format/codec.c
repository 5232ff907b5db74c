/*
 * src/format/codec.c - dtype-generic decode/encode and binary32 bit casts.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"

uint32_t kvg_f32_bits(float value)
{
    uint32_t u;
    memcpy(&u, &value, sizeof u);
    return u;
}

float kvg_f32_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

kvg_status kvg_decode_f32(kvg_dtype dtype, const void *src, float *value)
{
    const unsigned char *p = (const unsigned char *)src;
    uint16_t h;
    int16_t i16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;

    switch (dtype) {
    case KVG_FP16:
        memcpy(&h, p, 2);
        *value = kvg_fp16_to_f32(h);
        return KVG_OK;
    case KVG_BF16:
        memcpy(&h, p, 2);
        *value = kvg_bf16_to_f32(h);
        return KVG_OK;
    case KVG_FP32:
        memcpy(value, p, 4);
        return KVG_OK;
    case KVG_INT8:
        *value = (float)(signed char)p[0];
        return KVG_OK;
    case KVG_INT32:
        memcpy(&i32, p, 4);
        *value = (float)i32;
        return KVG_OK;
    case KVG_INT64:
        memcpy(&i64, p, 8);
        *value = (float)i64;
        return KVG_OK;
    case KVG_FP8_E4M3FN:
        *value = kvg_fp8e4m3fn_to_f32(p[0]);
        return KVG_OK;
    case KVG_FP8_E5M2:
        *value = kvg_fp8e5m2_to_f32(p[0]);
        return KVG_OK;
    case KVG_HIF8:
        *value = kvg_hif8_to_f32(p[0]);
        return KVG_OK;
    case KVG_UINT8:
        *value = (float)p[0];
        return KVG_OK;
    case KVG_INT16:
        memcpy(&i16, p, 2);
        *value = (float)i16;
        return KVG_OK;
    case KVG_UINT16:
        memcpy(&h, p, 2);
        *value = (float)h;
        return KVG_OK;
    case KVG_UINT32:
        memcpy(&u32, p, 4);
        *value = (float)u32;
        return KVG_OK;
    case KVG_E8M0:
        *value = kvg_e8m0_to_f32(p[0]);
        return KVG_OK;
    case KVG_FP4_E2M1: /* packed pairs, copy-only: no single value */
    case KVG_FP4_E1M2:
    case KVG_DTYPE_INVALID:
        break;
    }
    return KVG_ERR_PARAM_INVALID;
}

kvg_status kvg_encode_f32(kvg_dtype dtype, float value, kvg_overflow overflow,
                          void *dst)
{
    unsigned char *p = (unsigned char *)dst;
    uint16_t h;
    int8_t i8;

    switch (dtype) {
    case KVG_FP16:
        h = kvg_f32_to_fp16(value, overflow);
        memcpy(p, &h, 2);
        return KVG_OK;
    case KVG_BF16:
        h = kvg_f32_to_bf16(value, overflow);
        memcpy(p, &h, 2);
        return KVG_OK;
    case KVG_FP32:
        memcpy(p, &value, 4);
        return KVG_OK;
    case KVG_INT8:
        i8 = kvg_f32_to_int8(value);
        memcpy(p, &i8, 1);
        return KVG_OK;
    case KVG_FP8_E4M3FN:
        p[0] = kvg_f32_to_fp8e4m3fn(value, overflow);
        return KVG_OK;
    case KVG_FP8_E5M2:
        p[0] = kvg_f32_to_fp8e5m2(value, overflow);
        return KVG_OK;
    case KVG_HIF8:
        p[0] = kvg_f32_to_hif8(value, overflow);
        return KVG_OK;
    case KVG_INT32:
    case KVG_INT64:
    case KVG_UINT8: /* copy-only types: never narrowed to */
    case KVG_INT16:
    case KVG_UINT16:
    case KVG_UINT32:
    case KVG_FP4_E2M1:
    case KVG_FP4_E1M2:
    case KVG_E8M0: /* no encoder: a scale is chosen by a named rule */
    case KVG_DTYPE_INVALID:
        break;
    }
    return KVG_ERR_PARAM_INVALID;
}
