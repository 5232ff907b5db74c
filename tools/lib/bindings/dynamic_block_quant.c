/*
 * tools/lib/bindings/dynamic_block_quant.c - how DynamicBlockQuant is
 * called: torch_npu.npu_dynamic_block_quant(x, *, min_scale, round_mode,
 * dst_type, row_block_size, col_block_size, dst_type_max), which returns
 * (y, scale) and writes nothing in place (op-plugin@517f2e7d
 * op_plugin/config/op_plugin_functions.yaml:7551,
 * op_plugin/ops/opapi/DynamicBlockQuantNpuOpApi.cpp), and
 * aclnnDynamicBlockQuant / aclnnDynamicBlockQuantV2 (V2 adds dst_type_max;
 * torch_npu calls V2 when the library has it).
 *
 * torch_npu's defaults are the operator's (int8, "rint", 1 x 128 blocks,
 * min_scale 0, dst_type_max 0) and it passes every attribute it takes.
 * Its dst_type is a number where a case writes kvgold's dtype tag
 * (`values`): torch_npu's is read by c10_npu::GetAclDataType, 256 +
 * aclDataType or an at::ScalarType (1 is Char, int8); aclnn's is the
 * aclDataType itself (ACL_INT8 2, ACL_HIFLOAT8 34, ACL_FLOAT8_E5M2 35,
 * ACL_FLOAT8_E4M3FN 36; docs/dynamic_block_quant.md, "Python functions").
 *
 * Callers also pass a torch.dtype (vllm-ascend@182b75ea
 * vllm_ascend/attention/sfa_v1.py:1725-1729, dst_type=torch.int8 or
 * torch.float8_e4m3fn). A dump spells it "torch.int8" (`values`) where a
 * tool writes str(dtype); msprobe itself writes {} for it (its
 * PytorchDataProcessor encodes a torch.dtype only under the keyword
 * `dtype`: Ascend-mstt@99c2e0f9 debug/accuracy_tools/msprobe/core/
 * data_dump/data_processor/pytorch_processor.py:181-184, 390-409), and
 * then dst_type is y's dumped dtype, which torch_npu allocated from that
 * very argument (framework_value; a uint8 y could be no torch.dtype).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

static const char *const k_names_torch[] = {"npu_dynamic_block_quant",
                                            NULL};
static const char *const k_names_kernel[] = {
    "DynamicBlockQuant", "dynamic_block_quant", "aclnnDynamicBlockQuant",
    "aclnnDynamicBlockQuantV2", NULL};
static const char *const k_in[] = {"x", NULL};
static const char *const k_attrs[] = {"min_scale",      "round_mode",
                                      "dst_type",       "row_block_size",
                                      "col_block_size", "dst_type_max",
                                      NULL};
/* x positionally, every attribute by keyword (the schema's `*`) */
static const char *const k_kw[] = {
    "min_scale",      "=min_scale",      "round_mode",     "=round_mode",
    "dst_type",       "=dst_type",       "row_block_size", "=row_block_size",
    "col_block_size", "=col_block_size", "dst_type_max",   "=dst_type_max",
    NULL};
/* aclnn's camelCase attribute names, as a CANN dump records them */
static const char *const k_kw_kernel[] = {
    "minScale",     "=min_scale",      "roundMode",    "=round_mode",
    "dstType",      "=dst_type",       "rowBlockSize", "=row_block_size",
    "colBlockSize", "=col_block_size", "dstTypeMax",   "=dst_type_max",
    NULL};
static const char *const k_out[] = {"y", "scale", NULL};
/* dst_type: case.json's tag <-> the framework's number (the first of a
 * tag is what `kvgold prepare --csv` writes) */
static const char *const k_values_torch[] = {
    "dst_type", "\"int8\"",       "1",   "dst_type", "\"int8\"", "258",
    "dst_type", "\"hif8\"",       "290", "dst_type", "\"fp8_e5m2\"", "291",
    "dst_type", "\"fp8_e4m3fn\"", "292",
    /* at::ScalarType Float8_e5m2 / Float8_e4m3fn, which today's torch_npu
     * maps to ACL types (Ascend/pytorch@9e73e708
     * torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73, read through
     * c10_npu::GetAclDataType, op-plugin@517f2e7d
     * op_plugin/ops/opapi/DynamicBlockQuantNpuOpApi.cpp:48) */
    "dst_type", "\"fp8_e5m2\"", "23", "dst_type", "\"fp8_e4m3fn\"", "24",
    /* a torch.dtype as str() spells it */
    "dst_type", "\"int8\"", "\"torch.int8\"", "dst_type", "\"fp8_e5m2\"",
    "\"torch.float8_e5m2\"", "dst_type", "\"fp8_e4m3fn\"",
    "\"torch.float8_e4m3fn\"", NULL};
static const char *const k_framework_torch[] = {"dst_type", NULL};

/* torch_npu's dst_type: its default (the operator's, int8) when a call
 * leaves it out; for one msprobe recorded as {} (a torch.dtype), the
 * dtype of the y torch_npu allocated from it. */
static const char *torch_value(const kvg_call_given *g, const char *attr)
{
    if (strcmp(attr, "dst_type") != 0)
        return NULL;
    if (g->out_dtype == NULL)
        return "\"int8\"";
    switch (kvg_given_out_dtype(g, "y")) {
    case KVG_INT8:
        return "\"int8\"";
    case KVG_FP8_E5M2:
        return "\"fp8_e5m2\"";
    case KVG_FP8_E4M3FN:
        return "\"fp8_e4m3fn\"";
    default:
        return NULL;
    }
}
static const char *const k_values_kernel[] = {
    "dst_type", "\"int8\"",     "2",  "dst_type", "\"hif8\"",       "34",
    "dst_type", "\"fp8_e5m2\"", "35", "dst_type", "\"fp8_e4m3fn\"", "36",
    NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_dynamic_block_quant",
     .names = k_names_torch,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw,
     .outputs = k_out,
     .framework_attrs = k_framework_torch,
     .framework_value = torch_value,
     .values = k_values_torch},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnDynamicBlockQuantV2",
     .names = k_names_kernel,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw_kernel,
     .outputs = k_out,
     .values = k_values_kernel},
};

const kvg_binding kvg_binding_dynamic_block_quant = {
    "dynamic_block_quant", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
