/*
 * src/engines/packed_row.c - a token's row into its packed cache slot
 * through a kvg_row_layout, the slot policies, and the byte runs of a
 * slot's write (packed_row.h).
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
    return slot != -1;
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

/* Where segment i of `slot` starts: in its own tensor. */
static unsigned char *segment_base(const kvg_row_layout *l,
                                   unsigned char *const tensor[], int64_t slot,
                                   int i)
{
    return tensor[kvg_row_segment_tensor(l, i)] +
           kvg_row_segment_at(l, slot, i);
}

static void write_payload(const kvg_i_packed_row *p,
                          unsigned char *const tensor[],
                          const unsigned char *x_row, int64_t slot, int i)
{
    const kvg_row_segment *s = &p->layout->seg[i];
    const kvg_i_group_rule *r = p->rule[i];
    const unsigned char *x = x_row + 2 * p->column[i];
    unsigned char *q = segment_base(p->layout, tensor, slot, i);
    const int sc = scale_segment(p->layout, i);
    unsigned char *scale =
        sc < 0 ? NULL : segment_base(p->layout, tensor, slot, sc);
    const size_t sb = kvg_i_group_scale_bytes(r);
    const int64_t g = s->group > 0 ? s->group : s->count;
    int64_t k;

    for (k = 0; k < s->count / g; k++)
        kvg_i_group_quant(r, x + 2 * k * g, g, p->x_scale,
                          q + kvg_i_group_payload_bytes(r, k * g),
                          scale == NULL ? NULL : scale + (size_t)k * sb);
}

void kvg_i_packed_row_write(const kvg_i_packed_row *p,
                            unsigned char *const tensor[KVG_ROW_TENSORS],
                            const unsigned char *x_row, int64_t slot)
{
    const kvg_row_layout *l = p->layout;
    int i;

    for (i = 0; i < l->segments; i++) {
        const kvg_row_segment *s = &l->seg[i];
        unsigned char *at = segment_base(l, tensor, slot, i);

        switch (s->field) {
        case KVG_ROW_PAYLOAD:
            write_payload(p, tensor, x_row, slot, i);
            break;
        case KVG_ROW_COPY:
            memcpy(at, x_row + 2 * p->column[i],
                   (size_t)kvg_row_segment_bytes(s));
            break;
        case KVG_ROW_PAD:
        case KVG_ROW_UNDEFINED: /* zeros: what the kernel leaves is not
                                   a result */
            memset(at, 0, (size_t)kvg_row_segment_bytes(s));
            break;
        default: /* SCALE: written with its payload */
            break;
        }
    }
}

void kvg_i_packed_row_runs(const kvg_row_layout *l, int tensor, int64_t slot,
                           kvg_i_byte_run_fn fn, void *ctx)
{
    int64_t last = -1, at, best;
    int i, pick;

    /* at most 8 segments: pick the next by address each time */
    for (;;) {
        pick = -1;
        best = 0;
        for (i = 0; i < l->segments; i++) {
            if (kvg_row_segment_tensor(l, i) != tensor)
                continue;
            at = kvg_row_segment_at(l, slot, i);
            if (at > last && (pick < 0 || at < best))
                pick = i, best = at;
        }
        if (pick < 0)
            return;
        fn(ctx, best, kvg_row_segment_bytes(&l->seg[pick]));
        last = best;
    }
}
