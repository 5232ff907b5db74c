/*
 * kvgold/format.h - bit-exact number formats.
 *
 * Decoders widen a code to binary32 exactly. Encoders narrow a binary32
 * value with the rounding each format uses on Ascend (docs/formats.md):
 *
 *   format       encode rounding            overflow default   NONSAT gives
 *   fp16         nearest, ties to even      +-inf              +-inf
 *   bf16         nearest, ties to even      +-inf              +-inf
 *   fp8_e4m3fn   nearest, ties to even      saturate +-448     NaN (0x7F|s)
 *   fp8_e5m2     nearest, ties to even      saturate +-57344   +-inf
 *   hif8         nearest, ties AWAY         saturate +-32768   +-inf
 *   int8         nearest, ties to even      saturate [-128,127], NaN -> 0
 *   fp4_e2m1     rint, floor or round       saturate +-6       (none: no inf)
 *                (kvg_fp4_round argument)   (the only mode)
 *   e8m0         no encoder: a scale code comes from a named rule over the
 *                block's amax (kvg_e8m0_from_amax); 0xFF is NaN, no zero
 *
 * "Overflow" is rounding to a magnitude above the format's largest finite
 * value, judged as if the exponent range were unbounded (so fp16 65519.99
 * gives 65504, 65520 overflows). Saturation clamps to +-max finite and also
 * applies to +-inf inputs; NaN inputs always give NaN (there is no
 * NaN-to-zero mode), except in fp4_e2m1, which has no NaN: there the
 * caller's kvg_fp4_nan policy picks the code. NaN results:
 *   fp16, bf16   sign and top payload bits kept, quiet bit set
 *   fp8_e5m2     sign kept, canonical quiet NaN 0x7E
 *   fp8_e4m3fn   sign kept, the only NaN S.1111.111
 *   hif8         the only NaN 0x80
 * Results that round to zero keep the input's sign (fp4_e2m1 too: 0x8),
 * except hif8, whose only zero is 0x00.
 *
 * All functions are pure: no global state, no allocation, no dependence on
 * the floating-point environment beyond its default (round to nearest, no
 * flush-to-zero). Encoders work on the binary32 bit pattern in integers;
 * the E8M0 rules and kvg_scale_payload use binary32 multiply and divide,
 * because that arithmetic is what the kernels they model do.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_FORMAT_H
#define KVGOLD_FORMAT_H

#include "kvgold/api.h"

#include <stdint.h>

#include "kvgold/dtype.h"
#include "kvgold/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kvg_overflow {
    KVG_OVF_DEFAULT = 0,  /* the format's default from the table above */
    KVG_OVF_SATURATE = 1, /* clamp to +-max finite (inf inputs too) */
    KVG_OVF_NONSAT = 2    /* +-inf, or NaN where the format has no inf */
} kvg_overflow;

/* Raw binary32 bit pattern conversions (exact, via memcpy). */
KVG_API uint32_t kvg_f32_bits(float value);
KVG_API float kvg_f32_from_bits(uint32_t bits);

/*
 * Per format: <fmt>_to_f32 widens a code exactly (every code, NaN payloads
 * included); f32_to_<fmt> narrows with the rounding and overflow rules of
 * the table above (KVG_OVF_DEFAULT = the format's default column).
 */
KVG_API float kvg_fp16_to_f32(uint16_t code);
KVG_API uint16_t kvg_f32_to_fp16(float value, kvg_overflow overflow);

KVG_API float kvg_bf16_to_f32(uint16_t code);
KVG_API uint16_t kvg_f32_to_bf16(float value, kvg_overflow overflow);

KVG_API float kvg_fp8e4m3fn_to_f32(uint8_t code);
KVG_API uint8_t kvg_f32_to_fp8e4m3fn(float value, kvg_overflow overflow);

KVG_API float kvg_fp8e5m2_to_f32(uint8_t code);
KVG_API uint8_t kvg_f32_to_fp8e5m2(float value, kvg_overflow overflow);

KVG_API float kvg_hif8_to_f32(uint8_t code);
KVG_API uint8_t kvg_f32_to_hif8(float value, kvg_overflow overflow);

/* Round half to even, saturate to [-128, 127], NaN -> 0. */
KVG_API int8_t kvg_f32_to_int8(float value);

/*
 * FP4 E2M1 (OCP MX; s e e m, bias 1): codes 0x0..0x7 are +0, 0.5, 1, 1.5,
 * 2, 3, 4, 6 and 0x8..0xF the same negated (0x8 = -0). No inf, no NaN.
 *
 * Rounding modes, as the MX quant op names them (docs/dynamic_mx_quant.md):
 *   RINT   "rint":  nearest, ties to the even code (0.25 -> 0, 5 -> 4)
 *   FLOOR  "floor": toward -inf (-0.3 -> -0.5; 5.9 -> 4)
 *   ROUND  "round": nearest, ties away from zero (0.25 -> 0.5, 5 -> 6)
 * Every mode saturates: anything beyond +-6 after rounding, +-inf
 * included, gives +-6 (0x7 / 0xF). A negative input that rounds to zero
 * gives -0 (0x8), -0 included. NaN follows kvg_fp4_nan.
 */
typedef enum kvg_fp4_round {
    KVG_FP4_RINT = 0,
    KVG_FP4_FLOOR = 1,
    KVG_FP4_ROUND = 2
} kvg_fp4_round;

/* The code a NaN input gives (the sources disagree, docs/formats.md). */
typedef enum kvg_fp4_nan {
    KVG_FP4_NAN_ZERO = 0,    /* any NaN -> +0 (0x0): the Ascend cast */
    KVG_FP4_NAN_ML_DTYPES = 1 /* +NaN -> 0x8, -NaN -> 0x0: ml_dtypes */
} kvg_fp4_nan;

/* Decodes the low nibble of `code` exactly (the high nibble is ignored). */
KVG_API float kvg_fp4e2m1_to_f32(uint8_t code);
/* A code 0x0..0xF; 0xFF for a mode or NaN policy outside the enums. */
KVG_API uint8_t kvg_f32_to_fp4e2m1(float value, kvg_fp4_round mode,
                                   kvg_fp4_nan nan);

/*
 * Two 4-bit codes per byte, in the order the Ascend ops store them
 * (DIST_PACK4_B32; torch_npu float4_e2m1fn_x2): element 2j in the low
 * nibble, element 2j+1 in the high nibble. Both fp4 dtypes use it.
 * kvg_fp4_unpack returns the nibble of element 2j + (odd & 1).
 */
KVG_API uint8_t kvg_fp4_pack(uint8_t code_even, uint8_t code_odd);
KVG_API uint8_t kvg_fp4_unpack(uint8_t byte, unsigned odd);

/*
 * E8M0 (float8_e8m0fnu): an unsigned biased exponent. Code c in 0..254 is
 * 2^(c - 127), exactly (code 0 is 2^-127, a binary32 subnormal); 0xFF is
 * NaN (decodes to 0x7FC00000). No zero, no sign, no inf.
 */
KVG_API float kvg_e8m0_to_f32(uint8_t code);

/*
 * The E8M0 scale rules in use, each as its kernels compute it from amax,
 * the largest magnitude of the block (docs/formats.md has the sources).
 * E(f) and M(f) are the exponent and mantissa fields of binary32 f;
 * s = fl(amax * fl(1 / MAX)) with MAX the payload's largest value
 * (fl(1/448) = 0x3B124925, fl(1/57344) = 0x37924925), s' the same with
 * amax replaced by max(amax, fl(1e-4)).
 *
 *   OCP     MX quant scaleAlg 0 (OCP MX): c = max(E(amax), emax) -
 *           emax, emax of the payload (e2m1 2, e1m2 0, e4m3fn 8, e5m2 15);
 *           non-finite amax -> 0xFF. Any payload.
 *   CUBLAS  MX quant scaleAlg 1 (fp8 payloads): c = E(s) + 1 if
 *           0 < E(s) < 254 and M(s) != 0, or E(s) = 0 and M(s) > 0x400000
 *           (ceil(log2 s) with a floor at 2^-127); amax = 0 -> 0x00;
 *           non-finite amax -> 0xFF.
 *   CEIL    ops-transformer round_scale = true (fp8): c = E(s') + (M(s') != 0).
 *   EBUMP   sgl-kernel-npu / vllm-ascend / cann-recipes kernels (fp8):
 *           c = E(s') + (E(s') != 0), i.e. one binade above TRUNC always.
 *   TRUNC   ops-transformer round_scale = false (fp8): c = E(s'); those
 *           kernels divide the payload by the unrounded s'.
 *
 * Writes the code to *code and returns KVG_OK; KVG_ERR_PARAM_INVALID, with
 * *code untouched, for a rule outside the enum, a payload the rule is not
 * used with, an amax with its sign bit set (it is a maximum of
 * magnitudes), or a non-finite amax under CEIL, EBUMP or TRUNC (what those
 * kernels do with one is not known; the ops refuse non-finite input).
 */
typedef enum kvg_e8m0_rule {
    KVG_E8M0_OCP = 0,
    KVG_E8M0_CUBLAS = 1,
    KVG_E8M0_CEIL = 2,
    KVG_E8M0_EBUMP = 3,
    KVG_E8M0_TRUNC = 4
} kvg_e8m0_rule;

KVG_API kvg_status kvg_e8m0_from_amax(kvg_e8m0_rule rule, kvg_dtype payload,
                                      float amax, uint8_t *code);

/*
 * How a payload value is brought to the scale, as a named property of each
 * kernel: DIVIDE computes x / scale (one rounding); MUL_RECIP computes
 * x * fl(1 / scale) (two roundings; what multiply-by-reciprocal kernels
 * do). For a power-of-two scale (every E8M0 code) both are exact or round
 * the same real number, so they agree; they differ for other fp32 scales.
 */
typedef enum kvg_scale_apply {
    KVG_SCALE_DIVIDE = 0,
    KVG_SCALE_MUL_RECIP = 1
} kvg_scale_apply;

/* x scaled by `scale` per `how`; NaN for a `how` outside the enum. */
KVG_API float kvg_scale_payload(float x, float scale, kvg_scale_apply how);

/*
 * Generic forms over a dtype, for the layers that move tensors around.
 * `kvg_decode_f32` reads one element of `dtype` at `src` (any alignment)
 * and widens it: fp16, bf16, fp32, the 8-bit floats, int8, uint8, int16
 * and uint16 exactly; int32, uint32 and int64 are converted with binary32
 * rounding. `kvg_encode_f32` narrows `value` to one element of `dtype` at
 * `dst`. Both return KVG_ERR_PARAM_INVALID for KVG_DTYPE_INVALID and the
 * packed fp4 pairs (encode also for int32, int64 and the copy-only integer
 * types, which kvgold never computes into) and write nothing.
 */
KVG_API kvg_status kvg_decode_f32(kvg_dtype dtype, const void *src, float *value);
KVG_API kvg_status kvg_encode_f32(kvg_dtype dtype, float value, kvg_overflow overflow,
                          void *dst);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_FORMAT_H */
