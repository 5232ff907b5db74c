/*
 * kvgold/dtype.h - the element types kvgold reads and writes.
 *
 * The names are the dtype tags of the case format (spec section 5):
 * fp16, bf16, fp32, int8, int32, int64, fp8_e4m3fn, fp8_e5m2, hif8.
 * bf16 and the 8-bit float formats are stored as raw codes (bf16 as a
 * little-endian uint16, the 8-bit formats as one byte).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_DTYPE_H
#define KVGOLD_DTYPE_H

#include "kvgold/api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kvg_dtype {
    KVG_DTYPE_INVALID = 0,
    KVG_FP16 = 1,
    KVG_BF16 = 2,
    KVG_FP32 = 3,
    KVG_INT8 = 4,
    KVG_INT32 = 5,
    KVG_INT64 = 6,
    KVG_FP8_E4M3FN = 7,
    KVG_FP8_E5M2 = 8,
    KVG_HIF8 = 9
} kvg_dtype;

/* Bytes per element; 0 for KVG_DTYPE_INVALID or an out-of-range value. */
KVG_API size_t kvg_dtype_size(kvg_dtype dtype);

/* The case-format tag ("bf16"); "invalid" for an unknown value. */
KVG_API const char *kvg_dtype_name(kvg_dtype dtype);

/* Parse a case-format tag; KVG_DTYPE_INVALID if it is not one. */
KVG_API kvg_dtype kvg_dtype_from_name(const char *name);

/* 1 for the 1-byte quantised cache types int8, hif8, fp8_e4m3fn, fp8_e5m2. */
KVG_API int kvg_dtype_is_quant8(kvg_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_DTYPE_H */
