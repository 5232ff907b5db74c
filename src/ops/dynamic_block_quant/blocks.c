/*
 * src/ops/dynamic_block_quant/blocks.c - DynamicBlockQuant's block
 * arithmetic: an element of x widened, a block's amax (one scan of its
 * rows, scan.c; small blocks a run at a time), scale and multiplier under
 * each profile, and the value the cast narrows. The value
 * checks (check.c) and the compute step (entry.c) both use it, so what is
 * checked is what is computed. Both profiles' formulas are in
 * kvgold/dynamic_block_quant.h; docs/dynamic_block_quant.md cites the
 * kernel lines.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/common/dtype_size.h"
#include "src/kernels/widen.h"
#include "src/ops/dynamic_block_quant/internal.h"

const unsigned char *kvg_i_dynamic_block_quant_x_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t b, int64_t r, int64_t c)
{
    return (const unsigned char *)a->x->data +
           (size_t)kvg_i_dynamic_block_quant_flat(p, b, r, c) *
               kvg_i_dtype_size(p->xt);
}

/* The bit pattern of x[b][r][c] in x's own width. */
static uint32_t x_bits(const kvg_dynamic_block_quant_args *a,
                       const kvg_i_dynamic_block_quant_plan *p, int64_t b,
                       int64_t r, int64_t c)
{
    const unsigned char *at = kvg_i_dynamic_block_quant_x_at(a, p, b, r, c);
    uint32_t u32;
    uint16_t u16;

    if (p->xt == KVG_FP32) {
        memcpy(&u32, at, sizeof u32);
        return u32;
    }
    memcpy(&u16, at, sizeof u16);
    return u16;
}

/* Inline (src/kernels/widen.h, the loaders test_row_codecs checks on
 * every 16-bit code): the checks widen two values per block. */
float kvg_i_dynamic_block_quant_widen(kvg_dtype t, uint32_t bits)
{
    if (t == KVG_FP32)
        return kvg_i_float(bits);
    return t == KVG_FP16 ? kvg_i_fp16_value((uint16_t)bits)
                         : kvg_i_bf16_value((uint16_t)bits);
}

float kvg_i_dynamic_block_quant_x(const kvg_dynamic_block_quant_args *a,
                                  const kvg_i_dynamic_block_quant_plan *p,
                                  int64_t b, int64_t r, int64_t c)
{
    return kvg_i_dynamic_block_quant_widen(p->xt, x_bits(a, p, b, r, c));
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* amax by integer max of the magnitude bits (sign bit cleared), as the
 * 950 kernel takes it: NaN > Inf > finite. On a2a3 the kernel takes a
 * float max, the same for the finite values that profile accepts. One
 * scan per row of the block (contiguous in x), which also gives the
 * smallest nonzero magnitude the checks need. */
static void block_scan(const kvg_dynamic_block_quant_args *a,
                       const kvg_i_dynamic_block_quant_plan *p,
                       kvg_i_dynamic_block_quant_block *blk)
{
    int64_t r;

    blk->bits.amax = 0;
    blk->bits.low = p->xt == KVG_FP32 ? 0x7FFFFFFFu : 0x7FFFu;
    for (r = blk->r0; r < blk->r1; r++)
        kvg_i_dynamic_block_quant_scan_run(
            p->xt, kvg_i_dynamic_block_quant_x_at(a, p, blk->b, r, blk->c0),
            (size_t)(blk->c1 - blk->c0), &blk->bits);
    blk->amax = kvg_i_dynamic_block_quant_widen(p->xt, blk->bits.amax);
}

/* 950: s = amax / DST_MAX, then min(s, 1 / min_scale) unless s is Inf or
 * NaN (the kernel's `bits(s) < 0x7F800000` test); y = x / s. */
static void scale_950(const kvg_i_dynamic_block_quant_plan *p,
                      kvg_i_dynamic_block_quant_block *blk)
{
    float s = blk->amax / p->dst_max;

    if (kvg_i_bits(s) < 0x7F800000u && p->inv_min < s)
        s = p->inv_min;
    blk->scale = s;
    blk->mult = s;
}

/* a2a3: m = fl(fl(1 / amax) * 127), scale = amax * fl(1 / 127); with
 * min_scale > 0, m = max(m, min_scale), scale = min(scale, fl(1 /
 * min_scale)); y = x * m. */
static void scale_a2a3(const kvg_i_dynamic_block_quant_plan *p,
                       kvg_i_dynamic_block_quant_block *blk)
{
    const float inv127 = 1.0f / 127.0f; /* 0x3C010204, as the kernel's */
    float m = (1.0f / blk->amax) * 127.0f;
    float s = blk->amax * inv127;

    if (p->min_scale > 0.0f) {
        if (m < p->min_scale)
            m = p->min_scale;
        if (p->inv_min < s)
            s = p->inv_min;
    }
    blk->scale = s;
    blk->mult = m;
}

static void block_scale(const kvg_i_dynamic_block_quant_plan *p,
                        kvg_i_dynamic_block_quant_block *blk)
{
    if (p->profile == KVG_PROFILE_A2A3)
        scale_a2a3(p, blk);
    else
        scale_950(p, blk);
}

static void block_bounds(const kvg_i_dynamic_block_quant_plan *p, int64_t b,
                         int64_t i, int64_t j,
                         kvg_i_dynamic_block_quant_block *blk)
{
    blk->b = b;
    blk->r0 = i * p->rb;
    blk->r1 = min64(blk->r0 + p->rb, p->rows);
    blk->c0 = j * p->cb;
    blk->c1 = min64(blk->c0 + p->cb, p->cols);
}

void kvg_i_dynamic_block_quant_block_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t b, int64_t i, int64_t j,
    kvg_i_dynamic_block_quant_block *blk)
{
    block_bounds(p, b, i, j, blk);
    block_scan(a, p, blk);
    block_scale(p, blk);
}

int64_t kvg_i_dynamic_block_quant_blocks(const kvg_i_dynamic_block_quant_plan *p)
{
    return p->batch * p->row_blocks * p->col_blocks;
}

/* Small blocks (the 1 x 128 key write has 128 elements) are a few vector
 * steps each, so their fixed costs dominate: the calls, the reductions'
 * and the division's latencies. A run of them scanned first and divided
 * after lets the processor overlap those; a large block gains nothing and
 * would push the run out of cache before the compute step's second read,
 * so it goes alone. */
int kvg_i_dynamic_block_quant_run_at(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, int64_t q,
    kvg_i_dynamic_block_quant_block *blk)
{
    const int64_t left = kvg_i_dynamic_block_quant_blocks(p) - q;
    const int most = p->rb * p->cb >= 4096 ? 1 : KVG_I_DYNAMIC_BLOCK_QUANT_RUN;
    const int n = left < most ? (int)left : most;
    int64_t j = q % p->col_blocks, i = q / p->col_blocks % p->row_blocks,
            b = q / p->col_blocks / p->row_blocks;
    int k;

    for (k = 0; k < n; k++) {
        block_bounds(p, b, i, j, &blk[k]);
        block_scan(a, p, &blk[k]);
        if (++j == p->col_blocks) { /* the next block in (b, i, j) order */
            j = 0;
            if (++i == p->row_blocks)
                i = 0, b++;
        }
    }
    for (k = 0; k < n; k++)
        block_scale(p, &blk[k]);
    return n;
}

float kvg_i_dynamic_block_quant_scaled(
    const kvg_i_dynamic_block_quant_plan *p,
    const kvg_i_dynamic_block_quant_block *blk, float x)
{
    return p->profile == KVG_PROFILE_A2A3 ? x * blk->mult
                                                      : x / blk->mult;
}

