/*
 * src/engines/packed_row.c - a token's row into its packed cache slot
 * through a kvg_row_layout, the slot policies, a call's tokens under one,
 * and the byte runs of a slot's write (packed_row.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/packed_row.h"

#include <string.h>

int kvg_i_packed_row_kept(kvg_i_slot_policy policy, int64_t slot,
                          int64_t slots)
{
    if (policy == KVG_I_SLOT_SKIP_OUTSIDE)
        return slot >= 0 && slot < slots;
    if (policy == KVG_I_SLOT_SKIP_NEGATIVE ||
        policy == KVG_I_SLOT_SINK_SCALES)
        return slot >= 0;
    return slot != -1;
}

kvg_status kvg_i_packed_row_check_index(const kvg_tensor *index,
                                        const kvg_tensor *x, kvg_diag *diag)
{
    int i;

    if (index->dtype != KVG_INT32 && index->dtype != KVG_INT64)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", -1,
                            -1, "slot_mapping: dtype %s; int32 or int64 "
                            "expected", kvg_dtype_name(index->dtype));
    KVG_TRY(kvg_i_check_rank(index, "slot_mapping", x->rank - 1, diag));
    for (i = 0; i < index->rank; i++)
        KVG_TRY(kvg_i_check_dim(index, "slot_mapping", i, x->shape[i],
                                "x.shape[:-1]", diag));
    return KVG_OK;
}

/* Under SKIP_OUTSIDE an entry >= slots is skipped: it gets a key of its
 * own below -1 (the position's), so it never repeats another. */
static int64_t outside_key(const void *ctx, int64_t pos, int64_t value)
{
    const int64_t slots = *(const int64_t *)ctx;
    return value < slots ? value : -2 - pos;
}

/* The refusals the unique-index walk does not make: a negative other
 * than -1 (SKIP_MINUS1), a value that does not fit int32 (int32_only). */
static kvg_status policy_values(const kvg_tensor *index, int64_t n,
                                kvg_i_slot_policy policy, int int32_only,
                                kvg_diag *diag)
{
    int64_t t, v;

    for (t = 0; t < n; t++) {
        v = kvg_i_index_at(index, t);
        if (int32_only && (v < INT32_MIN || v > INT32_MAX))
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0, t,
                "slot_mapping: token %lld: slot %lld does not fit int32 "
                "(this implementation narrows slots to int32 and would "
                "wrap it)", (long long)t, (long long)v);
        if (policy == KVG_I_SLOT_SKIP_MINUS1 && v < -1)
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0, t,
                "slot_mapping: token %lld: slot %lld is negative; only -1 "
                "skips a token (the kernel would write before the cache)",
                (long long)t, (long long)v);
    }
    return KVG_OK;
}

kvg_status kvg_i_packed_row_check_slots(const kvg_tensor *index, int64_t n,
                                        int64_t slots,
                                        kvg_i_slot_policy policy,
                                        int int32_only, kvg_i_keypos *keys,
                                        kvg_diag *diag)
{
    kvg_i_unique u;

    KVG_TRY(policy_values(index, n, policy, int32_only, diag));
    u.index = index;
    u.n = n;
    u.limit = policy == KVG_I_SLOT_SKIP_OUTSIDE ? INT64_MAX : slots;
    u.ctx = &slots;
    u.key_of = policy == KVG_I_SLOT_SKIP_OUTSIDE ? outside_key : NULL;
    u.negative = NULL; /* every negative left skips (-1 only, above) */
    u.out_of_range = kvg_i_slot_out_of_range;
    u.repeated = kvg_i_slot_repeated;
    return kvg_i_check_unique(&u, keys, diag);
}

/* The SCALE segment naming PAYLOAD segment i, or -1. */
static int scale_segment(const kvg_row_layout *l, int i)
{
    int j;

    for (j = 0; j < l->segments; j++)
        if (l->seg[j].field == KVG_ROW_SCALE && l->seg[j].of == i)
            return j;
    return -1;
}

/* Where element e of segment i of head h of `slot` is: in its own
 * tensor; NULL when that tensor is not written in this call. */
static unsigned char *element_base(const kvg_row_layout *l,
                                   unsigned char *const tensor[], int64_t slot,
                                   int h, int i, int64_t e)
{
    unsigned char *base = tensor[kvg_row_segment_tensor(l, i)];

    return base == NULL ? NULL : base + kvg_row_element_at(l, slot, h, i, e);
}

/* x's columns of head h, from the segment's first column (elements of
 * `esize` bytes: bf16, or the payload rule's x_dtype). */
static const unsigned char *head_x(const kvg_i_packed_row *p,
                                   const unsigned char *x_row, int h, int i,
                                   size_t esize)
{
    return x_row +
           esize * (size_t)(p->column[i] + (int64_t)h * p->head_columns);
}

/* Whether payload segment i (groups of g) and its SCALE segment sc (or
 * none) are each one piece whose units are the rule's bytes, so that
 * group k's codes and scale are k steps from the first ones: then
 * kvg_i_group_quant_run writes the row's groups in one call. */
static int one_run(const kvg_i_packed_row *p, int i, int sc, int64_t g)
{
    const kvg_row_layout *l = p->layout;
    const kvg_i_group_rule *r = p->rule[i];

    if (kvg_i_row_pieces(&l->seg[i]) != 1 ||
        kvg_i_row_units_bytes(l->seg[i].dtype, g) !=
            (int64_t)kvg_i_group_payload_bytes(r, g))
        return 0;
    return sc < 0 || (kvg_i_row_pieces(&l->seg[sc]) == 1 &&
                      kvg_i_row_units_bytes(l->seg[sc].dtype, 1) ==
                          (int64_t)kvg_i_group_scale_bytes(r));
}

/* What a row's write takes from the layout alone, found once a call
 * (a row of one to four groups had spent a tenth of its time on
 * these): each PAYLOAD segment's SCALE segment and whether its groups
 * go in one run. */
typedef struct row_plan {
    int heads;
    int sc[KVG_ROW_SEGMENTS];  /* scale_segment, or -1 */
    int run[KVG_ROW_SEGMENTS]; /* one_run */
} row_plan;

static void plan_row(const kvg_i_packed_row *p, row_plan *rp)
{
    const kvg_row_layout *l = p->layout;
    const kvg_row_segment *s;
    int i;

    rp->heads = kvg_i_row_heads(l);
    for (i = 0; i < l->segments; i++) {
        s = &l->seg[i];
        rp->sc[i] = -1;
        rp->run[i] = 0;
        if (s->field != KVG_ROW_PAYLOAD)
            continue;
        rp->sc[i] = scale_segment(l, i);
        rp->run[i] = one_run(p, i, rp->sc[i],
                             s->group > 0 ? s->group : s->count);
    }
}

/* Group by group: the check put each group inside one piece, so its
 * codes are one contiguous run; its scale is one element of the SCALE
 * segment, wherever that segment's pieces put it. */
static void write_payload(const kvg_i_packed_row *p, const row_plan *rp,
                          unsigned char *const tensor[],
                          const unsigned char *x_row, int64_t slot, int h,
                          int i)
{
    const kvg_row_layout *l = p->layout;
    const kvg_row_segment *s = &l->seg[i];
    const kvg_i_group_rule *r = p->rule[i];
    const size_t xb = kvg_i_group_x_bytes(r);
    const unsigned char *x = head_x(p, x_row, h, i, xb);
    const int sc = rp->sc[i];
    const int64_t g = s->group > 0 ? s->group : s->count;
    unsigned char *scale;
    int64_t k;

    if (rp->run[i]) {
        /* addresses once a row: the codes and the scales each contiguous
         * (element_base of element e is its first byte plus e units) */
        scale = sc < 0 ? NULL : element_base(l, tensor, slot, h, sc, 0);
        if (scale == NULL && tensor[kvg_row_segment_tensor(l, i)] == NULL)
            return;
        kvg_i_group_quant_run(r, x, g, s->count / g, p->x_scale,
                              element_base(l, tensor, slot, h, i, 0), scale);
        return;
    }
    for (k = 0; k < s->count / g; k++) {
        /* a payload in a tensor not written still gives its scales (q
         * NULL); nothing at all when neither is written */
        scale = sc < 0 ? NULL : element_base(l, tensor, slot, h, sc, k);
        if (scale == NULL && tensor[kvg_row_segment_tensor(l, i)] == NULL)
            return;
        kvg_i_group_quant(r, x + xb * (size_t)(k * g), g, p->x_scale,
                          element_base(l, tensor, slot, h, i, k * g), scale);
    }
}

/* A COPY, PAD or UNDEFINED segment, piece by piece. */
static void write_bytes(const kvg_i_packed_row *p,
                        unsigned char *const tensor[],
                        const unsigned char *x_row, int64_t slot, int h,
                        int i)
{
    const kvg_row_layout *l = p->layout;
    const kvg_row_segment *s = &l->seg[i];
    const int64_t n = kvg_i_row_pieces(s), step = n > 1 ? s->piece : 0;
    int64_t k;

    if (tensor[kvg_row_segment_tensor(l, i)] == NULL)
        return; /* a tensor this call does not write */
    for (k = 0; k < n; k++) {
        unsigned char *at = element_base(l, tensor, slot, h, i, k * step);
        const size_t bytes = (size_t)kvg_i_row_piece_bytes(s, k);

        if (s->field == KVG_ROW_COPY) /* bf16 columns */
            memcpy(at,
                   head_x(p, x_row, h, i, 2) +
                       kvg_i_row_units_bytes(s->dtype, k * step),
                   bytes);
        else /* PAD, and UNDEFINED: zeros, what the kernel leaves is not
                a result */
            memset(at, 0, bytes);
    }
}

/* kvg_i_packed_row_write with the layout's decisions made (plan_row). */
static void write_row(const kvg_i_packed_row *p, const row_plan *rp,
                      unsigned char *const tensor[KVG_ROW_TENSORS],
                      const unsigned char *x_row, int64_t slot)
{
    const kvg_row_layout *l = p->layout;
    int i, h;

    for (h = 0; h < rp->heads; h++)
        for (i = 0; i < l->segments; i++) {
            switch (l->seg[i].field) {
            case KVG_ROW_PAYLOAD:
                write_payload(p, rp, tensor, x_row, slot, h, i);
                break;
            case KVG_ROW_COPY:
            case KVG_ROW_PAD:
            case KVG_ROW_UNDEFINED:
                write_bytes(p, tensor, x_row, slot, h, i);
                break;
            default: /* SCALE: written with its payload; DONT_CARE: never
                        written */
                break;
            }
        }
}

void kvg_i_packed_row_write(const kvg_i_packed_row *p,
                            unsigned char *const tensor[KVG_ROW_TENSORS],
                            const unsigned char *x_row, int64_t slot)
{
    row_plan rp;

    plan_row(p, &rp);
    write_row(p, &rp, tensor, x_row, slot);
}

/* The layout's tensors holding a PAYLOAD segment (bit t: tensor t). */
static unsigned payload_tensors(const kvg_row_layout *l)
{
    unsigned mask = 0;
    int i;

    for (i = 0; i < l->segments; i++)
        if (l->seg[i].field == KVG_ROW_PAYLOAD)
            mask |= 1u << kvg_row_segment_tensor(l, i);
    return mask;
}

/* Where token t's row goes under the policy: *slot, and the layout's
 * tensors written there (bit t: tensor t); 0 when it is skipped. */
static unsigned token_target(const kvg_row_layout *l,
                             const kvg_i_packed_tokens *k, int64_t t,
                             int64_t *slot)
{
    const int64_t s = kvg_i_index_at(k->slot_mapping, t);
    const unsigned all = (1u << l->tensors) - 1u;

    if (kvg_i_packed_row_kept(k->policy, s, k->slots)) {
        *slot = s;
        return all;
    }
    if (k->policy == KVG_I_SLOT_SINK_SCALES) {
        *slot = l->sink_slot;
        return all & ~payload_tensors(l);
    }
    return 0;
}

void kvg_i_packed_row_write_tokens(const kvg_i_packed_row *p,
                                   const kvg_i_packed_tokens *k,
                                   unsigned char *const tensor[KVG_ROW_TENSORS],
                                   const kvg_i_token_rows *rows)
{
    unsigned char *dst[KVG_ROW_TENSORS];
    const unsigned char *x;
    unsigned mask;
    int64_t t, slot;
    int i;
    row_plan rp;

    plan_row(p, &rp);
    for (t = 0; t < k->tokens; t++) {
        mask = token_target(p->layout, k, t, &slot);
        if (mask == 0)
            continue;
        for (i = 0; i < KVG_ROW_TENSORS; i++)
            dst[i] = mask & (1u << i) ? tensor[i] : NULL;
        if (rows->make != NULL) {
            rows->make(rows->ctx, t, rows->buf);
            x = rows->buf;
        } else {
            x = rows->x + (size_t)t * rows->x_stride;
        }
        write_row(p, &rp, dst, x, slot);
    }
}

int kvg_i_packed_row_sink_raced(const kvg_i_packed_tokens *k)
{
    int64_t t, pads = 0;

    if (k->policy != KVG_I_SLOT_SINK_SCALES)
        return 0;
    for (t = 0; t < k->tokens && pads < 2; t++)
        pads += kvg_i_index_at(k->slot_mapping, t) < 0;
    return pads >= 2;
}

/* Segment i's runs in head h: one per piece. */
static void segment_runs(const kvg_row_layout *l, int64_t slot, int h, int i,
                         kvg_i_byte_run_fn fn, void *ctx)
{
    const kvg_row_segment *s = &l->seg[i];
    const int64_t n = kvg_i_row_pieces(s), step = n > 1 ? s->piece : 0;
    int64_t k;

    for (k = 0; k < n; k++)
        fn(ctx, kvg_row_element_at(l, slot, h, i, k * step),
           kvg_i_row_piece_bytes(s, k));
}

void kvg_i_packed_row_runs(const kvg_row_layout *l, int tensor, int64_t slot,
                           kvg_i_byte_run_fn fn, void *ctx)
{
    const int heads = kvg_i_row_heads(l);
    int64_t last, at, best;
    int i, h, pick;

    for (h = 0; h < heads; h++) {
        /* at most 8 segments: pick the next by address each time */
        for (last = -1;; last = best) {
            pick = -1;
            best = 0;
            for (i = 0; i < l->segments; i++) {
                if (kvg_row_segment_tensor(l, i) != tensor ||
                    l->seg[i].field == KVG_ROW_DONT_CARE)
                    continue;
                at = kvg_row_element_at(l, slot, h, i, 0);
                if (at > last && (pick < 0 || at < best))
                    pick = i, best = at;
            }
            if (pick < 0)
                break;
            segment_runs(l, slot, h, pick, fn, ctx);
        }
    }
}

void kvg_i_packed_row_token_runs(const kvg_row_layout *l,
                                 const kvg_i_packed_tokens *k, int tensor,
                                 kvg_i_byte_run_fn fn, void *ctx)
{
    int64_t t, slot;

    for (t = 0; t < k->tokens; t++)
        if (token_target(l, k, t, &slot) & (1u << tensor))
            kvg_i_packed_row_runs(l, tensor, slot, fn, ctx);
}
