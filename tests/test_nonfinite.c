/*
 * tests/test_nonfinite.c - every 16-bit code through the operators' data
 * paths, checked from first principles (docs/reliability.md):
 *   - copies (ReshapeAndCache ND, ReshapeAndCacheOmni) move all 65536 fp16
 *     / bf16 codes bit for bit, NaN payloads and signalling NaNs included;
 *   - QkvRmsNormRopeCache's v path into a T cache and v_out_before_quant is
 *     the identity on every non-NaN code and gives the canonical NaN for
 *     each of the NaN codes; into an int8 cache with scale 1 it is
 *     sat8(rint(x)) with NaN -> 0;
 *   - a NaN of any payload or sign in a q row gives the canonical NaN in
 *     the whole q_out row, the same bits for every payload;
 *   - KVHEAD_ROPE's mean of a window holding any NaN code is the canonical
 *     NaN.
 * The NumPy vectors (nonfinite_* cases) cover the arithmetic around these.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "kvgold/reshape_and_cache.h"
#include "kvgold/reshape_and_cache_omni.h"

#define CODES 65536
#define D 128

static uint16_t get16(const kvg_tensor *t, int64_t i)
{
    uint16_t v;
    memcpy(&v, (const unsigned char *)t->data + (size_t)i * 2u, 2);
    return v;
}

static void set16(kvg_tensor *t, int64_t i, uint16_t v)
{
    memcpy((unsigned char *)t->data + (size_t)i * 2u, &v, 2);
}

static int is_nan16(kvg_dtype dt, uint16_t c)
{
    return dt == KVG_FP16 ? (c & 0x7C00) == 0x7C00 && (c & 0x03FF) != 0
                          : (c & 0x7F80) == 0x7F80 && (c & 0x007F) != 0;
}

static uint16_t canonical16(kvg_dtype dt)
{
    return dt == KVG_FP16 ? 0x7E00 : 0x7FC0;
}

static void *workspace(size_t bytes)
{
    return kvgt_alloc_poisoned(bytes, 4242);
}

/* ---- copies ------------------------------------------------------------ */

static void copy_every_code(kvg_dtype dt)
{
    /* 2048 tokens of one 32-channel head: key = codes 0..65535, value the
     * same reversed; token t -> slot (7t) mod slots (7 is coprime to the
     * 2056 slots), so every row lands somewhere else. */
    const int64_t tok = CODES / 32, bs = 8, nb = tok / bs + 1;
    int64_t ks[3], cs[4], ts[1], t, c, s;
    kvg_tensor key, value, kc, vc, slot;
    kvg_reshape_and_cache_args a;
    kvg_diag d;
    size_t need;
    unsigned char *k0;

    ks[0] = tok, ks[1] = 1, ks[2] = 32;
    cs[0] = nb, cs[1] = bs, cs[2] = 1, cs[3] = 32;
    ts[0] = tok;
    key = kvgt_tensor_new(dt, 3, ks, 1);
    value = kvgt_tensor_new(dt, 3, ks, 2);
    kc = kvgt_tensor_new(dt, 4, cs, 3);
    vc = kvgt_tensor_new(dt, 4, cs, 4);
    slot = kvgt_tensor_new(KVG_INT32, 1, ts, 5);
    for (c = 0; c < CODES; c++) {
        set16(&key, c, (uint16_t)c);
        set16(&value, c, (uint16_t)(CODES - 1 - c));
    }
    for (t = 0; t < tok; t++) {
        int32_t v = (int32_t)((t * 7) % (nb * bs));
        memcpy((unsigned char *)slot.data + t * 4, &v, 4);
    }
    k0 = (unsigned char *)malloc(kc.nbytes);
    assert_non_null(k0);
    memcpy(k0, kc.data, kc.nbytes);
    kvg_reshape_and_cache_args_init(&a);
    a.key = &key, a.value = &value, a.key_cache = &kc, a.value_cache = &vc;
    a.slot_mapping = &slot;
    assert_int_equal(kvg_reshape_and_cache_workspace_size(&a, &need, &d),
                     KVG_OK);
    a.workspace = workspace(need), a.workspace_size = need;
    assert_int_equal(kvg_reshape_and_cache(&a, &d), KVG_OK);
    for (t = 0; t < tok; t++) {
        s = (t * 7) % (nb * bs);
        for (c = 0; c < 32; c++) {
            assert_int_equal(get16(&kc, s * 32 + c), (uint16_t)(t * 32 + c));
            assert_int_equal(get16(&vc, s * 32 + c),
                             (uint16_t)(CODES - 1 - (t * 32 + c)));
        }
    }
    /* the 8 slots no token names keep their poison */
    for (s = 0; s < nb * bs; s++) {
        for (t = 0; t < tok && (t * 7) % (nb * bs) != s; t++)
            ;
        if (t == tok)
            assert_memory_equal((unsigned char *)kc.data + s * 64,
                                k0 + s * 64, 64);
    }

    /* Omni: the same tokens as one head of one sequence, o = -1. */
    {
        kvg_reshape_and_cache_omni_args o;
        int64_t one[1] = {1};
        kvg_tensor sm = kvgt_tensor_new(KVG_INT32, 1, one, 6);
        kvg_tensor w = kvgt_tensor_new(KVG_INT32, 1, one, 7);
        kvg_tensor sl = kvgt_tensor_new(KVG_INT32, 1, one, 8);
        kvg_tensor off = kvgt_tensor_new(KVG_INT32, 1, one, 9);
        int32_t v;
        v = 5, memcpy(sm.data, &v, 4);
        v = 0, memcpy(w.data, &v, 4);
        v = (int32_t)tok, memcpy(sl.data, &v, 4);
        v = -1, memcpy(off.data, &v, 4);
        kvg_reshape_and_cache_omni_args_init(&o);
        o.key = &key, o.value = &value, o.key_cache = &kc;
        o.value_cache = &vc, o.slot_mapping = &sm, o.wins = &w;
        o.seq_len = &sl, o.offset_index = &off;
        free(a.workspace);
        assert_int_equal(kvg_reshape_and_cache_omni_workspace_size(&o, &need,
                                                                   &d),
                         KVG_OK);
        o.workspace = a.workspace = workspace(need), o.workspace_size = need;
        assert_int_equal(kvg_reshape_and_cache_omni(&o, &d), KVG_OK);
        for (c = 0; c < CODES; c++)
            assert_int_equal(get16(&kc, 5 * 32 + c), (uint16_t)c);
        kvgt_tensor_free(&sm), kvgt_tensor_free(&w);
        kvgt_tensor_free(&sl), kvgt_tensor_free(&off);
    }
    free(a.workspace);
    free(k0);
    kvgt_tensor_free(&key), kvgt_tensor_free(&value);
    kvgt_tensor_free(&kc), kvgt_tensor_free(&vc), kvgt_tensor_free(&slot);
}

static void test_copy_every_fp16_code(void **state)
{
    (void)state;
    copy_every_code(KVG_FP16);
}

static void test_copy_every_bf16_code(void **state)
{
    (void)state;
    copy_every_code(KVG_BF16);
}

/* ---- QkvRmsNormRopeCache ------------------------------------------------ */

typedef struct qx {
    int64_t qs[4], hn[3];
    kvg_tensor qkv, qg, kg, cs, sn, idx, qo, kc, vc, vs, qb, kb, vb;
    kvg_qkv_rms_norm_rope_cache_args a;
} qx;

/* B=1, S=tok, Nq=Nk=Nv=1, slot t for token t, finite random q/k/cos/sin,
 * v = vcodes row by row; v_cache of dtype vt (scale 1 when int8). */
static void qx_init(qx *x, kvg_dtype t, kvg_dtype vt, int64_t tok)
{
    int64_t sh[4], i;
    kvgt_rng r;
    kvg_diag d;
    size_t need;

    memset(x, 0, sizeof *x);
    kvgt_rng_seed(&r, 99);
    x->qs[0] = 1, x->qs[1] = tok, x->qs[2] = 3, x->qs[3] = D;
    x->hn[0] = x->hn[1] = x->hn[2] = 1;
    sh[0] = tok, sh[1] = 3 * D;
    x->qkv = kvgt_tensor_new(t, 2, sh, 11);
    for (i = 0; i < tok * 3 * D; i++)
        (void)kvg_encode_f32(t, 0.1f + kvgt_rng_unit(&r), KVG_OVF_DEFAULT,
                             (unsigned char *)x->qkv.data + i * 2);
    sh[0] = D;
    x->qg = kvgt_tensor_new(t, 1, sh, 12), x->kg = kvgt_tensor_new(t, 1, sh,
                                                                   13);
    sh[0] = tok, sh[1] = D;
    x->cs = kvgt_tensor_new(t, 2, sh, 14), x->sn = kvgt_tensor_new(t, 2, sh,
                                                                   15);
    for (i = 0; i < D; i++) {
        (void)kvg_encode_f32(t, 1.0f, KVG_OVF_DEFAULT,
                             (unsigned char *)x->qg.data + i * 2);
        (void)kvg_encode_f32(t, 0.5f, KVG_OVF_DEFAULT,
                             (unsigned char *)x->kg.data + i * 2);
    }
    for (i = 0; i < tok * D; i++) {
        (void)kvg_encode_f32(t, kvgt_rng_unit(&r), KVG_OVF_DEFAULT,
                             (unsigned char *)x->cs.data + i * 2);
        (void)kvg_encode_f32(t, kvgt_rng_unit(&r), KVG_OVF_DEFAULT,
                             (unsigned char *)x->sn.data + i * 2);
    }
    sh[0] = tok;
    x->idx = kvgt_tensor_new(KVG_INT64, 1, sh, 16);
    for (i = 0; i < tok; i++)
        memcpy((unsigned char *)x->idx.data + i * 8, &i, 8);
    sh[0] = tok, sh[1] = D;
    x->qo = kvgt_tensor_new(t, 2, sh, 17);
    x->qb = kvgt_tensor_new(t, 2, sh, 18);
    x->kb = kvgt_tensor_new(t, 2, sh, 19);
    x->vb = kvgt_tensor_new(t, 2, sh, 20);
    sh[0] = (tok + 31) / 32, sh[1] = D / 16, sh[2] = 32, sh[3] = 16;
    x->kc = kvgt_tensor_new(t, 4, sh, 21);
    sh[1] = D / kvg_c0_of(vt), sh[3] = kvg_c0_of(vt);
    x->vc = kvgt_tensor_new(vt, 4, sh, 22);
    kvg_qkv_rms_norm_rope_cache_args_init(&x->a);
    x->a.qkv = &x->qkv, x->a.q_gamma = &x->qg, x->a.k_gamma = &x->kg;
    x->a.cos = &x->cs, x->a.sin = &x->sn, x->a.index = &x->idx;
    x->a.q_out = &x->qo, x->a.k_cache = &x->kc, x->a.v_cache = &x->vc;
    x->a.q_out_before_quant = &x->qb, x->a.k_out_before_quant = &x->kb;
    x->a.v_out_before_quant = &x->vb;
    if (vt == KVG_INT8) {
        sh[0] = 1, sh[1] = D;
        x->vs = kvgt_tensor_new(KVG_FP32, 2, sh, 23);
        for (i = 0; i < D; i++) {
            const float one = 1.0f;
            memcpy((unsigned char *)x->vs.data + i * 4, &one, 4);
        }
        x->a.v_scale = &x->vs;
    }
    x->a.qkv_size = x->qs, x->a.qkv_size_len = 4;
    x->a.head_nums = x->hn, x->a.head_nums_len = 3;
    assert_int_equal(kvg_qkv_rms_norm_rope_cache_workspace_size(&x->a, &need,
                                                                &d), KVG_OK);
    x->a.workspace = workspace(need), x->a.workspace_size = need;
}

static void qx_free(qx *x)
{
    kvg_tensor *all[13];
    int i;
    all[0] = &x->qkv, all[1] = &x->qg, all[2] = &x->kg, all[3] = &x->cs;
    all[4] = &x->sn, all[5] = &x->idx, all[6] = &x->qo, all[7] = &x->kc;
    all[8] = &x->vc, all[9] = &x->vs, all[10] = &x->qb, all[11] = &x->kb;
    all[12] = &x->vb;
    for (i = 0; i < 13; i++)
        if (all[i]->data != NULL)
            kvgt_tensor_free(all[i]);
    free(x->a.workspace);
}

/* v element (t, c) of a v_cache [tok/32, 128/C0, 32, C0], slot t. */
static int64_t v_at(const kvg_tensor *vc, int64_t t, int64_t c)
{
    const int64_t c0 = vc->shape[3];
    return (((t / 32) * (D / c0) + c / c0) * 32 + t % 32) * c0 + c % c0;
}

static void v_every_code(kvg_dtype t, kvg_dtype vt)
{
    const int64_t tok = CODES / D;
    qx x;
    kvg_diag d;
    int64_t i;

    qx_init(&x, t, vt, tok);
    for (i = 0; i < CODES; i++) /* v = head 2 of each row */
        set16(&x.qkv, (i / D) * 3 * D + 2 * D + i % D, (uint16_t)i);
    assert_int_equal(kvg_qkv_rms_norm_rope_cache(&x.a, &d), KVG_OK);
    for (i = 0; i < CODES; i++) {
        const uint16_t code = (uint16_t)i;
        const int64_t tk = i / D, c = i % D;
        const uint16_t want = is_nan16(t, code) ? canonical16(t) : code;
        assert_int_equal(get16(&x.vb, i), want);
        if (vt != KVG_INT8) {
            assert_int_equal(get16(&x.vc, v_at(&x.vc, tk, c)), want);
        } else {
            float f;
            double r;
            int8_t got;
            (void)kvg_decode_f32(t, &code, &f);
            /* x / 1 is x; round half to even, saturate, NaN -> 0 */
            r = f != f ? 0.0 : nearbyint((double)f);
            r = r > 127.0 ? 127.0 : r < -128.0 ? -128.0 : r;
            memcpy(&got, (unsigned char *)x.vc.data + v_at(&x.vc, tk, c), 1);
            if (got != (int8_t)r)
                fail_msg("code 0x%04x: int8 %d, want %d", (unsigned)code,
                         (int)got, (int)r);
        }
    }
    qx_free(&x);
}

static void test_v_every_fp16_code(void **state)
{
    (void)state;
    v_every_code(KVG_FP16, KVG_FP16);
    v_every_code(KVG_FP16, KVG_INT8);
}

static void test_v_every_bf16_code(void **state)
{
    (void)state;
    v_every_code(KVG_BF16, KVG_BF16);
    v_every_code(KVG_BF16, KVG_INT8);
}

static void test_q_nan_any_payload(void **state)
{
    /* The same row with a NaN of each payload/sign: q_out row all the
     * canonical NaN, identical bits whichever NaN went in. */
    static const uint16_t nans[2][4] = {{0x7E00, 0xFE01, 0x7C01, 0xFFFF},
                                        {0x7FC0, 0xFF81, 0x7F81, 0xFFFF}};
    int k, dt;
    (void)state;
    for (dt = 0; dt < 2; dt++) {
        const kvg_dtype t = dt == 0 ? KVG_FP16 : KVG_BF16;
        for (k = 0; k < 4; k++) {
            qx x;
            kvg_diag d;
            int64_t c;
            qx_init(&x, t, t, 2);
            set16(&x.qkv, 3 * D + 17, nans[dt][k]); /* token 1, q ch 17 */
            assert_int_equal(kvg_qkv_rms_norm_rope_cache(&x.a, &d), KVG_OK);
            for (c = 0; c < D; c++) {
                assert_int_equal(get16(&x.qo, D + c), canonical16(t));
                assert_false(is_nan16(t, get16(&x.qo, c))); /* token 0 */
            }
            qx_free(&x);
        }
    }
}

/* ---- KVHEAD_ROPE mean ---------------------------------------------------- */

static void test_mean_of_every_nan(void **state)
{
    /* One head, L = 2, o = 0, w = 2: the cache gets exactly one mean token,
     * of rows 0 and 1. Row 0 holds every fp16 NaN code (2046, one per
     * channel, D = 2048), row 1 ordinary values: every mean is the
     * canonical NaN; the two non-NaN channels are the plain mean. */
    const int64_t dim = 2048;
    int64_t ks[3], cs[4], one[1] = {1}, c, n = 0;
    kvg_tensor key, value, kc, vc, sm, w, sl, off;
    kvg_reshape_and_cache_args a;
    kvg_diag d;
    size_t need;
    int32_t v;
    (void)state;

    ks[0] = 2, ks[1] = 1, ks[2] = dim;
    cs[0] = 1, cs[1] = 4, cs[2] = 1, cs[3] = dim;
    key = kvgt_tensor_new(KVG_FP16, 3, ks, 31);
    value = kvgt_tensor_new(KVG_FP16, 3, ks, 32);
    kc = kvgt_tensor_new(KVG_FP16, 4, cs, 33);
    vc = kvgt_tensor_new(KVG_FP16, 4, cs, 34);
    sm = kvgt_tensor_new(KVG_INT32, 1, one, 35);
    w = kvgt_tensor_new(KVG_INT32, 1, one, 36);
    sl = kvgt_tensor_new(KVG_INT32, 1, one, 37);
    off = kvgt_tensor_new(KVG_INT32, 1, one, 38);
    for (c = 0; c < 65536 && n < dim; c++)
        if (is_nan16(KVG_FP16, (uint16_t)c))
            set16(&key, n++, (uint16_t)c);
    assert_int_equal(n, 2046);
    set16(&key, 2046, 0x3C00), set16(&key, 2047, 0xC000); /* 1, -2 */
    for (c = 0; c < dim; c++) {
        set16(&key, dim + c, 0x4000); /* 2 */
        set16(&value, c, 0x3C00), set16(&value, dim + c, 0x3C00);
    }
    v = 1, memcpy(sm.data, &v, 4);
    v = 2, memcpy(w.data, &v, 4), memcpy(sl.data, &v, 4);
    v = 0, memcpy(off.data, &v, 4);
    kvg_reshape_and_cache_args_init(&a);
    a.compress_type = KVG_RAC_COMPRESS_KVHEAD_ROPE;
    a.key = &key, a.value = &value, a.key_cache = &kc, a.value_cache = &vc;
    a.slot_mapping = &sm, a.wins = &w, a.seq_len = &sl, a.offset_index = &off;
    assert_int_equal(kvg_reshape_and_cache_workspace_size(&a, &need, &d),
                     KVG_OK);
    a.workspace = workspace(need), a.workspace_size = need;
    assert_int_equal(kvg_reshape_and_cache(&a, &d), KVG_OK);
    for (c = 0; c < 2046; c++)
        assert_int_equal(get16(&kc, dim + c), 0x7E00);
    assert_int_equal(get16(&kc, dim + 2046), 0x3E00); /* (1 + 2) / 2 */
    assert_int_equal(get16(&kc, dim + 2047), 0x0000); /* (-2 + 2) / 2 */
    free(a.workspace);
    kvgt_tensor_free(&key), kvgt_tensor_free(&value);
    kvgt_tensor_free(&kc), kvgt_tensor_free(&vc), kvgt_tensor_free(&sm);
    kvgt_tensor_free(&w), kvgt_tensor_free(&sl), kvgt_tensor_free(&off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_every_fp16_code),
        cmocka_unit_test(test_copy_every_bf16_code),
        cmocka_unit_test(test_v_every_fp16_code),
        cmocka_unit_test(test_v_every_bf16_code),
        cmocka_unit_test(test_q_nan_any_payload),
        cmocka_unit_test(test_mean_of_every_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
