/*
 * kvgold/c8_mxfp_k_cache.h - golden model of the K write of vllm-ascend's
 * C8-MXFP attention backend (the K half of
 * AscendC8MXFPAttentionBackendImpl's cache write; docs/c8_mxfp_k_cache.md
 * has the source lines and why the operator is named so: the backend has
 * no kernel of its own for it, it is a composite of three calls on one
 * key).
 *
 * Per token t (slot s = slot_mapping[t]) and head n, the key row
 * key[t, n, :] (D elements) is quantised as the backend's MX quant call
 * (dst_type fp8_e4m3fn, block 32, scale_alg 0; docs/c8_mxfp_k_cache.md,
 * section 2) does: per block j of 32 elements an E8M0 code c_j (R-OCP:
 * max(E(amax), 8) - 8; an Inf / NaN in the block 0xFF) and the codes
 * y = fp8(x * 2^(127 - c_j)) (code 0: +-0; 0xFF: +0), saturating. Then:
 *
 *   payload (the PA_NZ scatter, cache_mode "PA_NZ"): s >= 0,
 *     b = s / Bs, o = s % Bs:
 *       key_cache[b, n, g, o, c] = y[t, n, 32 g + c];
 *     a negative s is skipped (every negative, as the PA_NZ scatter does).
 *   scales (scatter_mxfp_k_scale_cache, an index_put): s' = max(s, 0) -
 *     a pad row (negative slot) is CLAMPED to slot 0 and written there
 *     (slot 0 is vLLM's null block) - b = s' / Bs, o = s' % Bs:
 *       key_scale_cache[b, n, o / 16, j, o % 16, p] = c_(2j + p).
 *   With two or more pad rows their scales race on slot 0 (index_put
 *   without accumulate): kvgold writes them in token order, so the last
 *   pad row's remain, and the call's row layout marks slot 0 a sink
 *   (has_sink): compare counts its scale bytes UNDEFINED. With one pad
 *   row slot 0's scales are that row's and are judged.
 *   Every other byte of both caches keeps its contents.
 *
 * Refused (161002) besides shapes and dtypes: D % 64 != 0 (the source's
 * validate_mxfp_k_scale_head_dim), Bs % 64 != 0
 * (validate_mxfp_v_scale_block_size), Bs >= 65536 (the PA_NZ scatter's
 * block size bound the source cites), a slot >= Bn * Bs, two tokens on
 * one slot, a token at slot 0 while a pad row is present (both write slot
 * 0's scales: a race vLLM never runs, slot 0 being its null block), and
 * the MX quant's value refusals on any row (a bf16 / fp32 subnormal
 * element; a negative element whose scaled value is subnormal).
 *
 * Validation (everything before the first byte is written; on any error
 * both caches are unchanged):
 *   161001  a tensor (or its data) is NULL
 *   161002  dtypes, ranks, shapes and the refusals above
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_C8_MXFP_K_CACHE_H
#define KVGOLD_C8_MXFP_K_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kvg_c8_mxfp_k_cache_args {
    const kvg_tensor *key;          /* [T, N, D]; bf16, fp16 or fp32 */
    const kvg_tensor *slot_mapping; /* [T]; int32 or int64 */
    /* fp8_e4m3fn [Bn, N, D/32, Bs, 32], the PA_NZ view (updated) */
    const kvg_tensor *key_cache;
    /* e8m0 or uint8 [Bn, N, Bs/16, D/64, 16, 2] (updated) */
    const kvg_tensor *key_scale_cache;

    /* Caller-owned scratch of kvg_c8_mxfp_k_cache_workspace_size bytes
     * (any alignment): the duplicate-slot check's keys. */
    void *workspace;
    size_t workspace_size;
} kvg_c8_mxfp_k_cache_args;

/* Every field zero (tensors NULL, no workspace); the operator has no
 * attributes. NULL-safe. */
KVG_API void kvg_c8_mxfp_k_cache_args_init(kvg_c8_mxfp_k_cache_args *args);

/* The workspace the call needs, in *bytes; the arguments are checked as
 * the call checks them, except tensor contents and the workspace. */
KVG_API kvg_status kvg_c8_mxfp_k_cache_workspace_size(
    const kvg_c8_mxfp_k_cache_args *args, size_t *bytes, kvg_diag *diag);

/* Run the operator: both caches updated, or an error with `diag`
 * (optional) filled and nothing written. */
KVG_API kvg_status kvg_c8_mxfp_k_cache(const kvg_c8_mxfp_k_cache_args *args,
                                       kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_C8_MXFP_K_CACHE_H */
