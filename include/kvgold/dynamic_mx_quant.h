/*
 * kvgold/dynamic_mx_quant.h - golden model of aclnnDynamicMxQuant (V3)
 * (torch_npu npu_dynamic_mx_quant, hicann/ops-nn quant/dynamic_mx_quant;
 * Ascend 950 only).
 *
 * x (rank 1-7) is cut along `axis` into blocks of block_size elements (the
 * last block zero-padded when n = x.shape[axis] is not a multiple). Per
 * block, with amax = the largest |x| (integer compare of the magnitude
 * bits, so NaN > Inf > every finite value) and emax the payload's largest
 * exponent (fp4_e2m1 2, fp8_e4m3fn 8, fp8_e5m2 15):
 *
 *   scale code c (E8M0, kvg_e8m0_from_amax in kvgold/format.h):
 *     scale_alg 0 (OCP):    c = max(E(amax), emax) - emax
 *     scale_alg 1 (cuBLAS, fp8 only): c = ceil(log2(amax * fl(1/MAX)))
 *                           on the fields, subnormal bump, amax 0 -> 0
 *     a block with an Inf or NaN: c = 0xFF
 *   multiplier m = 2^(127 - c), except m = 0 when c = 0 under OCP (the
 *     kernel zeroes the payload of such blocks) or amax = 0 under cuBLAS
 *   y = cast(x * m), the product exact (binary32), then ONE rounding:
 *     fp4_e2m1 in round_mode (rint / floor / round), saturating to +-6;
 *     fp8 nearest-even, saturating to +-max; a zero keeps x's sign
 *     (0x8 / 0x80); the elements of a 0xFF block are NaN * x -> code 0x00.
 *
 * Outputs: y has x's shape (fp8) or, for fp4_e2m1, x's shape with the last
 * dim halved (two codes per byte: element 2j in the low nibble); mxscale
 * (dtype e8m0) has x's shape with dim[axis] = ceil(ceil(n / block_size) /
 * 2) and a trailing dim 2: mxscale[..., j, ..., p] is block 2j + p's code
 * (an odd block count is padded with 0x00).
 *
 * Refused (161002) besides the host checks: fp4_e1m2 (kvgold has no
 * encoder for it), scale_alg 2, dst_type_max != 0 and max_low_bound != 0
 * (not modelled), a bf16 / fp32 element that is subnormal, and a negative
 * element whose scaled value x * m is a binary32 subnormal (the device's
 * Mul may flush it; the sign of that zero is not documented).
 * docs/dynamic_mx_quant.md has the sources.
 *
 * Validation (everything before the first byte is written; on any error y
 * and mxscale are unchanged):
 *   161001  x, y or mxscale (or its data) is NULL
 *   161002  dtypes, ranks, shapes, attributes and the value refusals
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_DYNAMIC_MX_QUANT_H
#define KVGOLD_DYNAMIC_MX_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/format.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kvg_dynamic_mx_quant_args {
    const kvg_tensor *x;       /* rank 1-7; fp16, bf16 or fp32 */
    const kvg_tensor *y;       /* dtype dst_type; x's shape, fp4: last dim
                                  halved (overwritten) */
    const kvg_tensor *mxscale; /* e8m0, see above (overwritten) */

    /* Attributes, as aclnnDynamicMxQuantV3 has them. */
    int64_t axis;          /* in [-rank, rank - 1], default -1 */
    kvg_fp4_round round_mode; /* "rint" (default), "floor", "round";
                                 fp8 takes rint only (kvgold/format.h) */
    kvg_dtype dst_type;    /* fp4_e2m1 (default, torch_npu's 296),
                              fp8_e4m3fn, fp8_e5m2; equals y's dtype */
    int64_t block_size;    /* multiple of 32, <= 1024; fp32 x: 32; default
                              32 */
    int64_t scale_alg;     /* 0 (default, OCP) or 1 (cuBLAS, fp8 only) */
    double dst_type_max;   /* 0 only (default) */
    double max_low_bound;  /* 0 only (default) */

    /* Caller-owned scratch of kvg_dynamic_mx_quant_workspace_size bytes
     * (any alignment): every block's scale code and multiplier (5 bytes a
     * block), and padding. */
    void *workspace;
    size_t workspace_size;
} kvg_dynamic_mx_quant_args;

/* Set every field to its default (tensors NULL, axis -1, rint, fp4_e2m1,
 * block 32, scale_alg 0, no workspace). NULL-safe. */
KVG_API void kvg_dynamic_mx_quant_args_init(kvg_dynamic_mx_quant_args *args);

/* The workspace the call needs, in *bytes; the arguments are checked as the
 * call checks them, except x's values and the workspace itself. */
KVG_API kvg_status kvg_dynamic_mx_quant_workspace_size(
    const kvg_dynamic_mx_quant_args *args, size_t *bytes, kvg_diag *diag);

/* Run the operator: y and mxscale written whole, or an error with `diag`
 * (optional) filled and nothing written. */
KVG_API kvg_status kvg_dynamic_mx_quant(const kvg_dynamic_mx_quant_args *args,
                                        kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_DYNAMIC_MX_QUANT_H */
