/*
 * src/compare/ttk.c - the verdict ops-test-kit's default would give a
 * tensor, computed as its code computes it (hicann/ops-test-kit
 * ttk/core_modules/comparison @3675093: resolve.py picks the rule by
 * dtype; mix_tolerance.py, re_quantize.py, binary_equal.py apply it).
 * kvgold's own verdict never depends on it: it is reported next to it,
 * because that code passes some things kvgold fails (docs/compare.md,
 * "What ops-test-kit would say").
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>

#include "src/compare/compare_internal.h"

/* re_quantize.py's ptol for the 8-bit float dtypes */
#define TTK_REQUANT_PTOL 0.001

void kvg_i_cmp_ttk_init(kvg_i_cmp_ctx *c)
{
    kvg_compare_result *r = c->r;
    kvg_i_mixed_table t;

    r->ttk_elements = c->numel * c->per; /* ttk unpacks fp4: a code each */
    r->ttk_matched = r->ttk_mismatched = 0;
    r->ttk_matched_ratio = r->ttk_max_abs_error = NAN;
    r->ttk_max_abs_limit = NAN;
    c->ttk_max_err = 0.0f;
    if (kvg_i_cmp_is_int(c->dt) || c->dt == KVG_E8M0 ||
        kvg_dtype_is_fp4(c->dt)) {
        /* integers: binary_equal (resolve.py, _is_int_or_bool); e8m0 and
         * fp4 too (_BIN_DTYPES = {"float4_e2m1", "float4_e1m2",
         * "float8_e8m0"} -> "bin"; binary_equal.py compares e8m0 as uint8
         * and fp4, unpacked a code per byte, as int8) */
        c->ttk_rule = KVG_I_TTK_BINARY;
        r->ttk_rule = "binary_equal";
        return;
    }
    if (c->dt == KVG_HIF8) {
        /* hifloat8 is the one 8-bit float resolve.py sends to requant */
        c->ttk_rule = KVG_I_TTK_REQUANT;
        r->ttk_rule = "requant";
        return;
    }
    /* every other float: mix_tolerance with resolve.py's MIX_TOLERANCE */
    t = kvg_i_cmp_mixed_table(KVG_STD_MIXED_TTK, c->dt);
    c->ttk_rule = KVG_I_TTK_MIX;
    r->ttk_rule = "mix_tolerance";
    c->ttk_rtol = (float)t.rtol; /* powers of two: exact in float32 */
    c->ttk_atol = (float)t.atol;
    r->ttk_max_abs_limit = t.max_abs_limit;
}

/* An int8 view of a code, as numpy's .view(np.int8) gives it. */
static int int8_of(uint64_t bits)
{
    int v = (int)(bits & 0xFFu);
    return v >= 128 ? v - 256 : v;
}

/* mix_tolerance.py promotes both sides to float32 (fp16, bf16, fp8 and
 * fp32 values are exact there) and computes |a - g| and
 * atol + rtol * |g| in float32; two NaNs match, two infinities of one
 * sign match, any other NaN/inf makes max_abs_error infinite. */
static void mix_element(kvg_i_cmp_ctx *c, const kvg_i_elem *want,
                        const kvg_i_elem *got)
{
    kvg_compare_result *r = c->r;
    float g, a, err, tol;

    if (want->cls == KVG_I_CLS_NAN && got->cls == KVG_I_CLS_NAN) {
        r->ttk_matched++;
        return;
    }
    if (want->cls == KVG_I_CLS_INF && got->cls == KVG_I_CLS_INF &&
        (want->v > 0) == (got->v > 0)) {
        r->ttk_matched++;
        return;
    }
    if (want->cls != KVG_I_CLS_FINITE || got->cls != KVG_I_CLS_FINITE) {
        c->ttk_max_err = HUGE_VALF;
        return;
    }
    g = (float)want->v;
    a = (float)got->v;
    err = fabsf(a - g);
    tol = c->ttk_atol + c->ttk_rtol * fabsf(g);
    if (err <= tol)
        r->ttk_matched++;
    if (err > c->ttk_max_err)
        c->ttk_max_err = err;
}

void kvg_i_cmp_ttk_element(kvg_i_cmp_ctx *c, const kvg_i_elem *want,
                           const kvg_i_elem *got)
{
    kvg_compare_result *r = c->r;
    int both_nan = want->cls == KVG_I_CLS_NAN && got->cls == KVG_I_CLS_NAN;
    int d;

    switch (c->ttk_rule) {
    case KVG_I_TTK_BINARY:
        /* bytes compared, positions where both are NaN set aside */
        if (want->bits != got->bits && !both_nan)
            r->ttk_mismatched++;
        return;
    case KVG_I_TTK_REQUANT:
        if (both_nan)
            return;
        /* np.subtract of two int8 arrays wraps to int8, and np.abs of
         * -128 stays -128: such a pair is never "> 1" */
        d = int8_of((uint64_t)(int8_of(got->bits) - int8_of(want->bits)));
        if (d != -128 && (d < 0 ? -d : d) > 1)
            r->ttk_mismatched++;
        return;
    default:
        mix_element(c, want, got);
        return;
    }
}

void kvg_i_cmp_ttk_finish(kvg_i_cmp_ctx *c)
{
    kvg_compare_result *r = c->r;
    double n = (double)r->ttk_elements;
    int pass;

    if (r->ttk_elements == 0) {
        /* ops-test-kit stops before its rule on an empty output */
        r->ttk_verdict = KVG_VERDICT_NOT_JUDGED;
        return;
    }
    switch (c->ttk_rule) {
    case KVG_I_TTK_BINARY:
        pass = r->ttk_mismatched == 0;
        break;
    case KVG_I_TTK_REQUANT:
        pass = 1.0 - (n - (double)r->ttk_mismatched) / n <= TTK_REQUANT_PTOL;
        break;
    default:
        /* an untouched element that did not change equals the golden
         * bit for bit: a match, error 0 */
        r->ttk_matched += r->untouched - r->untouched_changed;
        r->ttk_matched_ratio = (double)r->ttk_matched / n;
        r->ttk_max_abs_error = (double)c->ttk_max_err;
        pass = r->ttk_matched_ratio >= KVG_I_MIXED_RATIO &&
               r->ttk_max_abs_error <= r->ttk_max_abs_limit;
        break;
    }
    r->ttk_verdict = pass ? KVG_VERDICT_PASS : KVG_VERDICT_FAIL;
}
