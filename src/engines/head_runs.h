/*
 * src/engines/head_runs.h - per-(batch, head) runs of consecutive flat cache
 * slots: the engine behind every compressed per-head copy mode (the
 * operators on it: docs/architecture.md, "The tree"), which share shapes,
 * index tensors and the "run of slots from slot_mapping[i]" addressing and
 * differ only in which tokens of the head they keep (kvg_i_run_kind; the
 * operators' pages in docs/) and in the details of their contracts
 * (kvg_i_runs_rules).
 *
 * Use (the operators' entry skeletons, src/common/entry.h, do it): fill a
 * kvg_i_runs, kvg_i_runs_check_shapes, carve the workspace with
 * kvg_i_runs_carve, check the buffers apart (kvg_i_runs_spans), then
 * kvg_i_runs_check_values, and only then kvg_i_runs_write.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_HEAD_RUNS_H
#define KVGOLD_SRC_OPS_HEAD_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"
#include "src/common/internal.h"

typedef enum kvg_i_run_kind {
    /* keep [0, o) and [o+w, L); all of [0, L) when o == -1 or w == 0 */
    KVG_I_RUN_OMNI = 0,
    /* keep the w tokens that end at the batch's end, [L-w, L); ATB's
     * (rules NULL) takes w > L, reaching into earlier batches as its
     * kernel reads them; with rules, 0 <= w <= L */
    KVG_I_RUN_KVHEAD = 1,
    /* [0, o), the binary32 mean of [o, o+w), [o+w, L); all when inactive */
    KVG_I_RUN_KVHEAD_ROPE = 2
} kvg_i_run_kind;

/* The ATB kernels' limits (the public header of the operator that keeps
 * them repeats them as its *_MAX_DIM / *_MAX_HEADS). */
#define KVG_I_RUNS_ATB_MAX_DIM 16384
#define KVG_I_RUNS_ATB_MAX_HEADS 500

/*
 * Where an operator's contract differs from ATB's (a NULL rules pointer):
 * the names of its index tensors, the dtypes it copies, the index dtype,
 * how head rows align, and no ATB size limits.
 */
typedef struct kvg_i_runs_rules {
    const char *wins, *seq_len, *offset_index; /* tensor names */
    /* copies (OMNI, KVHEAD): every dtype but int64 and the packed fp4;
     * the mean (KVHEAD_ROPE) stays fp16 / bf16 */
    int any_copy_dtype;
    /* index tensors int32 or int64, all of slot_mapping's dtype */
    int index_int64;
    /* D * element size a multiple of 32 bytes (not D a multiple of 32) */
    int row_bytes_align;
    /* also a key / value given per batch, [B, S, N, D], with slot_mapping
     * and wins [B, N]: batch b's tokens are rows [b*S, b*S + L) (the 950's
     * form of the compressed modes) */
    int batched_key;
} kvg_i_runs_rules;

typedef struct kvg_i_runs {
    kvg_i_run_kind kind;
    const kvg_i_runs_rules *rules; /* NULL: ATB's */
    const kvg_tensor *key;          /* [T, N, D] (or [B, S, N, D]) */
    const kvg_tensor *value;        /* as key */
    const kvg_tensor *key_cache;    /* [NB, BS, 1, D] */
    const kvg_tensor *value_cache;  /* [NB, BS, 1, D] */
    const kvg_tensor *slot_mapping; /* [B*N] int32 */
    const kvg_tensor *wins;         /* [B*N] int32 */
    const kvg_tensor *seq_len;      /* [B] int32 */
    const kvg_tensor *offset_index; /* [B*N] int32; unused (NULL) for KVHEAD */
    /* Set by kvg_i_runs_check_shapes. batch_rows: S of a per-batch key,
     * 0 when the batches' rows follow each other (cumulative seq_len). */
    int64_t tokens, heads, dim, batch, runs, blocks, block_size, slots;
    int64_t batch_rows;
} kvg_i_runs;

/* Presence (161001), then dtypes, ranks and shapes (161002), by kind. */
kvg_status kvg_i_runs_check_shapes(kvg_i_runs *r, kvg_diag *diag);

/* The workspace: batch starts (cum: cumulative seq_len, or b * S), the
 * slot sort's items, and for
 * KVHEAD_ROPE two rows of binary32 scratch (else NULL). */
typedef struct kvg_i_runs_ws {
    int64_t *cum;            /* batch + 1 */
    kvg_i_keypos *items;     /* runs */
    float *scratch;          /* 2 * dim, KVHEAD_ROPE only */
} kvg_i_runs_ws;

/* Take the pieces of a checked kvg_i_runs from `w` in that order (a
 * measuring `w` gives the size the workspace queries report). */
void kvg_i_runs_carve(const kvg_i_runs *r, kvg_i_ws *w,
                      kvg_i_runs_ws *ws);

/* The tensors as kvg_i_check_apart spans (the caches written); returns 8. */
size_t kvg_i_runs_spans(const kvg_i_runs *r, kvg_i_span *s);

/* Every index value (seq_len, wins, offset_index, slot ranges, runs inside
 * the cache, no overlapping runs), with the carved workspace. */
kvg_status kvg_i_runs_check_values(const kvg_i_runs *r,
                                   const kvg_i_runs_ws *ws, kvg_diag *diag);

/* Write both caches of a validated call. */
void kvg_i_runs_write(const kvg_i_runs *r, const kvg_i_runs_ws *ws);

/* What a validated call writes to either cache (both get the same
 * slots): one run of slots per written head, as the heads' plans say.
 * `ctx` is the kvg_i_runs; a kvg_i_enumerate_fn (src/registry/op_desc.h). */
struct kvg_i_run_sink;
void kvg_i_runs_enumerate(const void *ctx, struct kvg_i_run_sink *s);

#endif /* KVGOLD_SRC_OPS_HEAD_RUNS_H */
