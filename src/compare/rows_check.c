/*
 * src/compare/rows_check.c - what a packed cache judged field by field
 * (kvg_compare_args.row_layout) must satisfy before a byte of the result
 * is written: a byte tensor, a checked layout that fits it, payload
 * dtypes compare can judge per code, and a written set that describes
 * the layout (a slot's segment bytes all marked or none, nothing else
 * marked). The written set is the one the caller gives, at byte
 * granularity, rather than one guessed from golden != initial: a slot
 * whose new row happens to equal the old one would be taken for
 * untouched (docs/compare.md, "Packed rows").
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "kvgold/op.h"
#include "src/common/internal.h"
#include "src/compare/compare_internal.h"
#include "src/layout/row_geom.h"

int64_t kvg_i_rows_marked(const kvg_compare_args *a, int64_t from, int64_t to)
{
    int64_t n = 0, i;
    size_t lo = 0, hi;

    if (a->written != NULL) {
        for (i = from; i < to; i++)
            n += a->written[i] != 0;
        return n;
    }
    if (a->written_runs == NULL)
        return to - from;
    /* the first run ending after `from`, then every run it overlaps */
    hi = a->written_run_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kvg_elem_run *r = &a->written_runs[mid];
        if (r->first + r->count <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < a->written_run_count; lo++) {
        const kvg_elem_run *r = &a->written_runs[lo];
        int64_t s = r->first > from ? r->first : from;
        int64_t e = r->first + r->count < to ? r->first + r->count : to;
        if (r->first >= to)
            break;
        if (e > s)
            n += e - s;
    }
    return n;
}

int kvg_i_rows_first_segment(const kvg_row_layout *l, int tensor)
{
    int i;

    for (i = 0; i < l->segments; i++)
        if (kvg_row_segment_tensor(l, i) == tensor &&
            l->seg[i].field != KVG_ROW_DONT_CARE) /* never marked */
            return i;
    return -1;
}

int kvg_i_rows_slot_written(const kvg_compare_args *a, int64_t slot)
{
    int64_t at = kvg_row_segment_at(
        a->row_layout, slot,
        kvg_i_rows_first_segment(a->row_layout, a->row_tensor));

    return kvg_i_rows_marked(a, at, at + 1) == 1;
}

/* The cache is a byte array whose bytes are no codes of their own (an
 * E8M0 scale cache in a tensor of its own, too: its bytes are judged as
 * its layout's SCALE segments say). */
static kvg_status check_tensor(const kvg_compare_args *a,
                               const kvg_i_labels *l, kvg_diag *diag)
{
    kvg_dtype dt = a->golden->dtype;

    if (dt != KVG_UINT8 && dt != KVG_INT8 && dt != KVG_FP8_E4M3FN &&
        dt != KVG_FP8_E5M2 && dt != KVG_HIF8 && dt != KVG_E8M0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->golden, -1, -1,
                            "%s: a packed cache (row_layout) must be a byte "
                            "array (uint8, int8, fp8_e4m3fn, fp8_e5m2, "
                            "hif8, e8m0), got %s", l->golden,
                            kvg_dtype_name(dt));
    if (a->criterion != KVG_CRIT_AUTO)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->args, -1, -1,
                            "%s: criterion must be auto with a row_layout "
                            "(each field has its rule), got %s", l->args,
                            kvg_compare_criterion_name(a->criterion));
    if (a->third_party != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->third_party, -1,
                            -1, "%s: no third party with a row_layout (its "
                            "fields are judged by code distance and bit for "
                            "bit, not by the dual benchmark)",
                            l->third_party);
    return KVG_OK;
}

/* Payload codes compare can judge one by one. */
static kvg_status check_payloads(const kvg_row_layout *rl,
                                 const kvg_i_labels *l, kvg_diag *diag)
{
    int i;

    for (i = 0; i < rl->segments; i++) {
        kvg_dtype dt = rl->seg[i].dtype;
        if (rl->seg[i].field != KVG_ROW_PAYLOAD)
            continue;
        if (dt != KVG_FP8_E4M3FN && dt != KVG_FP8_E5M2 && dt != KVG_HIF8 &&
            dt != KVG_INT8 && dt != KVG_FP4_E2M1 && dt != KVG_FP4_E1M2)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->layout, -1,
                                i, "%s: payload segment %d (%s) is %s; a "
                                "payload is fp8_e4m3fn, fp8_e5m2, hif8, int8, "
                                "fp4_e2m1 or fp4_e1m2 codes", l->layout, i,
                                rl->seg[i].name ? rl->seg[i].name : "-",
                                kvg_dtype_name(dt));
    }
    return KVG_OK;
}

/* Bytes a slot's written segments hold in tensor `tensor` (a DONT_CARE
 * segment is never written). */
static int64_t slot_bytes(const kvg_row_layout *rl, int tensor)
{
    int64_t n = 0;
    int i;

    for (i = 0; i < rl->segments; i++)
        if (kvg_row_segment_tensor(rl, i) == tensor &&
            rl->seg[i].field != KVG_ROW_DONT_CARE)
            n += kvg_row_segment_bytes(&rl->seg[i]);
    return n * kvg_i_row_heads(rl);
}

/* Marked bytes of segment i of head h of slot s, piece by piece. */
static int64_t segment_marked(const kvg_compare_args *a, int64_t s, int h,
                              int i)
{
    const kvg_row_segment *seg = &a->row_layout->seg[i];
    const int64_t n = kvg_i_row_pieces(seg), step = n > 1 ? seg->piece : 0;
    int64_t k, at, m = 0;

    for (k = 0; k < n; k++) {
        at = kvg_row_element_at(a->row_layout, s, h, i, k * step);
        m += kvg_i_rows_marked(a, at, at + kvg_i_row_piece_bytes(seg, k));
    }
    return m;
}

/* Every segment of every head of slot s marked as its first byte is
 * (w), or the diag naming the first that is not. */
static kvg_status check_slot_marks(const kvg_compare_args *a, int64_t s,
                                   int w, const kvg_i_labels *l,
                                   kvg_diag *diag)
{
    const kvg_row_layout *rl = a->row_layout;
    int i, h;

    for (h = 0; h < kvg_i_row_heads(rl); h++)
        for (i = 0; i < rl->segments; i++) {
            const int64_t at = kvg_row_element_at(rl, s, h, i, 0);
            const int64_t n = kvg_row_segment_bytes(&rl->seg[i]);
            int64_t m;
            char head[24] = "";
            if (kvg_row_segment_tensor(rl, i) != a->row_tensor)
                continue; /* the other tensor's mask says */
            m = segment_marked(a, s, h, i);
            if (kvg_i_row_heads(rl) > 1)
                (void)snprintf(head, sizeof head, ", head %d", h);
            /* a DONT_CARE segment is never written, so never marked */
            if (m != (w && rl->seg[i].field != KVG_ROW_DONT_CARE ? n : 0))
                return kvg_diag_set(
                    diag, KVG_ERR_PARAM_INVALID, l->written, -1, at,
                    "%s: slot %lld is %s by its first byte, but %lld of the "
                    "%lld bytes of its segment %d (%s%s, from byte %lld) "
                    "are marked; the written set does not describe the row "
                    "layout %s", l->written, (long long)s,
                    w ? "written" : "untouched", (long long)m, (long long)n,
                    i, rl->seg[i].name ? rl->seg[i].name : "-", head,
                    (long long)at, rl->name ? rl->name : "");
        }
    return KVG_OK;
}

/* Every segment of a slot marked as its first byte is, and no byte
 * marked outside the written slots' segments. */
static kvg_status check_marks(const kvg_compare_args *a, int64_t numel,
                              const kvg_i_labels *l, kvg_diag *diag)
{
    const kvg_row_layout *rl = a->row_layout;
    const int64_t slots = rl->blocks * rl->block_size;
    int64_t s, written = 0;

    if (a->written == NULL && a->written_runs == NULL)
        return KVG_OK; /* every slot written, nothing else */
    for (s = 0; s < slots; s++) {
        int w = kvg_i_rows_slot_written(a, s);
        KVG_TRY(check_slot_marks(a, s, w, l, diag));
        written += w;
    }
    if (kvg_i_rows_marked(a, 0, numel) !=
        written * slot_bytes(rl, a->row_tensor))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->written, -1, -1,
                            "%s: %lld bytes are marked written, but the %lld "
                            "written slots' segments hold %lld; bytes outside "
                            "every segment are marked", l->written,
                            (long long)kvg_i_rows_marked(a, 0, numel),
                            (long long)written,
                            (long long)(written *
                                        slot_bytes(rl, a->row_tensor)));
    return KVG_OK;
}

/* row_tensor names one of the layout's tensors; the tensor compared is
 * that one's size (the other's is not known here). */
static kvg_status check_layout(const kvg_compare_args *a, int64_t numel,
                               const kvg_i_labels *l, kvg_diag *diag)
{
    const kvg_row_layout *rl = a->row_layout;
    size_t sizes[KVG_ROW_TENSORS] = {0, 0};
    kvg_diag inner;

    kvg_diag_clear(&inner);
    if (kvg_row_layout_check(rl, NULL, &inner) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->layout, -1, -1,
                            "%s: %s (a %lld-byte cache)", l->layout,
                            inner.message, (long long)numel);
    if (a->row_tensor < 0 || a->row_tensor >= rl->tensors)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->args, -1, -1,
                            "%s: row_tensor must name one of the row "
                            "layout's %d tensor%s (0..%d), got %d", l->args,
                            rl->tensors, rl->tensors == 1 ? "" : "s",
                            rl->tensors - 1, a->row_tensor);
    sizes[a->row_tensor] = (size_t)numel;
    if (kvg_row_layout_check(rl, sizes, &inner) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->layout, -1, -1,
                            "%s: %s (a %lld-byte %s)", l->layout,
                            inner.message, (long long)numel,
                            rl->tensors == 1 ? "cache"
                                             : rl->tensor_name[a->row_tensor]);
    return KVG_OK;
}

kvg_status kvg_i_rows_check(const kvg_compare_args *a, int64_t numel,
                            const kvg_i_labels *l, kvg_diag *diag)
{
    KVG_TRY(check_tensor(a, l, diag));
    KVG_TRY(check_layout(a, numel, l, diag));
    if (a->row_layout->blocks == 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, l->layout, -1, -1,
                            "%s: the row layout has no block; it must cover "
                            "the cache (blocks = the whole cache)", l->layout);
    KVG_TRY(check_payloads(a->row_layout, l, diag));
    return check_marks(a, numel, l, diag);
}
