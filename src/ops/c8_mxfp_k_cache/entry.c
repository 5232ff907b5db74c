/*
 * src/ops/c8_mxfp_k_cache/entry.c - the C8-MXFP K write: the entry points
 * (through the entry skeleton, src/common/entry.h) and the compute step:
 * each token's N heads through the packed-row engine with the layout and
 * rule of layout.c (validation in check.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/entry.h"
#include "src/ops/c8_mxfp_k_cache/internal.h"

void kvg_c8_mxfp_k_cache_args_init(kvg_c8_mxfp_k_cache_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
}

/* A real token writes both caches; a pad row (negative slot) only the
 * scale cache, at slot 0 (the layout's sink_slot): the payload scatter
 * skips it, the scale scatter clamps it (KVG_I_SLOT_SINK_SCALES). In
 * token order, so of several pad rows the last one's scales stay there
 * (compare does not judge them). */
static void compute(const kvg_c8_mxfp_k_cache_args *a,
                    const kvg_i_c8_mxfp_k_cache_plan *p)
{
    unsigned char *const both[KVG_ROW_TENSORS] = {
        (unsigned char *)a->key_cache->data,
        (unsigned char *)a->key_scale_cache->data};
    const kvg_i_packed_tokens k = {a->slot_mapping, p->tokens, p->slots,
                                   KVG_I_SLOT_SINK_SCALES};
    const kvg_i_token_rows rows = {
        (const unsigned char *)a->key->data,
        (size_t)(p->heads * p->d) * kvg_i_group_x_bytes(&p->rule), NULL,
        NULL, NULL};
    kvg_i_packed_row w;

    memset(&w, 0, sizeof w); /* no rule, column 0 for every segment */
    w.layout = &p->layout;
    w.rule[0] = &p->rule;
    w.head_columns = p->d; /* key [T, N, D]: head n's row at n * D */
    kvg_i_packed_row_write_tokens(&w, &k, both, &rows);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_c8_mxfp_k_cache_args args_t;

/* Written: both caches. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {{"key", a->key, 0},
                               {"slot_mapping", a->slot_mapping, 0},
                               {"key_cache", a->key_cache, 1},
                               {"key_scale_cache", a->key_scale_cache, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

KVG_I_ENTRY_KEYED_STEPS(c8_mxfp_k_cache);

KVG_I_ENTRY_POINTS(c8_mxfp_k_cache, kvg_i_c8_mxfp_k_cache_plan,
                   kvg_i_c8_mxfp_k_cache_ws);
