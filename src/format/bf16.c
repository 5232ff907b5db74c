/*
 * src/format/bf16.c - bfloat16 (1-8-7, bias 127), the top half of binary32. Default overflow: +-inf.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

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

float kvg_bf16_to_f32(uint16_t code)
{
    return kvg_i_minifloat_decode(&k_bf16, code);
}

uint16_t kvg_f32_to_bf16(float value, kvg_overflow overflow)
{
    return (uint16_t)kvg_i_minifloat_encode(&k_bf16, value, overflow);
}
