/*
 * src/ops/qkv_rms_norm_rope_cache/internal.h - what validation hands to the
 * compute step of QkvRmsNormRopeCache: the dimensions, resolved once.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_QKV_RMS_NORM_ROPE_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_QKV_RMS_NORM_ROPE_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/layout.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "src/common/internal.h"

typedef struct kvg_i_qkv_rms_norm_rope_cache_plan {
    int64_t b, s, n, d;   /* qkv_size */
    int64_t nq, nk, nv;   /* head_nums */
    int64_t tokens;       /* B*S */
    int64_t blocks, bs;   /* BlockNum, BlockSize (shared by k and v) */
    int64_t slots;        /* BlockNum * BlockSize */
    kvg_dtype t;          /* qkv dtype */
    int before;           /* 1 when the three before-quant outputs exist */
    float eps;            /* (float)epsilon */
} kvg_i_qkv_rms_norm_rope_cache_plan;

/* Floats of scratch the compute step carves from the workspace (entry.c,
 * carve_rows): five rows of D, every head of a token, one cache's heads
 * encoded, and room to copy the four scale / offset tensors. */
size_t kvg_i_qkv_rms_norm_rope_cache_row_floats(
    const kvg_i_qkv_rms_norm_rope_cache_plan *plan);

/*
 * Every check that does not look at index values: presence, attributes,
 * dtypes, ranks, shapes, option ranges, scale values. Fills *plan. `a`
 * is not NULL (the entry skeleton refused that).
 */
kvg_status kvg_i_qkv_rms_norm_rope_cache_check_args(
    const kvg_qkv_rms_norm_rope_cache_args *a,
    kvg_i_qkv_rms_norm_rope_cache_plan *plan, kvg_diag *diag);

/* Range and uniqueness of the non-negative slots; `scratch` holds
 * plan->tokens key/position pairs. */
kvg_status kvg_i_qkv_rms_norm_rope_cache_check_index(
    const kvg_qkv_rms_norm_rope_cache_args *a,
    const kvg_i_qkv_rms_norm_rope_cache_plan *plan, kvg_i_keypos *scratch,
    kvg_diag *diag);

/* The workspace: the index sort's keys, then the row scratch. */
typedef struct kvg_i_qkv_rms_norm_rope_cache_ws {
    kvg_i_keypos *keys; /* plan->tokens */
    float *rows;        /* kvg_i_qkv_rms_norm_rope_cache_row_floats */
} kvg_i_qkv_rms_norm_rope_cache_ws;

/* Take the pieces of `plan` from `w` in that order (a measuring `w` gives
 * kvg_qkv_rms_norm_rope_cache_workspace_size). */
void kvg_i_qkv_rms_norm_rope_cache_ws_carve(
    const kvg_i_qkv_rms_norm_rope_cache_plan *plan, kvg_i_ws *w,
    kvg_i_qkv_rms_norm_rope_cache_ws *ws);

/* Everything the operator checks before it writes a byte, in its order:
 * kvg_i_entry_validate over the operator's kvg_i_entry (the arguments, the
 * workspace, the index values). The entry point and the descriptor's `written`
 * share it, so both refuse alike. */
kvg_status kvg_i_qkv_rms_norm_rope_cache_validate(
    const kvg_qkv_rms_norm_rope_cache_args *a,
    kvg_i_qkv_rms_norm_rope_cache_plan *plan,
    kvg_i_qkv_rms_norm_rope_cache_ws *ws, kvg_diag *diag);

/* The NZ layout of k_cache (heads Nk) or v_cache (heads Nv). */
void kvg_i_qkv_rms_norm_rope_cache_cache_layout(
    const kvg_i_qkv_rms_norm_rope_cache_plan *plan, const kvg_tensor *cache,
    int64_t heads, kvg_cache_layout *lay);

#endif /* KVGOLD_SRC_OPS_QKV_RMS_NORM_ROPE_CACHE_INTERNAL_H */
