/*
 * tests/test_heads128.c - kvg_i_norm_rope_half_heads128, the kernel that
 * normalises and rotates all the q (or k) heads of a token in one call,
 * side by side (src/kernels/heads128.c).
 *
 * First principles: a head of zeros with one 4096 (square 2^24) and two
 * 1s. The pairwise sum folds the halves lane-wise (p[j] = x[j]^2 +
 * x[j+64]^2), then adds adjacent pairs. With the 1s at 1 and 65 they meet
 * in p[1] = 2, and 2^24 + 2 is exact; at 64 and 1, p[0] = 2^24 + 1 is a
 * tie that rounds to 2^24 (even) before the other 1 arrives: 2^24. With
 * gamma 1, cos 1 and sin 0 the output is x / rms, rms = sqrtf(sum / 128).
 * The spiked head is put at every position of 40 heads (the kernel sums
 * 16 heads side by side: positions 15, 16, 31, 32 and 39 cross its
 * groups), each time with random neighbours.
 *
 * Then the kernel must give, head for head, the bits of the general row
 * kernels (kvg_i_load_rms_of, kvg_i_rms_apply, kvg_i_rope_half, and
 * kvg_i_store_row for the narrowed copy, with and without saturation) for
 * both input dtypes, every reduce order, 1 to 40 heads, and rows that hold
 * NaN, infinities, subnormals and the largest values; the output past the
 * heads is poison and must stay so. The vectors of the operator that
 * calls it (from the NumPy generator) check the values against the
 * independent golden.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/options.h"
#include "src/kernels/kernels.h"

#define W 128
#define MAX_HEADS 40

static const kvg_reduce_order k_orders[] = {
    KVG_REDUCE_PAIRWISE, KVG_REDUCE_SEQUENTIAL, KVG_REDUCE_DOUBLE,
    KVG_REDUCE_A2, KVG_REDUCE_NPU950};

static uint16_t code_of(kvg_dtype dt, float v)
{
    return dt == KVG_FP16 ? kvg_f32_to_fp16(v, KVG_OVF_DEFAULT)
                          : kvg_f32_to_bf16(v, KVG_OVF_DEFAULT);
}

static void put(uint16_t *row, size_t j, kvg_dtype dt, float v)
{
    row[j] = code_of(dt, v);
}

/* A head of random values in [-4, 4), exact in both 16-bit formats'
 * ranges (they are rounded to the format first). */
static void random_head(uint16_t *row, kvg_dtype dt, kvgt_rng *rng)
{
    size_t j;
    for (j = 0; j < W; j++)
        put(row, j, dt, 4.0f * kvgt_rng_unit(rng));
}

/* The kernel over `heads` heads of src, into out (and narrowed into
 * narrow_to, when not NULL). */
static void run_heads(kvg_dtype dt, const uint16_t *src, size_t heads,
                      float eps, kvg_reduce_order order, const float *gamma,
                      const float *c, const float *s, float *out,
                      void *narrow_to, kvg_overflow overflow)
{
    float scratch[2 * W];
    kvg_i_heads128 job;

    job.dtype = dt;
    job.src = src;
    /* the prefetch bound: the end of the heads, or none */
    job.src_end = heads % 2 ? (const void *)(src + heads * W) : NULL;
    job.heads = heads;
    job.eps = eps;
    job.order = order;
    job.gamma = gamma;
    job.cos_row = c;
    job.sin_row = s;
    job.scratch = scratch;
    job.out = out;
    job.narrow_to = narrow_to;
    job.overflow = overflow;
    kvg_i_norm_rope_half_heads128(&job);
}

static void unit_rows(float *gamma, float *c, float *s)
{
    size_t j;
    for (j = 0; j < W; j++)
        gamma[j] = 1.0f, c[j] = 1.0f, s[j] = 0.0f;
}

/* The spiked head at `at` among `heads` random ones; its outputs must be
 * x / sqrtf(sum / 128) for the sum worked out above. */
static void check_spike(kvg_dtype dt, size_t heads, size_t at, size_t one_a,
                        size_t one_b, float sum)
{
    uint16_t src[MAX_HEADS * W];
    float out[MAX_HEADS * W + 16], gamma[W], c[W], s[W];
    const float rms = sqrtf(sum * (1.0f / 128.0f));
    kvgt_rng rng;
    size_t h, j;

    kvgt_rng_seed(&rng, 1000 + at);
    for (h = 0; h < heads; h++)
        random_head(src + h * W, dt, &rng);
    memset(src + at * W, 0, W * sizeof src[0]);
    put(src + at * W, 0, dt, 4096.0f);
    put(src + at * W, one_a, dt, 1.0f);
    put(src + at * W, one_b, dt, 1.0f);
    unit_rows(gamma, c, s);
    kvgt_poison(out, sizeof out, 7);
    run_heads(dt, src, heads, 0.0f, KVG_REDUCE_PAIRWISE, gamma, c, s, out,
              NULL, KVG_OVF_DEFAULT);
    for (j = 0; j < W; j++) {
        const float x = j == 0 ? 4096.0f
                        : j == one_a || j == one_b ? 1.0f : 0.0f;
        const float want = x / rms;
        if (memcmp(&out[at * W + j], &want, sizeof want) != 0)
            fail_msg("%s head %zu of %zu, channel %zu: got %a, want %a "
                     "(sum %a)", dt == KVG_FP16 ? "fp16" : "bf16", at, heads,
                     j, (double)out[at * W + j], (double)want, (double)sum);
    }
}

static void test_pairwise_spike(void **state)
{
    static const kvg_dtype dts[] = {KVG_BF16, KVG_FP16};
    size_t d, at;
    (void)state;
    for (d = 0; d < 2; d++)
        for (at = 0; at < MAX_HEADS; at++) {
            check_spike(dts[d], MAX_HEADS, at, 1, 65, 16777218.0f);
            check_spike(dts[d], MAX_HEADS, at, 64, 1, 16777216.0f);
        }
}

/* Codes that stress the arithmetic: NaN, infinities, zeros of both signs,
 * the smallest subnormal and the largest finite value of each format. */
static const uint16_t k_bf16_special[] = {0x7FC1, 0xFF81, 0x7F80, 0xFF80,
                                          0x0000, 0x8000, 0x0001, 0x7F7F,
                                          0xFF7F, 0x0080};
static const uint16_t k_fp16_special[] = {0x7E01, 0xFC01, 0x7C00, 0xFC00,
                                          0x0000, 0x8000, 0x0001, 0x7BFF,
                                          0xFBFF, 0x03FF};

static void fill_row(float *row, kvgt_rng *rng, float lo, float hi)
{
    size_t j;
    for (j = 0; j < W; j++)
        row[j] = lo + (hi - lo) * (0.5f + 0.5f * kvgt_rng_unit(rng));
}

/* Equal bits, or both NaN (every store of a result makes NaN canonical). */
static int same(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
}

static void check_against_rows(kvg_dtype dt, kvg_reduce_order order,
                               size_t heads, uint64_t seed)
{
    const uint16_t *special = dt == KVG_FP16 ? k_fp16_special
                                             : k_bf16_special;
    const kvg_overflow ovf = seed % 2 ? KVG_OVF_SATURATE : KVG_OVF_DEFAULT;
    uint16_t src[MAX_HEADS * W];
    float got[MAX_HEADS * W + 32], poison[32];
    unsigned char narrowed[(MAX_HEADS * W + 32) * 2];
    unsigned char before[sizeof narrowed];
    const int narrow = heads % 4 != 3;
    unsigned char want16[W * 2];
    float gamma[W], c[W], s[W];
    float x[W], y[W], want[W], sq[2 * W];
    kvgt_rng rng;
    size_t h, j;

    kvgt_rng_seed(&rng, seed);
    for (h = 0; h < heads; h++) {
        random_head(src + h * W, dt, &rng);
        if (h % 3 == 1) /* a few heads with one special value each */
            src[h * W + (size_t)kvgt_rng_range(&rng, 0, W - 1)] =
                special[(size_t)kvgt_rng_range(&rng, 0, 9)];
    }
    fill_row(gamma, &rng, 0.5f, 1.5f);
    fill_row(c, &rng, -1.0f, 1.0f);
    fill_row(s, &rng, -1.0f, 1.0f);
    kvgt_poison(got, sizeof got, seed);
    kvgt_poison(narrowed, sizeof narrowed, seed + 1);
    memcpy(poison, got + heads * W, sizeof poison);
    memcpy(before, narrowed, sizeof before);
    run_heads(dt, src, heads, 1e-6f, order, gamma, c, s, got,
              narrow ? narrowed : NULL, ovf);
    for (h = 0; h < heads; h++) {
        const float rms = kvg_i_load_rms_of(dt, src + h * W, W, 1e-6f, order,
                                            sq, x);
        kvg_i_rms_apply(x, gamma, W, rms, y);
        kvg_i_rope_half(y, c, s, W, want);
        for (j = 0; j < W; j++)
            if (!same(got[h * W + j], want[j]))
                fail_msg("%s order %d, %zu heads, head %zu channel %zu: "
                         "got %a, the row kernels %a",
                         dt == KVG_FP16 ? "fp16" : "bf16", (int)order, heads,
                         h, j, (double)got[h * W + j], (double)want[j]);
        if (!narrow)
            continue;
        kvg_i_store_row(dt, want, W, ovf, want16);
        kvgt_assert_bytes_equal(narrowed + h * W * 2, want16, sizeof want16,
                                "a narrowed head against kvg_i_store_row");
    }
    kvgt_assert_bytes_equal(got + heads * W, poison, sizeof poison,
                            "the floats past the last head");
    /* not asked to narrow: no byte written; else none past the heads */
    j = narrow ? heads * W * 2 : 0;
    kvgt_assert_bytes_equal(narrowed + j, before + j, sizeof narrowed - j,
                            "the narrowed buffer where nothing belongs");
}

static void test_equals_row_kernels(void **state)
{
    static const kvg_dtype dts[] = {KVG_BF16, KVG_FP16};
    size_t d, o, heads;
    (void)state;
    for (d = 0; d < 2; d++)
        for (o = 0; o < sizeof k_orders / sizeof k_orders[0]; o++)
            for (heads = 1; heads <= MAX_HEADS; heads++)
                check_against_rows(dts[d], k_orders[o], heads,
                                   100 * heads + 10 * o + d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairwise_spike),
        cmocka_unit_test(test_equals_row_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
