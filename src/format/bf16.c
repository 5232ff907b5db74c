/*
 * src/format/bf16.c - bfloat16 (1-8-7, bias 127), the top half of binary32. Default overflow: +-inf.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

#include "src/common/bits.h"

static const kvg_i_minifloat k_bf16 = {
    7,  /* mantissa bits */
    8,  /* exponent bits */
    127, /* bias */
    0x7F7Fu, /* max finite magnitude */
    0x7F80u, /* +inf (0: none) */
    0x7FC0u, /* canonical NaN */
    1,  /* NaN keeps payload */
    KVG_OVF_NONSAT,
};

/* bf16 is the top half of binary32 (subnormals, inf and NaN payloads
 * included), so the generic decoder's result is always code << 16. */
float kvg_bf16_to_f32(uint16_t code)
{
    return kvg_i_float((uint32_t)code << 16);
}

/* The generic encoder's result without its shifts for every non-NaN
 * input: nearest-even on the low 16 bits in one integer add (a carry
 * into the exponent is the right rounding, up to inf; binary32
 * subnormals are bf16 subnormals on the same grid). Saturation maps the
 * inf code (from an inf input or a carry) to max. NaN keeps the generic
 * path (its quiet bit and payload); test_format_sweep checks every
 * binary32 input against an independent reference. */
uint16_t kvg_f32_to_bf16(float value, kvg_overflow overflow)
{
    const uint32_t u = kvg_i_bits(value);
    uint32_t r;

    if ((u & 0x7FFFFFFFu) > 0x7F800000u ||
        (overflow != KVG_OVF_SATURATE && overflow != KVG_OVF_NONSAT &&
         overflow != KVG_OVF_DEFAULT))
        return (uint16_t)kvg_i_minifloat_encode(&k_bf16, value, overflow);
    r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    if (overflow == KVG_OVF_SATURATE && (r & 0x7FFFu) == 0x7F80u)
        r = (r & 0x8000u) | 0x7F7Fu;
    return (uint16_t)r;
}
