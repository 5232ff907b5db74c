/*
 * kvgold/dynamic_block_quant.h - golden model of aclnnDynamicBlockQuant
 * (torch_npu npu_dynamic_block_quant, hicann/ops-nn quant/dynamic_block_quant).
 *
 * x [M, N] or [B, M, N] is cut into blocks of row_block_size x
 * col_block_size elements of each [M, N] matrix (the last block of a row or
 * column of blocks is partial when the size does not divide). Per block,
 * with amax = max |x| over the block's elements and DST_MAX = 127 (int8),
 * 448 (fp8_e4m3fn), 57344 (fp8_e5m2) or dst_type_max (hif8; 0 = 32768):
 *
 *   profile ascend950 (the arch35 kernel; binary32, each op rounded once):
 *     amax   = the largest |x| by integer compare of the bit patterns, so
 *              NaN > Inf > every finite value
 *     s      = amax / DST_MAX;  if s is finite: s = min(s, 1 / min_scale)
 *              (min_scale 0: 1/0 = +inf, no limit)
 *     scale  = s                          (the DEQUANT factor: x ~ y*scale)
 *     y      = cast(x / s): int8 RNE, fp8 RNE, hif8 half away from zero,
 *              all saturating (+-inf to +-max), NaN to the +0 code
 *   profile a2a3 (the Atlas A2/A3 kernel, int8 1x128 only):
 *     m      = fl(fl(1 / amax) * 127);  scale = amax * fl(1 / 127)
 *     min_scale > 0: m = max(m, min_scale), scale = min(scale, fl(1/min_scale))
 *     y      = int8(rint(x * m))
 *
 * Documented edge cases computed as the kernel does (ascend950): an all-zero
 * block gives scale 0 and y = +0 codes (0/0 is NaN, cast to +0); a block
 * with an Inf (no NaN) gives scale +inf, finite x -> +-0 codes, +-Inf -> +0;
 * a block with a NaN gives scale NaN (written 0x7FC00000) and y = +0 codes.
 * What the device does not document or kvgold cannot reproduce is refused
 * (161002, naming the element): see docs/dynamic_block_quant.md, "Refused".
 *
 * Validation (everything before the first byte is written; on any error y
 * and scale are unchanged):
 *   161001  x, y or scale (or its data) is NULL
 *   161002  the host checks of the profile's kernel (dtypes, ranks, shapes,
 *           dst_type, round_mode, block sizes, dst_type_max, min_scale) and
 *           the value refusals above
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_DYNAMIC_BLOCK_QUANT_H
#define KVGOLD_DYNAMIC_BLOCK_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/options.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif


/* The aclnn round_mode strings: "rint", "round", "hybrid". */
typedef enum kvg_dynamic_block_quant_round {
    KVG_DYNAMIC_BLOCK_QUANT_RINT = 0,
    KVG_DYNAMIC_BLOCK_QUANT_ROUND = 1,
    KVG_DYNAMIC_BLOCK_QUANT_HYBRID = 2
} kvg_dynamic_block_quant_round;

typedef struct kvg_dynamic_block_quant_args {
    const kvg_tensor *x;     /* [M, N] or [B, M, N]; fp16, bf16 or fp32 */
    const kvg_tensor *y;     /* x's shape, dtype dst_type (overwritten) */
    const kvg_tensor *scale; /* fp32 [ceil(M/rb), ceil(N/cb)], 3-D:
                                [B, ceil(M/rb), ceil(N/cb)] (overwritten) */

    /* Attributes, as aclnnDynamicBlockQuantV2 has them. */
    double min_scale;        /* >= 0, default 0 (no limit); narrowed to
                                float first */
    kvg_dynamic_block_quant_round round_mode; /* default RINT; hif8 needs
                                                 ROUND */
    kvg_dtype dst_type;      /* int8 (default, torch_npu's), hif8,
                                fp8_e5m2, fp8_e4m3fn; equals y's dtype */
    int64_t row_block_size;  /* default 1 */
    int64_t col_block_size;  /* default 128 */
    double dst_type_max;     /* hif8 only: 0 (= 32768), 15, 56, 224, 32768 */

    /* kvgold's option: whose kernel (default ASCEND950). */
    kvg_profile profile; /* kvgold/options.h: whose kernel the arithmetic and
                            the host checks follow */

    /* Caller-owned scratch of kvg_dynamic_block_quant_workspace_size bytes
     * (any alignment): one float per column block, and padding. */
    void *workspace;
    size_t workspace_size;
} kvg_dynamic_block_quant_args;

/* Set every field to its default (tensors NULL, min_scale 0, RINT, int8,
 * 1 x 128 blocks, dst_type_max 0, ASCEND950, no workspace). NULL-safe. */
KVG_API void kvg_dynamic_block_quant_args_init(
    kvg_dynamic_block_quant_args *args);

/* The workspace the call needs, in *bytes; the arguments are checked as the
 * call checks them, except x's values and the workspace itself. */
KVG_API kvg_status kvg_dynamic_block_quant_workspace_size(
    const kvg_dynamic_block_quant_args *args, size_t *bytes,
    kvg_diag *diag);

/* Run the operator: y and scale written whole, or an error with `diag`
 * (optional) filled and nothing written. */
KVG_API kvg_status kvg_dynamic_block_quant(
    const kvg_dynamic_block_quant_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_DYNAMIC_BLOCK_QUANT_H */
