/*
 * src/ops/reshape_and_cache/descriptor.c - ReshapeAndCache's descriptor
 * (src/registry/op_desc.h). value, value_cache, wins, seq_len and
 * offset_index are passed through when a case gives them, so the operator
 * refuses a tensor its compress type / kv_cache_cfg does not take (and
 * names one that is missing). No options.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/reshape_and_cache.h"
#include "src/common/internal.h"
#include "src/ops/reshape_and_cache/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_reshape_and_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(key, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(value, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(key_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(value_cache, KVG_OP_CACHE, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(wins, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(seq_len, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(offset_index, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
};

KVG_I_OP_SET_NAMED(set_compress, op_args, compress_type,
                   kvg_rac_compress_from_name);
KVG_I_OP_SET_NAMED(set_cfg, op_args, kv_cache_cfg,
                   kvg_rac_kv_cache_cfg_from_name);

static const kvg_i_op_choice k_layouts[] = {{"ND", KVG_LAYOUT_ND},
                                           {"NZ", KVG_LAYOUT_NZ}};
KVG_I_OP_SET_CHOICE(set_layout, op_args, cache_layout, kvg_layout_kind,
                    k_layouts);

static const kvg_i_op_attr k_attrs[] = {
    {{"compress_type", KVG_VALUE_STRING, 0, 0, "\"UNDEFINED\""},
     set_compress, "\"%s\" is not UNDEFINED, KVHEAD or KVHEAD_ROPE", 1},
    {{"cache_layout", KVG_VALUE_STRING, 0, 0, "\"ND\""}, set_layout,
     "\"%s\" is not ND or NZ", 1},
    {{"kv_cache_cfg", KVG_VALUE_STRING, 0, 0, "\"K_CACHE_V_CACHE\""},
     set_cfg, "\"%s\" is not K_CACHE_V_CACHE or K_CACHE_V_BYPASS", 1},
};

KVG_I_OP_NO_OUTPUTS("reshape_and_cache");

/* A copy, except KVHEAD_ROPE's mean token (arithmetic: compute). ND caches
 * [blocks, block_size, N, D]; NZ [blocks, N*D/C0, block_size, C0] with N
 * and D from key / value [tokens, N, D]. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    KVG_I_LOAD(op_args, a, r);
    const kvg_tensor *src =
        strcmp(name, "key_cache") == 0 ? r->key : r->value;

    *role = r->compress_type == KVG_RAC_COMPRESS_KVHEAD_ROPE
                ? KVG_ROLE_COMPUTE
                : KVG_ROLE_COPY;
    if (t->rank != 4)
        return;
    if (r->cache_layout == KVG_LAYOUT_NZ) {
        if (src != NULL && src->rank == 3)
            kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_NZ,
                                t->shape[0], t->shape[2], src->shape[1],
                                src->shape[2], t->shape[3]);
    } else {
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_ND, t->shape[0],
                            t->shape[1], t->shape[2], t->shape[3], 0);
    }
}

/* One per-token cache of a validated call. */
typedef struct token_rows {
    const op_args *k;
    const kvg_i_reshape_and_cache_geo *g;
    kvg_cache_layout lay;
} token_rows;

/* A token's N*D channels go to its slot: one row in ND, N*D/C0 runs of C0
 * in NZ. */
static void enumerate_tokens(const void *ctx, kvg_i_run_sink *s)
{
    const token_rows *c = (const token_rows *)ctx;
    int64_t t;

    for (t = 0; t < c->g->tokens; t++) {
        const int64_t slot = kvg_i_index_at(c->k->slot_mapping, t);
        if (slot >= 0) /* a negative slot is a padding token: skipped */
            kvg_i_sink_row(s, &c->lay,
                           kvg_i_reshape_and_cache_slot_coord(c->g, slot),
                           c->lay.heads * c->lay.dim);
    }
}

/* Per token, or per head through the run engine (KVHEAD, KVHEAD_ROPE);
 * both caches get the same slots. */
static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_key = strcmp(w->name, "key_cache") == 0;
    kvg_i_reshape_and_cache_plan p;
    kvg_i_reshape_and_cache_ws ws;
    token_rows rows;

    KVG_TRY(kvg_i_reshape_and_cache_validate(k, &p, &ws, diag));
    if (!p.per_token)
        return kvg_i_written_collect(w, kvg_i_runs_enumerate, &p.r, diag);
    if (!is_key && p.g.key_only)
        return kvg_i_written_none(w);
    rows.k = k;
    rows.g = &p.g;
    kvg_i_reshape_and_cache_token_layout(
        is_key ? k->key_cache : k->value_cache, &p.g, is_key ? p.g.dk : p.g.dv,
        &rows.lay);
    return kvg_i_written_collect(w, enumerate_tokens, &rows, diag);
}

KVG_I_OP_DEFINE(reshape_and_cache, KVG_I_OP_ATTRS(k_attrs));
