/*
 * src/format/fp16.c - IEEE binary16 (1-5-10, bias 15). Default overflow: +-inf.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

static const kvg_i_minifloat k_fp16 = {
    10,  /* mantissa bits */
    5,  /* exponent bits */
    15, /* bias */
    0x7BFFu, /* max finite magnitude */
    0x7C00u, /* +inf (0: none) */
    0x7E00u, /* canonical NaN */
    1,  /* NaN keeps payload */
    KVG_OVF_NONSAT,
};

float kvg_fp16_to_f32(uint16_t code)
{
    return kvg_i_minifloat_decode(&k_fp16, code);
}

uint16_t kvg_f32_to_fp16(float value, kvg_overflow overflow)
{
    return (uint16_t)kvg_i_minifloat_encode(&k_fp16, value, overflow);
}
