/*
 * src/ops/scatter_pa_kv_cache/internal.h - what the descriptor of
 * ScatterPaKvCache needs from its entry point: the checked geometry of a
 * call and its addressing.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_SCATTER_PA_KV_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_SCATTER_PA_KV_CACHE_INTERNAL_H

#include <stdint.h>

#include "kvgold/layout.h"
#include "kvgold/scatter_pa_kv_cache.h"
#include "src/common/internal.h"
#include "src/engines/head_runs.h"

/* One side (K or V) of a per-token call. */
typedef struct kvg_i_scatter_pa_kv_cache_side {
    const kvg_tensor *src;   /* key / value (Nct: their storage) */
    const kvg_tensor *cache; /* key_cache / value_cache */
    int64_t dim;             /* head size */
    int64_t stride, offset;  /* token t starts at element t*stride + offset */
    kvg_cache_layout lay;    /* ND (Norm), BNSD (NHSD) or NZ */
} kvg_i_scatter_pa_kv_cache_side;

/* A validated call: per token, or per head through the shared run engine
 * (r: Alibi = KVHEAD, Rope = KVHEAD_ROPE, Omni = OMNI). */
typedef struct kvg_i_scatter_pa_kv_cache_plan {
    int per_head;
    kvg_i_runs r;
    int sides; /* 1: key-only, 2: key and value */
    int64_t tokens, heads, blocks, block_size, slots;
    kvg_i_scatter_pa_kv_cache_side side[2];
} kvg_i_scatter_pa_kv_cache_plan;

typedef struct kvg_i_scatter_pa_kv_cache_ws {
    kvg_i_keypos *items; /* per token: the slot sort's tokens */
    kvg_i_runs_ws runs;  /* per head */
} kvg_i_scatter_pa_kv_cache_ws;

/* Everything kvg_scatter_pa_kv_cache checks before it writes a byte
 * (kvg_i_entry_validate), shared with the descriptor's `written`. */
kvg_status
kvg_i_scatter_pa_kv_cache_validate(const kvg_scatter_pa_kv_cache_args *args,
                                   kvg_i_scatter_pa_kv_cache_plan *plan,
                                   kvg_i_scatter_pa_kv_cache_ws *pieces,
                                   kvg_diag *diag);

/* Where head `head` of the token written to flat slot s starts. */
kvg_cache_coord
kvg_i_scatter_pa_kv_cache_coord(const kvg_i_scatter_pa_kv_cache_plan *p,
                                int64_t s, int64_t head);

#endif /* KVGOLD_SRC_OPS_SCATTER_PA_KV_CACHE_INTERNAL_H */
