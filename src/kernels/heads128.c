/*
 * src/kernels/heads128.c - the RmsNorm and half RoPE of many 128-channel
 * heads in one call: all the q (or all the k) heads of one token, for an
 * operator whose heads are 128 channels wide.
 *
 * Why a kernel of its own: per head, the general kernels (a widening sum
 * of squares, then the normalisation and RoPE) cost two calls whose loop
 * bounds are only known at run time, and a head of 128 channels is too
 * short to hide either: calls, loop set-up and the latency of each head's
 * reduction tree were most of such an operator's time
 * (docs/performance.md). Here the width is a constant, so every loop is
 * straight vector code, and the heads follow each other in one loop, so
 * the processor overlaps one head's tree with the next head's loads.
 *
 * Why it changes no result: every head gets the operations of
 * kvg_i_load_rms_of, kvg_i_rms_apply and kvg_i_rope_half, in their order
 * (the pairwise sum is rmsnorm.c's: pair_tree.h's first fold and tree;
 * the other orders go through kvg_i_rms_of itself; the RoPE is
 * rope_half.h's, as kvg_i_rope_half's).
 * The vectors of the operator that calls it cover every input dtype and
 * order.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "src/common/dtype_size.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/kernels.h"
#include "src/kernels/narrow.h"
#include "src/kernels/pair_tree.h"
#include "src/kernels/prefetch.h"
#include "src/kernels/rope_half.h"
#include "src/kernels/widen.h"

#define W 128u       /* channels per head */
#define HALF (W / 2) /* the RoPE halves, and the pairwise sum's first fold */
#define GROUP 16u    /* heads whose trees are summed side by side */

/* Ask for the head's worth of bytes KVG_I_PREFETCH_AHEAD after `at`, or
 * for what of them lies before `end` (NULL: nothing). The pointer is only
 * formed inside [at, end]. */
KVG_I_IN_EVERY_CLONE
static inline void prefetch_ahead(const unsigned char *at, size_t bytes,
                                  const unsigned char *end)
{
    size_t o;

    if (end == NULL || end - at <= (ptrdiff_t)KVG_I_PREFETCH_AHEAD)
        return;
    at += KVG_I_PREFETCH_AHEAD;
    for (o = 0; o < bytes && o < (size_t)(end - at); o += KVG_I_LINE)
        KVG_I_PREFETCH(at + o);
}

/*
 * The sums of squares of `heads` heads (at most GROUP) whose first folds
 * are in p (64 each, head after head; overwritten), into sums. Each level
 * of the adjacent-pair tree is one kvg_i_pair_level over all the heads at
 * once: head h's 2k values are in[2k*h ...], and out[j] = in[2j] +
 * in[2j+1] maps them onto out[k*h ...], exactly its own level. One head's
 * tree is a chain of short dependent steps; the heads side by side fill
 * the vector lanes instead.
 */
KVG_I_IN_EVERY_CLONE
static inline void pair_trees(float *restrict p, size_t heads,
                              float *restrict sums)
{
    float t[GROUP * HALF / 2];

    kvg_i_pair_level(p, heads * 32, t);
    kvg_i_pair_level(t, heads * 16, p);
    kvg_i_pair_level(p, heads * 8, t);
    kvg_i_pair_level(t, heads * 4, p);
    kvg_i_pair_level(p, heads * 2, t);
    kvg_i_pair_level(t, heads, sums);
}

/* The rms of `heads` heads (at most GROUP) from src, widened into x
 * (128 each): rmsnorm.c's pairwise sum and rms_from_sum. */
KVG_I_IN_EVERY_CLONE
static inline void load_rms_pairwise(kvg_dtype dtype,
                                     const unsigned char *src, size_t heads,
                                     const unsigned char *end, float eps,
                                     float *restrict x, float *restrict rms)
{
    float p[GROUP * HALF];
    size_t h;

    for (h = 0; h < heads; h++) {
        prefetch_ahead(src + h * W * 2, W * 2, end);
        kvg_i_widen_fold16(dtype, src + h * W * 2, HALF, x + h * W,
                           p + h * HALF);
    }
    pair_trees(p, heads, rms);
    for (h = 0; h < heads; h++)
        rms[h] = sqrtf(rms[h] * (1.0f / (float)W) + eps);
}

/* The same for any dtype and order, head by head through rmsnorm.c. */
static void load_rms_general(kvg_dtype dtype, const unsigned char *src,
                             size_t heads, float eps, kvg_reduce_order order,
                             float *scratch, float *x, float *rms)
{
    const size_t size = kvg_i_dtype_size(dtype);
    size_t h;

    for (h = 0; h < heads; h++) {
        kvg_i_load_row(dtype, src + h * W * size, W, x + h * W);
        rms[h] = kvg_i_rms_of(x + h * W, W, eps, order, scratch);
    }
}

/* y = (x / rms) * gamma (rmsnorm.c's kvg_i_rms_apply), then the half
 * RoPE of y into out. */
KVG_I_IN_EVERY_CLONE
static inline void apply_rope(const float *restrict x,
                              const float *restrict gamma, float rms,
                              const float *restrict c,
                              const float *restrict s, float *restrict out)
{
    float y[W];
    size_t j;

    for (j = 0; j < W; j++)
        y[j] = (x[j] / rms) * gamma[j];
    kvg_i_rope_half_row(y, c, s, W, out);
}

/* Head h of out narrowed into narrow_to, when there is one. */
KVG_I_IN_EVERY_CLONE
static inline void narrow_head(const kvg_i_heads128 *job, size_t h)
{
    if (job->narrow_to != NULL)
        kvg_i_narrow16_row(job->dtype,
                           kvg_i_saturates(job->dtype, job->overflow),
                           job->out + h * W, W,
                           (unsigned char *)job->narrow_to + h * W * 2);
}

KVG_I_ROW_KERNEL
void kvg_i_norm_rope_half_heads128(const kvg_i_heads128 *job)
{
    const unsigned char *row = (const unsigned char *)job->src;
    const size_t size = kvg_i_dtype_size(job->dtype);
    const int fast = job->order == KVG_REDUCE_PAIRWISE &&
                     (job->dtype == KVG_BF16 || job->dtype == KVG_FP16);
    float x[GROUP * W], rms[GROUP];
    size_t h0, h;

    for (h0 = 0; h0 < job->heads; h0 += GROUP) {
        const size_t g =
            job->heads - h0 < GROUP ? job->heads - h0 : GROUP;
        if (fast)
            load_rms_pairwise(job->dtype, row + h0 * W * size, g,
                              (const unsigned char *)job->src_end, job->eps,
                              x, rms);
        else
            load_rms_general(job->dtype, row + h0 * W * size, g, job->eps,
                             job->order, job->scratch, x, rms);
        for (h = 0; h < g; h++) {
            apply_rope(x + h * W, job->gamma, rms[h], job->cos_row,
                       job->sin_row, job->out + (h0 + h) * W);
            narrow_head(job, h0 + h);
        }
    }
}
