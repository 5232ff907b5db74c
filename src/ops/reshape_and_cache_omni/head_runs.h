/*
 * src/ops/reshape_and_cache_omni/head_runs.h - per-(batch, head) runs of consecutive flat cache
 * slots: the engine behind ReshapeAndCacheOmni and the KVHEAD / KVHEAD_ROPE
 * modes of ReshapeAndCache, which share shapes, index tensors and the
 * "run of slots from slot_mapping[i]" addressing and differ only in which
 * tokens of the head they keep (docs/reshape_and_cache.md).
 *
 * Use: fill a kvg_i_runs, call kvg_i_runs_check_shapes, size the workspace
 * with kvg_i_runs_workspace_bytes, then kvg_i_runs_execute, which checks
 * every index value and only then writes.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_HEAD_RUNS_H
#define KVGOLD_SRC_OPS_HEAD_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

typedef enum kvg_i_run_kind {
    /* keep [0, o) and [o+w, L); all of [0, L) when o == -1 or w == 0 */
    KVG_I_RUN_OMNI = 0,
    /* keep the last w tokens [L-w, L) */
    KVG_I_RUN_KVHEAD = 1,
    /* [0, o), the binary32 mean of [o, o+w), [o+w, L); all when inactive */
    KVG_I_RUN_KVHEAD_ROPE = 2
} kvg_i_run_kind;

typedef struct kvg_i_runs {
    kvg_i_run_kind kind;
    const kvg_tensor *key;          /* [T, N, D] */
    const kvg_tensor *value;        /* [T, N, D] */
    const kvg_tensor *key_cache;    /* [NB, BS, 1, D] */
    const kvg_tensor *value_cache;  /* [NB, BS, 1, D] */
    const kvg_tensor *slot_mapping; /* [B*N] int32 */
    const kvg_tensor *wins;         /* [B*N] int32 */
    const kvg_tensor *seq_len;      /* [B] int32 */
    const kvg_tensor *offset_index; /* [B*N] int32; unused (NULL) for KVHEAD */
    /* Set by kvg_i_runs_check_shapes. */
    int64_t tokens, heads, dim, batch, runs, blocks, block_size, slots;
} kvg_i_runs;

/* Presence (161001), then dtypes, ranks and shapes (161002), by kind. */
kvg_status kvg_i_runs_check_shapes(kvg_i_runs *r, kvg_diag *diag);

/* Workspace bytes for a checked kvg_i_runs; 0 if it would overflow. */
size_t kvg_i_runs_workspace_bytes(const kvg_i_runs *r);

/*
 * Check every index value (seq_len, wins, offset_index, slot ranges, runs
 * inside the cache, no overlapping runs), then write both caches. Nothing
 * is written unless every check passes. KVG_ERR_WORKSPACE if the workspace
 * is missing or smaller than kvg_i_runs_workspace_bytes.
 */
kvg_status kvg_i_runs_execute(const kvg_i_runs *r, void *workspace,
                              size_t workspace_size, kvg_diag *diag);

/*
 * Everything kvg_i_runs_execute checks before it writes (the workspace,
 * buffers apart, every index value), in its order; *cum (batch starts) and
 * *scratch (KVHEAD_ROPE's rows, else NULL) are carved from the workspace.
 * kvg_i_runs_execute and the descriptors' `written` share it.
 */
kvg_status kvg_i_runs_validate(const kvg_i_runs *r, void *workspace,
                               size_t workspace_size, int64_t **cum,
                               float **scratch, kvg_diag *diag);

/* What a validated call writes to either cache (both get the same
 * slots): one run of slots per written head, as the heads' plans say.
 * `ctx` is the kvg_i_runs; a kvg_i_enumerate_fn (src/registry/op_desc.h). */
struct kvg_i_run_sink;
void kvg_i_runs_enumerate(const void *ctx, struct kvg_i_run_sink *s);

#endif /* KVGOLD_SRC_OPS_HEAD_RUNS_H */
