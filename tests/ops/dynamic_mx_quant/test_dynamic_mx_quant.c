/*
 * tests/ops/dynamic_mx_quant/test_dynamic_mx_quant.c - DynamicMxQuant on
 * small calls whose every output byte is known from first principles
 * (docs/dynamic_mx_quant.md): poisoned y and mxscale, each byte checked;
 * the three FP4 round modes on one block of ties; the pair layout when
 * axis is not the last dim (interleave) and an odd block count (pad 0x00);
 * OCP and cuBLAS on an amax where their codes differ; zero, tiny and
 * non-finite blocks; refusals that leave the outputs unchanged and say
 * why. The NumPy vectors (vectors/dynamic_mx_quant) cover the rest.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/dynamic_mx_quant.h"
#include "kvgold/format.h"

/* A call over x [d0, d1] with blocks of 32 along `axis`. */
typedef struct call {
    kvg_tensor x, y, s;
    kvg_dynamic_mx_quant_args a;
    void *ws;
} call;

static void call_init(call *c, kvg_dtype xt, kvg_dtype yt, int64_t d0,
                      int64_t d1, int axis)
{
    int64_t sh[3];
    const int64_t n = axis == 0 ? d0 : d1;
    const int64_t pairs = ((n + 31) / 32 + 1) / 2;

    sh[0] = d0, sh[1] = d1;
    c->x = kvgt_tensor_new(xt, 2, sh, 11);
    sh[1] = yt == KVG_FP4_E2M1 ? d1 / 2 : d1;
    c->y = kvgt_tensor_new(yt, 2, sh, 12);
    sh[0] = axis == 0 ? pairs : d0;
    sh[1] = axis == 0 ? d1 : pairs;
    sh[2] = 2;
    c->s = kvgt_tensor_new(KVG_E8M0, 3, sh, 13);
    memset(c->x.data, 0, c->x.nbytes);
    kvg_dynamic_mx_quant_args_init(&c->a);
    c->a.x = &c->x, c->a.y = &c->y, c->a.mxscale = &c->s;
    c->a.dst_type = yt;
    c->a.axis = axis;
    c->ws = NULL;
}

static void call_free(call *c)
{
    kvgt_tensor_free(&c->x);
    kvgt_tensor_free(&c->y);
    kvgt_tensor_free(&c->s);
    free(c->ws);
}

static void set_x(call *c, int64_t i, float v)
{
    unsigned char *at = (unsigned char *)c->x.data +
                        (size_t)i * kvg_dtype_size(c->x.dtype);
    assert_int_equal(kvg_encode_f32(c->x.dtype, v, KVG_OVF_NONSAT, at),
                     KVG_OK);
}

static kvg_status run(call *c, kvg_diag *d)
{
    size_t need = 0;
    kvg_status st = kvg_dynamic_mx_quant_workspace_size(&c->a, &need, d);
    if (st != KVG_OK)
        return st;
    free(c->ws);
    c->ws = malloc(need);
    assert_non_null(c->ws);
    c->a.workspace = c->ws, c->a.workspace_size = need;
    return kvg_dynamic_mx_quant(&c->a, d);
}

static uint8_t y_at(const call *c, int64_t i)
{
    return ((const uint8_t *)c->y.data)[i];
}

static uint8_t s_at(const call *c, int64_t i)
{
    return ((const uint8_t *)c->s.data)[i];
}

/* ---- a worked example, every byte ------------------------------------- */

/*
 * x [2, 64] bf16, fp4_e2m1, block 32 along the last dim: mxscale [2, 1, 2].
 * Row 0, block 0: amax 6 = 1.5 * 2^2, E = 129, code 129 - emax 2 = 127,
 * multiplier 1: the FP4 ties 0.25, 0.75, 2.5, -5, 1.25 as they are.
 * Row 0, block 1: amax 1, code 125, multiplier 4: 1 -> 4, -0.3 -> -1.2,
 * 0.1 -> 0.4. Row 1, block 0: all +0 -> code 0, zero payload. Row 1,
 * block 1: -2^-126 everywhere, E = 1 <= emax -> code 0, multiplier 0,
 * payload -0 (0x8).
 */
static void worked_x(call *c)
{
    static const float b0[8] = {6.0f, -6.0f, 0.25f, 0.75f,
                                2.5f, -5.0f, 1.25f, -0.1f};
    int64_t i;
    for (i = 0; i < 8; i++)
        set_x(c, i, b0[i]);
    set_x(c, 32, 1.0f), set_x(c, 33, -0.3f), set_x(c, 34, 0.1f);
    for (i = 96; i < 128; i++)
        set_x(c, i, -0x1p-126f);
}

/* The codes of block 0's first 8 elements in each mode, as bytes (element
 * 2j low nibble): rint ties to the even code, floor toward -inf, round
 * away from zero. -0.1 is -0.10009765625 in bf16. */
static const uint8_t k_block0[3][4] = {
    /* rint:  6 -6 | 0 1.0 | 2 -4 | 1.0 -0   */
    {0xF7, 0x20, 0xE4, 0x82},
    /* floor: 6 -6 | 0 0.5 | 2 -6 | 1.0 -0.5 */
    {0xF7, 0x10, 0xF4, 0x92},
    /* round: 6 -6 | 0.5 1.0 | 3 -6 | 1.5 -0 */
    {0xF7, 0x21, 0xF5, 0x83}};

static void test_worked_example(void **state)
{
    static const kvg_fp4_round modes[3] = {KVG_FP4_RINT, KVG_FP4_FLOOR,
                                           KVG_FP4_ROUND};
    /* block 1 of row 0, rint / floor / round: 4 -1.2 | 0.4 0 */
    static const uint8_t b1[3][2] = {{0xA6, 0x01}, {0xB6, 0x00},
                                     {0xA6, 0x01}};
    int k;
    int64_t i;
    (void)state;

    for (k = 0; k < 3; k++) {
        call c;
        kvg_diag d;
        call_init(&c, KVG_BF16, KVG_FP4_E2M1, 2, 64, -1);
        worked_x(&c);
        c.a.round_mode = modes[k];
        assert_int_equal(run(&c, &d), KVG_OK);
        for (i = 0; i < 4; i++)
            assert_int_equal(y_at(&c, i), k_block0[k][i]);
        for (i = 4; i < 16; i++)
            assert_int_equal(y_at(&c, i), 0);
        assert_int_equal(y_at(&c, 16), b1[k][0]);
        assert_int_equal(y_at(&c, 17), b1[k][1]);
        for (i = 18; i < 32; i++)
            assert_int_equal(y_at(&c, i), 0);
        for (i = 32; i < 48; i++)
            assert_int_equal(y_at(&c, i), 0x00);
        for (i = 48; i < 64; i++)
            assert_int_equal(y_at(&c, i), 0x88);
        assert_int_equal(s_at(&c, 0), 127);
        assert_int_equal(s_at(&c, 1), 125);
        assert_int_equal(s_at(&c, 2), 0);
        assert_int_equal(s_at(&c, 3), 0);
        call_free(&c);
    }
}

/* ---- the pair layout: axis 0, odd block count ------------------------- */

/*
 * x [96, 2] fp32, e4m3fn, axis 0: 3 blocks down each column, mxscale
 * [2, 2, 2] with mxscale[j, i, p] = block 2j + p of column i and the
 * fourth block a pad 0x00. Column 0: amax 256 (code 135 - 8 = 127), 512
 * (128), 1 (119); column 1: 2 (120), 2^-120 (E 7 <= 8: code 0), 448 (127).
 * Each block's first element scales to 256 = e4m3fn 0x78, except the
 * code-0 block (0x00) and 448 (0x7E).
 */
static void test_interleave_and_pad(void **state)
{
    static const float top[2][3] = {{256.0f, 512.0f, 1.0f},
                                    {2.0f, 0x1p-120f, 448.0f}};
    static const uint8_t codes[8] = {127, 128, 120, 0, 119, 0, 127, 0};
    static const uint8_t first[2][3] = {{0x78, 0x78, 0x78},
                                        {0x78, 0x00, 0x7E}};
    call c;
    kvg_diag d;
    int64_t i, j, r;
    (void)state;

    call_init(&c, KVG_FP32, KVG_FP8_E4M3FN, 96, 2, 0);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            set_x(&c, (32 * j) * 2 + i, top[i][j]);
    assert_int_equal(run(&c, &d), KVG_OK);
    for (i = 0; i < 8; i++)
        assert_int_equal(s_at(&c, i), codes[i]);
    for (r = 0; r < 96; r++)
        for (i = 0; i < 2; i++)
            assert_int_equal(y_at(&c, r * 2 + i),
                             r % 32 == 0 ? first[i][r / 32] : 0x00);
    call_free(&c);
}

/* ---- OCP and cuBLAS --------------------------------------------------- */

/*
 * amax 480 (fp32, e4m3fn): OCP takes E(480) = 135 -> code 127, so 480
 * saturates to 448 (0x7E); cuBLAS takes s = 480 * fl(1/448) = 1.07 ->
 * ceil(log2 s) = 1 -> code 128, 480 / 2 = 240 = 1.875 * 2^7 (0x77).
 * -3 -> -3 (0xC4 = -1.5 * 2) and -1.5 (0xBC) likewise. An all-zero block:
 * code 0 under both.
 */
static void test_ocp_and_cublas(void **state)
{
    call c;
    kvg_diag d;
    (void)state;

    call_init(&c, KVG_FP32, KVG_FP8_E4M3FN, 1, 64, -1);
    set_x(&c, 0, 480.0f), set_x(&c, 1, -3.0f);
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(s_at(&c, 0), 127);
    assert_int_equal(y_at(&c, 0), 0x7E);
    assert_int_equal(y_at(&c, 1), 0xC4);
    assert_int_equal(s_at(&c, 1), 0);
    c.a.scale_alg = 1;
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(s_at(&c, 0), 128);
    assert_int_equal(y_at(&c, 0), 0x77);
    assert_int_equal(y_at(&c, 1), 0xBC);
    assert_int_equal(s_at(&c, 1), 0);
    call_free(&c);
}

/* A NaN or an Inf in a block: code 0xFF, every element's x * NaN -> the
 * +0 code (0x00), -Inf and negative values included. */
static void test_nonfinite_blocks(void **state)
{
    call c;
    kvg_diag d;
    int64_t i;
    (void)state;

    call_init(&c, KVG_FP16, KVG_FP8_E5M2, 1, 96, -1);
    for (i = 0; i < 96; i++)
        set_x(&c, i, i % 2 ? -1.5f : 2.0f);
    set_x(&c, 10, NAN);
    set_x(&c, 40, -INFINITY);
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(s_at(&c, 0), 0xFF);
    assert_int_equal(s_at(&c, 1), 0xFF);
    assert_int_equal(s_at(&c, 2), 127 + 1 - 15); /* amax 2: code 113 */
    assert_int_equal(s_at(&c, 3), 0x00);          /* the pad */
    for (i = 0; i < 64; i++)
        assert_int_equal(y_at(&c, i), 0x00);
    for (i = 64; i < 96; i++) /* 2 * 2^14 = 2^15: 0x78; -1.5 * 2^14: 0xF6 */
        assert_int_equal(y_at(&c, i), i % 2 ? 0xF6 : 0x78);
    call_free(&c);
}

/* ---- refusals ---------------------------------------------------------- */

/* The call fails with 161002 naming `tensor`, `words` in its message, and
 * neither output changes. */
static void expect_refused(call *c, const char *tensor, const char *words)
{
    unsigned char *y0 = (unsigned char *)malloc(c->y.nbytes);
    unsigned char *s0 = (unsigned char *)malloc(c->s.nbytes);
    kvg_diag d;

    assert_non_null(y0);
    assert_non_null(s0);
    memcpy(y0, c->y.data, c->y.nbytes);
    memcpy(s0, c->s.data, c->s.nbytes);
    assert_int_equal(run(c, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, tensor);
    if (strstr(d.message, words) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", d.message, words);
    kvgt_assert_bytes_equal(c->y.data, y0, c->y.nbytes, "y");
    kvgt_assert_bytes_equal(c->s.data, s0, c->s.nbytes, "mxscale");
    free(y0);
    free(s0);
}

static void test_refusals(void **state)
{
    call c;
    int64_t i;
    (void)state;

    call_init(&c, KVG_BF16, KVG_FP4_E2M1, 2, 64, -1);
    for (i = 0; i < 128; i++)
        set_x(&c, i, 1.0f + (float)(i % 7));
    c.a.scale_alg = 2;
    expect_refused(&c, "scale_alg", "not modelled");
    c.a.scale_alg = 1;
    expect_refused(&c, "scale_alg", "needs an fp8 y");
    c.a.scale_alg = 0;
    c.a.max_low_bound = 1e-4;
    expect_refused(&c, "max_low_bound", "must be 0");
    c.a.max_low_bound = 0.0;
    c.a.block_size = 48;
    expect_refused(&c, "block_size", "multiple of 32");
    c.a.block_size = 32;
    c.a.axis = -3;
    expect_refused(&c, "axis", "must be in [-2, 1]");
    c.a.axis = -1;
    set_x(&c, 70, 0x1p-130f);
    expect_refused(&c, "x", "element 70 (block 0 along axis 1) is subnormal");
    /* amax 2^20 (code 145, multiplier 2^-18): -2^-120 scales to 2^-138 */
    set_x(&c, 70, 0x1p20f);
    set_x(&c, 75, -0x1p-120f);
    expect_refused(&c, "x", "element 75 (block 0 along axis 1) is negative");
    set_x(&c, 75, 0x1p-120f); /* the same, positive: +0 either way */
    assert_int_equal(run(&c, NULL), KVG_OK);
    c.a.dst_type = KVG_FP4_E1M2;
    expect_refused(&c, "dst_type", "no FP4 E1M2 encoder");
    call_free(&c);

    call_init(&c, KVG_FP16, KVG_FP8_E5M2, 2, 64, -1);
    c.a.round_mode = KVG_FP4_FLOOR;
    expect_refused(&c, "round_mode", "must be \"rint\" when y is fp8_e5m2");
    c.a.round_mode = KVG_FP4_RINT;
    c.s.dtype = KVG_UINT8;
    expect_refused(&c, "mxscale", "e8m0");
    call_free(&c);

    /* an odd last dim cannot be packed in fp4 pairs */
    call_init(&c, KVG_FP32, KVG_FP4_E2M1, 64, 3, 0);
    expect_refused(&c, "x", "last dim must be even");
    call_free(&c);
}

static void test_defaults(void **state)
{
    kvg_dynamic_mx_quant_args a;
    (void)state;
    kvg_dynamic_mx_quant_args_init(&a);
    kvg_dynamic_mx_quant_args_init(NULL);
    assert_int_equal(a.dst_type, KVG_FP4_E2M1);
    assert_int_equal(a.axis, -1);
    assert_int_equal(a.block_size, 32);
    assert_int_equal(a.scale_alg, 0);
    assert_int_equal(a.round_mode, KVG_FP4_RINT);
    assert_true(a.dst_type_max == 0.0 && a.max_low_bound == 0.0);
    assert_null(a.workspace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_interleave_and_pad),
        cmocka_unit_test(test_ocp_and_cublas),
        cmocka_unit_test(test_nonfinite_blocks),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
