/*
 * kvgold/dtype.h - the element types kvgold reads and writes.
 *
 * The names are the dtype tags of the case format (spec section 5):
 * fp16, bf16, fp32, int8, int32, int64, fp8_e4m3fn, fp8_e5m2, hif8, and the
 * copy-only types uint8, int16, uint16, uint32, fp4_e2m1, fp4_e1m2, and e8m0
 * (float8_e8m0fnu: code c is 2^(c-127), 0xFF is NaN; no sign, no zero, no Inf),
 * the scale type of the MX formats, which operators write but never read.
 * bf16 and the 8-bit float formats are stored as raw codes (bf16 as a
 * little-endian uint16, the 8-bit formats as one byte).
 *
 * Copy-only types are moved bit for bit by the operators that copy
 * (their headers say which dtypes they take); no kvgold arithmetic reads or writes their values.
 * fp4_e2m1 / fp4_e1m2 are PACKED: one element is one byte holding two 4-bit
 * codes (as torch's float4_e2m1fn_x2), so shapes count bytes, a head of D
 * fp4 codes is D/2 elements (D must be even), and a copy moves whole bytes:
 * no nibble is ever split, swapped or re-packed.
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
    KVG_HIF8 = 9,
    KVG_UINT8 = 10,
    KVG_INT16 = 11,
    KVG_UINT16 = 12,
    KVG_UINT32 = 13,
    KVG_FP4_E2M1 = 14, /* packed: two codes per byte-sized element */
    KVG_FP4_E1M2 = 15, /* packed: two codes per byte-sized element */
    KVG_E8M0 = 16      /* float8_e8m0fnu: a power-of-two scale, 0xFF = NaN */
} kvg_dtype;

/* Bytes per element (1 for the packed fp4 pairs); 0 for KVG_DTYPE_INVALID or an out-of-range value. */
KVG_API size_t kvg_dtype_size(kvg_dtype dtype);

/* The case-format tag ("bf16"); "invalid" for an unknown value. */
KVG_API const char *kvg_dtype_name(kvg_dtype dtype);

/* Parse a case-format tag; KVG_DTYPE_INVALID if it is not one. */
KVG_API kvg_dtype kvg_dtype_from_name(const char *name);

/* 1 for the 1-byte quantised cache types int8, hif8, fp8_e4m3fn, fp8_e5m2. */
KVG_API int kvg_dtype_is_quant8(kvg_dtype dtype);

/* 1 for the packed 4-bit float types fp4_e2m1 and fp4_e1m2, whose element
 * is a byte of two codes (code 2j in the low nibble): a shape counting
 * codes halves its last dim, a byte offset is two codes. */
KVG_API int kvg_dtype_is_fp4(kvg_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_DTYPE_H */
