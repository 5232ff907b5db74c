/*
 * src/ops/dynamic_mx_quant/blocks.c - DynamicMxQuant's block arithmetic:
 * per block its amax, E8M0 code and payload multiplier. The value pass
 * (check.c) computes them into the workspace, and the compute step
 * (entry.c) reads them there, so what is checked is what is computed.
 * The rules are in kvgold/dynamic_mx_quant.h; docs/dynamic_mx_quant.md
 * cites the kernel lines.
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

/* Each column's code and multiplier from its amax (ws->amax), into the
 * block row's entries from b0 on. */
static void codes(const kvg_i_dynamic_mx_quant_plan *p, int64_t b0,
                  const kvg_i_dynamic_mx_quant_ws *ws)
{
    int64_t i;
    uint32_t m;
    uint8_t c;

    for (i = 0; i < p->inner; i++) {
        /* A NaN amax is any NaN; the rules only ask "finite or not". */
        m = ws->amax[i] > F32_INF ? F32_INF : ws->amax[i];
        c = 0;
        /* Cannot fail: rule, payload and a non-negative amax are valid
         * (check.c allows only those pairs). */
        (void)kvg_e8m0_from_amax(p->rule, p->yt, kvg_i_float(m), &c);
        ws->code[b0 + i] = c;
        ws->mult[b0 + i] = multiplier(p, m, c);
    }
}

/* The magnitudes of one block whose len elements are contiguous from flat
 * element e0 (inner == 1: the axis is x's last non-unit dim), into column
 * 0 of ws: the common case, without the per-column bookkeeping. */
static void contiguous_stats(const kvg_dynamic_mx_quant_args *a,
                             const kvg_i_dynamic_mx_quant_plan *p,
                             int64_t e0, int64_t len,
                             const kvg_i_dynamic_mx_quant_ws *ws)
{
    uint32_t amax = 0, minmag = 0xFFFFFFFFu, minneg = 0xFFFFFFFFu, m, u;
    int64_t e;

    for (e = e0; e < e0 + len; e++) {
        u = kvg_i_bits(kvg_i_dynamic_mx_quant_x(a, p, e));
        m = u & MAG_MASK;
        amax = m > amax ? m : amax;
        if (m != 0) {
            minmag = m < minmag ? m : minmag;
            if ((u >> 31) != 0 && m < minneg)
                minneg = m;
        }
    }
    ws->amax[0] = amax, ws->minmag[0] = minmag, ws->minneg[0] = minneg;
}

void kvg_i_dynamic_mx_quant_block_row(const kvg_dynamic_mx_quant_args *a,
                                      const kvg_i_dynamic_mx_quant_plan *p,
                                      int64_t o, int64_t j,
                                      const kvg_i_dynamic_mx_quant_ws *ws)
{
    const int64_t b0 = kvg_i_dynamic_mx_quant_block(p, o, j, 0);
    int64_t r, r0, r1, i;
    uint32_t m, u;

    kvg_i_dynamic_mx_quant_rows(p, j, &r0, &r1);
    if (p->inner == 1) {
        contiguous_stats(a, p, kvg_i_dynamic_mx_quant_flat(p, o, r0, 0),
                         r1 - r0, ws);
        codes(p, b0, ws);
        return;
    }
    memset(ws->amax, 0, (size_t)p->inner * sizeof ws->amax[0]);
    memset(ws->minneg, 0xFF, (size_t)p->inner * sizeof ws->minneg[0]);
    memset(ws->minmag, 0xFF, (size_t)p->inner * sizeof ws->minmag[0]);
    for (r = r0; r < r1; r++)
        for (i = 0; i < p->inner; i++) {
            u = kvg_i_bits(kvg_i_dynamic_mx_quant_x(
                a, p, kvg_i_dynamic_mx_quant_flat(p, o, r, i)));
            m = u & MAG_MASK;
            if (m > ws->amax[i])
                ws->amax[i] = m;
            if (m != 0 && m < ws->minmag[i])
                ws->minmag[i] = m;
            if ((u >> 31) != 0 && m != 0 && m < ws->minneg[i])
                ws->minneg[i] = m;
        }
    codes(p, b0, ws);
}
