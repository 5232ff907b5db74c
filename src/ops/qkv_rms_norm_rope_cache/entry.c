/*
 * src/ops/qkv_rms_norm_rope_cache/entry.c - QkvRmsNormRopeCache: the entry
 * points (through the entry skeleton, src/common/entry.h) and the compute
 * step (validation is in check.c).
 *
 * The compute step walks token rows and heads in order; each (token, head)
 * row is independent, exactly as on the NPU, where rows are spread over
 * cores. Row arithmetic goes through src/kernels, addressing through
 * kvg_layout_offset (KVG_LAYOUT_NZ): one NZ row of D channels is D/C0 runs
 * of C0 contiguous elements, BlockSize*C0 elements apart.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>
#include <stdint.h>

#include "kvgold/layout.h"
#include "src/common/entry.h"
#include "src/kernels/kernels.h"
#include "src/ops/qkv_rms_norm_rope_cache/internal.h"

/* Row scratch carved from the workspace, D floats each. */
typedef struct rows {
    float *x, *y, *r;   /* input row, RmsNorm output, RoPE output */
    float *cs, *sn;     /* the token's cos and sin rows */
    float *gq, *gk;     /* gammas, widened once */
    float *sq;          /* kvg_i_sum_squares scratch (D is a power of 2) */
    float *scale, *offset; /* one head's quantisation row */
    float *enc;         /* one encoded cache row (at most 4*D bytes) */
} rows;

void kvg_qkv_rms_norm_rope_cache_args_init(
    kvg_qkv_rms_norm_rope_cache_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->epsilon = 1e-6;
    args->cache_mode = KVG_CACHE_PA_NZ;
    args->reduce_order = KVG_REDUCE_PAIRWISE;
    args->overflow = KVG_OVF_DEFAULT;
}

/* Element `col` of row `row` of a 2-D tensor `width` elements wide. */
static unsigned char *elem(const kvg_tensor *t, int64_t row, int64_t width,
                           int64_t col)
{
    return (unsigned char *)t->data +
           (size_t)(row * width + col) * kvg_dtype_size(t->dtype);
}

static void carve_rows(float *base, int64_t d, rows *r)
{
    float **slot[KVG_I_QKV_RMS_NORM_ROPE_CACHE_ROW_FLOATS];
    size_t i;

    slot[0] = &r->x, slot[1] = &r->y, slot[2] = &r->r, slot[3] = &r->cs;
    slot[4] = &r->sn, slot[5] = &r->gq, slot[6] = &r->gk, slot[7] = &r->sq;
    slot[8] = &r->scale, slot[9] = &r->offset, slot[10] = &r->enc;
    for (i = 0; i < sizeof slot / sizeof slot[0]; i++)
        *slot[i] = base + (size_t)d * i;
}

/* Widen the head row at src into r->x, RmsNorm then half RoPE into r->r
 * (all binary32). Two row kernels, not five: the widening is fused with the
 * squares and the normalisation with the RoPE (the same operations in the
 * same order), since at D = 128 the per-call cost of each kernel was a
 * large share of the row's time (docs/performance.md). */
static void norm_rope(const kvg_qkv_rms_norm_rope_cache_args *a,
                      const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                      const unsigned char *src,
                      const float *gamma, rows *r)
{
    const float rms = kvg_i_load_rms_of(p->t, src, (size_t)p->d, p->eps,
                                        a->reduce_order, r->sq, r->x);
    kvg_i_rms_apply_rope_half(r->x, gamma, (size_t)p->d, rms, r->cs, r->sn,
                              r->y, r->r);
}

/* Row h of a fp32 [heads, D] tensor: read in place when it is aligned for
 * float (the usual case: no per-head copy), else copied into `buf`. */
static const float *f32_row(const kvg_tensor *t, int64_t h, int64_t d,
                            float *buf)
{
    const unsigned char *at = elem(t, h, d, 0);
    if ((uintptr_t)at % sizeof(float) == 0)
        return (const float *)(const void *)at;
    memcpy(buf, at, (size_t)d * sizeof(float));
    return buf;
}

void kvg_i_qkv_rms_norm_rope_cache_cache_layout(
    const kvg_i_qkv_rms_norm_rope_cache_plan *p, const kvg_tensor *cache,
    int64_t heads, kvg_cache_layout *lay)
{
    lay->kind = KVG_LAYOUT_NZ;
    lay->blocks = p->blocks;
    lay->slots = p->bs;
    lay->heads = heads;
    lay->dim = p->d;
    lay->c0 = kvg_c0_of(cache->dtype);
}

/*
 * Write one head's D values `val` of the token with `slot` into an NZ
 * cache: quantised (int8, z = val / scale (+ offset), then RNE and
 * saturation) or narrowed to T. The row is encoded whole into r->enc,
 * then copied in runs of C0 channels: the first run is placed by
 * kvg_layout_offset, and run k + 1 lies BlockSize*C0 elements after run k
 * (the next C0 group of the same block and slot).
 */
static void write_cache(const kvg_qkv_rms_norm_rope_cache_args *a,
                        const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                        const kvg_tensor *cache, int64_t heads,
                        const kvg_tensor *scale, const kvg_tensor *offset,
                        int64_t h, int64_t slot, const float *val, rows *r)
{
    const int quant = cache->dtype == KVG_INT8;
    const size_t esize = kvg_dtype_size(cache->dtype);
    const unsigned char *src = (const unsigned char *)r->enc;
    kvg_cache_layout lay;
    kvg_cache_coord at;
    unsigned char *dst;
    size_t run, stride;

    kvg_i_qkv_rms_norm_rope_cache_cache_layout(p, cache, heads, &lay);
    kvg_i_quantize_row(val, (size_t)p->d,
                       quant ? f32_row(scale, h, p->d, r->scale) : NULL, 1,
                       quant && offset != NULL
                           ? f32_row(offset, h, p->d, r->offset)
                           : NULL,
                       1,
                       KVG_I_SCALE_DIV, cache->dtype, a->overflow, r->enc);
    at.block = slot / p->bs;
    at.slot = slot % p->bs;
    at.head = h;
    at.channel = 0;
    dst = (unsigned char *)cache->data +
          (size_t)kvg_layout_offset(&lay, &at) * esize;
    run = (size_t)lay.c0 * esize;
    stride = (size_t)(lay.slots * lay.c0) * esize;
    kvg_i_copy_runs(dst, stride, src, run, (size_t)(p->d / lay.c0));
}

static void store(const kvg_qkv_rms_norm_rope_cache_args *a,
                  const kvg_tensor *t, int64_t row, int64_t width,
                  int64_t col, const float *val, int64_t n)
{
    kvg_i_store_row(t->dtype, val, (size_t)n, a->overflow,
                    elem(t, row, width, col));
}

static void run_token(const kvg_qkv_rms_norm_rope_cache_args *a,
                      const kvg_i_qkv_rms_norm_rope_cache_plan *p, int64_t t,
                      rows *r)
{
    const int64_t d = p->d, width = p->n * d;
    const int64_t slot = kvg_i_index_at(a->index, t);
    int64_t h;

    /* cos/sin are [B*S, D] or [B, D] with S == 1: row t either way. */
    kvg_i_load_row(p->t, elem(a->cos, t, d, 0), (size_t)d, r->cs);
    kvg_i_load_row(p->t, elem(a->sin, t, d, 0), (size_t)d, r->sn);
    for (h = 0; h < p->nq; h++) {
        norm_rope(a, p, elem(a->qkv, t, width, h * d), r->gq, r);
        store(a, a->q_out, t, p->nq * d, h * d, r->r, d);
        if (p->before)
            store(a, a->q_out_before_quant, t, p->nq * d, h * d, r->r, d);
    }
    for (h = 0; h < p->nk; h++) {
        norm_rope(a, p, elem(a->qkv, t, width, (p->nq + h) * d), r->gk, r);
        if (p->before)
            store(a, a->k_out_before_quant, t, p->nk * d, h * d, r->r, d);
        if (slot >= 0)
            write_cache(a, p, a->k_cache, p->nk, a->k_scale, a->k_offset, h,
                        slot, r->r, r);
    }
    for (h = 0; h < p->nv; h++) {
        kvg_i_load_row(p->t, elem(a->qkv, t, width, (p->nq + p->nk + h) * d),
                       (size_t)d, r->x);
        if (p->before)
            store(a, a->v_out_before_quant, t, p->nv * d, h * d, r->x, d);
        if (slot >= 0)
            write_cache(a, p, a->v_cache, p->nv, a->v_scale, a->v_offset, h,
                        slot, r->x, r);
    }
}

/* Validation is complete: from here on every byte written is final. */
static void compute(const kvg_qkv_rms_norm_rope_cache_args *a,
                    const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                    const kvg_i_qkv_rms_norm_rope_cache_ws *w)
{
    rows r;
    int64_t t;

    carve_rows(w->rows, p->d, &r);
    kvg_i_load_row(p->t, a->q_gamma->data, (size_t)p->d, r.gq);
    kvg_i_load_row(p->t, a->k_gamma->data, (size_t)p->d, r.gk);
    for (t = 0; t < p->tokens; t++)
        run_token(a, p, t, &r);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_qkv_rms_norm_rope_cache_args args_t;

static kvg_status e_check(const void *a, void *p, kvg_diag *diag)
{
    return kvg_i_qkv_rms_norm_rope_cache_check_args(
        (const args_t *)a, (kvg_i_qkv_rms_norm_rope_cache_plan *)p, diag);
}

/* Written: q_out, the caches and the before-quant outputs. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {
        {"qkv", a->qkv, 0},
        {"q_gamma", a->q_gamma, 0},
        {"k_gamma", a->k_gamma, 0},
        {"cos", a->cos, 0},
        {"sin", a->sin, 0},
        {"index", a->index, 0},
        {"k_scale", a->k_scale, 0},
        {"v_scale", a->v_scale, 0},
        {"k_offset", a->k_offset, 0},
        {"v_offset", a->v_offset, 0},
        {"q_out", a->q_out, 1},
        {"k_cache", a->k_cache, 1},
        {"v_cache", a->v_cache, 1},
        {"q_out_before_quant", a->q_out_before_quant, 1},
        {"k_out_before_quant", a->k_out_before_quant, 1},
        {"v_out_before_quant", a->v_out_before_quant, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

static void e_carve(const void *p, kvg_i_ws *ws, void *w)
{
    kvg_i_qkv_rms_norm_rope_cache_ws_carve(
        (const kvg_i_qkv_rms_norm_rope_cache_plan *)p, ws,
        (kvg_i_qkv_rms_norm_rope_cache_ws *)w);
}

static kvg_status e_values(const void *a, const void *p, void *w,
                           kvg_diag *diag)
{
    return kvg_i_qkv_rms_norm_rope_cache_check_index(
        (const args_t *)a, (const kvg_i_qkv_rms_norm_rope_cache_plan *)p,
        ((kvg_i_qkv_rms_norm_rope_cache_ws *)w)->keys, diag);
}

static void e_compute(const void *a, const void *p, void *w)
{
    compute((const args_t *)a, (const kvg_i_qkv_rms_norm_rope_cache_plan *)p,
            (const kvg_i_qkv_rms_norm_rope_cache_ws *)w);
}

KVG_I_ENTRY_POINTS(qkv_rms_norm_rope_cache, kvg_i_qkv_rms_norm_rope_cache_plan,
                   kvg_i_qkv_rms_norm_rope_cache_ws);
