/*
 * src/compare/names.c - names of the comparison's enums, the AUTO
 * criterion table and the argument defaults (kvgold/compare.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/compare/compare_internal.h"

const char *kvg_compare_criterion_name(kvg_compare_criterion c)
{
    switch (c) {
    case KVG_CRIT_AUTO: return "auto";
    case KVG_CRIT_BITWISE: return "bitwise";
    case KVG_CRIT_INT_ABS1: return "int_abs1";
    case KVG_CRIT_FLOAT_RE: return "float_re";
    case KVG_CRIT_CODE_DIST: return "code_dist";
    }
    return "invalid";
}

const char *kvg_compare_role_name(kvg_compare_role role)
{
    switch (role) {
    case KVG_ROLE_DEFAULT: return "default";
    case KVG_ROLE_COPY: return "copy";
    case KVG_ROLE_COMPUTE: return "compute";
    case KVG_ROLE_QUANT: return "quant";
    }
    return "invalid";
}

const char *kvg_compare_row_kind_name(kvg_compare_row_kind kind)
{
    switch (kind) {
    case KVG_ROWK_PAYLOAD: return "payload";
    case KVG_ROWK_SCALES: return "scales";
    case KVG_ROWK_COPY: return "pass-through";
    case KVG_ROWK_PAD: return "pad";
    case KVG_ROWK_UNTOUCHED: return "untouched";
    case KVG_ROWK_UNDEFINED: return "undefined";
    }
    return "invalid";
}

const char *kvg_verdict_name(kvg_verdict v)
{
    switch (v) {
    case KVG_VERDICT_PASS: return "PASS";
    case KVG_VERDICT_NOT_JUDGED: return "NOT JUDGED";
    default: return "FAIL"; /* never optimistic */
    }
}

static const char *const k_standard_names[] = {"single", "mixed",
                                               "mixed_ttk", "commercial"};
/* Each standard with the commit of the source its numbers were read from
 * (docs/compare.md, Standards), so that a report says which reading of a
 * moving standard judged it. */
static const char *const k_standard_versions[] = {
    "single@3e62966", "mixed@233ee24", "mixed_ttk@3675093",
    "commercial@3e62966"};
static const char *const k_level_names[] = {"L0", "L1", "L2"};

const char *kvg_compare_standard_name(kvg_compare_standard s)
{
    if ((int)s < KVG_STD_SINGLE || (int)s > KVG_STD_COMMERCIAL)
        return "invalid";
    return k_standard_names[s];
}

const char *kvg_compare_standard_version(kvg_compare_standard s)
{
    if ((int)s < KVG_STD_SINGLE || (int)s > KVG_STD_COMMERCIAL)
        return "invalid";
    return k_standard_versions[s];
}

int kvg_compare_standard_from_name(const char *name,
                                   kvg_compare_standard *out)
{
    int i;
    for (i = KVG_STD_SINGLE; name != NULL && i <= KVG_STD_COMMERCIAL; i++)
        if (strcmp(name, k_standard_names[i]) == 0 ||
            strcmp(name, k_standard_versions[i]) == 0) {
            if (out != NULL)
                *out = (kvg_compare_standard)i;
            return 1;
        }
    return 0;
}

const char *kvg_compare_level_name(kvg_compare_level level)
{
    if ((int)level < KVG_LEVEL_L0 || (int)level > KVG_LEVEL_L2)
        return "invalid";
    return k_level_names[level];
}

int kvg_compare_level_from_name(const char *name, kvg_compare_level *out)
{
    int i;
    for (i = KVG_LEVEL_L0; name != NULL && i <= KVG_LEVEL_L2; i++)
        if (strcmp(name, k_level_names[i]) == 0) {
            if (out != NULL)
                *out = (kvg_compare_level)i;
            return 1;
        }
    return 0;
}

double kvg_compare_default_threshold(kvg_dtype dtype)
{
    switch (dtype) {
    case KVG_FP16: return 1.0 / 1024.0;  /* 2^-10 */
    case KVG_BF16: return 1.0 / 128.0;   /* 2^-7 */
    case KVG_FP32: return 1.0 / 8192.0;  /* 2^-13 */
    case KVG_FP8_E4M3FN: return 0.125;   /* 2^-3 */
    case KVG_FP8_E5M2: return 0.25;      /* 2^-2 */
    default: return 0.0;
    }
}

kvg_compare_criterion kvg_compare_auto_criterion(kvg_dtype dtype,
                                                 kvg_compare_role role)
{
    if (kvg_dtype_size(dtype) == 0)
        return KVG_CRIT_AUTO;
    /* e8m0: a scale one binade off moves every payload code of its block,
     * so it is exact in every role; fp4_e1m2 has no decoder, no value line */
    if (role == KVG_ROLE_COPY || dtype == KVG_E8M0 || dtype == KVG_FP4_E1M2)
        return KVG_CRIT_BITWISE;
    switch (dtype) {
    case KVG_FP16:
    case KVG_BF16:
    case KVG_FP32:
        return KVG_CRIT_FLOAT_RE;
    case KVG_FP8_E4M3FN:
    case KVG_FP8_E5M2:
        return role == KVG_ROLE_COMPUTE ? KVG_CRIT_FLOAT_RE
                                        : KVG_CRIT_CODE_DIST;
    case KVG_HIF8:
    case KVG_FP4_E2M1: /* no threshold of any standard: a code as hif8 */
        return KVG_CRIT_CODE_DIST;
    case KVG_INT8:
        return role == KVG_ROLE_COMPUTE ? KVG_CRIT_BITWISE : KVG_CRIT_INT_ABS1;
    default: /* int32, int64 */
        return role == KVG_ROLE_QUANT ? KVG_CRIT_INT_ABS1 : KVG_CRIT_BITWISE;
    }
}

/* ops-test-kit routes fp8 e4m3fn / e5m2 to the float rules (only hif8 to
 * requant: resolve.py _REQUANT_DTYPES @3675093), so under its standard a
 * quantised fp8 cache is judged as floats; a copy stays bit for bit. It
 * compares fp4 bit for bit (_BIN_DTYPES -> "bin"), and so does kvgold
 * under its standard. */
kvg_compare_criterion kvg_compare_auto_criterion_for(
    kvg_dtype dtype, kvg_compare_role role, kvg_compare_standard standard)
{
    if (standard == KVG_STD_MIXED_TTK && dtype == KVG_FP4_E2M1)
        return KVG_CRIT_BITWISE;
    if (standard == KVG_STD_MIXED_TTK && role != KVG_ROLE_COPY &&
        (dtype == KVG_FP8_E4M3FN || dtype == KVG_FP8_E5M2))
        return KVG_CRIT_FLOAT_RE;
    return kvg_compare_auto_criterion(dtype, role);
}

void kvg_compare_args_init(kvg_compare_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->name = NULL;
    args->golden = args->actual = args->initial = NULL;
    args->third_party = NULL;
    args->written = NULL;
    args->written_runs = NULL;
    args->left_behind = NULL;
    args->left_behind_user = NULL;
    args->layout = NULL;
    args->row_layout = NULL;
    args->row_tensor = 0;
    args->criterion = KVG_CRIT_AUTO;
    args->role = KVG_ROLE_DEFAULT;
    args->threshold = 0.0;
    args->mismatch_ratio = -1.0;
    args->standard = KVG_STD_MIXED_TTK; /* what ops-test-kit judges by */
    args->level = KVG_LEVEL_L1;
}
