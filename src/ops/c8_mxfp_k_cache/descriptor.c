/*
 * src/ops/c8_mxfp_k_cache/descriptor.c - the C8-MXFP K write's descriptor
 * (src/registry/op_desc.h); docs/c8_mxfp_k_cache.md, "Case files", lists
 * the same names. No attributes: dst_type e4m3fn, block 32, scale_alg 0
 * and the PA_NZ mode are fixed by the source.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/c8_mxfp_k_cache.h"
#include "src/common/internal.h"
#include "src/ops/c8_mxfp_k_cache/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_c8_mxfp_k_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(key, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(slot_mapping, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(key_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(key_scale_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 0),
};

KVG_I_OP_NO_OUTPUTS("c8_mxfp_k_cache");

/* Both caches are judged field by field through the row_layout hook
 * below: the payload by fp8 code distance under the standard, the E8M0
 * scales bit for bit, the untouched bytes of each cache exactly. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    (void)a;
    (void)name;
    (void)t;
    (void)has_layout;
    (void)layout;
    *role = KVG_ROLE_QUANT;
}

typedef struct slot_runs {
    const op_args *k;
    const kvg_i_c8_mxfp_k_cache_plan *p;
    int tensor; /* 0 key_cache, 1 key_scale_cache */
} slot_runs;

static void put(void *sink, int64_t first, int64_t bytes)
{
    kvg_i_sink_put((kvg_i_run_sink *)sink, first, bytes);
}

/* What compute writes, from the layout the writes use (one byte an
 * element in both caches): a real token's slot in both caches, a pad
 * row's scales at slot 0. */
static void enumerate(const void *ctx, kvg_i_run_sink *s)
{
    const slot_runs *c = (const slot_runs *)ctx;
    int64_t t, slot;

    for (t = 0; t < c->p->tokens; t++) {
        slot = kvg_i_index_at(c->k->slot_mapping, t);
        if (slot >= 0)
            kvg_i_packed_row_runs(&c->p->layout, c->tensor, slot, put, s);
        else if (c->tensor == 1)
            kvg_i_packed_row_runs(&c->p->layout, 1, 0, put, s);
    }
}

static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    kvg_i_c8_mxfp_k_cache_plan p;
    kvg_i_c8_mxfp_k_cache_ws ws;
    slot_runs runs;

    KVG_TRY(kvg_i_c8_mxfp_k_cache_validate(k, &p, &ws, diag));
    runs.k = k;
    runs.p = &p;
    runs.tensor = kvg_row_tensor_of(&p.layout, w->name);
    return kvg_i_written_collect(w, enumerate, &runs, diag);
}

/* The `row_layout` hook of struct kvg_op (kvg_op_row_layout): the one
 * layout of both caches, for compare, scan and explain-layout; its sink
 * (slot 0's scales UNDEFINED) is on when two or more pad rows race there,
 * which needs slot_mapping's values. */
static kvg_status row_layout(const void *args, const char *output,
                             kvg_row_layout *out, kvg_diag *diag)
{
    const kvg_i_op_args *a = (const kvg_i_op_args *)args;
    KVG_I_LOAD(op_args, a, k);
    kvg_i_c8_mxfp_k_cache_plan p;

    if (k == NULL || out == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "args", -1, -1,
                            "args: NULL argument struct or result");
    memset(out, 0, sizeof *out);
    if (output == NULL || (strcmp(output, "key_cache") != 0 &&
                           strcmp(output, "key_scale_cache") != 0))
        return KVG_OK; /* segments 0: no row layout (the hook's "none") */
    KVG_TRY(kvg_i_c8_mxfp_k_cache_check_args(k, &p, diag));
    p.layout.has_sink = kvg_i_mxk_sink(k->slot_mapping, p.tokens);
    *out = p.layout;
    return KVG_OK;
}

KVG_I_OP_DEFINE(c8_mxfp_k_cache, .row_layout = row_layout);
