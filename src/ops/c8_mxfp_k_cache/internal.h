/*
 * src/ops/c8_mxfp_k_cache/internal.h - what validation hands to the
 * compute step of the C8-MXFP K write: the call's row layout over its two
 * caches (layout.c), MX quant's rule as a group_quant rule, the
 * geometry; the workspace; the functions the files of the folder share.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_C8_MXFP_K_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_C8_MXFP_K_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/c8_mxfp_k_cache.h"
#include "kvgold/row_layout.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/engines/packed_row.h"

#define KVG_I_MXK_BLOCK 32       /* MX quant block (the source's) */
#define KVG_I_MXK_TILE 16        /* slots per scale tile (NZ token frag) */
#define KVG_I_MXK_BS_MAX 65535   /* Bs < 65536 (the PA_NZ scatter) */

typedef struct kvg_i_c8_mxfp_k_cache_plan {
    int64_t tokens, heads, d;  /* key [T, N, D] */
    int64_t blocks, block_size; /* key_cache [Bn, N, D/32, Bs, 32] */
    int64_t slots;              /* Bn * Bs */
    kvg_i_group_rule rule;      /* MX quant e4m3fn, scale_alg 0 */
    kvg_row_layout layout;      /* both caches; has_sink set by values */
} kvg_i_c8_mxfp_k_cache_plan;

typedef struct kvg_i_c8_mxfp_k_cache_ws {
    kvg_i_keypos *keys; /* one per token: the duplicate-slot check */
} kvg_i_c8_mxfp_k_cache_ws;

/* The rule and the layout of a call of this geometry into plan (the sink
 * off: kvg_i_mxk_sink decides it from the slots). */
void kvg_i_mxk_plan_layout(kvg_i_c8_mxfp_k_cache_plan *plan, kvg_dtype key);

/* 1 when two or more tokens are pad rows (negative slots), whose scales
 * race on slot 0. */
int kvg_i_mxk_sink(const kvg_tensor *slot_mapping, int64_t tokens);

/* Every check that does not read tensor contents (check.c). */
kvg_status kvg_i_c8_mxfp_k_cache_check_args(
    const kvg_c8_mxfp_k_cache_args *a, kvg_i_c8_mxfp_k_cache_plan *plan,
    kvg_diag *diag);

/* slot_mapping's values and key's values (check.c). */
kvg_status kvg_i_c8_mxfp_k_cache_check_values(
    const kvg_c8_mxfp_k_cache_args *a, const kvg_i_c8_mxfp_k_cache_plan *p,
    const kvg_i_c8_mxfp_k_cache_ws *ws, kvg_diag *diag);

/* Everything the operator checks before it writes a byte (entry.c; the
 * descriptor's `written` shares it). */
kvg_status kvg_i_c8_mxfp_k_cache_validate(const kvg_c8_mxfp_k_cache_args *a,
                                          kvg_i_c8_mxfp_k_cache_plan *plan,
                                          kvg_i_c8_mxfp_k_cache_ws *ws,
                                          kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_C8_MXFP_K_CACHE_INTERNAL_H */
