/*
 * src/format/e8m0.c - E8M0 (float8_e8m0fnu) scale codes: the exact decode,
 * the named rules that turn a block's amax into a code, and the payload
 * scaling property (divide vs multiply by the reciprocal).
 *
 * The rules are written as the kernels compute them: on binary32 exponent
 * and mantissa fields, after one binary32 multiply by the constant
 * fl(1 / MAX) that the kernels hold (never a division by MAX, never a
 * log2, both of which give other codes near powers of two;
 * docs/formats.md lists the sources and the differences).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "kvgold/format.h"
#include "src/common/bits.h"

#define E8M0_NAN 0xFFu
#define F32_INF 0x7F800000u

float kvg_e8m0_to_f32(uint8_t code)
{
    if (code == E8M0_NAN)
        return kvg_i_float(0x7FC00000u);
    if (code == 0)
        return kvg_i_float(0x00400000u); /* 2^-127: binary32 subnormal */
    return kvg_i_float((uint32_t)code << 23);
}

/* OCP emax of a payload (exponent of its largest normal); -1 if none. */
static int payload_emax(kvg_dtype payload)
{
    switch (payload) {
    case KVG_FP4_E2M1:
        return 2;
    case KVG_FP4_E1M2:
        return 0;
    case KVG_FP8_E4M3FN:
        return 8;
    case KVG_FP8_E5M2:
        return 15;
    default:
        return -1;
    }
}

/* fl(1 / MAX) as the fp8 kernels hold it (bit constants in sgl-kernel-npu
 * and ops-nn, 1.0f / 448.0f at run time in ops-transformer: same bits);
 * 0 for payloads the s-based rules are not used with. */
static uint32_t payload_inv_max(kvg_dtype payload)
{
    if (payload == KVG_FP8_E4M3FN)
        return 0x3B124925u; /* fl(1/448) */
    if (payload == KVG_FP8_E5M2)
        return 0x37924925u; /* fl(1/57344) */
    return 0;
}

static uint32_t rule_ocp(uint32_t amax, int emax)
{
    const int e = (int)(amax >> 23);
    if (amax >= F32_INF)
        return E8M0_NAN;
    return (uint32_t)((e > emax ? e : emax) - emax);
}

/* MX quant scaleAlg 1: ceil(log2 s) on the fields of s, the
 * subnormal s bumped only above 2^-127 (M > 0x400000). */
static uint32_t rule_cublas(uint32_t amax, uint32_t inv)
{
    uint32_t s, e, m;
    if (amax >= F32_INF)
        return E8M0_NAN;
    if (amax == 0)
        return 0;
    s = kvg_i_bits(kvg_i_float(amax) * kvg_i_float(inv));
    e = s >> 23;
    m = s & 0x7FFFFFu;
    if ((e > 0 && e < 254 && m != 0) || (e == 0 && m > 0x400000u))
        e++;
    return e;
}

/* s' = fl(max(amax, fl(1e-4)) * fl(1/MAX)), the ops-transformer /
 * sgl-kernel-npu form; >= 2^-23 for both fp8 payloads, so E(s') > 0. */
static uint32_t scaled_floor(uint32_t amax, uint32_t inv)
{
    const float floor_amax = 1e-4f;
    float a = kvg_i_float(amax);
    if (a < floor_amax)
        a = floor_amax;
    return kvg_i_bits(a * kvg_i_float(inv));
}

kvg_status kvg_e8m0_from_amax(kvg_e8m0_rule rule, kvg_dtype payload,
                              float amax, uint8_t *code)
{
    const uint32_t a = kvg_i_bits(amax);
    const int emax = payload_emax(payload);
    const uint32_t inv = payload_inv_max(payload);
    uint32_t s, c;

    if (code == NULL || (a >> 31) != 0 || emax < 0)
        return KVG_ERR_PARAM_INVALID;
    switch (rule) {
    case KVG_E8M0_OCP:
        c = rule_ocp(a, emax);
        break;
    case KVG_E8M0_CUBLAS:
        if (inv == 0)
            return KVG_ERR_PARAM_INVALID;
        c = rule_cublas(a, inv);
        break;
    case KVG_E8M0_CEIL:
    case KVG_E8M0_EBUMP:
    case KVG_E8M0_TRUNC:
        if (inv == 0 || a >= F32_INF)
            return KVG_ERR_PARAM_INVALID;
        s = scaled_floor(a, inv);
        c = s >> 23;
        if (rule == KVG_E8M0_CEIL)
            c += (s & 0x7FFFFFu) != 0;
        else if (rule == KVG_E8M0_EBUMP)
            c += c != 0; /* the kernels' mantissa mask applied to E */
        break;
    default:
        return KVG_ERR_PARAM_INVALID;
    }
    *code = (uint8_t)c;
    return KVG_OK;
}

float kvg_scale_payload(float x, float scale, kvg_scale_apply how)
{
    float recip;
    switch (how) {
    case KVG_SCALE_DIVIDE:
        return x / scale;
    case KVG_SCALE_MUL_RECIP:
        recip = 1.0f / scale; /* rounded to binary32 before the multiply */
        return x * recip;
    }
    return kvg_i_float(0x7FC00000u);
}
