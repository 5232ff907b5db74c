/*
 * src/ops/reshape_and_cache_omni/descriptor.c - ReshapeAndCacheOmni's
 * descriptor (src/registry/op_desc.h): eight tensors, all required; no
 * attributes and no options (ATB's param is eight reserved bytes), so a case
 * naming any is malformed.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/reshape_and_cache_omni.h"
#include "src/common/internal.h"
#include "src/ops/reshape_and_cache_omni/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_reshape_and_cache_omni_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(key, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(value, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(key_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(value_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(wins, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(seq_len, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(offset_index, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
};

KVG_I_OP_NO_OUTPUTS("reshape_and_cache_omni");

/* A bit-exact copy into [blocks, block_size, 1, D] caches. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    (void)a;
    (void)name;
    *role = KVG_ROLE_COPY;
    if (t->rank == 4)
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_ND, t->shape[0],
                            t->shape[1], t->shape[2], t->shape[3], 0);
}

/* Both caches get the same slots: each written head's run of them. */
static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    kvg_i_runs r;
    kvg_i_runs_ws ws;

    KVG_TRY(kvg_i_reshape_and_cache_omni_validate(k, &r, &ws, diag));
    return kvg_i_written_collect(w, kvg_i_runs_enumerate, &r, diag);
}

KVG_I_OP_DEFINE(reshape_and_cache_omni, .attrs = NULL);
