/*
 * kvgold/indexer_quant_cache.h - golden model of IndexerQuantCache
 * (aclnnIndexerQuantCache, Ascend 950), the Indexer attention epilog that
 * quantises each token's row of x and scatters the codes into a paged
 * cache and their scales into a scale cache of its own, a slot of -1
 * skipping the token. docs/indexer_quant_cache.md is the operator's page;
 * the rules cite the kernel as OT = cannmirror/ops-transformer@25fb6b928
 * attention/indexer_quant_cache/ (op_host/indexer_quant_cache_def.cpp,
 * op_host/indexer_quant_cache_tiling_arch35.cpp, op_kernel/arch35/).
 *
 * Tensors: x fp16 / bf16 [..., d], 32 <= d <= 8192, d % 32 == 0;
 * slot_mapping int32 (aclnn) / int64, x's shape without its last dim;
 * cache (in place) [blocks, block_size, 1, head_dim]; cache_scale (in
 * place) [blocks, block_size, 1, scale_dim], the same blocks and
 * block_size. Slot s is row s % block_size of block s / block_size in both.
 * A written slot gets d codes at the start of its cache row (mode 3: d / 2
 * bytes of packed fp4 pairs) and scale_col scales at the start of its
 * cache_scale row; every other byte keeps its contents.
 *
 *   quant_mode 0  MX-FP8: cache fp8_e4m3fn / fp8_e5m2, cache_scale e8m0,
 *                 scale_col = d / 32. Per 32: R-CEIL (s = max(amax,
 *                 fl(1e-4)) * fl(1/MAX), c = E(s) + (M(s) != 0)), codes
 *                 fp8_RNE(x * 2^(127-c)). round_scale is not read (base.h
 *                 :172-318, single_row_mx_fp8.h:84).
 *   quant_mode 1  Normal: cache fp8_e4m3fn / fp8_e5m2, cache_scale fp32,
 *                 scale_col 1. s = rowmax * fl(1/MAX) (0 for a zero row);
 *                 round_scale: s rounded up to a power of two on its
 *                 fields; codes fp8_RNE(x * fl(1 / s)), x kept where that
 *                 is not finite (a zero row: codes of +-0) (base.h:338-460).
 *   quant_mode 2  HiFloat8: cache uint8 (the HiF8 codes), cache_scale fp32.
 *                 codes hif8(fl(x * x_scale)), nearest-away, saturating.
 *                 The kernel computes no scale but copies 4 bytes of an
 *                 unset buffer to the scale row (single_row.h:76-101):
 *                 kvgold writes zeros there and compare does not judge
 *                 them (an UNDEFINED segment).
 *   quant_mode 3  MX-FP4: cache fp4_e2m1 (packed, head_dim counts bytes),
 *                 cache_scale e8m0, scale_col = d / 32. Per 32: R-OCP on
 *                 the bf16 exponent E of amax, c = max(E, 2) - 2; codes
 *                 fp4_RINT(bf16(x) * bf16 2^(127-c)) (0 where E = 0; fp16
 *                 x: bf16 by truncation after a sticky bit)
 *                 (mx_fp4_base.h:58-337).
 *
 * Refused (161002, naming the tensor or attribute): quant_mode outside
 * 0..3; a dtype the mode does not take (mode 1 with a uint8 cache: the
 * kernel stores no codes then; mode 2 with an fp8 cache: it would write
 * HiF8 codes into it; mode 3 with fp4_e1m2: kvgold has no E1M2 codec);
 * shapes; a slot < -1 or >= blocks * block_size; a slot twice; a
 * non-finite x in a written token; mode 1 rows whose scale would be a
 * binary32 subnormal (what the NPU's multiply does with it is not known);
 * mode 2 with a non-finite x_scale.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_INDEXER_QUANT_CACHE_H
#define KVGOLD_INDEXER_QUANT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kvg_indexer_quant_cache_args {
    const kvg_tensor *x;            /* fp16 / bf16 [..., d] */
    const kvg_tensor *slot_mapping; /* int32 / int64, x.shape[:-1] */
    const kvg_tensor *cache;        /* [blocks, block_size, 1, head_dim] */
    const kvg_tensor *cache_scale;  /* [blocks, block_size, 1, scale_dim] */

    int64_t quant_mode; /* 0 MX-FP8, 1 Normal (default), 2 HiF8, 3 MX-FP4 */
    int round_scale;    /* default 1; read by mode 1 only */
    double x_scale;     /* default 1.0; read by mode 2 only */

    /* Caller-owned scratch of kvg_indexer_quant_cache_workspace_size bytes
     * (any alignment): one key a token for the duplicate-slot check. */
    void *workspace;
    size_t workspace_size;
} kvg_indexer_quant_cache_args;

/* Every field to its default (tensors NULL, mode 1, round_scale 1,
 * x_scale 1.0, no workspace). */
KVG_API void kvg_indexer_quant_cache_args_init(
    kvg_indexer_quant_cache_args *args);

/* The workspace the call needs, in *bytes; the arguments are checked as
 * the call checks them, except tensor contents and the workspace. */
KVG_API kvg_status kvg_indexer_quant_cache_workspace_size(
    const kvg_indexer_quant_cache_args *args, size_t *bytes,
    kvg_diag *diag);

/* Run the operator: the written slots of cache and cache_scale, or an
 * error with `diag` set and nothing written. */
KVG_API kvg_status kvg_indexer_quant_cache(
    const kvg_indexer_quant_cache_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_INDEXER_QUANT_CACHE_H */
