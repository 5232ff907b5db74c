/*
 * kvgold/indexer_compress_epilog.h - golden model of the indexer compress
 * epilogs: quantise each token's row of x in groups of 128 columns and
 * scatter the codes and their scales into the indexer cache, a slot of -1
 * skipping the token. One operator name, two kernels with their own torch
 * names, arguments and byte layouts, so `impl` picks one, a preset of
 * the packed-row engine. docs/indexer_compress_epilog.md is
 * the operator's page; the rules cite
 *   CR = hicann/cann-recipes-infer@fbc225d
 *        ops/ascendc/src/indexer_compress_epilog/ (op_host, op_kernel),
 *   VA = vllm-project/vllm-ascend@182b75ea84
 *        csrc/attention/indexer_compress_epilog_v2/ (op_host, op_kernel).
 *
 * impl "cr" - torch.ops.custom.indexer_compress_epilog(cache,
 *   indexer_compress_scale, x, slot_mapping, *, quant_mode=1,
 *   round_scale=True, scale=1.0):
 *   x fp16 / bf16 [T, d]; slot_mapping int32 [T]; cache [rows, d];
 *   cache_scale [rows, ceil(d / 128)]. Slot s gets its d codes at cache
 *   row s and its scales at cache_scale row s. Groups of 128 columns, the
 *   last one shorter when 128 does not divide d (the kernel's ceil).
 *     quant_mode 0  MX-FP8: cache fp8_e4m3fn / fp8_e5m2, cache_scale
 *                   e8m0. a = max(amax, fl(1e-4)), s = a * fl(1/MAX);
 *                   round_scale: R-EBUMP, c = E(s) + (E(s) != 0) (the
 *                   mantissa mask applied to the exponent, base.h:218-226),
 *                   else R-TRUNC, c = E(s) with the payload divided by s
 *                   itself; codes fp8_RNE(clamp(x / 2^(c-127), +-MAX)).
 *     quant_mode 1  cache fp8_e4m3fn / fp8_e5m2, cache_scale fp32:
 *                   R-BLK128-FP32, s = amax * fl(1/MAX) (0 for a zero
 *                   group), codes fp8_RNE(x / s), x kept where that is
 *                   not finite, no clamp (base.h:269-382).
 *     quant_mode 2  HiFloat8: cache uint8 (or hif8), cache_scale fp32;
 *                   codes hif8(fl(x * scale)) nearest-away, saturating
 *                   (base.h:384-413). The kernel copies an unset buffer
 *                   into the slot's scale row (single_row.h:75-94):
 *                   kvgold writes zeros there and compare does not judge
 *                   them (UNDEFINED).
 * impl "va_v2" - torch.ops._C_ascend.indexer_compress_epilog_v2(
 *   indexer_compress_cache, x, slot_mapping, layout=2):
 *   x fp16 / bf16 [..., d]; slot_mapping int32, x.shape[:-1]; cache uint8
 *   [blocks, block_size, 1, cacheD], cacheD >= d + 4 * ceil(d / 128); no
 *   cache_scale. quant_mode 1's arithmetic for fp8_e4m3fn (the same
 *   kernel function), block-major: slot s = b * block_size + p writes its
 *   d codes at byte b * B + p * d and its fp32 scales at byte
 *   b * B + block_size * d + p * 4 * ceil(d / 128), B = block_size *
 *   cacheD (single_row.h:83-93); the rest of a block is never written.
 *
 * Every byte not written keeps its contents. Refused (161002, naming the
 * tensor or attribute): an unknown impl; an attribute the impl has not
 * away from its default; quant_mode outside the impl's; a dtype the mode
 * does not take (cr mode 1 into a uint8 cache: the kernel stores no
 * codes; cr mode 2 into an fp8 cache: it would write HiF8 codes there);
 * shapes (cache rows of exactly d codes and ceil(d / 128) scales for cr;
 * a va_v2 cache too narrow for its block's scales); d outside
 * [1, 16384]; int64 slot_mapping (both op_defs take int32 only); a slot
 * < -1 or >= the cache's slots; a slot twice; a non-finite x in a written
 * token; a quant_mode 1 / va_v2 group whose fp32 scale would be a
 * binary32 subnormal (whether the NPU's multiply flushes it is not
 * known); cr mode 2 with a non-finite scale.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_INDEXER_COMPRESS_EPILOG_H
#define KVGOLD_INDEXER_COMPRESS_EPILOG_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel modelled (case.json `impl`). */
typedef enum kvg_ice_impl {
    KVG_ICE_CR = 0,   /* "cr": cann-recipes-infer custom op */
    KVG_ICE_VA_V2 = 1 /* "va_v2": vllm-ascend indexer_compress_epilog_v2 */
} kvg_ice_impl;

typedef struct kvg_indexer_compress_epilog_args {
    const kvg_tensor *x;            /* fp16 / bf16 [T, d] (va_v2 [..., d]) */
    const kvg_tensor *slot_mapping; /* int32, x.shape[:-1] */
    const kvg_tensor *cache;        /* cr [rows, d]; va_v2 uint8 4-D */
    const kvg_tensor *cache_scale;  /* cr [rows, ceil(d/128)]; va_v2 NULL */

    kvg_ice_impl impl;    /* default "cr" */
    int64_t quant_mode;   /* cr 0 / 1 / 2; default 1 (va_v2: 1 only) */
    int round_scale;      /* default 1; cr mode 0 only */
    double scale;         /* default 1.0; cr mode 2 only */
    int64_t layout;       /* default 2; va_v2 2 only (cr: has none) */
    int64_t block_stride; /* default 0; va_v2: 0 or block_size * cacheD */

    /* Caller-owned scratch of kvg_indexer_compress_epilog_workspace_size
     * bytes (any alignment): one key a token for the duplicate-slot
     * check. */
    void *workspace;
    size_t workspace_size;
} kvg_indexer_compress_epilog_args;

/* Every field to its default (tensors NULL, impl cr, mode 1, round_scale
 * 1, scale 1.0, layout 2, block_stride 0, no workspace). */
KVG_API void kvg_indexer_compress_epilog_args_init(
    kvg_indexer_compress_epilog_args *args);

/* "cr", "va_v2" -> *impl; 1 if known, else 0. */
KVG_API int kvg_ice_impl_from_name(const char *name, kvg_ice_impl *impl);

/* The workspace the call needs, in *bytes; the arguments are checked as
 * the call checks them, except tensor contents and the workspace. */
KVG_API kvg_status kvg_indexer_compress_epilog_workspace_size(
    const kvg_indexer_compress_epilog_args *args, size_t *bytes,
    kvg_diag *diag);

/* Run the operator: the written slots of the cache (and cache_scale), or
 * an error with `diag` set and nothing written. */
KVG_API kvg_status kvg_indexer_compress_epilog(
    const kvg_indexer_compress_epilog_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_INDEXER_COMPRESS_EPILOG_H */
