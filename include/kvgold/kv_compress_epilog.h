/*
 * kvgold/kv_compress_epilog.h - golden model of KvCompressEpilog, the
 * Ascend 950 operator that quantises each token's row of x per group and
 * writes payload, scales and rope into one packed cache row per slot, in
 * the five public implementations that share the name (they differ in
 * enum, row order, scale rule and slot policy, so `impl` picks one).
 * docs/kv_compress_epilog.md is the operator's page; the rules below cite
 * the kernels as repo@commit:path:line (OT = cannmirror/ops-transformer
 * @25fb6b928 attention/kv_compress_epilog/, SGK = sgl-project/
 * sgl-kernel-npu@064559ba csrc/kv_compress_epilog/, VA = vllm-project/
 * vllm-ascend@182b75ea84 csrc/attention/kv_compress_epilog/, CR =
 * hicann/cann-recipes-infer@fbc225d ops/ascendc/src/kv_compress_epilog/,
 * CR2 = hicann/cann-recipes-infer@5fda5b8b ops/ascendc/src/
 * kv_compress_epilog_v2/).
 *
 * Tensors: x bf16 [..., d]; slot_mapping int32 / int64, x's shape without
 * its last dim (token t = flat index); cache (in place) 2-D [rows,
 * row_bytes] (one slot a row) or 4-D [blocks, block_size, 1, row_bytes],
 * slot s at block s / block_size, row s % block_size. A written slot gets
 * the row's segments (below); its bytes past them, and every byte of a
 * slot not written, keep their contents. nope = x[..., :d-64], rope =
 * x[..., d-64:] (the v1 family); cr_v2 quantises all d columns.
 *
 * Per group (amax = the group's largest |x|; fl(1/448) = 0x3B124925,
 * fl(1/57344) = 0x37924925, fl(1/6) = 0x3E2AAAAB; s = max(amax, fl(1e-4))
 * * fl(1/MAX) unless said otherwise):
 *   R-CEIL   c = E(s) + (M(s) != 0), s' = 2^(c-127); q = clamp(x / s',
 *            +-MAX), fp8 nearest-even. round_scale false (R-TRUNC): the
 *            payload divides by s, the stored E8M0 byte is E(s), a bf16
 *            store is bf16(s). (OT common.h:196-239)
 *   R-EBUMP  as R-CEIL with c = E(s) + (E(s) != 0) (the kernels mask the
 *            exponent where the mantissa was meant: SGK common.h:364-372,
 *            VA common.h:365-371, CR common.h:349-357).
 *   R-BLK128-FP32  s = amax * fl(1/MAX) (no floor; 0 for a zero group),
 *            q = x / s, q := x where not finite, no clamp; s stored as
 *            fp32 (SGK common.h:127-255).
 *   FP4-AMAX6  scale = bf16(amax * fl(1/6)); q = bf16(x * bf16(6 / amax))
 *            (0 for a zero group), clamp +-6, fp4 e2m1 nearest-even, two
 *            codes a byte, low nibble first (OT common.h:349-706).
 *   R-OCP-BF16  E = bf16 exponent of amax: scale bits (E-2) << 7 (+0 for
 *            E <= 2), q = bf16(x * bf16 0x7F00 - scale) (0 for E = 0), fp4
 *            nearest-even, saturating, no clamp (CR2 v2_common.h
 *            VFComputeScaleMxFp4).
 *   hif8     q = hif8(x * x_scale), nearest-away, saturating.
 *
 * Presets (impl, quant_mode: row bytes in order; pad = zeros; n =
 * ceil(q / g) scales for q quantised columns, the last group shorter when
 * g does not divide q, as the kernels' ceil):
 *   ot 0    [rope bf16 128 | e4m3 nope (g64, R-CEIL) | bf16 scale x n | pad
 *           to 32]                            (OT tiling_arch35.cpp:277-297)
 *   ot 1    [rope bf16 128 | e4m3 nope (g64, R-CEIL) | e8m0 x n] (no pad).
 *           quant_group_size is ignored in modes 0 / 1, as there.
 *   ot 2    [rope hif8(x * x_scale) 64 | fp4 nope/2 (FP4-AMAX6, g 16, 32 or
 *           64 dividing q) | bf16 scale x q/g | pad to 32]; round_scale
 *           ignored. ot is modelled at 25fb6b928, not at the op's first
 *           commit 7904813 (whose mode 2 was a whole hif8 row and whose mode
 *           0 stored the E8M0 code in the bf16 slot, a bug fixed by
 *           7d5372946 "fix kv_compress_epilog bug"). The kernel takes a 4-D
 *           cache; a 2-D [rows, w] one stands for [rows, 1, 1, w].
 *   sgk/va 1  [e4m3|e5m2 nope (g128, R-BLK128-FP32) | rope bf16 128 | fp32
 *           scale x n | pad to 128]; the cache's fp8 dtype picks the
 *           payload; quant_group_size is not read. sgk / va take a 2-D x;
 *           layout 1 strides rows by the cache's dim-0 stride, so a 4-D
 *           cache must have block_size 1 (SGK op_host
 *           kv_compress_epilog.cpp, 064559ba).
 *   sgk/va 2  layout 1: [rope bf16 128 | fp8 nope (g 64 or 128, R-EBUMP) |
 *           e8m0 x n | pad to 128]; layout 2 (block-major, 4-D cache whose
 *           row is a slot's value + scale bytes): a block holds block_size
 *           x [fp8 nope | rope bf16 128], then block_size x [e8m0 x n | pad
 *           to 8] (SGK kv_compress_epilog.h:157-175; the kernel copies the
 *           pad bytes from a buffer it did not write: kvgold writes 0).
 *   cr 1, 2   as sgk 1 (g128) and sgk 2 layout 1 (g64; quant_group_size
 *           ignored: the kernel fixes both groups); fp8 caches only (a uint8
 *           cache leaves the kernel's coefficients unset); cr 3:
 *           [hif8(x * x_scale) x d]. cr rows are addressed at slot * the
 *           row's length, so the cache's row must be exactly that long.
 *   cr_v2 2 [fp8 x d (g32, R-CEIL) | bf16 scale x d/32 | pad to 32];
 *   cr_v2 4 [fp4 x d/2 (g 16 or 32, R-OCP-BF16) | bf16 scale x d/g | pad
 *           to 32]. layout 1: 2-D cache; layout 2: 4-D, each token's [data
 *           | scales] packed at data + scale bytes inside its block, no pad
 *           (CR2@26694f1e tiling tokenStride_).
 *   va's layout-1 row stride is its block_stride attribute, 0 meaning the
 *   row's own length: a va cache wider than the row needs block_stride =
 *   block_size * row bytes (the dense stride); every block_stride is 0 or
 *   that natural value (kvgold's caches are dense).
 *
 * Slots: ot, sgk, va, cr skip -1 only and refuse other negatives and slots
 * >= the cache's slots (the kernels would write outside it); sgk, va and
 * cr narrow slots to int32, so an int64 slot outside int32 is refused;
 * cr_v2 skips < 0 and >= slots. Two tokens may not write one slot.
 *
 * Refused (161002), besides dtypes, ranks and shapes: a non-finite x in a
 * written token (what the kernels do with one is not established); an
 * attribute the implementation has not, given a value other than its
 * default (ot, cr: layout; ot, sgk, cr: block_stride; sgk, va, cr_v2:
 * x_scale); a cache row shorter than the preset's row (or, for cr and va
 * without block_stride, not exactly as long). 161001: x, slot_mapping or
 * cache (or its data) NULL. On any error the cache is unchanged.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_KV_COMPRESS_EPILOG_H
#define KVGOLD_KV_COMPRESS_EPILOG_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The implementation whose kernel is modelled (case.json `impl`). */
typedef enum kvg_kce_impl {
    KVG_KCE_OT = 0,    /* "ot": ops-transformer aclnnKvCompressEpilog */
    KVG_KCE_SGK = 1,   /* "sgk": sgl-kernel-npu */
    KVG_KCE_VA = 2,    /* "va": vllm-ascend's csrc copy */
    KVG_KCE_CR = 3,    /* "cr": cann-recipes-infer custom op */
    KVG_KCE_CR_V2 = 4  /* "cr_v2": cann-recipes-infer kv_compress_epilog_v2 */
} kvg_kce_impl;

typedef struct kvg_kv_compress_epilog_args {
    const kvg_tensor *x;            /* bf16 [..., d] */
    const kvg_tensor *slot_mapping; /* int32 / int64, x.shape[:-1] */
    const kvg_tensor *cache;        /* uint8 / fp8, 2-D or 4-D (in place) */

    kvg_kce_impl impl;        /* default "ot" */
    int64_t quant_mode;       /* the implementation's own numbers; 1 */
    int64_t quant_group_size; /* 0: the implementation's default */
    int round_scale;          /* default 1 */
    double x_scale;           /* default 1.0 (cr: `scale`) */
    int64_t layout;           /* default 1 */
    int64_t block_stride;     /* bytes; 0 (default): natural */

    /* Caller-owned scratch of kvg_kv_compress_epilog_workspace_size bytes
     * (any alignment): one key a token for the duplicate-slot check. */
    void *workspace;
    size_t workspace_size;
} kvg_kv_compress_epilog_args;

/* Every field to its default (tensors NULL, ot, mode 1, group 0,
 * round_scale 1, x_scale 1, layout 1, block_stride 0). NULL-safe. */
KVG_API void kvg_kv_compress_epilog_args_init(
    kvg_kv_compress_epilog_args *args);

/* "ot", "sgk", "va", "cr", "cr_v2" -> *impl; 1 if known, else 0. */
KVG_API int kvg_kce_impl_from_name(const char *name, kvg_kce_impl *impl);

/* The workspace the call needs, in *bytes; the arguments are checked as
 * the call checks them, except tensor contents and the workspace. */
KVG_API kvg_status kvg_kv_compress_epilog_workspace_size(
    const kvg_kv_compress_epilog_args *args, size_t *bytes, kvg_diag *diag);

/* Run the operator: the written slots' rows, or an error with `diag`
 * (optional) filled and the cache unchanged. */
KVG_API kvg_status kvg_kv_compress_epilog(
    const kvg_kv_compress_epilog_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_KV_COMPRESS_EPILOG_H */
