/*
 * src/ops/dynamic_mx_quant/blocks.c - DynamicMxQuant's block arithmetic:
 * an element of x widened, and per block its amax, E8M0 code and payload
 * multiplier. The value checks (check.c) and the compute step (entry.c)
 * both use it, so what is checked is what is computed. The rules are in
 * kvgold/dynamic_mx_quant.h; docs/dynamic_mx_quant.md cites the kernel
 * lines.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/ops/dynamic_mx_quant/internal.h"

#define MAG_MASK 0x7FFFFFFFu
#define F32_INF 0x7F800000u
#define E8M0_NAN 0xFFu

uint32_t kvg_i_dynamic_mx_quant_bits(const kvg_dynamic_mx_quant_args *a,
                                     const kvg_i_dynamic_mx_quant_plan *p,
                                     int64_t e)
{
    const unsigned char *at = (const unsigned char *)a->x->data +
                              (size_t)e * kvg_dtype_size(p->xt);
    uint32_t u32;
    uint16_t u16;

    if (p->xt == KVG_FP32) {
        memcpy(&u32, at, sizeof u32);
        return u32;
    }
    memcpy(&u16, at, sizeof u16);
    return u16;
}

float kvg_i_dynamic_mx_quant_x(const kvg_dynamic_mx_quant_args *a,
                               const kvg_i_dynamic_mx_quant_plan *p,
                               int64_t e)
{
    const uint32_t b = kvg_i_dynamic_mx_quant_bits(a, p, e);
    if (p->xt == KVG_FP32)
        return kvg_i_float(b);
    return p->xt == KVG_FP16 ? kvg_fp16_to_f32((uint16_t)b)
                             : kvg_bf16_to_f32((uint16_t)b);
}

/* 2^k for k in [-126, 127] (every multiplier the rules reach; the OCP
 * code 254 whose multiplier 2^-127 is a bf16 subnormal needs an amax
 * exponent above any finite one for the payloads kvgold accepts). */
static float pow2(int k)
{
    return kvg_i_float((uint32_t)(k + 127) << 23);
}

/* The multiplier of code c: 0 where the kernel zeroes the payload (OCP
 * code 0; cuBLAS amax 0), NaN for 0xFF (bf16 0x7F81 in the kernel). */
static float multiplier(const kvg_i_dynamic_mx_quant_plan *p, uint32_t amax,
                        uint8_t c)
{
    if (c == E8M0_NAN)
        return kvg_i_float(0x7FC00000u);
    if (p->rule == KVG_E8M0_OCP ? c == 0 : amax == 0)
        return 0.0f;
    return pow2(127 - (int)c);
}

void kvg_i_dynamic_mx_quant_block_row(const kvg_dynamic_mx_quant_args *a,
                                      const kvg_i_dynamic_mx_quant_plan *p,
                                      int64_t o, int64_t j,
                                      const kvg_i_dynamic_mx_quant_ws *ws)
{
    int64_t r, r0, r1, i;
    uint32_t m;
    uint8_t c;

    kvg_i_dynamic_mx_quant_rows(p, j, &r0, &r1);
    memset(ws->amax, 0, (size_t)p->inner * sizeof ws->amax[0]);
    for (r = r0; r < r1; r++)
        for (i = 0; i < p->inner; i++) {
            m = kvg_i_bits(kvg_i_dynamic_mx_quant_x(
                    a, p, kvg_i_dynamic_mx_quant_flat(p, o, r, i))) &
                MAG_MASK;
            if (m > ws->amax[i])
                ws->amax[i] = m;
        }
    for (i = 0; i < p->inner; i++) {
        /* A NaN amax is any NaN; the rules only ask "finite or not". */
        m = ws->amax[i] > F32_INF ? F32_INF : ws->amax[i];
        c = 0;
        /* Cannot fail: rule, payload and a non-negative amax are valid
         * (check.c allows only those pairs). */
        (void)kvg_e8m0_from_amax(p->rule, p->yt, kvg_i_float(m), &c);
        ws->code[i] = c;
        ws->mult[i] = multiplier(p, m, c);
    }
}
