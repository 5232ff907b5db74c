/*
 * src/common/dtype_size.h - bytes per element, inline: the row loops ask
 * for it several times per token, and the exported kvg_dtype_size is a
 * call into another translation unit.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_DTYPE_SIZE_H
#define KVGOLD_SRC_DTYPE_SIZE_H

#include <stddef.h>

#include "kvgold/dtype.h"

/* Bytes per element; 0 for KVG_DTYPE_INVALID or an out-of-range value. */
static inline size_t kvg_i_dtype_size(kvg_dtype dtype)
{
    switch (dtype) {
    case KVG_INT8:
    case KVG_FP8_E4M3FN:
    case KVG_FP8_E5M2:
    case KVG_HIF8:
    case KVG_UINT8:
    case KVG_FP4_E2M1: /* one element = one byte = two packed codes */
    case KVG_FP4_E1M2:
    case KVG_E8M0:
        return 1;
    case KVG_FP16:
    case KVG_BF16:
    case KVG_INT16:
    case KVG_UINT16:
        return 2;
    case KVG_FP32:
    case KVG_INT32:
    case KVG_UINT32:
        return 4;
    case KVG_INT64:
        return 8;
    case KVG_DTYPE_INVALID:
    default:
        return 0;
    }
}

#endif /* KVGOLD_SRC_DTYPE_SIZE_H */
