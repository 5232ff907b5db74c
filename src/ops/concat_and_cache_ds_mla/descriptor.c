/*
 * src/ops/concat_and_cache_ds_mla/descriptor.c - the packed C8 MLA row's
 * descriptor (src/registry/op_desc.h); docs/concat_and_cache_ds_mla.md,
 * "Case files", lists the same names. `preset` picks the path; gamma, cos
 * and sin are the Ascend path's, the tensor `scale` vLLM's (its schema's
 * `Tensor scale`, unused by the ds_mla kernel) and use_ue8m0 vLLM's,
 * block_size flashmla-model1's.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/concat_and_cache_ds_mla.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"
#include "src/registry/op_desc.h"
#include "src/registry/row_hooks.h"

typedef kvg_concat_and_cache_ds_mla_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(kv_c, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(k_pe, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(gamma, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(cos, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(sin, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(kv_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(scale, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
};

KVG_I_OP_SET_NAMED(set_preset, op_args, preset, kvg_ccdm_preset_from_name);
KVG_I_OP_SET_VALUE(set_epsilon, op_args, epsilon, double, f);
KVG_I_OP_SET_NAMED(set_reduce_order, op_args, reduce_order,
                   kvg_reduce_order_from_name);
KVG_I_OP_SET_VALUE(set_block_size, op_args, block_size, int64_t, i);
KVG_I_OP_SET_VALUE(set_use_ue8m0, op_args, use_ue8m0, int, i);

static const kvg_i_op_attr k_attrs[] = {
    {{"preset", KVG_VALUE_STRING, 0, 0, "\"ascend-sfa-c8\""}, set_preset,
     "\"%s\" is not ascend-sfa-c8, vllm-fp8_ds_mla or flashmla-model1", 0},
    {{"epsilon", KVG_VALUE_FLOAT, 0, 0, "1e-05"}, set_epsilon, NULL, 0},
    {{"reduce_order", KVG_VALUE_STRING, 1, 0, "\"pairwise\""},
     set_reduce_order, "\"%s\" is not a kvgold reduction order", 1},
    /* flashmla-model1's tokens a block (its cache is [num_blocks,
     * block_bytes]); 0, the default, for the other presets */
    {{"block_size", KVG_VALUE_INT, 0, 0, "0"}, set_block_size, NULL, 0},
    /* vllm-fp8_ds_mla's power-of-two tile scales (vLLM PR #49435, read
     * from ds_mla_use_ue8m0_scale(), no argument of the torch op) */
    {{"use_ue8m0", KVG_VALUE_BOOL, 0, 0, "false"}, set_use_ue8m0, NULL, 0},
};

KVG_I_OP_NO_OUTPUTS("concat_and_cache_ds_mla");

/* The cache mixes payload codes, scales and copied bytes: the row_layout
 * hook (kvg_op_row_layout) gives kv_cache's checked layout, for compare
 * (field by field), scan and explain-layout (slot values are not read);
 * `describe` its role, the payload's (KVG_ROLE_QUANT); `written` each
 * kept token's slot, from the layout the writes use
 * (src/registry/row_hooks.h). */
KVG_I_OP_ROW_HOOKS(concat_and_cache_ds_mla, p->policy, "kv_cache");

KVG_I_OP_DEFINE(concat_and_cache_ds_mla, KVG_I_OP_ATTRS(k_attrs),
                .row_layout = kvg_i_concat_and_cache_ds_mla_row_layout);
