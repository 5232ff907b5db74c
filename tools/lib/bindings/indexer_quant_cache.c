/*
 * tools/lib/bindings/indexer_quant_cache.c - how IndexerQuantCache is
 * called, writing cache and cache_scale in place and returning nothing:
 *   cann_ops_transformer.indexer_quant_cache(cache, cache_scale, x,
 *     slot_mapping, *, quant_mode="fp8", round_scale=True, x_scale=1.0)
 *     (ops-transformer@25fb6b928 torch_extension/cann_ops_transformer/ops/
 *     indexer_quant_cache.py:53-57, registered as
 *     torch.ops.cann_ops_transformer.indexer_quant_cache; quant_mode is a
 *     string there, IndexerQuantMode :18-24: "mxfp8" 0, "fp8" 1,
 *     "hifloat8" 2, "mxfp4" 3 - `values`);
 *   aclnnIndexerQuantCacheGetWorkspaceSize(cacheRef, cacheScaleRef, x,
 *     slotMapping, quantMode, roundScale, xScale, ...) (op_host/op_api/
 *     aclnn_indexer_quant_cache.h; op type IndexerQuantCache, attributes
 *     quant_mode, round_scale, x_scale: op_host/
 *     indexer_quant_cache_def.cpp:91-93).
 * Both take an INT32 slotMapping only (def.cpp:56-60; the extension
 * passes the tensor through), where kvgold's operator also takes int64.
 * No torch_npu (op-plugin) API calls it (op-plugin@517f2e7d has no
 * indexer_quant_cache). Both forms pass every attribute, with the
 * operator's defaults, so there are no framework_attrs.
 * docs/indexer_quant_cache.md, "Python functions".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

static const char *const k_names_torch[] = {
    "torch.ops.cann_ops_transformer.indexer_quant_cache",
    "indexer_quant_cache", NULL};
static const char *const k_names_kernel[] = {
    "IndexerQuantCache", "indexer_quant_cache", "aclnnIndexerQuantCache",
    NULL};
static const char *const k_in[] = {"cache", "cache_scale", "x",
                                   "slot_mapping", NULL};
static const char *const k_out[] = {"cache", "cache_scale", NULL};
static const char *const k_attrs[] = {"quant_mode", "round_scale", "x_scale",
                                      NULL};
/* the tensors positionally (the schema names them as kvgold does), the
 * attributes by keyword (the schema's `*`) */
static const char *const k_kw_torch[] = {
    "quant_mode", "=quant_mode", "round_scale", "=round_scale",
    "x_scale",    "=x_scale",    NULL};
/* aclnn's parameter names, then the op definition's, as a CANN dump may
 * record either */
static const char *const k_kw_kernel[] = {
    "cacheRef",    "cache",        "cacheScaleRef", "cache_scale",
    "slotMapping", "slot_mapping", "quantMode",     "=quant_mode",
    "roundScale",  "=round_scale", "xScale",        "=x_scale",
    "quant_mode",  "=quant_mode",  "round_scale",   "=round_scale",
    "x_scale",     "=x_scale",     NULL};
/* quant_mode: case.json's number <-> the torch API's string */
static const char *const k_values_torch[] = {
    "quant_mode", "0", "\"mxfp8\"",    "quant_mode", "1", "\"fp8\"",
    "quant_mode", "2", "\"hifloat8\"", "quant_mode", "3", "\"mxfp4\"",
    NULL};

/* slotMapping is INT32 (the op definition's only dtype, def.cpp:56-60);
 * the torch extension passes its tensor through unchanged
 * (ops/csrc/indexer_quant_cache.cpp), so an int64 one is not a call of
 * either form. */
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

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "cann_ops_transformer.indexer_quant_cache",
     .names = k_names_torch,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw_torch,
     .outputs = k_out,
     .note = "ops-transformer's torch extension",
     .check = check_int32,
     .values = k_values_torch},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnIndexerQuantCache",
     .names = k_names_kernel,
     .tensors = k_in,
     .attrs = k_attrs,
     .keywords = k_kw_kernel,
     .outputs = k_out,
     .check = check_int32},
};

const kvg_binding kvg_binding_indexer_quant_cache = {
    "indexer_quant_cache", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
