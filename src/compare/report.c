/*
 * src/compare/report.c - text and JSON reports of comparison results
 * (kvgold/compare.h). Everything is rendered twice: once to measure, once
 * to write, so a buffer that is too small is refused untouched.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/compare.h"
#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

/* ---- a measuring string builder ---------------------------------------- */

typedef struct sb {
    char *buf; /* NULL: measure only */
    size_t len;
} sb;

static void sb_putn(sb *s, const char *p, size_t n)
{
    if (s->buf != NULL)
        memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static void sb_puts(sb *s, const char *p) { sb_putn(s, p, strlen(p)); }

static void sb_pad(sb *s, size_t n)
{
    while (n-- > 0)
        sb_putn(s, " ", 1);
}

static void sb_printf(sb *s, const char *fmt, ...) KVG_I_PRINTF(2, 3);
static void sb_printf(sb *s, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    sb_putn(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/*
 * printf's decimal point follows the C locale (LC_NUMERIC), which a host
 * program may have changed to ",". JSON and our tables want ".", so any
 * character that is not part of a number in the "C" locale becomes '.',
 * runs of them (a multi-byte point) collapse to one.
 */
void kvg_i_cmp_fix_point(char *s)
{
    char *w = s;
    const char *r = s;
    while (*r != '\0') {
        if ((*r >= '0' && *r <= '9') || *r == '-' || *r == '+' || *r == 'e' ||
            *r == 'E' || *r == 'n' || *r == 'a' || *r == 'i' || *r == 'f') {
            *w++ = *r++;
        } else {
            *w++ = '.';
            while (*r != '\0' && !((*r >= '0' && *r <= '9') || *r == 'e' ||
                                   *r == 'E'))
                r++;
        }
    }
    *w = '\0';
}

static void fmt_double(char *out, size_t cap, const char *fmt, double v)
{
    (void)snprintf(out, cap, fmt, v);
    kvg_i_cmp_fix_point(out);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_str(sb *s, const char *p)
{
    sb_putn(s, "\"", 1);
    for (; *p != '\0'; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            char esc[2];
            esc[0] = '\\';
            esc[1] = (char)ch;
            sb_putn(s, esc, 2);
        } else if (ch < 0x20 || ch >= 0x7F) {
            /* bytes >= 0x80 too: the name may not be valid UTF-8, and
             * escaping keeps the document valid JSON whatever it is */
            sb_printf(s, "\\u%04x", (unsigned)ch);
        } else {
            sb_putn(s, (const char *)&ch, 1);
        }
    }
    sb_putn(s, "\"", 1);
}

/* A JSON number with enough digits to round-trip, or null. */
static void json_num(sb *s, double v)
{
    char tmp[64];
    if (!isfinite(v)) {
        sb_puts(s, "null");
        return;
    }
    fmt_double(tmp, sizeof tmp, "%.17g", v);
    sb_puts(s, tmp);
}

static void json_key(sb *s, const char *key, int *first)
{
    if (!*first)
        sb_putn(s, ",", 1);
    *first = 0;
    json_str(s, key);
    sb_putn(s, ":", 1);
}

static void json_kv_int(sb *s, const char *key, int64_t v, int *first)
{
    json_key(s, key, first);
    sb_printf(s, "%lld", (long long)v);
}

static void json_kv_num(sb *s, const char *key, double v, int *first)
{
    json_key(s, key, first);
    json_num(s, v);
}

static void json_kv_str(sb *s, const char *key, const char *v, int *first)
{
    json_key(s, key, first);
    json_str(s, v);
}

static void json_bits(sb *s, const char *key, uint64_t bits, kvg_dtype dt,
                      int *first)
{
    char tmp[32];
    kvg_i_cmp_code_text(dt, bits, tmp, sizeof tmp);
    json_kv_str(s, key, tmp, first);
}

static const char *layout_name(kvg_layout_kind k)
{
    return k == KVG_LAYOUT_NZ ? "nz" : k == KVG_LAYOUT_BNSD ? "bnsd" : "nd";
}

/* What a unit is beyond its number: the byte and nibble of a packed fp4
 * code; an e8m0 scale as a power of two and its distance in binades. */
static void json_unit(sb *s, const kvg_compare_result *r,
                      const kvg_compare_element *e, int *first)
{
    char tmp[16];
    int64_t d;

    if (r->codes_per_element == 2) {
        json_kv_int(s, "byte", e->index / 2, first);
        json_kv_int(s, "nibble", e->index % 2, first);
    }
    if (r->dtype != KVG_E8M0)
        return;
    (void)kvg_i_cmp_e8m0_text(e->golden_bits, tmp, sizeof tmp);
    json_kv_str(s, "expected_text", tmp, first);
    (void)kvg_i_cmp_e8m0_text(e->actual_bits, tmp, sizeof tmp);
    json_kv_str(s, "actual_text", tmp, first);
    json_key(s, "binades", first);
    d = kvg_i_cmp_e8m0_binades(e->golden_bits, e->actual_bits);
    if (d < 0)
        sb_puts(s, "null");
    else
        sb_printf(s, "%lld", (long long)d);
}

static void json_element(sb *s, const kvg_compare_result *r,
                         const kvg_compare_element *e)
{
    static const char *const names[4] = {"block", "slot", "head", "channel"};
    int first = 1, i;

    sb_putn(s, "{", 1);
    json_kv_int(s, "index", e->index, &first);
    json_key(s, "coord", &first);
    if (r->has_layout) {
        int f2 = 1;
        sb_putn(s, "{", 1);
        for (i = 0; i < 4; i++)
            json_kv_int(s, names[i], e->coord[i], &f2);
        sb_putn(s, "}", 1);
    } else {
        sb_putn(s, "[", 1);
        for (i = 0; i < e->coord_rank; i++)
            sb_printf(s, "%s%lld", i ? "," : "", (long long)e->coord[i]);
        sb_putn(s, "]", 1);
    }
    json_kv_num(s, "expected", e->golden, &first);
    json_kv_num(s, "actual", e->actual, &first);
    json_bits(s, "expected_bits", e->golden_bits, r->dtype, &first);
    json_bits(s, "actual_bits", e->actual_bits, r->dtype, &first);
    json_kv_num(s, "abs_err", e->abs_err, &first);
    json_kv_num(s, "rel_err", e->rel_err, &first);
    json_kv_num(s, "score", e->score, &first);
    json_unit(s, r, e, &first);
    sb_putn(s, "}", 1);
}

static void json_elements(sb *s, const char *key, const kvg_compare_result *r,
                          const kvg_compare_element *e, int n, int *first)
{
    int i;
    json_key(s, key, first);
    sb_putn(s, "[", 1);
    for (i = 0; i < n; i++) {
        if (i)
            sb_putn(s, ",", 1);
        json_element(s, r, &e[i]);
    }
    sb_putn(s, "]", 1);
}

/* The standard applied, its source, and the issue-14 metrics: ULP
 * statistics, error balance, mixed tolerance, dual benchmark. */
static void json_standard(sb *s, const kvg_compare_result *r, int *first)
{
    int f2 = 1;

    json_kv_str(s, "standard_name", kvg_compare_standard_name(r->standard_id),
                first);
    json_kv_str(s, "standard_version",
                r->standard_version ? r->standard_version : "", first);
    json_kv_str(s, "standard_source",
                r->standard_source ? r->standard_source : "", first);
    json_kv_str(s, "level", kvg_compare_level_name(r->level), first);
    json_key(s, "ulp", first);
    sb_putn(s, "{", 1);
    json_kv_num(s, "max", r->max_ulp, &f2);
    json_kv_num(s, "mean", r->mean_ulp, &f2);
    json_kv_num(s, "threshold", r->ulp_threshold, &f2);
    json_kv_int(s, "over", r->ulp_over, &f2);
    json_kv_num(s, "over_ratio", r->ulp_over_ratio, &f2);
    sb_putn(s, "}", 1);
    json_key(s, "error_balance", first);
    f2 = 1;
    sb_putn(s, "{", 1);
    json_kv_num(s, "eb", r->error_balance, &f2);
    json_kv_int(s, "above", r->err_above, &f2);
    json_kv_int(s, "below", r->err_below, &f2);
    sb_putn(s, "}", 1);
    json_key(s, "mixed", first);
    if (!isnan(r->rtol)) {
        f2 = 1;
        sb_putn(s, "{", 1);
        json_kv_num(s, "rtol", r->rtol, &f2);
        json_kv_num(s, "atol", r->atol, &f2);
        json_kv_int(s, "matched", r->matched, &f2);
        json_kv_num(s, "matched_ratio", r->matched_ratio, &f2);
        json_kv_num(s, "matched_ratio_min", r->matched_ratio_limit, &f2);
        json_kv_num(s, "max_abs_limit", r->max_abs_limit, &f2);
        json_kv_num(s, "cap_ulps", r->cap_ulps, &f2);
        json_kv_int(s, "over_cap", r->over_cap, &f2);
        sb_putn(s, "}", 1);
    } else {
        sb_puts(s, "null");
    }
    json_key(s, "dual_benchmark", first);
    if (r->has_third_party) {
        f2 = 1;
        sb_putn(s, "{", 1);
        json_kv_int(s, "normal_count", r->normal_count, &f2);
        json_kv_num(s, "npu_mare", r->npu_mare, &f2);
        json_kv_num(s, "npu_mere", r->npu_mere, &f2);
        json_kv_num(s, "npu_rmse", r->npu_rmse, &f2);
        json_kv_num(s, "third_party_mare", r->tp_mare, &f2);
        json_kv_num(s, "third_party_mere", r->tp_mere, &f2);
        json_kv_num(s, "third_party_rmse", r->tp_rmse, &f2);
        json_kv_num(s, "mare_ratio", r->mare_ratio, &f2);
        json_kv_num(s, "mere_ratio", r->mere_ratio, &f2);
        json_kv_num(s, "rmse_ratio", r->rmse_ratio, &f2);
        json_kv_num(s, "mare_ratio_max", r->mare_ratio_limit, &f2);
        json_kv_num(s, "mere_ratio_max", r->mere_ratio_limit, &f2);
        json_kv_num(s, "rmse_ratio_max", r->rmse_ratio_limit, &f2);
        json_kv_num(s, "small_value", r->small_value, &f2);
        json_kv_num(s, "small_error", r->small_error, &f2);
        json_kv_int(s, "small_count", r->small_count, &f2);
        json_kv_int(s, "small_err_npu", r->small_err_npu, &f2);
        json_kv_int(s, "small_err_third_party", r->small_err_tp, &f2);
        json_kv_num(s, "small_err_ratio", r->small_err_ratio, &f2);
        json_kv_num(s, "small_err_ratio_max", r->small_err_ratio_limit, &f2);
        json_kv_int(s, "third_party_nonfinite_mismatch",
                    r->tp_nonfinite_mismatch, &f2);
        json_kv_str(s, "special_values",
                    r->special_by_third_party ? "cross_check" : "golden",
                    &f2);
        json_kv_int(s, "special_passed_by_third_party", r->tp_special_passed,
                    &f2);
        sb_putn(s, "}", 1);
    } else {
        sb_puts(s, "null");
    }
    json_key(s, "ops_test_kit", first);
    f2 = 1;
    sb_putn(s, "{", 1);
    json_kv_str(s, "verdict", kvg_verdict_name(r->ttk_verdict), &f2);
    json_kv_str(s, "rule", r->ttk_rule ? r->ttk_rule : "", &f2);
    json_kv_str(s, "source", KVG_I_TTK_SOURCE, &f2);
    json_kv_int(s, "elements", r->ttk_elements, &f2);
    json_kv_int(s, "matched", r->ttk_matched, &f2);
    json_kv_num(s, "matched_ratio", r->ttk_matched_ratio, &f2);
    json_kv_num(s, "max_abs_error", r->ttk_max_abs_error, &f2);
    json_kv_num(s, "max_abs_error_limit", r->ttk_max_abs_limit, &f2);
    json_kv_int(s, "mismatched", r->ttk_mismatched, &f2);
    sb_putn(s, "}", 1);
}

/* The versioned names of the standards the results were judged by, each
 * once, in order ("" when none was judged). */
static void standards_used(const kvg_compare_result *res, size_t n,
                           char *out, size_t cap)
{
    size_t i, j, used = 0;

    out[0] = '\0';
    for (i = 0; i < n; i++) {
        const char *v = res[i].standard_version;
        int seen = 0;
        if (v == NULL || v[0] == '\0')
            continue;
        for (j = 0; j < i; j++)
            if (res[j].standard_version != NULL &&
                strcmp(res[j].standard_version, v) == 0)
                seen = 1;
        if (seen || used + strlen(v) + 3 > cap)
            continue;
        used += (size_t)snprintf(out + used, cap - used, "%s%s",
                                 used ? ", " : "", v);
    }
}

/* A packed cache's field verdicts and named places (args.row_layout);
 * codes as "0x.." strings. */
static void json_place(sb *s, const kvg_compare_row_place *p)
{
    int f = 1;
    char tmp[24];

    sb_putn(s, "{", 1);
    json_kv_int(s, "slot", p->slot, &f);
    json_kv_int(s, "head", p->head, &f);
    json_kv_int(s, "segment", p->segment, &f);
    json_kv_int(s, "element", p->element, &f);
    json_kv_int(s, "group", p->group, &f);
    json_kv_int(s, "byte", p->byte, &f);
    (void)snprintf(tmp, sizeof tmp, "0x%llx",
                   (unsigned long long)p->golden_bits);
    json_kv_str(s, "golden", tmp, &f);
    (void)snprintf(tmp, sizeof tmp, "0x%llx",
                   (unsigned long long)p->actual_bits);
    json_kv_str(s, "actual", tmp, &f);
    json_kv_int(s, "distance", p->distance, &f);
    json_kv_str(s, "text", p->text, &f);
    sb_putn(s, "}", 1);
}

static void json_rows(sb *s, const kvg_compare_result *r, int *first)
{
    int f = 1, k, i;

    json_key(s, "rows", first);
    if (!r->has_rows) {
        sb_puts(s, "null");
        return;
    }
    sb_putn(s, "{", 1);
    json_kv_str(s, "layout", r->row_layout_name, &f);
    json_kv_int(s, "slots", r->row_slots, &f);
    json_kv_int(s, "slots_written", r->row_slots_written, &f);
    json_key(s, "fields", &f);
    sb_putn(s, "[", 1);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        const kvg_compare_row_verdict *v = &r->rows[k];
        int f2 = 1;
        if (k)
            sb_putn(s, ",", 1);
        sb_putn(s, "{", 1);
        json_kv_str(s, "kind",
                    kvg_compare_row_kind_name((kvg_compare_row_kind)k), &f2);
        json_kv_str(s, "verdict", kvg_verdict_name(v->verdict), &f2);
        json_kv_str(s, "criterion", kvg_compare_criterion_name(v->criterion),
                    &f2);
        json_kv_int(s, "units", v->units, &f2);
        json_kv_int(s, "differ", v->differ, &f2);
        json_kv_int(s, "failing", v->failing, &f2);
        json_kv_int(s, "max_distance", v->max_dist, &f2);
        json_kv_num(s, "failing_ratio_max", v->limit, &f2);
        json_key(s, "places", &f2);
        sb_putn(s, "[", 1);
        for (i = 0; i < v->listed; i++) {
            if (i)
                sb_putn(s, ",", 1);
            json_place(s, &v->place[i]);
        }
        sb_puts(s, "]}");
    }
    sb_puts(s, "]}");
}

static void json_result(sb *s, const kvg_compare_result *r)
{
    int first = 1, f2;

    sb_putn(s, "{", 1);
    json_kv_str(s, "name", r->name, &first);
    json_kv_str(s, "dtype", kvg_dtype_name(r->dtype), &first);
    json_kv_str(s, "role", kvg_compare_role_name(r->role), &first);
    json_kv_str(s, "criterion", kvg_compare_criterion_name(r->criterion),
                &first);
    json_kv_str(s, "standard", r->standard ? r->standard : "", &first);
    json_kv_str(s, "verdict", kvg_verdict_name(r->verdict), &first);
    json_kv_str(s, "reason", r->reason, &first);
    json_key(s, "layout", &first);
    if (r->has_layout) {
        f2 = 1;
        sb_putn(s, "{", 1);
        json_kv_str(s, "kind", layout_name(r->layout.kind), &f2);
        json_kv_int(s, "blocks", r->layout.blocks, &f2);
        json_kv_int(s, "slots", r->layout.slots, &f2);
        json_kv_int(s, "heads", r->layout.heads, &f2);
        json_kv_int(s, "dim", r->layout.dim, &f2);
        json_kv_int(s, "c0", r->layout.c0, &f2);
        sb_putn(s, "}", 1);
    } else {
        sb_puts(s, "null");
    }
    json_kv_int(s, "codes_per_element", r->codes_per_element, &first);
    json_kv_str(s, "value_statistics",
                r->has_rows ? "not applicable: a packed row's bytes are "
                              "fields of several dtypes, judged field by "
                              "field (rows)"
                            : kvg_i_cmp_values_note(r->dtype),
                &first);
    json_kv_int(s, "elements", r->elements, &first);
    json_kv_int(s, "written", r->written, &first);
    json_kv_int(s, "untouched", r->untouched, &first);
    json_kv_int(s, "untouched_changed", r->untouched_changed, &first);
    json_kv_int(s, "bits_differ", r->bits_differ, &first);
    json_kv_int(s, "compared", r->compared, &first);
    json_kv_int(s, "nan_matched", r->nan_matched, &first);
    json_kv_int(s, "inf_matched", r->inf_matched, &first);
    json_kv_int(s, "nonfinite_mismatch", r->nonfinite_mismatch, &first);
    json_kv_num(s, "max_abs_err", r->max_abs_err, &first);
    json_kv_num(s, "max_rel_err", r->max_rel_err, &first);
    json_kv_num(s, "mere", r->mere, &first);
    json_kv_num(s, "mare", r->mare, &first);
    json_kv_num(s, "rmse", r->rmse, &first);
    json_kv_num(s, "cosine", r->cosine, &first);
    json_kv_int(s, "over_thousandth", r->over_thousandth, &first);
    json_kv_num(s, "over_thousandth_ratio", r->over_thousandth_ratio, &first);
    json_kv_int(s, "over_five_thousandth", r->over_five_thousandth, &first);
    json_kv_num(s, "over_five_thousandth_ratio",
                r->over_five_thousandth_ratio, &first);
    json_key(s, "int_delta", &first);
    if (r->has_int_delta) {
        f2 = 1;
        sb_putn(s, "{", 1);
        json_kv_int(s, "minus1", r->delta_minus1, &f2);
        json_kv_int(s, "plus1", r->delta_plus1, &f2);
        json_kv_int(s, "over1", r->delta_over1, &f2);
        json_key(s, "max_abs", &f2);
        sb_printf(s, "%llu", (unsigned long long)r->max_abs_delta);
        sb_putn(s, "}", 1);
    } else {
        sb_puts(s, "null");
    }
    json_key(s, "code_distance", &first);
    if (r->has_code_dist) {
        f2 = 1;
        sb_putn(s, "{", 1);
        json_kv_int(s, "dist1", r->dist1, &f2);
        json_kv_int(s, "over1", r->dist_over1, &f2);
        json_kv_int(s, "max", r->max_dist, &f2);
        json_kv_num(s, "mismatch_ratio", r->mismatch_ratio, &f2);
        json_kv_str(s, "unit", r->dtype == KVG_E8M0 ? "binade" : "code",
                    &f2);
        sb_putn(s, "}", 1);
    } else {
        sb_puts(s, "null");
    }
    json_key(s, "limits", &first);
    f2 = 1;
    sb_putn(s, "{", 1);
    json_kv_num(s, "threshold", r->threshold, &f2);
    json_kv_num(s, "mere_below", r->mere_limit, &f2);
    json_kv_num(s, "mare_below", r->mare_limit, &f2);
    json_kv_num(s, "mismatch_ratio_max", r->mismatch_ratio_limit, &f2);
    sb_putn(s, "}", 1);
    json_standard(s, r, &first);
    json_elements(s, "worst", r, r->worst, r->worst_count, &first);
    json_elements(s, "untouched_changed_first", r, r->untouched_first,
                  r->untouched_listed, &first);
    json_rows(s, r, &first);
    sb_putn(s, "}", 1);
}

static void render_json(sb *s, const kvg_compare_result *res, size_t n)
{
    char used[160];
    kvg_compare_summary sum;
    int first = 1;
    size_t i;

    kvg_compare_summary_init(&sum);
    for (i = 0; i < n; i++)
        kvg_compare_summary_add(&sum, &res[i]);
    sb_putn(s, "{", 1);
    json_kv_str(s, "tool", "kvgold compare", &first);
    json_kv_str(s, "verdict", kvg_compare_summary_verdict(&sum), &first);
    json_kv_int(s, "tensors", sum.tensors, &first);
    json_kv_int(s, "passed", sum.passed, &first);
    json_kv_int(s, "failed", sum.failed, &first);
    json_kv_int(s, "not_judged", sum.not_judged, &first);
    json_kv_int(s, "untouched_changed", sum.untouched_changed, &first);
    standards_used(res, n, used, sizeof used);
    json_kv_str(s, "standard", used, &first);
    json_key(s, "results", &first);
    sb_putn(s, "[", 1);
    for (i = 0; i < n; i++) {
        if (i)
            sb_putn(s, ",", 1);
        json_result(s, &res[i]);
    }
    sb_puts(s, "]}\n");
}

/* ---- text ---------------------------------------------------------------- */

#define N_COLS 19
#define CELL 48

typedef struct column {
    const char *title;
    int right; /* right-aligned (numbers) */
} column;

static const column k_cols[N_COLS] = {
    {"tensor", 0},       {"dtype", 0},       {"criterion", 0},
    {"verdict", 0},      {"elements", 1},    {"written", 1},
    {"bits_differ", 1},  {"untouched_chg", 1}, {"nonfinite_mis", 1},
    {"max_abs_err", 1},  {"max_rel_err", 1}, {"MERE", 1},
    {"MARE", 1},         {"cosine", 1},      {"over_1e-3", 1},
    {"over_5e-3", 1},    {"max_step", 1},       {"max_ulp", 1},
    {"EB", 1},
};

static void cell_num(char *out, const char *fmt, double v)
{
    if (isnan(v))
        (void)snprintf(out, CELL, "-");
    else
        fmt_double(out, CELL, fmt, v);
}

/* A name for the text report: bytes outside printable ASCII become '?', so
 * a name cannot break a line or the column widths (JSON keeps them). */
static void safe_name(const char *name, char *out, size_t cap)
{
    size_t i;
    for (i = 0; i + 1 < cap && name[i] != '\0'; i++)
        out[i] = (unsigned char)name[i] < 0x20 ||
                         (unsigned char)name[i] >= 0x7F
                     ? '?'
                     : name[i];
    out[i] = '\0';
}

/* The value columns of a dtype whose value statistics do not apply
 * (e8m0, fp4_e1m2): "n/a", never a number computed on codes. */
static void row_cells_na(const kvg_compare_result *r,
                         char cells[N_COLS][CELL])
{
    int c;

    for (c = 9; c <= 15; c++)
        (void)snprintf(cells[c], CELL, "n/a");
    if (r->dtype == KVG_E8M0)
        (void)snprintf(cells[16], CELL, "binades=%lld",
                       (long long)r->max_dist);
    else
        (void)snprintf(cells[16], CELL, "-");
    cell_num(cells[17], "%.6g", r->max_ulp);
    cell_num(cells[18], "%.6f", r->error_balance);
}

static void row_cells(const kvg_compare_result *r, char cells[N_COLS][CELL])
{
    int c;

    if (r->verdict == KVG_VERDICT_NOT_JUDGED && r->criterion == KVG_CRIT_AUTO) {
        /* nothing was measured: no numbers that look like a result */
        for (c = 0; c < N_COLS; c++)
            (void)snprintf(cells[c], CELL, "-");
        safe_name(r->name, cells[0], CELL);
        (void)snprintf(cells[1], CELL, "%s", kvg_dtype_name(r->dtype));
        (void)snprintf(cells[3], CELL, "%s", kvg_verdict_name(r->verdict));
        return;
    }
    safe_name(r->name, cells[0], CELL);
    (void)snprintf(cells[1], CELL, "%s", kvg_dtype_name(r->dtype));
    (void)snprintf(cells[2], CELL, "%s",
                   r->has_rows ? "rows"
                               : kvg_compare_criterion_name(r->criterion));
    (void)snprintf(cells[3], CELL, "%s", kvg_verdict_name(r->verdict));
    (void)snprintf(cells[4], CELL, "%lld", (long long)r->elements);
    (void)snprintf(cells[5], CELL, "%lld", (long long)r->written);
    (void)snprintf(cells[6], CELL, "%lld", (long long)r->bits_differ);
    (void)snprintf(cells[7], CELL, "%lld", (long long)r->untouched_changed);
    (void)snprintf(cells[8], CELL, "%lld", (long long)r->nonfinite_mismatch);
    if (r->values_not_applicable) {
        row_cells_na(r, cells);
        return;
    }
    cell_num(cells[9], "%.4e", r->max_abs_err);
    cell_num(cells[10], "%.4e", r->max_rel_err);
    cell_num(cells[11], "%.4e", r->mere);
    cell_num(cells[12], "%.4e", r->mare);
    cell_num(cells[13], "%.8f", r->cosine);
    cell_num(cells[14], "%.6f", r->written ? r->over_thousandth_ratio : NAN);
    cell_num(cells[15], "%.6f",
             r->written ? r->over_five_thousandth_ratio : NAN);
    if (r->has_int_delta)
        (void)snprintf(cells[16], CELL, "|d|=%llu",
                       (unsigned long long)r->max_abs_delta);
    else if (r->has_code_dist)
        (void)snprintf(cells[16], CELL, "dist=%lld", (long long)r->max_dist);
    else
        (void)snprintf(cells[16], CELL, "-");
    cell_num(cells[17], "%.6g", r->max_ulp);
    cell_num(cells[18], "%.6f", r->error_balance);
}

static void put_row(sb *s, char cells[N_COLS][CELL], const size_t *width)
{
    int c;
    for (c = 0; c < N_COLS; c++) {
        size_t len = strlen(cells[c]);
        if (c)
            sb_puts(s, "  ");
        if (k_cols[c].right)
            sb_pad(s, width[c] - len);
        sb_puts(s, cells[c]);
        if (!k_cols[c].right && c != N_COLS - 1)
            sb_pad(s, width[c] - len);
    }
    sb_puts(s, "\n");
}

static void coord_text(const kvg_compare_result *r,
                       const kvg_compare_element *e, char *out, size_t cap)
{
    size_t used = 0;
    int i;

    if (r->has_layout) {
        (void)snprintf(out, cap, "block=%lld slot=%lld head=%lld "
                                 "channel=%lld", (long long)e->coord[0],
                       (long long)e->coord[1], (long long)e->coord[2],
                       (long long)e->coord[3]);
        return;
    }
    used = (size_t)snprintf(out, cap, "[");
    for (i = 0; i < e->coord_rank && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%lld",
                                 i ? ", " : "", (long long)e->coord[i]);
    if (used < cap)
        (void)snprintf(out + used, cap - used, "]");
}

static void value_text(double v, uint64_t bits, kvg_dtype dt, char *out,
                       size_t cap)
{
    char num[48], code[24];

    kvg_i_cmp_code_text(dt, bits, code, sizeof code);
    if (dt == KVG_E8M0)
        (void)kvg_i_cmp_e8m0_text(bits, num, sizeof num);
    else if (dt == KVG_FP4_E1M2)
        (void)snprintf(num, sizeof num, "code"); /* no decoder */
    else
        fmt_double(num, sizeof num, "%.9g", v);
    (void)snprintf(out, cap, "%s (%s)", num, code);
}

/* e8m0 scales: "2^-7 (0x78) vs golden 2^-6 (0x79): 1 binade". */
static void put_e8m0_elements(sb *s, const kvg_compare_result *r,
                              const kvg_compare_element *e, int n)
{
    char coord[128], pair[128];
    int i;

    sb_printf(s, "    %12s  %-40s  %s\n", "index", "coordinate",
              "actual vs golden: distance");
    for (i = 0; i < n; i++) {
        coord_text(r, &e[i], coord, sizeof coord);
        kvg_i_cmp_e8m0_pair_text(&e[i], pair, sizeof pair);
        sb_printf(s, "    %12lld  %-40s  %s\n", (long long)e[i].index, coord,
                  pair);
    }
}

static void put_elements(sb *s, const char *title,
                         const kvg_compare_result *r,
                         const kvg_compare_element *e, int n)
{
    char coord[128], want[96], got[96], ae[48], re[48], sc[48], idx[64];
    int i, iw;

    sb_printf(s, "  %s\n", title);
    if (r->dtype == KVG_E8M0) {
        put_e8m0_elements(s, r, e, n);
        return;
    }
    /* a packed fp4 index names its byte and nibble: "13 (byte 6 hi)" */
    iw = r->codes_per_element == 2 ? 24 : 12;
    sb_printf(s, "    %*s  %-40s  %-30s  %-30s  %-11s  %-11s  %s\n", iw,
              "index", "coordinate", "expected", "actual", "abs_err",
              "rel_err", "score");
    for (i = 0; i < n; i++) {
        coord_text(r, &e[i], coord, sizeof coord);
        value_text(e[i].golden, e[i].golden_bits, r->dtype, want, sizeof want);
        value_text(e[i].actual, e[i].actual_bits, r->dtype, got, sizeof got);
        fmt_double(ae, sizeof ae, "%.4e", e[i].abs_err);
        fmt_double(re, sizeof re, "%.4e", e[i].rel_err);
        if (r->values_not_applicable) {
            (void)snprintf(ae, sizeof ae, "n/a");
            (void)snprintf(re, sizeof re, "n/a");
        }
        fmt_double(sc, sizeof sc, "%.6g", e[i].score);
        kvg_i_cmp_index_text(r->dtype, e[i].index, idx, sizeof idx);
        sb_printf(s, "    %*s  %-40s  %-30s  %-30s  %-11s  %-11s  %s\n",
                  iw, idx, coord, want, got, ae, re, sc);
    }
}

/* A packed cache: one line per field kind, its named places under it. */
static void put_rows(sb *s, const kvg_compare_result *r)
{
    int k, i;

    sb_printf(s, "  packed rows (layout %s; %lld of %lld slots written), "
              "field by field:\n",
              r->row_layout_name[0] ? r->row_layout_name : "-",
              (long long)r->row_slots_written, (long long)r->row_slots);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        const kvg_compare_row_verdict *v = &r->rows[k];
        if (k == KVG_ROWK_UNDEFINED) {
            if (v->units > 0)
                sb_printf(s, "    %-12s  any value (the kernel leaves these "
                          "bytes unset): %lld bytes, %lld differ, not "
                          "judged by value\n",
                          kvg_compare_row_kind_name(KVG_ROWK_UNDEFINED),
                          (long long)v->units, (long long)v->differ);
            continue;
        }
        if (v->units == 0 && v->differ == 0) {
            /* no PASS for a kind with nothing in it: say there is none */
            sb_printf(s, "    %-12s  none: %s\n",
                      kvg_compare_row_kind_name((kvg_compare_row_kind)k),
                      k == KVG_ROWK_UNTOUCHED
                          ? "every byte of this tensor is written"
                          : "no such bytes in this tensor's written rows");
            continue;
        }
        sb_printf(s, "    %-12s  %-9s  %-4s  %lld of %lld fail, %lld not "
                  "bit-identical",
                  kvg_compare_row_kind_name((kvg_compare_row_kind)k),
                  kvg_compare_criterion_name(v->criterion),
                  kvg_verdict_name(v->verdict), (long long)v->failing,
                  (long long)v->units, (long long)v->differ);
        if (v->criterion == KVG_CRIT_CODE_DIST) {
            char lim[32];
            fmt_double(lim, sizeof lim, "%.6g", v->limit);
            sb_printf(s, " (max distance %lld; at most %s of the codes may "
                      "be > 1 apart)", (long long)v->max_dist, lim);
        }
        sb_puts(s, "\n");
        for (i = 0; i < v->listed; i++)
            sb_printf(s, "      %s\n", v->place[i].text);
        if (v->differ > v->listed && v->listed > 0)
            sb_printf(s, "      ... %lld more\n",
                      (long long)(v->differ - v->listed));
    }
}

static void put_details(sb *s, const kvg_compare_result *r)
{
    char title[160], name[KVG_DIAG_NAME_MAX];

    if (r->verdict == KVG_VERDICT_PASS && r->worst_count == 0 &&
        r->untouched_listed == 0)
        return;
    if (r->verdict == KVG_VERDICT_NOT_JUDGED && r->worst_count == 0 &&
        r->untouched_listed == 0)
        return; /* listed with its reason under "NOT JUDGED" */
    safe_name(r->name, name, sizeof name);
    sb_printf(s, "\n%s (%s, %s): %s", name, kvg_dtype_name(r->dtype),
              r->has_rows ? "packed rows"
                          : kvg_compare_criterion_name(r->criterion),
              kvg_verdict_name(r->verdict));
    if (r->reason[0] != '\0')
        sb_printf(s, ": %s", r->reason);
    sb_puts(s, "\n");
    if (r->has_rows) {
        put_rows(s, r); /* its places say more than byte indices */
        return;
    }
    if (r->untouched_listed > 0) {
        (void)snprintf(title, sizeof title,
                       "untouched elements that changed (first %d of %lld):",
                       r->untouched_listed,
                       (long long)r->untouched_changed);
        put_elements(s, title, r, r->untouched_first, r->untouched_listed);
    }
    if (r->worst_count > 0) {
        (void)snprintf(title, sizeof title,
                       "worst written elements (%d of %lld not bit-identical):",
                       r->worst_count, (long long)r->bits_differ);
        put_elements(s, title, r, r->worst, r->worst_count);
    }
}

/* One line per tensor: the limits its verdict used. */
static void limits_text(const kvg_compare_result *r, char *out, size_t cap)
{
    char a[32], b[32], c[32];

    if (r->has_rows) {
        (void)snprintf(out, cap, "packed rows, field by field (scales, "
                                 "pass-through, pad, untouched exactly; "
                                 "payload per code)");
        return;
    }
    switch (r->criterion) {
    case KVG_CRIT_BITWISE:
        (void)snprintf(out, cap, "bit-identical");
        return;
    case KVG_CRIT_INT_ABS1:
        (void)snprintf(out, cap, "|delta| <= 1");
        return;
    case KVG_CRIT_CODE_DIST:
        fmt_double(a, sizeof a, "%g", r->mismatch_ratio_limit);
        (void)snprintf(out, cap, "code distance <= 1 for all but %s of "
                                 "written", a);
        return;
    default:
        break;
    }
    if (!isnan(r->mere_limit)) {
        fmt_double(a, sizeof a, "%.6g", r->mere_limit);
        fmt_double(b, sizeof b, "%.6g", r->mare_limit);
        (void)snprintf(out, cap, "MERE < %s, MARE < %s", a, b);
    } else if (r->standard_id == KVG_STD_COMMERCIAL) {
        fmt_double(a, sizeof a, "%g", r->mare_ratio_limit);
        fmt_double(b, sizeof b, "%g", r->mere_ratio_limit);
        fmt_double(c, sizeof c, "%g", r->rmse_ratio_limit);
        (void)snprintf(out, cap, "%s: MARE/MERE/RMSE ratio <= %s/%s/%s, "
                                 "small-value errors <= 2x third party",
                       kvg_compare_level_name(r->level), a, b, c);
    } else {
        fmt_double(a, sizeof a, "%.6g", r->rtol);
        fmt_double(b, sizeof b, "%.6g", r->atol);
        fmt_double(c, sizeof c, "%g", r->max_abs_limit);
        (void)snprintf(out, cap, "|a-g| <= %s + %s*|g| for >= 99%%, max "
                                 "|a-g| <= %s", b, a, c);
    }
}

/* ULP statistics and error balance of a tensor, one line. */
static void put_ulp_eb(sb *s, const kvg_compare_result *r)
{
    char mx[32], mean[32], ratio[32], thr[32], eb[32];

    if (r->compared == 0 && r->nonfinite_mismatch == 0)
        return;
    cell_num(mx, "%.6g", r->max_ulp);
    cell_num(mean, "%.6g", r->mean_ulp);
    cell_num(ratio, "%.6g", r->ulp_over_ratio);
    cell_num(thr, "%g", r->ulp_threshold);
    cell_num(eb, "%.6g", r->error_balance);
    sb_printf(s, "    ULP: max %s, mean %s, %lld over %s (ratio %s); error "
                 "balance %s (%lld above, %lld below)\n", mx, mean,
              (long long)r->ulp_over, thr, ratio, eb,
              (long long)r->err_above, (long long)r->err_below);
}

/* What the counts and statistics of a packed fp4 or e8m0 tensor are. */
static void put_units(sb *s, const kvg_compare_result *r)
{
    if (r->codes_per_element == 2)
        sb_puts(s, "    counts are of 4-bit codes, two per byte: index = 2 * "
                   "byte + nibble (low first)\n");
    if (r->values_not_applicable)
        sb_printf(s, "    value statistics %s\n",
                  kvg_i_cmp_values_note(r->dtype));
}

/* What ops-test-kit's own default would say of the tensor, one line. */
static void put_ttk(sb *s, const kvg_compare_result *r)
{
    char x[32], y[32], z[32];

    sb_printf(s, "    ops-test-kit would say: %s (%s over all %lld "
                 "elements", kvg_verdict_name(r->ttk_verdict),
              r->ttk_rule ? r->ttk_rule : "", (long long)r->ttk_elements);
    if (!isnan(r->ttk_matched_ratio)) {
        cell_num(x, "%.6g", r->ttk_matched_ratio);
        cell_num(y, "%.6g", r->ttk_max_abs_error);
        cell_num(z, "%g", r->ttk_max_abs_limit);
        sb_printf(s, ": matched ratio %s, max |a-g| %s, cap %s", x, y, z);
    } else if (r->ttk_rule != NULL && r->ttk_rule[0] != '\0') {
        sb_printf(s, ": %lld mismatched", (long long)r->ttk_mismatched);
    }
    sb_printf(s, "); kvgold says %s\n", kvg_verdict_name(r->verdict));
}

static void put_standards(sb *s, const kvg_compare_result *res, size_t n)
{
    char name[KVG_DIAG_NAME_MAX], lim[200], used[160];
    size_t i;

    if (n == 0)
        return;
    standards_used(res, n, used, sizeof used);
    sb_printf(s, "\nstandards and thresholds: %s\n",
              used[0] ? used : "none");
    for (i = 0; i < n; i++) {
        const kvg_compare_result *r = &res[i];
        if (r->verdict == KVG_VERDICT_NOT_JUDGED &&
            r->criterion == KVG_CRIT_AUTO)
            continue;
        safe_name(r->name, name, sizeof name);
        limits_text(r, lim, sizeof lim);
        sb_printf(s, "  %s: %s, %s: %s [%s]\n", name,
                  kvg_compare_standard_name(r->standard_id),
                  r->has_rows ? "rows"
                              : kvg_compare_criterion_name(r->criterion),
                  lim, r->standard_source ? r->standard_source : "");
        if (r->has_rows) { /* byte statistics of mixed fields say nothing */
            put_ttk(s, r);
            continue;
        }
        put_units(s, r);
        put_ulp_eb(s, r);
        if (r->has_third_party) {
            char x[32], y[32], z[32];
            fmt_double(x, sizeof x, "%.4g", r->mare_ratio);
            fmt_double(y, sizeof y, "%.4g", r->mere_ratio);
            fmt_double(z, sizeof z, "%.4g", r->rmse_ratio);
            sb_printf(s, "    dual benchmark: MARE ratio %s, MERE ratio %s, "
                         "RMSE ratio %s over %lld elements; small-value "
                         "errors %lld (third party %lld) of %lld\n", x, y, z,
                      (long long)r->normal_count,
                      (long long)r->small_err_npu,
                      (long long)r->small_err_tp, (long long)r->small_count);
            if (r->special_by_third_party)
                sb_printf(s, "    NaN/inf by cross_check's rule: %lld "
                             "passed because the NPU equals the third "
                             "party, %lld failed\n",
                          (long long)r->tp_special_passed,
                          (long long)r->nonfinite_mismatch);
        }
        put_ttk(s, r);
    }
}

static void put_not_judged(sb *s, const kvg_compare_result *res, size_t n)
{
    char name[KVG_DIAG_NAME_MAX];
    size_t i;

    for (i = 0; i < n; i++) {
        if (res[i].verdict != KVG_VERDICT_NOT_JUDGED)
            continue;
        safe_name(res[i].name, name, sizeof name);
        sb_printf(s, "\nNOT JUDGED: %s: %s", name, res[i].reason);
    }
    for (i = 0; i < n; i++)
        if (res[i].verdict == KVG_VERDICT_NOT_JUDGED) {
            sb_puts(s, "\n");
            break;
        }
}

static void render_text(sb *s, const kvg_compare_result *res, size_t n)
{
    char cells[N_COLS][CELL];
    size_t width[N_COLS];
    kvg_compare_summary sum;
    size_t i;
    int c;

    for (c = 0; c < N_COLS; c++) {
        (void)snprintf(cells[c], CELL, "%s", k_cols[c].title);
        width[c] = strlen(k_cols[c].title);
    }
    for (i = 0; i < n; i++) {
        char row[N_COLS][CELL];
        row_cells(&res[i], row);
        for (c = 0; c < N_COLS; c++)
            if (strlen(row[c]) > width[c])
                width[c] = strlen(row[c]);
    }
    put_row(s, cells, width);
    for (i = 0; i < n; i++) {
        row_cells(&res[i], cells);
        put_row(s, cells, width);
    }
    put_standards(s, res, n);
    kvg_compare_summary_init(&sum);
    for (i = 0; i < n; i++) {
        put_details(s, &res[i]);
        kvg_compare_summary_add(&sum, &res[i]);
    }
    put_not_judged(s, res, n);
    sb_printf(s, "\n%s: %lld tensor%s, %lld passed, %lld failed, ",
              kvg_compare_summary_verdict(&sum), (long long)sum.tensors,
              sum.tensors == 1 ? "" : "s", (long long)sum.passed,
              (long long)sum.failed);
    if (sum.not_judged > 0)
        sb_printf(s, "%lld not judged, ", (long long)sum.not_judged);
    sb_printf(s, "%lld untouched element%s changed\n",
              (long long)sum.untouched_changed,
              sum.untouched_changed == 1 ? "" : "s");
}

/* ---- entry points ------------------------------------------------------- */

typedef void (*renderer)(sb *s, const kvg_compare_result *res, size_t n);

static kvg_status render(renderer fn, const kvg_compare_result *res,
                         size_t n, char *buf, size_t cap, size_t *len,
                         kvg_diag *diag)
{
    sb s;

    if (len == NULL || (res == NULL && n != 0))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "report", -1, -1,
                            "report: NULL results or length pointer");
    s.buf = NULL;
    s.len = 0;
    fn(&s, res, n);
    *len = s.len;
    if (buf == NULL)
        return KVG_OK;
    if (cap < s.len + 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "report", -1, -1,
                            "report: buffer holds %lu bytes, %lu needed",
                            (unsigned long)cap, (unsigned long)(s.len + 1));
    s.buf = buf;
    s.len = 0;
    fn(&s, res, n);
    buf[s.len] = '\0';
    return KVG_OK;
}

kvg_status kvg_compare_report_text(const kvg_compare_result *results,
                                   size_t count, char *buf, size_t cap,
                                   size_t *len, kvg_diag *diag)
{
    return render(render_text, results, count, buf, cap, len, diag);
}

kvg_status kvg_compare_report_json(const kvg_compare_result *results,
                                   size_t count, char *buf, size_t cap,
                                   size_t *len, kvg_diag *diag)
{
    return render(render_json, results, count, buf, cap, len, diag);
}
