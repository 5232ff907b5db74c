/*
 * src/ops/indexer_quant_cache/descriptor.c - IndexerQuantCache's
 * descriptor (src/registry/op_desc.h); docs/indexer_quant_cache.md, "Case
 * files", lists the same names: the op_def's (cannmirror/ops-transformer
 * @25fb6b928 attention/indexer_quant_cache/op_host/
 * indexer_quant_cache_def.cpp:22-93).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/indexer_quant_cache.h"
#include "src/ops/indexer_quant_cache/internal.h"
#include "src/registry/op_desc.h"
#include "src/registry/row_hooks.h"

typedef kvg_indexer_quant_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(x, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cache_scale, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
};

KVG_I_OP_SET_VALUE(set_quant_mode, op_args, quant_mode, int64_t, i);
KVG_I_OP_SET_VALUE(set_round_scale, op_args, round_scale, int, i);
KVG_I_OP_SET_VALUE(set_x_scale, op_args, x_scale, double, f);

static const kvg_i_op_attr k_attrs[] = {
    {{"quant_mode", KVG_VALUE_INT, 0, 0, "1"}, set_quant_mode, NULL, 0},
    {{"round_scale", KVG_VALUE_BOOL, 0, 0, "true"}, set_round_scale, NULL,
     0},
    {{"x_scale", KVG_VALUE_FLOAT, 0, 0, "1.0"}, set_x_scale, NULL, 0},
};

KVG_I_OP_NO_OUTPUTS("indexer_quant_cache");

/* Both caches hold quantisation results (KVG_ROLE_QUANT), judged field
 * by field through the `row_layout` hook of struct kvg_op
 * (kvg_op_row_layout: codes by code distance under the standard, scales
 * bit for bit, the mode-2 scale bytes not at all): the one layout over
 * both caches, for "cache" and "cache_scale" alike (the caller finds its
 * tensor with kvg_row_tensor_of; slot values are not read). `written`:
 * each token's slot but -1 (single_row.h:65) in the tensor asked about,
 * from the layout the writes use (src/registry/row_hooks.h). */
KVG_I_OP_ROW_HOOKS(indexer_quant_cache, KVG_I_SLOT_SKIP_MINUS1, "cache",
                   "cache_scale");

KVG_I_OP_DEFINE(indexer_quant_cache, KVG_I_OP_ATTRS(k_attrs),
                .row_layout = kvg_i_indexer_quant_cache_row_layout);
