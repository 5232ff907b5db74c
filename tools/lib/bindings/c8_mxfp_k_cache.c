/*
 * tools/lib/bindings/c8_mxfp_k_cache.c - how the C8-MXFP K write is
 * called: by no framework API (docs/c8_mxfp_k_cache.md), so it has no
 * call form; a dump of vllm-ascend's C8-MXFP backend holds it as a chain
 * of three calls, declared here as a composite (binding.h).
 *
 * The backend (the search index's vllm_ascend/attention/
 * attention_c8_mxfp.py, id 68369016099, and mxfp_kv_cache.py @47ce2df1,
 * id 68489782651: a pull-request branch, cited by function) writes, per
 * layer and step, in this order:
 *   forward: npu_dynamic_mx_quant(query[:T], dst_type=float8_e4m3fn) (the
 *     query's: [T, Nq, D], not a link), then key_mxfp8, key_scale =
 *     npu_dynamic_mx_quant(key[:T], dst_type=float8_e4m3fn): x [T, N, D];
 *     the value's npu_quantize (not a link);
 *   its cache write (the impl's override) -> scatter_mxfp_pa_nz_kv_cache:
 *     npu_scatter_pa_kv_cache(key=, value=, key_cache=, value_cache=,
 *     slot_mapping=slot_mapping[:T], cache_mode="PA_NZ"), every tensor
 *     by keyword, the caches int8 views [Bn, N, D/32, Bs, 32] of the
 *     float8 caches (kv_cache[0], kv_cache[1]: K and V apart; V is not
 *     this operator's), returning None;
 *   -> scatter_mxfp_k_scale_cache: key_scale_cache[block_ids, :, seg_ids,
 *     :, frag_ids, :] = key_scale.view(uint8), i.e. Tensor.__setitem__(
 *     self [Bn, N, Bs/16, D/64, 16, 2] uint8, the index tuple, value
 *     [T, N, D/64, 2] uint8), returning None; the index tensors are
 *     mxfp_k_scale_slot_index's clamp(min=0) of the same slot_mapping.
 * msprobe records the index tuple as a list (its tensors, and slices as
 * {"type": "slice"}: Ascend-mstt@99c2e0f9 msprobe/core/data_dump/
 * data_processor/base.py:198-218), which scan reads as no argument: the
 * write's slots are not read from it but recomputed from the scatter's
 * slot_mapping, so a scale write at other slots FAILs, never passes.
 *
 * Links are tied by their keys' leading dimensions (key_lead): the quant's
 * x and the scale write's value share [T, N] (the query's quant has Nq
 * heads: with Nq == N the two quants are ambiguous, NOT JUDGED); the
 * scatter's slot_mapping is [T]. Nothing records the caches after the
 * chain (both APIs return None): they are read back from the next record
 * that takes them (the attention; docs/scan.md "Read-back"), in any
 * one-byte dtype. The scatter's int8 key_cache is taken as the
 * float8_e4m3fn it views (retype); the uint8 scale cache the operator
 * takes as it is. The scatter's cache_mode and the quant's dst_type are
 * not read: another mode or dtype writes other bytes (FAIL).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "binding.h"

const kvg_binding kvg_binding_c8_mxfp_k_cache = {
    "c8_mxfp_k_cache", NULL, 0, KVG_BIN_SHAPES_NONE};

static const char *const k_quant_pos[] = {"key", NULL};
static const char *const k_quant_kw[] = {"input", "key", NULL};
static const char *const k_quant_out[] = {"-", "-", NULL};
static const char *const k_scatter_pos[] = {"-", "-", "key_cache", "-",
                                            "slot_mapping", NULL};
static const char *const k_scatter_kw[] = {"key_cache", "key_cache",
                                           "slot_mapping", "slot_mapping",
                                           NULL};
static const char *const k_none_out[] = {NULL};
static const char *const k_setitem_pos[] = {"key_scale_cache", "-", "-",
                                            NULL};

static const kvg_binding_link k_chain[] = {
    {"DynamicMxQuant", k_quant_pos, k_quant_kw, k_quant_out, 0, 0, NULL, 2,
     3, KVG_DTYPE_INVALID},
    {"ScatterPaKvCache", k_scatter_pos, k_scatter_kw, k_none_out, 4, 0,
     "msprobe wraps no npu_scatter_pa_kv_cache by default (its "
     "support_wrap_ops.yaml lists none): dump it with "
     "debugger.register_custom_api(torch_npu, 'npu_scatter_pa_kv_cache')",
     1, 1, KVG_DTYPE_INVALID},
    /* the value: key_scale.view(torch.uint8) */
    {"__setitem__", k_setitem_pos, NULL, k_none_out, 2, 2, NULL, 2, 4,
     KVG_UINT8},
};

static const char *const k_chain_in[] = {"key", "slot_mapping", "key_cache",
                                         "key_scale_cache", NULL};
static const char *const k_chain_out[] = {"key_cache", "key_scale_cache",
                                          NULL};
static const char *const k_chain_retype[] = {"key_cache", "fp8_e4m3fn",
                                             NULL};

static const kvg_binding_call k_chain_form = {
    .kind = KVG_BINDING_TORCH_NPU,
    .api = "vllm-ascend C8-MXFP K cache write",
    .tensors = k_chain_in,
    .positional = k_chain_in,
    .outputs = k_chain_out};

const kvg_binding_composite kvg_composite_c8_mxfp_k_cache = {
    "c8_mxfp_k_cache",
    "C8-MXFP K chain DynamicMxQuant+ScatterPaKvCache+__setitem__",
    k_chain, sizeof k_chain / sizeof k_chain[0], &k_chain_form, NULL,
    k_chain_retype};
