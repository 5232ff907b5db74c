/*
 * src/engines/group_quant.h - one group of bf16 elements quantised under a
 * rule that is plain data: the per-group arithmetic of every packed-row
 * epilog (docs/kv_compress_epilog.md; quant_epilogs.md section 5 of the
 * spec names the rules R-CEIL, R-EBUMP, R-TRUNC, R-BLK128-FP32, FP4-AMAX6,
 * R-OCP-as-bf16). A preset is a kvg_i_group_rule value; no rule is code of
 * its own, so an implementation that differs in one step differs in one
 * field.
 *
 * Per group of n elements x (bf16, or x_dtype fp16 / fp32, widened exactly
 * to binary32; an fp16 x whose payload is a bf16 multiply first goes to
 * bf16 as the MX-FP4 kernels take it, with their sticky bit):
 *   1. amax = max |x| over the finite elements (FINITE) or the integer
 *      maximum of the magnitude bits (ALL: NaN > Inf > finite);
 *   2. a = max(amax, fl(1e-4)) with floor_1e4, else amax;
 *      s = a * coeff (one binary32 multiply by the stated bit pattern) or
 *      a / max (coeff_div); s = 0 where amax = 0 and zero_scale_zero;
 *      with pow2_up, s := s rounded up to a power of two on its fields;
 *   3. the E8M0 rule (kvg_e8m0_from_amax's CEIL, EBUMP, TRUNC on s's
 *      fields): c, and the payload's scale s' = 2^(c - 127) (TRUNC: s,
 *      unrounded - the kernels divide by it); NONE: s' = s;
 *   4. the stored scale: fp32 bits of s', bf16 RINT of s', the E8M0 byte
 *      c, the bf16 pattern (E_bf16(amax) - 2) << 7 (OCP_BF16), or that
 *      code as an E8M0 byte, max(E(amax), 2) - 2 (OCP_E8M0);
 *   5. each element: q = x / s' (DIV; x * 0 where code0_zero and c = 0),
 *      x * m with m a bf16 power of two and the product rounded to bf16
 *      (POW2_BF16), bf16(x * bf16(6 / amax)) (INV6_BF16), x * x_scale
 *      (XSCALE, no group scale), or x * fl(1 / s') (RECIP; +Inf for
 *      s' = 0);
 *      q := x where q is not finite and keep_x_nonfinite (R-BLK128-FP32:
 *      the kernel's Select); clamped to +-max if clamp;
 *   6. the cast to `cast`: fp8 nearest-even without saturation (what is
 *      beyond max after a clamp cannot occur; unclamped R-BLK128-FP32 stays
 *      within max), hif8 nearest-away saturating, fp4 e2m1 nearest-even
 *      saturating (two codes a byte, element 2j in the low nibble); a NaN
 *      q to the +0 code where nan_code_zero.
 *
 * MX quant scale_alg 0 (R-OCP) is {amax ALL, e8m0 OCP, store E8M0,
 * DIV, clamp, code0_zero, nan_code_zero}: s' = 2^(c - 127) is a normal
 * power of two for 0 < c < 255, so x / s' is the kernel's exact product
 * x * 2^(127 - c); clamp then the non-saturating cast is its saturating
 * cast; c = 0 zeroes and 0xFF (an Inf / NaN in the group) gives NaN q,
 * both as the kernel does (the MX quant operator's blocks.c, whose codes
 * come from the same kvg_e8m0_from_amax).
 *
 * The caller has validated the group (the epilogs refuse non-finite x,
 * quant_epilogs.md Q3; MX quant refuses subnormal x): this only
 * computes.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_ENGINES_GROUP_QUANT_H
#define KVGOLD_SRC_ENGINES_GROUP_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/dtype.h"
#include "kvgold/format.h"

typedef enum kvg_i_amax_kind {
    KVG_I_AMAX_FINITE = 0, /* float max over the finite elements */
    KVG_I_AMAX_ALL = 1     /* integer max of |bits|: NaN > Inf > finite */
} kvg_i_amax_kind;

typedef enum kvg_i_scale_store {
    KVG_I_STORE_NONE = 0,     /* no scale (XSCALE payloads) */
    KVG_I_STORE_F32 = 1,      /* 4 bytes, s' */
    KVG_I_STORE_BF16 = 2,     /* 2 bytes, bf16 RINT of s' */
    KVG_I_STORE_E8M0 = 3,     /* 1 byte, the code c */
    KVG_I_STORE_OCP_BF16 = 4, /* 2 bytes, (E_bf16(amax) - 2) << 7 */
    KVG_I_STORE_OCP_E8M0 = 5  /* 1 byte, max(E(amax), 2) - 2: R-OCP for
                                 fp4 e2m1 with OCP_BF16's multiplier */
} kvg_i_scale_store;

typedef enum kvg_i_payload_op {
    KVG_I_PAY_DIV = 0,       /* x / s' */
    KVG_I_PAY_POW2_BF16 = 1, /* bf16(x * 2^-k), OCP_BF16's multiplier */
    KVG_I_PAY_INV6_BF16 = 2, /* bf16(x * bf16(6 / amax)), FP4-AMAX6 */
    KVG_I_PAY_XSCALE = 3,    /* x * x_scale, element by element */
    KVG_I_PAY_RECIP = 4,     /* x * fl(1 / s'): multiply-by-reciprocal */
    KVG_I_PAY_RECIP_MUL = 5  /* x * m, m = fl(fl(1 / amax) * max): the
                                A2/A3 block quant's multiplier (not
                                1 / s': s' is amax * fl(1 / max)) */
} kvg_i_payload_op;

#define KVG_I_NO_E8M0 (-1)

typedef struct kvg_i_group_rule {
    const char *name;        /* the spec's rule name, for messages */
    kvg_i_amax_kind amax;
    int floor_1e4;           /* a = max(amax, fl(1e-4)) */
    uint32_t coeff;          /* bits of the multiplier of a (0: none) */
    int coeff_div;           /* s = a / max instead of a * coeff */
    int zero_scale_zero;     /* amax = 0 gives s = 0 (R-BLK128-FP32) */
    int e8m0;                /* kvg_e8m0_rule CEIL / EBUMP / TRUNC, or
                                KVG_I_NO_E8M0 */
    kvg_i_scale_store store;
    kvg_i_payload_op op;
    int keep_x_nonfinite;    /* q := x where q is not finite */
    int clamp;               /* clamp q to +-max before the cast */
    kvg_dtype cast;          /* fp8_e4m3fn, fp8_e5m2, hif8, fp4_e2m1,
                                int8 (nearest-even, saturating) */
    uint32_t s_floor;        /* bits of a floor of s after step 2: s =
                                fmaxf(s, floor) (vLLM fp8_ds_mla's
                                FLT_MIN); 0: none */
    int nan_zero;            /* q := +0 where q is NaN (the 950 block
                                quant: an all-zero block's 0 / 0) */
    /* MX quant's kernel (R-OCP, scale_alg 0) differs from the
     * epilogs in three steps only, so they are three fields, 0 for every
     * other rule: */
    kvg_dtype x_dtype;       /* x's dtype: bf16 (0 read as bf16), fp16 or
                                fp32, each widened exactly; an fp16 x with
                                a POW2_BF16 / INV6_BF16 payload takes
                                bf16_TRUNC(x with the kernels' sticky bit:
                                bit 3 set where 0 < (bits & 0xFF) < 8)
                                into the multiply */
    int code0_zero;          /* E8M0 code 0: the payload is x * 0 (+-0),
                                the kernel's zero multiplier */
    int nan_code_zero;       /* a NaN q (a 0xFF block) casts to +0 */
    int pow2_up;             /* s rounded up to a power of two by its
                                fields (exponent + (mantissa != 0)); 0
                                stays 0 (the indexer epilog's Normal mode
                                with round_scale, no 1e-4 floor:
                                docs/indexer_quant_cache.md); with
                                STORE_E8M0 and no E8M0 rule its exponent
                                byte is the stored code (a floored s is
                                normal) */
} kvg_i_group_rule;

/* The largest finite value of the cast dtype (e4m3fn 448, e5m2 57344,
 * hif8 32768, fp4 e2m1 6, int8 127); 0 for another dtype. */
float kvg_i_group_cast_max(kvg_dtype cast);

/* Bytes of the stored scale of one group (0 for STORE_NONE). */
size_t kvg_i_group_scale_bytes(const kvg_i_group_rule *r);

/* Bytes of one element of x (2: bf16 / fp16, 4: fp32). */
size_t kvg_i_group_x_bytes(const kvg_i_group_rule *r);

/* Bytes of n payload codes (fp4: n / 2). */
size_t kvg_i_group_payload_bytes(const kvg_i_group_rule *r, int64_t n);

/*
 * Quantise the n elements at x (x_dtype, little-endian codes, any
 * alignment; fp4: n even) into the payload bytes at q and the stored scale
 * at scale (kvg_i_group_scale_bytes; NULL with STORE_NONE). x_scale is
 * used by XSCALE only. q NULL: the scale only (a row whose payload is
 * skipped while its scales are written, e.g. a pad row clamped to a sink
 * slot).
 */
void kvg_i_group_quant(const kvg_i_group_rule *r, const unsigned char *x,
                       int64_t n, float x_scale, unsigned char *q,
                       unsigned char *scale);

/*
 * `groups` consecutive groups of n elements each, as that many calls of
 * kvg_i_group_quant would quantise them: group k's x at x + k * n
 * elements, its codes at q + k * kvg_i_group_payload_bytes(r, n) (q NULL:
 * the scales only), its scale at scale + k * kvg_i_group_scale_bytes(r).
 * A packed row's groups of one unpieced segment, in one call.
 */
void kvg_i_group_quant_run(const kvg_i_group_rule *r, const unsigned char *x,
                           int64_t n, int64_t groups, float x_scale,
                           unsigned char *q, unsigned char *scale);

#endif /* KVGOLD_SRC_ENGINES_GROUP_QUANT_H */
