/*
 * kvgold/concat_and_cache_ds_mla.h - golden model of the packed C8 MLA
 * cache row (656 bytes a token: 512 quantised nope, 64 bf16 rope, 4 fp32
 * scales of 1 x 128 tiles) of DeepSeek-V3.2 / GLM-5, in the two public
 * paths that write it (issue 36; docs/concat_and_cache_ds_mla.md cites the
 * lines). The name is vLLM's kernel for exactly this row
 * (concat_and_cache_ds_mla_kernel, behind concat_and_cache_mla with
 * kv_cache_dtype "fp8_ds_mla"); the Ascend path has no operator of its
 * own, so it is a preset of this one.
 *
 * Presets (`preset`; one kvg_row_layout each, src/ops/
 * concat_and_cache_ds_mla/presets.c):
 *   ascend-sfa-c8   vllm-ascend SFA C8 (vllm_ascend/attention/sfa_v1.py
 *                   @182b75ea84 custom_kv_rmsnorm_rope + the store at
 *                   1369-1384): y = bf16(npu_rms_norm(kv_c, gamma, eps)),
 *                   r = bf16(npu_interleave_rope(k_pe, cos, sin)) - the
 *                   norm as ops-nn's kernels do it, y = (x * rstd) *
 *                   gamma with rstd = 1 / sqrtf(mean + eps), the rope as
 *                   torch_npu documents it (partly verified,
 *                   quant_epilogs.md Q18) - then
 *                   the torch_npu block quant of y (1 x 128,
 *                   docs/dynamic_block_quant.md): an int8 cache is
 *                   the A3 path (DBQ profile a2a3: scale = amax *
 *                   fl(1/127), q = int8(rint(y * fl(fl(1/amax) * 127)))),
 *                   an fp8_e4m3fn cache the A5 path (DBQ ascend950: s =
 *                   amax / 448, q = e4m3(y / s), saturating, an all-zero
 *                   tile scale 0 and codes 0); row [q 512 | rope bf16 128 |
 *                   scale fp32 x 4], npu_scatter_nd_update_ by slot.
 *   vllm-fp8_ds_mla vLLM CUDA concat_and_cache_ds_mla_kernel: no norm, no
 *                   rope; s = fmaxf(amax / 448, FLT_MIN), q = e4m3(x / s)
 *                   SATFINITE nearest-even; row [q 512 | s fp32 x 4 |
 *                   k_pe bf16 128]. With use_ue8m0 (vLLM PR #49435) s
 *                   = 2^k, the least power of two >= max(amax / 448,
 *                   fl(1e-4)), stored as fp32, q = e4m3(x / 2^k).
 *   flashmla-model1 DeepSeek-V4's 584-byte row, reference only
 *                   (deepseek-ai/FlashMLA@520fec6a tests/quant.py
 *                   quantize_k_cache, MODEL1_FP8Sparse): kv_c bf16
 *                   [..., 448] in 7 tiles of 64, each v = max(amax /
 *                   448, fl(1e-4)), scale 2^k the least power of two >=
 *                   v, stored as the E8M0 byte k + 127, q = e4m3(x /
 *                   2^k); k_pe bf16 [..., 64] copied bit for bit. The
 *                   cache is [num_blocks, block_bytes] with the attribute
 *                   block_size (required) and block_bytes =
 *                   ceil(block_size * 584 / 576) * 576: block b holds
 *                   token r's [nope 448 | rope 128 B] at r * 576, then
 *                   at block_size * 576 + r * 8 its 7 scale bytes and a
 *                   pad byte that is never written (judged don't care);
 *                   the block's tail is never written.
 * ascend-sfa-c8 and vllm-fp8_ds_mla have no pad: every byte of a
 * written row is written.
 *
 * Tensors: kv_c bf16 [..., 512]; k_pe bf16 kv_c.shape[:-1] + [64]; gamma
 * bf16 [512], cos, sin bf16 (k_pe's shape): required by ascend-sfa-c8,
 * refused by vllm-fp8_ds_mla; slot_mapping int32 / int64 (vllm: int64, as
 * the kernel reads data_ptr<int64_t>) of kv_c.shape[:-1]; kv_cache (in
 * place) [rows, 656] or [blocks, block_size, 656]: ascend int8 or
 * float8_e4m3fn (the dtype picks the chip), vllm uint8 or float8_e4m3fn.
 *
 * Slots: every preset skips slot < 0, none refuses one (ascend-sfa-c8:
 * ops-nn's ScatterNdUpdate kernels write no byte of the cache for an
 * index < 0 - the checked ones skip it, the A2/A3 high_performance one
 * writes before the cache's first byte - see
 * docs/concat_and_cache_ds_mla.md section 2, "Slots (Q14)";
 * vllm-fp8_ds_mla's kernel and FlashMLA's -1 likewise;
 * KVG_I_SLOT_SKIP_NEGATIVE in presets.c). All refuse a slot >= the
 * cache's slots and two tokens writing one slot. Rows not written keep
 * every byte.
 *
 * Refused (161002), besides dtypes and shapes: a non-finite input value in
 * a written token; an a2a3 all-zero tile (DBQ a2a3: 0 * inf); an ascend950
 * tile whose scale amax / 448 is subnormal or one of whose nonzero
 * quotients y / s is (as kvgold's block quant refuses,
 * docs/dynamic_block_quant.md); an attribute the preset has not, off its
 * default (vllm: epsilon, reduce_order; ascend, model1: use_ue8m0); a
 * tensor the preset has not (vllm: gamma, cos, sin; ascend: scale); a
 * scale not float32 of one element. 161001: a required tensor (or its
 * data) NULL. On any error the cache is
 * unchanged.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_CONCAT_AND_CACHE_DS_MLA_H
#define KVGOLD_CONCAT_AND_CACHE_DS_MLA_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/options.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The path whose bytes are modelled (case.json `preset`). */
typedef enum kvg_ccdm_preset {
    KVG_CCDM_ASCEND_SFA_C8 = 0,  /* "ascend-sfa-c8" */
    KVG_CCDM_VLLM_FP8_DS_MLA = 1, /* "vllm-fp8_ds_mla" */
    KVG_CCDM_FLASHMLA_MODEL1 = 2  /* "flashmla-model1" */
} kvg_ccdm_preset;

typedef struct kvg_concat_and_cache_ds_mla_args {
    const kvg_tensor *kv_c;         /* bf16 [..., 512] (model1: 448) */
    const kvg_tensor *k_pe;         /* bf16 [..., 64] */
    const kvg_tensor *gamma;        /* bf16 [512]; ascend only */
    const kvg_tensor *cos;          /* bf16, k_pe's shape; ascend only */
    const kvg_tensor *sin;          /* bf16, k_pe's shape; ascend only */
    const kvg_tensor *slot_mapping; /* int32 / int64, kv_c.shape[:-1] */
    /* in place, [rows | blocks, bs, 656]; model1 [blocks, block_bytes] */
    const kvg_tensor *kv_cache;
    /* vllm only, optional: vLLM's `Tensor scale` argument, float32 of one
     * element; read by concat_and_cache_mla, not used by the ds_mla
     * kernel (any value) */
    const kvg_tensor *scale;

    kvg_ccdm_preset preset;        /* default ascend-sfa-c8 */
    double epsilon;                /* default 1e-5 (ascend) */
    kvg_reduce_order reduce_order; /* default pairwise (ascend) */
    /* flashmla-model1 only: tokens a block (> 0, required); 0 for the
     * others (their block_size is the cache's shape) */
    int64_t block_size;
    /* vllm-fp8_ds_mla only: vLLM's power-of-two tile scales (PR #49435,
     * ds_mla_use_ue8m0_scale()): nonzero stores 2^k, the least power of
     * two >= max(amax / 448, fl(1e-4)), as the tile's fp32 scale and
     * quantises with it; 0 (default) the kernel's fmaxf(amax / 448,
     * FLT_MIN). Refused nonzero by the other presets. */
    int use_ue8m0;

    /* Caller-owned scratch of kvg_concat_and_cache_ds_mla_workspace_size
     * bytes (any alignment): one key a token for the duplicate check. */
    void *workspace;
    size_t workspace_size;
} kvg_concat_and_cache_ds_mla_args;

/* Every field to its default. NULL-safe. */
KVG_API void kvg_concat_and_cache_ds_mla_args_init(
    kvg_concat_and_cache_ds_mla_args *args);

/* "ascend-sfa-c8", "vllm-fp8_ds_mla", "flashmla-model1" -> *preset; 1 if
 * known, else 0. */
KVG_API int kvg_ccdm_preset_from_name(const char *name,
                                      kvg_ccdm_preset *preset);

/* The workspace the call needs, in *bytes; the arguments are checked as
 * the call checks them, except tensor contents and the workspace. */
KVG_API kvg_status kvg_concat_and_cache_ds_mla_workspace_size(
    const kvg_concat_and_cache_ds_mla_args *args, size_t *bytes,
    kvg_diag *diag);

/* Run the operator: the written slots' rows, or an error with `diag`
 * (optional) filled and the cache unchanged. */
KVG_API kvg_status kvg_concat_and_cache_ds_mla(
    const kvg_concat_and_cache_ds_mla_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_CONCAT_AND_CACHE_DS_MLA_H */
