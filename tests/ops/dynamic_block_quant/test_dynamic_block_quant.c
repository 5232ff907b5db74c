/*
 * tests/ops/dynamic_block_quant/test_dynamic_block_quant.c - DynamicBlockQuant
 * on small calls whose every output byte is known from first principles
 * (docs/dynamic_block_quant.md): poisoned y and scale, each byte checked;
 * the two profiles' scales on an amax where divide and reciprocal-multiply
 * differ; the documented 950 edge cases (zero, NaN, Inf blocks); refusals
 * that leave the outputs unchanged and say why. The NumPy vectors
 * (vectors/dynamic_block_quant) cover the rest.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/dynamic_block_quant.h"
#include "kvgold/format.h"

/* A call over x [rows, cols] fp32 with blocks 1 x cb: tensors, args and a
 * workspace. */
typedef struct call {
    kvg_tensor x, y, scale;
    kvg_dynamic_block_quant_args a;
    void *ws;
} call;

static void call_init(call *c, kvg_dtype xt, kvg_dtype yt, int64_t rows,
                      int64_t cols, int64_t cb)
{
    int64_t sh[2];
    sh[0] = rows, sh[1] = cols;
    c->x = kvgt_tensor_new(xt, 2, sh, 11);
    c->y = kvgt_tensor_new(yt, 2, sh, 12);
    sh[1] = (cols + cb - 1) / cb;
    c->scale = kvgt_tensor_new(KVG_FP32, 2, sh, 13);
    kvg_dynamic_block_quant_args_init(&c->a);
    c->a.x = &c->x, c->a.y = &c->y, c->a.scale = &c->scale;
    c->a.dst_type = yt;
    c->a.round_mode = yt == KVG_HIF8 ? KVG_DYNAMIC_BLOCK_QUANT_ROUND
                                     : KVG_DYNAMIC_BLOCK_QUANT_RINT;
    c->a.col_block_size = cb;
    c->ws = NULL;
}

static void call_free(call *c)
{
    kvgt_tensor_free(&c->x);
    kvgt_tensor_free(&c->y);
    kvgt_tensor_free(&c->scale);
    free(c->ws);
}

static void set_x(call *c, int64_t i, float v)
{
    assert_int_equal(kvg_encode_f32(c->x.dtype, v, KVG_OVF_NONSAT,
                                    (unsigned char *)c->x.data +
                                        (size_t)i * kvg_dtype_size(c->x.dtype)),
                     KVG_OK);
}

/* Fill x with zeros (the blocks a test does not set are all-zero). */
static void zero_x(call *c)
{
    memset(c->x.data, 0, c->x.nbytes);
}

static kvg_status run(call *c, kvg_diag *d)
{
    size_t need = 0;
    kvg_status st = kvg_dynamic_block_quant_workspace_size(&c->a, &need, d);
    if (st != KVG_OK)
        return st;
    free(c->ws);
    c->ws = malloc(need);
    assert_non_null(c->ws);
    c->a.workspace = c->ws, c->a.workspace_size = need;
    return kvg_dynamic_block_quant(&c->a, d);
}

static uint32_t scale_bits(const call *c, int64_t i)
{
    uint32_t u;
    memcpy(&u, (const unsigned char *)c->scale.data + i * 4, 4);
    return u;
}

static uint8_t y_at(const call *c, int64_t i)
{
    return ((const uint8_t *)c->y.data)[i];
}

/* ---- a worked example, every byte ------------------------------------- */

/*
 * x [1, 130] fp32, int8, 1 x 128: block 0 has amax 254, so scale = 254 /
 * 127 = 2 exactly and y = rint(x / 2): 5 -> 2.5 -> 2, 7 -> 3.5 -> 4,
 * -3 -> -1.5 -> -2, 254 -> 127, -254 -> -127, zeros -> 0. Block 1 (2
 * columns) has amax 1: scale = fl(1/127) = 0x3C010204, and 1 / that is
 * 127.0000004 -> 127, -0.5 / it = -63.50000018 -> -64.
 */
static void test_worked_example(void **state)
{
    static const int8_t want0[6] = {2, 4, -2, 127, -127, 0};
    call c;
    kvg_diag d;
    int64_t i;
    (void)state;

    call_init(&c, KVG_FP32, KVG_INT8, 1, 130, 128);
    zero_x(&c);
    set_x(&c, 0, 5.0f), set_x(&c, 1, 7.0f), set_x(&c, 2, -3.0f);
    set_x(&c, 3, 254.0f), set_x(&c, 4, -254.0f);
    set_x(&c, 128, 1.0f), set_x(&c, 129, -0.5f);
    assert_int_equal(run(&c, &d), KVG_OK);
    for (i = 0; i < 6; i++)
        assert_int_equal((int8_t)y_at(&c, i), want0[i]);
    for (i = 6; i < 128; i++)
        assert_int_equal(y_at(&c, i), 0);
    assert_int_equal((int8_t)y_at(&c, 128), 127);
    assert_int_equal((int8_t)y_at(&c, 129), -64);
    assert_int_equal(scale_bits(&c, 0), 0x40000000u); /* 2.0f */
    assert_int_equal(scale_bits(&c, 1), 0x3C010204u); /* fl(1/127) */
    call_free(&c);
}

/* ---- the two profiles ------------------------------------------------- */

/*
 * amax 3 (fp16): the 950 divides, scale = fl(3 / 127); a2a3 multiplies,
 * scale = fl(3 * fl(1/127)). The first amax > 1 where they differ is
 * found here from the two definitions; both profiles must give their own.
 */
static void test_profiles_differ(void **state)
{
    const float inv127 = 1.0f / 127.0f;
    float amax = 0.0f;
    call c;
    kvg_diag d;
    int k;
    (void)state;

    for (k = 129; k < 4096 && amax == 0.0f; k++) {
        const float v = (float)k / 128.0f; /* exact in fp16 */
        if (v / 127.0f != v * inv127)
            amax = v;
    }
    assert_true(amax > 1.0f);
    call_init(&c, KVG_FP16, KVG_INT8, 1, 128, 128);
    zero_x(&c);
    set_x(&c, 0, amax), set_x(&c, 1, -0.5f * amax);
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(scale_bits(&c, 0), kvg_f32_bits(amax / 127.0f));
    c.a.profile = KVG_PROFILE_A2A3;
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(scale_bits(&c, 0), kvg_f32_bits(amax * inv127));
    /* a2a3's y = rint(x * fl(fl(1/amax) * 127)): amax -> 127 either way */
    assert_int_equal((int8_t)y_at(&c, 0), 127);
    call_free(&c);
}

/* ---- the 950's documented edge cases ---------------------------------- */

/* An all-zero block (+0 and -0): scale 0.0, y the +0 code of every dst
 * type (0/0 = NaN, which the saturating cast writes as 0). */
static void test_zero_block(void **state)
{
    static const kvg_dtype ys[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    int k;
    int64_t i;
    (void)state;
    for (k = 0; k < 4; k++) {
        call c;
        kvg_diag d;
        call_init(&c, KVG_BF16, ys[k], 1, 64, 64);
        zero_x(&c);
        for (i = 0; i < 64; i += 2)
            set_x(&c, i, -0.0f);
        assert_int_equal(run(&c, &d), KVG_OK);
        assert_int_equal(scale_bits(&c, 0), 0u);
        for (i = 0; i < 64; i++)
            assert_int_equal(y_at(&c, i), 0);
        call_free(&c);
    }
}

/* A NaN anywhere in a block: scale NaN (written 0x7FC00000), y +0 codes.
 * An Inf (no NaN): scale +inf, finite x -> +-0 (e4m3fn: 0x00 / 0x80),
 * +-Inf / Inf = NaN -> 0x00. */
static void test_nonfinite_blocks(void **state)
{
    call c;
    kvg_diag d;
    int64_t i;
    (void)state;

    call_init(&c, KVG_FP32, KVG_FP8_E4M3FN, 2, 64, 64);
    for (i = 0; i < 128; i++)
        set_x(&c, i, i % 2 ? -1.5f : 2.0f);
    set_x(&c, 10, NAN);
    set_x(&c, 64 + 3, INFINITY), set_x(&c, 64 + 5, -INFINITY);
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(scale_bits(&c, 0), 0x7FC00000u);
    assert_int_equal(scale_bits(&c, 1), 0x7F800000u);
    for (i = 0; i < 64; i++)
        assert_int_equal(y_at(&c, i), 0);
    for (i = 64; i < 128; i++) {
        const uint8_t want = i == 67 || i == 69 ? 0x00
                             : i % 2             ? 0x80
                                                 : 0x00;
        assert_int_equal(y_at(&c, i), want);
    }
    call_free(&c);
}

/* min_scale caps the scale at 1/min_scale (2^-3 here), so x / scale
 * saturates: int8 x = 100 -> 800 -> 127, -100 -> -128. */
static void test_min_scale_saturates(void **state)
{
    call c;
    kvg_diag d;
    int64_t i;
    (void)state;

    call_init(&c, KVG_FP16, KVG_INT8, 1, 64, 64);
    for (i = 0; i < 64; i++)
        set_x(&c, i, i % 2 ? -100.0f : 100.0f);
    c.a.min_scale = 8.0;
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(scale_bits(&c, 0), 0x3E000000u); /* 0.125f */
    for (i = 0; i < 64; i++)
        assert_int_equal((int8_t)y_at(&c, i), i % 2 ? -128 : 127);
    call_free(&c);
}

/* ---- refusals ---------------------------------------------------------- */

/* The call fails with 161002 naming `tensor`, `words` in its message, and
 * neither output changes. */
static void expect_refused(call *c, const char *tensor, const char *words)
{
    unsigned char *y0 = (unsigned char *)malloc(c->y.nbytes);
    unsigned char *s0 = (unsigned char *)malloc(c->scale.nbytes);
    kvg_diag d;

    assert_non_null(y0);
    assert_non_null(s0);
    memcpy(y0, c->y.data, c->y.nbytes);
    memcpy(s0, c->scale.data, c->scale.nbytes);
    assert_int_equal(run(c, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, tensor);
    if (strstr(d.message, words) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", d.message, words);
    kvgt_assert_bytes_equal(c->y.data, y0, c->y.nbytes, "y");
    kvgt_assert_bytes_equal(c->scale.data, s0, c->scale.nbytes, "scale");
    free(y0);
    free(s0);
}

static void test_refusals(void **state)
{
    call c;
    int64_t i;
    (void)state;

    call_init(&c, KVG_BF16, KVG_HIF8, 1, 64, 64);
    for (i = 0; i < 64; i++)
        set_x(&c, i, 1.0f + (float)i);
    c.a.round_mode = KVG_DYNAMIC_BLOCK_QUANT_RINT;
    expect_refused(&c, "round_mode", "must be \"round\" when y is hif8");
    c.a.round_mode = KVG_DYNAMIC_BLOCK_QUANT_ROUND;
    set_x(&c, 3, 0x1p-130f);
    expect_refused(&c, "x", "element [0, 0, 3] (block [0, 0]) is subnormal");
    set_x(&c, 3, 4.0f);
    c.a.profile = KVG_PROFILE_A2A3;
    expect_refused(&c, "y", "int8 (profile a2a3)");
    call_free(&c);

    /* the 950 flushes a subnormal scale: amax 2^-120 over 448 */
    call_init(&c, KVG_FP32, KVG_FP8_E4M3FN, 1, 64, 64);
    for (i = 0; i < 64; i++)
        set_x(&c, i, 0x1p-120f);
    expect_refused(&c, "x", "would be subnormal");
    call_free(&c);

    /* a2a3: an all-zero block */
    call_init(&c, KVG_FP16, KVG_INT8, 1, 130, 128);
    zero_x(&c);
    set_x(&c, 1, 3.0f);
    c.a.profile = KVG_PROFILE_A2A3;
    expect_refused(&c, "x", "element [0, 0, 128] (block [0, 1]) is in an "
                            "all-zero block");
    call_free(&c);
}

static void test_defaults_and_names(void **state)
{
    kvg_dynamic_block_quant_args a;
    kvg_profile p = KVG_PROFILE_ASCEND950;
    (void)state;
    kvg_dynamic_block_quant_args_init(&a);
    kvg_dynamic_block_quant_args_init(NULL);
    assert_int_equal(a.dst_type, KVG_INT8);
    assert_int_equal(a.row_block_size, 1);
    assert_int_equal(a.col_block_size, 128);
    assert_int_equal(a.round_mode, KVG_DYNAMIC_BLOCK_QUANT_RINT);
    assert_int_equal(a.profile, KVG_PROFILE_ASCEND950);
    assert_true(a.min_scale == 0.0 && a.dst_type_max == 0.0);
    assert_true(kvg_profile_from_name("a2a3", &p));
    assert_int_equal(p, KVG_PROFILE_A2A3);
    assert_false(kvg_profile_from_name("950", &p));
    assert_false(kvg_profile_from_name(NULL, &p));
    assert_int_equal(p, KVG_PROFILE_A2A3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_profiles_differ),
        cmocka_unit_test(test_zero_block),
        cmocka_unit_test(test_nonfinite_blocks),
        cmocka_unit_test(test_min_scale_saturates),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_defaults_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
