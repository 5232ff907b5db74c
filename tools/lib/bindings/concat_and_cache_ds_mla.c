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
#include <string.h>

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

/*
 * The Ascend preset as a dump holds it: vllm-ascend's
 * custom_kv_rmsnorm_rope (vllm-project/vllm-ascend@182b75ea84
 * vllm_ascend/attention/sfa_v1.py:1708-1744) calls
 * npu_rms_norm(rms_in, gamma, epsilon=epsilon) and
 * npu_interleave_rope(rope_in, cos, sin) (then the block quant, judged as
 * its own operator's call), and the store (:1369-1384) scatters the
 * concatenated 656-byte rows with npu_scatter_nd_update_(kv_cache[0].view(
 * -1, 656), slot_mapping.view(-1, 1), packed_kv). torch_npu's schemas
 * (Ascend/op-plugin@517f2e7d op_plugin/config/op_plugin_functions.yaml):
 * npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) (:6865),
 * npu_interleave_rope(Tensor x, Tensor cos, Tensor sin) (:6384),
 * npu_scatter_nd_update_(Tensor(a!) self, Tensor indices, Tensor updates)
 * -> Tensor(a!) (:6935). Links are named by their op types, as scan
 * compares names (npu_rms_norm is RmsNorm). The chip profile is the
 * cache's dtype, as for the operator (int8 a2a3, fp8 ascend950), which
 * vllm-ascend allocates from the block quant's very dst_type
 * (sfa_v1.py:541-549), so no argument of the block quant call is needed.
 */
static const char *const k_rms_pos[] = {"kv_c", "gamma", "=epsilon", NULL};
static const char *const k_rms_kw[] = {"self", "kv_c", "gamma", "gamma",
                                       "epsilon", "=epsilon", NULL};
static const char *const k_rms_out[] = {"-", "-", NULL};
static const char *const k_rope_pos[] = {"k_pe", "cos", "sin", NULL};
static const char *const k_rope_kw[] = {"x", "k_pe", "cos", "cos",
                                        "sin", "sin", NULL};
static const char *const k_rope_out[] = {"-", NULL};
static const char *const k_scatter_pos[] = {"kv_cache", "slot_mapping", "-",
                                            NULL};
static const char *const k_scatter_kw[] = {"self", "kv_cache", "indices",
                                           "slot_mapping", "updates", "-",
                                           NULL};
/* it returns self: the post-call cache */
static const char *const k_scatter_out[] = {"kv_cache", NULL};

static const kvg_binding_link k_chain[] = {
    {"RmsNorm", k_rms_pos, k_rms_kw, k_rms_out, 0, 512, NULL, 0, 0,
     KVG_DTYPE_INVALID},
    {"InterleaveRope", k_rope_pos, k_rope_kw, k_rope_out, 0, 64,
     "msprobe wraps no npu_interleave_rope by default (its "
     "support_wrap_ops.yaml lists none): dump it with "
     "debugger.register_custom_api(torch_npu, 'npu_interleave_rope')", 0,
     0, KVG_DTYPE_INVALID},
    {"ScatterNdUpdate", k_scatter_pos, k_scatter_kw, k_scatter_out, 2, 656,
     NULL, 0, 0, KVG_DTYPE_INVALID},
};

static const char *const k_chain_in[] = {"kv_c",         "k_pe",
                                         "gamma",        "cos",
                                         "sin",          "slot_mapping",
                                         "kv_cache",     "=epsilon",
                                         NULL};
static const char *const k_chain_attrs[] = {"epsilon", NULL};
static const char *const k_chain_views[] = {"slot_mapping", "kv_c", NULL};

/* npu_rms_norm's own default, when the record leaves epsilon out */
static const char *chain_value(const kvg_call_given *given, const char *attr)
{
    (void)given;
    return strcmp(attr, "epsilon") == 0 ? "1e-06" : NULL;
}

static const kvg_binding_call k_chain_form = {
    .kind = KVG_BINDING_TORCH_NPU,
    .api = "vllm-ascend custom_kv_rmsnorm_rope and its scatter",
    .tensors = k_chain_in,
    .positional = k_chain_in,
    .outputs = k_scatter_out,
    .framework_attrs = k_chain_attrs,
    .framework_value = chain_value};

const kvg_binding_composite kvg_composite_concat_and_cache_ds_mla = {
    "concat_and_cache_ds_mla",
    "ascend-sfa-c8 chain RmsNorm+InterleaveRope+ScatterNdUpdate",
    k_chain, sizeof k_chain / sizeof k_chain[0], &k_chain_form,
    k_chain_views, NULL};
