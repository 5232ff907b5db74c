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
 *
 * "Overflow" is rounding to a magnitude above the format's largest finite
 * value, judged as if the exponent range were unbounded (so fp16 65519.99
 * gives 65504, 65520 overflows). Saturation clamps to +-max finite and also
 * applies to +-inf inputs; NaN inputs always give NaN (there is no
 * NaN-to-zero mode). NaN results:
 *   fp16, bf16   sign and top payload bits kept, quiet bit set
 *   fp8_e5m2     sign kept, canonical quiet NaN 0x7E
 *   fp8_e4m3fn   sign kept, the only NaN S.1111.111
 *   hif8         the only NaN 0x80
 * Results that round to zero keep the input's sign, except hif8, whose only
 * zero is 0x00.
 *
 * All functions are pure: no global state, no allocation, no dependence on
 * the floating-point environment beyond its default (round to nearest, no
 * flush-to-zero). Encoders work on the binary32 bit pattern in integers.
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
