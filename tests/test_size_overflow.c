/*
 * tests/test_size_overflow.c - shapes whose element counts overflow int64 /
 * size_t are refused (161002), never wrapped (docs/reliability.md).
 *
 * The dangerous shapes are the ones whose product *wraps* to the size of
 * the real buffer: [3, 6148914691236517248] is 2^64 + 128 elements, so an
 * unchecked multiplication sees a 128-byte int8 tensor. For every tensor of
 * every operator (op_fixture.h) and every pair of its dims, the test
 * replaces the pair by such a factorisation of the same product modulo
 * 2^64, and each dim by one whose byte size wraps to the same value where
 * that exists (2^64 / (element size * other dims) a power of two), and
 * requires 161002 naming that tensor with "overflow" in
 * the message, the size query saying the same, and nothing written.
 *
 * Products of attributes and of dims of different tensors (B*S, N*D,
 * Nq+Nk+Nv, BlockNum*BlockSize, batch*N, workspace bytes) are reached with
 * views that *claim* huge buffers over a few real bytes: the operator must
 * refuse them from the shapes alone, before it reads an element (reading
 * one would crash this test).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/layout.h"

/* f * x = m + 2^64 with 3 <= f < 2^20 and x <= INT64_MAX, or 0
 * (2^64 + 1 = 274177 * 67280421310721, so small m need large f). */
static int wrap_pair(uint64_t m, int64_t *f, int64_t *x)
{
    uint64_t k;
    for (k = 3; k < ((uint64_t)1 << 20); k++) {
        /* 2^64 = q*k + r */
        const uint64_t q = UINT64_MAX / k, r = UINT64_MAX % k + 1;
        if ((m % k + r % k) % k != 0)
            continue;
        /* x = (m + 2^64) / k = q + (m + r) / k, exactly */
        if (q + (m / k) + (m % k + r) / k > (uint64_t)INT64_MAX)
            continue;
        *f = (int64_t)k;
        *x = (int64_t)(q + m / k + (m % k + r) / k);
        return 1;
    }
    return 0;
}

static void expect_overflow(opf *f, const char *tensor, const char *label)
{
    kvg_diag d, qd;
    size_t bytes = 0;
    kvg_status st, qs;

    opf_snapshot(f);
    st = opf_call(f, &d);
    if (st != KVG_ERR_PARAM_INVALID || strcmp(d.tensor, tensor) != 0 ||
        strstr(d.message, "overflow") == NULL)
        fail_msg("%s: got %d naming \"%s\": %s", label, (int)st, d.tensor,
                 d.message);
    opf_assert_unchanged(f, label);
    qs = opf_query(f, &bytes, &qd);
    if (qs != st || strcmp(qd.message, d.message) != 0)
        fail_msg("%s: query %d \"%s\" vs call \"%s\"", label, (int)qs,
                 qd.message, d.message);
}

/* Every pair of dims of every tensor, and rank-1 byte-size wraps. */
static void wrapped_shapes(opf_kind kind)
{
    int seed, i, a, b, tried = 0;
    for (seed = 1; seed <= 3; seed++) {
        opf f;
        opf_init(&f, kind, (uint64_t)seed);
        for (i = 0; i < f.n; i++) {
            opf_tensor *x = &f.t[i];
            const kvg_tensor nat = x->natural;
            char label[200];
            const int before = tried;
            for (a = 0; a < nat.rank; a++)
                for (b = a + 1; b < nat.rank; b++) {
                    int64_t p, q;
                    const uint64_t m = (uint64_t)nat.shape[a] *
                                       (uint64_t)nat.shape[b];
                    if (!wrap_pair(m, &p, &q))
                        continue;
                    x->t.shape[a] = p, x->t.shape[b] = q;
                    (void)snprintf(label, sizeof label, "%s seed %d: %s "
                                   "dims %d,%d = %lld,%lld",
                                   opf_kind_names[kind], seed, x->name, a, b,
                                   (long long)p, (long long)q);
                    expect_overflow(&f, x->name, label);
                    opf_restore(&f);
                    tried++;
                }
            /* one dim grown by 2^64 / (element size * the other dims)
             * when that is a power of two: the byte size wraps to the same
             * value (rank-1 tensors of 4- and 8-byte elements, and others
             * whose dim pairs have no factorisation) */
            for (a = 0; a < nat.rank; a++) {
                uint64_t p = kvg_dtype_size(nat.dtype);
                for (b = 0; b < nat.rank; b++)
                    if (b != a)
                        p *= (uint64_t)nat.shape[b];
                if (p < 4 || (p & (p - 1)) != 0 || p > ((uint64_t)1 << 62))
                    continue;
                x->t.shape[a] += (int64_t)((((uint64_t)1 << 63) / p) * 2);
                (void)snprintf(label, sizeof label, "%s seed %d: %s dim %d "
                               "= %lld", opf_kind_names[kind], seed, x->name,
                               a, (long long)x->t.shape[a]);
                expect_overflow(&f, x->name, label);
                opf_restore(&f);
                tried++;
            }
            /* every tensor but narrow rank-1 ones (whose single dim cannot
             * wrap: 2^64 / 2 > INT64_MAX) */
            if (tried == before &&
                (nat.rank >= 2 || kvg_dtype_size(nat.dtype) >= 4))
                fail_msg("%s seed %d: no wrapping shape for %s",
                         opf_kind_names[kind], seed, x->name);
        }
        opf_free(&f);
    }
}

static void test_numel(void **state)
{
    static const int64_t wrap[2] = {3, 6148914691236517248LL};
    static const int64_t big[2] = {(int64_t)1 << 32, (int64_t)1 << 32};
    static const int64_t max1[1] = {INT64_MAX};
    static const int64_t bytes_wrap[1] = {((int64_t)1 << 62) + 32};
    static const int64_t neg[3] = {2, -1, 2};
    unsigned char buf[128];
    int64_t n = -7;
    kvg_diag d;
    kvg_tensor t;
    (void)state;

    t = kvg_tensor_make(buf, 128, KVG_INT8, 2, wrap); /* 2^64 + 128 */
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_ERR_PARAM_INVALID);
    assert_non_null(strstr(d.message, "overflows int64"));
    assert_int_equal(n, -7); /* untouched */
    t = kvg_tensor_make(buf, 0, KVG_FP16, 2, big); /* 2^64 */
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_ERR_PARAM_INVALID);
    assert_int_equal(d.dim, 1);
    t = kvg_tensor_make(buf, 128, KVG_FP32, 1, bytes_wrap); /* bytes wrap */
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_ERR_PARAM_INVALID);
    assert_non_null(strstr(d.message, "byte size"));
    t = kvg_tensor_make(buf, 0, KVG_INT8, 3, neg);
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_ERR_PARAM_INVALID);
    assert_int_equal(n, -7);
    /* the boundary: INT64_MAX one-byte elements still have a size */
    t = kvg_tensor_make(buf, 0, KVG_INT8, 1, max1);
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_OK);
    assert_true(n == INT64_MAX);
    /* ... but not INT64_MAX two-byte ones */
    t = kvg_tensor_make(buf, 0, KVG_FP16, 1, max1);
    assert_int_equal(kvg_tensor_numel(&t, "t", &n, &d), KVG_ERR_PARAM_INVALID);
    assert_non_null(strstr(d.message, "byte size"));
}

#define KIND_TEST(name, kind)                                                \
    static void test_wrapped_##name(void **state)                            \
    {                                                                        \
        (void)state;                                                         \
        wrapped_shapes(kind);                                                \
    }
KIND_TEST(qkv, OPF_QKV)
KIND_TEST(rac_nd, OPF_RAC_ND)
KIND_TEST(rac_nz, OPF_RAC_NZ)
KIND_TEST(rac_kvhead, OPF_RAC_KVHEAD)
KIND_TEST(rac_kvhead_rope, OPF_RAC_KVHEAD_ROPE)
KIND_TEST(omni, OPF_OMNI)
KIND_TEST(kv, OPF_KV)

/* ---- attribute products ------------------------------------------------ */

static void expect_attr(opf *f, const char *tensor, const char *fragment,
                        const char *label)
{
    kvg_diag d;
    kvg_status st;
    opf_snapshot(f);
    st = opf_call(f, &d);
    if (st != KVG_ERR_PARAM_INVALID || strcmp(d.tensor, tensor) != 0 ||
        strstr(d.message, fragment) == NULL)
        fail_msg("%s: got %d naming \"%s\": %s", label, (int)st, d.tensor,
                 d.message);
    opf_assert_unchanged(f, label);
}

static void test_qkv_attr_products(void **state)
{
    int seed;
    (void)state;
    for (seed = 1; seed <= 4; seed++) {
        opf f;
        int64_t p = 0, q = 0;
        opf_init(&f, OPF_QKV, (uint64_t)seed);
        /* B*S wraps to the real token count */
        assert_true(wrap_pair((uint64_t)(f.qkv_size[0] * f.qkv_size[1]), &p,
                              &q));
        f.qkv_size[0] = p, f.qkv_size[1] = q;
        expect_attr(&f, "qkv_size", "overflow", "B*S wraps");
        opf_restore(&f);
        /* N*D wraps: N + 2^57 heads of D = 128, head_nums summing to it */
        f.qkv_size[2] += (int64_t)1 << 57;
        f.head_nums[0] += (int64_t)1 << 57;
        expect_attr(&f, "qkv_size", "overflow", "N*D wraps");
        opf_restore(&f);
        /* Nq + Nk + Nv wraps to N */
        f.head_nums[0] = INT64_MAX;
        f.head_nums[1] = INT64_MAX;
        f.head_nums[2] = f.qkv_size[2] + 2; /* 2^64 - 2 + N + 2 = N */
        expect_attr(&f, "head_nums", "must equal N", "Nq+Nk+Nv wraps");
        opf_restore(&f);
        opf_free(&f);
    }
}

/* ---- huge claimed shapes over a few real bytes ------------------------- */

/* A view claiming `rank` dims over `buf`, nbytes = the claimed size (the
 * tests using it need a 64-bit size_t and skip otherwise). */
static kvg_tensor claim(void *buf, kvg_dtype dt, int rank, const int64_t *sh)
{
    uint64_t n = kvg_dtype_size(dt);
    int i;
    for (i = 0; i < rank; i++)
        n *= (uint64_t)sh[i];
    return kvg_tensor_make(buf, (size_t)n, dt, rank, sh);
}

static void test_heads_batch_times_n(void **state)
{
    /* seq_len [2^33] and N = 2^31: batch*N = 2^64. */
    static unsigned char buf[4096];
    const int64_t big_n = (int64_t)1 << 31, big_b = (int64_t)1 << 33;
    int64_t ks[3], cs[4], bs[1], hs[1];
    kvg_tensor key, value, kc, vc, seq, sm, wins, off;
    kvg_reshape_and_cache_omni_args a;
    kvg_reshape_and_cache_args r;
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
    kvg_reshape_and_cache_args_init(&r);
    r.compress_type = KVG_RAC_COMPRESS_KVHEAD_ROPE;
    r.key = &key, r.value = &value, r.key_cache = &kc, r.value_cache = &vc;
    r.slot_mapping = &sm, r.wins = &wins, r.seq_len = &seq;
    r.offset_index = &off, r.workspace = buf, r.workspace_size = 64;
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
        cmocka_unit_test(test_numel),
        cmocka_unit_test(test_wrapped_qkv),
        cmocka_unit_test(test_wrapped_rac_nd),
        cmocka_unit_test(test_wrapped_rac_nz),
        cmocka_unit_test(test_wrapped_rac_kvhead),
        cmocka_unit_test(test_wrapped_rac_kvhead_rope),
        cmocka_unit_test(test_wrapped_omni),
        cmocka_unit_test(test_wrapped_kv),
        cmocka_unit_test(test_qkv_attr_products),
        cmocka_unit_test(test_heads_batch_times_n),
        cmocka_unit_test(test_heads_workspace_bytes),
        cmocka_unit_test(test_qkv_huge_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
