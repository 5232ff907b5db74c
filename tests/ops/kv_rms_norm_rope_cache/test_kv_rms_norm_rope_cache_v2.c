/*
 * tests/ops/kv_rms_norm_rope_cache/test_kv_rms_norm_rope_cache_v2.c -
 * KvRmsNormRopeCache V2 (the optional input v) in C.
 *
 * 1. First principles: hand-worked rows (exact binary fractions, codes in
 *    hex) through PA and through Norm with per-head int8 scales.
 * 2. Addressing: every cache mode with N = 2 heads against the spec's
 *    formulas written out here, over whole poisoned cache images (every
 *    byte not addressed keeps its poison), including the shapes the
 *    ops-transformer fix 931b5c8ac found written wrongly on the device:
 *    Skv != Scache in Norm with several batches, PA_BLK_NZ pages taken
 *    from the index value, NZ with Dk = C0, indices at the upper bound.
 * 3. Validation: one entry per V2 rule; the status, the tensor named, a
 *    message fragment, and every buffer byte-identical afterwards.
 * The NumPy generator's v2_* vectors are checked by test_vectors.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

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
    int64_t b, nh, s, dk, dr, dv, srope, bs, nblocks, bcache, scache;
    int kscale, cscale, koff, coff; /* 0 none, 1 [N, D], 2 [D] */
    int out;
} cfg;

enum {
    T_KV, T_GAMMA, T_COS, T_SIN, T_INDEX, T_KC, T_CC, T_KS, T_CS, T_KO, T_CO,
    T_KR, T_CR, T_V, T_N
};
static const char *const k_names[T_N] = {
    "kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
    "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset", "k_rope",
    "c_kv", "v"};

typedef struct fx {
    cfg c;
    kvg_tensor t[T_N];
    kvg_kv_rms_norm_rope_cache_args a;
    void *ws;
    size_t ws_size;
    void *owned[T_N];
    size_t owned_n[T_N];
    unsigned char *snap[T_N];
} fx;

static int64_t numel(const kvg_tensor *t)
{
    return (int64_t)(t->nbytes / kvg_dtype_size(t->dtype));
}

static void fill_values(kvg_tensor *t, uint64_t seed, float lo)
{
    const size_t es = kvg_dtype_size(t->dtype);
    kvgt_rng rng;
    int64_t i;
    kvgt_rng_seed(&rng, seed);
    for (i = 0; i < numel(t); i++) {
        float v = kvgt_rng_unit(&rng) * 2.0f;
        if (v < lo && v > -lo)
            v = v < 0 ? -lo : lo;
        (void)kvg_encode_f32(t->dtype, v, KVG_OVF_DEFAULT,
                             (unsigned char *)t->data + (size_t)i * es);
    }
}

static void set_i64(kvg_tensor *t, int64_t i, int64_t v)
{
    memcpy((unsigned char *)t->data + (size_t)i * 8, &v, 8);
}

static int is_blk(kvg_cache_mode m)
{
    return m == KVG_CACHE_PA_BLK_BNSD || m == KVG_CACHE_PA_BLK_NZ;
}

static int is_nz(kvg_cache_mode m)
{
    return m == KVG_CACHE_PA_NZ || m == KVG_CACHE_PA_BLK_NZ;
}

static int64_t nb_of(const cfg *c) { return (c->s + c->bs - 1) / c->bs; }

static void cfg_default(cfg *c)
{
    memset(c, 0, sizeof *c);
    c->t = c->kdt = c->cdt = KVG_BF16;
    c->mode = KVG_CACHE_PA_BNSD;
    c->profile = KVG_KV_PROFILE_ASCEND950;
    c->b = 2, c->nh = 2, c->s = 3;
    c->dk = 32, c->dr = 8, c->dv = 16;
    c->bs = 4, c->nblocks = 3, c->bcache = 2, c->scache = 5;
    c->out = 1;
}

/* A legal index: distinct targets, entry 1 negative. */
static void fill_index(fx *f)
{
    const cfg *c = &f->c;
    int64_t i, v;
    for (i = 0; i < numel(&f->t[T_INDEX]); i++) {
        if (c->mode == KVG_CACHE_NORM)
            v = (i % c->s + i / c->s) % c->scache;
        else if (is_blk(c->mode))
            v = i * c->bs + i % c->bs;
        else
            v = (i * 5 + 3) % (c->nblocks * c->bs);
        set_i64(&f->t[T_INDEX], i, i == 1 ? -1 : v);
    }
}

static kvg_tensor qparam(int form, int64_t nh, int64_t d, uint64_t seed,
                         int offset)
{
    int64_t sh[2];
    kvg_tensor t;
    int64_t i;
    memset(&t, 0, sizeof t);
    if (form == 0)
        return t;
    sh[0] = form == 1 ? nh : d;
    sh[1] = d;
    t = kvgt_tensor_new(KVG_FP32, form == 1 ? 2 : 1, sh, seed);
    for (i = 0; i < numel(&t); i++) {
        float v = offset ? (float)(i % 7) - 3.25f : 0.5f + (float)(i % 5);
        memcpy((unsigned char *)t.data + i * 4, &v, 4);
    }
    return t;
}

static void fx_build(fx *f, const cfg *c)
{
    const int norm = c->mode == KVG_CACHE_NORM;
    int64_t sh[4];
    int i;

    memset(f, 0, sizeof *f);
    f->c = *c;
    sh[0] = c->b, sh[1] = c->nh, sh[2] = c->s, sh[3] = c->dk;
    f->t[T_KV] = kvgt_tensor_new(c->t, 4, sh, 1);
    fill_values(&f->t[T_KV], 21, 0.125f);
    f->t[T_KR] = kvgt_tensor_new(c->t, 4, sh, 12);
    sh[3] = c->dv;
    f->t[T_V] = kvgt_tensor_new(c->t, 4, sh, 14);
    fill_values(&f->t[T_V], 24, 0.125f);
    f->t[T_CR] = kvgt_tensor_new(c->t, 4, sh, 13);
    sh[0] = c->dk;
    f->t[T_GAMMA] = kvgt_tensor_new(c->t, 1, sh, 2);
    fill_values(&f->t[T_GAMMA], 22, 0.25f);
    sh[0] = c->b, sh[1] = c->nh, sh[2] = c->srope ? c->srope : c->s;
    sh[3] = c->dr;
    f->t[T_COS] = kvgt_tensor_new(c->t, 4, sh, 3);
    fill_values(&f->t[T_COS], 23, 0.0625f);
    f->t[T_SIN] = kvgt_tensor_new(c->t, 4, sh, 4);
    fill_values(&f->t[T_SIN], 25, 0.0625f);
    if (norm) {
        sh[0] = c->b, sh[1] = c->s;
        f->t[T_INDEX] = kvgt_tensor_new(KVG_INT64, 2, sh, 5);
    } else {
        sh[0] = c->b * (is_blk(c->mode) ? nb_of(c) : c->s);
        f->t[T_INDEX] = kvgt_tensor_new(KVG_INT64, 1, sh, 5);
    }
    fill_index(f);
    if (norm)
        sh[0] = c->bcache, sh[1] = c->nh, sh[2] = c->scache;
    else
        sh[0] = c->nblocks, sh[1] = c->bs, sh[2] = c->nh;
    sh[3] = c->dk;
    f->t[T_KC] = kvgt_tensor_new(c->kdt, 4, sh, 6);
    sh[3] = c->dv;
    f->t[T_CC] = kvgt_tensor_new(c->cdt, 4, sh, 7);
    f->t[T_KS] = qparam(c->kscale, c->nh, c->dk, 8, 0);
    f->t[T_CS] = qparam(c->cscale, c->nh, c->dv, 9, 0);
    f->t[T_KO] = qparam(c->koff, c->nh, c->dk, 10, 1);
    f->t[T_CO] = qparam(c->coff, c->nh, c->dv, 11, 1);
    for (i = 0; i < T_N; i++) {
        f->owned[i] = f->t[i].data;
        f->owned_n[i] = f->t[i].nbytes;
    }
    kvg_kv_rms_norm_rope_cache_args_init(&f->a);
    f->a.kv = &f->t[T_KV];
    f->a.gamma = &f->t[T_GAMMA];
    f->a.cos = &f->t[T_COS];
    f->a.sin = &f->t[T_SIN];
    f->a.index = &f->t[T_INDEX];
    f->a.k_cache = &f->t[T_KC];
    f->a.ckv_cache = &f->t[T_CC];
    f->a.k_rope_scale = c->kscale ? &f->t[T_KS] : NULL;
    f->a.c_kv_scale = c->cscale ? &f->t[T_CS] : NULL;
    f->a.k_rope_offset = c->koff ? &f->t[T_KO] : NULL;
    f->a.c_kv_offset = c->coff ? &f->t[T_CO] : NULL;
    f->a.v = &f->t[T_V];
    f->a.k_rope = &f->t[T_KR];
    f->a.c_kv = &f->t[T_CR];
    f->a.is_output_kv = c->out;
    f->a.cache_mode = c->mode;
    f->a.profile = c->profile;
    f->a.epsilon = 1e-6;
}

static void fx_snapshot(fx *f)
{
    int i;
    for (i = 0; i < T_N; i++) {
        f->snap[i] = (unsigned char *)malloc(f->owned_n[i] + 1);
        assert_non_null(f->snap[i]);
        if (f->owned[i] != NULL)
            memcpy(f->snap[i], f->owned[i], f->owned_n[i]);
    }
}

static void fx_free(fx *f)
{
    int i;
    for (i = 0; i < T_N; i++) {
        free(f->owned[i]);
        free(f->snap[i]);
    }
    free(f->ws);
}

static void fx_workspace(fx *f)
{
    kvg_diag d;
    kvg_status st = kvg_kv_rms_norm_rope_cache_workspace_size(
        &f->a, &f->ws_size, &d);
    if (st != KVG_OK)
        fail_msg("base configuration is invalid: %s", d.message);
    f->ws = kvgt_alloc_poisoned(f->ws_size, 99);
    f->a.workspace = f->ws;
    f->a.workspace_size = f->ws_size;
}

/* Run a valid call; inputs (v among them) must be unchanged. */
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
    for (i = 0; i < T_N; i++)
        if (i != T_KC && i != T_CC && i != T_KR && i != T_CR &&
            f->owned[i] != NULL)
            kvgt_assert_bytes_equal(f->owned[i], f->snap[i], f->owned_n[i],
                                    k_names[i]);
}

static unsigned char *copy_snap(fx *f, int i)
{
    unsigned char *img = (unsigned char *)malloc(f->owned_n[i]);
    assert_non_null(img);
    memcpy(img, f->snap[i], f->owned_n[i]);
    return img;
}

static void put_row(kvg_tensor *t, int64_t row, const uint16_t *v, size_t n)
{
    memcpy((unsigned char *)t->data + (size_t)row * n * 2, v, n * 2);
}

/* ---- 1. first principles ------------------------------------------------ */

/* Dk = 4, R = 2, Dv = 4, epsilon 0, fp16. gamma [1.5, -0.25, 3, 0.5],
 * cos [1, 0.5], sin [0.5, 2] for every token and head.
 * Head 0: kv [2, -2, 2, -2]: sum x^2 = 16, mean 4, rms 2,
 *   y = (x / 2) * gamma = [1.5, 0.25, 3, -0.5]; RoPE of y[0:2], x1 = 1.5,
 *   x2 = 0.25: r0 = 1.5*1 + (-0.25)*0.5 = 1.375, r1 = 0.25*0.5 + 1.5*2 =
 *   3.125; K row [1.375, 3.125, 3, -0.5] (y[2:] unrotated).
 * Head 1: kv [2, 2, -2, 2]: rms 2, y = [1, 1, -1, 1] * gamma =
 *   [1.5, -0.25, -3, 0.5]; x1 = 1.5, x2 = -0.25: r0 = 1.5 + 0.125 = 1.625,
 *   r1 = -0.125 + 3 = 2.875; K row [1.625, 2.875, -3, 0.5].
 * v head 0 [0.75, -1, 5, 0.125], head 1 [-0.75, 1, -5, 0.25]. All exact. */
static const uint16_t h_kv[2][4] = {{0x4000, 0xC000, 0x4000, 0xC000},
                                    {0x4000, 0x4000, 0xC000, 0x4000}};
static const uint16_t h_gamma[4] = {0x3E00, 0xB400, 0x4200, 0x3800};
static const uint16_t h_cos[2] = {0x3C00, 0x3800};
static const uint16_t h_sin[2] = {0x3800, 0x4000};
static const uint16_t h_k[2][4] = {{0x3D80, 0x4240, 0x4200, 0xB800},
                                   {0x3E80, 0x41C0, 0xC200, 0x3800}};
static const uint16_t h_v[2][4] = {{0x3A00, 0xBC00, 0x4500, 0x3000},
                                   {0xBA00, 0x3C00, 0xC500, 0x3400}};

/* The hand rows in every (b, n, s) of a built call. */
static void hand_rows(fx *f)
{
    const cfg *c = &f->c;
    int64_t b, n, s, row;
    for (b = 0; b < c->b; b++)
        for (n = 0; n < c->nh; n++)
            for (s = 0; s < c->s; s++) {
                row = (b * c->nh + n) * c->s + s;
                put_row(&f->t[T_KV], row, h_kv[n], 4);
                put_row(&f->t[T_V], row, h_v[n], 4);
                put_row(&f->t[T_COS], row, h_cos, 2);
                put_row(&f->t[T_SIN], row, h_sin, 2);
            }
    put_row(&f->t[T_GAMMA], 0, h_gamma, 4);
    f->a.epsilon = 0.0;
}

static void hand_cfg(cfg *c, kvg_cache_mode mode)
{
    cfg_default(c);
    c->t = c->kdt = c->cdt = KVG_FP16;
    c->mode = mode;
    c->b = 1, c->nh = 2, c->s = 2;
    c->dk = 4, c->dr = 2, c->dv = 4;
    c->bs = 4, c->nblocks = 2;
}

/* PA: token 0 at slot 5, token 1 skipped. Both heads of slot 5 hold the
 * K row and v; outputs hold every token (the skipped one too). */
static void test_hand_pa_fp16(void **state)
{
    unsigned char *kimg, *cimg;
    int64_t n, s;
    fx f;
    cfg c;
    (void)state;
    hand_cfg(&c, KVG_CACHE_PA);
    fx_build(&f, &c);
    hand_rows(&f);
    set_i64(&f.t[T_INDEX], 0, 5);
    set_i64(&f.t[T_INDEX], 1, -1);
    run_ok(&f);
    kimg = copy_snap(&f, T_KC);
    cimg = copy_snap(&f, T_CC);
    for (n = 0; n < 2; n++) {
        memcpy(kimg + (size_t)((5 * 2 + n) * 4) * 2, h_k[n], 8); /* (p*N+n)*D */
        memcpy(cimg + (size_t)((5 * 2 + n) * 4) * 2, h_v[n], 8);
        for (s = 0; s < 2; s++) {
            kvgt_assert_bytes_equal((unsigned char *)f.t[T_KR].data +
                                        (size_t)((n * 2 + s) * 4) * 2,
                                    h_k[n], 8, "k_rope");
            kvgt_assert_bytes_equal((unsigned char *)f.t[T_CR].data +
                                        (size_t)((n * 2 + s) * 4) * 2,
                                    h_v[n], 8, "c_kv");
        }
    }
    kvgt_assert_bytes_equal(f.t[T_KC].data, kimg, f.owned_n[T_KC], "k_cache");
    kvgt_assert_bytes_equal(f.t[T_CC].data, cimg, f.owned_n[T_CC],
                            "ckv_cache");
    free(kimg);
    free(cimg);
    fx_free(&f);
}

/* Norm, two batches of one token, Scache 3, int8 caches with per-head
 * scales [N, D] (the scale multiplies, then the offset is added, then
 * round half to even and saturate):
 *   K head 0: [1.375, 3.125, 3, -0.5] * [2, 2, 1, 4] = [2.75, 6.25, 3, -2]
 *             + [0.5, 0, 0, 0] = [3.25, 6.25, 3, -2] -> [3, 6, 3, -2]
 *   K head 1: [1.625, 2.875, -3, 0.5] * [1, 0.5, 2, 10] = [1.625, 1.4375,
 *             -6, 5] + [0, 0.25, 0, 200] = [1.625, 1.6875, -6, 205]
 *             -> [2, 2, -6, 127 (saturated)]
 *   V head 0: [0.75, -1, 5, 0.125] * 2 = [1.5, -2, 10, 0.25] -> [2 (tie to
 *             even), -2, 10, 0]; head 1 * 4 = [-3, 4, -20, 1]
 * (with head 0's scale and offset rows for both heads, head 1 would be
 * [4, 6, -3, 2] and [-2, 2, -10, 0]: different codes.) Batch 0 writes
 * position 2, batch 1 position 0: element ((b*N + n)*Scache + p)*D. */
static void test_hand_norm_int8_heads(void **state)
{
    static const float ks[8] = {2, 2, 1, 4, 1, 0.5f, 2, 10};
    static const float ko[8] = {0.5f, 0, 0, 0, 0, 0.25f, 0, 200};
    static const float cs[8] = {2, 2, 2, 2, 4, 4, 4, 4};
    static const int8_t kq[2][4] = {{3, 6, 3, -2}, {2, 2, -6, 127}};
    static const int8_t cq[2][4] = {{2, -2, 10, 0}, {-3, 4, -20, 1}};
    static const int64_t pos[2] = {2, 0};
    unsigned char *kimg, *cimg;
    int64_t b, n;
    size_t at;
    fx f;
    cfg c;
    (void)state;
    hand_cfg(&c, KVG_CACHE_NORM);
    c.b = 2, c.s = 1, c.bcache = 2, c.scache = 3;
    c.kdt = c.cdt = KVG_INT8;
    c.kscale = c.koff = c.cscale = 1;
    fx_build(&f, &c);
    hand_rows(&f);
    memcpy(f.t[T_KS].data, ks, sizeof ks);
    memcpy(f.t[T_KO].data, ko, sizeof ko);
    memcpy(f.t[T_CS].data, cs, sizeof cs);
    set_i64(&f.t[T_INDEX], 0, pos[0]);
    set_i64(&f.t[T_INDEX], 1, pos[1]);
    run_ok(&f);
    kimg = copy_snap(&f, T_KC);
    cimg = copy_snap(&f, T_CC);
    for (b = 0; b < 2; b++)
        for (n = 0; n < 2; n++) {
            at = (size_t)(((b * 2 + n) * 3 + pos[b]) * 4);
            memcpy(kimg + at, kq[n], 4);
            memcpy(cimg + at, cq[n], 4);
        }
    kvgt_assert_bytes_equal(f.t[T_KC].data, kimg, f.owned_n[T_KC], "k_cache");
    kvgt_assert_bytes_equal(f.t[T_CC].data, cimg, f.owned_n[T_CC],
                            "ckv_cache");
    /* the outputs are the unquantised rows */
    kvgt_assert_bytes_equal(f.t[T_KR].data, h_k[0], 8, "k_rope b0 n0");
    kvgt_assert_bytes_equal((unsigned char *)f.t[T_KR].data + 8, h_k[1], 8,
                            "k_rope b0 n1");
    kvgt_assert_bytes_equal((unsigned char *)f.t[T_CR].data + 24, h_v[1], 8,
                            "c_kv b1 n1");
    free(kimg);
    free(cimg);
    fx_free(&f);
}

/* ---- 2. addressing of every mode ------------------------------------------ */

/* The element offset of channel c of head n for token (b, s), written out
 * from the spec (reference/kv_rms_norm_rope_cache_v2.md section 2), or -1
 * when the token is skipped. d is the cache depth, c0 its C0. */
static int64_t spec_offset(const fx *f, int64_t b, int64_t s, int64_t n,
                           int64_t ch, int64_t d, int64_t c0)
{
    const cfg *c = &f->c;
    const kvg_tensor *ix = &f->t[T_INDEX];
    int64_t p, pg, o, v;
    if (c->mode == KVG_CACHE_NORM) {
        memcpy(&p, (const unsigned char *)ix->data + (b * c->s + s) * 8, 8);
        return p < 0 ? -1 : ((b * c->nh + n) * c->scache + p) * d + ch;
    }
    if (is_blk(c->mode)) {
        memcpy(&v, (const unsigned char *)ix->data +
                       (b * nb_of(c) + s / c->bs) * 8, 8);
        if (v < 0)
            return -1;
        pg = v / c->bs;
        o = s % c->bs;
    } else {
        memcpy(&p, (const unsigned char *)ix->data + (b * c->s + s) * 8, 8);
        if (p < 0)
            return -1;
        pg = p / c->bs;
        o = p % c->bs;
    }
    if (is_nz(c->mode)) /* page [N, D/C0, BS, C0] */
        return ((pg * c->nh + n) * (d / c0) + ch / c0) * c->bs * c0 +
               o * c0 + ch % c0;
    return ((pg * c->bs + o) * c->nh + n) * d + ch;
}

/* The K rows (k_rope) of f's inputs, from a PA_BNSD twin of its call:
 * the same shapes and values, every index negative, outputs on. V2 writes
 * no outputs in Norm mode without quantisation, so a Norm call gets its
 * expected rows from the twin. The caller frees them. */
static unsigned char *k_rows_from_pa_twin(const fx *f)
{
    unsigned char *rows;
    int64_t i;
    cfg c = f->c;
    fx g;
    c.mode = KVG_CACHE_PA_BNSD;
    c.out = 1;
    fx_build(&g, &c);
    for (i = 0; i < numel(&g.t[T_INDEX]); i++)
        set_i64(&g.t[T_INDEX], i, -1);
    run_ok(&g);
    rows = (unsigned char *)malloc(g.owned_n[T_KR]);
    assert_non_null(rows);
    memcpy(rows, g.t[T_KR].data, g.owned_n[T_KR]);
    fx_free(&g);
    return rows;
}

/* Run `f` (T caches) and check both whole cache images: the rows the spec
 * addresses hold the K rows (k_rope's, or in Norm mode, which writes no
 * outputs here, its PA twin's) and v's rows, every other byte its
 * poison. */
static void check_addressing(fx *f)
{
    const cfg *c = &f->c;
    const size_t es = kvg_dtype_size(c->t);
    const int64_t c0 = 32 / (int64_t)es;
    unsigned char *kimg, *cimg, *twin = NULL;
    const unsigned char *krows;
    int64_t b, s, n, ch, off, row;

    if (c->out)
        krows = (const unsigned char *)f->t[T_KR].data;
    else
        krows = twin = k_rows_from_pa_twin(f);
    run_ok(f);
    kimg = copy_snap(f, T_KC);
    cimg = copy_snap(f, T_CC);
    for (b = 0; b < c->b; b++)
        for (s = 0; s < c->s; s++)
            for (n = 0; n < c->nh; n++) {
                row = (b * c->nh + n) * c->s + s;
                for (ch = 0; ch < c->dk; ch++) {
                    off = spec_offset(f, b, s, n, ch, c->dk, c0);
                    if (off >= 0)
                        memcpy(kimg + (size_t)off * es,
                               krows + (size_t)(row * c->dk + ch) * es, es);
                }
                for (ch = 0; ch < c->dv; ch++) {
                    off = spec_offset(f, b, s, n, ch, c->dv, c0);
                    if (off >= 0)
                        memcpy(cimg + (size_t)off * es,
                               f->snap[T_V] +
                                   (size_t)(row * c->dv + ch) * es, es);
                }
            }
    kvgt_assert_bytes_equal(f->t[T_KC].data, kimg, f->owned_n[T_KC],
                            "k_cache");
    kvgt_assert_bytes_equal(f->t[T_CC].data, cimg, f->owned_n[T_CC],
                            "ckv_cache");
    /* c_kv is a copy of v */
    if (c->out)
        kvgt_assert_bytes_equal(f->t[T_CR].data, f->snap[T_V],
                                f->owned_n[T_V], "c_kv");
    free(kimg);
    free(cimg);
    free(twin);
}

static void idx(fx *f, int64_t n, const int64_t *v)
{
    int64_t i;
    for (i = 0; i < n; i++)
        set_i64(&f->t[T_INDEX], i, v[i]);
}

static void test_addr_every_mode(void **state)
{
    static const kvg_cache_mode modes[5] = {
        KVG_CACHE_NORM, KVG_CACHE_PA_BNSD, KVG_CACHE_PA_NZ,
        KVG_CACHE_PA_BLK_BNSD, KVG_CACHE_PA_BLK_NZ};
    int i;
    (void)state;
    for (i = 0; i < 5; i++) {
        fx f;
        cfg c;
        cfg_default(&c);
        c.mode = modes[i];
        c.out = c.mode != KVG_CACHE_NORM; /* V2 Norm: T caches, no outputs */
        if (is_blk(c.mode))
            c.s = 6, c.nblocks = 4; /* a full and a partial block of 4 */
        fx_build(&f, &c);
        check_addressing(&f);
        fx_free(&f);
    }
}

/* 931b5c8ac defect 2: decode (Skv 1) into Scache 8 with four batches; the
 * batch stride is N * Scache * D. */
static void test_addr_norm_skv_ne_scache(void **state)
{
    static const int64_t v[4] = {7, 0, 3, 7};
    fx f;
    cfg c;
    (void)state;
    cfg_default(&c);
    c.t = c.kdt = c.cdt = KVG_FP16;
    c.mode = KVG_CACHE_NORM;
    c.out = 0;
    c.b = 4, c.s = 1, c.bcache = 5, c.scache = 8;
    fx_build(&f, &c);
    idx(&f, 4, v);
    check_addressing(&f);
    fx_free(&f);
}

/* defect 3: PA_BLK_NZ block table 48, 16 at BlockSize 16 is pages 3 and 1;
 * defect 4: Dk = Dv = C0 (16 for fp16): one run per head row. */
static void test_addr_blk_nz_pages_from_values(void **state)
{
    static const int64_t v[2] = {48, 16};
    fx f;
    cfg c;
    (void)state;
    cfg_default(&c);
    c.t = c.kdt = c.cdt = KVG_FP16;
    c.mode = KVG_CACHE_PA_BLK_NZ;
    c.b = 1, c.s = 20, c.bs = 16, c.nblocks = 4;
    c.dk = 16, c.dr = 16, c.dv = 16;
    fx_build(&f, &c);
    idx(&f, 2, v);
    check_addressing(&f);
    fx_free(&f);
}

/* defect 5: the last legal slot of PA_NZ and position of Norm. */
static void test_addr_upper_bound(void **state)
{
    static const int64_t pa[6] = {11, 0, 10, 1, -1, 5};
    static const int64_t nm[6] = {4, 0, 3, 4, 1, 0};
    fx f;
    cfg c;
    (void)state;
    cfg_default(&c);
    c.mode = KVG_CACHE_PA_NZ; /* 3 blocks of 4: slots 0..11 */
    c.dk = 16, c.dv = 16;
    fx_build(&f, &c);
    idx(&f, 6, pa);
    check_addressing(&f);
    fx_free(&f);
    cfg_default(&c);
    c.mode = KVG_CACHE_NORM; /* Scache 5: positions 0..4 */
    c.out = 0;
    fx_build(&f, &c);
    idx(&f, 6, nm);
    check_addressing(&f);
    fx_free(&f);
}

/* Without is_output_kv the outputs are never touched (NULL is fine). */
static void test_no_outputs_untouched(void **state)
{
    fx f;
    cfg c;
    (void)state;
    cfg_default(&c);
    c.out = 0;
    fx_build(&f, &c);
    run_ok(&f);
    kvgt_assert_bytes_equal(f.t[T_KR].data, f.snap[T_KR], f.owned_n[T_KR],
                            "k_rope");
    kvgt_assert_bytes_equal(f.t[T_CR].data, f.snap[T_CR], f.owned_n[T_CR],
                            "c_kv");
    fx_free(&f);
}

/* ---- 3. validation -------------------------------------------------------- */

typedef struct vcase {
    void (*base)(cfg *c);
    void (*fbreak)(fx *f);
    const char *tensor;
    const char *fragment;
} vcase;

static void b_pa(cfg *c) { cfg_default(c); }
static void b_blk(cfg *c) /* 4 pages of 4: entries 0, 9, 15 (one -1) */
{
    cfg_default(c);
    c->mode = KVG_CACHE_PA_BLK_BNSD;
    c->s = 6;
    c->nblocks = 4;
}
static void b_norm(cfg *c) /* T caches: no outputs in V2 Norm */
{
    cfg_default(c);
    c->mode = KVG_CACHE_NORM;
    c->out = 0;
}
static void b_quant(cfg *c)
{
    cfg_default(c);
    c->kdt = c->cdt = KVG_INT8;
    c->kscale = c->cscale = 1;
}
static void b_a2(cfg *c)
{
    cfg_default(c);
    c->profile = KVG_KV_PROFILE_A2A3;
    c->dk = 192, c->dr = 64, c->dv = 128;
    c->b = 1, c->s = 1, c->nblocks = 1;
}
static void b_a2_norm_quant(cfg *c)
{
    b_a2(c);
    c->mode = KVG_CACHE_NORM;
    c->kdt = KVG_INT8;
    c->kscale = 1;
    c->koff = 1; /* V2 takes offsets on A2/A3 */
}

static void m_v_data_null(fx *f) { f->t[T_V].data = NULL; }
static void m_v_fp16(fx *f) { f->t[T_V].dtype = KVG_FP16; }
static void m_v_rank3(fx *f)
{
    f->t[T_V].rank = 3;
    f->t[T_V].shape[2] *= f->t[T_V].shape[3];
}
static void m_v_heads(fx *f)
{
    f->t[T_V].shape[1] = 1;
    f->t[T_V].shape[2] *= 2;
}
static void m_gamma_dk(fx *f)
{
    f->t[T_GAMMA].shape[0] /= 2;
    f->t[T_GAMMA].nbytes /= 2;
}
static void m_cos_heads(fx *f)
{
    f->t[T_COS].shape[1] = 1;
    f->t[T_COS].shape[2] *= 2;
}
/* cos and sin [2, 2, 3, 8] read as [2, 2, 3, 3] (the buffers are larger) */
static void m_cos_odd(fx *f)
{
    f->t[T_COS].shape[3] = f->t[T_SIN].shape[3] = 3;
    f->t[T_COS].nbytes = f->t[T_SIN].nbytes = 2 * 2 * 3 * 3 * 2;
}
/* kv [2, 2, 3, 32] read as Dk 4 (and gamma [4]): R 8 is wider */
static void m_rope_wide(fx *f)
{
    f->t[T_KV].shape[3] = 4;
    f->t[T_KV].nbytes = 2 * 2 * 3 * 4 * 2;
    f->t[T_GAMMA].shape[0] = 4;
    f->t[T_GAMMA].nbytes = 4 * 2;
}
static void m_kc_heads(fx *f)
{
    f->t[T_KC].shape[2] = 1;
    f->t[T_KC].shape[1] *= 2;
}
static void m_norm_cc_heads(fx *f)
{
    f->t[T_CC].shape[1] = 1;
    f->t[T_CC].shape[2] *= 2;
}
static void m_cc_depth(fx *f)
{
    f->t[T_CC].shape[3] /= 2;
    f->t[T_CC].nbytes /= 2;
}
static void m_ks_1d(fx *f)
{
    f->t[T_KS].rank = 1;
    f->t[T_KS].shape[0] = f->t[T_KS].shape[1] * 2;
}
static void m_ks_scalar(fx *f)
{
    f->t[T_KS].rank = 1;
    f->t[T_KS].shape[0] = 1;
    f->t[T_KS].nbytes = 4;
}
static void m_bs0(fx *f)
{
    f->t[T_KC].shape[1] = 0;
    f->t[T_KC].nbytes = 0;
}
static void m_pa_oob(fx *f) { set_i64(&f->t[T_INDEX], 2, 12); }
static void m_blk_oob(fx *f) { set_i64(&f->t[T_INDEX], 3, 16); }
static void m_norm_oob(fx *f) { set_i64(&f->t[T_INDEX], 3, 5); }
static void m_pa_dup(fx *f) { set_i64(&f->t[T_INDEX], 5, 3); }
static void m_v_nan(fx *f)
{
    static const uint16_t nan16 = 0x7FC1;
    memcpy((unsigned char *)f->t[T_V].data + 6, &nan16, 2);
}
/* the fixture's k_rope / c_kv are there, only the flag was off */
static void m_out_on(fx *f) { f->a.is_output_kv = 1; }
static void m_order_a2(fx *f) { f->a.reduce_order = KVG_REDUCE_A2; }
static void m_order_950(fx *f) { f->a.reduce_order = KVG_REDUCE_NPU950; }
static void m_cr_in_v(fx *f) { f->t[T_CR].data = f->t[T_V].data; }
static void m_a2_dv64(fx *f)
{
    f->t[T_V].shape[3] = 64;
    f->t[T_V].nbytes /= 2;
}
static void m_a2_heads3(fx *f)
{
    (void)f; /* replaced by b_a2 with N 3 below */
}
/* the int8 K cache [2, 2, 5, 192] read as a bf16 [1, 2, 5, 192] one,
 * without its scale: no quantisation left */
static void m_a2_norm_out(fx *f)
{
    f->a.k_rope_scale = NULL;
    f->a.k_rope_offset = NULL;
    f->t[T_KC].dtype = KVG_BF16;
    f->t[T_KC].shape[0] = 1;
}

static void b_a2_heads3(cfg *c)
{
    b_a2(c);
    c->nh = 3;
}

#define V(b, m, t, frag) {b, m, t, frag}
static const vcase k_vcases[] = {
    V(b_pa, m_v_data_null, "v", "data pointer is NULL"),
    V(b_pa, m_v_fp16, "v", "dtype must be bf16, got fp16"),
    V(b_pa, m_v_rank3, "v", "rank"),
    V(b_pa, m_v_heads, "v", "N, kv dim 1"),
    V(b_pa, m_gamma_dk, "gamma", "Dk, kv dim 3"),
    V(b_pa, m_cos_heads, "cos", "N, kv dim 1"),
    V(b_pa, m_cos_odd, "cos", "must be even"),
    V(b_pa, m_rope_wide, "cos", "at most Dk = 4"),
    V(b_pa, m_kc_heads, "k_cache", "N, kv dim 1"),
    V(b_norm, m_norm_cc_heads, "ckv_cache", "N, kv dim 1"),
    V(b_pa, m_cc_depth, "ckv_cache", "Dv, v dim 3"),
    V(b_quant, m_ks_1d, "k_rope_scale", "[N, D] = [2, 32]"),
    V(b_quant, m_ks_scalar, "k_rope_scale", "no broadcast"),
    V(b_blk, m_bs0, "k_cache", "BlockSize"),
    V(b_pa, m_pa_oob, "index", "slot 12, outside [0, 12)"),
    V(b_pa, m_pa_dup, "index", "both write slot 3"),
    V(b_blk, m_blk_oob, "index", "is 16, outside [0, 16)"),
    V(b_norm, m_norm_oob, "index", "position 5, outside [0, 5)"),
    V(b_norm, m_out_on, "is_output_kv", "only with a quantised"),
    V(b_pa, m_v_nan, "v", "element 3"),
    V(b_pa, m_order_a2, "reduce_order", "48-lane"),
    V(b_pa, m_order_950, "reduce_order", "not modelled"),
    V(b_pa, m_cr_in_v, "c_kv", "overlaps v"),
    V(b_a2, m_a2_dv64, "v", "must be 128"),
    V(b_a2_heads3, m_a2_heads3, "kv", "1, 2, 4 or 8"),
    V(b_a2_norm_quant, m_a2_norm_out, "is_output_kv", "only with a quantised"),
};

static void run_vcase(void **state)
{
    const vcase *v = (const vcase *)*state;
    kvg_diag d;
    kvg_status st;
    int i;
    fx f;
    cfg c;

    v->base(&c);
    fx_build(&f, &c);
    if (v->base != b_a2_heads3)
        fx_workspace(&f); /* the base is valid */
    else {
        f.ws_size = 1 << 20;
        f.ws = kvgt_alloc_poisoned(f.ws_size, 98);
        f.a.workspace = f.ws;
        f.a.workspace_size = f.ws_size;
    }
    v->fbreak(&f);
    fx_snapshot(&f);
    kvg_diag_clear(&d);
    st = kvg_kv_rms_norm_rope_cache(&f.a, &d);
    if (st == KVG_OK || strcmp(d.tensor, v->tensor) != 0 ||
        strstr(d.message, v->fragment) == NULL)
        fail_msg("got %s [%s] \"%s\"; want [%s] with \"%s\"",
                 kvg_status_name(st), d.tensor, d.message, v->tensor,
                 v->fragment);
    assert_int_equal(st, v->fbreak == m_v_data_null ? KVG_ERR_PARAM_NULLPTR
                                                    : KVG_ERR_PARAM_INVALID);
    for (i = 0; i < T_N; i++)
        if (f.owned[i] != NULL)
            kvgt_assert_bytes_equal(f.owned[i], f.snap[i], f.owned_n[i],
                                    k_names[i]);
    fx_free(&f);
}

/* V2 Norm writes the outputs when either cache is quantised, in both
 * profiles: ascend950 with only ckv_cache int8, a2a3 with only k_cache
 * int8; c_kv is a copy of v either way. */
static void test_norm_outputs_one_quant_cache(void **state)
{
    fx f;
    cfg c;
    int p;
    (void)state;
    for (p = 0; p < 2; p++) {
        if (p == 0) {
            b_norm(&c);
            c.cdt = KVG_INT8;
        } else {
            b_a2_norm_quant(&c); /* K cache int8 with an offset */
        }
        c.cscale = p == 0;
        c.out = 1;
        fx_build(&f, &c);
        run_ok(&f);
        kvgt_assert_bytes_equal(f.t[T_CR].data, f.snap[T_V], f.owned_n[T_V],
                                "c_kv");
        fx_free(&f);
    }
}

/* The a2a3 profile's V2 shape (Dk 192, R 64, Dv 128, N 2) runs, with
 * offsets and quantisation in Norm mode, both of which V1 refuses there. */
static void test_a2a3_accepts_v2(void **state)
{
    fx f;
    cfg c;
    (void)state;
    b_a2_norm_quant(&c);
    c.nh = 2, c.b = 2, c.s = 2, c.bcache = 2, c.scache = 3;
    fx_build(&f, &c);
    run_ok(&f);
    fx_free(&f);
}

int main(void)
{
    size_t n = 0, i;
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_hand_pa_fp16),
        cmocka_unit_test(test_hand_norm_int8_heads),
        cmocka_unit_test(test_addr_every_mode),
        cmocka_unit_test(test_addr_norm_skv_ne_scache),
        cmocka_unit_test(test_addr_blk_nz_pages_from_values),
        cmocka_unit_test(test_addr_upper_bound),
        cmocka_unit_test(test_no_outputs_untouched),
        cmocka_unit_test(test_norm_outputs_one_quant_cache),
        cmocka_unit_test(test_a2a3_accepts_v2),
    };
    struct CMUnitTest all[sizeof fixed / sizeof fixed[0] +
                          sizeof k_vcases / sizeof k_vcases[0]];
    static char names[sizeof k_vcases / sizeof k_vcases[0]][96];
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        all[n++] = fixed[i];
    for (i = 0; i < sizeof k_vcases / sizeof k_vcases[0]; i++) {
        (void)snprintf(names[i], sizeof names[i], "validation %u: %s [%s]",
                       (unsigned)i, k_vcases[i].tensor,
                       k_vcases[i].fragment);
        all[n].name = names[i];
        all[n].test_func = run_vcase;
        all[n].setup_func = NULL;
        all[n].teardown_func = NULL;
        all[n].initial_state = (void *)&k_vcases[i];
        n++;
    }
    return _cmocka_run_group_tests("kv_rms_norm_rope_cache_v2", all, n, NULL,
                                   NULL);
}
