/*
 * src/ops/dynamic_block_quant/internal.h - what validation hands to the
 * compute step of DynamicBlockQuant, and the block arithmetic both share
 * (the value checks need each block's scale before anything is written).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_DYNAMIC_BLOCK_QUANT_INTERNAL_H
#define KVGOLD_SRC_OPS_DYNAMIC_BLOCK_QUANT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/dynamic_block_quant.h"
#include "src/common/internal.h"

/* The largest col_block_size either profile accepts (check.c,
 * check_block_sizes): the compute step widens one block's run of a row on
 * the stack. */
#define KVG_I_DYNAMIC_BLOCK_QUANT_MAX_CB 256

typedef struct kvg_i_dynamic_block_quant_plan {
    int64_t batch, rows, cols;          /* B (1 for 2-D x), M, N */
    int64_t rb, cb;                     /* block sizes */
    int64_t row_blocks, col_blocks;     /* ceil(M/rb), ceil(N/cb) */
    kvg_dtype xt, yt;                   /* x's and y's dtypes */
    kvg_profile profile;
    float dst_max;   /* DST_MAX of y's dtype (dst_type_max for hif8) */
    float min_scale; /* (float)min_scale */
    float inv_min;   /* fl(1 / min_scale); +inf when min_scale is 0 */
} kvg_i_dynamic_block_quant_plan;

/* One pass over elements of x (scan.c): the largest magnitude bit
 * pattern (sign cleared) and the smallest nonzero one minus 1, both in x's
 * own width; `low` is the all-ones magnitude (0x7FFF, 0x7FFFFFFF) when
 * every element is +-0. */
typedef struct kvg_i_dynamic_block_quant_scan {
    uint32_t amax, low;
} kvg_i_dynamic_block_quant_scan;

/* One block: where it is and what the kernel computes for it. */
typedef struct kvg_i_dynamic_block_quant_block {
    int64_t b, r0, r1, c0, c1; /* batch; rows [r0, r1), columns [c0, c1) */
    kvg_i_dynamic_block_quant_scan bits; /* its elements' magnitudes */
    float amax;                /* max |x| (NaN > Inf > finite on 950) */
    float scale;               /* the dequant factor written to `scale` */
    float mult;                /* y = x (op) mult: ascend950 divides by it,
                                  a2a3 multiplies by it */
} kvg_i_dynamic_block_quant_block;

/* The workspace: room for the multipliers of one row of blocks (ceil(N/cb)
 * floats), as kvgold/dynamic_block_quant.h documents it; unused since the
 * compute step goes block by block (entry.c, e_carve). */
typedef struct kvg_i_dynamic_block_quant_ws {
    float *mult;
} kvg_i_dynamic_block_quant_ws;

/* Every check that does not read x's values. Fills *plan. */
kvg_status kvg_i_dynamic_block_quant_check_args(
    const kvg_dynamic_block_quant_args *a,
    kvg_i_dynamic_block_quant_plan *plan, kvg_diag *diag);

/* x's values: the refusals of docs/dynamic_block_quant.md, "Refused". */
kvg_status kvg_i_dynamic_block_quant_check_values(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *plan, kvg_diag *diag);

/* The flat index of element (b, r, c) of x and y. */
static inline int64_t kvg_i_dynamic_block_quant_flat(
    const kvg_i_dynamic_block_quant_plan *p, int64_t b, int64_t r, int64_t c)
{
    return (b * p->rows + r) * p->cols + c;
}

/* A pattern of x's dtype widened to binary32 (exact). */
float kvg_i_dynamic_block_quant_widen(kvg_dtype t, uint32_t bits);

/* Element (b, r, c) of x widened to binary32 (exact). */
float kvg_i_dynamic_block_quant_x(const kvg_dynamic_block_quant_args *a,
                                  const kvg_i_dynamic_block_quant_plan *p,
                                  int64_t b, int64_t r, int64_t c);

/* Fold n contiguous elements of dtype t at src into *acc. */
void kvg_i_dynamic_block_quant_scan_run(kvg_dtype t, const void *src,
                                        size_t n,
                                        kvg_i_dynamic_block_quant_scan *acc);

/* The address of element (b, r, c) of x. */
const unsigned char *kvg_i_dynamic_block_quant_x_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t b, int64_t r, int64_t c);

/* Block (b, i, j): its bounds, magnitudes, amax, scale and multiplier
 * (one scan of its rows). */
void kvg_i_dynamic_block_quant_block_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t b, int64_t i, int64_t j,
    kvg_i_dynamic_block_quant_block *blk);

/* How many blocks the call has (B * ceil(M/rb) * ceil(N/cb)), numbered in
 * (b, i, j) order as `scale` holds them. */
int64_t kvg_i_dynamic_block_quant_blocks(
    const kvg_i_dynamic_block_quant_plan *p);

/* The most blocks kvg_i_dynamic_block_quant_run_at fills. */
#define KVG_I_DYNAMIC_BLOCK_QUANT_RUN 16

/* Blocks q, q + 1, ... as block_at gives them, into blk[0..n): n is
 * KVG_I_DYNAMIC_BLOCK_QUANT_RUN for small blocks, 1 for large ones, fewer
 * at the end. Returns n (>= 1 while q is a block). */
int kvg_i_dynamic_block_quant_run_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t q,
    kvg_i_dynamic_block_quant_block *blk);

/* The quotient (ascend950) or product (a2a3) the cast narrows. */
float kvg_i_dynamic_block_quant_scaled(
    const kvg_i_dynamic_block_quant_plan *p,
    const kvg_i_dynamic_block_quant_block *blk, float x);

/* Everything the operator checks before it writes a byte (the entry
 * point and the descriptor's `written` share it). */
kvg_status kvg_i_dynamic_block_quant_validate(
    const kvg_dynamic_block_quant_args *a,
    kvg_i_dynamic_block_quant_plan *plan, kvg_i_dynamic_block_quant_ws *ws,
    kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_DYNAMIC_BLOCK_QUANT_INTERNAL_H */
