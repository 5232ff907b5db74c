/*
 * tests/ops/reshape_and_cache/test_size_overflow_heads.c - ReshapeAndCache's
 * per-head runs (KVHEAD / KVHEAD_ROPE): batch*N and the workspace bytes
 * overflow, and are refused (161002) from the shapes alone
 * (tests/claim_view.h, docs/reliability.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "claim_view.h"

#include "kvgold/reshape_and_cache.h"

static void test_heads_batch_times_n(void **state)
{
    /* seq_len [2^33] and N = 2^31: batch*N = 2^64. */
    static unsigned char buf[4096];
    heads_overflow h;
    kvg_reshape_and_cache_args r;
    kvg_diag d;
    (void)state;
    if (SIZE_MAX < UINT64_MAX)
        skip();

    heads_overflow_make(&h, buf);
    kvg_reshape_and_cache_args_init(&r);
    r.compress_type = KVG_RAC_COMPRESS_KVHEAD_ROPE;
    r.key = &h.key, r.value = &h.value, r.key_cache = &h.kc;
    r.value_cache = &h.vc, r.slot_mapping = &h.sm, r.wins = &h.wins;
    r.seq_len = &h.seq, r.offset_index = &h.off;
    r.workspace = buf, r.workspace_size = 64;
    assert_int_equal(kvg_reshape_and_cache(&r, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "seq_len");
    assert_non_null(strstr(d.message, "overflows"));
}

static void test_heads_workspace_bytes(void **state)
{
    /* batch = 2^60 sequences of one head: 2^60 * 16 bytes of sort keys do
     * not fit size_t. The query and the call must both say so (161002),
     * not report a 0-byte or wrapped workspace. */
    static unsigned char buf[4096];
    const int64_t big_b = (int64_t)1 << 60;
    int64_t ks[3], cs[4], bs[1];
    kvg_tensor key, value, kc, vc, seq, sm;
    kvg_reshape_and_cache_args r;
    kvg_diag d, qd;
    size_t need = 0;
    int mode;
    (void)state;
    if (SIZE_MAX < UINT64_MAX)
        skip();

    ks[0] = 4, ks[1] = 1, ks[2] = 32;
    cs[0] = 2, cs[1] = 8, cs[2] = 1, cs[3] = 32;
    bs[0] = big_b;
    key = claim(buf, KVG_FP16, 3, ks), value = claim(buf + 256, KVG_FP16, 3,
                                                     ks);
    kc = kvg_tensor_make(buf + 512, 1024, KVG_FP16, 4, cs);
    vc = kvg_tensor_make(buf + 1536, 1024, KVG_FP16, 4, cs);
    seq = claim(buf + 2560, KVG_INT32, 1, bs);
    sm = claim(buf + 2560, KVG_INT32, 1, bs);
    for (mode = 1; mode <= 2; mode++) {
        kvg_reshape_and_cache_args_init(&r);
        r.compress_type = (kvg_rac_compress)mode;
        r.key = &key, r.value = &value, r.key_cache = &kc;
        r.value_cache = &vc, r.slot_mapping = &sm, r.wins = &sm;
        r.seq_len = &seq, r.offset_index = mode == 2 ? &sm : NULL;
        r.workspace = buf, r.workspace_size = 64;
        assert_int_equal(kvg_reshape_and_cache_workspace_size(&r, &need, &qd),
                         KVG_ERR_PARAM_INVALID);
        assert_non_null(strstr(qd.message, "overflows"));
        assert_int_equal(kvg_reshape_and_cache(&r, &d), KVG_ERR_PARAM_INVALID);
        assert_string_equal(d.message, qd.message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads_batch_times_n),
        cmocka_unit_test(test_heads_workspace_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
