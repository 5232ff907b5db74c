/*
 * tests/test_format_smoke.c - hand-picked values of every encoder, each
 * derived by hand from the format definitions (docs/formats.md), and the
 * dtype predicate that says which types are packed fp4. The exhaustive
 * sweeps and the NumPy vectors are in test_format_*.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <string.h>

#include "kvgold/dtype.h"
#include "kvgold/format.h"

static float f(uint32_t bits) { return kvg_f32_from_bits(bits); }

static void test_fp16(void **state)
{
    (void)state;
    assert_int_equal(kvg_f32_to_fp16(1.0f, KVG_OVF_DEFAULT), 0x3C00);
    assert_int_equal(kvg_f32_to_fp16(-2.0f, KVG_OVF_DEFAULT), 0xC000);
    assert_int_equal(kvg_f32_to_fp16(65504.0f, KVG_OVF_DEFAULT), 0x7BFF);
    /* 65520 = 65504 + half ulp: a tie, even is 0x7C00 = inf */
    assert_int_equal(kvg_f32_to_fp16(65520.0f, KVG_OVF_DEFAULT), 0x7C00);
    assert_int_equal(kvg_f32_to_fp16(65520.0f, KVG_OVF_SATURATE), 0x7BFF);
    assert_int_equal(kvg_f32_to_fp16(65519.996f, KVG_OVF_DEFAULT), 0x7BFF);
    assert_int_equal(kvg_f32_to_fp16(ldexpf(1.0f, -24), KVG_OVF_DEFAULT), 1);
    /* 2^-25 is half the smallest subnormal: tie to even 0 */
    assert_int_equal(kvg_f32_to_fp16(ldexpf(1.0f, -25), KVG_OVF_DEFAULT), 0);
    assert_int_equal(kvg_f32_to_fp16(ldexpf(1.5f, -25), KVG_OVF_DEFAULT), 1);
    assert_int_equal(kvg_f32_to_fp16(-ldexpf(1.0f, -26), KVG_OVF_DEFAULT),
                     0x8000);
    /* 1 + 2^-11 is a tie between 1 and 1+2^-10: even is 1 */
    assert_int_equal(kvg_f32_to_fp16(1.0f + ldexpf(1.0f, -11),
                                     KVG_OVF_DEFAULT), 0x3C00);
    assert_int_equal(kvg_f32_to_fp16(1.0f + 3 * ldexpf(1.0f, -11),
                                     KVG_OVF_DEFAULT), 0x3C02);
    assert_int_equal(kvg_f32_to_fp16(f(0x7FC00001u), KVG_OVF_DEFAULT), 0x7E00);
    assert_int_equal(kvg_f32_to_fp16(f(0xFF800000u), KVG_OVF_SATURATE), 0xFBFF);
    assert_true(kvg_fp16_to_f32(0x7BFF) == 65504.0f);
    assert_true(kvg_fp16_to_f32(0x0001) == ldexpf(1.0f, -24));
}

static void test_bf16(void **state)
{
    (void)state;
    assert_int_equal(kvg_f32_to_bf16(1.0f, KVG_OVF_DEFAULT), 0x3F80);
    assert_int_equal(kvg_f32_to_bf16(f(0x3F808000u), KVG_OVF_DEFAULT), 0x3F80);
    assert_int_equal(kvg_f32_to_bf16(f(0x3F818000u), KVG_OVF_DEFAULT), 0x3F82);
    assert_int_equal(kvg_f32_to_bf16(f(0x7F7FFFFFu), KVG_OVF_DEFAULT), 0x7F80);
    assert_int_equal(kvg_f32_to_bf16(f(0x7F7FFFFFu), KVG_OVF_SATURATE), 0x7F7F);
    assert_int_equal(kvg_f32_to_bf16(f(0x00008000u), KVG_OVF_DEFAULT), 0x0000);
    assert_int_equal(kvg_f32_to_bf16(f(0x00018000u), KVG_OVF_DEFAULT), 0x0002);
    assert_int_equal(kvg_f32_to_bf16(f(0x7F800001u), KVG_OVF_DEFAULT), 0x7FC0);
    assert_true(kvg_f32_bits(kvg_bf16_to_f32(0x0001)) == 0x00010000u);
}

static void test_fp8(void **state)
{
    (void)state;
    assert_int_equal(kvg_f32_to_fp8e4m3fn(448.0f, KVG_OVF_DEFAULT), 0x7E);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(464.0f, KVG_OVF_NONSAT), 0x7E);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(465.0f, KVG_OVF_NONSAT), 0x7F);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(465.0f, KVG_OVF_DEFAULT), 0x7E);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(-1e9f, KVG_OVF_DEFAULT), 0xFE);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(ldexpf(1.0f, -9), KVG_OVF_DEFAULT),
                     0x01);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(ldexpf(1.0f, -10), KVG_OVF_DEFAULT),
                     0x00);
    assert_int_equal(kvg_f32_to_fp8e4m3fn(0.0029296875f, KVG_OVF_DEFAULT),
                     0x02); /* 1.5 * 2^-9: tie to even 2 */
    assert_int_equal(kvg_f32_to_fp8e4m3fn(f(0xFFC00000u), KVG_OVF_DEFAULT),
                     0xFF);
    assert_int_equal(kvg_f32_to_fp8e5m2(57344.0f, KVG_OVF_DEFAULT), 0x7B);
    assert_int_equal(kvg_f32_to_fp8e5m2(61440.0f, KVG_OVF_DEFAULT), 0x7B);
    assert_int_equal(kvg_f32_to_fp8e5m2(61440.0f, KVG_OVF_NONSAT), 0x7C);
    assert_int_equal(kvg_f32_to_fp8e5m2(61439.0f, KVG_OVF_NONSAT), 0x7B);
    assert_int_equal(kvg_f32_to_fp8e5m2(f(0x7F800000u), KVG_OVF_NONSAT), 0x7C);
    assert_int_equal(kvg_f32_to_fp8e5m2(f(0x7FC00000u), KVG_OVF_DEFAULT), 0x7E);
    assert_true(kvg_fp8e4m3fn_to_f32(0x7E) == 448.0f);
    assert_true(kvg_fp8e4m3fn_to_f32(0x01) == ldexpf(1.0f, -9));
    assert_true(kvg_fp8e5m2_to_f32(0x7B) == 57344.0f);
    assert_true(isnan(kvg_fp8e4m3fn_to_f32(0x7F)));
}

static void test_hif8(void **state)
{
    (void)state;
    assert_int_equal(kvg_f32_to_hif8(1.0f, KVG_OVF_DEFAULT), 0x08);
    /* 1.75 is a code (0x0E, w = 3 at E = 0), so it is exact; the spec
     * reference's "1.75 -> 2.0" example does not apply to HiF8. */
    assert_int_equal(kvg_f32_to_hif8(1.75f, KVG_OVF_DEFAULT), 0x0E);
    /* 1.9375 = 1 + 7.5/8: a tie at w = 3, away from zero gives 2.0 */
    assert_int_equal(kvg_f32_to_hif8(1.9375f, KVG_OVF_DEFAULT), 0x10);
    assert_int_equal(kvg_f32_to_hif8(-1.9375f, KVG_OVF_DEFAULT), 0x90);
    assert_int_equal(kvg_f32_to_hif8(15.5f, KVG_OVF_DEFAULT), 0x40); /* 16 */
    assert_int_equal(kvg_f32_to_hif8(17.99f, KVG_OVF_DEFAULT), 0x40);
    assert_int_equal(kvg_f32_to_hif8(40959.996f, KVG_OVF_NONSAT), 0x6E);
    assert_int_equal(kvg_f32_to_hif8(40960.0f, KVG_OVF_NONSAT), 0x6F);
    assert_int_equal(kvg_f32_to_hif8(40960.0f, KVG_OVF_DEFAULT), 0x6E);
    assert_int_equal(kvg_f32_to_hif8(-40960.0f, KVG_OVF_DEFAULT), 0xEE);
    assert_int_equal(kvg_f32_to_hif8(ldexpf(1.0f, -23), KVG_OVF_DEFAULT), 0x01);
    assert_int_equal(kvg_f32_to_hif8(f(0x33FFFFFFu), KVG_OVF_DEFAULT), 0x00);
    assert_int_equal(kvg_f32_to_hif8(-ldexpf(1.0f, -24), KVG_OVF_DEFAULT), 0x00);
    assert_int_equal(kvg_f32_to_hif8(ldexpf(1.5f, -16), KVG_OVF_DEFAULT), 0x7E);
    assert_int_equal(kvg_f32_to_hif8(f(0x7FC00000u), KVG_OVF_DEFAULT), 0x80);
    assert_true(kvg_hif8_to_f32(0x6E) == 32768.0f);
    assert_true(kvg_hif8_to_f32(0x01) == ldexpf(1.0f, -22));
    assert_true(kvg_hif8_to_f32(0x7E) == ldexpf(1.0f, -15));
    assert_true(kvg_hif8_to_f32(0x7F) == ldexpf(1.5f, -15));
    assert_true(kvg_hif8_to_f32(0x10) == 2.0f);
    assert_true(kvg_hif8_to_f32(0x18) == 0.5f);
    assert_true(kvg_hif8_to_f32(0xB8) == -0.125f);
    assert_true(isinf(kvg_hif8_to_f32(0xEF)) && kvg_hif8_to_f32(0xEF) < 0);
}

static void test_int8(void **state)
{
    (void)state;
    assert_int_equal(kvg_f32_to_int8(2.5f), 2);
    assert_int_equal(kvg_f32_to_int8(3.5f), 4);
    assert_int_equal(kvg_f32_to_int8(-2.5f), -2);
    assert_int_equal(kvg_f32_to_int8(-3.5f), -4);
    assert_int_equal(kvg_f32_to_int8(-0.5f), 0);
    assert_int_equal(kvg_f32_to_int8(126.5f), 126);
    assert_int_equal(kvg_f32_to_int8(127.5f), 127);
    assert_int_equal(kvg_f32_to_int8(-128.5f), -128);
    assert_int_equal(kvg_f32_to_int8(-127.5f), -128);
    assert_int_equal(kvg_f32_to_int8(1e30f), 127);
    assert_int_equal(kvg_f32_to_int8(f(0x7FC00000u)), 0);
    assert_int_equal(kvg_f32_to_int8(0.50000006f), 1);
}

/* kvg_dtype_is_fp4 over every value around the enum: true exactly for
 * the types whose case-format tag is fp4_* (kvgold/dtype.h: the packed
 * 4-bit floats), false for the invalid value and out-of-range ones. */
static void test_fp4_dtype_predicate(void **state)
{
    int d, fp4 = 0;
    (void)state;
    for (d = 0; d < 64; d++) {
        const char *name = kvg_dtype_name((kvg_dtype)d);
        int want = strncmp(name, "fp4_", 4) == 0;
        assert_int_equal(kvg_dtype_is_fp4((kvg_dtype)d), want);
        fp4 += want;
    }
    assert_int_equal(fp4, 2);
    assert_true(kvg_dtype_is_fp4(KVG_FP4_E2M1));
    assert_true(kvg_dtype_is_fp4(KVG_FP4_E1M2));
    assert_false(kvg_dtype_is_fp4(KVG_E8M0));
    assert_false(kvg_dtype_is_fp4(KVG_UINT8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp16), cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_fp8),  cmocka_unit_test(test_hif8),
        cmocka_unit_test(test_int8), cmocka_unit_test(test_fp4_dtype_predicate),
    };
    return cmocka_run_group_tests_name("format.smoke", tests, NULL, NULL);
}
