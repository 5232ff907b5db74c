/*
 * src/ops/indexer_compress_epilog/entry.c - the indexer compress epilogs:
 * the entry points (through the entry skeleton, src/common/entry.h) and
 * the compute step: each written token's row through the packed-row
 * engine, with the layout and rule of the call's preset (presets.c;
 * validation in check.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/entry.h"
#include "src/ops/indexer_compress_epilog/internal.h"

void kvg_indexer_compress_epilog_args_init(
    kvg_indexer_compress_epilog_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    /* the op_defs' defaults: CR def.cpp:73-75, VA def.cpp (layout 2,
     * block_stride 0) */
    args->impl = KVG_ICE_CR;
    args->quant_mode = 1;
    args->round_scale = 1;
    args->scale = 1.0;
    args->layout = 2;
    args->block_stride = 0;
}

int kvg_ice_impl_from_name(const char *name, kvg_ice_impl *impl)
{
    int i;

    if (name == NULL || impl == NULL)
        return 0;
    for (i = 0; i <= (int)KVG_ICE_VA_V2; i++)
        if (strcmp(name, kvg_i_ice_impl_name((kvg_ice_impl)i)) == 0) {
            *impl = (kvg_ice_impl)i;
            return 1;
        }
    return 0;
}

static void compute(const kvg_indexer_compress_epilog_args *a,
                    const kvg_i_indexer_compress_epilog_plan *p)
{
    const unsigned char *x = (const unsigned char *)a->x->data;
    unsigned char *const tensor[KVG_ROW_TENSORS] = {
        (unsigned char *)a->cache->data,
        a->cache_scale != NULL ? (unsigned char *)a->cache_scale->data
                               : NULL};
    /* -1 skips; other values were checked (check.c) */
    const kvg_i_packed_tokens k = {a->slot_mapping, p->tokens, p->slots,
                                   KVG_I_SLOT_SKIP_MINUS1};
    const kvg_i_token_rows rows = {x, (size_t)p->d * 2, NULL, NULL, NULL};
    kvg_i_packed_row row;
    int i;

    row.layout = &p->layout;
    row.x_scale = p->x_scale;
    row.head_columns = 0; /* one head: the row is the token's x */
    for (i = 0; i < KVG_ROW_SEGMENTS; i++) {
        row.rule[i] = p->payload[i] ? &p->rule : NULL;
        row.column[i] = p->column[i];
    }
    kvg_i_packed_row_write_tokens(&row, &k, tensor, &rows);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_indexer_compress_epilog_args args_t;

/* Written: the cache, and cr's cache_scale. */
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

KVG_I_ENTRY_KEYED_STEPS(indexer_compress_epilog);

KVG_I_ENTRY_POINTS(indexer_compress_epilog,
                   kvg_i_indexer_compress_epilog_plan,
                   kvg_i_indexer_compress_epilog_ws);
