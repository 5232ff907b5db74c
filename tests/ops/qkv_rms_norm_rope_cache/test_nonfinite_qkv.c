/*
 * tests/ops/qkv_rms_norm_rope_cache/test_nonfinite_qkv.c - every 16-bit
 * code through QkvRmsNormRopeCache's data paths (docs/reliability.md):
 *   - the v path into a T cache and v_out_before_quant is the identity on
 *     every non-NaN code and gives the canonical NaN for each of the NaN
 *     codes; into an int8 cache with scale 1 it is sat8(rint(x)) with
 *     NaN -> 0;
 *   - a NaN of any payload or sign in a q row gives the canonical NaN in
 *     the whole q_out row, the same bits for every payload.
 * The NumPy vectors (nonfinite_* cases) cover the arithmetic around these.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "nonfinite16.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v_every_fp16_code),
        cmocka_unit_test(test_v_every_bf16_code),
        cmocka_unit_test(test_q_nan_any_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
