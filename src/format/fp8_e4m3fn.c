/*
 * src/format/fp8_e4m3fn.c - OCP fp8 E4M3FN (1-4-3, bias 7): no inf, NaN only S.1111.111, max 448. Default overflow saturates, as the Ascend 950 quant kernels (SAT, CAST_RINT).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

#include "src/common/bits.h"

static const kvg_i_minifloat k_e4m3fn = {
    3,  /* mantissa bits */
    4,  /* exponent bits */
    7, /* bias */
    0x7Eu, /* max finite magnitude */
    0u, /* +inf (0: none) */
    0x7Fu, /* canonical NaN */
    0,  /* NaN keeps payload */
    KVG_OVF_SATURATE,
};

float kvg_fp8e4m3fn_to_f32(uint8_t code)
{
    return kvg_i_minifloat_decode(&k_e4m3fn, code);
}

/* The fast path of the generic encoder (minifloat.c), for the normal
 * range and above: rebias the binary32 pattern and round to nearest even
 * on its low 20 bits in one integer add (a carry into the exponent is the
 * right rounding), then a code past max overflows (inf input included).
 * NaN and the target's subnormal range (|x| < 2^-6) take the generic
 * encoder; test_format_sweep checks every binary32 input against an
 * independent reference. */
uint8_t kvg_f32_to_fp8e4m3fn(float value, kvg_overflow overflow)
{
    const uint32_t u = kvg_i_bits(value);
    const uint32_t a = u & 0x7FFFFFFFu;
    uint32_t o;

    if (a > 0x7F800000u || a < (121u << 23) ||
        (overflow != KVG_OVF_SATURATE && overflow != KVG_OVF_NONSAT &&
         overflow != KVG_OVF_DEFAULT))
        return (uint8_t)kvg_i_minifloat_encode(&k_e4m3fn, value, overflow);
    o = (a - (120u << 23) + 0x7FFFFu + ((a >> 20) & 1u)) >> 20;
    if (o > 0x7Eu)
        o = overflow == KVG_OVF_NONSAT ? 0x7Fu : 0x7Eu;
    return (uint8_t)(((u >> 24) & 0x80u) | o);
}
