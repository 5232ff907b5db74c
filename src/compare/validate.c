/*
 * src/compare/validate.c - every check kvg_compare_tensor makes before it
 * writes a byte of the result: views, dtypes and shapes, the layout, the
 * criterion and the standard, the written mask.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>

#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

void kvg_i_cmp_make_labels(const char *name, kvg_i_labels *l)
{
    (void)snprintf(l->golden, sizeof l->golden, "%.36s.golden", name);
    (void)snprintf(l->actual, sizeof l->actual, "%.36s.actual", name);
    (void)snprintf(l->initial, sizeof l->initial, "%.36s.initial", name);
    (void)snprintf(l->written, sizeof l->written, "%.36s.written", name);
    (void)snprintf(l->layout, sizeof l->layout, "%.36s.layout", name);
    (void)snprintf(l->args, sizeof l->args, "%.36s", name);
    (void)snprintf(l->third_party, sizeof l->third_party,
                   "%.30s.third_party", name);
}

/* A present, consistent view (0-element tensors allowed). */
kvg_status kvg_i_cmp_check_view(const kvg_tensor *t, const char *label,
                                int64_t *numel, kvg_diag *diag)
{

    if (t == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, label, -1, -1,
                            "%s: required tensor is NULL", label);
    KVG_TRY(kvg_tensor_numel(t, label, numel, diag));
    if ((uint64_t)t->nbytes != (uint64_t)*numel * kvg_dtype_size(t->dtype)) {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: buffer is %llu bytes but shape %s of %s needs "
                            "%llu", label, (unsigned long long)t->nbytes, shape,
                            kvg_dtype_name(t->dtype),
                            (unsigned long long)((uint64_t)*numel *
                                                 kvg_dtype_size(t->dtype)));
    }
    if (t->data == NULL && t->nbytes != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, label, -1, -1,
                            "%s: data pointer is NULL", label);
    return KVG_OK;
}

/* `t` has the golden's dtype and shape. */
kvg_status kvg_i_cmp_check_like(const kvg_tensor *t, const char *label,
                                const kvg_tensor *golden, kvg_diag *diag)
{
    char want[160], got[160];
    int64_t numel;
    int i;

    KVG_TRY(kvg_i_cmp_check_view(t, label, &numel, diag));
    if (t->dtype != golden->dtype)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: dtype must be %s (the golden's), got %s",
                            label, kvg_dtype_name(golden->dtype),
                            kvg_dtype_name(t->dtype));
    kvg_i_shape_str(golden, want, sizeof want);
    kvg_i_shape_str(t, got, sizeof got);
    if (t->rank != golden->rank)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: rank must be %d (golden shape %s), got %d "
                            "(shape %s)", label, golden->rank, want, t->rank,
                            got);
    for (i = 0; i < t->rank; i++)
        if (t->shape[i] != golden->shape[i])
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                                "%s: dim %d must be %lld (golden shape %s), "
                                "got %lld (shape %s)", label, i,
                                (long long)golden->shape[i], want,
                                (long long)t->shape[i], got);
    return KVG_OK;
}

static kvg_status check_layout(const kvg_cache_layout *l, kvg_dtype dt,
                               int64_t numel, const char *label,
                               kvg_diag *diag)
{
    int64_t n = 1;
    const int64_t dims[4] = {l->blocks, l->slots, l->heads, l->dim};
    static const char *const names[4] = {"blocks", "slots", "heads", "dim"};
    int i;

    if (l->kind != KVG_LAYOUT_ND && l->kind != KVG_LAYOUT_BNSD &&
        l->kind != KVG_LAYOUT_NZ)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: kind %d is not ND, BNSD or NZ", label,
                            (int)l->kind);
    for (i = 0; i < 4; i++) {
        if (dims[i] < 1)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                                "%s: %s must be >= 1, got %lld", label,
                                names[i],
                                (long long)dims[i]);
        if (!kvg_i_mul_i64(n, dims[i], &n))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, i, -1,
                                "%s: blocks*slots*heads*dim overflows", label);
    }
    if (n != numel)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: blocks*slots*heads*dim = %lld*%lld*%lld*%lld "
                            "= %lld must equal the tensor's %lld elements",
                            label, (long long)l->blocks, (long long)l->slots,
                            (long long)l->heads, (long long)l->dim,
                            (long long)n, (long long)numel);
    if (l->kind == KVG_LAYOUT_NZ) {
        int64_t want = kvg_c0_of(dt);
        if (l->c0 < 1 || (want != 0 && l->c0 != want))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                                "%s: c0 must be %lld (32 bytes of %s), got "
                                "%lld", label, (long long)(want ? want : 1),
                                kvg_dtype_name(dt), (long long)l->c0);
        if ((l->heads * l->dim) % l->c0 != 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                                "%s: heads*dim = %lld must be a multiple of c0 "
                                "= %lld", label, (long long)(l->heads * l->dim),
                                (long long)l->c0);
    }
    return KVG_OK;
}

/* The standard and level are known, and float_re has thresholds for the
 * dtype under the standard asked for. */
static kvg_status check_standard(const kvg_compare_args *a, kvg_dtype dt,
                                 kvg_compare_criterion crit,
                                 const char *label, kvg_diag *diag)
{
    const char *sname = kvg_compare_standard_name(a->standard);

    if ((int)a->standard < KVG_STD_SINGLE ||
        (int)a->standard > KVG_STD_COMMERCIAL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: standard %d is not a kvg_compare_standard",
                            label, (int)a->standard);
    if ((int)a->level < KVG_LEVEL_L0 || (int)a->level > KVG_LEVEL_L2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: level %d is not L0, L1 or L2", label,
                            (int)a->level);
    if (crit != KVG_CRIT_FLOAT_RE)
        return KVG_OK;
    if ((a->standard == KVG_STD_MIXED || a->standard == KVG_STD_MIXED_TTK) &&
        a->threshold == 0.0 &&
        kvg_i_cmp_mixed_table(a->standard, dt).rtol == 0.0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: standard %s has no rtol/atol for %s; set "
                            "args.threshold (used as rtol = atol)", label,
                            sname, kvg_dtype_name(dt));
    if (a->standard == KVG_STD_COMMERCIAL &&
        kvg_i_cmp_small_table(dt).small_value == 0.0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: standard commercial has no small-value "
                            "threshold for %s", label, kvg_dtype_name(dt));
    return KVG_OK;
}

static kvg_status check_criterion(const kvg_compare_args *a, kvg_dtype dt,
                                  kvg_compare_criterion *crit,
                                  const char *label, kvg_diag *diag)
{
    const char *cname;

    if ((int)a->role < KVG_ROLE_DEFAULT || (int)a->role > KVG_ROLE_QUANT)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: role %d is not a kvg_compare_role", label,
                            (int)a->role);
    if ((int)a->criterion < KVG_CRIT_AUTO ||
        (int)a->criterion > KVG_CRIT_CODE_DIST)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion %d is not a kvg_compare_criterion",
                            label, (int)a->criterion);
    *crit = a->criterion == KVG_CRIT_AUTO
                ? kvg_compare_auto_criterion_for(dt, a->role, a->standard)
                : a->criterion;
    cname = kvg_compare_criterion_name(*crit);
    if (*crit != KVG_CRIT_BITWISE &&
        (dt == KVG_E8M0 || dt == KVG_FP4_E1M2))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion %s does not apply to %s, which is "
                            "judged bitwise only (%s)", label, cname,
                            kvg_dtype_name(dt),
                            dt == KVG_E8M0
                                ? "a scale one binade off moves every code "
                                  "of its block"
                                : "kvgold has no fp4_e1m2 decoder");
    if (*crit == KVG_CRIT_INT_ABS1 && !kvg_i_cmp_is_int(dt))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion %s needs an integer dtype (int8, "
                            "int32, int64), got %s", label, cname,
                            kvg_dtype_name(dt));
    if (*crit == KVG_CRIT_CODE_DIST && !kvg_i_cmp_is_code(dt))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion %s needs an 8-bit float dtype "
                            "(fp8_e4m3fn, fp8_e5m2, hif8) or fp4_e2m1, got "
                            "%s", label,
                            cname, kvg_dtype_name(dt));
    if (*crit == KVG_CRIT_FLOAT_RE && kvg_i_cmp_is_int(dt))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion %s needs a floating dtype, got %s",
                            label, cname, kvg_dtype_name(dt));
    if (!(a->threshold >= 0.0) || isinf(a->threshold))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: threshold must be finite and >= 0 (0 = the "
                            "dtype's default), got %g", label, a->threshold);
    if (*crit == KVG_CRIT_FLOAT_RE && a->threshold == 0.0 &&
        a->standard == KVG_STD_SINGLE &&
        kvg_compare_default_threshold(dt) == 0.0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: criterion float_re has no default threshold "
                            "for %s (no CANN standard gives one); set "
                            "args.threshold", label, kvg_dtype_name(dt));
    if (isnan(a->mismatch_ratio) || a->mismatch_ratio > 1.0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, label, -1, -1,
                            "%s: mismatch_ratio must be in [0, 1] (< 0 = the "
                            "default %g), got %g", label,
                            KVG_COMPARE_CODE_RATIO,
                            a->mismatch_ratio);
    return check_standard(a, dt, *crit, label, diag);
}

/* The mask holds only 0/1; where it is 0 and `initial` is given, the golden
 * must not differ from `initial` (checked run by run in bulk). */
static kvg_status check_mask(const kvg_compare_args *a, int64_t numel,
                             size_t esize, const kvg_i_labels *l,
                             kvg_diag *diag)
{
    const unsigned char *g = (const unsigned char *)a->golden->data;
    const unsigned char *init =
        a->initial ? (const unsigned char *)a->initial->data : NULL;
    int64_t i = 0;

    if (a->written == NULL)
        return KVG_OK;
    if ((uint64_t)a->written_count != (uint64_t)numel)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1, -1,
                            "%s: %llu mask bytes for %lld elements",
                            l->written, (unsigned long long)a->written_count,
                            (long long)numel);
    while (i < numel) {
        unsigned char m = a->written[i];
        int64_t j = i + 1, d;
        if (m > 1)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1, i,
                                "%s: element %lld is %u; the mask must hold "
                                "0 (untouched) or 1 (written)", l->written,
                                (long long)i, (unsigned)m);
        while (j < numel && a->written[j] == m)
            j++;
        if (m == 0 && init != NULL &&
            (d = kvg_i_cmp_first_diff(g, init, esize, i, j)) < j)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->golden, -1, d,
                                "%s: element %lld is marked untouched but "
                                "differs from %s; the mask does not describe "
                                "the golden", l->golden, (long long)d,
                                l->initial);
        i = j;
    }
    return KVG_OK;
}

kvg_status kvg_i_cmp_validate(const kvg_compare_args *a,
                              const kvg_i_labels *l, int64_t *numel,
                              kvg_compare_criterion *crit, kvg_diag *diag)
{
    int64_t n;

    KVG_TRY(kvg_i_cmp_check_view(a->golden, l->golden, numel, diag));
    KVG_TRY(kvg_i_cmp_check_like(a->actual, l->actual, a->golden, diag));
    if (a->third_party != NULL)
        KVG_TRY(kvg_i_cmp_check_like(a->third_party, l->third_party,
                                     a->golden, diag));
    if (a->initial != NULL) {
        KVG_TRY(kvg_i_cmp_check_like(a->initial, l->initial, a->golden,
                                     diag));
        if (a->written == NULL && a->written_runs == NULL)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->initial, -1, -1,
                                "%s: initial contents need the written mask "
                                "(which elements the golden wrote)",
                                l->initial);
    }
    n = *numel;
    if (a->layout != NULL)
        KVG_TRY(check_layout(a->layout, a->golden->dtype, n, l->layout,
                             diag));
    KVG_TRY(check_criterion(a, a->golden->dtype, crit, l->args, diag));
    if (a->written_runs != NULL)
        KVG_TRY(kvg_i_cmp_check_runs(a, n, kvg_dtype_size(a->golden->dtype),
                                     l, diag));
    else
        KVG_TRY(check_mask(a, n, kvg_dtype_size(a->golden->dtype), l, diag));
    /* after the mask's own checks: the rows read it by byte */
    if (a->row_layout != NULL)
        return kvg_i_rows_check(a, n, l, diag);
    return KVG_OK;
}
