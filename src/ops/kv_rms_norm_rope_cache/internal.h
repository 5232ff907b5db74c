/*
 * src/ops/kv_rms_norm_rope_cache/internal.h - what validation hands to the
 * compute of KvRmsNormRopeCache: the sizes it derived and checked, and the
 * workspace carving shared by the size function and the operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_KV_RMS_NORM_ROPE_CACHE_INTERNAL_H
#define KVGOLD_SRC_OPS_KV_RMS_NORM_ROPE_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/kv_rms_norm_rope_cache.h"
#include "kvgold/layout.h"
#include "src/common/internal.h"

/* The checked geometry of one call. */
typedef struct kvg_i_kv_rms_norm_rope_cache_plan {
    kvg_dtype t;             /* kv dtype (fp16 | bf16) */
    int v2;                  /* v given: the V2 computation */
    int64_t bkv, nh, skv;    /* kv dims 0, 1 (N; 1 in V1) and 2 */
    int64_t dv, dk;          /* depth of ckv_cache and of k_cache: V1 gamma
                                dim 0 and cos dim 3; V2 v dim 3, kv dim 3 */
    int64_t dr;              /* RoPE width, cos dim 3 (V1 dk, V2 R) */
    int64_t srope;           /* cos dim 2: skv or 1 */
    int kquant, cquant;      /* the cache holds a 1-byte quant dtype */
    int64_t kscale_n, cscale_n, koff_n, coff_n; /* numel; 0 when absent */
    kvg_cache_layout klay, clay;
    int64_t bs;              /* PA*: BlockSize (k_cache dim 1) */
    int64_t nb;              /* PA_BLK_*: ceil(skv / bs) */
    int64_t row_limit;       /* Norm: Scache; PA*: BlockNum * BlockSize */
    int64_t index_n;         /* index numel */
    float eps;               /* (float)epsilon */
    int out_kv;              /* is_output_kv, as 0/1 */
} kvg_i_kv_rms_norm_rope_cache_plan;

/* 1 for the modes whose index holds one block start per block of tokens
 * (PA_BLK_BNSD, PA_BLK_NZ). */
static inline int kvg_i_kv_rms_norm_rope_cache_is_blk(kvg_cache_mode m)
{
    return m == KVG_CACHE_PA_BLK_BNSD || m == KVG_CACHE_PA_BLK_NZ;
}

/* The op's tensors in parameter order, and their names. */
#define KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS 14
extern const char *const
    kvg_i_kv_rms_norm_rope_cache_names[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS];

/* Fill t[] with the tensors of `a` in kvg_i_kv_rms_norm_rope_cache_names
 * order; a tensor the call does not use (an absent optional one, k_rope / c_kv
 * without is_output_kv) is NULL. */
void kvg_i_kv_rms_norm_rope_cache_tensors(
    const kvg_kv_rms_norm_rope_cache_args *a,
    const kvg_tensor *t[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS]);

/* The tensors of `a` as kvg_i_check_apart spans (absent ones NULL); returns
 * KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS. */
size_t kvg_i_kv_rms_norm_rope_cache_spans(
    const kvg_kv_rms_norm_rope_cache_args *a,
    kvg_i_span s[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS]);

/* Every check that needs no tensor contents: presence, attributes, dtypes,
 * shapes, profile rules, buffer overlaps. Fills *plan on success. `a` is
 * not NULL (the entry skeleton refused that). */
kvg_status kvg_i_kv_rms_norm_rope_cache_check_args(
    const kvg_kv_rms_norm_rope_cache_args *a,
    kvg_i_kv_rms_norm_rope_cache_plan *plan, kvg_diag *diag);

/* inf / NaN in kv, gamma, cos, sin or a scale / offset. */
kvg_status kvg_i_kv_rms_norm_rope_cache_check_finite(
    const kvg_kv_rms_norm_rope_cache_args *a, kvg_diag *diag);

/* Index values: range and uniqueness per mode. `keys` has room for
 * plan->index_n entries. */
kvg_status kvg_i_kv_rms_norm_rope_cache_check_index(
    const kvg_kv_rms_norm_rope_cache_args *a,
    const kvg_i_kv_rms_norm_rope_cache_plan *plan, kvg_i_keypos *keys,
    kvg_diag *diag);

/* The workspace, carved from one buffer by kvg_i_ws_take in this order. */
typedef struct kvg_i_kv_rms_norm_rope_cache_ws {
    kvg_i_keypos *keys;              /* index_n */
    /* V1 normalises dv channels and rotates dk; V2 normalises dk and
     * rotates dr: the norm width and the RoPE width below */
    float *gamma, *xv, *y, *scratch; /* norm width, sum_squares_scratch */
    float *xr, *r, *cos, *sin;       /* RoPE width each */
    float *kscale, *koff;            /* dk each (V2: nh * dk) */
    float *cscale, *coff;            /* dv each (V2: nh * dv) */
    unsigned char *krow, *crow;      /* dk * 2, dv * 2 bytes: encoded rows */
    float *vrow;                     /* V2: dv (a v row to quantise) */
} kvg_i_kv_rms_norm_rope_cache_ws;

/* Take the workspace's pieces of `plan` from `w` in the order above (a
 * measuring `w` gives kvg_kv_rms_norm_rope_cache_workspace_size). */
void kvg_i_kv_rms_norm_rope_cache_ws_carve(
    const kvg_i_kv_rms_norm_rope_cache_plan *plan, kvg_i_ws *w,
    kvg_i_kv_rms_norm_rope_cache_ws *ws);

/* Everything the operator checks before it writes a byte, in its order:
 * kvg_i_entry_validate over the operator's kvg_i_entry (the arguments, the
 * workspace, inf / NaN, the index values). The entry point and the
 * descriptor's `written` share it, so both refuse alike. */
kvg_status
kvg_i_kv_rms_norm_rope_cache_validate(const kvg_kv_rms_norm_rope_cache_args *a,
                                      kvg_i_kv_rms_norm_rope_cache_plan *plan,
                                      kvg_i_kv_rms_norm_rope_cache_ws *ws,
                                      kvg_diag *diag);

/* The cache row token (b, s) writes (channel 0 of head 0 in *at), or 0 when
 * its index is negative (skipped). The layouts' "block" is the batch in
 * Norm mode, the page otherwise. */
int kvg_i_kv_rms_norm_rope_cache_target(
    const kvg_kv_rms_norm_rope_cache_args *a,
    const kvg_i_kv_rms_norm_rope_cache_plan *plan, int64_t b, int64_t s,
    kvg_cache_coord *at);

#endif /* KVGOLD_SRC_OPS_KV_RMS_NORM_ROPE_CACHE_INTERNAL_H */
