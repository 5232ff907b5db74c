/*
 * src/compare/rows.c - a packed cache judged field by field
 * (kvg_compare_args.row_layout; docs/compare.md "Packed rows").
 *
 * Why not element by element: a packed cache row (the epilog operators
 * of issue 36) holds fp8 or fp4 codes, their scales (e8m0, bf16, fp32), a bf16
 * rope and padding in one uint8 tensor. Judged as uint8, a distance-1
 * fp8 code fails like a wrong scale; judged as int8 (the vendor goldens'
 * view), two wrong fp4 codes in one byte can pass. So each field gets its
 * rule: scales bit for bit (a scale one binade off changes every code of
 * its group), payload codes by code distance under the standard, pass-
 * through and padding bytes exactly, and every byte not in a written
 * slot's segments exactly against the initial contents.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/op.h"
#include "src/common/internal.h"
#include "src/compare/compare_internal.h"
#include "src/layout/row_geom.h"

typedef struct rows_ctx {
    const kvg_compare_args *a;
    const kvg_row_layout *l;
    int tensor; /* args.row_tensor: the layout's tensor judged here */
    kvg_compare_result *r;
    const unsigned char *g, *x, *ref; /* golden, actual, initial-or-golden */
    int64_t nbytes;
    kvg_compare_criterion crit[KVG_ROW_SEGMENTS];
    int rank[KVG_ROW_SEGMENTS][256];
    int64_t strict_fail; /* payload units failing outright */
    int64_t code_units, code_fail; /* code_dist units, and those > 1 */
    int64_t dont_care; /* DONT_CARE bytes a slot holds in this tensor */
} rows_ctx;

kvg_compare_criterion kvg_i_rows_payload_criterion(const kvg_compare_args *a,
                                                   kvg_dtype dt)
{
    kvg_compare_role role =
        a->role == KVG_ROLE_DEFAULT ? KVG_ROLE_QUANT : a->role;
    kvg_compare_criterion c = kvg_compare_auto_criterion_for(dt, role,
                                                             a->standard);

    /* ops-test-kit judges the uint8 tensor holding a packed row with
     * binary_equal: under its standard the codes inside are bit for bit
     * too, so kvgold is never more lenient than the tool it stands for */
    if (a->standard == KVG_STD_MIXED_TTK)
        return KVG_CRIT_BITWISE;
    /* the CANN standards' quant rule: a float view of fp8 cannot reach
     * codes inside a packed row; their distance is what code_dist
     * measures */
    return c == KVG_CRIT_FLOAT_RE ? KVG_CRIT_CODE_DIST : c;
}

static kvg_compare_row_kind kind_of(kvg_row_field f)
{
    switch (f) {
    case KVG_ROW_PAYLOAD: return KVG_ROWK_PAYLOAD;
    case KVG_ROW_SCALE: return KVG_ROWK_SCALES;
    case KVG_ROW_COPY: return KVG_ROWK_COPY;
    case KVG_ROW_UNDEFINED:
    case KVG_ROW_DONT_CARE: return KVG_ROWK_UNDEFINED;
    default: return KVG_ROWK_PAD;
    }
}

/* Unit `unit` of a head's segment whose first byte is at `base`: in
 * its piece (an NZ segment's pieces lie apart; fp4 pieces are even, so a
 * code keeps its nibble). */
static void load(const rows_ctx *c, const unsigned char *base, int seg,
                 int64_t unit, kvg_i_elem *e)
{
    const kvg_row_segment *s = &c->l->seg[seg];

    if (s->piece > 0) {
        base += unit / s->piece * s->piece_stride;
        unit %= s->piece;
    }
    kvg_i_cmp_load_at(s->dtype, kvg_dtype_size(s->dtype), base, unit, e);
}

/* Bytes from the head's segment start to unit `u` (fp4: the byte
 * holding it), across its pieces. */
static int64_t unit_byte(const kvg_row_segment *s, int64_t u)
{
    if (s->piece > 0)
        return u / s->piece * s->piece_stride +
               kvg_i_row_units_bytes(s->dtype, u % s->piece);
    return kvg_i_row_units_bytes(s->dtype, u);
}

/* Whether the bytes of a head's segment (from `at`) are equal in a and
 * b, piece by piece. */
static int segment_equal(const kvg_row_segment *s, const unsigned char *a,
                         const unsigned char *b, int64_t at)
{
    const int64_t n = kvg_i_row_pieces(s);
    int64_t k, o;

    for (k = 0; k < n; k++) {
        o = at + (n > 1 ? k * s->piece_stride : 0);
        if (memcmp(a + o, b + o, (size_t)kvg_i_row_piece_bytes(s, k)) != 0)
            return 0;
    }
    return 1;
}

/* Bytes of a head's segment (from `at`) that differ, piece by piece. */
static int64_t segment_bytes_differ(const kvg_row_segment *s,
                                    const unsigned char *a,
                                    const unsigned char *b, int64_t at)
{
    const int64_t n = kvg_i_row_pieces(s);
    int64_t k, i, o, d = 0;

    for (k = 0; k < n; k++) {
        o = at + (n > 1 ? k * s->piece_stride : 0);
        for (i = 0; i < kvg_i_row_piece_bytes(s, k); i++)
            d += a[o + i] != b[o + i];
    }
    return d;
}

/* The units of one segment of one slot that differ between golden and
 * actual, in order: the loop head every judge shares (load both, skip
 * the equal ones), so that each says only what it does with a
 * difference. */
typedef struct diff_iter {
    const rows_ctx *c;
    int seg;
    int64_t at;        /* the segment's first byte in the tensor */
    int64_t next, end; /* units [next, end) not visited yet */
    kvg_i_elem w, x;   /* the golden and actual unit last returned */
} diff_iter;

static void diff_start(diff_iter *it, const rows_ctx *c, int seg,
                       int64_t at, int64_t from, int64_t end)
{
    it->c = c;
    it->seg = seg;
    it->at = at;
    it->next = from;
    it->end = end;
}

/* The next differing unit's index (it->w, it->x hold the pair), or -1
 * when none is left. */
static int64_t diff_next(diff_iter *it)
{
    while (it->next < it->end) {
        const int64_t u = it->next++;
        load(it->c, it->c->g + it->at, it->seg, u, &it->w);
        load(it->c, it->c->x + it->at, it->seg, u, &it->x);
        if (it->w.bits != it->x.bits)
            return u;
    }
    return -1;
}

/* How far apart two payload codes are, by the segment's criterion;
 * *fail_strict / *fail_code say which count it falls in. */
static int64_t payload_distance(const rows_ctx *c, int seg,
                                const kvg_i_elem *w, const kvg_i_elem *x,
                                int *fail_strict, int *fail_code)
{
    int64_t d;

    *fail_strict = *fail_code = 0;
    switch (c->crit[seg]) {
    case KVG_CRIT_INT_ABS1: {
        int neg;
        d = (int64_t)kvg_i_cmp_int_delta(w, x, &neg);
        *fail_strict = d > 1;
        return d;
    }
    case KVG_CRIT_CODE_DIST:
        if (w->cls != KVG_I_CLS_FINITE || x->cls != KVG_I_CLS_FINITE) {
            /* a NaN for a NaN passes; any other non-finite pair fails */
            *fail_strict = !(w->cls == KVG_I_CLS_NAN &&
                             x->cls == KVG_I_CLS_NAN) &&
                           !(w->cls == x->cls && w->v == x->v);
            return -1;
        }
        d = c->rank[seg][x->bits & 0xFF] - c->rank[seg][w->bits & 0xFF];
        d = d < 0 ? -d : d;
        *fail_code = d > 1;
        return d;
    default: /* bitwise */
        *fail_strict = 1;
        return -1;
    }
}

static void offer(kvg_compare_row_verdict *v, const rows_ctx *c, int64_t slot,
                  int head, int seg, int64_t unit, int64_t at,
                  const kvg_i_elem *w, const kvg_i_elem *x, int64_t dist,
                  const char *note)
{
    if (v->listed >= KVG_COMPARE_ROW_PLACES)
        return;
    kvg_i_rows_place(c->l, slot, head, seg, unit,
                     at + unit_byte(&c->l->seg[seg], unit), w, x, dist, note,
                     &v->place[v->listed++]);
}

static void judge_payload(rows_ctx *c, int64_t slot, int head, int seg,
                          int64_t at)
{
    kvg_compare_row_verdict *v = &c->r->rows[KVG_ROWK_PAYLOAD];
    diff_iter it;
    int64_t u, d;
    int strict, code;

    diff_start(&it, c, seg, at, 0, c->l->seg[seg].count);
    while ((u = diff_next(&it)) >= 0) {
        v->differ++;
        d = payload_distance(c, seg, &it.w, &it.x, &strict, &code);
        c->strict_fail += strict;
        c->code_fail += code;
        v->failing += strict || code;
        if (d > v->max_dist)
            v->max_dist = d;
        offer(v, c, slot, head, seg, u, at, &it.w, &it.x, d, "");
    }
}

/* How the payload codes of group `grp` of payload segment `p` differ:
 * "; 64 of 64 payload codes of that group differ, all by one binade
 * (x2)" - a wrong scale shows as a uniform shift of its group's codes. */
static void group_note(const rows_ctx *c, int64_t slot, int head, int p,
                       int64_t grp, char *out, size_t cap)
{
    const kvg_row_segment *s = &c->l->seg[p];
    const int64_t at = kvg_row_element_at(c->l, slot, head, p, 0);
    /* the last group may be short (448 columns in groups of 128) */
    const int64_t end = (grp + 1) * s->group < s->count
                            ? (grp + 1) * s->group
                            : s->count,
                  n = end - grp * s->group;
    int64_t differ = 0;
    int k0 = 0, uniform = 1;
    const kvg_i_elem *w, *x;
    diff_iter it;

    diff_start(&it, c, p, at, grp * s->group, end);
    w = &it.w;
    x = &it.x;
    while (diff_next(&it) >= 0) {
        double mw, mx;
        int ew, ex;
        differ++;
        if (w->cls != KVG_I_CLS_FINITE || x->cls != KVG_I_CLS_FINITE ||
            w->v == 0.0 || x->v == 0.0 || s->dtype == KVG_FP4_E1M2) {
            uniform = 0;
            continue;
        }
        mw = frexp(w->v, &ew);
        mx = frexp(x->v, &ex);
        if (mw != mx || (differ > 1 && ex - ew != k0))
            uniform = 0;
        k0 = ex - ew;
    }
    if (differ == 0)
        (void)snprintf(out, cap, "; its %lld payload codes are "
                       "bit-identical", (long long)n);
    else if (uniform && (k0 == 1 || k0 == -1))
        (void)snprintf(out, cap, "; %lld of %lld payload codes of that "
                       "group differ, all by one binade (x%s)",
                       (long long)differ, (long long)n,
                       k0 == 1 ? "2" : "1/2");
    else if (uniform)
        (void)snprintf(out, cap, "; %lld of %lld payload codes of that "
                       "group differ, all by %d binades (x2^%d)",
                       (long long)differ, (long long)n,
                       k0 < 0 ? -k0 : k0, k0);
    else
        (void)snprintf(out, cap, "; %lld of %lld payload codes of that "
                       "group differ (not one shift of binades)",
                       (long long)differ, (long long)n);
}

/* Scales, pass-through elements and pad bytes: bit for bit. */
static void judge_exact(rows_ctx *c, int64_t slot, int head, int seg,
                        int64_t at)
{
    const kvg_row_segment *s = &c->l->seg[seg];
    kvg_compare_row_verdict *v = &c->r->rows[kind_of(s->field)];
    char note[160];
    diff_iter it;
    int64_t u, d;

    diff_start(&it, c, seg, at, 0, s->count);
    while ((u = diff_next(&it)) >= 0) {
        v->differ++;
        v->failing++;
        d = -1;
        if (s->dtype == KVG_E8M0)
            d = kvg_i_cmp_e8m0_binades(it.w.bits, it.x.bits);
        if (d > v->max_dist)
            v->max_dist = d;
        note[0] = '\0';
        /* the payload's codes can be read only when they are in the
         * tensor judged here (a scale tensor of its own has none) */
        if (s->field == KVG_ROW_SCALE && v->listed < KVG_COMPARE_ROW_PLACES &&
            kvg_row_segment_tensor(c->l, s->of) == c->tensor)
            group_note(c, slot, head, s->of, u, note, sizeof note);
        offer(v, c, slot, head, seg, u, at, &it.w, &it.x, d, note);
    }
}

/* The sink slot's segment bytes: written in an order the kernel does not
 * define (several pad rows clamped to one slot), so any value is right;
 * counted as UNDEFINED bytes, never judged. */
static void count_sink(rows_ctx *c, int i, int64_t at)
{
    const kvg_row_segment *s = &c->l->seg[i];
    kvg_compare_row_verdict *v = &c->r->rows[KVG_ROWK_UNDEFINED];

    v->units += kvg_row_segment_bytes(s);
    v->differ += segment_bytes_differ(s, c->g, c->x, at);
}

/* Segment i of head `head` of a written slot, by its field's rule. */
static void judge_segment(rows_ctx *c, int64_t slot, int head, int i)
{
    const kvg_row_segment *s = &c->l->seg[i];
    const int64_t at = kvg_row_element_at(c->l, slot, head, i, 0);
    kvg_compare_row_verdict *v = &c->r->rows[kind_of(s->field)];

    if (c->l->has_sink && slot == c->l->sink_slot) {
        count_sink(c, i, at);
        return;
    }
    v->units += s->count;
    if (s->field == KVG_ROW_UNDEFINED || s->field == KVG_ROW_DONT_CARE) {
        /* any value is right */
        v->differ += segment_bytes_differ(s, c->g, c->x, at);
        return;
    }
    if (s->field == KVG_ROW_PAYLOAD && c->crit[i] == KVG_CRIT_CODE_DIST)
        c->code_units += s->count;
    if (segment_equal(s, c->g, c->x, at))
        return;
    if (s->field == KVG_ROW_PAYLOAD)
        judge_payload(c, slot, head, i, at);
    else
        judge_exact(c, slot, head, i, at);
}

static void judge_slot(rows_ctx *c, int64_t slot)
{
    const int heads = kvg_i_row_heads(c->l);
    int i, h;

    for (h = 0; h < heads; h++)
        for (i = 0; i < c->l->segments; i++)
            /* the other tensor's: judged by its own compare */
            if (kvg_row_segment_tensor(c->l, i) == c->tensor)
                judge_segment(c, slot, h, i);
}

/* Whether byte i is a DONT_CARE byte of a written slot: outside the
 * written runs (the operator never sets it), yet not untouched - the
 * writer leaves whatever was there (FlashMLA allocates with torch.empty),
 * so its value is not judged; judge_segment counted it as UNDEFINED. */
static int dont_care_byte(const rows_ctx *c, int64_t i)
{
    const kvg_row_place p = kvg_row_place_of(c->l, c->tensor, i);

    return p.segment >= 0 &&
           c->l->seg[p.segment].field == KVG_ROW_DONT_CARE &&
           kvg_i_rows_slot_written(c->a, p.slot);
}

/* Untouched bytes [from, to) that differ from `ref`; with `segments_too`
 * 0 (no written set: every slot written), bytes inside a segment are the
 * fields' and skipped. */
static void untouched_span(rows_ctx *c, int64_t from, int64_t to,
                           int segments_too)
{
    kvg_compare_row_verdict *v = &c->r->rows[KVG_ROWK_UNTOUCHED];
    const char *ref_name = c->a->initial != NULL ? "initial" : "golden";
    int64_t i = from;

    while ((i = kvg_i_cmp_first_diff(c->ref, c->x, 1, i, to)) < to) {
        if (dont_care_byte(c, i)) {
            i++;
            continue;
        }
        if (segments_too ||
            kvg_row_place_of(c->l, c->tensor, i).segment < 0) {
            v->differ++;
            v->failing++;
            if (v->listed < KVG_COMPARE_ROW_PLACES)
                kvg_i_rows_untouched_place(c->a, i, ref_name,
                                           &v->place[v->listed++]);
        }
        i++;
    }
}

/* Every byte not in a written slot's segments: the gaps of the written
 * set, or without one the bytes outside every segment. With a written
 * set the byte pass has compared exactly these bytes already; when it
 * found none changed they are counted, not read again (a multi-GiB
 * mapped cache is not paged in twice). */
static void judge_untouched(rows_ctx *c, int64_t segment_bytes)
{
    const kvg_compare_args *a = c->a;
    kvg_compare_row_verdict *v = &c->r->rows[KVG_ROWK_UNTOUCHED];
    int64_t i = 0, j;
    size_t k;

    if ((a->written != NULL || a->written_runs != NULL) &&
        c->r->untouched_changed == 0) {
        v->units = c->nbytes - segment_bytes;
        return;
    }
    if (a->written != NULL) {
        while (i < c->nbytes) {
            for (j = i; j < c->nbytes && a->written[j] == a->written[i]; j++)
                ;
            if (a->written[i] == 0) {
                v->units += j - i;
                untouched_span(c, i, j, 1);
            }
            i = j;
        }
    } else if (a->written_runs != NULL) {
        for (k = 0; k <= a->written_run_count; k++) {
            j = k < a->written_run_count ? a->written_runs[k].first
                                         : c->nbytes;
            v->units += j - i;
            untouched_span(c, i, j, 1);
            if (k < a->written_run_count)
                i = j + a->written_runs[k].count;
        }
    } else {
        v->units = c->nbytes - segment_bytes;
        untouched_span(c, 0, c->nbytes, 0);
        return;
    }
    /* the written slots' DONT_CARE bytes lie in the gaps of the written
     * set, but are counted as UNDEFINED (judge_segment), not here */
    v->units -= c->r->row_slots_written * c->dont_care;
}

static void add_reason(kvg_compare_result *r, const char *fmt, ...)
    KVG_I_PRINTF(2, 3);
static void add_reason(kvg_compare_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->reason);
    va_list ap;

    if (used + 3 >= sizeof r->reason)
        return;
    if (used > 0) {
        memcpy(r->reason + used, "; ", 3);
        used += 2;
    }
    va_start(ap, fmt);
    (void)vsnprintf(r->reason + used, sizeof r->reason - used, fmt, ap);
    va_end(ap);
}

/* Each kind's verdict, then the tensor's: it fails if any kind does. */
static void finish(rows_ctx *c)
{
    kvg_compare_result *r = c->r;
    kvg_compare_row_verdict *p = &r->rows[KVG_ROWK_PAYLOAD];
    int k;

    p->limit = c->a->mismatch_ratio >= 0.0 ? c->a->mismatch_ratio
                                           : KVG_COMPARE_CODE_RATIO;
    p->verdict = c->strict_fail > 0 ||
                         (double)c->code_fail >
                             p->limit * (double)c->code_units
                     ? KVG_VERDICT_FAIL
                     : KVG_VERDICT_PASS;
    for (k = KVG_ROWK_SCALES; k < KVG_COMPARE_ROW_KINDS; k++)
        r->rows[k].verdict =
            r->rows[k].failing > 0 ? KVG_VERDICT_FAIL : KVG_VERDICT_PASS;
    /* without a written set the byte pass saw no untouched byte */
    r->untouched_changed = r->rows[KVG_ROWK_UNTOUCHED].differ;
    r->verdict = KVG_VERDICT_PASS;
    r->reason[0] = '\0';
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++) {
        const kvg_compare_row_verdict *v = &r->rows[k];
        if (v->verdict == KVG_VERDICT_PASS)
            continue;
        r->verdict = KVG_VERDICT_FAIL;
        add_reason(r, "%s: %lld of %lld fail%s%s",
                   kvg_compare_row_kind_name((kvg_compare_row_kind)k),
                   (long long)v->failing, (long long)v->units,
                   v->listed > 0 ? ", " : "",
                   v->listed > 0 ? v->place[0].text : "");
    }
}

void kvg_i_rows_judge(kvg_i_cmp_ctx *cc, const kvg_compare_args *a)
{
    kvg_compare_result *r = cc->r;
    rows_ctx c;
    int64_t slot, slots, seg_bytes = 0;
    int i, k;

    memset(&c, 0, sizeof c);
    c.a = a;
    c.l = a->row_layout;
    c.tensor = a->row_tensor;
    c.r = r;
    c.g = cc->g;
    c.x = cc->x;
    c.ref = cc->init != NULL ? cc->init : cc->g;
    c.nbytes = cc->numel;
    for (i = 0; i < c.l->segments; i++) {
        const kvg_row_segment *s = &c.l->seg[i];
        c.crit[i] = s->field == KVG_ROW_PAYLOAD
                        ? kvg_i_rows_payload_criterion(a, s->dtype)
                        : KVG_CRIT_BITWISE;
        if (c.crit[i] == KVG_CRIT_CODE_DIST)
            kvg_i_cmp_build_ranks(s->dtype, c.rank[i]);
        if (kvg_row_segment_tensor(c.l, i) == c.tensor)
            seg_bytes += kvg_i_row_heads(c.l) * kvg_row_segment_bytes(s);
        if (kvg_row_segment_tensor(c.l, i) == c.tensor &&
            s->field == KVG_ROW_DONT_CARE)
            c.dont_care += kvg_i_row_heads(c.l) * kvg_row_segment_bytes(s);
    }
    r->has_rows = 1;
    /* the bytes of a packed row are no values of one dtype */
    r->values_not_applicable = 1;
    r->max_abs_err = r->max_rel_err = r->mere = r->mare = NAN;
    r->rmse = r->cosine = NAN;
    r->over_thousandth = r->over_five_thousandth = 0;
    r->over_thousandth_ratio = r->over_five_thousandth_ratio = NAN;
    r->role = a->role;
    r->standard = "packed rows, field by field: scales, pass-through, pad "
                  "and untouched bytes bit for bit, payload codes bit for "
                  "bit under mixed_ttk, else by their dtype's quant rule "
                  "(docs/compare.md, Packed rows)";
    r->standard_source = "kvgold docs/compare.md (Packed rows); mixed_ttk: "
                         "ops-test-kit's binary_equal on the uint8 cache; "
                         "code_dist as ops-test-kit requant, its int8 view "
                         "fixed";
    (void)snprintf(r->row_layout_name, sizeof r->row_layout_name, "%s",
                   c.l->name != NULL ? c.l->name : "");
    memset(r->rows, 0, sizeof r->rows);
    for (k = 0; k < KVG_COMPARE_ROW_KINDS; k++)
        r->rows[k].criterion = KVG_CRIT_BITWISE;
    r->rows[KVG_ROWK_UNDEFINED].criterion = KVG_CRIT_AUTO; /* any value */
    for (i = 0; i < c.l->segments; i++)
        if (c.l->seg[i].field == KVG_ROW_PAYLOAD &&
            kvg_row_segment_tensor(c.l, i) == c.tensor) {
            r->rows[KVG_ROWK_PAYLOAD].criterion = c.crit[i];
            break;
        }
    slots = c.l->blocks * c.l->block_size;
    r->row_slots = slots;
    for (slot = 0; slot < slots; slot++) {
        if (!kvg_i_rows_slot_written(a, slot))
            continue;
        r->row_slots_written++;
        judge_slot(&c, slot);
    }
    judge_untouched(&c, r->row_slots_written * seg_bytes);
    finish(&c);
}
