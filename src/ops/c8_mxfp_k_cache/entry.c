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

/* In token order, so of several pad rows the last one's scales stay in
 * slot 0 (the sink; compare does not judge them). A real token writes
 * both caches; a pad row (negative slot) only the scale cache, at slot 0:
 * the payload scatter skips it, the scale scatter clamps it. */
static void compute(const kvg_c8_mxfp_k_cache_args *a,
                    const kvg_i_c8_mxfp_k_cache_plan *p)
{
    const unsigned char *x = (const unsigned char *)a->key->data;
    const size_t row =
        (size_t)(p->heads * p->d) * kvg_i_group_x_bytes(&p->rule);
    unsigned char *const both[KVG_ROW_TENSORS] = {
        (unsigned char *)a->key_cache->data,
        (unsigned char *)a->key_scale_cache->data};
    unsigned char *const scales[KVG_ROW_TENSORS] = {
        NULL, (unsigned char *)a->key_scale_cache->data};
    kvg_i_packed_row w;
    int64_t t, slot;

    memset(&w, 0, sizeof w); /* no rule, column 0 for every segment */
    w.layout = &p->layout;
    w.rule[0] = &p->rule;
    w.head_columns = p->d; /* key [T, N, D]: head n's row at n * D */
    for (t = 0; t < p->tokens; t++) {
        slot = kvg_i_index_at(a->slot_mapping, t);
        if (slot >= 0)
            kvg_i_packed_row_write(&w, both, x + (size_t)t * row, slot);
        else
            kvg_i_packed_row_write(&w, scales, x + (size_t)t * row, 0);
    }
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_c8_mxfp_k_cache_args args_t;
typedef kvg_i_c8_mxfp_k_cache_plan plan_t;
typedef kvg_i_c8_mxfp_k_cache_ws ws_t;

static kvg_status e_check(const void *a, void *p, kvg_diag *diag)
{
    return kvg_i_c8_mxfp_k_cache_check_args((const args_t *)a, (plan_t *)p,
                                            diag);
}

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

/* One key a token for the duplicate-slot check. */
static void e_carve(const void *p, kvg_i_ws *ws, void *w)
{
    ((ws_t *)w)->keys = (kvg_i_keypos *)kvg_i_ws_take(
        ws, (size_t)((const plan_t *)p)->tokens, sizeof(kvg_i_keypos));
}

static kvg_status e_values(const void *a, const void *p, void *w,
                           kvg_diag *diag)
{
    return kvg_i_c8_mxfp_k_cache_check_values(
        (const args_t *)a, (const plan_t *)p, (const ws_t *)w, diag);
}

static void e_compute(const void *a, const void *p, void *w)
{
    (void)w;
    compute((const args_t *)a, (const plan_t *)p);
}

KVG_I_ENTRY_POINTS(c8_mxfp_k_cache, kvg_i_c8_mxfp_k_cache_plan,
                   kvg_i_c8_mxfp_k_cache_ws);
