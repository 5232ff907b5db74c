/*
 * src/ops/reshape_and_cache/internal.h - what the descriptor of
 * ReshapeAndCache needs from its entry point: the checked geometry of a
 * call and its addressing.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_INTERNAL_H

#include <stdint.h>

#include "kvgold/layout.h"
#include "kvgold/reshape_and_cache.h"
#include "src/engines/head_runs.h"

/* The checked geometry of an UNDEFINED (per-token) call; key_only: no
 * value side (K_CACHE_V_BYPASS), dv 0. */
typedef struct kvg_i_reshape_and_cache_geo {
    int nz, key_only;
    int64_t tokens, heads, dk, dv, blocks, block_size, slots;
} kvg_i_reshape_and_cache_geo;

/* A validated call: per token (geometry g) or per head (the run engine's
 * view r, for KVHEAD and KVHEAD_ROPE). */
typedef struct kvg_i_reshape_and_cache_plan {
    int per_token;
    kvg_i_reshape_and_cache_geo g;
    kvg_i_runs r;
} kvg_i_reshape_and_cache_plan;

/* The workspace of either path. */
typedef struct kvg_i_reshape_and_cache_ws {
    kvg_i_keypos *items; /* per token: the slot sort's tokens */
    kvg_i_runs_ws runs;  /* per head */
} kvg_i_reshape_and_cache_ws;

/* Everything kvg_reshape_and_cache checks before it writes a byte, in its
 * order (kvg_i_entry_validate, src/common/entry.h), so the entry point and
 * the descriptor's `written` refuse alike; fills *plan. */
kvg_status kvg_i_reshape_and_cache_validate(
    const kvg_reshape_and_cache_args *args, kvg_i_reshape_and_cache_plan *plan,
    kvg_i_reshape_and_cache_ws *pieces, kvg_diag *diag);

/* The layout of a per-token cache whose heads have `d` channels (Dk for
 * key_cache, Dv for value_cache), and where flat slot s starts in it. */
void kvg_i_reshape_and_cache_token_layout(const kvg_tensor *cache,
                                          const kvg_i_reshape_and_cache_geo *g,
                                          int64_t d, kvg_cache_layout *l);
kvg_cache_coord
kvg_i_reshape_and_cache_slot_coord(const kvg_i_reshape_and_cache_geo *g,
                                   int64_t s);

#endif /* KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_INTERNAL_H */
