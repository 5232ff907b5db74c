/*
 * src/ops/indexer_compress_epilog/descriptor.c - the indexer compress
 * epilogs' descriptor (src/registry/op_desc.h); docs/
 * indexer_compress_epilog.md, "Case files", lists the same names. `impl`
 * picks the kernel; the attributes are the union of theirs, each impl
 * refusing the ones it has not away from their defaults. cache_scale is
 * cr's (the torch schema's indexer_compress_scale), absent for va_v2.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/indexer_compress_epilog.h"
#include "src/common/internal.h"
#include "src/ops/indexer_compress_epilog/internal.h"
#include "src/registry/op_desc.h"
#include "src/registry/row_hooks.h"

typedef kvg_indexer_compress_epilog_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(x, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cache_scale, KVG_OP_CACHE, KVG_OP_OPTIONAL, 0),
};

KVG_I_OP_SET_NAMED(set_impl, op_args, impl, kvg_ice_impl_from_name);
KVG_I_OP_SET_VALUE(set_quant_mode, op_args, quant_mode, int64_t, i);
KVG_I_OP_SET_VALUE(set_round_scale, op_args, round_scale, int, i);
KVG_I_OP_SET_VALUE(set_scale, op_args, scale, double, f);
KVG_I_OP_SET_VALUE(set_layout, op_args, layout, int64_t, i);
KVG_I_OP_SET_VALUE(set_block_stride, op_args, block_stride, int64_t, i);

static const kvg_i_op_attr k_attrs[] = {
    {{"impl", KVG_VALUE_STRING, 0, 0, "\"cr\""}, set_impl,
     "\"%s\" is not cr or va_v2", 0},
    {{"quant_mode", KVG_VALUE_INT, 0, 0, "1"}, set_quant_mode, NULL, 0},
    {{"round_scale", KVG_VALUE_BOOL, 0, 0, "true"}, set_round_scale, NULL,
     0},
    {{"scale", KVG_VALUE_FLOAT, 0, 0, "1.0"}, set_scale, NULL, 0},
    {{"layout", KVG_VALUE_INT, 0, 0, "2"}, set_layout, NULL, 0},
    {{"block_stride", KVG_VALUE_INT, 0, 0, "0"}, set_block_stride, NULL, 0},
};

KVG_I_OP_NO_OUTPUTS("indexer_compress_epilog");

/* Both caches hold quantisation results: compare judges them field by
 * field through the `row_layout` hook (kvg_op_row_layout: codes by code
 * distance under the standard, scales bit for bit, cr mode 2's scale rows
 * not at all): the one layout over the call's caches, for "cache" and
 * (cr) "cache_scale" alike (the caller finds its tensor with
 * kvg_row_tensor_of; slot values are not read; va_v2 has no cache_scale:
 * "none" for it). `written`: each token's slot but -1 in the tensor
 * asked about, from the layout the writes use (src/registry/row_hooks.h). */
KVG_I_OP_ROW_HOOKS(indexer_compress_epilog, KVG_I_SLOT_SKIP_MINUS1, "cache",
                   "cache_scale");

KVG_I_OP_DEFINE(indexer_compress_epilog, KVG_I_OP_ATTRS(k_attrs),
                .row_layout = kvg_i_indexer_compress_epilog_row_layout);
