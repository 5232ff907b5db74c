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
    heads_overflow h;
    kvg_reshape_and_cache_omni_args a;
    kvg_diag d;
    size_t need = 0;
    (void)state;
    if (SIZE_MAX < UINT64_MAX)
        skip();

    heads_overflow_make(&h, buf);
    kvg_reshape_and_cache_omni_args_init(&a);
    a.key = &h.key, a.value = &h.value, a.key_cache = &h.kc;
    a.value_cache = &h.vc, a.slot_mapping = &h.sm, a.wins = &h.wins;
    a.seq_len = &h.seq, a.offset_index = &h.off;
    a.workspace = buf, a.workspace_size = 64;
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
