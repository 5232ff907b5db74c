/*
 * src/format/fp8_e4m3fn.c - OCP fp8 E4M3FN (1-4-3, bias 7): no inf, NaN only S.1111.111, max 448. Default overflow saturates, as the Ascend 950 quant kernels (SAT, CAST_RINT).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/format/minifloat.h"

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

uint8_t kvg_f32_to_fp8e4m3fn(float value, kvg_overflow overflow)
{
    return (uint8_t)kvg_i_minifloat_encode(&k_e4m3fn, value, overflow);
}
