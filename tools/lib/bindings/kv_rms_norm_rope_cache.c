/*
 * tools/lib/bindings/kv_rms_norm_rope_cache.c - how KvRmsNormRopeCache is
 * called: torch_npu.npu_kv_rmsnorm_rope_cache, its _v2 (a case with v),
 * and the kernel / aclnnKvRmsNormRopeCache.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"
#include "fileio.h"

static const char *const k_names[] = {"npu_kv_rmsnorm_rope_cache",
                                      "KvRmsNormRopeCache",
                                      "kv_rms_norm_rope_cache",
                                      "aclnnKvRmsNormRopeCache", NULL};
static const char *const k_in[] = {
    "kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
    "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset", NULL};
static const char *const k_attrs[] = {"epsilon", "cache_mode",
                                      "is_output_kv", NULL};
static const char *const k_positional[] = {"kv",      "gamma", "cos",
                                           "sin",     "index", "k_cache",
                                           "ckv_cache", NULL};
static const char *const k_kw[] = {
    "k_rope_scale",  "k_rope_scale",  "c_kv_scale",   "c_kv_scale",
    "k_rope_offset", "k_rope_offset", "c_kv_offset",  "c_kv_offset",
    "epsilon",       "=epsilon",      "cache_mode",   "=cache_mode",
    "is_output_kv",  "=is_output_kv", NULL};
/* torch_npu returns the two caches it updates, then k_rope and c_kv */
static const char *const k_out[] = {"k_cache", "ckv_cache", "k_rope",
                                    "c_kv", NULL};
/* V2 (a case with v): the same arguments then v; it returns k_rope and
 * c_kv and updates the caches in place */
static const char *const k_in_v2[] = {
    "kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
    "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset", "v",
    NULL};
static const char *const k_attrs_v2[] = {"epsilon", "cache_mode",
                                         "is_output_kv", "k_cache_dtype",
                                         "ckv_cache_dtype", NULL};
static const char *const k_out_v2[] = {"k_rope", "c_kv", "k_cache",
                                       "ckv_cache", NULL};

/* torch_npu runs V2 only for a 4-D v of depth 128 and otherwise silently
 * runs V1, which these goldens would not describe */
static kvg_status check_v2(const kvg_case *c, const kvg_binding_call *call,
                           kvg_diag *diag)
{
    const kvg_tensor *v = kvg_case_find(&c->inputs, "v");
    if (v != NULL && (v->rank != 4 || v->shape[3] != 128))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "v", -1, -1,
                            "v is not 4-D with dim 3 = 128: %s would ignore "
                            "it and run V1", call->api);
    return KVG_OK;
}

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_kv_rmsnorm_rope_cache_v2",
     .selector = "v",
     .tensors = k_in_v2,
     .attrs = k_attrs_v2,
     .outputs = k_out_v2,
     .check = check_v2},
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_kv_rmsnorm_rope_cache",
     .names = k_names,
     .tensors = k_in,
     .attrs = k_attrs,
     .positional = k_positional,
     .keywords = k_kw,
     .outputs = k_out},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnKvRmsNormRopeCache",
     .names = k_names,
     .tensors = k_in,
     .attrs = k_attrs,
     .outputs = k_out},
};

const kvg_binding kvg_binding_kv_rms_norm_rope_cache = {
    "kv_rms_norm_rope_cache", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
