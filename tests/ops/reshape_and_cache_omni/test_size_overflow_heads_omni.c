/*
 * tests/ops/reshape_and_cache_omni/test_size_overflow_heads_omni.c -
 * ReshapeAndCacheOmni's per-head runs: batch*N overflows, and is refused
 * (161002, naming seq_len) from the shapes alone by the call and by the
 * workspace query (tests/claim_view.h, docs/reliability.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "claim_view.h"

#include "kvgold/reshape_and_cache_omni.h"

static void test_heads_batch_times_n(void **state)
{
    /* seq_len [2^33] and N = 2^31: batch*N = 2^64. */
    static unsigned char buf[4096];
    const int64_t big_n = (int64_t)1 << 31, big_b = (int64_t)1 << 33;
    int64_t ks[3], cs[4], bs[1], hs[1];
    kvg_tensor key, value, kc, vc, seq, sm, wins, off;
    kvg_reshape_and_cache_omni_args a;
    kvg_diag d;
    size_t need = 0;
    (void)state;
    if (SIZE_MAX < UINT64_MAX)
        skip();

    ks[0] = 1, ks[1] = big_n, ks[2] = 32;
    cs[0] = 2, cs[1] = 8, cs[2] = 1, cs[3] = 32;
    bs[0] = big_b, hs[0] = 4;
    key = claim(buf, KVG_FP16, 3, ks), value = claim(buf, KVG_FP16, 3, ks);
    kc = kvg_tensor_make(buf, 1024, KVG_FP16, 4, cs);
    vc = kvg_tensor_make(buf + 1024, 1024, KVG_FP16, 4, cs);
    seq = claim(buf + 2048, KVG_INT32, 1, bs);
    sm = kvg_tensor_make(buf + 2048, 16, KVG_INT32, 1, hs);
    wins = sm, off = sm;
    kvg_reshape_and_cache_omni_args_init(&a);
    a.key = &key, a.value = &value, a.key_cache = &kc, a.value_cache = &vc;
    a.slot_mapping = &sm, a.wins = &wins, a.seq_len = &seq;
    a.offset_index = &off, a.workspace = buf, a.workspace_size = 64;
    assert_int_equal(kvg_reshape_and_cache_omni(&a, &d),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "seq_len");
    assert_non_null(strstr(d.message, "overflows"));
    assert_int_equal(kvg_reshape_and_cache_omni_workspace_size(&a, &need, &d),
                     KVG_ERR_PARAM_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads_batch_times_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
