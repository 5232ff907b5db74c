/*
 * src/kernels/e8m0_step.h - the E8M0 scale step of the group rules
 * (src/engines/group_quant.h step 3) for an fp8 payload, inline: the
 * formats layer's kvg_e8m0_from_amax (R-CEIL, R-EBUMP, R-TRUNC) and
 * kvg_e8m0_to_f32 are calls with per-call rule and payload checks, paid
 * once a group: ~14 % of an MX-FP8 packed-row write with groups of 32
 * elements (docs/performance.md).
 *
 * Each is bit for bit the formats layer's, on every input the engine can
 * give it:
 *
 *   kvg_i_e8m0_fp8_code(rule, e5m2, amax)
 *       the code kvg_e8m0_from_amax(rule, fp8 e4m3fn / e5m2, amax) writes,
 *       for every non-negative amax pattern (the engine's amax is a
 *       magnitude), and 0xFF where it refuses a non-finite amax (the
 *       engine's starting code: the operators refuse such x before)
 *   kvg_i_e8m0_value(c)  kvg_e8m0_to_f32(c), every code
 *
 * The formats layer stays the reference; tests/test_e8m0_step.c checks
 * both against it on every input (label exhaustive for the sweep).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_E8M0_STEP_H
#define KVGOLD_SRC_KERNELS_E8M0_STEP_H

#include <stdint.h>

#include "kvgold/format.h"
#include "src/common/bits.h"

/* fl(1 / MAX) as the fp8 kernels hold it: src/format/e8m0.c's
 * payload_inv_max, the same bits. */
#define KVG_I_E8M0_INV_E4M3FN 0x3B124925u /* fl(1/448) */
#define KVG_I_E8M0_INV_E5M2 0x37924925u   /* fl(1/57344) */

/* s = fl(max(amax, fl(1e-4)) * fl(1 / MAX)) on its fields: c = E(s),
 * plus one where M(s) != 0 (CEIL) or where E(s) != 0 (EBUMP, the
 * kernels' mantissa mask applied to E); TRUNC: E(s). */
static inline uint8_t kvg_i_e8m0_fp8_code(kvg_e8m0_rule rule, int e5m2,
                                          uint32_t amax)
{
    const float inv = kvg_i_float(e5m2 ? KVG_I_E8M0_INV_E5M2
                                       : KVG_I_E8M0_INV_E4M3FN);
    const float a = kvg_i_float(amax);
    const uint32_t s = kvg_i_bits((a < 1e-4f ? 1e-4f : a) * inv);
    const uint32_t e = s >> 23;
    const uint32_t bump =
        rule == KVG_E8M0_CEIL ? (s & 0x7FFFFFu) != 0
                              : rule == KVG_E8M0_EBUMP ? e != 0 : 0;

    /* a non-finite amax: refused by the formats layer, the code left
     * (selected, not branched: the exhaustive test's loop vectorises) */
    return (uint8_t)(amax >= 0x7F800000u ? 0xFFu : e + bump);
}

/* 2^(c - 127); code 0 is 2^-127 (a binary32 subnormal), 0xFF NaN. */
static inline float kvg_i_e8m0_value(uint8_t c)
{
    if (c == 0xFFu)
        return kvg_i_float(0x7FC00000u);
    if (c == 0)
        return kvg_i_float(0x00400000u);
    return kvg_i_float((uint32_t)c << 23);
}

#endif /* KVGOLD_SRC_KERNELS_E8M0_STEP_H */
