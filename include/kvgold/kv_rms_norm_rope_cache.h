/*
 * kvgold/kv_rms_norm_rope_cache.h - KvRmsNormRopeCache (DeepSeek-V3 MLA),
 * aclnnKvRmsNormRopeCache / torch_npu.npu_kv_rmsnorm_rope_cache, V1 and
 * V2 (aclnnKvRmsNormRopeCacheV2, the optional input v).
 *
 * For every token t = b*Skv + s of kv [Bkv, 1, Skv, Dv + Dk] (dtype T, fp16
 * or bf16), all in binary32 with one rounding per operation:
 *
 *   y   = RmsNorm(kv[b,0,s,0:Dv], gamma)       (x / sqrtf(mean + eps)) * g
 *   r   = interleaved RoPE of kv[b,0,s,Dv:]    half-split output order:
 *         r[j]   = x[2j]  *cos[j]   + (-x[2j+1])*sin[j]      j < Dk/2
 *         r[h+j] = x[2j+1]*cos[h+j] +   x[2j]   *sin[h+j]
 *   c_kv[t]   = T(y),  k_rope[t] = T(r)        (only when is_output_kv)
 *   ckv_cache <- T(y), or Q(y * c_kv_scale (+ c_kv_offset))   scattered
 *   k_cache   <- T(r), or Q(r * k_rope_scale (+ k_rope_offset))
 *
 * The scale MULTIPLIES (it is the reciprocal of a dequant scale; not every
 * operator's does). Q is the cache's 1-byte dtype: int8
 * (round half to even, saturate), hif8 (round half away), fp8 e5m2 / e4m3fn
 * (round half to even); fp8 and hif8 saturate unless quant_overflow says
 * otherwise. The quantiser sees the binary32 y and r, never T(y), T(r).
 * cos/sin row: cos[b,0,s,:], or cos[b,0,0,:] when cos has Srope = 1.
 *
 * Where a token's row lands (BS = k_cache.shape[1], C0 = 32 bytes of the
 * cache's own dtype: 16 for fp16/bf16, 32 for 1-byte types):
 *
 *   mode          index shape               cache shape            element of channel c
 *   NORM          [Bkv, Skv]   p=index[b,s] [Bc, 1, Scache, D]    (b*Scache + p)*D + c
 *   PA_BNSD (PA)  [Bkv*Skv]    p=index[t]   [NB, BS, 1, D]        p*D + c
 *   PA_NZ         [Bkv*Skv]    p=index[t]   [NB, BS, 1, D], NZ    ((p/BS*D/C0 + c/C0)*BS
 *                                                                   + p%BS)*C0 + c%C0
 *   PA_BLK_BNSD   [Bkv*nb]     v=index[b*nb + s/BS], nb = ceil(Skv/BS);
 *                              slot (v/BS)*BS + s%BS (v%BS is ignored), as PA_BNSD
 *   PA_BLK_NZ     as PA_BLK_BNSD, NZ offset as PA_NZ
 *
 * A negative index skips the cache writes of that token (k_rope / c_kv are
 * still written). An index past the cache, a repeated slot (NORM: a
 * repeated position within one batch; PA_BLK_*: a repeated v/BS) is an
 * error: the NPU would corrupt or silently drop data, the oracle refuses.
 * Inputs holding inf or NaN are refused too (the aclnn documentation
 * excludes them; what the NPU makes of them is unspecified).
 *
 * Validation profiles: KVG_KV_PROFILE_ASCEND950 (default) checks the general
 * semantics the Ascend 950 kernels implement (any even Dk, any Dv, int8 /
 * hif8 / fp8 caches, offsets, scale shapes [D], [1, D], [1]).
 * KVG_KV_PROFILE_A2A3 also refuses what Atlas A2/A3 cannot run or would
 * run differently: Dv != 512 or Dk != 64, non-int8 quantisation, offsets
 * (ignored by the A2/A3 V1 kernels), scales of shape [1], scales of
 * different ranks, quantisation or is_output_kv in NORM mode, and cos
 * broadcast outside NORM / non-quant PA_BNSD without outputs. It does not
 * require the BlockSize alignment, which the A2/A3 host code never checks.
 * docs/kv_rms_norm_rope_cache.md lists every rule with its source.
 *
 * V2 (aclnnKvRmsNormRopeCacheV2) runs when the optional input `v` is given;
 * kv then holds only the K part and N >= 1 heads share each token's index:
 *
 *   kv [Bkv, N, Skv, Dk], gamma [Dk], cos/sin [Bkv, N, Skv or 1, R]
 *   (R even, R <= Dk), v [Bkv, N, Skv, Dv] of kv's dtype; per (b, n, s):
 *   y   = RmsNorm(kv[b,n,s,:], gamma)           over all Dk channels
 *   kf  = concat(RoPE(y[0:R]), y[R:Dk])          binary32, RoPE as above
 *   k_rope[b,n,s] = T(kf), c_kv[b,n,s] = v[b,n,s] (a copy)
 *   k_cache   <- T(kf), or Q(kf * k_rope_scale[n] (+ k_rope_offset[n]))
 *   ckv_cache <- v unchanged, or Q(v * c_kv_scale[n] (+ c_kv_offset[n]))
 *
 * The caches carry N: Norm [Bc, N, Scache, D] at ((b*N + n)*Scache + p)*D;
 * PA* [NB, BS, N, D] at (slot*N + n)*D; NZ pages [N, D/C0, BS, C0]. Scales
 * and offsets are [N, D] ([D] too when N = 1). Profile a2a3 also requires
 * Dk = 192, R = 64, Dv = 128 and N in {1, 2, 4, 8}, accepts offsets and
 * quantisation in Norm mode (V2 kernels implement both) and refuses
 * is_output_kv in Norm mode without quantisation (not written there); a V2
 * call (one with v) has it refused there by every profile, since no chip's
 * V2 kernel writes k_rope / c_kv in that mode (docs/kv_rms_norm_rope_cache.md
 * section 7.2).
 *
 * Every check runs before the first byte is written: on any error the
 * caches and outputs are untouched. Status 161001 for a missing required
 * tensor, 161002 for anything else that is refused (the message says when
 * the real aclnn would report 561002, its tiling error, or would not check
 * at all), 170001 for a missing or short workspace.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_KV_RMS_NORM_ROPE_CACHE_H
#define KVGOLD_KV_RMS_NORM_ROPE_CACHE_H

#include <stddef.h>

#include "kvgold/api.h"
#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/options.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cacheModeOptional is kvgold/layout.h's kvg_cache_mode (all five modes).
 * The names of kvgold 0.1.0 stay readable: */
typedef kvg_cache_mode kvg_kv_cache_mode;
#define KVG_KV_CACHE_NORM KVG_CACHE_NORM
#define KVG_KV_CACHE_PA_BNSD KVG_CACHE_PA_BNSD
#define KVG_KV_CACHE_PA KVG_CACHE_PA
#define KVG_KV_CACHE_PA_NZ KVG_CACHE_PA_NZ
#define KVG_KV_CACHE_PA_BLK_BNSD KVG_CACHE_PA_BLK_BNSD
#define KVG_KV_CACHE_PA_BLK_NZ KVG_CACHE_PA_BLK_NZ
#define kvg_kv_cache_mode_from_name kvg_cache_mode_from_name
#define kvg_kv_cache_mode_name kvg_cache_mode_name

/* Which chip's acceptance rules to enforce on top of the semantics:
 * kvgold/options.h's kvg_profile ("ascend950": the general semantics;
 * "a2a3": also Atlas A2/A3's limits), under this operator's older names. */
typedef kvg_profile kvg_kv_profile;
#define KVG_KV_PROFILE_ASCEND950 KVG_PROFILE_ASCEND950
#define KVG_KV_PROFILE_A2A3 KVG_PROFILE_A2A3
#define kvg_kv_profile_from_name kvg_profile_from_name
#define kvg_kv_profile_name kvg_profile_name

typedef struct kvg_kv_rms_norm_rope_cache_args {
    /* Inputs (required). T = kv->dtype. */
    const kvg_tensor *kv;    /* T [Bkv, 1, Skv, Dv + Dk] */
    const kvg_tensor *gamma; /* T [Dv]; defines Dv */
    const kvg_tensor *cos;   /* T [Bkv, 1, Skv or 1, Dk]; defines Dk (even) */
    const kvg_tensor *sin;   /* T, same shape as cos */
    const kvg_tensor *index; /* int64, shape per cache_mode (table above) */
    /* In-place caches (required): T, or a 1-byte quant dtype. */
    const kvg_tensor *k_cache;   /* receives the RoPE part, D = Dk */
    const kvg_tensor *ckv_cache; /* receives the RmsNorm part, D = Dv */
    /* Quantisation (optional, fp32). A scale is required exactly when its
     * cache is quantised; an offset needs its scale. Shapes [D], [1, D] or
     * [1] (a scalar for every channel); offset and scale independently. */
    const kvg_tensor *k_rope_scale;
    const kvg_tensor *c_kv_scale;
    const kvg_tensor *k_rope_offset;
    const kvg_tensor *c_kv_offset;
    /* V2 (optional): T [Bkv, N, Skv, Dv]. Given, the call is V2 (the block
     * comment above); NULL, it is V1. */
    const kvg_tensor *v;
    /* Outputs: T [Bkv, N, Skv, Dk] and [Bkv, N, Skv, Dv] (N = 1 in V1),
     * every token row (skipped tokens too). Required when is_output_kv; otherwise ignored
     * (never read or written) and may be NULL. */
    const kvg_tensor *k_rope;
    const kvg_tensor *c_kv;

    double epsilon;               /* default 1e-5; narrowed to float; must be
                                     finite and >= 0 */
    kvg_kv_cache_mode cache_mode; /* default KVG_KV_CACHE_NORM */
    int is_output_kv;             /* default 0 */

    kvg_kv_profile profile;        /* default KVG_KV_PROFILE_ASCEND950 */
    kvg_reduce_order reduce_order; /* default KVG_REDUCE_PAIRWISE */
    /* Overflow of the fp8 / hif8 cache encoders (default: saturate, as the
     * 950 kernels; KVG_OVF_NONSAT gives inf or NaN as older hif8 builds).
     * int8 always saturates; T results overflow to +-inf. */
    kvg_overflow quant_overflow;

    void *workspace; /* kvg_kv_rms_norm_rope_cache_workspace_size bytes */
    size_t workspace_size;
} kvg_kv_rms_norm_rope_cache_args;

/* Clear every tensor pointer and set every attribute to its default. */
KVG_API void kvg_kv_rms_norm_rope_cache_args_init(
    kvg_kv_rms_norm_rope_cache_args *args);

/*
 * The workspace the call needs, from the shapes alone (the index values and
 * tensor contents are not read). Runs every shape, dtype and attribute
 * check of the operator and fails as the operator would.
 */
KVG_API kvg_status kvg_kv_rms_norm_rope_cache_workspace_size(
    const kvg_kv_rms_norm_rope_cache_args *args, size_t *bytes,
    kvg_diag *diag);

/*
 * Run the operator: validate everything, then update k_cache and ckv_cache
 * in place and (is_output_kv) write k_rope and c_kv. `diag` may be NULL.
 */
KVG_API kvg_status kvg_kv_rms_norm_rope_cache(
    const kvg_kv_rms_norm_rope_cache_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_KV_RMS_NORM_ROPE_CACHE_H */
