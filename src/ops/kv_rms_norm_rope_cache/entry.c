/*
 * src/ops/kv_rms_norm_rope_cache/entry.c - KvRmsNormRopeCache: the entry
 * points (through the entry skeleton, src/common/entry.h) and the per-token
 * compute (the checks are in check.c).
 *
 * Tokens are processed in order t = b*Skv + s, but the order is not part of
 * the contract: validation has refused every input in which two tokens
 * write the same cache row, so the result does not depend on it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/dtype_size.h"
#include "src/common/entry.h"
#include "src/kernels/kernels.h"
#include "src/ops/kv_rms_norm_rope_cache/internal.h"

void kvg_kv_rms_norm_rope_cache_args_init(kvg_kv_rms_norm_rope_cache_args *a)
{
    if (a == NULL)
        return;
    memset(a, 0, sizeof *a);
    a->epsilon = 1e-5;
    a->cache_mode = KVG_CACHE_NORM;
    a->is_output_kv = 0;
    a->profile = KVG_KV_PROFILE_ASCEND950;
    a->reduce_order = KVG_REDUCE_PAIRWISE;
    a->quant_overflow = KVG_OVF_DEFAULT;
}

/* ---- compute ------------------------------------------------------------ */

static void load_f32(const kvg_tensor *t, float *dst)
{
    if (t != NULL)
        memcpy(dst, t->data, (size_t)kvg_i_numel(t) * sizeof(float));
}

int kvg_i_kv_rms_norm_rope_cache_target(
    const kvg_kv_rms_norm_rope_cache_args *a,
    const kvg_i_kv_rms_norm_rope_cache_plan *p, int64_t b, int64_t s,
    kvg_cache_coord *at)
{
    int64_t v;
    memset(at, 0, sizeof *at);
    if (a->cache_mode == KVG_CACHE_NORM) {
        v = kvg_i_index_at(a->index, b * p->skv + s);
        at->block = b;
        at->slot = v;
    } else if (kvg_i_kv_rms_norm_rope_cache_is_blk(a->cache_mode)) {
        /* index gives the block's first slot; only v / BS is used and the
         * block's tokens fill its slots from 0 in sequence order */
        v = kvg_i_index_at(a->index, b * p->nb + s / p->bs);
        at->block = v / p->bs;
        at->slot = s % p->bs;
    } else {
        v = kvg_i_index_at(a->index, b * p->skv + s);
        at->block = v / p->bs;
        at->slot = v % p->bs;
    }
    return v >= 0;
}

/* Where the row of cache coordinate `at` starts (its channel 0). */
static unsigned char *row_start(const kvg_tensor *cache,
                                const kvg_cache_layout *l, kvg_cache_coord at)
{
    at.channel = 0;
    return (unsigned char *)cache->data +
           (size_t)kvg_layout_offset(l, &at) * kvg_i_dtype_size(cache->dtype);
}

/* Where a row is encoded: in ND / BNSD the row is contiguous in the cache,
 * so it is encoded in place; in NZ into `buf`, then scattered. */
static unsigned char *encode_target(const kvg_cache_layout *l,
                                    unsigned char *dst, unsigned char *buf)
{
    return l->kind == KVG_LAYOUT_NZ ? buf : dst;
}

/* Copy an NZ row from `buf` into its slot in runs of C0 channels: run
 * c/C0 + 1 starts BS*C0 elements after run c/C0 (the next C0 group of the
 * same block and slot), so the runs follow at that stride instead of each
 * being placed by kvg_layout_offset. Nothing to do in ND / BNSD. */
static void scatter_nz(const kvg_tensor *cache, const kvg_cache_layout *l,
                       unsigned char *dst, const unsigned char *buf)
{
    const size_t es = kvg_i_dtype_size(cache->dtype);

    if (l->kind != KVG_LAYOUT_NZ)
        return;
    kvg_i_copy_runs(dst, (size_t)(l->slots * l->c0) * es, buf,
                    (size_t)l->c0 * es, (size_t)(l->dim / l->c0));
}

/* Encode a binary32 row for a cache: quantised (multiply by the scale,
 * then add the offset, then narrow) or rounded to T. */
static void encode_row(const kvg_i_kv_rms_norm_rope_cache_plan *p,
                       const kvg_tensor *cache, int quant, const float *x,
                       size_t n, const float *scale, int64_t scale_n,
                       const float *offset, int64_t offset_n, kvg_overflow ovf,
                       unsigned char *dst)
{
    if (!quant) {
        kvg_i_store_row(p->t, x, n, KVG_OVF_DEFAULT, dst);
        return;
    }
    kvg_i_quantize_row(x, n, scale, scale_n == 1 ? 0 : 1,
                       offset_n ? offset : NULL, offset_n == 1 ? 0 : 1,
                       KVG_I_SCALE_MUL, cache->dtype, ovf, dst);
}

/* The c_kv row of a token whose normalised row is not an output: RmsNorm
 * and the cache's encoding in one kernel (the same bits as kvg_i_rms_norm
 * then encode_row, without the normalised row in between). */
static void encode_norm_row(const kvg_kv_rms_norm_rope_cache_args *a,
                            const kvg_i_kv_rms_norm_rope_cache_plan *p,
                            const kvg_i_kv_rms_norm_rope_cache_ws *w,
                            float rms, unsigned char *dst)
{
    if (!p->cquant) {
        kvg_i_norm_quantize_row(w->xv, (size_t)p->dv, rms, w->gamma, NULL, 0,
                                NULL, 0, p->t, KVG_OVF_DEFAULT, dst);
        return;
    }
    kvg_i_norm_quantize_row(w->xv, (size_t)p->dv, rms, w->gamma, w->cscale,
                            p->cscale_n == 1 ? 0 : 1,
                            p->coff_n ? w->coff : NULL,
                            p->coff_n == 1 ? 0 : 1, a->ckv_cache->dtype,
                            a->quant_overflow, dst);
}

static void token(const kvg_kv_rms_norm_rope_cache_args *a,
                  const kvg_i_kv_rms_norm_rope_cache_plan *p,
                  const kvg_i_kv_rms_norm_rope_cache_ws *w, int64_t b,
                  int64_t s)
{
    const size_t es = kvg_i_dtype_size(p->t);
    const int64_t t = b * p->skv + s, d = p->dv + p->dk;
    const int64_t crow = b * p->srope + (p->srope == 1 ? 0 : s);
    const unsigned char *kv = (const unsigned char *)a->kv->data +
                              (size_t)(t * d) * es;
    kvg_cache_coord at;
    const int cached = kvg_i_kv_rms_norm_rope_cache_target(a, p, b, s, &at);
    unsigned char *kdst, *cdst;
    float rms;

    /* a skipped token with no outputs computes nothing */
    if (!cached && !p->out_kv)
        return;
    rms = kvg_i_load_rms_of(p->t, kv, (size_t)p->dv, p->eps, a->reduce_order,
                            w->scratch, w->xv);
    kvg_i_load_row(p->t, kv + (size_t)p->dv * es, (size_t)p->dk, w->xr);
    kvg_i_load_row(p->t, (const unsigned char *)a->cos->data +
                             (size_t)(crow * p->dk) * es, (size_t)p->dk,
                   w->cos);
    kvg_i_load_row(p->t, (const unsigned char *)a->sin->data +
                             (size_t)(crow * p->dk) * es, (size_t)p->dk,
                   w->sin);
    kvg_i_rope_interleave(w->xr, w->cos, w->sin, (size_t)p->dk, w->r);
    if (p->out_kv) {
        kvg_i_rms_apply(w->xv, w->gamma, (size_t)p->dv, rms, w->y);
        kvg_i_store_row(p->t, w->r, (size_t)p->dk, KVG_OVF_DEFAULT,
                        (unsigned char *)a->k_rope->data +
                            (size_t)(t * p->dk) * es);
        kvg_i_store_row(p->t, w->y, (size_t)p->dv, KVG_OVF_DEFAULT,
                        (unsigned char *)a->c_kv->data +
                            (size_t)(t * p->dv) * es);
    }
    if (!cached)
        return;
    kdst = row_start(a->k_cache, &p->klay, at);
    cdst = row_start(a->ckv_cache, &p->clay, at);
    encode_row(p, a->k_cache, p->kquant, w->r, (size_t)p->dk, w->kscale,
               p->kscale_n, w->koff, p->koff_n, a->quant_overflow,
               encode_target(&p->klay, kdst, w->krow));
    if (p->out_kv)
        encode_row(p, a->ckv_cache, p->cquant, w->y, (size_t)p->dv,
                   w->cscale, p->cscale_n, w->coff, p->coff_n,
                   a->quant_overflow, encode_target(&p->clay, cdst, w->crow));
    else
        encode_norm_row(a, p, w, rms, encode_target(&p->clay, cdst, w->crow));
    scatter_nz(a->k_cache, &p->klay, kdst, w->krow);
    scatter_nz(a->ckv_cache, &p->clay, cdst, w->crow);
}

/* The scale (or offset) of head n: [N, D] holds one row per head; a
 * single row ([D], N = 1) is head 0's. */
static const float *head_row(const float *q, int64_t q_n, int64_t d,
                             int64_t n)
{
    return q_n > d ? q + n * d : q;
}

/* V2, token (b, s), head n: RmsNorm over the whole kv row, RoPE over its
 * first dr normalised channels (still binary32), the K row is the rotated
 * channels followed by the rest; v goes to ckv_cache unchanged or
 * quantised from its widened values. */
static void token_v2(const kvg_kv_rms_norm_rope_cache_args *a,
                     const kvg_i_kv_rms_norm_rope_cache_plan *p,
                     const kvg_i_kv_rms_norm_rope_cache_ws *w, int64_t b,
                     int64_t n, int64_t s)
{
    const size_t es = kvg_i_dtype_size(p->t);
    const int64_t row = (b * p->nh + n) * p->skv + s;
    const int64_t crow =
        (b * p->nh + n) * p->srope + (p->srope == 1 ? 0 : s);
    const unsigned char *kv = (const unsigned char *)a->kv->data +
                              (size_t)(row * p->dk) * es;
    const unsigned char *v = (const unsigned char *)a->v->data +
                             (size_t)(row * p->dv) * es;
    kvg_cache_coord at;
    const int cached = kvg_i_kv_rms_norm_rope_cache_target(a, p, b, s, &at);
    unsigned char *kdst, *cdst;
    float rms;

    if (!cached && !p->out_kv)
        return;
    at.head = n;
    rms = kvg_i_load_rms_of(p->t, kv, (size_t)p->dk, p->eps, a->reduce_order,
                            w->scratch, w->xv);
    kvg_i_rms_apply(w->xv, w->gamma, (size_t)p->dk, rms, w->y);
    kvg_i_load_row(p->t, (const unsigned char *)a->cos->data +
                             (size_t)(crow * p->dr) * es, (size_t)p->dr,
                   w->cos);
    kvg_i_load_row(p->t, (const unsigned char *)a->sin->data +
                             (size_t)(crow * p->dr) * es, (size_t)p->dr,
                   w->sin);
    kvg_i_rope_interleave(w->y, w->cos, w->sin, (size_t)p->dr, w->r);
    memcpy(w->y, w->r, (size_t)p->dr * sizeof(float));
    if (p->out_kv) {
        kvg_i_store_row(p->t, w->y, (size_t)p->dk, KVG_OVF_DEFAULT,
                        (unsigned char *)a->k_rope->data +
                            (size_t)(row * p->dk) * es);
        memcpy((unsigned char *)a->c_kv->data + (size_t)(row * p->dv) * es, v,
               (size_t)p->dv * es);
    }
    if (!cached)
        return;
    kdst = row_start(a->k_cache, &p->klay, at);
    cdst = row_start(a->ckv_cache, &p->clay, at);
    encode_row(p, a->k_cache, p->kquant, w->y, (size_t)p->dk,
               head_row(w->kscale, p->kscale_n, p->dk, n), p->kscale_n,
               head_row(w->koff, p->koff_n, p->dk, n), p->koff_n,
               a->quant_overflow, encode_target(&p->klay, kdst, w->krow));
    if (p->cquant) {
        kvg_i_load_row(p->t, v, (size_t)p->dv, w->vrow);
        encode_row(p, a->ckv_cache, 1, w->vrow, (size_t)p->dv,
                   head_row(w->cscale, p->cscale_n, p->dv, n), p->cscale_n,
                   head_row(w->coff, p->coff_n, p->dv, n), p->coff_n,
                   a->quant_overflow, encode_target(&p->clay, cdst, w->crow));
    } else {
        memcpy(encode_target(&p->clay, cdst, w->crow), v, (size_t)p->dv * es);
    }
    scatter_nz(a->k_cache, &p->klay, kdst, w->krow);
    scatter_nz(a->ckv_cache, &p->clay, cdst, w->crow);
}

/* Validation is complete: from here on every byte written is final. */
static void compute(const kvg_kv_rms_norm_rope_cache_args *a,
                    const kvg_i_kv_rms_norm_rope_cache_plan *p,
                    const kvg_i_kv_rms_norm_rope_cache_ws *w)
{
    int64_t b, n, s;

    kvg_i_load_row(p->t, a->gamma->data, (size_t)(p->v2 ? p->dk : p->dv),
                   w->gamma);
    load_f32(a->k_rope_scale, w->kscale);
    load_f32(a->k_rope_offset, w->koff);
    load_f32(a->c_kv_scale, w->cscale);
    load_f32(a->c_kv_offset, w->coff);
    if (p->v2) {
        for (b = 0; b < p->bkv; b++)
            for (n = 0; n < p->nh; n++)
                for (s = 0; s < p->skv; s++)
                    token_v2(a, p, w, b, n, s);
        return;
    }
    for (b = 0; b < p->bkv; b++)
        for (s = 0; s < p->skv; s++)
            token(a, p, w, b, s);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_kv_rms_norm_rope_cache_args args_t;

static kvg_status e_check(const void *a, void *p, kvg_diag *diag)
{
    return kvg_i_kv_rms_norm_rope_cache_check_args(
        (const args_t *)a, (kvg_i_kv_rms_norm_rope_cache_plan *)p, diag);
}

static size_t e_spans(const void *a, const void *p, kvg_i_span *s)
{
    (void)p;
    return kvg_i_kv_rms_norm_rope_cache_spans((const args_t *)a, s);
}

static void e_carve(const void *p, kvg_i_ws *ws, void *w)
{
    kvg_i_kv_rms_norm_rope_cache_ws_carve(
        (const kvg_i_kv_rms_norm_rope_cache_plan *)p, ws,
        (kvg_i_kv_rms_norm_rope_cache_ws *)w);
}

static kvg_status e_values(const void *a, const void *p, void *w,
                           kvg_diag *diag)
{
    KVG_TRY(
        kvg_i_kv_rms_norm_rope_cache_check_finite((const args_t *)a, diag));
    return kvg_i_kv_rms_norm_rope_cache_check_index(
        (const args_t *)a, (const kvg_i_kv_rms_norm_rope_cache_plan *)p,
        ((kvg_i_kv_rms_norm_rope_cache_ws *)w)->keys, diag);
}

static void e_compute(const void *a, const void *p, void *w)
{
    compute((const args_t *)a, (const kvg_i_kv_rms_norm_rope_cache_plan *)p,
            (const kvg_i_kv_rms_norm_rope_cache_ws *)w);
}

KVG_I_ENTRY_POINTS(kv_rms_norm_rope_cache, kvg_i_kv_rms_norm_rope_cache_plan,
                   kvg_i_kv_rms_norm_rope_cache_ws);
