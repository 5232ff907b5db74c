/*
 * tests/ops/qkv_rms_norm_rope_cache/test_size_overflow_qkv.c - B*S tokens
 * far past any real buffer: QkvRmsNormRopeCache refuses the cache, sizes
 * the workspace without wrapping and refuses a short one, from the shapes
 * alone (tests/claim_view.h, docs/reliability.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "claim_view.h"

#include "kvgold/qkv_rms_norm_rope_cache.h"

static void test_qkv_huge_tokens(void **state)
{
    /* B*S = 2^40 tokens, all tensors claimed at that size: BlockNum must
     * reach ceil(S/BS)*B = 2^35, so a 1-block cache is refused; with a
     * claimed cache of 2^35 blocks the shapes pass, the query returns a
     * size that did not wrap (>= 16 bytes per token), and the call refuses
     * the small workspace - all without reading an element. */
    static unsigned char buf[1 << 16];
    const int64_t tok = (int64_t)1 << 40;
    int64_t qs[4] = {1, 0, 3, 128}, hn[3] = {1, 1, 1}, sh[4];
    kvg_tensor qkv, qg, kg, cs, sn, idx, qo, kc, vc, kc_big, vc_big;
    kvg_qkv_rms_norm_rope_cache_args a;
    kvg_diag d;
    size_t need = 0;
    (void)state;
    if (SIZE_MAX < UINT64_MAX)
        skip();

    qs[1] = tok;
    sh[0] = tok, sh[1] = 384;
    qkv = claim(buf, KVG_FP16, 2, sh);
    sh[0] = 128;
    qg = kvg_tensor_make(buf, 256, KVG_FP16, 1, sh), kg = qg;
    sh[0] = tok, sh[1] = 128;
    cs = claim(buf, KVG_FP16, 2, sh), sn = cs, qo = cs;
    idx = claim(buf, KVG_INT64, 1, sh);
    sh[0] = 1, sh[1] = 8, sh[2] = 32, sh[3] = 16;
    kc = kvg_tensor_make(buf, 8192, KVG_FP16, 4, sh), vc = kc;
    sh[0] = tok / 32;
    kc_big = claim(buf, KVG_FP16, 4, sh), vc_big = kc_big;
    kvg_qkv_rms_norm_rope_cache_args_init(&a);
    a.qkv = &qkv, a.q_gamma = &qg, a.k_gamma = &kg, a.cos = &cs;
    a.sin = &sn, a.index = &idx, a.q_out = &qo, a.k_cache = &kc;
    a.v_cache = &vc, a.qkv_size = qs, a.qkv_size_len = 4;
    a.head_nums = hn, a.head_nums_len = 3;
    a.workspace = buf, a.workspace_size = 1024;
    assert_int_equal(kvg_qkv_rms_norm_rope_cache(&a, &d),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "k_cache");
    a.k_cache = &kc_big, a.v_cache = &vc_big;
    assert_int_equal(kvg_qkv_rms_norm_rope_cache_workspace_size(&a, &need,
                                                                &d), KVG_OK);
    assert_true(need >= (size_t)16 * (size_t)tok);
    assert_int_equal(kvg_qkv_rms_norm_rope_cache(&a, &d), KVG_ERR_WORKSPACE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qkv_huge_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
