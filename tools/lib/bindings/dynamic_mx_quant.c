/*
 * tools/lib/bindings/dynamic_mx_quant.c - how DynamicMxQuant is called:
 * torch_npu.npu_dynamic_mx_quant(input, *, axis, round_mode, dst_type,
 * block_size, scale_alg, dst_type_max, max_low_bound), which returns
 * (y, mxscale) and writes nothing in place (op-plugin@517f2e7d
 * op_plugin/config/op_plugin_functions.yaml:6148,
 * op_plugin/ops/opapi/DynamicMxQuantKernelNpuOpApi.cpp), and
 * aclnnDynamicMxQuant / V2 / V3 (V2 adds dstTypeMax, V3 maxLowBound;
 * torch_npu calls the newest the library has).
 *
 * torch_npu's defaults are the operator's (axis -1, "rint", fp4_e2m1,
 * block 32, scale_alg 0, 0, 0) and it passes every attribute it takes.
 * Its input is `input` (kvgold's x).
 * Its dst_type is a number where a case writes kvgold's dtype tag
 * (`values`): torch_npu's is read by c10_npu::GetAclDataType, 256 +
 * aclDataType (296 c10_npu::DType::FLOAT4_E2M1, its default; 297
 * FLOAT4_E1M2; 291 FLOAT8_E5M2; 292 FLOAT8_E4M3FN) or an at::ScalarType,
 * whose Float8 types 23 / 24 torch_npu refuses; aclnn's is the aclDataType
 * itself (ACL_FLOAT8_E5M2 35, ACL_FLOAT8_E4M3FN 36, ACL_FLOAT4_E2M1 40,
 * ACL_FLOAT4_E1M2 41; ops-nn's op definition defaults to 40).
 * docs/dynamic_mx_quant.md, "Python functions".
 *
 * Callers also pass a torch.dtype (vllm-ascend@182b75ea
 * vllm_ascend/attention/dsa_v1.py:1084, dst_type=torch.float8_e4m3fn;
 * torch_npu@9e73e708 torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:
 * 72-73, 94 maps the ScalarTypes Float8_e5m2, Float8_e4m3fn and
 * Float4_e2m1fn_x2 to their ACL types). A dump spells one "torch.<name>"
 * (`values`) where a tool writes str(dtype); msprobe writes {} for it
 * (Ascend-mstt@99c2e0f9 debug/accuracy_tools/msprobe/core/data_dump/
 * data_processor/pytorch_processor.py:390-409: a torch.dtype is encoded
 * only under the keyword `dtype`), and then dst_type is y's dumped
 * dtype (framework_value; a uint8 y, fp4_e2m1 or fp4_e1m2 codes, does
 * not tell).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

static const char *const k_names_torch[] = {"npu_dynamic_mx_quant", NULL};
static const char *const k_names_kernel[] = {
    "DynamicMxQuant", "dynamic_mx_quant", "aclnnDynamicMxQuant",
    "aclnnDynamicMxQuantV2", "aclnnDynamicMxQuantV3", NULL};
static const char *const k_in[] = {"x", NULL};
static const char *const k_attrs[] = {
    "axis",      "round_mode",   "dst_type",      "block_size",
    "scale_alg", "dst_type_max", "max_low_bound", NULL};
/* input positionally, every attribute by keyword (the schema's `*`); the
 * first pair gives torch_npu's name of x */
static const char *const k_kw[] = {
    "input",        "x",             "axis",          "=axis",
    "round_mode",   "=round_mode",   "dst_type",      "=dst_type",
    "block_size",   "=block_size",   "scale_alg",     "=scale_alg",
    "dst_type_max", "=dst_type_max", "max_low_bound", "=max_low_bound",
    NULL};
/* aclnn's parameter names, then the op definition's attribute names
 * (ops-nn op_host/dynamic_mx_quant_def.cpp:61-67), as a CANN dump may
 * record either */
static const char *const k_kw_kernel[] = {
    "axis",          "=axis",          "roundMode",   "=round_mode",
    "dstType",       "=dst_type",      "blocksize",   "=block_size",
    "scaleAlg",      "=scale_alg",     "dstTypeMax",  "=dst_type_max",
    "maxLowBound",   "=max_low_bound", "round_mode",  "=round_mode",
    "dst_type",      "=dst_type",      "scale_alg",   "=scale_alg",
    "dst_type_max",  "=dst_type_max",  "max_low_bound", "=max_low_bound",
    NULL};
static const char *const k_out[] = {"y", "mxscale", NULL};
/* dst_type: case.json's tag <-> the framework's number (the first of a
 * tag is what `kvgold prepare --csv` writes) */
static const char *const k_values_torch[] = {
    "dst_type", "\"fp4_e2m1\"", "296", "dst_type", "\"fp4_e1m2\"",   "297",
    "dst_type", "\"fp8_e5m2\"", "291", "dst_type", "\"fp8_e4m3fn\"", "292",
    /* at::ScalarType Float8_e5m2 / Float8_e4m3fn, which today's torch_npu
     * maps to ACL types (Ascend/pytorch@9e73e708
     * torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73, read through
     * c10_npu::GetAclDataType, op-plugin@517f2e7d
     * op_plugin/ops/opapi/DynamicMxQuantKernelNpuOpApi.cpp:73-75) */
    "dst_type", "\"fp8_e5m2\"", "23", "dst_type", "\"fp8_e4m3fn\"", "24",
    /* a torch.dtype as str() spells it */
    "dst_type", "\"fp8_e5m2\"", "\"torch.float8_e5m2\"", "dst_type",
    "\"fp8_e4m3fn\"", "\"torch.float8_e4m3fn\"", "dst_type", "\"fp4_e2m1\"",
    "\"torch.float4_e2m1fn_x2\"", NULL};
static const char *const k_framework_torch[] = {"dst_type", NULL};
static const char *const k_values_kernel[] = {
    "dst_type", "\"fp4_e2m1\"", "40", "dst_type", "\"fp4_e1m2\"",   "41",
    "dst_type", "\"fp8_e5m2\"", "35", "dst_type", "\"fp8_e4m3fn\"", "36",
    NULL};

/* torch_npu's dst_type: its default (the operator's, fp4_e2m1) when a
 * call leaves it out; for one msprobe recorded as {} (a torch.dtype), the
 * dtype of the y torch_npu allocated from it. */
static const char *torch_value(const kvg_call_given *g, const char *attr)
{
    if (strcmp(attr, "dst_type") != 0)
        return NULL;
    if (g->out_dtype == NULL)
        return "\"fp4_e2m1\"";
    switch (kvg_given_out_dtype(g, "y")) {
    case KVG_FP8_E5M2:
        return "\"fp8_e5m2\"";
    case KVG_FP8_E4M3FN:
        return "\"fp8_e4m3fn\"";
    case KVG_FP4_E2M1:
        return "\"fp4_e2m1\"";
    default:
        return NULL;
    }
}

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_dynamic_mx_quant",
     .names = k_names_torch,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw,
     .outputs = k_out,
     .framework_attrs = k_framework_torch,
     .framework_value = torch_value,
     .values = k_values_torch},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnDynamicMxQuantV3",
     .names = k_names_kernel,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw_kernel,
     .outputs = k_out,
     .values = k_values_kernel},
};

const kvg_binding kvg_binding_dynamic_mx_quant = {
    "dynamic_mx_quant", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
