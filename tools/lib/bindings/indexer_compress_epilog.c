/*
 * tools/lib/bindings/indexer_compress_epilog.c - how the indexer compress
 * epilogs are called, writing their caches in place and returning
 * nothing:
 *   torch.ops.custom.indexer_compress_epilog(indexer_compress_cache,
 *     indexer_compress_scale, x, slot_mapping, *, quant_mode=1,
 *     round_scale=True, scale=1.0) (impl cr: hicann/cann-recipes-infer
 *     @fbc225d ops/ascendc/torch_ops_extension/custom_ops/csrc/
 *     ops_def_registration.cpp:45-46; the NPU function passes every
 *     argument to aclnnIndexerCompressEpilog, csrc/
 *     npu_indexer_compress_epilog.cpp:18-29);
 *   torch.ops._C_ascend.indexer_compress_epilog_v2(indexer_compress_cache,
 *     x, slot_mapping, layout=2) (impl va_v2: vllm-project/vllm-ascend
 *     @182b75ea84 csrc/torch_binding.cpp:2484-2491; its NPU function adds
 *     indexer_compress_cache.stride(0) as the kernel's block stride,
 *     :1703-1711 - for a dense cache the natural one, which kvgold's
 *     operator takes as 0);
 * and their kernels, aclnnIndexerCompressEpilog (op type
 * IndexerCompressEpilog: inputs indexer_compress_cache,
 * indexer_compress_cache_scale, x, slot_mapping; attributes quant_mode,
 * round_scale, scale; CR op_host/indexer_compress_epilog_def.cpp:22-75)
 * and aclnnIndexerCompressEpilogV2 (op type IndexerCompressEpilogV2:
 * indexer_compress_cache, x, slot_mapping; layout, block_stride; VA
 * op_host/indexer_compress_epilog_v2_def.cpp). Both take INT32 slots only.
 * The tensors differ between the two (cr has a scale cache), and `impl`
 * selects the form; neither framework passes impl, so each form implies
 * its own (framework_attrs). docs/indexer_compress_epilog.md, "Python
 * functions".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

static const char *const k_in_cr[] = {"cache", "cache_scale", "x",
                                      "slot_mapping", NULL};
static const char *const k_out_cr[] = {"cache", "cache_scale", NULL};
static const char *const k_attrs_cr[] = {"quant_mode", "round_scale",
                                         "scale", NULL};
static const char *const k_kw_cr[] = {
    "indexer_compress_cache", "cache",
    "indexer_compress_scale", "cache_scale",
    "quant_mode",             "=quant_mode",
    "round_scale",            "=round_scale",
    "scale",                  "=scale",
    NULL};
/* the op definition names the scale cache otherwise than the schema */
static const char *const k_kw_cr_kernel[] = {
    "indexer_compress_cache",       "cache",
    "indexer_compress_cache_scale", "cache_scale",
    "quant_mode",                   "=quant_mode",
    "round_scale",                  "=round_scale",
    "scale",                        "=scale",
    NULL};
static const char *const k_names_cr[] = {"IndexerCompressEpilog",
                                         "aclnnIndexerCompressEpilog", NULL};

static const char *const k_in_va[] = {"cache", "x", "slot_mapping", NULL};
static const char *const k_out_va[] = {"cache", NULL};
static const char *const k_attrs_va[] = {"layout", NULL};
static const char *const k_attrs_va_kernel[] = {"layout", "block_stride",
                                                NULL};
static const char *const k_kw_va[] = {"indexer_compress_cache", "cache",
                                      "layout", "=layout", NULL};
static const char *const k_kw_va_kernel[] = {
    "indexer_compress_cache", "cache", "layout", "=layout",
    "block_stride", "=block_stride", NULL};
static const char *const k_names_va[] = {"IndexerCompressEpilogV2",
                                         "aclnnIndexerCompressEpilogV2",
                                         NULL};

/* slot_mapping is INT32 in both op definitions; the torch functions pass
 * their tensor through, so an int64 one is not a call of either form. */
static kvg_status check_int32(const kvg_case *c, const kvg_binding_call *call,
                              kvg_diag *diag)
{
    const kvg_tensor *s = kvg_case_find(&c->inputs, "slot_mapping");

    if (s != NULL && s->dtype != KVG_INT32)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", -1,
                            -1, "slot_mapping is %s; %s takes int32 only",
                            kvg_dtype_name(s->dtype), call->api);
    return KVG_OK;
}

/* cr: no layout or block stride */
static kvg_status check_cr(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    KVG_TRY(kvg_binding_attr_fixed(c, call, "layout", 2, diag));
    KVG_TRY(kvg_binding_attr_fixed(c, call, "block_stride", 0, diag));
    return check_int32(c, call, diag);
}

/* va_v2: none of cr's attributes; the torch API's block stride is the
 * cache's own dim-0 stride */
static kvg_status check_va(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    KVG_TRY(kvg_binding_attr_fixed(c, call, "quant_mode", 1, diag));
    KVG_TRY(kvg_binding_attr_fixed(c, call, "scale", 1.0, diag));
    return check_int32(c, call, diag);
}

static const char *const k_framework_impl[] = {"impl", NULL};

static const char *value_cr(const kvg_call_given *g, const char *attr)
{
    (void)g;
    (void)attr;
    return "\"cr\"";
}

static const char *value_va(const kvg_call_given *g, const char *attr)
{
    (void)g;
    (void)attr;
    return "\"va_v2\"";
}

/* the kernel takes round_scale as an int (tiling.cpp:84-85) */
static const char *const k_values_kernel[] = {"round_scale", "true", "1",
                                              "round_scale", "false", "0",
                                              NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops.custom.indexer_compress_epilog",
     .selector = "impl=cr",
     .tensors = k_in_cr,
     .attrs = k_attrs_cr,
     .keywords = k_kw_cr,
     .outputs = k_out_cr,
     .note = "cann-recipes-infer",
     .check = check_cr,
     .framework_attrs = k_framework_impl,
     .framework_value = value_cr},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops._C_ascend.indexer_compress_epilog_v2",
     .selector = "impl=va_v2",
     .tensors = k_in_va,
     .attrs = k_attrs_va,
     .keywords = k_kw_va,
     .outputs = k_out_va,
     .note = "vllm-ascend",
     .check = check_va,
     .framework_attrs = k_framework_impl,
     .framework_value = value_va},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnIndexerCompressEpilog",
     .names = k_names_cr,
     .selector = "impl=cr",
     .tensors = k_in_cr,
     .attrs = k_attrs_cr,
     .keywords = k_kw_cr_kernel,
     .outputs = k_out_cr,
     .note = "cann-recipes-infer's kernel",
     .check = check_cr,
     .framework_attrs = k_framework_impl,
     .framework_value = value_cr,
     .values = k_values_kernel},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnIndexerCompressEpilogV2",
     .names = k_names_va,
     .selector = "impl=va_v2",
     .tensors = k_in_va,
     .attrs = k_attrs_va_kernel,
     .keywords = k_kw_va_kernel,
     .outputs = k_out_va,
     .note = "vllm-ascend's kernel",
     .check = check_va,
     .framework_attrs = k_framework_impl,
     .framework_value = value_va},
};

const kvg_binding kvg_binding_indexer_compress_epilog = {
    "indexer_compress_epilog", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
