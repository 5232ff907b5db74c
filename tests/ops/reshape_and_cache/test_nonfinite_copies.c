/*
 * tests/ops/reshape_and_cache/test_nonfinite_copies.c - every 16-bit code
 * through ReshapeAndCache (docs/reliability.md):
 *   - ND copies move all 65536 fp16 / bf16 codes bit for bit, NaN
 *     payloads and signalling NaNs included;
 *   - KVHEAD_ROPE's mean of a window holding any NaN code is the canonical
 *     NaN.
 * The NumPy vectors (nonfinite_* cases) cover the arithmetic around these.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "nonfinite16.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/reshape_and_cache.h"

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

/* ---- KVHEAD_ROPE mean ------------------------------------------------ */

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
        cmocka_unit_test(test_mean_of_every_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
