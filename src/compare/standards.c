/*
 * src/compare/standards.c - the threshold tables of the precision
 * standards, each with the document and commit it was read from
 * (docs/compare.md explains each rule and where the sources disagree).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/compare/compare_internal.h"

#define P2(e) (1.0 / (double)(1ULL << (e))) /* 2^-e */

/* The spacing of the dtype's values at 1.0 (its machine epsilon). */
static double eps_at_one(kvg_dtype dt)
{
    switch (dt) {
    case KVG_FP16: return P2(10);
    case KVG_BF16: return P2(7);
    case KVG_FP32: return P2(23);
    case KVG_FP8_E4M3FN: return P2(3);
    case KVG_FP8_E5M2: return P2(2);
    default: return 0.0;
    }
}

/* "limit or 32 * ULP": an error within either is within the cap, so the
 * cap is the larger of the two, one number compared with max_abs_error;
 * the ULP is taken at 1.0. That is how ops-test-kit's code reads the
 * table (resolve.py MIX_TOLERANCE @3675093: max(1e-1, 32 * 2**-10) ...;
 * mix_tolerance.py compares max_abs_error <= max_abs_error_limit). */
static double cap_of(kvg_dtype dt, double limit)
{
    double ulps = KVG_I_MIXED_CAP_ULPS * eps_at_one(dt);
    return limit > ulps ? limit : ulps;
}

/* hicann/opbase docs/zh/ops_precision_standard/mixed_tolerance_standard.md
 * @233ee24, table 2.2: rtol = atol; cap 1e-1 (fp16, bf16), 1e-2 (fp32),
 * 1e-0 (fp8), each "or 32 * ULP" (cap_of). */
static kvg_i_mixed_table opbase_mixed(kvg_dtype dt)
{
    kvg_i_mixed_table t = {0.0, 0.0, 0.0};
    switch (dt) {
    case KVG_FP16: t.rtol = t.atol = P2(10); t.max_abs_limit = 1e-1; break;
    case KVG_BF16: t.rtol = t.atol = P2(7); t.max_abs_limit = 1e-1; break;
    case KVG_FP32: t.rtol = t.atol = P2(13); t.max_abs_limit = 1e-2; break;
    case KVG_FP8_E4M3FN: t.rtol = t.atol = P2(3); t.max_abs_limit = 1.0;
        break;
    case KVG_FP8_E5M2: t.rtol = t.atol = P2(2); t.max_abs_limit = 1.0; break;
    default: break;
    }
    t.max_abs_limit = cap_of(dt, t.max_abs_limit);
    return t;
}

/* hicann/ops-test-kit ttk/core_modules/comparison/resolve.py @3675093,
 * MIX_TOLERANCE (the same numbers as docs/Precision_Comparison.md there):
 * about twice opbase's tolerances; bf16's limit is 1e-0 and e5m2's 1e-1.
 * With the 32 ULP the fp8 caps are 4 (e4m3fn) and 8 (e5m2). */
static kvg_i_mixed_table ttk_mixed(kvg_dtype dt)
{
    kvg_i_mixed_table t = {0.0, 0.0, 0.0};
    switch (dt) {
    case KVG_FP16: t.rtol = t.atol = P2(9); t.max_abs_limit = 1e-1; break;
    case KVG_BF16: t.rtol = t.atol = P2(6); t.max_abs_limit = 1.0; break;
    case KVG_FP32: t.rtol = P2(10); t.atol = P2(16); t.max_abs_limit = 1e-2;
        break;
    case KVG_FP8_E4M3FN: t.rtol = P2(2); t.atol = P2(4);
        t.max_abs_limit = 1.0; break;
    case KVG_FP8_E5M2: t.rtol = P2(1); t.atol = P2(3);
        t.max_abs_limit = 1e-1; break;
    default: break;
    }
    t.max_abs_limit = cap_of(dt, t.max_abs_limit);
    return t;
}

kvg_i_mixed_table kvg_i_cmp_mixed_table(kvg_compare_standard s, kvg_dtype dt)
{
    return s == KVG_STD_MIXED_TTK ? ttk_mixed(dt) : opbase_mixed(dt);
}

/* hicann/opbase docs/zh/ops_precision_standard/commercial_standard.md
 * @3e62966, 4.5.3 small-value table (ops-test-kit cross_check has the same
 * fp16/bf16/fp32 numbers). */
kvg_i_small_table kvg_i_cmp_small_table(kvg_dtype dt)
{
    kvg_i_small_table t = {0.0, 0.0};
    switch (dt) {
    case KVG_FP16: t.small_value = P2(11); t.small_error = P2(16); break;
    case KVG_BF16: t.small_value = P2(8); t.small_error = P2(16); break;
    case KVG_FP32: t.small_value = P2(14); t.small_error = P2(30); break;
    case KVG_FP8_E4M3FN: t.small_value = P2(4); t.small_error = P2(6); break;
    case KVG_FP8_E5M2: t.small_value = P2(3); t.small_error = P2(5); break;
    default: break;
    }
    return t;
}

/* commercial_standard.md @3e62966, 4.5.1: MARE / MERE / RMSE ratio <= */
int kvg_i_cmp_level_limits(kvg_compare_level level, double *mare,
                           double *mere, double *rmse)
{
    switch (level) {
    case KVG_LEVEL_L0: *mare = 10.0; *mere = 2.0; *rmse = 2.0; return 1;
    case KVG_LEVEL_L1: *mare = 5.0; *mere = 1.5; *rmse = 1.5; return 1;
    case KVG_LEVEL_L2: *mare = 2.0; *mere = 1.2; *rmse = 1.2; return 1;
    }
    return 0;
}

/* Ascend/msprobe ulp_compare.py @e05ee44: errors above 1 ULP are counted
 * for fp16/bf16 (and fp8), above 32 ULP for fp32. */
double kvg_i_cmp_ulp_threshold(kvg_dtype dt)
{
    return dt == KVG_FP32 ? 32.0 : 1.0;
}

const char *kvg_i_cmp_standard_source(kvg_compare_standard s,
                                      kvg_compare_criterion crit)
{
    if (crit == KVG_CRIT_CODE_DIST)
        return "hicann/ops-test-kit ttk/core_modules/comparison/"
               "re_quantize.py @3fec561 (requant, ptol 0.001)";
    if (crit != KVG_CRIT_FLOAT_RE)
        return "hicann/opbase docs/zh/ops_precision_standard/"
               "commercial_standard.md @3e62966 (4.2-4.4)";
    switch (s) {
    case KVG_STD_MIXED:
        return "hicann/opbase docs/zh/ops_precision_standard/"
               "mixed_tolerance_standard.md @233ee24";
    case KVG_STD_MIXED_TTK:
        return "hicann/ops-test-kit ttk/core_modules/comparison/resolve.py, "
               "mix_tolerance.py; docs/Precision_Comparison.md @3675093 "
               "(mixed)";
    case KVG_STD_COMMERCIAL:
        return "hicann/opbase docs/zh/ops_precision_standard/"
               "commercial_standard.md @3e62966 (4.5)";
    default:
        return "hicann/opbase docs/zh/ops_precision_standard/"
               "experimental_standard.md @3e62966";
    }
}

const char *kvg_i_cmp_rule_text(kvg_compare_standard s,
                                kvg_compare_criterion crit)
{
    switch (crit) {
    case KVG_CRIT_BITWISE:
        return "bitwise: every written element bit-identical (CANN "
               "commercial standard: non-compute and integer ops)";
    case KVG_CRIT_INT_ABS1:
        return "int_abs1: |actual - golden| <= 1 for every written element "
               "(CANN commercial standard: quantisation, float in, integer "
               "out)";
    case KVG_CRIT_CODE_DIST:
        return "code_dist: a code distance > 1 on the format's value line "
               "is a mismatch; mismatches <= limit * written (ops-test-kit "
               "requant, with sign-magnitude codes ranked by value)";
    default:
        break;
    }
    switch (s) {
    case KVG_STD_MIXED:
    case KVG_STD_MIXED_TTK:
        return "mixed: |a-g| <= atol + rtol*|g| for >= 99% of the written "
               "elements, max |a-g| <= max(limit, 32 eps) (CANN mixed "
               "tolerance standard, as ops-test-kit reads it)";
    case KVG_STD_COMMERCIAL:
        return "commercial: MARE/MERE/RMSE ratios to a third-party result "
               "<= the level's limits where |g| >= small_value, small-value "
               "error counts <= 2x the third party's (CANN commercial "
               "standard, dual benchmark)";
    default:
        return "float_re: MERE < Th and MARE < 10*Th, rel = |a-g|/(|g|+1e-7) "
               "over finite pairs (CANN ecosystem standard; ops-test-kit "
               "stat_rel_err)";
    }
}
