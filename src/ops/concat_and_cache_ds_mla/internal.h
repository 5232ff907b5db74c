/*
 * src/ops/concat_and_cache_ds_mla/internal.h - what validation hands to
 * the compute step of the packed C8 MLA row (kvgold/
 * concat_and_cache_ds_mla.h): the call's row layout (its preset placed in
 * the cache), the group rule of the nope tiles, the block quant (DBQ)
 * profile of the Ascend path and the slot policy; the functions the files
 * of the folder share.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_CONCAT_AND_CACHE_DS_MLA_INTERNAL_H
#define KVGOLD_SRC_OPS_CONCAT_AND_CACHE_DS_MLA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/concat_and_cache_ds_mla.h"
#include "kvgold/row_layout.h"
#include "src/common/internal.h"
#include "src/engines/group_quant.h"
#include "src/engines/packed_row.h"

#define KVG_CCDM_NOPE 512 /* kv_lora_rank: 4 tiles of 128 */
#define KVG_CCDM_ROPE 64  /* qk_rope_head_dim */
#define KVG_CCDM_TILE 128
#define KVG_CCDM_ROW 656  /* 512 + 64 * 2 + 4 * 4 bytes */
/* flashmla-model1 (FlashMLA tests/quant.py MODEL1_FP8Sparse): 448 nope
 * in 7 tiles of 64; a token's [nope | rope bf16] is 576 bytes, its 7
 * E8M0 scales and a pad byte 8 more, after the block's rows; a block is
 * padded to a multiple of 576 bytes */
#define KVG_CCDM_M1_NOPE 448
#define KVG_CCDM_M1_TILE 64
#define KVG_CCDM_M1_ROW 576   /* 448 + 64 * 2 */
#define KVG_CCDM_M1_SCALES 8  /* 7 E8M0 + 1 pad */
#define KVG_CCDM_M1_TOKEN 584 /* 576 + 8 */
/* bytes of the bf16 row the quantiser reads: [nope 512 | rope 64] (model1
 * [nope 448 | rope 64], shorter) */
#define KVG_CCDM_XROW (2 * (KVG_CCDM_NOPE + KVG_CCDM_ROPE))

/* Which block quant (DBQ) profile the Ascend path runs (none: vLLM's rule). */
typedef enum kvg_i_ccdm_dbq {
    KVG_I_CCDM_DBQ_NONE = 0,
    KVG_I_CCDM_DBQ_A2A3 = 1, /* int8 cache, A3 */
    KVG_I_CCDM_DBQ_950 = 2   /* fp8_e4m3fn cache, A5 */
} kvg_i_ccdm_dbq;

typedef struct kvg_i_concat_and_cache_ds_mla_plan {
    kvg_row_layout layout; /* checked against the cache */
    kvg_i_group_rule rule; /* of the nope tiles */
    kvg_i_ccdm_dbq dbq;
    kvg_i_slot_policy policy;
    int64_t tokens, slots;
    int64_t nope; /* kv_c's last dim: 512, model1 448 */
    float eps;
} kvg_i_concat_and_cache_ds_mla_plan;

typedef struct kvg_i_concat_and_cache_ds_mla_ws {
    kvg_i_keypos *keys; /* one per token: the duplicate-slot check */
} kvg_i_concat_and_cache_ds_mla_ws;

/* The preset's layout placed in a cache of `blocks` x `block_size` slots
 * whose nope is `payload` (model1: blocks of `block_bytes`), its rule
 * (vllm with use_ue8m0: the power-of-two scales) and slot policy, into
 * plan (presets.c). */
void kvg_i_ccdm_preset(kvg_ccdm_preset preset, kvg_dtype payload,
                       int64_t blocks, int64_t block_size,
                       int64_t block_bytes, int use_ue8m0,
                       kvg_i_concat_and_cache_ds_mla_plan *plan);

/* model1's block_bytes for block_size: ceil(block_size * 584 / 576) *
 * 576 (FlashMLA's size_per_block_padded); -1 where it overflows. */
int64_t kvg_i_ccdm_m1_block_bytes(int64_t block_size);

/* "ascend-sfa-c8" / "vllm-fp8_ds_mla" / "flashmla-model1" (NULL for
 * another value). */
const char *kvg_i_ccdm_preset_name(kvg_ccdm_preset preset);

/* Token t's bf16 row [nope 512 | rope 64] as the quantiser reads it
 * (front.c): ascend, the RmsNorm and interleaved RoPE of kv_c and k_pe,
 * each narrowed to bf16; vllm and model1, kv_c and k_pe as given. */
void kvg_i_ccdm_row(const kvg_concat_and_cache_ds_mla_args *a,
                    const kvg_i_concat_and_cache_ds_mla_plan *p, int64_t t,
                    unsigned char *row);

/* Every check that does not read tensor contents (check.c). */
kvg_status kvg_i_concat_and_cache_ds_mla_check_args(
    const kvg_concat_and_cache_ds_mla_args *a,
    kvg_i_concat_and_cache_ds_mla_plan *plan, kvg_diag *diag);

/* slot_mapping's values, the inputs' values in the written tokens and the
 * tiles the block quant refuses (values.c). */
kvg_status kvg_i_concat_and_cache_ds_mla_check_values(
    const kvg_concat_and_cache_ds_mla_args *a,
    const kvg_i_concat_and_cache_ds_mla_plan *plan,
    const kvg_i_concat_and_cache_ds_mla_ws *ws, kvg_diag *diag);

/* Everything the operator checks before it writes a byte (entry.c). */
kvg_status kvg_i_concat_and_cache_ds_mla_validate(
    const kvg_concat_and_cache_ds_mla_args *a,
    kvg_i_concat_and_cache_ds_mla_plan *plan,
    kvg_i_concat_and_cache_ds_mla_ws *ws, kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_CONCAT_AND_CACHE_DS_MLA_INTERNAL_H */
