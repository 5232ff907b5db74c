/*
 * src/common/dtype.c - dtype sizes and case-format names.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/dtype.h"
#include "src/common/dtype_size.h"

typedef struct dtype_info {
    kvg_dtype dtype;
    const char *name;
} dtype_info;

/* sizes: src/common/dtype_size.h */
static const dtype_info k_dtypes[] = {
    {KVG_FP16, "fp16"},          {KVG_BF16, "bf16"},
    {KVG_FP32, "fp32"},          {KVG_INT8, "int8"},
    {KVG_INT32, "int32"},        {KVG_INT64, "int64"},
    {KVG_FP8_E4M3FN, "fp8_e4m3fn"}, {KVG_FP8_E5M2, "fp8_e5m2"},
    {KVG_HIF8, "hif8"},          {KVG_UINT8, "uint8"},
    {KVG_INT16, "int16"},        {KVG_UINT16, "uint16"},
    {KVG_UINT32, "uint32"},      {KVG_FP4_E2M1, "fp4_e2m1"},
    {KVG_FP4_E1M2, "fp4_e1m2"},  {KVG_E8M0, "e8m0"},
};

static const dtype_info *find(kvg_dtype dtype)
{
    size_t i;
    for (i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (k_dtypes[i].dtype == dtype)
            return &k_dtypes[i];
    return NULL;
}

size_t kvg_dtype_size(kvg_dtype dtype)
{
    return kvg_i_dtype_size(dtype);
}

const char *kvg_dtype_name(kvg_dtype dtype)
{
    const dtype_info *info = find(dtype);
    return info != NULL ? info->name : "invalid";
}

kvg_dtype kvg_dtype_from_name(const char *name)
{
    size_t i;
    if (name == NULL)
        return KVG_DTYPE_INVALID;
    for (i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
        if (strcmp(k_dtypes[i].name, name) == 0)
            return k_dtypes[i].dtype;
    return KVG_DTYPE_INVALID;
}

int kvg_dtype_is_fp4(kvg_dtype dtype)
{
    return dtype == KVG_FP4_E2M1 || dtype == KVG_FP4_E1M2;
}

int kvg_dtype_is_quant8(kvg_dtype dtype)
{
    return dtype == KVG_INT8 || dtype == KVG_HIF8 || dtype == KVG_FP8_E4M3FN ||
           dtype == KVG_FP8_E5M2;
}
