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
 * Products of attributes (a size list) and of dims of different tensors
 * (B*S, N*D, BlockNum*BlockSize, batch*N, workspace bytes), with views
 * that *claim* huge buffers over a few real bytes, are each operator's, in
 * tests/ops/<op>/test_size_overflow_*.c (tests/claim_view.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>


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
static void wrapped_shapes(const opf_kind_desc *kind)
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
                    if (!opf_wrap_pair(m, &p, &q))
                        continue;
                    x->t.shape[a] = p, x->t.shape[b] = q;
                    (void)snprintf(label, sizeof label, "%s seed %d: %s "
                                   "dims %d,%d = %lld,%lld",
                                   kind->label, seed, x->name, a, b,
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
                               "= %lld", kind->label, seed, x->name,
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
                         kind->label, seed, x->name);
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

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_numel),
    };
    static const opf_per_kind per[] = {{"wrapped", wrapped_shapes}};
    return opf_run_tests("test_size_overflow", fixed, 1, per, 1);
}
