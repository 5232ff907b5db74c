/*
 * src/ops/scatter_pa_kv_cache/descriptor.c - ScatterPaKvCache's descriptor
 * (src/registry/op_desc.h). value / value_cache are optional (key-only);
 * the compressed modes' index tensors are passed through when a case gives
 * them, so the operator refuses a tensor its mode does not take.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/scatter_pa_kv_cache.h"
#include "src/common/internal.h"
#include "src/ops/scatter_pa_kv_cache/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_scatter_pa_kv_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(key, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(key_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(value, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(value_cache, KVG_OP_CACHE, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(compress_lens, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(compress_seq_offset, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(seq_lens, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
};

/* aclnn reads an empty cache_mode as Norm; the other modes of the shared
 * vocabulary parse here and are refused by name in the op's check. */
static int cache_mode_from_name(const char *name, kvg_cache_mode *mode)
{
    if (name != NULL && name[0] == '\0') {
        *mode = KVG_CACHE_NORM;
        return 1;
    }
    return kvg_cache_mode_from_name(name, mode);
}

KVG_I_OP_SET_NAMED(set_cache_mode, op_args, cache_mode, cache_mode_from_name);
KVG_I_OP_SET_NAMED(set_scatter_mode, op_args, scatter_mode,
                   kvg_scatter_mode_from_name);

/* strides / offsets: two integers, [key, value]. */
static kvg_status set_pair(kvg_i_op_args *a, const kvg_i_op_attr *attr,
                           const kvg_value *v, kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    int64_t *dst = strcmp(attr->info.name, "strides") == 0 ? k->strides
                                                            : k->offsets;
    if (v->count != 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr->info.name, -1,
                            -1, "%s: must hold 2 integers [key, value], got "
                            "%zu",
                            attr->info.name, v->count);
    dst[0] = v->ints[0];
    dst[1] = v->ints[1];
    KVG_I_STORE(a, k);
    return KVG_OK;
}

static const kvg_i_op_attr k_attrs[] = {
    {{"cache_mode", KVG_VALUE_STRING, 0, 0, "\"Norm\""}, set_cache_mode,
     "\"%s\" is not Norm, PA_NZ or \"\"", 1},
    {{"scatter_mode", KVG_VALUE_STRING, 0, 0, "\"None\""}, set_scatter_mode,
     "\"%s\" is not None, Nct, NHSD, Alibi, Rope or Omni", 1},
    {{"strides", KVG_VALUE_INTS, 0, 0, "[1, 1]"}, set_pair, NULL, 0},
    {{"offsets", KVG_VALUE_INTS, 0, 0, "[0, 0]"}, set_pair, NULL, 0},
};

KVG_I_OP_NO_OUTPUTS("scatter_pa_kv_cache");

/* A bit copy. Norm [NB, BS, N, D] (ND); NHSD [NB, N, BS, D] (BNSD); PA_NZ
 * [NB, N*D/C0, BS, C0] or [NB, N, D/C0, BS, C0] with N, D from the source
 * [T, N, D]. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    KVG_I_LOAD(op_args, a, r);
    const kvg_tensor *src =
        strcmp(name, "key_cache") == 0 ? r->key : r->value;

    /* all copies but Rope's mean token (arithmetic) */
    *role = r->scatter_mode == KVG_SCATTER_ROPE ? KVG_ROLE_COMPUTE
                                                : KVG_ROLE_COPY;
    if (r->cache_mode == KVG_CACHE_PA_NZ) {
        if (t->rank == 4 && src != NULL && src->rank == 3)
            kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_NZ,
                                t->shape[0], t->shape[2], src->shape[1],
                                src->shape[2], t->shape[3]);
        else if (t->rank == 5)
            kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_NZ,
                                t->shape[0], t->shape[3], t->shape[1],
                                t->shape[2] * t->shape[4], t->shape[4]);
        return;
    }
    if (t->rank != 4)
        return;
    if (r->scatter_mode == KVG_SCATTER_NHSD)
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_BNSD, t->shape[0],
                            t->shape[2], t->shape[1], t->shape[3], 0);
    else
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_ND, t->shape[0],
                            t->shape[1], t->shape[2], t->shape[3], 0);
}

typedef struct token_rows {
    const op_args *k;
    const kvg_i_scatter_pa_kv_cache_plan *p;
    const kvg_i_scatter_pa_kv_cache_side *sd;
} token_rows;

/* Each written token: one row of N*D in ND and NZ (the sink cuts an NZ row
 * into its C0 groups), one row of D per head in BNSD. */
static void enumerate_tokens(const void *ctx, kvg_i_run_sink *s)
{
    const token_rows *c = (const token_rows *)ctx;
    const kvg_i_scatter_pa_kv_cache_plan *p = c->p;
    int64_t t, h;

    for (t = 0; t < p->tokens; t++) {
        const int64_t slot = kvg_i_index_at(c->k->slot_mapping, t);
        if (slot < 0)
            continue; /* a padding token: skipped */
        if (c->sd->lay.kind != KVG_LAYOUT_BNSD) {
            kvg_i_sink_row(s, &c->sd->lay,
                           kvg_i_scatter_pa_kv_cache_coord(p, slot, 0),
                           p->heads * c->sd->dim);
            continue;
        }
        for (h = 0; h < p->heads; h++)
            kvg_i_sink_row(s, &c->sd->lay,
                           kvg_i_scatter_pa_kv_cache_coord(p, slot, h),
                           c->sd->dim);
    }
}

static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_key = strcmp(w->name, "key_cache") == 0;
    kvg_i_scatter_pa_kv_cache_plan p;
    kvg_i_scatter_pa_kv_cache_ws ws;
    token_rows rows;

    KVG_TRY(kvg_i_scatter_pa_kv_cache_validate(k, &p, &ws, diag));
    if (p.per_head) /* both caches get the same runs of slots */
        return kvg_i_written_collect(w, kvg_i_runs_enumerate, &p.r, diag);
    if (!is_key && p.sides == 1)
        return kvg_i_written_none(w); /* key-only: no value cache */
    rows.k = k;
    rows.p = &p;
    rows.sd = &p.side[is_key ? 0 : 1];
    return kvg_i_written_collect(w, enumerate_tokens, &rows, diag);
}

KVG_I_OP_DEFINE(scatter_pa_kv_cache, KVG_I_OP_ATTRS(k_attrs));
