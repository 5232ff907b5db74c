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
 * field through the row_layout hook below (codes by code distance under
 * the standard, scales bit for bit, cr mode 2's scale rows not at all). */
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
    const kvg_i_indexer_compress_epilog_plan *p;
    int tensor;    /* the layout's tensor asked about */
    int64_t esize; /* bytes an element of that tensor */
} slot_runs;

typedef struct run_ctx {
    kvg_i_run_sink *sink;
    int64_t esize;
} run_ctx;

/* Byte runs to element runs (scale segments start and end on elements). */
static void put(void *ctx, int64_t first, int64_t bytes)
{
    const run_ctx *c = (const run_ctx *)ctx;
    kvg_i_sink_put(c->sink, first / c->esize, bytes / c->esize);
}

/* Each written token's slot: its segments in the tensor asked about, from
 * the layout the writes use. */
static void enumerate(const void *ctx, kvg_i_run_sink *s)
{
    const slot_runs *c = (const slot_runs *)ctx;
    run_ctx rc;
    int64_t t, slot;

    rc.sink = s;
    rc.esize = c->esize;
    for (t = 0; t < c->p->tokens; t++) {
        slot = kvg_i_index_at(c->k->slot_mapping, t);
        if (kvg_i_packed_row_kept(KVG_I_SLOT_SKIP_MINUS1, slot, c->p->slots))
            kvg_i_packed_row_runs(&c->p->layout, c->tensor, slot, put, &rc);
    }
}

static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    kvg_i_indexer_compress_epilog_plan p;
    kvg_i_indexer_compress_epilog_ws ws;
    slot_runs runs;

    KVG_TRY(kvg_i_indexer_compress_epilog_validate(k, &p, &ws, diag));
    runs.k = k;
    runs.p = &p;
    runs.tensor = kvg_row_tensor_of(&p.layout, w->name);
    if (runs.tensor < 0 && strcmp(w->name, "cache_scale") == 0)
        return kvg_i_written_none(w); /* va_v2: no scale tensor */
    if (runs.tensor < 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: not a cache of indexer_compress_epilog",
                            w->name);
    runs.esize = (int64_t)kvg_dtype_size(
        runs.tensor == 0 ? k->cache->dtype : k->cache_scale->dtype);
    return kvg_i_written_collect(w, enumerate, &runs, diag);
}

/* The `row_layout` hook of struct kvg_op (kvg_op_row_layout): the one
 * layout over the call's caches, for "cache" and (cr) "cache_scale"
 * alike (the caller finds its tensor with kvg_row_tensor_of); slot values
 * are not read. Any other tensor: KVG_OK with an all-zero layout (none). */
static kvg_status row_layout(const void *args, const char *output,
                             kvg_row_layout *out, kvg_diag *diag)
{
    const kvg_i_op_args *a = (const kvg_i_op_args *)args;
    KVG_I_LOAD(op_args, a, k);
    kvg_i_indexer_compress_epilog_plan p;

    if (k == NULL || out == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "args", -1, -1,
                            "args: NULL argument struct or result");
    memset(out, 0, sizeof *out);
    if (output == NULL || (strcmp(output, "cache") != 0 &&
                           strcmp(output, "cache_scale") != 0))
        return KVG_OK; /* segments 0: no row layout (the hook's "none") */
    KVG_TRY(kvg_i_indexer_compress_epilog_check_args(k, &p, diag));
    if (kvg_row_tensor_of(&p.layout, output) < 0)
        return KVG_OK; /* va_v2 has no cache_scale */
    *out = p.layout;
    return KVG_OK;
}

KVG_I_OP_DEFINE(indexer_compress_epilog, KVG_I_OP_ATTRS(k_attrs),
                .row_layout = row_layout);
