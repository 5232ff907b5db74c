/*
 * src/engines/group_rules.h - the spec's named group rules
 * (quant_epilogs.md section 2.2 and 5) as kvg_i_group_rule values
 * (group_quant.h), so a preset names a rule instead of restating its
 * fields: R-BLK128-FP32, the MX-FP8 family (R-CEIL / R-EBUMP / R-TRUNC),
 * R-CEIL-V (R-CEIL with its floor on v = amax / MAX) and hif8(x *
 * x_scale). The fl(1/MAX) coefficients are the kernels' bit
 * constants (0x3B124925 = 1.0f / 448, 0x37924925 = 1.0f / 57344).
 *
 * Names no operator; each operator's preset says which kernel line a
 * rule models.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_ENGINES_GROUP_RULES_H
#define KVGOLD_SRC_ENGINES_GROUP_RULES_H

#include "kvgold/dtype.h"
#include "src/engines/group_quant.h"

#define KVG_I_FL_1_448 0x3B124925u   /* fl(1/448) */
#define KVG_I_FL_1_57344 0x37924925u /* fl(1/57344) */
#define KVG_I_FL_1E_4 0x38D1B717u    /* fl(1e-4): clamp_min(fp32, 1e-4) */

/* What the rules below start from, for a rule of an operator's own:
 * amax over every element, no E8M0, q = x / s, fl(1/MAX) of `cast`
 * (fl(1/57344) for fp8_e5m2, else fl(1/448)), everything else 0. */
kvg_i_group_rule kvg_i_rule_base(kvg_dtype cast);

/* R-BLK128-FP32: amax over the finite elements, s = amax * fl(1/MAX) (0
 * for amax 0), fp32 scale s, q = x / s, q := x where that is not finite,
 * no clamp, fp8 RNE of `cast` (fp8_e4m3fn / fp8_e5m2). */
kvg_i_group_rule kvg_i_rule_blk128_fp32(kvg_dtype cast);

/* The MX-FP8 family: a = max(amax, fl(1e-4)), s = a * fl(1/MAX), E8M0
 * code by `e8m0` (KVG_E8M0_CEIL or KVG_E8M0_EBUMP; R-TRUNC when
 * round_scale is 0), stored as the E8M0 byte, q = x / s' clamped to
 * +-MAX, fp8 RNE. */
kvg_i_group_rule kvg_i_rule_mx_fp8(kvg_dtype cast, int e8m0,
                                   int round_scale);

/* R-CEIL-V: v = max(amax / MAX, fl(1e-4)) - a true division, the floor
 * on v where the MX-FP8 rules floor amax (an all-zero group: 2^-13 here,
 * 2^-22 under R-CEIL) - then s' = 2^k, the least power of two >= v, taken
 * on v's fields (v >= fl(1e-4) is normal: no log2); stored as `store`,
 * the E8M0 byte k + 127 (KVG_I_STORE_E8M0) or the fp32 bits of 2^k
 * (KVG_I_STORE_F32); q = x / 2^k, clamped to +-MAX (never acting for a
 * bf16 amax and an fp8 cast: MAX = 7 * 2^n, so fl(amax / MAX) is a power
 * of two only when amax / MAX is one, and 2^k >= amax / MAX), fp8 RNE of
 * `cast`. The scale step of FlashMLA's `_cast_scale_inv_to_ue8m0(amax /
 * 448)` and of vLLM's fp8_ds_mla writer with use_ue8m0. */
kvg_i_group_rule kvg_i_rule_ceil_v(kvg_dtype cast, kvg_i_scale_store store);

/* hif8(fl(x * x_scale)), nearest-away, saturating; no scale. */
kvg_i_group_rule kvg_i_rule_hif8_xscale(void);

#endif /* KVGOLD_SRC_ENGINES_GROUP_RULES_H */
