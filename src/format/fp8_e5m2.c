/*
 * src/format/fp8_e5m2.c - OCP fp8 E5M2 (1-5-2, bias 15): IEEE inf and NaN, max 57344. Default overflow saturates, as the Ascend 950 quant kernels.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

#include "src/common/bits.h"

static const kvg_i_minifloat k_e5m2 = {
    2,  /* mantissa bits */
    5,  /* exponent bits */
    15, /* bias */
    0x7Bu, /* max finite magnitude */
    0x7Cu, /* +inf (0: none) */
    0x7Eu, /* canonical NaN */
    0,  /* NaN keeps payload */
    KVG_OVF_SATURATE,
};

float kvg_fp8e5m2_to_f32(uint8_t code)
{
    return kvg_i_minifloat_decode(&k_e5m2, code);
}

/* The fast path of the generic encoder (minifloat.c), for the normal
 * range and above: rebias the binary32 pattern and round to nearest even
 * on its low 21 bits in one integer add (a carry into the exponent is the
 * right rounding), then a code past max overflows (inf input included).
 * NaN and the target's subnormal range (|x| < 2^-14) take the generic
 * encoder; test_format_sweep checks every binary32 input against an
 * independent reference. */
uint8_t kvg_f32_to_fp8e5m2(float value, kvg_overflow overflow)
{
    const uint32_t u = kvg_i_bits(value);
    const uint32_t a = u & 0x7FFFFFFFu;
    uint32_t o;

    if (a > 0x7F800000u || a < (113u << 23) ||
        (overflow != KVG_OVF_SATURATE && overflow != KVG_OVF_NONSAT &&
         overflow != KVG_OVF_DEFAULT))
        return (uint8_t)kvg_i_minifloat_encode(&k_e5m2, value, overflow);
    o = (a - (112u << 23) + 0xFFFFFu + ((a >> 21) & 1u)) >> 21;
    if (o > 0x7Bu)
        o = overflow == KVG_OVF_NONSAT ? 0x7Cu : 0x7Bu;
    return (uint8_t)(((u >> 24) & 0x80u) | o);
}
