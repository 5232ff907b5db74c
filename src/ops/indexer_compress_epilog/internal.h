/*
 * src/ops/indexer_compress_epilog/internal.h - what validation hands to
 * the compute step of the indexer compress epilogs: the call's row layout
 * (the preset placed in the cache, and for cr in cache_scale), the group
 * rule of its payload segments and their columns of x; the workspace;
 * the functions the files of the folder share.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_INDEXER_COMPRESS_EPILOG_INTERNAL_H
#define KVGOLD_SRC_OPS_INDEXER_COMPRESS_EPILOG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/indexer_compress_epilog.h"
#include "kvgold/row_layout.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/engines/packed_row.h"

#define KVG_I_ICE_GROUP 128 /* PER_BLOCK_FP16: one scale per 128 columns */
#define KVG_I_ICE_D_MAX 16384

/* The cache geometry check.c has read. */
typedef struct kvg_i_ice_geometry {
    int64_t blocks, block_size; /* cr: rows, 1 */
    int64_t row_bytes;          /* va_v2: cacheD (the cache's last dim) */
} kvg_i_ice_geometry;

typedef struct kvg_i_indexer_compress_epilog_plan {
    kvg_row_layout layout; /* checked against the cache(s) */
    kvg_i_group_rule rule; /* every PAYLOAD segment's */
    int payload[KVG_ROW_SEGMENTS];    /* 1 for a PAYLOAD segment */
    int64_t column[KVG_ROW_SEGMENTS]; /* PAYLOAD: x's first column */
    int64_t tokens, d;
    int64_t slots;      /* blocks * block_size */
    int scale_subnormal_refused; /* R-BLK128-FP32: an fp32 scale that
                                    would be subnormal is refused */
    float x_scale;
} kvg_i_indexer_compress_epilog_plan;

typedef struct kvg_i_indexer_compress_epilog_ws {
    kvg_i_keypos *keys; /* one per token: the duplicate-slot check */
} kvg_i_indexer_compress_epilog_ws;

/* The impl's name, for messages. */
const char *kvg_i_ice_impl_name(kvg_ice_impl impl);

/* The preset of (impl, quant_mode, round_scale) placed in the caches:
 * layout, rule and columns into plan (presets.c). Refuses a cache or
 * cache_scale dtype the mode does not take and caches too small. */
kvg_status kvg_i_ice_preset(const kvg_indexer_compress_epilog_args *a,
                            const kvg_i_ice_geometry *g,
                            kvg_i_indexer_compress_epilog_plan *plan,
                            kvg_diag *diag);

/* Every check that does not read tensor contents (check.c). */
kvg_status kvg_i_indexer_compress_epilog_check_args(
    const kvg_indexer_compress_epilog_args *a,
    kvg_i_indexer_compress_epilog_plan *plan, kvg_diag *diag);

/* slot_mapping's values and x's values in the written tokens (check.c). */
kvg_status kvg_i_indexer_compress_epilog_check_values(
    const kvg_indexer_compress_epilog_args *a,
    const kvg_i_indexer_compress_epilog_plan *plan,
    const kvg_i_indexer_compress_epilog_ws *ws, kvg_diag *diag);

/* Everything the operator checks before it writes a byte (entry.c; the
 * descriptor's `written` shares it). */
kvg_status kvg_i_indexer_compress_epilog_validate(
    const kvg_indexer_compress_epilog_args *a,
    kvg_i_indexer_compress_epilog_plan *plan,
    kvg_i_indexer_compress_epilog_ws *ws, kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_INDEXER_COMPRESS_EPILOG_INTERNAL_H */
