/*
 * src/ops/kv_compress_epilog/internal.h - what validation hands to the
 * compute step of KvCompressEpilog: the call's row layout (the preset
 * placed in the cache), the group rules of its payload segments, and the
 * slot policy; the workspace; the functions the files of the folder share.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_KV_COMPRESS_EPILOG_INTERNAL_H
#define KVGOLD_SRC_OPS_KV_COMPRESS_EPILOG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/kv_compress_epilog.h"
#include "kvgold/row_layout.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/engines/packed_row.h"

typedef struct kvg_i_kv_compress_epilog_plan {
    kvg_row_layout layout; /* checked against the cache */
    /* per segment: the rule of a PAYLOAD (index into rules), else -1 */
    int rule_of[KVG_ROW_SEGMENTS];
    kvg_i_group_rule rules[2];
    int64_t column[KVG_ROW_SEGMENTS]; /* PAYLOAD / COPY: x's first column */
    int64_t tokens, d;
    int64_t slots;          /* blocks * block_size */
    int64_t row_need;       /* bytes a cache row must have */
    int exact_width;        /* ... exactly (rows at slot * row_need) */
    kvg_i_slot_policy policy;
    int int32_only;         /* slots narrowed to int32 by the kernel */
    float x_scale;
} kvg_i_kv_compress_epilog_plan;

typedef struct kvg_i_kv_compress_epilog_ws {
    kvg_i_keypos *keys; /* one per token: the duplicate-slot check */
} kvg_i_kv_compress_epilog_ws;

/* The cache geometry check.c has read: slots per block, blocks, and the
 * bytes of a cache row (the last dim). */
typedef struct kvg_i_kce_cache {
    int64_t block_size, blocks, row_bytes;
    int rank; /* 2 or 4 */
    kvg_dtype dtype;
} kvg_i_kce_cache;

/* The preset of (impl, quant_mode, attributes) placed in the cache: the
 * layout, its rules and columns into plan (presets.c). Refuses a mode,
 * group size, cache dtype or layout the implementation has not. */
kvg_status kvg_i_kce_preset(const kvg_kv_compress_epilog_args *a,
                            const kvg_i_kce_cache *c,
                            kvg_i_kv_compress_epilog_plan *plan,
                            kvg_diag *diag);

/* The implementation's name, for messages. */
const char *kvg_i_kce_impl_name(kvg_kce_impl impl);

/* Every check that does not read tensor contents (check.c). */
kvg_status kvg_i_kv_compress_epilog_check_args(
    const kvg_kv_compress_epilog_args *a,
    kvg_i_kv_compress_epilog_plan *plan, kvg_diag *diag);

/* slot_mapping's values and x's values in the written tokens (check.c). */
kvg_status kvg_i_kv_compress_epilog_check_values(
    const kvg_kv_compress_epilog_args *a,
    const kvg_i_kv_compress_epilog_plan *plan,
    const kvg_i_kv_compress_epilog_ws *ws, kvg_diag *diag);

/* Everything the operator checks before it writes a byte (entry.c; the
 * descriptor's `written` shares it). */
kvg_status kvg_i_kv_compress_epilog_validate(
    const kvg_kv_compress_epilog_args *a,
    kvg_i_kv_compress_epilog_plan *plan, kvg_i_kv_compress_epilog_ws *ws,
    kvg_diag *diag);

/* The compare hook (struct kvg_op's `row_layout`, once the registry has
 * it): the checked layout of the call's `cache`, blocks = the whole
 * cache. `args` is the descriptor's filled kvg_i_op_args. */
kvg_status kvg_i_kv_compress_epilog_row_layout(const void *args,
                                               const char *output,
                                               kvg_row_layout *out,
                                               kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_KV_COMPRESS_EPILOG_INTERNAL_H */
