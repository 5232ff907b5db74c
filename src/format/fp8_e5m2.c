/*
 * src/format/fp8_e5m2.c - OCP fp8 E5M2 (1-5-2, bias 15): IEEE inf and NaN, max 57344. Default overflow saturates, as the Ascend 950 quant kernels.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

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

uint8_t kvg_f32_to_fp8e5m2(float value, kvg_overflow overflow)
{
    return (uint8_t)kvg_i_minifloat_encode(&k_e5m2, value, overflow);
}
