/*
 * tests/test_reduce_orders.c - the RmsNorm sum-of-squares orders
 * (kvgold/options.h), and in particular the two kernel orders "a2" and
 * "npu950", the accumulation orders of the Ascend kernels' RmsNorm.
 *
 * First principles: rows of zeros with one 4096 (square 2^24) and two 1s.
 * In binary32 2^24 + 1 is a tie that rounds to 2^24 (even), while 1 + 1 = 2
 * and 2^24 + 2 are exact. So the sum is 2^24 + 2 when an order adds the two
 * 1s together before meeting 2^24, and 2^24 when it adds them one by one;
 * where the 1s sit decides which, per order (worked out by hand in each
 * test). Then the NumPy generator's sums (vectors/reduce_orders) must be
 * reproduced bit for bit for every order and row length.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/npy.h"
#include "npy_file.h"
#include "kvgold/options.h"
#include "src/kernels/kernels.h"

#define M24 16777216.0f /* 2^24 */

static const kvg_reduce_order k_orders[] = {
    KVG_REDUCE_PAIRWISE, KVG_REDUCE_SEQUENTIAL, KVG_REDUCE_DOUBLE,
    KVG_REDUCE_A2, KVG_REDUCE_NPU950};

/* Sum of squares with a scratch buffer of exactly the advertised size, so
 * ASan catches an order that needs more. */
static float sum(const float *x, size_t n, kvg_reduce_order order)
{
    size_t k = kvg_i_sum_squares_scratch(n);
    float *scratch = (float *)kvgt_alloc_poisoned(k * sizeof(float), n);
    float s = kvg_i_sum_squares(x, n, order, scratch);
    free(scratch);
    return s;
}

/* 512 values: 4096 at position 0, 1 at positions a and b, zeros. */
static float spiked(kvg_reduce_order order, size_t a, size_t b)
{
    float x[512];
    memset(x, 0, sizeof x);
    x[0] = 4096.0f;
    x[a] = 1.0f;
    x[b] = 1.0f;
    return sum(x, 512, order);
}

/* Ones at 128 and 192 (chunks 2 and 3, lane 0).
 *   pairwise: lane 0 folds (0+256),(128+384),(64+320),(192+448) first:
 *             the 1s meet 2^24 separately        -> 2^24
 *   a2:       adjacent chunks: (c2+c3) = 2 first -> 2^24 + 2
 *   npu950:   w2 = R(c2+c6) = 1, w3 = R(c3+c7) = 1, then (w0+w1)+(w2+w3)
 *             = 2^24 + 2
 *   sequential: 2^24 + 1 + 1, each a tie to even -> 2^24; double: exact. */
static void test_spike_chunks_2_3(void **state)
{
    (void)state;
    assert_true(spiked(KVG_REDUCE_PAIRWISE, 128, 192) == M24);
    assert_true(spiked(KVG_REDUCE_A2, 128, 192) == M24 + 2.0f);
    assert_true(spiked(KVG_REDUCE_NPU950, 128, 192) == M24 + 2.0f);
    assert_true(spiked(KVG_REDUCE_SEQUENTIAL, 128, 192) == M24);
    assert_true(spiked(KVG_REDUCE_DOUBLE, 128, 192) == M24 + 2.0f);
}

/* Ones at 1 and 65 (lane 1 of chunks 0 and 1).
 *   pairwise, a2: the chunk folds put both 1s in lane 1 (= 2) before the
 *             lane tree meets lane 0                        -> 2^24 + 2
 *   npu950:   w0 = R(c0+c4) holds 2^24 and the first 1     -> 2^24;
 *             w1 = R(c1+c5) = 1; then 2^24 + 1             -> 2^24 */
static void test_spike_lane_1(void **state)
{
    (void)state;
    assert_true(spiked(KVG_REDUCE_PAIRWISE, 1, 65) == M24 + 2.0f);
    assert_true(spiked(KVG_REDUCE_A2, 1, 65) == M24 + 2.0f);
    assert_true(spiked(KVG_REDUCE_NPU950, 1, 65) == M24);
    assert_true(spiked(KVG_REDUCE_SEQUENTIAL, 1, 65) == M24);
}

/* Ones at 64 and 128: a2 adds c0+c1 (2^24 + 1) and c2+c3 (1) first, then
 * 2^24 + 1 again -> 2^24; npu950: w1 = 1, w2 = 1, (w0+w1) = 2^24 -> 2^24.
 * The exact sum is 2^24 + 2. */
static void test_spike_chunks_1_2(void **state)
{
    (void)state;
    assert_true(spiked(KVG_REDUCE_A2, 64, 128) == M24);
    assert_true(spiked(KVG_REDUCE_NPU950, 64, 128) == M24);
    assert_true(spiked(KVG_REDUCE_DOUBLE, 64, 128) == M24 + 2.0f);
}

/* n = 150 is 3 chunks, the last of 22 lanes; npu950 takes F = 2, so chunk
 * 0 folds with chunk 2 and chunk 1 stands alone: S = w0 + w1 with
 * w0 = R(c0 + c2), w1 = R(c1). a2 pads to 4 chunks: lane p is
 * (c0 + c1) + (c2 + c3).
 * 4096 at 0, 1s at 64 and 65: npu950 w0 = 2^24, w1 = 1 + 1 = 2 -> 2^24 + 2;
 *   a2 lane 0 = 2^24 + 1 = 2^24, lane 1 = 1, then 2^24 + 1 -> 2^24.
 * 4096 at 0, 1s at 1 and 128: npu950 w0 = R([2^24 + 1, 1, 0...]) =
 *   R([2^24, 1, ...]) = 2^24, w1 = 0 -> 2^24. */
static void test_npu950_partial_chunks(void **state)
{
    float x[150];
    (void)state;
    memset(x, 0, sizeof x);
    x[0] = 4096.0f;
    x[64] = 1.0f;
    x[65] = 1.0f;
    assert_true(sum(x, 150, KVG_REDUCE_NPU950) == M24 + 2.0f);
    assert_true(sum(x, 150, KVG_REDUCE_A2) == M24);
    x[64] = 0.0f;
    x[65] = 0.0f;
    x[128] = 1.0f;
    x[1] = 1.0f;
    assert_true(sum(x, 150, KVG_REDUCE_NPU950) == M24);
}

/* Short rows: every order is exact on small integers, and short rows (one
 * partial chunk) must not need scratch beyond kvg_i_sum_squares_scratch. */
static void test_small_exact(void **state)
{
    const float x[5] = {1.0f, -2.0f, 3.0f, 0.5f, -4.0f};
    size_t i, n;
    (void)state;
    for (i = 0; i < sizeof k_orders / sizeof k_orders[0]; i++) {
        assert_true(sum(x, 1, k_orders[i]) == 1.0f);
        assert_true(sum(x, 3, k_orders[i]) == 14.0f);
        assert_true(sum(x, 5, k_orders[i]) == 30.25f);
    }
    for (n = 1; n <= 130; n++) { /* ones: the sum is n in every order */
        float ones[130];
        for (i = 0; i < n; i++)
            ones[i] = 1.0f;
        for (i = 0; i < sizeof k_orders / sizeof k_orders[0]; i++)
            assert_true(sum(ones, n, k_orders[i]) == (float)n);
    }
}

static void test_names(void **state)
{
    static const char *const names[] = {"pairwise", "sequential", "double",
                                        "a2", "npu950"};
    kvg_reduce_order o = KVG_REDUCE_SEQUENTIAL;
    size_t i;
    (void)state;
    for (i = 0; i < 5; i++) {
        assert_string_equal(kvg_reduce_order_name(k_orders[i]), names[i]);
        assert_int_equal(kvg_reduce_order_from_name(names[i], &o), 1);
        assert_int_equal(o, k_orders[i]);
    }
    assert_null(kvg_reduce_order_name((kvg_reduce_order)5));
    assert_null(kvg_reduce_order_name((kvg_reduce_order)-1));
    o = KVG_REDUCE_A2;
    assert_int_equal(kvg_reduce_order_from_name("A2", &o), 0);
    assert_int_equal(kvg_reduce_order_from_name("npu", &o), 0);
    assert_int_equal(kvg_reduce_order_from_name(NULL, &o), 0);
    assert_int_equal(o, KVG_REDUCE_A2);
}

/* ---- the NumPy generator's sums ----------------------------------------- */

static void check_dir(const char *dir)
{
    char path[2048];
    kvg_tensor x, want;
    kvg_diag diag;
    size_t i, r;

    (void)snprintf(path, sizeof path, "%s/x.npy", dir);
    if (kvg_npy_load(path, KVG_FP32, &x, &diag) != KVG_OK)
        fail_msg("%s: %s", path, diag.message);
    assert_int_equal(x.rank, 2);
    for (i = 0; i < 5; i++) {
        const size_t rows = (size_t)x.shape[0], n = (size_t)x.shape[1];
        const float *xs = (const float *)x.data;
        (void)snprintf(path, sizeof path, "%s/sum_%s.npy", dir,
                       kvg_reduce_order_name(k_orders[i]));
        if (kvg_npy_load(path, KVG_FP32, &want, &diag) != KVG_OK)
            fail_msg("%s: %s", path, diag.message);
        assert_int_equal(want.shape[0], (int64_t)rows);
        for (r = 0; r < rows; r++) {
            const float got = sum(xs + r * n, n, k_orders[i]);
            const float exp = ((const float *)want.data)[r];
            if (kvg_f32_bits(got) != kvg_f32_bits(exp))
                fail_msg("%s row %lu: got %a (0x%08x), NumPy %a (0x%08x)",
                         path, (unsigned long)r, (double)got,
                         (unsigned)kvg_f32_bits(got), (double)exp,
                         (unsigned)kvg_f32_bits(exp));
        }
        kvg_npy_free(&want);
    }
    kvg_npy_free(&x);
}

static void test_numpy_sums(void **state)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    char dir[1024];
    DIR *d;
    struct dirent *e;
    int seen = 0;
    (void)state;

    if (root == NULL)
        fail_msg("KVG_VECTORS_DIR is not set");
    (void)snprintf(dir, sizeof dir, "%s/reduce_orders", root);
    d = opendir(dir);
    if (d == NULL)
        fail_msg("%s: cannot open", dir);
    while ((e = readdir(d)) != NULL) {
        char sub[2048];
        if (e->d_name[0] != 'n')
            continue;
        (void)snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        check_dir(sub);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 10);
}

/* kvg_i_load_rms_of widens the row and returns the rms; for bf16 in the
 * pairwise order it squares while it widens (one pass). Its x must be the
 * exact widening (first principles: a bf16 code is the high half of the
 * binary32 pattern; fp16 via the codec, which the sweeps prove) and its
 * rms must be sqrtf(sum * (1/n) + eps) with the sum of this order, which
 * test_numpy_sums proves against NumPy. Random codes of every magnitude
 * (subnormals, and squares that overflow to inf), every order, row
 * lengths around the powers of two, scratch of exactly the advertised
 * size (ASan builds catch more). */
static void test_load_rms_of(void **state)
{
    static const size_t lens[] = {1, 7, 63, 64, 65, 100, 128, 256, 512, 576,
                                  1024};
    static const kvg_dtype dts[] = {KVG_BF16, KVG_FP16, KVG_FP32};
    uint16_t codes[1024];
    float src32[1024], x[1024], want_x[1024];
    kvgt_rng rng;
    size_t li, di, oi, i, rep;

    (void)state;
    kvgt_rng_seed(&rng, 5150);
    for (rep = 0; rep < 4; rep++)
        for (di = 0; di < sizeof dts / sizeof dts[0]; di++)
            for (li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (oi = 0; oi < sizeof k_orders / sizeof k_orders[0];
                     oi++) {
                    const size_t n = lens[li];
                    const kvg_dtype dt = dts[di];
                    const void *src = dt == KVG_FP32 ? (const void *)src32
                                                     : (const void *)codes;
                    const size_t k = kvg_i_sum_squares_scratch(n);
                    float *scratch, got, want;
                    for (i = 0; i < n; i++) {
                        /* no inf/NaN codes: exponent field below all-ones */
                        uint16_t c = (uint16_t)kvgt_rng_next(&rng);
                        if (rep == 0)
                            c &= 0x3FFF; /* small magnitudes only */
                        if (dt == KVG_BF16 && (c & 0x7F80u) == 0x7F80u)
                            c ^= 0x0080u;
                        if (dt == KVG_FP16 && (c & 0x7C00u) == 0x7C00u)
                            c ^= 0x0400u;
                        codes[i] = c;
                        if (dt == KVG_BF16) {
                            uint32_t u = (uint32_t)c << 16;
                            memcpy(&want_x[i], &u, 4);
                        } else if (dt == KVG_FP16) {
                            assert_int_equal(kvg_decode_f32(KVG_FP16, &c,
                                                            &want_x[i]),
                                             KVG_OK);
                        } else {
                            src32[i] = kvgt_rng_unit(&rng) * 1e19f;
                            want_x[i] = src32[i];
                        }
                    }
                    scratch = (float *)kvgt_alloc_poisoned(
                        k * sizeof(float), n);
                    want = sqrtf(kvg_i_sum_squares(want_x, n, k_orders[oi],
                                                   scratch) *
                                     (1.0f / (float)n) +
                                 1e-6f);
                    kvgt_poison(x, sizeof x, 3);
                    got = kvg_i_load_rms_of(dt, src, n, 1e-6f, k_orders[oi],
                                            scratch, x);
                    free(scratch);
                    kvgt_assert_bytes_equal(x, want_x, n * sizeof(float),
                                            "widened row");
                    kvgt_assert_bytes_equal(&got, &want, sizeof got, "rms");
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spike_chunks_2_3),
        cmocka_unit_test(test_spike_lane_1),
        cmocka_unit_test(test_spike_chunks_1_2),
        cmocka_unit_test(test_npu950_partial_chunks),
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_numpy_sums),
        cmocka_unit_test(test_load_rms_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
