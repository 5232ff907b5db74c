/*
 * tests/ops/dynamic_mx_quant/test_dmq_group_rule.c - DynamicMxQuant's
 * scale_alg 0 as a rule of the group-quant engine (src/engines/
 * group_quant.h, which the C8-MXFP K write quantises its key with) is
 * DynamicMxQuant itself, not a second model of it: on seeded groups of
 * every magnitude (and Inf / NaN ones) the engine's codes and scale equal
 * those of kvg_dynamic_mx_quant (e4m3fn, block 32) on the same x, for
 * bf16, fp16 and fp32 x. The rule is written here as data from the
 * engine's header, not taken from an operator.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "kvgold/dynamic_mx_quant.h"
#include "kvgold/format.h"
#include "src/engines/group_quant.h"

static kvg_i_group_rule rule_dmq(kvg_dtype x_dtype)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.name = "dmq";
    r.amax = KVG_I_AMAX_ALL;
    r.e8m0 = KVG_E8M0_OCP;
    r.store = KVG_I_STORE_E8M0;
    r.op = KVG_I_PAY_DIV;
    r.clamp = 1;
    r.cast = KVG_FP8_E4M3FN;
    r.x_dtype = x_dtype;
    r.code0_zero = 1;
    r.nan_code_zero = 1;
    return r;
}

static uint32_t lcg(uint32_t *st)
{
    *st = *st * 1664525u + 1013904223u;
    return *st >> 8;
}

static void draw(kvg_dtype dt, uint32_t *st, unsigned char *x)
{
    const uint32_t e0 = lcg(st) % 254u + 1u; /* the group's top binade */
    uint32_t i, u, e, down;

    for (i = 0; i < 32; i++) {
        down = lcg(st) % 12u; /* up to 11 binades below it, still normal */
        e = e0 > down ? e0 - down : 1u;
        u = (e << 23) | (lcg(st) & 0x7FFFFFu) | (lcg(st) & 1u) << 31;
        if (lcg(st) % 97u == 0)
            u = (lcg(st) & 1u) ? 0x7F800000u : 0x7FC00000u;
        if (dt == KVG_FP32) {
            memcpy(x + 4 * i, &u, 4);
        } else if (dt == KVG_BF16) {
            x[2 * i] = (unsigned char)(u >> 16);
            x[2 * i + 1] = (unsigned char)(u >> 24);
        } else { /* fp16: e0 mapped into its 5-bit exponent */
            const uint16_t h = (uint16_t)((u >> 31) << 15 |
                                          ((e % 30u) + 1u) << 10 |
                                          (u & 0x3FFu));
            x[2 * i] = (unsigned char)h;
            x[2 * i + 1] = (unsigned char)(h >> 8);
        }
    }
}

static void dmq_rule_is_dmq(void **state)
{
    static const kvg_dtype dts[] = {KVG_BF16, KVG_FP16, KVG_FP32};
    unsigned char x[4 * 32], y[32], ms[2], q[32], s[1], ws[512];
    int64_t xs[1] = {32}, ys[1] = {32}, ss[2] = {1, 2};
    kvg_dynamic_mx_quant_args a;
    kvg_tensor tx, ty, tm;
    uint32_t st = 36;
    int d, k, judged = 0;
    (void)state;

    for (d = 0; d < 3; d++) {
        const kvg_i_group_rule r = rule_dmq(dts[d]);
        for (k = 0; k < 400; k++) {
            draw(dts[d], &st, x);
            tx = kvg_tensor_make(x, dts[d] == KVG_FP32 ? 128 : 64, dts[d],
                                 1, xs);
            ty = kvg_tensor_make(y, sizeof y, KVG_FP8_E4M3FN, 1, ys);
            tm = kvg_tensor_make(ms, sizeof ms, KVG_E8M0, 2, ss);
            kvg_dynamic_mx_quant_args_init(&a);
            a.x = &tx, a.y = &ty, a.mxscale = &tm;
            a.dst_type = KVG_FP8_E4M3FN;
            a.workspace = ws, a.workspace_size = sizeof ws;
            if (kvg_dynamic_mx_quant(&a, NULL) != KVG_OK)
                continue; /* a refused group: not the rule's business */
            kvg_i_group_quant(&r, x, 32, 1.0f, q, s);
            assert_int_equal(s[0], ms[0]);
            assert_memory_equal(q, y, 32);
            judged++;
        }
    }
    assert_true(judged > 900); /* most groups are valid */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dmq_rule_is_dmq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
