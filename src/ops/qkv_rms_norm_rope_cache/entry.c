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

/* The scratch of the compute step, carved from the workspace. */
typedef struct rows {
    float *cs, *sn;     /* the token's cos and sin rows (D floats each) */
    float *gq, *gk;     /* gammas, widened once */
    float *sq;          /* sum-of-squares scratch of the other orders */
    float *q, *k, *v;   /* the token's heads in binary32, D floats each */
    float *enc;         /* one cache's rows of the token, encoded */
    float *copies;      /* misaligned scale / offset tensors, copied */
    /* the quantisation rows of every head, as floats (NULL: none) */
    const float *k_scale, *v_scale, *k_offset, *v_offset;
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

static void carve_rows(const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                       float *base, rows *r)
{
    const size_t d = (size_t)p->d;
    const size_t wide = (size_t)(p->nk > p->nv ? p->nk : p->nv);

    r->cs = base, base += d;
    r->sn = base, base += d;
    r->gq = base, base += d;
    r->gk = base, base += d;
    r->sq = base, base += d;
    r->q = base, base += (size_t)p->nq * d;
    r->k = base, base += (size_t)p->nk * d;
    r->v = base, base += (size_t)p->nv * d;
    r->enc = base, base += wide * d;
    r->copies = base;
}

/* A fp32 [heads, D] tensor as floats: in place when it is aligned for
 * float (the usual case), else copied once to `*copy`, which advances. */
static const float *f32_rows(const kvg_tensor *t, int64_t heads, int64_t d,
                             float **copy)
{
    const size_t n = (size_t)(heads * d);
    float *to = *copy;

    if (t == NULL)
        return NULL;
    if ((uintptr_t)t->data % sizeof(float) == 0)
        return (const float *)t->data;
    memcpy(to, t->data, n * sizeof(float));
    *copy = to + n;
    return to;
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
 * Write the token's `heads` rows of D values `val` (with `slot`) into an NZ
 * cache: quantised (int8, z = val / scale (+ offset), then RNE and
 * saturation) or narrowed to T. The rows are encoded together into r->enc
 * (the scale and offset tensors are [heads, D], as the rows are), then each
 * is copied in runs of C0 channels: the first run is placed by
 * kvg_layout_offset, and run k + 1 lies BlockSize*C0 elements after run k
 * (the next C0 group of the same block and slot).
 */
static void write_cache(const kvg_qkv_rms_norm_rope_cache_args *a,
                        const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                        const kvg_tensor *cache, int64_t heads,
                        const float *scale, const float *offset,
                        int64_t slot, const float *val, const rows *r)
{
    const int quant = cache->dtype == KVG_INT8;
    const size_t esize = kvg_dtype_size(cache->dtype);
    const unsigned char *src = (const unsigned char *)r->enc;
    kvg_cache_layout lay;
    kvg_cache_coord at;
    size_t run, stride;
    int64_t h;

    kvg_i_qkv_rms_norm_rope_cache_cache_layout(p, cache, heads, &lay);
    kvg_i_quantize_row(val, (size_t)(heads * p->d), quant ? scale : NULL, 1,
                       quant ? offset : NULL, 1, KVG_I_SCALE_DIV,
                       cache->dtype, a->overflow, r->enc);
    at.block = slot / p->bs;
    at.slot = slot % p->bs;
    at.channel = 0;
    run = (size_t)lay.c0 * esize;
    stride = (size_t)(lay.slots * lay.c0) * esize;
    for (h = 0; h < heads; h++) {
        at.head = h;
        kvg_i_copy_runs((unsigned char *)cache->data +
                            (size_t)kvg_layout_offset(&lay, &at) * esize,
                        stride, src + (size_t)(h * p->d) * esize, run,
                        (size_t)(p->d / lay.c0));
    }
}

/* Row `row` of a 2-D output `width` elements wide, from `val`. */
static void store(const kvg_qkv_rms_norm_rope_cache_args *a,
                  const kvg_tensor *t, int64_t row, int64_t width,
                  const float *val)
{
    kvg_i_store_row(t->dtype, val, (size_t)width, a->overflow,
                    elem(t, row, width, 0));
}

/* The heads kernel's job for `heads` heads of token t from column `col`
 * of qkv into `out` (q_out narrowed on the way when `narrow_to`). */
static void heads_job(const kvg_qkv_rms_norm_rope_cache_args *a,
                      const kvg_i_qkv_rms_norm_rope_cache_plan *p, int64_t t,
                      int64_t col, int64_t heads, const float *gamma,
                      const rows *r, float *out, void *narrow_to)
{
    kvg_i_heads128 job;

    job.dtype = p->t;
    job.src = elem(a->qkv, t, p->n * p->d, col);
    job.src_end = (const unsigned char *)a->qkv->data + a->qkv->nbytes;
    job.heads = (size_t)heads;
    job.eps = p->eps;
    job.order = a->reduce_order;
    job.gamma = gamma;
    job.cos_row = r->cs;
    job.sin_row = r->sn;
    job.scratch = r->sq;
    job.out = out;
    job.narrow_to = narrow_to;
    job.overflow = a->overflow;
    kvg_i_norm_rope_half_heads128(&job);
}

/* One token: the q and k heads normalised and rotated, the v heads
 * widened, each group in one call (a head of D = 128 is too short to pay
 * for calls of its own: docs/performance.md), then stored. */
static void run_token(const kvg_qkv_rms_norm_rope_cache_args *a,
                      const kvg_i_qkv_rms_norm_rope_cache_plan *p, int64_t t,
                      const rows *r)
{
    const int64_t d = p->d, width = p->n * d;
    const int64_t slot = kvg_i_index_at(a->index, t);

    /* cos/sin are [B*S, D] or [B, D] with S == 1: row t either way. */
    kvg_i_load_row(p->t, elem(a->cos, t, d, 0), (size_t)d, r->cs);
    kvg_i_load_row(p->t, elem(a->sin, t, d, 0), (size_t)d, r->sn);
    heads_job(a, p, t, 0, p->nq, r->gq, r, r->q,
              elem(a->q_out, t, p->nq * d, 0));
    heads_job(a, p, t, p->nq * d, p->nk, r->gk, r, r->k, NULL);
    kvg_i_load_row(p->t, elem(a->qkv, t, width, (p->nq + p->nk) * d),
                   (size_t)(p->nv * d), r->v);
    if (p->before) {
        store(a, a->q_out_before_quant, t, p->nq * d, r->q);
        store(a, a->k_out_before_quant, t, p->nk * d, r->k);
        store(a, a->v_out_before_quant, t, p->nv * d, r->v);
    }
    if (slot < 0)
        return;
    write_cache(a, p, a->k_cache, p->nk, r->k_scale, r->k_offset, slot, r->k,
                r);
    write_cache(a, p, a->v_cache, p->nv, r->v_scale, r->v_offset, slot, r->v,
                r);
}

/* Validation is complete: from here on every byte written is final. */
static void compute(const kvg_qkv_rms_norm_rope_cache_args *a,
                    const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                    const kvg_i_qkv_rms_norm_rope_cache_ws *w)
{
    rows r;
    float *copy;
    int64_t t;

    carve_rows(p, w->rows, &r);
    copy = r.copies;
    r.k_scale = f32_rows(a->k_scale, p->nk, p->d, &copy);
    r.v_scale = f32_rows(a->v_scale, p->nv, p->d, &copy);
    r.k_offset = f32_rows(a->k_offset, p->nk, p->d, &copy);
    r.v_offset = f32_rows(a->v_offset, p->nv, p->d, &copy);
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
