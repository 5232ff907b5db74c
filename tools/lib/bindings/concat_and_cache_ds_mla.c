/*
 * tools/lib/bindings/concat_and_cache_ds_mla.c - how the packed C8 MLA row
 * is called: vLLM's torch.ops._C_cache_ops.concat_and_cache_mla(Tensor
 * kv_c, Tensor k_pe, Tensor! kv_cache, Tensor slot_mapping, str
 * kv_cache_dtype, Tensor scale) -> () (vllm-project/vllm@00256d59
 * csrc/torch_bindings.cpp, cache_ops.def of concat_and_cache_mla) with
 * kv_cache_dtype "fp8_ds_mla", the one dtype whose row this operator is:
 * kv_cache written in place, nothing returned.
 * Its two non-cache arguments map onto the operator as they are: the
 * string kv_cache_dtype is the attribute `preset` under another spelling
 * ("fp8_ds_mla" is "vllm-fp8_ds_mla"; another dtype writes another row and
 * is refused by the preset's name check), the Tensor scale the operator's
 * optional `scale` input (one float32, which the ds_mla kernel never
 * reads). The selector keeps the form to vllm cases.
 * The Ascend preset has no form: vllm-ascend's custom_kv_rmsnorm_rope is a
 * Python function of three torch_npu ops, and the row is scattered by
 * npu_scatter_nd_update_; a dump holds those four calls, never this
 * operator's (docs/concat_and_cache_ds_mla.md, "Call forms").
 * SPDX-License-Identifier: Apache-2.0
 */
#include "binding.h"

static const char *const k_in[] = {"kv_c", "k_pe", "kv_cache",
                                   "slot_mapping", "scale", NULL};
static const char *const k_attrs[] = {"preset", NULL};
static const char *const k_positional[] = {"kv_c",         "k_pe",
                                           "kv_cache",     "slot_mapping",
                                           "=preset",      "scale",
                                           NULL};
static const char *const k_kw[] = {"kv_cache_dtype", "=preset", NULL};
/* it returns nothing: the cache it updates */
static const char *const k_out[] = {"kv_cache", NULL};
static const char *const k_values[] = {"preset", "\"vllm-fp8_ds_mla\"",
                                       "\"fp8_ds_mla\"", NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch.ops._C_cache_ops.concat_and_cache_mla",
     .selector = "preset=vllm-fp8_ds_mla",
     .tensors = k_in,
     .attrs = k_attrs,
     .positional = k_positional,
     .keywords = k_kw,
     .outputs = k_out,
     .note = "vLLM, kv_cache_dtype \"fp8_ds_mla\"",
     .values = k_values},
};

const kvg_binding kvg_binding_concat_and_cache_ds_mla = {
    "concat_and_cache_ds_mla", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
