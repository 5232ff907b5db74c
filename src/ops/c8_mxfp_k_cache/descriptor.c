/*
 * src/ops/c8_mxfp_k_cache/descriptor.c - the C8-MXFP K write's descriptor
 * (src/registry/op_desc.h); docs/c8_mxfp_k_cache.md, "Case files", lists
 * the same names. No attributes: dst_type e4m3fn, block 32, scale_alg 0
 * and the PA_NZ mode are fixed by the source.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/c8_mxfp_k_cache.h"
#include "src/ops/c8_mxfp_k_cache/internal.h"
#include "src/registry/op_desc.h"
#include "src/registry/row_hooks.h"

typedef kvg_c8_mxfp_k_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(key, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(key_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(key_scale_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
};

KVG_I_OP_NO_OUTPUTS("c8_mxfp_k_cache");

/* Both caches are judged field by field through the `row_layout` hook of
 * struct kvg_op (kvg_op_row_layout): the payload by fp8 code distance
 * under the standard (KVG_ROLE_QUANT), the E8M0 scales bit for bit, the
 * untouched bytes of each cache exactly. The hook gives the one layout
 * of both caches, for compare, scan and explain-layout; its sink (slot
 * 0's scales UNDEFINED) is on when two or more pad rows race there, which
 * needs slot_mapping's values. `written`: a real token's slot in both
 * caches, a pad row's scales at slot 0 (SINK_SCALES), from the layout the
 * writes use (src/registry/row_hooks.h). */
KVG_I_OP_ROW_HOOKS(c8_mxfp_k_cache, KVG_I_SLOT_SINK_SCALES, "key_cache",
                   "key_scale_cache");

KVG_I_OP_DEFINE(c8_mxfp_k_cache,
                .row_layout = kvg_i_c8_mxfp_k_cache_row_layout);
