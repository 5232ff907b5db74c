/*
 * src/ops/dynamic_block_quant/entry.c - DynamicBlockQuant: the entry points
 * (through the entry skeleton, src/common/entry.h) and the compute step
 * (validation is in check.c, the block arithmetic both use in blocks.c).
 *
 * Blocks are independent, as on the NPU, where they are spread over cores:
 * the compute step walks them in order, takes each block's amax, scale and
 * multiplier (kvg_i_dynamic_block_quant_block_at: one vectorised scan,
 * scan.c) and narrows its rows with the row kernels while the block is
 * still in cache. The checks scanned every block before (check.c); the
 * scan is repeated here rather than kept, since keeping every block's
 * multiplier would need a workspace the size of `scale` (docs/
 * performance.md, issue 35, measures the cost). Both profiles' formulas are in
 * kvgold/dynamic_block_quant.h; docs/dynamic_block_quant.md cites the
 * kernel lines.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/common/entry.h"
#include "src/kernels/kernels.h"
#include "src/ops/dynamic_block_quant/internal.h"

/* The canonical NaN kvgold writes for a NaN scale (the device's payload
 * is not documented; docs/dynamic_block_quant.md). */
#define CANONICAL_NAN 0x7FC00000u

void kvg_dynamic_block_quant_args_init(kvg_dynamic_block_quant_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->min_scale = 0.0;
    args->round_mode = KVG_DYNAMIC_BLOCK_QUANT_RINT;
    args->dst_type = KVG_INT8;
    args->row_block_size = 1;
    args->col_block_size = 128;
    args->dst_type_max = 0.0;
    args->profile = KVG_PROFILE_ASCEND950;
}

/* The saturating casts: int8 RNE (the 950's f32 -> int16 RINT SAT -> half
 * -> int8 SAT chain is exact for integers and saturates the same way),
 * fp8 RNE, hif8 half away from zero; +-inf to +-max; NaN to the +0 code
 * (AscendC Cast, saturation mode: "input nan, output 0"). */
static uint8_t narrow(kvg_dtype t, float z)
{
    if (z != z)
        return 0;
    switch (t) {
    case KVG_INT8:
        return (uint8_t)kvg_f32_to_int8(z);
    case KVG_FP8_E4M3FN:
        return kvg_f32_to_fp8e4m3fn(z, KVG_OVF_SATURATE);
    case KVG_FP8_E5M2:
        return kvg_f32_to_fp8e5m2(z, KVG_OVF_SATURATE);
    default:
        return kvg_f32_to_hif8(z, KVG_OVF_SATURATE);
    }
}

/* The scale of block q, as fp32 bits (any NaN canonical). */
static void write_scale(const kvg_dynamic_block_quant_args *a, int64_t q,
                        float scale)
{
    const uint32_t s = scale != scale ? CANONICAL_NAN : kvg_i_bits(scale);
    memcpy((unsigned char *)a->scale->data + (size_t)q * sizeof s, &s,
           sizeof s);
}

/* Whether the block's y goes element by element through narrow(): its
 * quotients can be NaN only when the divisor is 0 (an all-zero block),
 * Inf or NaN (x has one), and narrow() writes the +0 code for NaN where
 * the row kernels write the format's NaN code. For int8 both write 0;
 * a2a3 is int8 only. */
static int by_element(const kvg_i_dynamic_block_quant_plan *p, float mult)
{
    return p->yt != KVG_INT8 && !(mult > 0.0f && mult <= FLT_MAX);
}

/* Elements [c0, c1) of row r of batch b, one at a time. */
static void write_elements(const kvg_dynamic_block_quant_args *a,
                           const kvg_i_dynamic_block_quant_plan *p, int64_t b,
                           int64_t r, int64_t c0, int64_t c1, float mult)
{
    unsigned char *y = (unsigned char *)a->y->data;
    kvg_i_dynamic_block_quant_block blk;
    int64_t c;

    blk.mult = mult;
    for (c = c0; c < c1; c++)
        y[kvg_i_dynamic_block_quant_flat(p, b, r, c)] = narrow(
            p->yt, kvg_i_dynamic_block_quant_scaled(
                       p, &blk, kvg_i_dynamic_block_quant_x(a, p, b, r, c)));
}

/* Elements [c0, c1) of row r of batch b through the row kernels
 * (src/kernels/quant.c): widened exactly, then x / mult or x * mult as one
 * IEEE operation, then the cast, each equal to the codec the format layer
 * has for every non-NaN value (test_row_codecs proves it over all 2^32
 * patterns). The cast saturates, as narrow()'s. */
static void write_run(const kvg_dynamic_block_quant_args *a,
                      const kvg_i_dynamic_block_quant_plan *p, int64_t b,
                      int64_t r, int64_t c0, int64_t c1, float mult)
{
    float x[KVG_I_DYNAMIC_BLOCK_QUANT_MAX_CB];
    const size_t n = (size_t)(c1 - c0);

    kvg_i_load_row(p->xt, kvg_i_dynamic_block_quant_x_at(a, p, b, r, c0), n,
                   x);
    kvg_i_quantize_row(x, n, &mult, 0, NULL, 0,
                       p->profile == KVG_PROFILE_A2A3 ? KVG_I_SCALE_MUL
                                                      : KVG_I_SCALE_DIV,
                       p->yt, KVG_OVF_SATURATE,
                       (unsigned char *)a->y->data +
                           kvg_i_dynamic_block_quant_flat(p, b, r, c0));
}

/* The block's rows of y, each a contiguous run of x and y, right after
 * its scan: the block's x (at most 512 x 256 elements, 32 KiB for the
 * common 128 x 128 in bf16) is then still in cache, so x comes from
 * memory once in the compute step. */
static void write_block(const kvg_dynamic_block_quant_args *a,
                        const kvg_i_dynamic_block_quant_plan *p,
                        const kvg_i_dynamic_block_quant_block *blk)
{
    const int one_by_one = by_element(p, blk->mult);
    int64_t r;

    for (r = blk->r0; r < blk->r1; r++)
        if (one_by_one)
            write_elements(a, p, blk->b, r, blk->c0, blk->c1, blk->mult);
        else
            write_run(a, p, blk->b, r, blk->c0, blk->c1, blk->mult);
}

/* Validation is complete: from here on every byte written is final. One
 * run of blocks at a time, in x's order of blocks: their scales, then
 * their y. */
static void compute(const kvg_dynamic_block_quant_args *a,
                    const kvg_i_dynamic_block_quant_plan *p)
{
    kvg_i_dynamic_block_quant_block blk[KVG_I_DYNAMIC_BLOCK_QUANT_RUN];
    const int64_t blocks = kvg_i_dynamic_block_quant_blocks(p);
    int64_t q;
    int k, n;

    for (q = 0; q < blocks; q += n) {
        n = kvg_i_dynamic_block_quant_run_at(a, p, q, blk);
        for (k = 0; k < n; k++) {
            write_scale(a, q + k, blk[k].scale);
            write_block(a, p, &blk[k]);
        }
    }
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_dynamic_block_quant_args args_t;

static kvg_status e_check(const void *a, void *p, kvg_diag *diag)
{
    return kvg_i_dynamic_block_quant_check_args(
        (const args_t *)a, (kvg_i_dynamic_block_quant_plan *)p, diag);
}

/* Written: y and scale. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {
        {"x", a->x, 0}, {"y", a->y, 1}, {"scale", a->scale, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

/* One row of blocks' multipliers: the documented workspace
 * (kvgold/dynamic_block_quant.h). The block-by-block compute step no
 * longer reads it; it is kept so that kvg_dynamic_block_quant_workspace_size
 * answers what callers were told (dropping it is an API decision). */
static void e_carve(const void *p, kvg_i_ws *ws, void *w)
{
    const kvg_i_dynamic_block_quant_plan *plan =
        (const kvg_i_dynamic_block_quant_plan *)p;
    ((kvg_i_dynamic_block_quant_ws *)w)->mult = (float *)kvg_i_ws_take(
        ws, (size_t)plan->col_blocks, sizeof(float));
}

static kvg_status e_values(const void *a, const void *p, void *w,
                           kvg_diag *diag)
{
    (void)w;
    return kvg_i_dynamic_block_quant_check_values(
        (const args_t *)a, (const kvg_i_dynamic_block_quant_plan *)p, diag);
}

static void e_compute(const void *a, const void *p, void *w)
{
    (void)w;
    compute((const args_t *)a, (const kvg_i_dynamic_block_quant_plan *)p);
}

KVG_I_ENTRY_POINTS(dynamic_block_quant, kvg_i_dynamic_block_quant_plan,
                   kvg_i_dynamic_block_quant_ws);
