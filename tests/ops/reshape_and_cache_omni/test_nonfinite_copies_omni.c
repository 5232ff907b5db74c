/*
 * tests/ops/reshape_and_cache_omni/test_nonfinite_copies_omni.c - every
 * 16-bit code through ReshapeAndCacheOmni's copy (docs/reliability.md):
 * all 65536 fp16 / bf16 codes, as 2048 tokens of one 32-channel head of
 * one sequence (o = -1: every token, from slot 5), land bit for bit, NaN
 * payloads and signalling NaNs included.
 * The NumPy vectors (nonfinite_* cases) cover the arithmetic around these.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "nonfinite16.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/reshape_and_cache_omni.h"

static void copy_every_code(kvg_dtype dt)
{
    /* key = codes 0..65535, value the same reversed; caches of 2056
     * slots, the run from slot 5 */
    const int64_t tok = CODES / 32, bs = 8, nb = tok / bs + 1;
    int64_t ks[3], cs[4], one[1] = {1}, c;
    kvg_tensor key, value, kc, vc, sm, w, sl, off;
    kvg_reshape_and_cache_omni_args o;
    kvg_diag d;
    size_t need;
    int32_t v;

    ks[0] = tok, ks[1] = 1, ks[2] = 32;
    cs[0] = nb, cs[1] = bs, cs[2] = 1, cs[3] = 32;
    key = kvgt_tensor_new(dt, 3, ks, 1);
    value = kvgt_tensor_new(dt, 3, ks, 2);
    kc = kvgt_tensor_new(dt, 4, cs, 3);
    vc = kvgt_tensor_new(dt, 4, cs, 4);
    for (c = 0; c < CODES; c++) {
        set16(&key, c, (uint16_t)c);
        set16(&value, c, (uint16_t)(CODES - 1 - c));
    }
    sm = kvgt_tensor_new(KVG_INT32, 1, one, 6);
    w = kvgt_tensor_new(KVG_INT32, 1, one, 7);
    sl = kvgt_tensor_new(KVG_INT32, 1, one, 8);
    off = kvgt_tensor_new(KVG_INT32, 1, one, 9);
    v = 5, memcpy(sm.data, &v, 4);
    v = 0, memcpy(w.data, &v, 4);
    v = (int32_t)tok, memcpy(sl.data, &v, 4);
    v = -1, memcpy(off.data, &v, 4);
    kvg_reshape_and_cache_omni_args_init(&o);
    o.key = &key, o.value = &value, o.key_cache = &kc;
    o.value_cache = &vc, o.slot_mapping = &sm, o.wins = &w;
    o.seq_len = &sl, o.offset_index = &off;
    assert_int_equal(kvg_reshape_and_cache_omni_workspace_size(&o, &need, &d),
                     KVG_OK);
    o.workspace = workspace(need), o.workspace_size = need;
    assert_int_equal(kvg_reshape_and_cache_omni(&o, &d), KVG_OK);
    for (c = 0; c < CODES; c++) {
        assert_int_equal(get16(&kc, 5 * 32 + c), (uint16_t)c);
        assert_int_equal(get16(&vc, 5 * 32 + c), (uint16_t)(CODES - 1 - c));
    }
    free(o.workspace);
    kvgt_tensor_free(&key), kvgt_tensor_free(&value);
    kvgt_tensor_free(&kc), kvgt_tensor_free(&vc);
    kvgt_tensor_free(&sm), kvgt_tensor_free(&w);
    kvgt_tensor_free(&sl), kvgt_tensor_free(&off);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_every_fp16_code),
        cmocka_unit_test(test_copy_every_bf16_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
