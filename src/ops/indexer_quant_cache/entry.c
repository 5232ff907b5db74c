/*
 * src/ops/indexer_quant_cache/entry.c - IndexerQuantCache: the entry
 * points (through the entry skeleton, src/common/entry.h) and the compute
 * step: each written token's row through the packed-row engine, codes into
 * cache and scales into cache_scale by the one two-tensor layout of the
 * mode (layout.c; validation in check.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/entry.h"
#include "src/ops/indexer_quant_cache/internal.h"

void kvg_indexer_quant_cache_args_init(kvg_indexer_quant_cache_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    /* the op_def's defaults (indexer_quant_cache_def.cpp:91-93) */
    args->quant_mode = 1;
    args->round_scale = 1;
    args->x_scale = 1.0;
}

static void compute(const kvg_indexer_quant_cache_args *a,
                    const kvg_i_indexer_quant_cache_plan *p)
{
    const unsigned char *x = (const unsigned char *)a->x->data;
    unsigned char *const tensor[KVG_ROW_TENSORS] = {
        (unsigned char *)a->cache->data,
        (unsigned char *)a->cache_scale->data};
    /* -1 skips (single_row.h:65); other values were checked */
    const kvg_i_packed_tokens k = {a->slot_mapping, p->tokens, p->slots,
                                   KVG_I_SLOT_SKIP_MINUS1};
    const kvg_i_token_rows rows = {x, (size_t)p->d * 2, NULL, NULL, NULL};
    kvg_i_packed_row row;

    memset(&row, 0, sizeof row); /* every column 0, one head */
    row.layout = &p->layout;
    row.x_scale = p->x_scale;
    row.rule[0] = &p->rule; /* segment 0: the codes, all d columns */
    kvg_i_packed_row_write_tokens(&row, &k, tensor, &rows);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_indexer_quant_cache_args args_t;

/* Written: both caches. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {{"x", a->x, 0},
                               {"slot_mapping", a->slot_mapping, 0},
                               {"cache", a->cache, 1},
                               {"cache_scale", a->cache_scale, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

KVG_I_ENTRY_KEYED_STEPS(indexer_quant_cache);

KVG_I_ENTRY_POINTS(indexer_quant_cache, kvg_i_indexer_quant_cache_plan,
                   kvg_i_indexer_quant_cache_ws);
