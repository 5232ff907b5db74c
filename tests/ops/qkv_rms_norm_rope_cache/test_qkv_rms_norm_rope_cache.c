/*
 * tests/test_qkv_rms_norm_rope_cache.c - QkvRmsNormRopeCache: every
 * validation rule (status, diag.tensor, a message fragment, and every
 * output and cache byte-identical after the rejected call), and
 * first-principles checks whose expected values are derived by hand in this
 * file: PA_NZ addressing of marked values (including the reference's worked
 * example), an exactly representable RmsNorm + RoPE + quant chain with
 * ties, saturation and NaN, the three reduction orders on a row whose sums
 * are known, overflow modes, skips and the before-quant outputs.
 * The bit-exact golden comparison is test_vectors (NumPy generator).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"

#define D 128

/* ---- fixture ------------------------------------------------------------ */

typedef struct cfg {
    kvg_dtype t, kt, vt;
    int64_t b, s, nq, nk, bs, bn;
    int k_off, v_off, before;
    uint64_t seed;
} cfg;

typedef struct fx {
    cfg c;
    int64_t qkv_size[4], head_nums[3];
    kvg_tensor qkv, q_gamma, k_gamma, cos, sin, index, q_out, k_cache,
        v_cache, k_scale, v_scale, k_offset, v_offset, qb, kb, vb;
    kvg_qkv_rms_norm_rope_cache_args a;
    void *ws;
    size_t ws_size;
    size_t cap[6]; /* allocated bytes of the six outputs (mutations may
                      change nbytes; snapshots must not trust it) */
} fx;

static int64_t c0(kvg_dtype dt) { return dt == KVG_INT8 ? 32 : 16; }

static void put(kvg_tensor *t, int64_t i, float v)
{
    unsigned char *p = (unsigned char *)t->data;
    assert_int_equal(kvg_encode_f32(t->dtype, v, KVG_OVF_DEFAULT,
                                    p + (size_t)i * kvg_dtype_size(t->dtype)),
                     KVG_OK);
}

static float get(const kvg_tensor *t, int64_t i)
{
    float v;
    const unsigned char *p = (const unsigned char *)t->data;
    assert_int_equal(kvg_decode_f32(t->dtype,
                                    p + (size_t)i * kvg_dtype_size(t->dtype),
                                    &v), KVG_OK);
    return v;
}

static int64_t numel(const kvg_tensor *t)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Random non-zero values in +-[lo, hi]. */
static void fill(kvg_tensor *t, kvgt_rng *rng, float lo, float hi)
{
    int64_t i, n = numel(t);
    for (i = 0; i < n; i++) {
        float u = kvgt_rng_unit(rng);
        float m = lo + (hi - lo) * fabsf(u);
        put(t, i, u < 0 ? -m : m);
    }
}

static void set_index(fx *f, int64_t t, int64_t slot)
{
    memcpy((unsigned char *)f->index.data + (size_t)t * 8u, &slot, 8);
}

static kvg_tensor make2(kvg_dtype dt, int64_t r, int64_t c, uint64_t seed)
{
    int64_t sh[2];
    sh[0] = r, sh[1] = c;
    return kvgt_tensor_new(dt, 2, sh, seed);
}

static kvg_tensor make_cache(kvg_dtype dt, int64_t bn, int64_t heads,
                             int64_t bs, uint64_t seed)
{
    int64_t sh[4];
    sh[0] = bn, sh[1] = heads * D / c0(dt), sh[2] = bs, sh[3] = c0(dt);
    return kvgt_tensor_new(dt, 4, sh, seed);
}

static void fx_bind(fx *f)
{
    kvg_qkv_rms_norm_rope_cache_args *a = &f->a;
    kvg_qkv_rms_norm_rope_cache_args_init(a);
    a->qkv = &f->qkv, a->q_gamma = &f->q_gamma, a->k_gamma = &f->k_gamma;
    a->cos = &f->cos, a->sin = &f->sin, a->index = &f->index;
    a->q_out = &f->q_out, a->k_cache = &f->k_cache, a->v_cache = &f->v_cache;
    a->k_scale = f->c.kt == KVG_INT8 ? &f->k_scale : NULL;
    a->v_scale = f->c.vt == KVG_INT8 ? &f->v_scale : NULL;
    a->k_offset = f->c.kt == KVG_INT8 && f->c.k_off ? &f->k_offset : NULL;
    a->v_offset = f->c.vt == KVG_INT8 && f->c.v_off ? &f->v_offset : NULL;
    if (f->c.before) {
        a->q_out_before_quant = &f->qb;
        a->k_out_before_quant = &f->kb;
        a->v_out_before_quant = &f->vb;
    }
    a->qkv_size = f->qkv_size, a->qkv_size_len = 4;
    a->head_nums = f->head_nums, a->head_nums_len = 3;
    a->workspace = f->ws, a->workspace_size = f->ws_size;
}

/* Valid inputs from seeded random values; outputs and caches poisoned. */
static void fx_init(fx *f, const cfg *c)
{
    const int64_t tok = c->b * c->s, n = c->nq + 2 * c->nk;
    int64_t one = D, sh1[1], t, slots;
    kvgt_rng rng;
    kvg_diag diag;
    uint64_t sd = c->seed * 100u;

    memset(f, 0, sizeof *f);
    f->c = *c;
    kvgt_rng_seed(&rng, c->seed);
    f->qkv_size[0] = c->b, f->qkv_size[1] = c->s, f->qkv_size[2] = n;
    f->qkv_size[3] = D;
    f->head_nums[0] = c->nq, f->head_nums[1] = c->nk, f->head_nums[2] = c->nk;
    f->qkv = make2(c->t, tok, n * D, sd + 1);
    fill(&f->qkv, &rng, 0.05f, 3.0f);
    f->q_gamma = kvgt_tensor_new(c->t, 1, &one, sd + 2);
    fill(&f->q_gamma, &rng, 0.5f, 1.5f);
    f->k_gamma = kvgt_tensor_new(c->t, 1, &one, sd + 3);
    fill(&f->k_gamma, &rng, 0.5f, 1.5f);
    f->cos = make2(c->t, tok, D, sd + 4);
    fill(&f->cos, &rng, 0.01f, 1.0f);
    f->sin = make2(c->t, tok, D, sd + 5);
    fill(&f->sin, &rng, 0.01f, 1.0f);
    sh1[0] = tok;
    f->index = kvgt_tensor_new(KVG_INT64, 1, sh1, sd + 6);
    slots = c->bn * c->bs;
    for (t = 0; t < tok; t++) /* 7 is coprime to slots (a multiple of 32) */
        set_index(f, t, (t * 7 + 3) % slots);
    f->q_out = make2(c->t, tok, c->nq * D, sd + 7);
    f->k_cache = make_cache(c->kt, c->bn, c->nk, c->bs, sd + 8);
    f->v_cache = make_cache(c->vt, c->bn, c->nk, c->bs, sd + 9);
    f->k_scale = make2(KVG_FP32, c->nk, D, sd + 10);
    fill(&f->k_scale, &rng, 0.004f, 0.05f);
    f->v_scale = make2(KVG_FP32, c->nk, D, sd + 11);
    fill(&f->v_scale, &rng, 0.004f, 0.05f);
    f->k_offset = make2(KVG_FP32, c->nk, D, sd + 12);
    fill(&f->k_offset, &rng, 0.1f, 9.0f);
    f->v_offset = make2(KVG_FP32, c->nk, D, sd + 13);
    fill(&f->v_offset, &rng, 0.1f, 9.0f);
    f->qb = make2(c->t, tok, c->nq * D, sd + 14);
    f->kb = make2(c->t, tok, c->nk * D, sd + 15);
    f->vb = make2(c->t, tok, c->nk * D, sd + 16);
    f->cap[0] = f->q_out.nbytes, f->cap[1] = f->k_cache.nbytes;
    f->cap[2] = f->v_cache.nbytes, f->cap[3] = f->qb.nbytes;
    f->cap[4] = f->kb.nbytes, f->cap[5] = f->vb.nbytes;
    fx_bind(f);
    assert_int_equal(kvg_qkv_rms_norm_rope_cache_workspace_size(
                         &f->a, &f->ws_size, &diag), KVG_OK);
    f->ws = kvgt_alloc_poisoned(f->ws_size, sd + 17);
    f->a.workspace = f->ws, f->a.workspace_size = f->ws_size;
}

static void fx_free(fx *f)
{
    kvg_tensor *all[16];
    size_t i;
    all[0] = &f->qkv, all[1] = &f->q_gamma, all[2] = &f->k_gamma;
    all[3] = &f->cos, all[4] = &f->sin, all[5] = &f->index;
    all[6] = &f->q_out, all[7] = &f->k_cache, all[8] = &f->v_cache;
    all[9] = &f->k_scale, all[10] = &f->v_scale, all[11] = &f->k_offset;
    all[12] = &f->v_offset, all[13] = &f->qb, all[14] = &f->kb;
    all[15] = &f->vb;
    for (i = 0; i < 16; i++)
        kvgt_tensor_free(all[i]);
    free(f->ws);
}

static kvg_status fx_run(fx *f, kvg_diag *diag)
{
    return kvg_qkv_rms_norm_rope_cache(&f->a, diag);
}

/* Byte images of everything the op may write. */
typedef struct snap {
    void *p[6];
    size_t n[6];
} snap;

static void snap_take(const fx *f, snap *s)
{
    const kvg_tensor *t[6];
    int i;
    t[0] = &f->q_out, t[1] = &f->k_cache, t[2] = &f->v_cache;
    t[3] = &f->qb, t[4] = &f->kb, t[5] = &f->vb;
    for (i = 0; i < 6; i++) {
        s->n[i] = f->cap[i];
        s->p[i] = malloc(s->n[i]);
        assert_non_null(s->p[i]);
        memcpy(s->p[i], t[i]->data, s->n[i]);
    }
}

static void snap_check(const fx *f, const snap *s, const char *what)
{
    static const char *const names[6] = {"q_out", "k_cache", "v_cache",
                                         "q_out_before_quant",
                                         "k_out_before_quant",
                                         "v_out_before_quant"};
    const kvg_tensor *t[6];
    char label[160];
    int i;
    t[0] = &f->q_out, t[1] = &f->k_cache, t[2] = &f->v_cache;
    t[3] = &f->qb, t[4] = &f->kb, t[5] = &f->vb;
    for (i = 0; i < 6; i++) {
        (void)snprintf(label, sizeof label, "%s: %s after rejection", what,
                       names[i]);
        kvgt_assert_bytes_equal(t[i]->data, s->p[i], f->cap[i], label);
    }
}

static void snap_free(snap *s)
{
    int i;
    for (i = 0; i < 6; i++)
        free(s->p[i]);
}

static const cfg k_base = {KVG_FP16, KVG_INT8, KVG_INT8, 2, 3, 4, 2, 32, 2,
                           1, 1, 1, 11};

/* ---- validation table ---------------------------------------------------- */

typedef struct rule {
    const char *name;
    const cfg *base; /* NULL: k_base */
    void (*mutate)(fx *f);
    kvg_status status;
    const char *tensor;
    const char *fragment;
    int size_query_too; /* the workspace-size query refuses it as well */
} rule;

/* An extra tensor owned by a rule, freed after the run. */
static kvg_tensor g_extra;

#define MUT(name) static void name(fx *f)

MUT(m_args_null) { (void)f; }
MUT(m_qkv_null) { f->a.qkv = NULL; }
MUT(m_q_gamma_null) { f->a.q_gamma = NULL; }
MUT(m_k_gamma_null) { f->a.k_gamma = NULL; }
MUT(m_cos_null) { f->a.cos = NULL; }
MUT(m_sin_null) { f->a.sin = NULL; }
MUT(m_index_null) { f->a.index = NULL; }
MUT(m_q_out_null) { f->a.q_out = NULL; }
MUT(m_k_cache_null) { f->a.k_cache = NULL; }
MUT(m_v_cache_null) { f->a.v_cache = NULL; }
MUT(m_qkv_data_null) /* a copy of the view, so the buffer is still freed */
{
    g_extra = f->qkv;
    g_extra.data = NULL;
    f->a.qkv = &g_extra;
}
MUT(m_k_scale_data_null)
{
    g_extra = f->k_scale;
    g_extra.data = NULL;
    f->a.k_scale = &g_extra;
}
MUT(m_qkv_size_null) { f->a.qkv_size = NULL; }
MUT(m_head_nums_null) { f->a.head_nums = NULL; }
MUT(m_kb_missing) { f->a.k_out_before_quant = NULL; }
MUT(m_vb_only)
{
    f->a.q_out_before_quant = NULL;
    f->a.k_out_before_quant = NULL;
}
MUT(m_qkv_size_len) { f->a.qkv_size_len = 3; }
MUT(m_b_zero) { f->qkv_size[0] = 0; }
MUT(m_s_negative) { f->qkv_size[1] = -3; }
MUT(m_d_64) { f->qkv_size[3] = 64; }
MUT(m_bs_overflow) { f->qkv_size[0] = INT64_MAX / 2; }
MUT(m_head_nums_len) { f->a.head_nums_len = 2; }
MUT(m_nv_zero) { f->head_nums[2] = 0; }
MUT(m_n_sum) { f->qkv_size[2] = 9; }
MUT(m_nk_ne_nv)
{
    f->head_nums[1] = 3, f->head_nums[2] = 1; /* still sums to N = 8 */
}
MUT(m_nq_mod_nk)
{
    f->head_nums[0] = 2, f->head_nums[1] = 3, f->head_nums[2] = 3;
}
MUT(m_eps_negative) { f->a.epsilon = -1e-6; }
MUT(m_eps_nan) { f->a.epsilon = nan(""); }
MUT(m_eps_huge) { f->a.epsilon = 1e39; }
MUT(m_mode_bnsd) { f->a.cache_mode = KVG_CACHE_PA_BNSD; }
MUT(m_mode_bad) { f->a.cache_mode = (kvg_cache_mode)7; }
MUT(m_order) { f->a.reduce_order = (kvg_reduce_order)7; }
MUT(m_overflow) { f->a.overflow = (kvg_overflow)9; }
MUT(m_qkv_fp32) { f->qkv.dtype = KVG_FP32, f->qkv.shape[1] /= 2; }
MUT(m_qkv_rank3)
{
    f->qkv.rank = 3, f->qkv.shape[1] = 8, f->qkv.shape[2] = D;
}
MUT(m_qkv_rows)
{
    f->qkv.shape[0] = 3, f->qkv.shape[1] = 2 * 8 * D; /* same bytes */
}
MUT(m_qkv_cols) /* a shorter view of the same buffer */
{
    f->qkv.shape[1] = 4 * D, f->qkv.nbytes = 6 * 4 * D * 2;
}
MUT(m_qkv_nbytes) { f->qkv.nbytes -= 2; }
MUT(m_q_gamma_bf16) { f->q_gamma.dtype = KVG_BF16; }
MUT(m_q_gamma_rank2)
{
    f->q_gamma.rank = 2, f->q_gamma.shape[0] = 1, f->q_gamma.shape[1] = D;
}
MUT(m_k_gamma_len) { f->k_gamma.shape[0] = 64, f->k_gamma.nbytes = 128; }
MUT(m_cos_dtype) { f->cos.dtype = KVG_BF16; }
MUT(m_cos_cols)
{
    f->cos.shape[0] = 12, f->cos.shape[1] = 64; /* same bytes */
}
MUT(m_cos_rows_b) /* [B, D] with S = 3 */
{
    f->cos.shape[0] = 2, f->cos.nbytes = 2 * D * 2;
}
MUT(m_cos_rows_other) { f->cos.shape[0] = 5, f->cos.nbytes = 5 * D * 2; }
MUT(m_sin_rows) { f->sin.shape[0] = 5, f->sin.nbytes = 5 * D * 2; }
MUT(m_sin_dtype) { f->sin.dtype = KVG_BF16; }
MUT(m_index_int32)
{
    f->index.dtype = KVG_INT32, f->index.shape[0] = 12; /* same bytes */
}
MUT(m_index_rank2)
{
    f->index.rank = 2, f->index.shape[0] = 2, f->index.shape[1] = 3;
}
MUT(m_index_len) { f->index.shape[0] = 5, f->index.nbytes = 40; }
MUT(m_q_out_dtype) { f->q_out.dtype = KVG_BF16; }
MUT(m_q_out_cols)
{
    f->q_out.shape[1] = 2 * D, f->q_out.nbytes = 6 * 2 * D * 2;
}
MUT(m_k_cache_fp32) /* same bytes */
{
    f->k_cache.dtype = KVG_FP32, f->k_cache.shape[3] = 8;
}
MUT(m_k_cache_bf16) /* same bytes */
{
    f->k_cache.dtype = KVG_BF16, f->k_cache.shape[0] = 1;
}
MUT(m_k_cache_rank3)
{
    f->k_cache.rank = 3, f->k_cache.shape[2] = 32 * 32;
}
MUT(m_k_cache_dim1) /* int8 data laid out with C0 = 16 */
{
    f->k_cache.shape[1] = 16, f->k_cache.shape[3] = 16;
}
MUT(m_k_cache_dim3) /* same bytes, C0 16 for an int8 cache */
{
    f->k_cache.shape[2] = 64, f->k_cache.shape[3] = 16;
}
MUT(m_bs_16) { f->k_cache.shape[2] = 16, f->k_cache.shape[0] = 4; }
MUT(m_bn_small) /* B=2, S=3 need 2 blocks of 32 */
{
    f->k_cache.shape[0] = 1, f->k_cache.shape[2] = 64;
}
MUT(m_v_cache_bn)
{
    f->v_cache.shape[0] = 1, f->v_cache.shape[2] = 64;
}
MUT(m_v_cache_bs) /* a shorter view of the same buffer */
{
    f->v_cache.shape[2] = 16, f->v_cache.nbytes /= 2;
}
MUT(m_v_cache_dtype) { f->v_cache.dtype = KVG_HIF8; }
MUT(m_k_scale_missing) { f->a.k_scale = NULL; }
MUT(m_v_scale_extra) { f->a.v_scale = &f->v_scale; }
MUT(m_k_offset_extra) { f->a.k_offset = &f->k_offset; }
MUT(m_k_scale_fp16)
{
    f->k_scale.dtype = KVG_FP16, f->k_scale.shape[1] = 2 * D;
}
MUT(m_k_scale_shape)
{
    f->k_scale.shape[0] = 4, f->k_scale.shape[1] = 64; /* same bytes */
}
MUT(m_k_scale_zero) { put(&f->k_scale, D + 5, 0.0f); }
MUT(m_v_scale_negzero) { put(&f->v_scale, 77, -0.0f); }
MUT(m_k_offset_shape)
{
    f->k_offset.shape[0] = 1, f->k_offset.shape[1] = 2 * D;
}
MUT(m_v_offset_dtype) { f->v_offset.dtype = KVG_INT32; }
MUT(m_qb_shape)
{
    f->qb.shape[0] = 12, f->qb.shape[1] = 2 * D; /* same bytes */
}
MUT(m_kb_nq_cols) /* the aclnn doc's [B*S, Nq*D] for k: wrong */
{
    kvgt_tensor_free(&f->kb);
    f->kb = make2(f->c.t, 6, 4 * D, 99);
    f->cap[4] = f->kb.nbytes;
}
MUT(m_vb_dtype) { f->vb.dtype = KVG_BF16; }
MUT(m_slot_end) { set_index(f, 2, 2 * 32); }
MUT(m_slot_huge) { set_index(f, 5, INT64_MAX); }
MUT(m_slot_dup) { set_index(f, 4, 3 + 7); } /* token 1's slot */
MUT(m_slot_dup_zero)
{
    set_index(f, 0, 0), set_index(f, 1, -1), set_index(f, 2, 0);
}
MUT(m_ws_null) { f->a.workspace = NULL; }
MUT(m_ws_small) { f->a.workspace_size -= 1; }

static const cfg k_plain = {KVG_BF16, KVG_BF16, KVG_BF16, 2, 3, 4, 2, 32, 2,
                            0, 0, 1, 12};
static const cfg k_s1 = {KVG_FP16, KVG_INT8, KVG_FP16, 3, 1, 2, 1, 32, 3,
                         1, 0, 0, 13};
static const cfg k_nobefore = {KVG_FP16, KVG_INT8, KVG_INT8, 2, 3, 4, 2, 32,
                               2, 0, 0, 0, 14};

#define NUL KVG_ERR_PARAM_NULLPTR
#define INV KVG_ERR_PARAM_INVALID
#define WSE KVG_ERR_WORKSPACE

static const rule k_rules[] = {
    {"args_null", NULL, m_args_null, NUL, "args", "NULL argument", 1},
    {"qkv_null", NULL, m_qkv_null, NUL, "qkv", "required tensor is NULL", 1},
    {"q_gamma_null", NULL, m_q_gamma_null, NUL, "q_gamma", "NULL", 1},
    {"k_gamma_null", NULL, m_k_gamma_null, NUL, "k_gamma", "NULL", 1},
    {"cos_null", NULL, m_cos_null, NUL, "cos", "NULL", 1},
    {"sin_null", NULL, m_sin_null, NUL, "sin", "NULL", 1},
    {"index_null", NULL, m_index_null, NUL, "index", "NULL", 1},
    {"q_out_null", NULL, m_q_out_null, NUL, "q_out", "NULL", 1},
    {"k_cache_null", NULL, m_k_cache_null, NUL, "k_cache", "NULL", 1},
    {"v_cache_null", NULL, m_v_cache_null, NUL, "v_cache", "NULL", 1},
    {"qkv_data_null", NULL, m_qkv_data_null, NUL, "qkv",
     "data pointer is NULL", 1},
    {"k_scale_data_null", NULL, m_k_scale_data_null, NUL, "k_scale",
     "data pointer is NULL", 1},
    {"qkv_size_null", NULL, m_qkv_size_null, NUL, "qkv_size", "NULL", 1},
    {"head_nums_null", NULL, m_head_nums_null, NUL, "head_nums", "NULL", 1},
    {"k_before_missing", NULL, m_kb_missing, NUL, "k_out_before_quant",
     "all three or none", 1},
    {"v_before_alone", NULL, m_vb_only, INV, "v_out_before_quant",
     "q_out_before_quant is NULL", 1},
    {"qkv_size_len", NULL, m_qkv_size_len, INV, "qkv_size",
     "must have 4 elements, got 3", 1},
    {"b_zero", NULL, m_b_zero, INV, "qkv_size", "(B) must be > 0, got 0", 1},
    {"s_negative", NULL, m_s_negative, INV, "qkv_size", "(S) must be > 0", 1},
    {"d_64", NULL, m_d_64, INV, "qkv_size", "D must be 128 (the only head size", 1},
    {"bs_overflow", NULL, m_bs_overflow, INV, "qkv_size", "overflows", 1},
    {"head_nums_len", NULL, m_head_nums_len, INV, "head_nums",
     "must have 3 elements, got 2", 1},
    {"nv_zero", NULL, m_nv_zero, INV, "head_nums", "(Nv) must be > 0", 1},
    {"n_sum", NULL, m_n_sum, INV, "head_nums", "must equal N = 9", 1},
    {"nk_ne_nv", NULL, m_nk_ne_nv, INV, "head_nums",
     "Nv must equal Nk = 3, got 1", 1},
    {"nq_mod_nk", NULL, m_nq_mod_nk, INV, "head_nums",
     "Nq = 2 must be a multiple of Nk = 3", 1},
    {"eps_negative", NULL, m_eps_negative, INV, "epsilon", ">= 0", 1},
    {"eps_nan", NULL, m_eps_nan, INV, "epsilon", "finite", 1},
    {"eps_huge", NULL, m_eps_huge, INV, "epsilon", "finite", 1},
    {"cache_mode_bnsd", NULL, m_mode_bnsd, INV, "cache_mode",
     "got PA_BNSD", 1},
    {"cache_mode_bad", NULL, m_mode_bad, INV, "cache_mode",
     "got an invalid kvg_cache_mode", 1},
    {"reduce_order", NULL, m_order, INV, "reduce_order", "invalid value 7",
     1},
    {"overflow", NULL, m_overflow, INV, "overflow", "invalid value 9", 1},
    {"qkv_fp32", NULL, m_qkv_fp32, INV, "qkv",
     "dtype must be fp16 or bf16, got fp32", 1},
    {"qkv_rank3", NULL, m_qkv_rank3, INV, "qkv", "rank must be 2, got 3", 1},
    {"qkv_rows", NULL, m_qkv_rows, INV, "qkv", "dim 0 must be 6 (B*S), got 3",
     1},
    {"qkv_cols", NULL, m_qkv_cols, INV, "qkv",
     "dim 1 must be 1024 (N*D), got 512", 1},
    {"qkv_nbytes", NULL, m_qkv_nbytes, INV, "qkv", "buffer is", 1},
    {"q_gamma_dtype", NULL, m_q_gamma_bf16, INV, "q_gamma",
     "dtype must be fp16, got bf16", 1},
    {"q_gamma_rank", NULL, m_q_gamma_rank2, INV, "q_gamma",
     "rank must be 1, got 2", 1},
    {"k_gamma_len", NULL, m_k_gamma_len, INV, "k_gamma",
     "dim 0 must be 128 (D), got 64", 1},
    {"cos_dtype", NULL, m_cos_dtype, INV, "cos", "dtype must be fp16", 1},
    {"cos_cols", NULL, m_cos_cols, INV, "cos", "dim 1 must be 128 (D), got 64",
     1},
    {"cos_b_rows_s3", NULL, m_cos_rows_b, INV, "cos",
     "accepted only when S == 1", 1},
    {"cos_rows_other", NULL, m_cos_rows_other, INV, "cos",
     "dim 0 must be 6 (B*S), got 5", 1},
    {"sin_rows", NULL, m_sin_rows, INV, "sin", "dim 0 must be 6", 1},
    {"sin_dtype", NULL, m_sin_dtype, INV, "sin", "dtype must be fp16", 1},
    {"index_int32", NULL, m_index_int32, INV, "index",
     "dtype must be int64, got int32", 1},
    {"index_rank2", NULL, m_index_rank2, INV, "index", "rank must be 1", 1},
    {"index_len", NULL, m_index_len, INV, "index",
     "dim 0 must be 6 (B*S), got 5", 1},
    {"q_out_dtype", NULL, m_q_out_dtype, INV, "q_out", "dtype must be fp16",
     1},
    {"q_out_cols", NULL, m_q_out_cols, INV, "q_out",
     "dim 1 must be 512 (Nq*D), got 256", 1},
    {"k_cache_fp32", NULL, m_k_cache_fp32, INV, "k_cache",
     "must be fp16 (as qkv, no quantisation) or int8", 1},
    {"k_cache_bf16_for_fp16", NULL, m_k_cache_bf16, INV, "k_cache",
     "got bf16", 1},
    {"k_cache_rank3", NULL, m_k_cache_rank3, INV, "k_cache",
     "rank must be 4, got 3", 1},
    {"k_cache_dim1", NULL, m_k_cache_dim1, INV, "k_cache",
     "dim 1 must be 8 (N*D/C0 with C0 = 32 for int8), got 16", 1},
    {"k_cache_dim3", NULL, m_k_cache_dim3, INV, "k_cache",
     "dim 3 must be 32 (C0 of int8), got 16", 1},
    {"block_size_16", &k_plain, m_bs_16, INV, "k_cache",
     "must be a multiple of 32", 1},
    {"block_num_small", NULL, m_bn_small, INV, "k_cache",
     "dim 0 (BlockNum) must be >= ceil(S / BlockSize) * B", 1},
    {"v_cache_block_num", NULL, m_v_cache_bn, INV, "v_cache",
     "dim 0 must be 2 (BlockNum of k_cache), got 1", 1},
    {"v_cache_block_size", NULL, m_v_cache_bs, INV, "v_cache",
     "dim 2 must be 32 (BlockSize of k_cache), got 16", 1},
    {"v_cache_hif8", NULL, m_v_cache_dtype, INV, "v_cache", "got hif8", 1},
    {"k_scale_missing", NULL, m_k_scale_missing, INV, "k_scale",
     "required because k_cache is int8", 1},
    {"v_scale_not_quant", &k_s1, m_v_scale_extra, INV, "v_scale",
     "given but v_cache is fp16 (not quantised)", 1},
    {"k_offset_not_quant", &k_plain, m_k_offset_extra, INV, "k_offset",
     "given but k_cache is bf16", 1},
    {"k_scale_fp16", NULL, m_k_scale_fp16, INV, "k_scale",
     "dtype must be fp32, got fp16", 1},
    {"k_scale_shape", NULL, m_k_scale_shape, INV, "k_scale",
     "dim 0 must be 2 (heads), got 4", 1},
    {"k_scale_zero", NULL, m_k_scale_zero, INV, "k_scale",
     "element [1, 5] is 0 (scales must be non-zero)", 1},
    {"v_scale_negzero", NULL, m_v_scale_negzero, INV, "v_scale",
     "element [0, 77] is -0", 1},
    {"k_offset_shape", NULL, m_k_offset_shape, INV, "k_offset",
     "dim 0 must be 2 (heads), got 1", 1},
    {"v_offset_dtype", NULL, m_v_offset_dtype, INV, "v_offset",
     "dtype must be fp32, got int32", 1},
    {"q_before_shape", NULL, m_qb_shape, INV, "q_out_before_quant",
     "dim 0 must be 6", 1},
    {"k_before_nq_cols", NULL, m_kb_nq_cols, INV, "k_out_before_quant",
     "dim 1 must be 256 (Nk*D), got 512", 1},
    {"v_before_dtype", NULL, m_vb_dtype, INV, "v_out_before_quant",
     "dtype must be fp16", 1},
    {"slot_end", NULL, m_slot_end, INV, "index",
     "token 2 (b 0, s 2): slot 64 is out of range [0, 64)", 0},
    {"slot_huge", &k_nobefore, m_slot_huge, INV, "index",
     "token 5 (b 1, s 2): slot 9223372036854775807", 0},
    {"slot_duplicate", NULL, m_slot_dup, INV, "index",
     "token 4 (b 1, s 1) repeats slot 10 of token 1", 0},
    {"slot_duplicate_zero", NULL, m_slot_dup_zero, INV, "index",
     "token 2 (b 0, s 2) repeats slot 0 of token 0", 0},
    {"workspace_null", NULL, m_ws_null, WSE, "workspace", "NULL", 0},
    {"workspace_small", NULL, m_ws_small, WSE, "workspace", "needed", 0},
};

/* Index-error positions the diag must report (token), by rule name. */
static int64_t expected_position(const char *name)
{
    if (strcmp(name, "slot_end") == 0)
        return 2;
    if (strcmp(name, "slot_huge") == 0)
        return 5;
    if (strcmp(name, "slot_duplicate") == 0)
        return 4;
    if (strcmp(name, "slot_duplicate_zero") == 0)
        return 2;
    if (strcmp(name, "k_scale_zero") == 0)
        return D + 5;
    return -1;
}

static void test_validation(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_rules / sizeof k_rules[0]; i++) {
        const rule *r = &k_rules[i];
        fx f;
        snap s;
        kvg_diag diag;
        kvg_status st;
        size_t bytes = 12345;
        const int is_args = strcmp(r->name, "args_null") == 0;

        fx_init(&f, r->base != NULL ? r->base : &k_base);
        memset(&g_extra, 0, sizeof g_extra);
        r->mutate(&f);
        snap_take(&f, &s);
        st = kvg_qkv_rms_norm_rope_cache(is_args ? NULL : &f.a, &diag);
        if (st != r->status || strcmp(diag.tensor, r->tensor) != 0 ||
            strstr(diag.message, r->fragment) == NULL)
            fail_msg("rule %s: got status %d tensor \"%s\" message \"%s\"; "
                     "want %d \"%s\" containing \"%s\"", r->name, (int)st,
                     diag.tensor, diag.message, (int)r->status, r->tensor,
                     r->fragment);
        assert_int_equal(diag.status, r->status);
        if (expected_position(r->name) >= 0)
            assert_int_equal(diag.position, expected_position(r->name));
        snap_check(&f, &s, r->name);
        st = kvg_qkv_rms_norm_rope_cache_workspace_size(is_args ? NULL : &f.a,
                                                        &bytes, &diag);
        if (r->size_query_too) {
            if (st != r->status || strcmp(diag.tensor, r->tensor) != 0)
                fail_msg("rule %s: size query gave %d \"%s\" (%s)", r->name,
                         (int)st, diag.tensor, diag.message);
            assert_int_equal(bytes, 12345); /* untouched on failure */
        } else {
            assert_int_equal(st, KVG_OK);
        }
        snap_check(&f, &s, r->name);
        snap_free(&s);
        fx_free(&f);
    }
}

static void test_workspace_size_null_result(void **state)
{
    fx f;
    kvg_diag diag;
    (void)state;
    fx_init(&f, &k_base);
    assert_int_equal(kvg_qkv_rms_norm_rope_cache_workspace_size(&f.a, NULL,
                                                                &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_string_equal(diag.tensor, "bytes");
    fx_free(&f);
}

/* ---- valid calls ----------------------------------------------------------- */

/* A valid call succeeds, clears diag, and leaves every input untouched. */
static void test_valid_configs_and_inputs_untouched(void **state)
{
    static const cfg cfgs[] = {
        {KVG_FP16, KVG_INT8, KVG_INT8, 2, 3, 4, 2, 32, 2, 1, 1, 1, 21},
        {KVG_BF16, KVG_BF16, KVG_BF16, 1, 5, 2, 1, 64, 1, 0, 0, 0, 22},
        {KVG_FP16, KVG_FP16, KVG_INT8, 3, 1, 16, 1, 32, 3, 0, 1, 1, 23},
        {KVG_BF16, KVG_INT8, KVG_BF16, 1, 2, 32, 8, 32, 1, 0, 0, 1, 24},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        fx f;
        kvg_diag diag;
        const kvg_tensor *in[11];
        void *copy[11];
        int j;

        fx_init(&f, &cfgs[i]);
        in[0] = &f.qkv, in[1] = &f.q_gamma, in[2] = &f.k_gamma;
        in[3] = &f.cos, in[4] = &f.sin, in[5] = &f.index;
        in[6] = &f.k_scale, in[7] = &f.v_scale, in[8] = &f.k_offset;
        in[9] = &f.v_offset, in[10] = &f.q_gamma;
        for (j = 0; j < 11; j++) {
            copy[j] = malloc(in[j]->nbytes);
            memcpy(copy[j], in[j]->data, in[j]->nbytes);
        }
        kvgt_poison(&diag, sizeof diag, 5);
        assert_int_equal(fx_run(&f, &diag), KVG_OK);
        assert_int_equal(diag.status, KVG_OK);
        assert_string_equal(diag.message, "");
        for (j = 0; j < 11; j++) {
            kvgt_assert_bytes_equal(in[j]->data, copy[j], in[j]->nbytes,
                                    "input after a valid call");
            free(copy[j]);
        }
        fx_free(&f);
    }
}

/* The workspace's contents and alignment do not change the results. */
static void test_workspace_independence(void **state)
{
    fx f;
    snap first;
    unsigned char *big;
    kvg_tensor *out[3];
    int i;
    (void)state;

    fx_init(&f, &k_base);
    out[0] = &f.q_out, out[1] = &f.k_cache, out[2] = &f.v_cache;
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    snap_take(&f, &first);
    /* Re-poison the outputs identically and run on a different, unaligned
     * workspace with other contents. */
    fx_free(&f);
    fx_init(&f, &k_base);
    big = (unsigned char *)kvgt_alloc_poisoned(f.ws_size + 3, 4242);
    f.a.workspace = big + 3;
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    for (i = 0; i < 3; i++)
        kvgt_assert_bytes_equal(out[i]->data, first.p[i], first.n[i],
                                "output with another workspace");
    free(big);
    snap_free(&first);
    fx_free(&f);
}

/* Scale and offset tensors one byte past a float-aligned address (a
 * caller's packed buffer) give the same outputs as aligned ones, and are
 * left as they were: the operator reads such rows through a copy in its
 * workspace. */
static void test_misaligned_scales(void **state)
{
    static const char *const names[6] = {"q_out", "k_cache", "v_cache",
                                         "q_out_before_quant",
                                         "k_out_before_quant",
                                         "v_out_before_quant"};
    fx f;
    snap first, now;
    kvg_tensor *q[4];
    void *orig[4];
    unsigned char *buf[4];
    int i;
    (void)state;

    fx_init(&f, &k_base);
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    snap_take(&f, &first);
    fx_free(&f);
    fx_init(&f, &k_base);
    q[0] = &f.k_scale, q[1] = &f.v_scale, q[2] = &f.k_offset;
    q[3] = &f.v_offset;
    for (i = 0; i < 4; i++) {
        buf[i] = (unsigned char *)kvgt_alloc_poisoned(q[i]->nbytes + 1, 90);
        memcpy(buf[i] + 1, q[i]->data, q[i]->nbytes);
        orig[i] = q[i]->data;
        q[i]->data = buf[i] + 1;
    }
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    snap_take(&f, &now);
    for (i = 0; i < 6; i++)
        kvgt_assert_bytes_equal(now.p[i], first.p[i], first.n[i], names[i]);
    for (i = 0; i < 4; i++) {
        kvgt_assert_bytes_equal(buf[i] + 1, orig[i], q[i]->nbytes,
                                "a misaligned scale / offset input");
        q[i]->data = orig[i];
        free(buf[i]);
    }
    snap_free(&now);
    snap_free(&first);
    fx_free(&f);
}

/* NZ offset, written out from the layout definition (spec section 3):
 * cache[block][c / C0][off][c % C0] in a [BN, N*D/C0, BS, C0] array. */
static size_t nz(int64_t slot, int64_t c, int64_t heads, int64_t bs,
                 int64_t cz)
{
    const int64_t block = slot / bs, off = slot % bs;
    const int64_t c1 = heads * D / cz;
    return (size_t)((((block * c1) + c / cz) * bs + off) * cz + c % cz);
}

/*
 * Marked v values (integers, scale 1) must land where the NZ formula says,
 * in an int8 cache (C0 32) and an fp16 cache (C0 16); nothing else may
 * change. Includes the reference's worked example: int8, N = 1, BS = 64,
 * slot 70, channel 100 -> element 14532.
 */
static void check_marked(kvg_dtype vt, int64_t nk, int64_t bs, int64_t first)
{
    const cfg c = {KVG_FP16, KVG_FP16, vt, 1, 3, nk, nk, bs, 2, 0, 0, 0, 31};
    const int64_t slots[3] = {first, -1, 0};
    const int64_t cz = c0(vt);
    fx f;
    snap s;
    unsigned char *touched;
    int64_t t, h, d;
    size_t i, esize = kvg_dtype_size(vt);

    fx_init(&f, &c);
    for (t = 0; t < 3; t++)
        set_index(&f, t, slots[t]);
    for (t = 0; t < 3; t++)
        for (h = 0; h < nk; h++)
            for (d = 0; d < D; d++) {
                /* distinct per (t, h, d), never zero, |v| <= 127 */
                int v = (int)((t * 41 + h * 13 + d) % 127) + 1;
                put(&f.qkv, t * (3 * nk * D) + (2 * nk + h) * D + d,
                    (float)((d & 1) ? -v : v));
            }
    if (vt == KVG_INT8)
        for (i = 0; i < (size_t)(nk * D); i++)
            put(&f.v_scale, (int64_t)i, 1.0f);
    snap_take(&f, &s);
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    touched = (unsigned char *)calloc(f.v_cache.nbytes, 1);
    for (t = 0; t < 3; t++) {
        if (slots[t] < 0)
            continue;
        for (h = 0; h < nk; h++)
            for (d = 0; d < D; d++) {
                const size_t at = nz(slots[t], h * D + d, nk, bs, cz);
                const float want =
                    get(&f.qkv, t * (3 * nk * D) + (2 * nk + h) * D + d);
                if (get(&f.v_cache, (int64_t)at) != want)
                    fail_msg("v (t %lld, h %lld, d %lld) should be %g at "
                             "element %lu, found %g", (long long)t,
                             (long long)h, (long long)d, (double)want,
                             (unsigned long)at,
                             (double)get(&f.v_cache, (int64_t)at));
                memset(touched + at * esize, 1, esize);
            }
    }
    if (vt == KVG_INT8 && nk == 1 && bs == 64 && first == 70) {
        /* docs: slot 70 -> block 1, offset 6; channel 100 -> 14532 */
        assert_int_equal(nz(70, 100, 1, 64, 32), 14532);
        assert_true(get(&f.v_cache, 14532) ==
                    get(&f.qkv, 0 * 3 * D + 2 * D + 100));
    }
    if (vt == KVG_FP16 && nk == 2 && bs == 32 && first == 45) {
        /* docs: slot 45 -> block 1, offset 13; head 1, d 37 -> 13525 */
        assert_int_equal(nz(45, 165, 2, 32, 16), 13525);
        assert_true(get(&f.v_cache, 13525) ==
                    get(&f.qkv, 0 * 6 * D + (4 + 1) * D + 37));
    }
    for (i = 0; i < f.v_cache.nbytes; i++)
        if (!touched[i] &&
            ((unsigned char *)f.v_cache.data)[i] !=
                ((unsigned char *)s.p[2])[i])
            fail_msg("v_cache byte %lu changed but no token addresses it",
                     (unsigned long)i);
    free(touched);
    snap_free(&s);
    fx_free(&f);
}

static void test_nz_addressing(void **state)
{
    (void)state;
    check_marked(KVG_INT8, 1, 64, 70);
    check_marked(KVG_FP16, 1, 64, 70);
    check_marked(KVG_INT8, 2, 32, 63);
    check_marked(KVG_FP16, 2, 32, 45);
    check_marked(KVG_FP16, 3, 96, 191);
}

/*
 * One token, every value exact in binary32 and fp16:
 *   x = +-4 (sign pattern), sum of squares 2048 in every order, mean 16,
 *   eps 0 -> rms 4;
 *   q: gamma 0.5 -> y = +-0.5; k: gamma 1.5 -> y = +-1.5;
 *   cos 0.5, sin 0.25: out[j] = 0.5 y[j] - 0.25 y[j+64] (j < 64),
 *                      out[j] = 0.5 y[j] + 0.25 y[j-64] (j >= 64);
 *   k int8, scale 0.25, offset 0 (d < 64) or 0.5: k out in
 *     {+-1.125, +-0.375} / 0.25 = {+-4.5, +-1.5}: ties to even without the
 *     offset, exact after it;
 *   v int8, scale 2 (d even) or 1: chosen values probe ties, saturation,
 *     NaN and inf.
 */
static float sign_of(int64_t d) { return (d % 3 == 0) ? 1.0f : -1.0f; }

static float rope_ref(const float *y, int64_t j)
{
    return j < 64 ? 0.5f * y[j] - 0.25f * y[j + 64]
                  : 0.5f * y[j] + 0.25f * y[j - 64];
}

static int8_t rne_sat8(double z)
{
    double r = floor(z), diff = z - r;
    if (z != z)
        return 0;
    if (diff > 0.5 || (diff == 0.5 && fmod(r, 2.0) != 0.0))
        r += 1.0;
    if (r > 127.0)
        return 127;
    if (r < -128.0)
        return -128;
    return (int8_t)r;
}

static void test_hand_computed_chain(void **state)
{
    const cfg c = {KVG_FP16, KVG_INT8, KVG_INT8, 1, 1, 1, 1, 32, 2, 1, 0, 1,
                   41};
    static const float vvals[12] = {300.0f, -300.0f, 127.5f, -128.5f, 2.5f,
                                    -2.5f, 3.5f, 0.75f, 254.0f, -257.0f,
                                    -0.5f, 1.0f};
    float yq[D], yk[D], v[D];
    const int64_t slot = 37; /* block 1, offset 5 */
    fx f;
    int64_t d;
    (void)state;

    fx_init(&f, &c);
    f.a.epsilon = 0.0;
    set_index(&f, 0, slot);
    for (d = 0; d < D; d++) {
        put(&f.qkv, d, 4.0f * sign_of(d));          /* q */
        put(&f.qkv, D + d, -4.0f * sign_of(d + 1)); /* k */
        v[d] = d < 12 ? vvals[d] : (float)(d - 64) + 0.5f;
        put(&f.qkv, 2 * D + d, v[d]);
        put(&f.q_gamma, d, 0.5f);
        put(&f.k_gamma, d, 1.5f);
        put(&f.cos, d, 0.5f);
        put(&f.sin, d, 0.25f);
        put(&f.k_scale, d, 0.25f);
        put(&f.k_offset, d, d < 64 ? 0.0f : 0.5f);
        put(&f.v_scale, d, (d % 2 == 0 && d >= 12) ? 2.0f : 1.0f);
        yq[d] = 0.5f * sign_of(d);
        yk[d] = -1.5f * sign_of(d + 1);
    }
    put(&f.qkv, 2 * D + 12, nanf(""));
    put(&f.qkv, 2 * D + 13, INFINITY);
    v[12] = nanf("");
    v[13] = INFINITY;
    f.a.v_offset = NULL;
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    for (d = 0; d < D; d++) {
        const float q = rope_ref(yq, d), k = rope_ref(yk, d);
        const double z = (double)k / 0.25 + (d < 64 ? 0.0 : 0.5);
        const double zv = (double)v[d] / ((d % 2 == 0 && d >= 12) ? 2.0 : 1.0);
        const size_t at = nz(slot, d, 1, 32, 32);
        int8_t got_k, got_v;

        assert_true(get(&f.q_out, d) == q);
        assert_true(get(&f.qb, d) == q);
        assert_true(get(&f.kb, d) == k);
        memcpy(&got_k, (unsigned char *)f.k_cache.data + at, 1);
        memcpy(&got_v, (unsigned char *)f.v_cache.data + at, 1);
        if (got_k != rne_sat8(z))
            fail_msg("k channel %lld: int8 %d, want %d (z = %g)",
                     (long long)d, got_k, rne_sat8(z), z);
        if (got_v != rne_sat8(zv))
            fail_msg("v channel %lld: int8 %d, want %d (z = %g)",
                     (long long)d, got_v, rne_sat8(zv), zv);
    }
    /* spot values derived by hand */
    {
        int8_t b;
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 0, 1, 32, 32), 1);
        assert_int_equal(b, 127); /* 300 saturates */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 2, 1, 32, 32), 1);
        assert_int_equal(b, 127); /* 127.5 ties to 128, saturates */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 3, 1, 32, 32), 1);
        assert_int_equal(b, -128); /* -128.5 ties to -128 */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 4, 1, 32, 32), 1);
        assert_int_equal(b, 2); /* 2.5 ties to 2 */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 6, 1, 32, 32), 1);
        assert_int_equal(b, 4); /* 3.5 ties to 4 */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 12, 1, 32, 32),
               1);
        assert_int_equal(b, 0); /* NaN -> 0 */
        memcpy(&b, (unsigned char *)f.v_cache.data + nz(slot, 13, 1, 32, 32),
               1);
        assert_int_equal(b, 127); /* inf saturates */
    }
    /* v_out_before_quant is v itself (NaN stays NaN) */
    for (d = 0; d < D; d++)
        if (d == 12)
            assert_true(isnan(get(&f.vb, d)));
        else
            assert_true(get(&f.vb, d) == v[d]);
    fx_free(&f);
}

/*
 * The three sum orders on one q row with known sums: x[0] = 4096, the other
 * 127 elements 1 (squares 2^24 and 1):
 *   sequential: 2^24 + 1 rounds to 2^24 (tie to even) 127 times -> 2^24;
 *   pairwise:   fold p[0] = 2^24 + 1 -> 2^24, p[1..63] = 2; the adjacent
 *               tree adds only even values below 2^25 exactly -> 2^24 + 126;
 *   double:     2^24 + 127 exactly, to binary32 a tie -> 2^24 + 128
 *               (which gives the same binary32 rms as the pairwise sum).
 * q_gamma sweeps distinct fp16 values so that some outputs fall on
 * different sides of an fp16 rounding boundary for different sums.
 */
static void test_reduction_orders(void **state)
{
    const cfg c = {KVG_FP16, KVG_FP16, KVG_FP16, 1, 1, 1, 1, 32, 1, 0, 0, 0,
                   51};
    const float sums[3] = {16777216.0f + 126.0f, 16777216.0f,
                           16777216.0f + 128.0f};
    const kvg_reduce_order orders[3] = {KVG_REDUCE_PAIRWISE,
                                        KVG_REDUCE_SEQUENTIAL,
                                        KVG_REDUCE_DOUBLE};
    uint16_t want[3][D];
    int o, diff01 = 0, diff12 = 0;
    int64_t d;
    (void)state;

    for (o = 0; o < 3; o++) {
        fx f;
        const float rms = sqrtf(sums[o] * (1.0f / 128.0f) + 0.0f);
        fx_init(&f, &c);
        f.a.epsilon = 0.0;
        f.a.reduce_order = orders[o];
        for (d = 0; d < D; d++) {
            const float g = 1.0f + (float)d / 1024.0f; /* exact in fp16 */
            const float x = d == 0 ? 4096.0f : 1.0f;
            put(&f.qkv, d, x);
            put(&f.q_gamma, d, g);
            put(&f.cos, d, 1.0f);
            put(&f.sin, d, 0.0f); /* out = y*1 + (+-y')*0 = y */
            want[o][d] = kvg_f32_to_fp16((x / rms) * g, KVG_OVF_DEFAULT);
        }
        assert_int_equal(fx_run(&f, NULL), KVG_OK);
        for (d = 0; d < D; d++) {
            uint16_t got;
            memcpy(&got, (unsigned char *)f.q_out.data + 2 * d, 2);
            if (got != want[o][d])
                fail_msg("order %s, element %lld: fp16 0x%04x, want 0x%04x",
                         kvg_reduce_order_name(orders[o]), (long long)d, got,
                         want[o][d]);
        }
        fx_free(&f);
    }
    for (d = 0; d < D; d++) {
        diff01 += want[0][d] != want[1][d];
        diff12 += want[1][d] != want[2][d];
    }
    /* Meaningful only if the orders give different codes: sequential
     * differs from both. Pairwise and double sums are one ulp apart here
     * and give the same binary32 rms, so their codes agree; the vectors
     * (order_double_*) separate those two. */
    assert_true(diff01 > 0);
    assert_true(diff12 > 0);
}

/*
 * Overflow of fp16 outputs: x = +-4, eps 0 -> rms 4; gamma 65504 ->
 * y = +-65504 exactly; cos = sin = 1: out = y[j] -+ y[j+-64] is 0 or
 * +-131008, which is +-inf by default and +-65504 when saturating (q_out,
 * the before-quant outputs and an fp16 k_cache alike).
 */
static void test_overflow_modes(void **state)
{
    const cfg c = {KVG_FP16, KVG_FP16, KVG_FP16, 1, 1, 1, 1, 32, 1, 0, 0, 1,
                   61};
    int mode;
    (void)state;
    for (mode = 0; mode < 2; mode++) {
        fx f;
        float y[D];
        int64_t d;
        fx_init(&f, &c);
        f.a.epsilon = 0.0;
        f.a.overflow = mode ? KVG_OVF_SATURATE : KVG_OVF_DEFAULT;
        set_index(&f, 0, 9);
        for (d = 0; d < D; d++) {
            y[d] = 65504.0f * sign_of(d);
            put(&f.qkv, d, 4.0f * sign_of(d));
            put(&f.qkv, D + d, 4.0f * sign_of(d));
            put(&f.q_gamma, d, 65504.0f);
            put(&f.k_gamma, d, 65504.0f);
            put(&f.cos, d, 1.0f);
            put(&f.sin, d, 1.0f);
        }
        assert_int_equal(fx_run(&f, NULL), KVG_OK);
        for (d = 0; d < D; d++) {
            const float exact = d < 64 ? y[d] - y[d + 64] : y[d] + y[d - 64];
            const float want = exact == 0.0f ? 0.0f
                               : mode       ? copysignf(65504.0f, exact)
                                            : copysignf(INFINITY, exact);
            assert_true(get(&f.q_out, d) == want);
            assert_true(get(&f.qb, d) == want);
            assert_true(get(&f.kb, d) == want);
            assert_true(get(&f.k_cache, (int64_t)nz(9, d, 1, 32, 16)) == want);
        }
        fx_free(&f);
    }
}

/*
 * Negative slots of any value skip both caches; q_out and the before-quant
 * outputs are still written for every token. Repeated negative slots are
 * not duplicates. The before-quant outputs agree with the outputs they
 * shadow: q_out_before_quant == q_out, v_out_before_quant == v as given,
 * and k_out_before_quant == what a T k_cache receives.
 */
static void test_skips_and_before(void **state)
{
    const cfg c = {KVG_BF16, KVG_BF16, KVG_INT8, 1, 5, 2, 1, 32, 1, 0, 1, 1,
                   71};
    const int64_t slots[5] = {-1, INT64_MIN, 31, -1, -7};
    fx f;
    snap s;
    int64_t t, d;
    size_t i;
    (void)state;

    fx_init(&f, &c);
    for (t = 0; t < 5; t++)
        set_index(&f, t, slots[t]);
    /* 0xFF bytes are NaN in bf16: any element left unwritten shows. */
    memset(f.q_out.data, 0xFF, f.q_out.nbytes);
    memset(f.qb.data, 0xFF, f.qb.nbytes);
    memset(f.kb.data, 0xFF, f.kb.nbytes);
    memset(f.vb.data, 0xFF, f.vb.nbytes);
    snap_take(&f, &s);
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    kvgt_assert_bytes_equal(f.qb.data, f.q_out.data, f.q_out.nbytes,
                            "q_out_before_quant vs q_out");
    for (t = 0; t < 5; t++)
        for (d = 0; d < D; d++) {
            assert_true(get(&f.vb, t * D + d) ==
                        get(&f.qkv, t * 4 * D + 3 * D + d));
            if (slots[t] >= 0)
                assert_true(get(&f.kb, t * D + d) ==
                            get(&f.k_cache, (int64_t)nz(slots[t], d, 1, 32,
                                                        16)));
        }
    /* Every element of q_out and the before-quant outputs was written,
     * skipped tokens included (the inputs are finite). */
    for (i = 0; i < f.q_out.nbytes / 2; i++)
        assert_true(isfinite(get(&f.q_out, (int64_t)i)));
    for (i = 0; i < f.kb.nbytes / 2; i++)
        assert_true(isfinite(get(&f.kb, (int64_t)i)) &&
                    isfinite(get(&f.vb, (int64_t)i)));
    /* Only token 2's slot 31 changed in either cache. */
    for (i = 0; i < f.k_cache.nbytes / 2; i++) {
        int64_t slot_of = (int64_t)((i / 16) % 32);
        if (slot_of != 31 &&
            memcmp((unsigned char *)f.k_cache.data + 2 * i,
                   (unsigned char *)s.p[1] + 2 * i, 2) != 0)
            fail_msg("k_cache element %lu (slot %lld) changed",
                     (unsigned long)i, (long long)slot_of);
    }
    for (i = 0; i < f.v_cache.nbytes; i++) {
        int64_t slot_of = (int64_t)((i / 32) % 32);
        if (slot_of != 31 && ((unsigned char *)f.v_cache.data)[i] !=
                                 ((unsigned char *)s.p[2])[i])
            fail_msg("v_cache byte %lu (slot %lld) changed", (unsigned long)i,
                     (long long)slot_of);
    }
    snap_free(&s);
    fx_free(&f);
}

/* All slots negative: both caches keep every byte. */
static void test_all_skipped(void **state)
{
    fx f;
    snap s;
    int64_t t;
    (void)state;
    fx_init(&f, &k_base);
    for (t = 0; t < 6; t++)
        set_index(&f, t, -1 - t);
    snap_take(&f, &s);
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    kvgt_assert_bytes_equal(f.k_cache.data, s.p[1], s.n[1], "k_cache");
    kvgt_assert_bytes_equal(f.v_cache.data, s.p[2], s.n[2], "v_cache");
    snap_free(&s);
    fx_free(&f);
}

/* cos/sin [B, D] are accepted when S == 1 and read as row t = b. */
static void test_cos_b_rows_s1(void **state)
{
    fx f;
    (void)state;
    fx_init(&f, &k_s1); /* B = 3, S = 1: [B, D] is [B*S, D] */
    assert_int_equal(f.cos.shape[0], 3);
    assert_int_equal(fx_run(&f, NULL), KVG_OK);
    fx_free(&f);
}

/* args_init sets the documented defaults. */
static void test_args_init(void **state)
{
    kvg_qkv_rms_norm_rope_cache_args a;
    (void)state;
    kvgt_poison(&a, sizeof a, 3);
    kvg_qkv_rms_norm_rope_cache_args_init(&a);
    assert_null(a.qkv);
    assert_null(a.q_out_before_quant);
    assert_null(a.qkv_size);
    assert_true(a.epsilon == 1e-6);
    assert_int_equal(a.cache_mode, KVG_CACHE_PA_NZ);
    assert_int_equal(a.reduce_order, KVG_REDUCE_PAIRWISE);
    assert_int_equal(a.overflow, KVG_OVF_DEFAULT);
    assert_null(a.workspace);
    assert_int_equal(a.workspace_size, 0);
    kvg_qkv_rms_norm_rope_cache_args_init(NULL); /* NULL-safe */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args_init),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_workspace_size_null_result),
        cmocka_unit_test(test_valid_configs_and_inputs_untouched),
        cmocka_unit_test(test_workspace_independence),
        cmocka_unit_test(test_misaligned_scales),
        cmocka_unit_test(test_nz_addressing),
        cmocka_unit_test(test_hand_computed_chain),
        cmocka_unit_test(test_reduction_orders),
        cmocka_unit_test(test_overflow_modes),
        cmocka_unit_test(test_skips_and_before),
        cmocka_unit_test(test_all_skipped),
        cmocka_unit_test(test_cos_b_rows_s1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
