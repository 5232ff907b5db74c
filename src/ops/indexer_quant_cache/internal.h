/*
 * src/ops/indexer_quant_cache/internal.h - what validation hands to the
 * compute step of IndexerQuantCache: the call's row layout over its two
 * tensors (cache, cache_scale), the group rule of the mode, the geometry;
 * the workspace; the functions the files of the folder share.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_INDEXER_QUANT_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_INDEXER_QUANT_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/indexer_quant_cache.h"
#include "kvgold/row_layout.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/engines/packed_row.h"

#define KVG_I_IQC_MX_GROUP 32 /* MX block: one E8M0 scale per 32 elements */

/* The geometry check.c has read from the two caches. */
typedef struct kvg_i_iqc_geometry {
    int64_t blocks, block_size;
    int64_t head_dim;  /* cache's last dim (bytes: 1-byte elements) */
    int64_t scale_dim; /* cache_scale's last dim (elements) */
} kvg_i_iqc_geometry;

typedef struct kvg_i_indexer_quant_cache_plan {
    kvg_row_layout layout; /* tensors "cache", "cache_scale"; checked */
    kvg_i_group_rule rule; /* the payload's */
    int64_t tokens, d;
    int64_t slots; /* blocks * block_size */
    int mode;
    float x_scale;
} kvg_i_indexer_quant_cache_plan;

typedef struct kvg_i_indexer_quant_cache_ws {
    kvg_i_keypos *keys; /* one per token: the duplicate-slot check */
} kvg_i_indexer_quant_cache_ws;

/* The mode's layout and rule placed in the caches (layout.c): refuses a
 * cache or cache_scale dtype the mode does not take, or rows too short. */
kvg_status kvg_i_iqc_plan_mode(const kvg_indexer_quant_cache_args *a,
                               const kvg_i_iqc_geometry *g,
                               kvg_i_indexer_quant_cache_plan *plan,
                               kvg_diag *diag);

/* Every check that does not read tensor contents (check.c). */
kvg_status kvg_i_indexer_quant_cache_check_args(
    const kvg_indexer_quant_cache_args *a,
    kvg_i_indexer_quant_cache_plan *plan, kvg_diag *diag);

/* slot_mapping's values and x's values in the written tokens (check.c). */
kvg_status kvg_i_indexer_quant_cache_check_values(
    const kvg_indexer_quant_cache_args *a,
    const kvg_i_indexer_quant_cache_plan *plan,
    const kvg_i_indexer_quant_cache_ws *ws, kvg_diag *diag);

/* Everything the operator checks before it writes a byte (entry.c; the
 * descriptor's `written` shares it). */
kvg_status kvg_i_indexer_quant_cache_validate(
    const kvg_indexer_quant_cache_args *a,
    kvg_i_indexer_quant_cache_plan *plan, kvg_i_indexer_quant_cache_ws *ws,
    kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_INDEXER_QUANT_CACHE_INTERNAL_H */
