/*
 * kvgold/qkv_rms_norm_rope_cache.h - golden model of aclnnQkvRmsNormRopeCache.
 *
 * One call takes a fused qkv projection [B*S, (Nq+Nk+Nv)*D] and, per token
 * row t and head h, computes in binary32 (spec section 1):
 *
 *   q:  q_out[t][h]  = rne_T(rope_half(rms_norm(q, q_gamma), cos[t], sin[t]))
 *   k:  kr           = rope_half(rms_norm(k, k_gamma), cos[t], sin[t])
 *       k_cache      <- int8: sat8(rint(kr / k_scale[h] (+ k_offset[h])))
 *                       T:    rne_T(kr)
 *   v:  v_cache      <- int8: sat8(rint(v / v_scale[h] (+ v_offset[h])))
 *                       T:    v (a widen-narrow round trip)
 *
 * rms_norm is (x / sqrtf(sum(x^2) * (1/D) + eps)) * gamma with the sum in the
 * order `reduce_order`; rope_half is out[j] = y[j]cos[j] + (-y[j+64])sin[j]
 * (j < 64), y[j]cos[j] + y[j-64]sin[j] (j >= 64); each product and sum is
 * rounded once. Nothing is rounded to T between steps.
 *
 * The caches are PA_NZ: [BlockNum, N*D/C0, BlockSize, C0] with C0 = 16 for
 * a T cache and 32 for an int8 cache. Token t with slot p = index[t] >= 0
 * writes channel c = h*D + d of its row to
 *     cache[p / BlockSize][c / C0][p % BlockSize][c % C0];
 * a negative slot skips both cache writes of that token (q_out and the
 * before-quant outputs are still written). Every other cache byte is left
 * exactly as it was. docs/qkv_rms_norm_rope_cache.md has a worked example
 * and the list of known differences from the NPU kernel.
 *
 * Validation (everything before the first byte is written; on any error no
 * output and no cache is modified):
 *   161001  a required tensor, its data, qkv_size or head_nums is NULL, or
 *           q_out_before_quant is given without k_/v_out_before_quant
 *   161002  every host check of the real operator (its tiling) plus value
 *           checks: D == 128, N == Nq+Nk+Nv, Nk == Nv, Nq % Nk == 0,
 *           cache_mode "PA_NZ", dtypes, ranks, shapes, BlockSize % 32 == 0,
 *           BlockNum >= ceil(S/BlockSize)*B, scales iff int8 caches, offsets
 *           only with int8 caches and of shape [N, D] (stricter than the
 *           host), no zero scale, epsilon finite and >= 0, cos/sin [B, D]
 *           only when S == 1, and index values: a non-negative slot must be
 *           < BlockNum*BlockSize and unique (the message names the token)
 *   170001  the workspace is missing or smaller than the size query says
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_QKV_RMS_NORM_ROPE_CACHE_H
#define KVGOLD_QKV_RMS_NORM_ROPE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/layout.h"
#include "kvgold/format.h"
#include "kvgold/options.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The only head size the operator supports (the kernel hard-wires it). */
#define KVG_QKV_HEAD_DIM 128

/*
 * Arguments. T is qkv's dtype (fp16 or bf16); "optional" tensors may be
 * NULL. No tensor is kept after the call.
 */
typedef struct kvg_qkv_rms_norm_rope_cache_args {
    /* Inputs (never written). */
    const kvg_tensor *qkv;     /* [B*S, (Nq+Nk+Nv)*D], T */
    const kvg_tensor *q_gamma; /* [D], T */
    const kvg_tensor *k_gamma; /* [D], T */
    const kvg_tensor *cos;     /* [B*S, D], T; [B, D] accepted only if S==1 */
    const kvg_tensor *sin;     /* same shape as cos, T */
    const kvg_tensor *index;   /* [B*S], int64: slot per token, < 0 skips */

    /* Outputs. q_out is overwritten entirely; the caches in place. */
    const kvg_tensor *q_out;   /* [B*S, Nq*D], T */
    const kvg_tensor *k_cache; /* [BN, Nk*D/C0, BS, C0], T (C0 16) or int8
                                  (C0 32) */
    const kvg_tensor *v_cache; /* [BN, Nv*D/C0, BS, C0], same rule */

    /* Optional quantisation parameters, fp32. */
    const kvg_tensor *k_scale;  /* [Nk, D], required iff k_cache is int8 */
    const kvg_tensor *v_scale;  /* [Nv, D], required iff v_cache is int8 */
    const kvg_tensor *k_offset; /* [Nk, D], only with an int8 k_cache */
    const kvg_tensor *v_offset; /* [Nv, D], only with an int8 v_cache */

    /*
     * Optional outputs, all three or none (aclnn's is_output_qkv is
     * "q_out_before_quant != NULL"). q: a copy of q_out, [B*S, Nq*D]; k: the
     * rotated k before quantisation, [B*S, Nk*D]; v: v as read, [B*S, Nv*D];
     * all T, written for every token (skipped slots included).
     */
    const kvg_tensor *q_out_before_quant;
    const kvg_tensor *k_out_before_quant;
    const kvg_tensor *v_out_before_quant;

    /* Attributes. */
    const int64_t *qkv_size;  /* [B, S, N, D]; required, qkv_size_len == 4 */
    size_t qkv_size_len;
    const int64_t *head_nums; /* [Nq, Nk, Nv]; required, head_nums_len == 3 */
    size_t head_nums_len;
    double epsilon;           /* default 1e-6, narrowed to float first */
    kvg_cache_mode cache_mode; /* KVG_CACHE_PA_NZ, the only mode */

    /* Arithmetic options (kvgold's, not the operator's). */
    kvg_reduce_order reduce_order; /* default KVG_REDUCE_PAIRWISE */
    /* Overflow of the fp16/bf16 outputs (q_out, before-quant, T caches):
     * default (and NONSAT) gives +-inf as torch does, SATURATE clamps to
     * the largest finite value as the AscendC Cast documentation says. */
    kvg_overflow overflow;

    /* Caller-owned scratch of kvg_qkv_rms_norm_rope_cache_workspace_size
     * bytes (any alignment). */
    void *workspace;
    size_t workspace_size;
} kvg_qkv_rms_norm_rope_cache_args;

/* Set every field to its default: tensors and attribute lists NULL,
 * epsilon 1e-6, cache_mode KVG_CACHE_PA_NZ, pairwise order, default overflow, no
 * workspace. NULL-safe. */
KVG_API void kvg_qkv_rms_norm_rope_cache_args_init(
    kvg_qkv_rms_norm_rope_cache_args *args);

/*
 * The workspace the call needs, in *bytes. It depends only on the shapes
 * (B*S tokens); the arguments are validated as the call validates them
 * except for index values and the workspace itself, so a size query on bad
 * arguments fails with the same status and message as the call would.
 */
KVG_API kvg_status kvg_qkv_rms_norm_rope_cache_workspace_size(
    const kvg_qkv_rms_norm_rope_cache_args *args, size_t *bytes,
    kvg_diag *diag);

/*
 * Run the operator. Returns KVG_OK, or an error with `diag` (optional)
 * filled and nothing written. Deterministic: results do not depend on the
 * workspace contents or on any state outside the arguments.
 */
KVG_API kvg_status kvg_qkv_rms_norm_rope_cache(
    const kvg_qkv_rms_norm_rope_cache_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_QKV_RMS_NORM_ROPE_CACHE_H */
