/*
 * src/ops/kv_compress_epilog/descriptor.c - KvCompressEpilog's descriptor
 * (src/registry/op_desc.h); docs/kv_compress_epilog.md, "Case files",
 * lists the same names. `impl` picks the implementation; the other
 * attributes are the union of theirs (cr's `scale` is x_scale).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/kv_compress_epilog.h"
#include "src/ops/kv_compress_epilog/internal.h"
#include "src/registry/op_desc.h"
#include "src/registry/row_hooks.h"

typedef kvg_kv_compress_epilog_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(x, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
};

KVG_I_OP_SET_NAMED(set_impl, op_args, impl, kvg_kce_impl_from_name);
KVG_I_OP_SET_VALUE(set_quant_mode, op_args, quant_mode, int64_t, i);
KVG_I_OP_SET_VALUE(set_group, op_args, quant_group_size, int64_t, i);
KVG_I_OP_SET_VALUE(set_round_scale, op_args, round_scale, int, i);
KVG_I_OP_SET_VALUE(set_x_scale, op_args, x_scale, double, f);
KVG_I_OP_SET_VALUE(set_layout, op_args, layout, int64_t, i);
KVG_I_OP_SET_VALUE(set_block_stride, op_args, block_stride, int64_t, i);

static const kvg_i_op_attr k_attrs[] = {
    {{"impl", KVG_VALUE_STRING, 0, 0, "\"ot\""}, set_impl,
     "\"%s\" is not ot, sgk, va, cr or cr_v2", 0},
    {{"quant_mode", KVG_VALUE_INT, 0, 0, "1"}, set_quant_mode, NULL, 0},
    {{"quant_group_size", KVG_VALUE_INT, 0, 0, "0"}, set_group, NULL, 0},
    {{"round_scale", KVG_VALUE_BOOL, 0, 0, "true"}, set_round_scale, NULL,
     0},
    {{"x_scale", KVG_VALUE_FLOAT, 0, 0, "1.0"}, set_x_scale, NULL, 0},
    {{"layout", KVG_VALUE_INT, 0, 0, "1"}, set_layout, NULL, 0},
    {{"block_stride", KVG_VALUE_INT, 0, 0, "0"}, set_block_stride, NULL, 0},
};

KVG_I_OP_NO_OUTPUTS("kv_compress_epilog");

/* The cache mixes payload codes, scales and copied bytes: the
 * `row_layout` hook of struct kvg_op (kvg_op_row_layout) gives its
 * checked layout, for compare (which judges it field by field: every
 * kvgold path asks for it), scan and explain-layout (slot values are not
 * read: it refuses what check_args refuses); `describe` its role, the
 * payload's (KVG_ROLE_QUANT); `written` each kept token's slot, from the
 * layout the writes use (src/registry/row_hooks.h). */
KVG_I_OP_ROW_HOOKS(kv_compress_epilog, p->policy, "cache");

KVG_I_OP_DEFINE(kv_compress_epilog, KVG_I_OP_ATTRS(k_attrs),
                .row_layout = kvg_i_kv_compress_epilog_row_layout);
