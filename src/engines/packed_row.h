/*
 * src/engines/packed_row.h - one token's row of x written into its slot
 * of a packed cache through a kvg_row_layout (kvgold/row_layout.h): each
 * PAYLOAD segment quantised group by group (src/engines/group_quant.h),
 * its scales into the SCALE segment that names it, COPY segments passed
 * through, PAD segments zeroed; each of the layout's heads from its own
 * columns of x, each element where kvg_row_element_at puts it (pieces
 * of an NZ order, tiles of slots). Bytes of a slot no segment covers, and
 * every byte of a slot not written, keep their contents. A layout over
 * two tensors (the scales in a tensor of their own) is written through
 * one base pointer per tensor, each segment into its own.
 *
 * Also the slot policies of the packed-row epilogs (quant_epilogs.md
 * section 6.4 of the spec), a call's tokens written under one
 * (kvg_i_packed_row_write_tokens: the compute step of every packed-row
 * operator) and the byte runs those writes cover, from the same
 * addressing (kvg_row_segment_at), for the descriptors' `written`
 * (src/registry/row_hooks.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_ENGINES_PACKED_ROW_H
#define KVGOLD_SRC_ENGINES_PACKED_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/row_layout.h"
#include "kvgold/tensor.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/layout/row_geom.h"

typedef enum kvg_i_slot_policy {
    /* -1 skips; any other negative slot, and a slot >= the cache's slots,
     * is refused (the kernels would write outside the cache) */
    KVG_I_SLOT_SKIP_MINUS1 = 0,
    /* < 0 and >= the cache's slots both skip (documented behaviour) */
    KVG_I_SLOT_SKIP_OUTSIDE = 1,
    /* every negative skips; a slot >= the cache's slots is refused (vLLM's
     * CUDA writers: `if (slot_idx < 0) return;`; a scatter that writes
     * nothing of the cache for an index < 0) */
    KVG_I_SLOT_SKIP_NEGATIVE = 2,
    /* a negative slot is a pad row: its payload is skipped, its scales
     * are written at the layout's sink_slot, into the tensors that hold
     * no PAYLOAD segment (a payload scatter that skips the row beside a
     * scale scatter that clamps it to slot 0: vllm-ascend's C8-MXFP K
     * write); a slot >= the cache's slots is refused */
    KVG_I_SLOT_SINK_SCALES = 3
} kvg_i_slot_policy;

typedef struct kvg_i_packed_row {
    const kvg_row_layout *layout; /* checked (kvg_row_layout_check) */
    /* per PAYLOAD segment: its rule, whose store matches the dtype of the
     * SCALE segment naming it (none for group 0) */
    const kvg_i_group_rule *rule[KVG_ROW_SEGMENTS];
    /* per PAYLOAD / COPY segment: the first column of x's row it takes */
    int64_t column[KVG_ROW_SEGMENTS];
    /* columns of x's row between one head's columns and the next's
     * (layout->heads > 1: head h of segment i takes column[i] + h *
     * head_columns on) */
    int64_t head_columns;
    float x_scale; /* for XSCALE payloads */
} kvg_i_packed_row;

/* 1 when the policy writes `slot` of a cache of `slots` slots (its own
 * slot: a SINK_SCALES pad row is not kept, its scales go to the sink). */
int kvg_i_packed_row_kept(kvg_i_slot_policy policy, int64_t slot,
                          int64_t slots);

/* slot_mapping `index`: int32 / int64, one slot a row of x (x's shape
 * without its last dim). 161002 naming slot_mapping, expected vs got. */
kvg_status kvg_i_packed_row_check_index(const kvg_tensor *index,
                                        const kvg_tensor *x, kvg_diag *diag);

/*
 * The slot values of `index` (int32 / int64, n entries): in token order,
 * the first value the policy refuses (with int32_only, also any value
 * outside int32: an implementation that narrows slots to int32 would
 * wrap it); then no two kept entries may name one slot. `keys`: n items
 * of workspace. 161002 with a message naming slot_mapping and the token.
 */
kvg_status kvg_i_packed_row_check_slots(const kvg_tensor *index, int64_t n,
                                        int64_t slots,
                                        kvg_i_slot_policy policy,
                                        int int32_only, kvg_i_keypos *keys,
                                        kvg_diag *diag);

/* Token row x_row (little-endian; bf16, a PAYLOAD's elements in its
 * rule's x_dtype) into `slot`: tensor[t] is the base of the layout's
 * tensor t (entries past layout->tensors unused). tensor[t] NULL: the
 * segments living in tensor t are not written (a row whose payload is
 * skipped while its scales are written elsewhere, e.g. a pad row clamped
 * to a sink slot: the scales of a payload in a NULL tensor are still
 * computed and written). */
void kvg_i_packed_row_write(const kvg_i_packed_row *p,
                            unsigned char *const tensor[KVG_ROW_TENSORS],
                            const unsigned char *x_row, int64_t slot);

/* A call's tokens: token t's row goes to slot slot_mapping[t] (int32 /
 * int64, `tokens` entries) under `policy`, in a cache of `slots` slots.
 * The values are checked before (kvg_i_packed_row_check_slots, or the
 * operator's own check of the same rule): nothing here refuses. */
typedef struct kvg_i_packed_tokens {
    const kvg_tensor *slot_mapping;
    int64_t tokens;
    int64_t slots;
    kvg_i_slot_policy policy;
} kvg_i_packed_tokens;

/* Token t's row of x: x + t * x_stride; or, when `make` is set, made by
 * make(ctx, t, buf) into `buf` (room for one row), called only for the
 * tokens written, in token order (a row computed from several inputs). */
typedef struct kvg_i_token_rows {
    const unsigned char *x;
    size_t x_stride;
    void (*make)(const void *ctx, int64_t t, unsigned char *buf);
    const void *ctx;
    unsigned char *buf;
} kvg_i_token_rows;

/* Every token of `k` through kvg_i_packed_row_write, in token order
 * (so of several rows clamped to one sink the last one's bytes stay):
 * a kept token into its slot, every tensor of `tensor`; a SINK_SCALES
 * pad row into the layout's sink_slot, its payload tensors left out;
 * any other token skipped. */
void kvg_i_packed_row_write_tokens(const kvg_i_packed_row *p,
                                   const kvg_i_packed_tokens *k,
                                   unsigned char *const tensor[KVG_ROW_TENSORS],
                                   const kvg_i_token_rows *rows);

/* 1 when the policy clamps two or more of the tokens to the sink slot:
 * the bytes left there depend on the kernel's order (the layout's
 * has_sink, kvgold/row_layout.h). Reads slot_mapping's values. */
int kvg_i_packed_row_sink_raced(const kvg_i_packed_tokens *k);

/* The byte runs of a write into `slot` in tensor `tensor` of the layout:
 * fn(ctx, first byte, bytes) once per piece of each head's segments
 * living there; head by head, each head's segments in address order
 * (without heads and pieces: one run per segment, in address order).
 * The consumers sort and merge them. */
typedef void (*kvg_i_byte_run_fn)(void *ctx, int64_t first, int64_t bytes);
void kvg_i_packed_row_runs(const kvg_row_layout *l, int tensor, int64_t slot,
                           kvg_i_byte_run_fn fn, void *ctx);

/* The byte runs kvg_i_packed_row_write_tokens writes into tensor `tensor`
 * of the layout: kvg_i_packed_row_runs of each token's slot, in token
 * order. */
void kvg_i_packed_row_token_runs(const kvg_row_layout *l,
                                 const kvg_i_packed_tokens *k, int tensor,
                                 kvg_i_byte_run_fn fn, void *ctx);

#endif /* KVGOLD_SRC_ENGINES_PACKED_ROW_H */
