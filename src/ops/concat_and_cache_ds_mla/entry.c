/*
 * src/ops/concat_and_cache_ds_mla/entry.c - the packed C8 MLA row: the
 * entry points (through the entry skeleton, src/common/entry.h) and the
 * compute step: each written token's bf16 row (front.c) through the
 * packed-row engine with the preset's layout and rule (presets.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/entry.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"

void kvg_concat_and_cache_ds_mla_args_init(
    kvg_concat_and_cache_ds_mla_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->preset = KVG_CCDM_ASCEND_SFA_C8;
    args->epsilon = 1e-5;
    args->reduce_order = KVG_REDUCE_PAIRWISE;
}

int kvg_ccdm_preset_from_name(const char *name, kvg_ccdm_preset *preset)
{
    int i;

    if (name == NULL || preset == NULL)
        return 0;
    for (i = 0; i <= (int)KVG_CCDM_FLASHMLA_MODEL1; i++)
        if (strcmp(name, kvg_i_ccdm_preset_name((kvg_ccdm_preset)i)) == 0) {
            *preset = (kvg_ccdm_preset)i;
            return 1;
        }
    return 0;
}

/* The engine's row maker: token t's bf16 row (front.c). */
typedef struct row_ctx {
    const kvg_concat_and_cache_ds_mla_args *a;
    const kvg_i_concat_and_cache_ds_mla_plan *p;
} row_ctx;

static void make_row(const void *ctx, int64_t t, unsigned char *row)
{
    const row_ctx *c = (const row_ctx *)ctx;

    kvg_i_ccdm_row(c->a, c->p, t, row);
}

static void compute(const kvg_concat_and_cache_ds_mla_args *a,
                    const kvg_i_concat_and_cache_ds_mla_plan *p)
{
    unsigned char *const tensor[KVG_ROW_TENSORS] = {
        (unsigned char *)a->kv_cache->data, NULL};
    unsigned char row[KVG_CCDM_XROW];
    const row_ctx ctx = {a, p};
    const kvg_i_packed_tokens k = {a->slot_mapping, p->tokens, p->slots,
                                   p->policy};
    const kvg_i_token_rows rows = {NULL, 0, make_row, &ctx, row};
    kvg_i_packed_row pr;
    int i;

    memset(&pr, 0, sizeof pr);
    pr.layout = &p->layout;
    pr.x_scale = 1.0f;
    for (i = 0; i < p->layout.segments; i++) {
        const kvg_row_segment *s = &p->layout.seg[i];
        pr.rule[i] = s->field == KVG_ROW_PAYLOAD ? &p->rule : NULL;
        /* the row is [nope | rope 64] whatever the cache's order */
        pr.column[i] = strcmp(s->name, "rope") == 0 ? p->nope : 0;
    }
    kvg_i_packed_row_write_tokens(&pr, &k, tensor, &rows);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_concat_and_cache_ds_mla_args args_t;

/* Written: the cache. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {{"kv_c", a->kv_c, 0},
                               {"k_pe", a->k_pe, 0},
                               {"gamma", a->gamma, 0},
                               {"cos", a->cos, 0},
                               {"sin", a->sin, 0},
                               {"slot_mapping", a->slot_mapping, 0},
                               {"kv_cache", a->kv_cache, 1},
                               {"scale", a->scale, 0}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

KVG_I_ENTRY_KEYED_STEPS(concat_and_cache_ds_mla);

KVG_I_ENTRY_POINTS(concat_and_cache_ds_mla,
                   kvg_i_concat_and_cache_ds_mla_plan,
                   kvg_i_concat_and_cache_ds_mla_ws);
