/*
 * tests/test_kv_rms_norm_rope_cache.c - KvRmsNormRopeCache in C.
 *
 * 1. Validation: one entry per rule. Each starts from a valid call (proved
 *    valid by kvg_kv_rms_norm_rope_cache_workspace_size), breaks one thing,
 *    and requires the status, the tensor named in the diag, a message
 *    fragment, and caches and outputs byte-identical to their poisoned
 *    state afterwards.
 * 2. First principles: values worked out by hand (exact binary fractions;
 *    fp16 / bf16 / int8 / fp8 / hif8 codes written out in hex), and the
 *    cache addressing of every mode checked against the spec's formulas,
 *    written out here, over whole cache images: every byte not addressed
 *    must keep its poison.
 * The NumPy generator's vectors are checked by test_vectors.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/kv_rms_norm_rope_cache.h"

/* ---- fixture ------------------------------------------------------------ */

typedef struct cfg {
    kvg_dtype t, kdt, cdt;
    kvg_cache_mode mode;
    kvg_kv_profile profile;
    int64_t b, s, dv, dk, srope, bs, nblocks, bcache, scache;
    int64_t c_scache, c_nblocks, c_bs; /* ckv cache dims when they differ */
    int kscale, cscale, koff, coff;    /* 0 none, 1 [D], 2 [1, D], 3 [1] */
    int out;
    int64_t kv_extra; /* kv channels beyond Dv + Dk */
} cfg;

enum { W_KC, W_CC, W_KR, W_CR, W_N };

typedef struct fx {
    cfg c;
    kvg_tensor kv, gamma, cos, sin, index, kc, cc, ks, cs, ko, co, kr, cr;
    kvg_kv_rms_norm_rope_cache_args a;
    void *ws;
    size_t ws_size;
    unsigned char *snap[W_N];
    void *owned[13]; /* what fx_build allocated (breaks may repoint data) */
    size_t owned_n[13];
    unsigned char *all[13]; /* snapshot of every owned buffer */
} fx;

static kvg_tensor *tensor_at(fx *f, int i)
{
    kvg_tensor *const t[13] = {&f->kv, &f->gamma, &f->cos, &f->sin,
                               &f->index, &f->kc, &f->cc, &f->ks, &f->cs,
                               &f->ko, &f->co, &f->kr, &f->cr};
    return t[i];
}

static int is_blk(kvg_cache_mode m)
{
    return m == KVG_CACHE_PA_BLK_BNSD || m == KVG_CACHE_PA_BLK_NZ;
}

static int64_t nb_of(const cfg *c) { return (c->s + c->bs - 1) / c->bs; }

static int64_t numel(const kvg_tensor *t)
{
    return (int64_t)(t->nbytes / kvg_dtype_size(t->dtype));
}

/* Seeded finite values of magnitude in [lo, 2], encoded to the tensor's
 * dtype (these are inputs, not expected values). */
static void fill_values(kvg_tensor *t, uint64_t seed, float lo)
{
    const size_t es = kvg_dtype_size(t->dtype);
    const int64_t n = numel(t);
    kvgt_rng rng;
    int64_t i;
    kvgt_rng_seed(&rng, seed);
    for (i = 0; i < n; i++) {
        float v = kvgt_rng_unit(&rng) * 2.0f;
        if (fabsf(v) < lo)
            v = v < 0 ? -lo : lo;
        (void)kvg_encode_f32(t->dtype, v, KVG_OVF_DEFAULT,
                             (unsigned char *)t->data + (size_t)i * es);
    }
}

static void set_i64(kvg_tensor *t, int64_t i, int64_t v)
{
    memcpy((unsigned char *)t->data + (size_t)i * 8, &v, 8);
}

/* A legal index: distinct targets; entry 1 negative. */
static void fill_index(fx *f)
{
    const cfg *c = &f->c;
    const int64_t n = numel(&f->index);
    int64_t i, v;
    for (i = 0; i < n; i++) {
        if (c->mode == KVG_CACHE_NORM)
            v = (i % c->s + i / c->s) % c->scache;
        else if (is_blk(c->mode))
            v = i * c->bs + i % c->bs; /* page i, any remainder */
        else
            v = (i * 5 + 3) % (c->nblocks * c->bs);
        set_i64(&f->index, i, i == 1 ? -1 : v);
    }
}

static kvg_tensor qparam(int form, int64_t d, uint64_t seed, int offset)
{
    int64_t shape[2];
    kvg_tensor t;
    int64_t i;
    if (form == 0) {
        memset(&t, 0, sizeof t);
        return t;
    }
    shape[0] = form == 1 ? d : 1; /* [D], [1, D] or [1] */
    shape[1] = d;
    t = kvgt_tensor_new(KVG_FP32, form == 2 ? 2 : 1, shape, seed);
    for (i = 0; i < numel(&t); i++) {
        float v = offset ? (float)(i % 7) - 3.25f : 0.5f + (float)(i % 5);
        memcpy((unsigned char *)t.data + i * 4, &v, 4);
    }
    return t;
}

static void cfg_default(cfg *c)
{
    memset(c, 0, sizeof *c);
    c->t = c->kdt = c->cdt = KVG_BF16;
    c->mode = KVG_CACHE_PA_BNSD;
    c->profile = KVG_KV_PROFILE_ASCEND950;
    c->b = 2;
    c->s = 3;
    c->dv = 64;
    c->dk = 32;
    c->bs = 32;
    c->nblocks = 2;
    c->bcache = 2;
    c->scache = 4;
    c->out = 1;
}

static void fx_build(fx *f, const cfg *c)
{
    int64_t sh[4];
    const int norm = c->mode == KVG_CACHE_NORM;
    const int64_t srope = c->srope ? c->srope : c->s;
    int i;

    memset(f, 0, sizeof *f);
    f->c = *c;
    sh[0] = c->b, sh[1] = 1, sh[2] = c->s, sh[3] = c->dv + c->dk + c->kv_extra;
    f->kv = kvgt_tensor_new(c->t, 4, sh, 1);
    fill_values(&f->kv, 11, 0.125f);
    sh[0] = c->dv;
    f->gamma = kvgt_tensor_new(c->t, 1, sh, 2);
    fill_values(&f->gamma, 12, 0.25f);
    sh[0] = c->b, sh[1] = 1, sh[2] = srope, sh[3] = c->dk;
    f->cos = kvgt_tensor_new(c->t, 4, sh, 3);
    fill_values(&f->cos, 13, 0.0625f);
    f->sin = kvgt_tensor_new(c->t, 4, sh, 4);
    fill_values(&f->sin, 14, 0.0625f);
    if (norm) {
        sh[0] = c->b, sh[1] = c->s;
        f->index = kvgt_tensor_new(KVG_INT64, 2, sh, 5);
    } else {
        sh[0] = c->b * (is_blk(c->mode) ? nb_of(c) : c->s);
        f->index = kvgt_tensor_new(KVG_INT64, 1, sh, 5);
    }
    fill_index(f);
    if (norm)
        sh[0] = c->bcache, sh[1] = 1, sh[2] = c->scache, sh[3] = c->dk;
    else
        sh[0] = c->nblocks, sh[1] = c->bs, sh[2] = 1, sh[3] = c->dk;
    f->kc = kvgt_tensor_new(c->kdt, 4, sh, 6);
    if (norm)
        sh[2] = c->c_scache ? c->c_scache : c->scache;
    else
        sh[0] = c->c_nblocks ? c->c_nblocks : c->nblocks,
        sh[1] = c->c_bs ? c->c_bs : c->bs;
    sh[3] = c->dv;
    f->cc = kvgt_tensor_new(c->cdt, 4, sh, 7);
    f->ks = qparam(c->kscale, c->dk, 8, 0);
    f->cs = qparam(c->cscale, c->dv, 9, 0);
    f->ko = qparam(c->koff, c->dk, 10, 1);
    f->co = qparam(c->coff, c->dv, 11, 1);
    sh[0] = c->b, sh[1] = 1, sh[2] = c->s, sh[3] = c->dk;
    f->kr = kvgt_tensor_new(c->t, 4, sh, 12);
    sh[3] = c->dv;
    f->cr = kvgt_tensor_new(c->t, 4, sh, 13);

    for (i = 0; i < 13; i++) {
        f->owned[i] = tensor_at(f, i)->data;
        f->owned_n[i] = tensor_at(f, i)->nbytes;
    }
    kvg_kv_rms_norm_rope_cache_args_init(&f->a);
    f->a.kv = &f->kv;
    f->a.gamma = &f->gamma;
    f->a.cos = &f->cos;
    f->a.sin = &f->sin;
    f->a.index = &f->index;
    f->a.k_cache = &f->kc;
    f->a.ckv_cache = &f->cc;
    f->a.k_rope_scale = c->kscale ? &f->ks : NULL;
    f->a.c_kv_scale = c->cscale ? &f->cs : NULL;
    f->a.k_rope_offset = c->koff ? &f->ko : NULL;
    f->a.c_kv_offset = c->coff ? &f->co : NULL;
    f->a.k_rope = &f->kr;
    f->a.c_kv = &f->cr;
    f->a.is_output_kv = c->out;
    f->a.cache_mode = c->mode;
    f->a.profile = c->profile;
}

/* Size the workspace of the (valid) call and allocate it poisoned. */
static void fx_workspace(fx *f)
{
    kvg_diag d;
    kvg_status st = kvg_kv_rms_norm_rope_cache_workspace_size(&f->a,
                                                              &f->ws_size, &d);
    if (st != KVG_OK)
        fail_msg("base configuration is invalid: %s", d.message);
    f->ws = kvgt_alloc_poisoned(f->ws_size, 99);
    f->a.workspace = f->ws;
    f->a.workspace_size = f->ws_size;
}

/* Tensor index (in tensor_at order) of each writable tensor. */
static const int k_writable[W_N] = {5, 6, 11, 12};

static kvg_tensor *writable(fx *f, int i) { return tensor_at(f, k_writable[i]); }

/* Copy every buffer fx_build allocated, inputs included: a refused call
 * must change none of them (and no call may change an input). */
static void fx_snapshot(fx *f)
{
    int i;
    for (i = 0; i < 13; i++) {
        f->all[i] = (unsigned char *)malloc(f->owned_n[i] + 1);
        assert_non_null(f->all[i]);
        if (f->owned[i] != NULL)
            memcpy(f->all[i], f->owned[i], f->owned_n[i]);
    }
    for (i = 0; i < W_N; i++)
        f->snap[i] = f->all[k_writable[i]];
}

static void fx_assert_untouched(fx *f)
{
    static const char *const names[13] = {
        "kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
        "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset",
        "k_rope", "c_kv"};
    int i;
    for (i = 0; i < 13; i++)
        if (f->owned[i] != NULL)
            kvgt_assert_bytes_equal(f->owned[i], f->all[i], f->owned_n[i],
                                    names[i]);
}

static void fx_free(fx *f)
{
    int i;
    for (i = 0; i < 13; i++) {
        free(f->owned[i]);
        free(f->all[i]);
    }
    free(f->ws);
}

/* ---- 1. validation ------------------------------------------------------ */

typedef struct vcase {
    void (*base)(cfg *c);   /* a valid configuration */
    void (*cbreak)(cfg *c); /* a change to it before the build, or NULL */
    void (*fbreak)(fx *f);  /* a change to the built call, or NULL */
    kvg_status status;
    const char *tensor;
    const char *fragment;
    int sizing_fails; /* workspace_size refuses it too (not a content check) */
} vcase;

/* bases */
static void b_pa(cfg *c) { cfg_default(c); } /* PA_BNSD, bf16 throughout */
static void b_pa_nz(cfg *c) /* PA_NZ, int8 K cache with scale and offset */
{
    cfg_default(c);
    c->mode = KVG_CACHE_PA_NZ;
    c->kdt = KVG_INT8;
    c->kscale = 1;
    c->koff = 1;
}
static void b_norm(cfg *c)
{
    cfg_default(c);
    c->t = c->kdt = c->cdt = KVG_FP16;
    c->mode = KVG_CACHE_NORM;
    c->dv = 24;
    c->dk = 8;
}
static void b_blk(cfg *c) /* both caches e4m3, scales [1] and [1, D] */
{
    cfg_default(c);
    c->mode = KVG_CACHE_PA_BLK_BNSD;
    c->kdt = c->cdt = KVG_FP8_E4M3FN;
    c->kscale = 3;
    c->cscale = 2;
    c->s = 40;
    c->nblocks = 4;
    c->dv = 24;
    c->dk = 8;
}
static void b_a2(cfg *c) /* DeepSeek on A2/A3: PA, int8 CKV cache */
{
    cfg_default(c);
    c->profile = KVG_KV_PROFILE_A2A3;
    c->dv = 512;
    c->dk = 64;
    c->s = 1;
    c->bs = 16;
    c->nblocks = 1;
    c->cdt = KVG_INT8;
    c->cscale = 1;
}
static void b_a2_plain(cfg *c) /* A2/A3 PA, no quantisation */
{
    b_a2(c);
    c->cdt = KVG_BF16;
    c->cscale = 0;
}

/* configuration-level breaks */
static void c_dk_odd(cfg *c) { c->dk = 7; }
static void c_kv_extra(cfg *c) { c->kv_extra = 2; }
static void c_dv64(cfg *c) { c->dv = 64; }
static void c_dk32(cfg *c) { c->dk = 32; }
static void c_c_hif8(cfg *c) { c->cdt = KVG_HIF8; c->cscale = 1; }
static void c_c_int8_noscale(cfg *c) { c->cdt = KVG_INT8; }
static void c_coff(cfg *c) { c->coff = 1; }
static void c_cscalar(cfg *c) { c->cscale = 3; }
static void c_ranks(cfg *c) { c->kdt = KVG_INT8; c->kscale = 1; c->cscale = 2; }
static void c_norm(cfg *c) { c->mode = KVG_CACHE_NORM; c->out = 0; }
static void c_norm_out(cfg *c) { c->mode = KVG_CACHE_NORM; }
static void c_bcast_nz(cfg *c)
{
    c->mode = KVG_CACHE_PA_NZ;
    c->s = 3;
    c->srope = 1;
    c->bs = 32;
}
static void c_bcast(cfg *c) { c->s = 3; c->srope = 1; }
static void c_bcache1(cfg *c) { c->bcache = 1; }
static void c_c_scache5(cfg *c) { c->c_scache = 5; }
static void c_c_nblocks3(cfg *c) { c->c_nblocks = 3; }
static void c_c_bs64(cfg *c) { c->c_bs = 64; }
static void c_bs8(cfg *c) { c->bs = 8; }
static void c_bs16_c_int8(cfg *c) { c->bs = 16; c->cdt = KVG_INT8; c->cscale = 1; }
static void c_dk16(cfg *c) { c->dk = 16; }
static void c_dv40(cfg *c) { c->dv = 40; }

/* breaks of the built call */
static void m_args_null(fx *f) { (void)f; } /* the call passes NULL */
static void m_kv_null(fx *f) { f->a.kv = NULL; }
static void m_kv_data_null(fx *f) { f->kv.data = NULL; }
static void m_gamma_null(fx *f) { f->a.gamma = NULL; }
static void m_cos_null(fx *f) { f->a.cos = NULL; }
static void m_sin_null(fx *f) { f->a.sin = NULL; }
static void m_index_null(fx *f) { f->a.index = NULL; }
static void m_kc_null(fx *f) { f->a.k_cache = NULL; }
static void m_cc_data_null(fx *f) { f->cc.data = NULL; }
static void m_kr_null(fx *f) { f->a.k_rope = NULL; }
static void m_cr_null(fx *f) { f->a.c_kv = NULL; }
static void m_ks_data_null(fx *f) { f->ks.data = NULL; }
static void m_ks_drop(fx *f) { f->a.k_rope_scale = NULL; f->a.k_rope_offset = NULL; }
static void m_mode_bad(fx *f) { f->a.cache_mode = (kvg_cache_mode)5; }
static void m_profile_bad(fx *f) { f->a.profile = (kvg_kv_profile)2; }
static void m_order_bad(fx *f) { f->a.reduce_order = (kvg_reduce_order)5; }
static void m_ovf_bad(fx *f) { f->a.quant_overflow = (kvg_overflow)3; }
static void m_eps_neg(fx *f) { f->a.epsilon = -1e-6; }
static void m_eps_nan(fx *f) { f->a.epsilon = nan(""); }
static void m_eps_huge(fx *f) { f->a.epsilon = 1e300; }
static void m_kv_nbytes(fx *f) { f->kv.nbytes -= 2; }
static void m_kv_dim0(fx *f) { f->kv.shape[0] = 0; f->kv.nbytes = 0; }
static void m_kv_rank9(fx *f) { f->kv.rank = 9; }
static void m_kv_fp32(fx *f) { f->kv.dtype = KVG_FP32; f->kv.shape[3] /= 2; }
static void m_gamma_fp16(fx *f) { f->gamma.dtype = KVG_FP16; }
static void m_sin_fp16(fx *f) { f->sin.dtype = KVG_FP16; }
static void m_index_i32(fx *f) { f->index.dtype = KVG_INT32; f->index.shape[0] *= 2; }
static void m_kc_fp16(fx *f) { f->kc.dtype = KVG_FP16; }
static void m_ks_fp16(fx *f) { f->ks.dtype = KVG_FP16; f->ks.shape[0] *= 2; }
static void m_kr_fp16(fx *f) { f->kr.dtype = KVG_FP16; }
static void m_cs_for_t_cache(fx *f) { f->a.c_kv_scale = &f->ks; }
static void m_co_for_t_cache(fx *f) { f->a.c_kv_offset = &f->ko; }
static void m_kv_rank3(fx *f) { f->kv.rank = 3; f->kv.shape[2] *= f->kv.shape[3]; }
static void m_kv_n2(fx *f) { f->kv.shape[1] = 2; f->kv.shape[0] = 1; }
static void m_gamma_rank2(fx *f) { f->gamma.rank = 2; f->gamma.shape[1] = f->gamma.shape[0] / 2; f->gamma.shape[0] = 2; }
static void m_cos_rank3(fx *f) { f->cos.rank = 3; f->cos.shape[2] *= f->cos.shape[3]; }
static void m_cos_b(fx *f) { f->cos.shape[0] = 1; f->cos.shape[2] *= 2; }
static void m_cos_n(fx *f) { f->cos.shape[1] = f->cos.shape[2]; f->cos.shape[2] = 1; }
static void m_cos_s_half(fx *f) { f->cos.shape[2] /= 2; f->cos.shape[3] *= 2; }
static void m_sin_dim3(fx *f) { f->sin.shape[3] /= 2; f->sin.shape[2] *= 2; }
static void m_kc_rank3(fx *f) { f->kc.rank = 3; f->kc.shape[2] *= f->kc.shape[3]; }
static void m_kc_n2(fx *f) { f->kc.shape[1] = 2; f->kc.shape[2] /= 2; }
static void m_kc_dim3(fx *f) { f->kc.shape[3] /= 2; f->kc.shape[2] *= 2; }
static void m_pa_kc_n2(fx *f) { f->kc.shape[2] = 2; f->kc.shape[1] /= 2; }
static void m_index_rank1(fx *f) { f->index.rank = 1; f->index.shape[0] *= f->index.shape[1]; }
static void m_index_short(fx *f) { f->index.shape[0] -= 1; f->index.nbytes -= 8; }
static void m_ks_shape(fx *f) { f->ks.rank = 2; f->ks.shape[1] = f->ks.shape[0] / 2; f->ks.shape[0] = 2; }
static void m_ko_shape(fx *f) { f->ko.shape[0] = 2; f->ko.nbytes = 8; }
static void m_cs_scalar(fx *f) { f->cs.shape[0] = 1; f->cs.nbytes = 4; }
static void m_kr_dim2(fx *f) { f->kr.shape[3] /= 2; f->kr.shape[2] *= 2; }
static void m_cr_dim0(fx *f) { f->cr.shape[0] = 1; f->cr.shape[2] *= 2; }
static void m_kc_in_cc(fx *f) { f->kc.data = (unsigned char *)f->cc.data + 100; }
static void m_kr_in_kv(fx *f) { f->kr.data = f->kv.data; }
static void m_ws_on_kv(fx *f) { f->a.workspace = f->kv.data; }
static void m_ws_null(fx *f) { f->a.workspace = NULL; }
static void m_ws_short(fx *f) { f->a.workspace_size = f->ws_size - 1; }
static void m_out_off_nan(fx *f)
{
    /* with is_output_kv off the outputs are ignored, even NULL: what is
     * refused is the NaN in kv */
    f->a.is_output_kv = 0;
    f->a.k_rope = NULL;
    f->a.c_kv = NULL;
    ((uint16_t *)f->kv.data)[5] = 0x7FC0;
}
static void m_kv_nan(fx *f) { ((uint16_t *)f->kv.data)[7] = 0x7FC1; }
static void m_gamma_inf(fx *f) { ((uint16_t *)f->gamma.data)[3] = 0x7F80; }
static void m_cos_ninf(fx *f) { ((uint16_t *)f->cos.data)[2] = 0xFF80; }
static void m_ks_nan(fx *f) { ((uint32_t *)f->ks.data)[0] = 0x7FC00000u; }
static void m_ko_inf(fx *f) { ((uint32_t *)f->ko.data)[4] = 0x7F800000u; }
/* PA_NZ base index: (5i + 3) % 64 with entry 1 = -1: [3, -1, 13, 18, 23, 28] */
static void m_pa_dup(fx *f) { set_i64(&f->index, 4, 8); set_i64(&f->index, 5, 8); }
static void m_pa_oob(fx *f) { set_i64(&f->index, 2, 64); }
static void m_pa_far(fx *f) { set_i64(&f->index, 3, -1000); set_i64(&f->index, 4, 1000); }
/* Norm base index: (i % 3 + i / 3) % 4: [[0, -1, 2], [1, 2, 3]] */
static void m_norm_dup(fx *f) { set_i64(&f->index, 5, 1); }
static void m_norm_oob(fx *f) { set_i64(&f->index, 4, 4); }
/* BLK base index, BlockSize 32, 2 blocks a sequence: [0, -1, 66, 99] */
static void m_blk_dup(fx *f) { set_i64(&f->index, 0, 65); set_i64(&f->index, 2, 95); }
static void m_blk_oob(fx *f) { set_i64(&f->index, 3, 128); }

#define V(base, cb, fb, st, tensor, frag, sz) {base, cb, fb, st, tensor, frag, sz}
#define NUL KVG_ERR_PARAM_NULLPTR
#define INV KVG_ERR_PARAM_INVALID
#define WSE KVG_ERR_WORKSPACE

static const vcase k_cases[] = {
    /* presence */
    V(b_pa_nz, NULL, m_args_null, NUL, "args", "NULL", 1),
    V(b_pa_nz, NULL, m_kv_null, NUL, "kv", "required tensor is NULL", 1),
    V(b_pa_nz, NULL, m_kv_data_null, NUL, "kv", "data pointer is NULL", 1),
    V(b_pa_nz, NULL, m_gamma_null, NUL, "gamma", "required", 1),
    V(b_pa_nz, NULL, m_cos_null, NUL, "cos", "required", 1),
    V(b_pa_nz, NULL, m_sin_null, NUL, "sin", "required", 1),
    V(b_pa_nz, NULL, m_index_null, NUL, "index", "required", 1),
    V(b_pa_nz, NULL, m_kc_null, NUL, "k_cache", "required", 1),
    V(b_pa_nz, NULL, m_cc_data_null, NUL, "ckv_cache", "data pointer", 1),
    V(b_pa_nz, NULL, m_kr_null, NUL, "k_rope", "is_output_kv", 1),
    V(b_pa_nz, NULL, m_cr_null, NUL, "c_kv", "is_output_kv", 1),
    V(b_pa_nz, NULL, m_ks_data_null, NUL, "k_rope_scale", "data pointer", 1),
    V(b_pa_nz, NULL, m_ks_drop, NUL, "k_rope_scale", "k_cache is int8", 1),
    V(b_pa_nz, c_c_int8_noscale, NULL, NUL, "c_kv_scale", "561002", 1),
    /* attributes */
    V(b_pa_nz, NULL, m_mode_bad, INV, "cache_mode", "not a kvg_cache_mode", 1),
    V(b_pa_nz, NULL, m_profile_bad, INV, "profile", "not a kvg_kv_profile", 1),
    V(b_pa_nz, NULL, m_order_bad, INV, "reduce_order", "not a kvg_reduce_order", 1),
    V(b_pa_nz, NULL, m_ovf_bad, INV, "quant_overflow", "not a kvg_overflow", 1),
    V(b_pa_nz, NULL, m_eps_neg, INV, "epsilon", ">= 0", 1),
    V(b_pa_nz, NULL, m_eps_nan, INV, "epsilon", "finite", 1),
    V(b_pa_nz, NULL, m_eps_huge, INV, "epsilon", "as a float", 1),
    /* buffers */
    V(b_pa_nz, NULL, m_kv_nbytes, INV, "kv", "needs", 1),
    V(b_pa_nz, NULL, m_kv_dim0, INV, "kv", "empty tensors", 1),
    V(b_pa_nz, NULL, m_kv_rank9, INV, "kv", "rank 9", 1),
    /* dtypes */
    V(b_pa_nz, NULL, m_kv_fp32, INV, "kv", "fp16 or bf16, got fp32", 1),
    V(b_pa_nz, NULL, m_gamma_fp16, INV, "gamma", "must be bf16, got fp16", 1),
    V(b_pa_nz, NULL, m_sin_fp16, INV, "sin", "share the dtype of kv", 1),
    V(b_pa_nz, NULL, m_index_i32, INV, "index", "must be int64, got int32", 1),
    V(b_pa, NULL, m_kc_fp16, INV, "k_cache", "bf16 (the dtype of kv) or one of int8, hif8", 1),
    V(b_pa_nz, c_c_hif8, NULL, INV, "ckv_cache", "share one dtype", 1),
    V(b_pa_nz, NULL, m_ks_fp16, INV, "k_rope_scale", "must be fp32", 1),
    V(b_pa_nz, NULL, m_kr_fp16, INV, "k_rope", "dtype of kv", 1),
    V(b_a2, c_c_hif8, NULL, INV, "ckv_cache", "int8 only", 1),
    /* quantisation inputs */
    V(b_pa_nz, NULL, m_cs_for_t_cache, INV, "c_kv_scale", "not quantised", 1),
    V(b_pa_nz, NULL, m_co_for_t_cache, INV, "c_kv_offset", "not quantised", 1),
    V(b_a2, c_coff, NULL, INV, "c_kv_offset", "ignore the offset", 1),
    /* kv, gamma, cos, sin */
    V(b_pa_nz, NULL, m_kv_rank3, INV, "kv", "rank must be 4", 1),
    V(b_pa_nz, NULL, m_kv_n2, INV, "kv", "dim 1 must be 1", 1),
    V(b_pa_nz, NULL, m_gamma_rank2, INV, "gamma", "rank must be 1", 1),
    V(b_pa_nz, NULL, m_cos_rank3, INV, "cos", "rank must be 4", 1),
    V(b_pa_nz, NULL, m_cos_b, INV, "cos", "dim 0 must be 2 (Bkv", 1),
    V(b_pa_nz, NULL, m_cos_n, INV, "cos", "dim 1 must be 1", 1),
    V(b_blk, NULL, m_cos_s_half, INV, "cos", "Skv = 40 (kv dim 2) or 1", 1),
    V(b_pa_nz, NULL, m_sin_dim3, INV, "sin", "dim 2 must be 3 (as cos)", 1),
    V(b_norm, c_dk_odd, NULL, INV, "cos", "must be even", 1),
    V(b_norm, c_kv_extra, NULL, INV, "kv", "Dv + Dk = 24 + 8 = 32", 1),
    V(b_a2, c_dv64, NULL, INV, "gamma", "must be 512 on Atlas A2/A3", 1),
    V(b_a2, c_dk32, NULL, INV, "cos", "must be 64 on Atlas A2/A3", 1),
    /* caches */
    V(b_norm, NULL, m_kc_rank3, INV, "k_cache", "rank must be 4", 1),
    V(b_norm, c_bcache1, NULL, INV, "k_cache", "at least Bkv = 2", 1),
    V(b_norm, NULL, m_kc_n2, INV, "k_cache", "dim 1 must be 1", 1),
    V(b_norm, c_c_scache5, NULL, INV, "ckv_cache", "Scache, k_cache dim 2", 1),
    V(b_norm, NULL, m_kc_dim3, INV, "k_cache", "dim 3 must be 8 (Dk", 1),
    V(b_pa_nz, c_c_nblocks3, NULL, INV, "ckv_cache", "BlockNum, k_cache dim 0", 1),
    V(b_pa_nz, c_c_bs64, NULL, INV, "ckv_cache", "BlockSize, k_cache dim 1", 1),
    V(b_pa_nz, NULL, m_pa_kc_n2, INV, "k_cache", "dim 2 must be 1", 1),
    V(b_pa, c_bs8, NULL, INV, "k_cache", "multiple of 16 (C0 of bf16", 1),
    V(b_pa, c_bs16_c_int8, NULL, INV, "ckv_cache", "multiple of 32 (C0 of int8", 1),
    V(b_pa_nz, c_dk16, NULL, INV, "k_cache", "(Dk = 16) must be a multiple of 32", 1),
    V(b_pa_nz, c_dv40, NULL, INV, "ckv_cache", "(Dv = 40) must be a multiple of 16", 1),
    /* index shape */
    V(b_norm, NULL, m_index_rank1, INV, "index", "rank must be 2", 1),
    V(b_pa_nz, NULL, m_index_short, INV, "index", "Bkv * Skv", 1),
    V(b_blk, NULL, m_index_short, INV, "index", "ceil(Skv / BlockSize)", 1),
    /* scale / offset shapes */
    V(b_pa_nz, NULL, m_ks_shape, INV, "k_rope_scale", "[32], [1, 32] or [1]", 1),
    V(b_pa_nz, NULL, m_ko_shape, INV, "k_rope_offset", "[32], [1, 32] or [1]", 1),
    V(b_a2, c_cscalar, NULL, INV, "c_kv_scale", "no scalar scale", 1),
    V(b_a2, NULL, m_cs_scalar, INV, "c_kv_scale", "[512] or [1, 512]", 1),
    V(b_a2, c_ranks, NULL, INV, "c_kv_scale", "rank 2 differs", 1),
    /* outputs */
    V(b_pa_nz, NULL, m_kr_dim2, INV, "k_rope", "dim 2 must be 3 (Skv)", 1),
    V(b_pa_nz, NULL, m_cr_dim0, INV, "c_kv", "dim 0 must be 2 (Bkv)", 1),
    /* Atlas A2/A3 combinations */
    V(b_a2, c_norm, NULL, INV, "c_kv_scale", "do not quantise in Norm", 1),
    V(b_a2_plain, c_norm_out, NULL, INV, "is_output_kv", "never write k_rope", 1),
    V(b_a2, c_bcast_nz, NULL, INV, "cos", "read cos per token", 1),
    V(b_a2_plain, c_bcast, NULL, INV, "cos", "broadcasts one row", 1),
    /* overlaps and workspace */
    V(b_pa_nz, NULL, m_kc_in_cc, INV, "k_cache", "overlaps ckv_cache", 1),
    V(b_pa_nz, NULL, m_kr_in_kv, INV, "k_rope", "overlaps kv", 1),
    V(b_pa_nz, NULL, m_ws_on_kv, INV, "workspace", "overlaps kv", 0),
    V(b_pa_nz, NULL, m_ws_null, WSE, "workspace", "NULL", 0),
    V(b_pa_nz, NULL, m_ws_short, WSE, "workspace", "needed", 0),
    /* contents: inf / NaN */
    V(b_pa_nz, NULL, m_kv_nan, INV, "kv", "element 7 ([0, 0, 0, 7] of [2, 1, 3, 96]) is NaN", 0),
    V(b_pa_nz, NULL, m_out_off_nan, INV, "kv", "element 5", 0),
    V(b_pa_nz, NULL, m_gamma_inf, INV, "gamma", "is inf", 0),
    V(b_blk, NULL, m_cos_ninf, INV, "cos", "is inf", 0),
    V(b_pa_nz, NULL, m_ks_nan, INV, "k_rope_scale", "element 0", 0),
    V(b_pa_nz, NULL, m_ko_inf, INV, "k_rope_offset", "element 4", 0),
    /* contents: index values */
    V(b_pa_nz, NULL, m_pa_dup, INV, "index", "tokens 4 and 5 both write slot 8", 0),
    V(b_pa_nz, NULL, m_pa_oob, INV, "index", "slot 64, outside [0, 64)", 0),
    V(b_pa_nz, NULL, m_pa_far, INV, "index", "token 4 (batch 1, seq 1) has slot 1000", 0),
    V(b_norm, NULL, m_norm_dup, INV, "index", "tokens 3 and 5 (batch 1, seq 0 and 2) both write position 1", 0),
    V(b_norm, NULL, m_norm_oob, INV, "index", "position 4, outside [0, 4)", 0),
    V(b_blk, NULL, m_blk_dup, INV, "index", "entries 0 and 2 (values 65 and 95) both select block 2", 0),
    V(b_blk, NULL, m_blk_oob, INV, "index", "entry 3 (batch 1, block 1 of the sequence) is 128", 0),
};

static void run_vcase(void **state)
{
    const vcase *v = (const vcase *)*state;
    kvg_diag d;
    kvg_status st;
    size_t bytes = 0, base_ws;
    const int null_args = v->fbreak == m_args_null;
    cfg c;
    fx f;

    /* the base is valid ... */
    v->base(&c);
    fx_build(&f, &c);
    fx_workspace(&f);
    base_ws = f.ws_size;
    fx_free(&f);
    /* ... and the break alone makes it invalid */
    if (v->cbreak != NULL)
        v->cbreak(&c);
    fx_build(&f, &c);
    f.ws_size = base_ws * 2 + 4096;
    f.ws = kvgt_alloc_poisoned(f.ws_size, 98);
    f.a.workspace = f.ws;
    f.a.workspace_size = f.ws_size;
    if (v->cbreak == NULL)
        f.a.workspace_size = f.ws_size = base_ws;
    if (v->fbreak != NULL)
        v->fbreak(&f);
    fx_snapshot(&f);
    kvg_diag_clear(&d);
    st = kvg_kv_rms_norm_rope_cache(null_args ? NULL : &f.a, &d);
    if (st != v->status || strcmp(d.tensor, v->tensor) != 0 ||
        strstr(d.message, v->fragment) == NULL)
        fail_msg("got %s [%s] \"%s\"; want %s [%s] with \"%s\"",
                 kvg_status_name(st), d.tensor, d.message,
                 kvg_status_name(v->status), v->tensor, v->fragment);
    assert_int_equal(d.status, v->status);
    fx_assert_untouched(&f);
    /* the size query runs the same checks, except those on contents */
    st = kvg_kv_rms_norm_rope_cache_workspace_size(null_args ? NULL : &f.a,
                                                   &bytes, &d);
    assert_int_equal(st, v->sizing_fails ? v->status : KVG_OK);
    fx_assert_untouched(&f);
    fx_free(&f);
}

/* ---- 2. first principles ------------------------------------------------ */

/* Build a call on hand-written codes. kv rows: [2, -2, 2, -2 | 1.5, -0.5,
 * 0.25, 3] (Dv = Dk = 4), gamma [1.5, -0.25, 3, 0.5], cos [1, 0.5, 0.25, 2],
 * sin [0.5, 2, -1, 0.125], epsilon 0. Then sum x^2 = 16, mean 4, rms 2:
 *   y = (x / 2) * gamma = [1.5, 0.25, 3, -0.5]
 * RoPE, x1 = [1.5, 0.25] (even), x2 = [-0.5, 3] (odd):
 *   r0 = 1.5*1    + 0.5*0.5     =  1.75
 *   r1 = 0.25*0.5 + (-3)*2      = -5.875
 *   r2 = -0.5*0.25 + 1.5*(-1)   = -1.625
 *   r3 = 3*2      + 0.25*0.125  =  6.03125
 * (interleaved output would be [r0, r2, r1, r3]). All exact. */
static const uint16_t k_fp16_kv[8] = {0x4000, 0xC000, 0x4000, 0xC000,
                                      0x3E00, 0xB800, 0x3400, 0x4200};
static const uint16_t k_fp16_gamma[4] = {0x3E00, 0xB400, 0x4200, 0x3800};
static const uint16_t k_fp16_cos[4] = {0x3C00, 0x3800, 0x3400, 0x4000};
static const uint16_t k_fp16_sin[4] = {0x3800, 0x4000, 0xBC00, 0x3000};
static const uint16_t k_fp16_y[4] = {0x3E00, 0x3400, 0x4200, 0xB800};
static const uint16_t k_fp16_r[4] = {0x3F00, 0xC5E0, 0xBE80, 0x4608};
static const uint16_t k_bf16_kv[8] = {0x4000, 0xC000, 0x4000, 0xC000,
                                      0x3FC0, 0xBF00, 0x3E80, 0x4040};
static const uint16_t k_bf16_gamma[4] = {0x3FC0, 0xBE80, 0x4040, 0x3F00};
static const uint16_t k_bf16_cos[4] = {0x3F80, 0x3F00, 0x3E80, 0x4000};
static const uint16_t k_bf16_sin[4] = {0x3F00, 0x4000, 0xBF80, 0x3E00};
static const uint16_t k_bf16_y[4] = {0x3FC0, 0x3E80, 0x4040, 0xBF00};
static const uint16_t k_bf16_r[4] = {0x3FE0, 0xC0BC, 0xBFD0, 0x40C1};

static void put_rows(kvg_tensor *t, const uint16_t *row, size_t n)
{
    size_t i, rows = t->nbytes / (2 * n);
    for (i = 0; i < rows; i++)
        memcpy((unsigned char *)t->data + i * n * 2, row, n * 2);
}

/* A tiny call, B x S tokens, Dv = Dk = 4, the rows above. */
static void tiny(fx *f, kvg_dtype t, kvg_cache_mode mode, kvg_dtype kdt,
                 kvg_dtype cdt, int64_t b, int64_t s)
{
    cfg c;
    cfg_default(&c);
    c.t = t;
    c.kdt = kdt;
    c.cdt = cdt;
    c.mode = mode;
    c.b = b;
    c.s = s;
    c.dv = c.dk = 4;
    c.bs = 32;
    c.nblocks = 1;
    c.bcache = b;
    c.scache = 2;
    c.kscale = kvg_dtype_is_quant8(kdt) ? 1 : 0;
    c.cscale = kvg_dtype_is_quant8(cdt) ? 1 : 0;
    fx_build(f, &c);
    put_rows(&f->kv, t == KVG_FP16 ? k_fp16_kv : k_bf16_kv, 8);
    put_rows(&f->gamma, t == KVG_FP16 ? k_fp16_gamma : k_bf16_gamma, 4);
    put_rows(&f->cos, t == KVG_FP16 ? k_fp16_cos : k_bf16_cos, 4);
    put_rows(&f->sin, t == KVG_FP16 ? k_fp16_sin : k_bf16_sin, 4);
    f->a.epsilon = 0.0;
}

static void run_ok(fx *f)
{
    kvg_diag d;
    kvg_status st;
    int i;
    fx_workspace(f);
    fx_snapshot(f);
    st = kvg_kv_rms_norm_rope_cache(&f->a, &d);
    if (st != KVG_OK)
        fail_msg("%s: %s", kvg_status_name(st), d.message);
    for (i = 0; i < 13; i++) /* inputs are never written */
        if (i != 5 && i != 6 && i != 11 && i != 12 && f->owned[i] != NULL)
            kvgt_assert_bytes_equal(f->owned[i], f->all[i], f->owned_n[i],
                                    "an input");
}

/* Expected image = the snapshot with `n` bytes at byte offset `at` set. */
static void expect_bytes(unsigned char *img, size_t at, const void *v,
                         size_t n)
{
    memcpy(img + at, v, n);
}

static void assert_image(fx *f, int which, const unsigned char *img,
                         const char *what)
{
    kvg_tensor *t = writable(f, which);
    kvgt_assert_bytes_equal(t->data, img, t->nbytes, what);
}

static unsigned char *copy_snap(fx *f, int which)
{
    kvg_tensor *t = writable(f, which);
    unsigned char *img = (unsigned char *)malloc(t->nbytes);
    assert_non_null(img);
    memcpy(img, f->snap[which], t->nbytes);
    return img;
}

/* Norm, fp16: the hand values land at position 1 of batch 0 in both
 * caches, in half-split order; position 0 keeps its poison. */
static void test_hand_norm_fp16(void **state)
{
    unsigned char *kimg, *cimg;
    fx f;
    (void)state;
    tiny(&f, KVG_FP16, KVG_CACHE_NORM, KVG_FP16, KVG_FP16, 1, 1);
    set_i64(&f.index, 0, 1);
    run_ok(&f);
    kimg = copy_snap(&f, W_KC);
    cimg = copy_snap(&f, W_CC);
    expect_bytes(kimg, 1 * 4 * 2, k_fp16_r, 8); /* (b*Scache + p)*D */
    expect_bytes(cimg, 1 * 4 * 2, k_fp16_y, 8);
    assert_image(&f, W_KC, kimg, "k_cache");
    assert_image(&f, W_CC, cimg, "ckv_cache");
    kvgt_assert_bytes_equal(f.kr.data, k_fp16_r, 8, "k_rope");
    kvgt_assert_bytes_equal(f.cr.data, k_fp16_y, 8, "c_kv");
    free(kimg);
    free(cimg);
    fx_free(&f);
}

/* PA, bf16, both caches int8, asymmetric. The scale MULTIPLIES, then the
 * offset is added, then round half to even and saturate:
 *   K: scale [4, 2, 0.5, 10], offset [0.5, 0, 0.25, 100]
 *      r*s = [7, -11.75, -0.8125, 60.3125]; + o = [7.5, -11.75, -0.5625,
 *      160.3125] -> [8 (tie to even), -12, -1, 127 (saturated)]
 *      (dividing would give 1.75*... = [0.4375+.5, ...]: different codes)
 *   CKV: scale [2.5] (scalar), offset [-3] (scalar)
 *      y*2.5 = [3.75, 0.625, 7.5, -1.25]; - 3 = [0.75, -2.375, 4.5,
 *      -4.25] -> [1, -2, 4 (tie to even), -4] */
static void test_hand_quant_int8(void **state)
{
    static const float ks[4] = {4.0f, 2.0f, 0.5f, 10.0f};
    static const float ko[4] = {0.5f, 0.0f, 0.25f, 100.0f};
    static const float cs = 2.5f, co = -3.0f;
    static const int8_t kq[4] = {8, -12, -1, 127};
    static const int8_t cq[4] = {1, -2, 4, -4};
    unsigned char *kimg, *cimg;
    int64_t one = 1;
    kvg_tensor cst, cot, kot;
    fx f;
    (void)state;
    tiny(&f, KVG_BF16, KVG_CACHE_PA, KVG_INT8, KVG_INT8, 1, 2);
    memcpy(f.ks.data, ks, sizeof ks);
    kot = kvg_tensor_make((void *)ko, sizeof ko, KVG_FP32, 1, f.ks.shape);
    cst = kvg_tensor_make((void *)&cs, 4, KVG_FP32, 1, &one);
    cot = kvg_tensor_make((void *)&co, 4, KVG_FP32, 1, &one);
    f.a.k_rope_offset = &kot;
    f.a.c_kv_scale = &cst;
    f.a.c_kv_offset = &cot;
    set_i64(&f.index, 0, 5);
    set_i64(&f.index, 1, -3); /* skipped: caches untouched, outputs written */
    run_ok(&f);
    kimg = copy_snap(&f, W_KC);
    cimg = copy_snap(&f, W_CC);
    expect_bytes(kimg, 5 * 4, kq, 4); /* flat slot 5, D = 4, 1 byte each */
    expect_bytes(cimg, 5 * 4, cq, 4);
    assert_image(&f, W_KC, kimg, "k_cache");
    assert_image(&f, W_CC, cimg, "ckv_cache");
    kvgt_assert_bytes_equal(f.kr.data, k_bf16_r, 8, "k_rope token 0");
    kvgt_assert_bytes_equal((unsigned char *)f.kr.data + 8, k_bf16_r, 8,
                            "k_rope token 1 (index skipped)");
    kvgt_assert_bytes_equal((unsigned char *)f.cr.data + 8, k_bf16_y, 8,
                            "c_kv token 1 (index skipped)");
    free(kimg);
    free(cimg);
    fx_free(&f);
}

/* fp8 e4m3fn CKV cache, scale 1000 (scalar): y*1000 = [1500, 250, 3000,
 * -500]. 250 lies between 240 (0x77) and 256 (0x78): nearest 256. The
 * others overflow: saturate to +-448 (0x7E / 0xFE) by default, NaN (0x7F /
 * 0xFF, sign kept) when non-saturating. */
static void check_e4m3(kvg_overflow ovf, const uint8_t *want)
{
    static const float cs = 1000.0f;
    int64_t one = 1;
    unsigned char *cimg;
    kvg_tensor cst;
    fx f;
    tiny(&f, KVG_FP16, KVG_CACHE_PA_BNSD, KVG_FP16, KVG_FP8_E4M3FN, 1, 1);
    cst = kvg_tensor_make((void *)&cs, 4, KVG_FP32, 1, &one);
    f.a.c_kv_scale = &cst;
    f.a.quant_overflow = ovf;
    set_i64(&f.index, 0, 31);
    run_ok(&f);
    cimg = copy_snap(&f, W_CC);
    expect_bytes(cimg, 31 * 4, want, 4);
    assert_image(&f, W_CC, cimg, "ckv_cache");
    free(cimg);
    fx_free(&f);
}

static void test_hand_e4m3_overflow(void **state)
{
    static const uint8_t sat[4] = {0x7E, 0x78, 0x7E, 0xFE};
    static const uint8_t nonsat[4] = {0x7F, 0x78, 0x7F, 0xFF};
    (void)state;
    check_e4m3(KVG_OVF_DEFAULT, sat);
    check_e4m3(KVG_OVF_SATURATE, sat);
    check_e4m3(KVG_OVF_NONSAT, nonsat);
}

/* hif8 rounds half AWAY from zero. CKV scale [4.25, 4.25, 0.25, 0.25]:
 *   y1 * 4.25 = 1.0625 = 1 + 0.5/8: exponent 0 has 3 mantissa bits, so it
 *     is the tie between 1 (0x08) and 1.125 (0x09): away gives 0x09 (RNE
 *     would give 0x08);
 *   y0 * 4.25 = 6.375 = 1.59375 * 2^2: above the tie 1.5625 -> 1.625 * 4;
 *   y2 * 0.25 = 0.75 and y3 * 0.25 = -0.125: exact. */
static void test_hand_hif8_tie_away(void **state)
{
    static const float cs[4] = {4.25f, 4.25f, 0.25f, 0.25f};
    unsigned char *cimg;
    fx f;
    uint8_t got;
    (void)state;
    tiny(&f, KVG_BF16, KVG_CACHE_PA_BNSD, KVG_BF16, KVG_HIF8, 1, 1);
    memcpy(f.cs.data, cs, sizeof cs);
    set_i64(&f.index, 0, 2);
    run_ok(&f);
    cimg = copy_snap(&f, W_CC);
    got = ((const uint8_t *)f.cc.data)[2 * 4 + 1];
    assert_int_equal(got, 0x09);
    assert_true(kvg_hif8_to_f32(((const uint8_t *)f.cc.data)[2 * 4 + 3]) ==
                -0.125f);
    assert_true(kvg_hif8_to_f32(((const uint8_t *)f.cc.data)[2 * 4 + 2]) ==
                0.75f);
    assert_true(kvg_hif8_to_f32(((const uint8_t *)f.cc.data)[2 * 4 + 0]) ==
                6.5f);
    /* nothing else changed */
    memcpy(cimg + 2 * 4, (const uint8_t *)f.cc.data + 2 * 4, 4);
    assert_image(&f, W_CC, cimg, "ckv_cache");
    free(cimg);
    fx_free(&f);
}

/* cos broadcast (Srope = 1): every token of batch b uses cos[b, 0, 0, :].
 * Batch 1 gets cos = sin = 1: r = [x1 - x2, x2 + x1] = [1.5 + 0.5, 0.25 - 3,
 * -0.5 + 1.5, 3 + 0.25] = [2, -2.75, 1, 3.25]. */
static void test_hand_cos_broadcast(void **state)
{
    static const uint16_t ones[4] = {0x3C00, 0x3C00, 0x3C00, 0x3C00};
    static const uint16_t r1[4] = {0x4000, 0xC180, 0x3C00, 0x4280};
    cfg c;
    fx f;
    int t;
    (void)state;
    cfg_default(&c);
    c.t = c.kdt = c.cdt = KVG_FP16;
    c.mode = KVG_CACHE_PA_BNSD;
    c.b = 2;
    c.s = 2;
    c.srope = 1;
    c.dv = c.dk = 4;
    c.bs = 16;
    c.nblocks = 1;
    fx_build(&f, &c);
    put_rows(&f.kv, k_fp16_kv, 8);
    put_rows(&f.gamma, k_fp16_gamma, 4);
    memcpy(f.cos.data, k_fp16_cos, 8);
    memcpy(f.sin.data, k_fp16_sin, 8);
    memcpy((unsigned char *)f.cos.data + 8, ones, 8);
    memcpy((unsigned char *)f.sin.data + 8, ones, 8);
    f.a.epsilon = 0.0;
    run_ok(&f);
    for (t = 0; t < 4; t++)
        kvgt_assert_bytes_equal((unsigned char *)f.kr.data + t * 8,
                                t < 2 ? k_fp16_r : r1, 8, "k_rope row");
    fx_free(&f);
}

/* ---- addressing --------------------------------------------------------- */

/* An fp16 code for a small integer 1 <= |n| < 2048 (exact), by hand. */
static uint16_t fp16_int(int n)
{
    uint16_t sign = n < 0 ? 0x8000 : 0;
    unsigned m = (unsigned)(n < 0 ? -n : n);
    int e = 0;
    while ((m >> e) > 1)
        e++;
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) |
                      (uint16_t)(((m << 10) >> e) & 0x3FF));
}

/* Rows whose results are small distinct integers per token t:
 *   xv = 2 everywhere except -2 at channel t % Dv, gamma[c] = c + 1, eps 0:
 *        rms = 2, y[c] = +-(c + 1) (negative at channel t % Dv);
 *   xr[j] = 100 + j + 8t, cos = 2, sin = 1 (h = Dk / 2):
 *        r[j]   = 2*xr[2j]   - xr[2j+1] = 99 + 2j + 8t
 *        r[h+j] = 2*xr[2j+1] + xr[2j]   = 302 + 6j + 24t. */
static int y_of(const cfg *c, int64_t t, int64_t ch)
{
    return (int)(ch == t % c->dv ? -(ch + 1) : ch + 1);
}

static int r_of(const cfg *c, int64_t t, int64_t ch)
{
    const int64_t h = c->dk / 2;
    return (int)(ch < h ? 99 + 2 * ch + 8 * t : 302 + 6 * (ch - h) + 24 * t);
}

static void addressing_inputs(fx *f)
{
    const cfg *c = &f->c;
    uint16_t *kv = (uint16_t *)f->kv.data, *g = (uint16_t *)f->gamma.data;
    uint16_t *cs = (uint16_t *)f->cos.data, *sn = (uint16_t *)f->sin.data;
    const int64_t d = c->dv + c->dk;
    int64_t t, ch;
    for (t = 0; t < c->b * c->s; t++) {
        for (ch = 0; ch < c->dv; ch++)
            kv[t * d + ch] = fp16_int(ch == t % c->dv ? -2 : 2);
        for (ch = 0; ch < c->dk; ch++)
            kv[t * d + c->dv + ch] = fp16_int((int)(100 + ch + 8 * t));
    }
    for (ch = 0; ch < c->dv; ch++)
        g[ch] = fp16_int((int)ch + 1);
    for (ch = 0; ch < numel(&f->cos); ch++) {
        cs[ch] = fp16_int(2);
        sn[ch] = fp16_int(1);
    }
    f->a.epsilon = 0.0;
}

/* Element offset of channel ch of the row (block, slot) in a cache of
 * depth d, per the spec's table (section 3), written out per layout. */
static int64_t offset_of(const cfg *c, int nz, int64_t blk, int64_t slot,
                         int64_t d, int64_t ch)
{
    const int64_t c0 = 16; /* fp16 caches */
    if (c->mode == KVG_CACHE_NORM) /* [Bc, 1, Scache, D] */
        return (blk * c->scache + slot) * d + ch;
    if (!nz) /* flat slots [NB * BS, D] */
        return (blk * c->bs + slot) * d + ch;
    /* [NB, D / C0, BS, C0] */
    return ((blk * (d / c0) + ch / c0) * c->bs + slot) * c0 + ch % c0;
}

/* Where token (b, s) lands: page (or batch) and slot; 0 = skipped. */
static int where(const fx *f, int64_t b, int64_t s, int64_t *blk,
                 int64_t *slot)
{
    const cfg *c = &f->c;
    const int64_t *ix = (const int64_t *)f->index.data;
    int64_t v;
    if (c->mode == KVG_CACHE_NORM) {
        v = ix[b * c->s + s];
        *blk = b;
        *slot = v;
    } else if (is_blk(c->mode)) {
        v = ix[b * nb_of(c) + s / c->bs];
        *blk = v / c->bs;   /* only v / BS counts */
        *slot = s % c->bs;  /* the block fills from slot 0 */
    } else {
        v = ix[b * c->s + s];
        *blk = v / c->bs;
        *slot = v % c->bs;
    }
    return v >= 0;
}

static void check_addressing(cfg *c, const int64_t *index, size_t n)
{
    const int nz = c->mode == KVG_CACHE_PA_NZ ||
                   c->mode == KVG_CACHE_PA_BLK_NZ;
    unsigned char *kimg, *cimg;
    int64_t b, s, ch, blk, slot, written = 0;
    size_t i;
    fx f;

    c->t = c->kdt = c->cdt = KVG_FP16;
    fx_build(&f, c);
    assert_int_equal(numel(&f.index), (int64_t)n);
    for (i = 0; i < n; i++)
        set_i64(&f.index, (int64_t)i, index[i]);
    addressing_inputs(&f);
    run_ok(&f);
    kimg = copy_snap(&f, W_KC);
    cimg = copy_snap(&f, W_CC);
    for (b = 0; b < c->b; b++) {
        for (s = 0; s < c->s; s++) {
            const int64_t t = b * c->s + s;
            uint16_t code;
            for (ch = 0; ch < c->dk; ch++) { /* outputs: every token */
                code = fp16_int(r_of(c, t, ch));
                kvgt_assert_bytes_equal((uint16_t *)f.kr.data + t * c->dk + ch,
                                        &code, 2, "k_rope");
            }
            for (ch = 0; ch < c->dv; ch++) {
                code = fp16_int(y_of(c, t, ch));
                kvgt_assert_bytes_equal((uint16_t *)f.cr.data + t * c->dv + ch,
                                        &code, 2, "c_kv");
            }
            if (!where(&f, b, s, &blk, &slot))
                continue;
            written++;
            for (ch = 0; ch < c->dk; ch++) {
                code = fp16_int(r_of(c, t, ch));
                expect_bytes(kimg, (size_t)offset_of(c, nz, blk, slot, c->dk,
                                                     ch) * 2, &code, 2);
            }
            for (ch = 0; ch < c->dv; ch++) {
                code = fp16_int(y_of(c, t, ch));
                expect_bytes(cimg, (size_t)offset_of(c, nz, blk, slot, c->dv,
                                                     ch) * 2, &code, 2);
            }
        }
    }
    assert_true(written > 0);
    assert_image(&f, W_KC, kimg, "k_cache");
    assert_image(&f, W_CC, cimg, "ckv_cache");
    free(kimg);
    free(cimg);
    fx_free(&f);
}

static void addr_cfg(cfg *c, kvg_cache_mode mode)
{
    cfg_default(c);
    c->mode = mode;
    c->dv = 32;
    c->dk = 16;
    c->bs = 16;
}

/* Norm: positions repeat across batches (0 in both), -1 skips; batch 2 of
 * the cache (Bcache 3 > Bkv) is never touched. */
static void test_addr_norm(void **state)
{
    static const int64_t ix[6] = {3, 0, -1, 0, 2, 1};
    cfg c;
    (void)state;
    addr_cfg(&c, KVG_CACHE_NORM);
    c.bcache = 3;
    c.scache = 4;
    check_addressing(&c, ix, 6);
}

static void test_addr_pa(void **state)
{
    static const int64_t ix[6] = {5, -1, 0, 17, 31, 8};
    cfg c;
    (void)state;
    addr_cfg(&c, KVG_CACHE_PA);
    c.nblocks = 2;
    check_addressing(&c, ix, 6);
}

static void test_addr_pa_nz(void **state)
{
    static const int64_t ix[6] = {5, -1, 0, 17, 31, -9};
    cfg c;
    (void)state;
    addr_cfg(&c, KVG_CACHE_PA_NZ);
    c.nblocks = 2;
    check_addressing(&c, ix, 6);
}

/* BLK: Skv 20 at BlockSize 16 is 2 blocks per sequence, the second
 * partial (4 rows; the rest of its page untouched). Values 39 and 3 carry
 * remainders that must be ignored (pages 2 and 0); batch 0's second block
 * is skipped. */
static void test_addr_pa_blk_bnsd(void **state)
{
    static const int64_t ix[4] = {39, -1, 3, 48};
    cfg c;
    (void)state;
    addr_cfg(&c, KVG_CACHE_PA_BLK_BNSD);
    c.s = 20;
    c.nblocks = 4;
    check_addressing(&c, ix, 4);
}

static void test_addr_pa_blk_nz(void **state)
{
    static const int64_t ix[4] = {16, 63, -2, 32 + 15};
    cfg c;
    (void)state;
    addr_cfg(&c, KVG_CACHE_PA_BLK_NZ);
    c.s = 20;
    c.nblocks = 4;
    check_addressing(&c, ix, 4);
}

/* In NZ each cache uses the C0 of its own dtype: an int8 K cache (C0 32)
 * next to an fp16 CKV cache (C0 16). The K values are r / 8 (scale [1] =
 * 0.125), rounded half to even by hand; one token, page 1, row 7. */
static void test_addr_nz_per_cache_c0(void **state)
{
    cfg c;
    fx f;
    int64_t ch;
    (void)state;
    addr_cfg(&c, KVG_CACHE_PA_NZ);
    c.t = c.cdt = KVG_FP16;
    c.kdt = KVG_INT8;
    c.kscale = 3; /* [1] */
    c.dk = 64;
    c.dv = 32;
    c.bs = 32;
    c.nblocks = 2;
    c.b = 1;
    c.s = 1;
    fx_build(&f, &c);
    addressing_inputs(&f);
    {
        const float eighth = 0.125f;
        memcpy(f.ks.data, &eighth, 4);
    }
    set_i64(&f.index, 0, 32 + 7); /* page 1, slot 7 */
    run_ok(&f);
    for (ch = 0; ch < 64; ch++) {
        /* K: [NB, Dk/32, BS, 32] int8: ((1*2 + ch/32)*32 + 7)*32 + ch%32;
         * r/8 = (99 + 2ch)/8 or (302 + 6(ch-32))/8, rounded half even */
        const int r = ch < 32 ? 99 + 2 * (int)ch : 302 + 6 * ((int)ch - 32);
        const double z = r / 8.0;
        double q = floor(z + 0.5);
        int8_t got;
        if (q - z == 0.5 && fmod(q, 2.0) != 0.0)
            q -= 1.0; /* a tie goes to even */
        if (q > 127)
            q = 127;
        got = ((int8_t *)f.kc.data)[((1 * 2 + ch / 32) * 32 + 7) * 32 + ch % 32];
        assert_int_equal(got, (int)q);
    }
    for (ch = 0; ch < 32; ch++) {
        /* CKV: [NB, Dv/16, BS, 16] fp16 */
        uint16_t want = fp16_int(y_of(&c, 0, ch)), got;
        memcpy(&got, (uint16_t *)f.cc.data +
                         ((1 * 2 + ch / 16) * 32 + 7) * 16 + ch % 16, 2);
        assert_int_equal(got, want);
    }
    fx_free(&f);
}

/* ---- the rest of the contract ------------------------------------------- */

/* With is_output_kv off the outputs are neither read nor written: given
 * poisoned buffers stay as they are, and NULL is fine. */
static void test_outputs_off(void **state)
{
    fx f;
    cfg c;
    kvg_diag d;
    (void)state;
    b_pa_nz(&c);
    c.out = 0;
    fx_build(&f, &c);
    run_ok(&f);
    kvgt_assert_bytes_equal(f.kr.data, f.snap[W_KR], f.kr.nbytes, "k_rope");
    kvgt_assert_bytes_equal(f.cr.data, f.snap[W_CR], f.cr.nbytes, "c_kv");
    f.a.k_rope = NULL;
    f.a.c_kv = NULL;
    assert_int_equal(kvg_kv_rms_norm_rope_cache(&f.a, &d), KVG_OK);
    fx_free(&f);
}

/* The size query gives exactly what the call needs. */
static void test_workspace_exact(void **state)
{
    fx f;
    cfg c;
    kvg_diag d;
    (void)state;
    b_blk(&c);
    fx_build(&f, &c);
    fx_workspace(&f);
    assert_true(f.ws_size > 0);
    f.a.workspace_size = f.ws_size - 1;
    assert_int_equal(kvg_kv_rms_norm_rope_cache(&f.a, &d), KVG_ERR_WORKSPACE);
    f.a.workspace_size = f.ws_size;
    assert_int_equal(kvg_kv_rms_norm_rope_cache(&f.a, &d), KVG_OK);
    assert_int_equal(kvg_kv_rms_norm_rope_cache_workspace_size(&f.a, NULL, &d),
                     KVG_ERR_PARAM_NULLPTR);
    fx_free(&f);
}

/* Profile differences on otherwise identical calls. */
static void test_profiles(void **state)
{
    cfg c;
    fx f;
    kvg_diag d;
    size_t bytes;
    (void)state;
    /* BlockSize 9: Atlas A2/A3 accept it (ATK cases use 9), 950 refuses */
    b_a2(&c);
    c.cdt = KVG_BF16;
    c.cscale = 0;
    c.bs = 9;
    fx_build(&f, &c);
    run_ok(&f);
    f.a.profile = KVG_KV_PROFILE_ASCEND950;
    assert_int_equal(kvg_kv_rms_norm_rope_cache_workspace_size(&f.a, &bytes,
                                                               &d),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "k_cache");
    fx_free(&f);
    /* cos broadcast: A2/A3 accept it in Norm and in plain PA_BNSD */
    b_a2(&c);
    c.cdt = KVG_BF16;
    c.cscale = 0;
    c.out = 0;
    c.s = 3;
    c.srope = 1;
    fx_build(&f, &c);
    run_ok(&f);
    fx_free(&f);
    b_a2(&c);
    c.mode = KVG_CACHE_NORM;
    c.cdt = KVG_BF16;
    c.cscale = 0;
    c.out = 0;
    c.s = 3;
    c.srope = 1;
    fx_build(&f, &c);
    run_ok(&f);
    fx_free(&f);
    /* offsets: honoured on 950 */
    b_pa_nz(&c);
    fx_build(&f, &c);
    run_ok(&f);
    fx_free(&f);
}

static void test_names_and_defaults(void **state)
{
    static const char *const modes[] = {"Norm", "PA_BNSD", "PA_NZ",
                                        "PA_BLK_BNSD", "PA_BLK_NZ"};
    kvg_kv_rms_norm_rope_cache_args a;
    kvg_cache_mode m = KVG_CACHE_PA_NZ;
    kvg_kv_profile p = KVG_KV_PROFILE_A2A3;
    int i;
    (void)state;
    for (i = 0; i < 5; i++) {
        assert_int_equal(kvg_cache_mode_from_name(modes[i], &m), 1);
        assert_int_equal(m, i);
        assert_string_equal(kvg_cache_mode_name(m), modes[i]);
    }
    assert_int_equal(kvg_cache_mode_from_name("PA", &m), 1);
    assert_int_equal(m, KVG_CACHE_PA_BNSD);
    m = KVG_CACHE_PA_NZ;
    assert_int_equal(kvg_cache_mode_from_name("norm", &m), 0);
    assert_int_equal(kvg_cache_mode_from_name("PA_NZ ", &m), 0);
    assert_int_equal(kvg_cache_mode_from_name("", &m), 0);
    assert_int_equal(kvg_cache_mode_from_name(NULL, &m), 0);
    assert_int_equal(m, KVG_CACHE_PA_NZ);
    assert_null(kvg_cache_mode_name((kvg_cache_mode)5));
    { /* kvgold 0.1.0's spellings still compile and mean the same */
        kvg_kv_cache_mode old = KVG_KV_CACHE_NORM;
        assert_int_equal(kvg_kv_cache_mode_from_name("PA_BLK_NZ", &old), 1);
        assert_int_equal(old, KVG_CACHE_PA_BLK_NZ);
        assert_int_equal(KVG_KV_CACHE_PA, KVG_CACHE_PA_BNSD);
        assert_string_equal(kvg_kv_cache_mode_name(KVG_KV_CACHE_PA_NZ),
                            "PA_NZ");
    }
    assert_int_equal(kvg_kv_profile_from_name("ascend950", &p), 1);
    assert_int_equal(p, KVG_KV_PROFILE_ASCEND950);
    assert_int_equal(kvg_kv_profile_from_name("a2a3", &p), 1);
    assert_int_equal(p, KVG_KV_PROFILE_A2A3);
    assert_int_equal(kvg_kv_profile_from_name("A2", &p), 0);
    assert_string_equal(kvg_kv_profile_name(KVG_KV_PROFILE_A2A3), "a2a3");
    assert_null(kvg_kv_profile_name((kvg_kv_profile)2));

    memset(&a, 0x5A, sizeof a);
    kvg_kv_rms_norm_rope_cache_args_init(&a);
    assert_null(a.kv);
    assert_null(a.k_rope_offset);
    assert_null(a.workspace);
    assert_true(a.epsilon == 1e-5);
    assert_int_equal(a.cache_mode, KVG_CACHE_NORM);
    assert_int_equal(a.is_output_kv, 0);
    assert_int_equal(a.profile, KVG_KV_PROFILE_ASCEND950);
    assert_int_equal(a.reduce_order, KVG_REDUCE_PAIRWISE);
    assert_int_equal(a.quant_overflow, KVG_OVF_DEFAULT);
    kvg_kv_rms_norm_rope_cache_args_init(NULL);
}

int main(void)
{
    enum { NV = sizeof k_cases / sizeof k_cases[0] };
    static struct CMUnitTest tests[NV + 16];
    static char names[NV][32];
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_hand_norm_fp16),
        cmocka_unit_test(test_hand_quant_int8),
        cmocka_unit_test(test_hand_e4m3_overflow),
        cmocka_unit_test(test_hand_hif8_tie_away),
        cmocka_unit_test(test_hand_cos_broadcast),
        cmocka_unit_test(test_addr_norm),
        cmocka_unit_test(test_addr_pa),
        cmocka_unit_test(test_addr_pa_nz),
        cmocka_unit_test(test_addr_pa_blk_bnsd),
        cmocka_unit_test(test_addr_pa_blk_nz),
        cmocka_unit_test(test_addr_nz_per_cache_c0),
        cmocka_unit_test(test_outputs_off),
        cmocka_unit_test(test_workspace_exact),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_names_and_defaults),
    };
    size_t i, n = 0;
    for (i = 0; i < NV; i++, n++) {
        (void)snprintf(names[i], sizeof names[i], "validation_%02u_%s",
                       (unsigned)i, k_cases[i].tensor);
        tests[n].name = names[i];
        tests[n].test_func = run_vcase;
        tests[n].initial_state = (void *)&k_cases[i];
    }
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return _cmocka_run_group_tests("kv_rms_norm_rope_cache", tests, n, NULL,
                                   NULL);
}
