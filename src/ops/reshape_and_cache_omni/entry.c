/*
 * src/ops/reshape_and_cache_omni/entry.c - ReshapeAndCacheOmni: the per-head
 * run engine (src/engines/head_runs.c) in its OMNI kind,
 * which is the KVHEAD_ROPE kernel without the compensation token, run
 * through the entry skeleton (src/common/entry.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/reshape_and_cache_omni.h"

#include <string.h>

#include "src/common/entry.h"
#include "src/common/internal.h"
#include "src/engines/head_runs.h"
#include "src/ops/reshape_and_cache_omni/internal.h"

typedef kvg_reshape_and_cache_omni_args args_t;

/* The shared engine applies ATB's limits, which this header publishes. */
typedef char kvg_i_reshape_and_cache_omni_limits_agree
    [KVG_OMNI_MAX_DIM == KVG_I_RUNS_ATB_MAX_DIM &&
             KVG_OMNI_MAX_HEADS == KVG_I_RUNS_ATB_MAX_HEADS
         ? 1
         : -1];

void kvg_reshape_and_cache_omni_args_init(args_t *args)
{
    if (args != NULL)
        memset(args, 0, sizeof *args);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

/* The run engine's view of the call, its shapes checked. */
static kvg_status e_check(const void *args, void *plan, kvg_diag *diag)
{
    const args_t *a = (const args_t *)args;
    kvg_i_runs *r = (kvg_i_runs *)plan;

    memset(r, 0, sizeof *r);
    r->kind = KVG_I_RUN_OMNI;
    r->key = a->key;
    r->value = a->value;
    r->key_cache = a->key_cache;
    r->value_cache = a->value_cache;
    r->slot_mapping = a->slot_mapping;
    r->wins = a->wins;
    r->seq_len = a->seq_len;
    r->offset_index = a->offset_index;
    return kvg_i_runs_check_shapes(r, diag);
}

static size_t e_spans(const void *a, const void *r, kvg_i_span *s)
{
    (void)a;
    return kvg_i_runs_spans((const kvg_i_runs *)r, s);
}

static void e_carve(const void *r, kvg_i_ws *ws, void *w)
{
    kvg_i_runs_carve((const kvg_i_runs *)r, ws, (kvg_i_runs_ws *)w);
}

static kvg_status e_values(const void *a, const void *r, void *w,
                           kvg_diag *diag)
{
    (void)a;
    return kvg_i_runs_check_values((const kvg_i_runs *)r,
                                   (const kvg_i_runs_ws *)w, diag);
}

static void e_compute(const void *a, const void *r, void *w)
{
    (void)a;
    kvg_i_runs_write((const kvg_i_runs *)r, (const kvg_i_runs_ws *)w);
}

KVG_I_ENTRY_POINTS(reshape_and_cache_omni, kvg_i_runs,
                   kvg_i_runs_ws);
