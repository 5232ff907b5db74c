/*
 * tools/lib/bindings/qkv_rms_norm_rope_cache.c - how QkvRmsNormRopeCache is
 * called: torch_npu.npu_qkv_rms_norm_rope_cache (and _functional) and the
 * kernel / aclnnQkvRmsNormRopeCache.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "binding.h"

static const char *const k_names[] = {
    "npu_qkv_rms_norm_rope_cache", "npu_qkv_rms_norm_rope_cache_functional",
    "QkvRmsNormRopeCache", "qkv_rms_norm_rope_cache",
    "aclnnQkvRmsNormRopeCache", NULL};
static const char *const k_in[] = {
    "qkv", "q_gamma", "k_gamma", "cos", "sin", "index", "q_out", "k_cache",
    "v_cache", "k_scale", "v_scale", "k_offset", "v_offset", NULL};
static const char *const k_attrs[] = {"qkv_size", "head_nums", "epsilon",
                                      "cache_mode", "is_output_qkv", NULL};
static const char *const k_positional[] = {
    "qkv",   "q_gamma", "k_gamma", "cos",       "sin",        "index",
    "q_out", "k_cache", "v_cache", "=qkv_size", "=head_nums", NULL};
static const char *const k_kw[] = {
    "k_scale",   "k_scale",    "v_scale",       "v_scale",
    "k_offset",  "k_offset",   "v_offset",      "v_offset",
    "qkv_size",  "=qkv_size",  "head_nums",     "=head_nums",
    "epsilon",   "=epsilon",   "cache_mode",    "=cache_mode",
    "is_output_qkv", "=is_output_qkv", NULL};
/* the three "before quant" outputs it returns, then the tensors it writes
 * in place, in op-plugin's functional variant's order */
static const char *const k_out[] = {
    "q_out_before_quant", "k_out_before_quant", "v_out_before_quant",
    "q_out", "k_cache", "v_cache", NULL};
/* the kernel writes its in-place outputs first */
static const char *const k_out_kernel[] = {
    "q_out", "k_cache", "v_cache", "q_out_before_quant",
    "k_out_before_quant", "v_out_before_quant", NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_qkv_rms_norm_rope_cache",
     .names = k_names,
     .tensors = k_in,
     .attrs = k_attrs,
     .positional = k_positional,
     .keywords = k_kw,
     .outputs = k_out},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnQkvRmsNormRopeCache",
     .names = k_names,
     .tensors = k_in,
     .attrs = k_attrs,
     .outputs = k_out_kernel},
};

const kvg_binding kvg_binding_qkv_rms_norm_rope_cache = {
    "qkv_rms_norm_rope_cache", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
