/*
 * src/ops/dynamic_mx_quant/internal.h - what validation hands to the
 * compute step of DynamicMxQuant, and the block arithmetic both share (the
 * value checks need each block's multiplier before anything is written).
 *
 * x is viewed as [outer, n, inner] around `axis` (n = x.shape[axis]); a
 * block row (o, j) is the elements x[o, j*bs + k, i], k < bs, for every
 * i < inner: `inner` blocks side by side, one per column i.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_DYNAMIC_MX_QUANT_INTERNAL_H
#define KVGOLD_SRC_OPS_DYNAMIC_MX_QUANT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "kvgold/dynamic_mx_quant.h"
#include "src/common/bits.h"
#include "src/common/internal.h"

typedef struct kvg_i_dynamic_mx_quant_plan {
    int axis;                    /* normalised to [0, rank) */
    int64_t outer, n, inner;     /* x as [outer, n, inner] */
    int64_t bs, blocks, pairs;   /* block_size, ceil(n/bs), ceil(blocks/2) */
    kvg_dtype xt, yt;
    size_t xsize;                /* bytes per element of x */
    int fp4;                     /* y is packed fp4_e2m1 */
    kvg_e8m0_rule rule;          /* OCP (scale_alg 0) or CUBLAS (1) */
    kvg_fp4_round mode;
} kvg_i_dynamic_mx_quant_plan;

/* The workspace: one block row's magnitudes (`inner` entries each), and
 * every block's code and multiplier (outer * blocks * inner entries, at
 * kvg_i_dynamic_mx_quant_block), which the value pass fills and the
 * compute step reads: what is checked is what is computed. */
typedef struct kvg_i_dynamic_mx_quant_ws {
    uint32_t *amax;   /* magnitude bits of the largest |x| */
    uint32_t *minneg; /* ... of the smallest non-zero negative x */
    uint32_t *minmag; /* ... of the smallest non-zero x */
    uint8_t *code;    /* the E8M0 scale code */
    float *mult;      /* the multiplier; NaN for a 0xFF block */
} kvg_i_dynamic_mx_quant_ws;

/* Every check that does not read x's values. Fills *plan. */
kvg_status kvg_i_dynamic_mx_quant_check_args(
    const kvg_dynamic_mx_quant_args *a, kvg_i_dynamic_mx_quant_plan *plan,
    kvg_diag *diag);

/* x's values: the refusals of docs/dynamic_mx_quant.md, "Refused". */
kvg_status kvg_i_dynamic_mx_quant_check_values(
    const kvg_dynamic_mx_quant_args *a,
    const kvg_i_dynamic_mx_quant_plan *plan,
    const kvg_i_dynamic_mx_quant_ws *ws, kvg_diag *diag);

/* The flat index of x[o, r, i] (r < n). */
static inline int64_t kvg_i_dynamic_mx_quant_flat(
    const kvg_i_dynamic_mx_quant_plan *p, int64_t o, int64_t r, int64_t i)
{
    return (o * p->n + r) * p->inner + i;
}

/* The rows [r0, r1) of block j along the axis. */
static inline void kvg_i_dynamic_mx_quant_rows(
    const kvg_i_dynamic_mx_quant_plan *p, int64_t j, int64_t *r0,
    int64_t *r1)
{
    *r0 = j * p->bs;
    *r1 = *r0 + p->bs < p->n ? *r0 + p->bs : p->n;
}

/* The index of block (o, j) of column i in the workspace's code / mult. */
static inline int64_t kvg_i_dynamic_mx_quant_block(
    const kvg_i_dynamic_mx_quant_plan *p, int64_t o, int64_t j, int64_t i)
{
    return (o * p->blocks + j) * p->inner + i;
}

/* Flat element e of x widened to binary32 (exact): inline, since every
 * element is read twice (the value pass, the compute step). */
static inline float kvg_i_dynamic_mx_quant_x(
    const kvg_dynamic_mx_quant_args *a, const kvg_i_dynamic_mx_quant_plan *p,
    int64_t e)
{
    const unsigned char *at =
        (const unsigned char *)a->x->data + (size_t)e * p->xsize;
    uint32_t u32;
    uint16_t u16;

    if (p->xt == KVG_FP32) {
        memcpy(&u32, at, sizeof u32);
        return kvg_i_float(u32);
    }
    memcpy(&u16, at, sizeof u16);
    return p->xt == KVG_BF16 ? kvg_i_float((uint32_t)u16 << 16)
                             : kvg_fp16_to_f32(u16);
}

/* Block row (o, j): each column's amax and smallest non-zero magnitudes
 * (of all x, of the negative x) into ws->amax / minmag / minneg, its code
 * and multiplier into ws->code / ws->mult at kvg_i_dynamic_mx_quant_block. */
void kvg_i_dynamic_mx_quant_block_row(const kvg_dynamic_mx_quant_args *a,
                                      const kvg_i_dynamic_mx_quant_plan *p,
                                      int64_t o, int64_t j,
                                      const kvg_i_dynamic_mx_quant_ws *ws);

/* Everything the operator checks before it writes a byte (the entry
 * point and the descriptor's `written` share it). */
kvg_status kvg_i_dynamic_mx_quant_validate(
    const kvg_dynamic_mx_quant_args *a, kvg_i_dynamic_mx_quant_plan *plan,
    kvg_i_dynamic_mx_quant_ws *ws, kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_DYNAMIC_MX_QUANT_INTERNAL_H */
