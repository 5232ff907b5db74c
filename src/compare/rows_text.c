/*
 * src/compare/rows_text.c - the named places of a packed cache judged
 * field by field: which slot, which field, which group, and the two
 * codes decoded ("slot 1207: scale of group 3 of nope is 2^-7 (0x78),
 * golden 2^-6 (0x79); ..."), so that an engineer reads the fault, not a
 * byte offset. The texts are made once, when the place is found; the
 * text, JSON and HTML reports print them as they are.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/compare/compare_internal.h"
#include "src/layout/row_geom.h"

/* A place's text: a summary for the report, cut at the buffer's end when
 * a long segment name and note do not fit (by design, so through
 * vsnprintf: gcc's -Wformat-truncation reads every snprintf of these
 * pieces as a possible loss). */
static void place_text(kvg_compare_row_place *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    (void)vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
}

void kvg_i_rows_unit_text(kvg_dtype dt, const kvg_i_elem *e, char *out,
                          size_t cap)
{
    char code[24], val[40];

    if (dt == KVG_E8M0) {
        (void)kvg_i_cmp_e8m0_text(e->bits, val, sizeof val);
        (void)snprintf(out, cap, "%s (0x%02x)", val,
                       (unsigned)(e->bits & 0xFFu));
        return;
    }
    kvg_i_cmp_code_text(dt, e->bits, code, sizeof code);
    if (dt == KVG_FP4_E1M2 || dt == KVG_UINT8) {
        (void)snprintf(out, cap, "%s", code); /* no value beyond the code */
        return;
    }
    (void)snprintf(val, sizeof val, "%.9g", e->v);
    kvg_i_cmp_fix_point(val);
    (void)snprintf(out, cap, "%s (%s)", code, val);
}

static const char *seg_name(const kvg_row_layout *l, int i)
{
    return i >= 0 && i < l->segments && l->seg[i].name != NULL
               ? l->seg[i].name
               : "?";
}

static void unit_name(const kvg_row_segment *s, int64_t element, char *out,
                      size_t cap)
{
    const char *what = s->field == KVG_ROW_PAYLOAD ? "code"
                       : s->field == KVG_ROW_PAD   ? "byte"
                                                   : "element";

    if (kvg_i_cmp_codes_per_element(s->dtype) == 2)
        (void)snprintf(out, cap, "%s %lld (byte %lld %s)", what,
                       (long long)element, (long long)(element / 2),
                       element % 2 ? "hi" : "lo");
    else
        (void)snprintf(out, cap, "%s %lld", what, (long long)element);
}

static void distance_text(const kvg_row_segment *s, int64_t d, char *out,
                          size_t cap)
{
    out[0] = '\0';
    if (d < 0)
        return;
    if (s->dtype == KVG_E8M0)
        (void)snprintf(out, cap, ": %lld binade%s", (long long)d,
                       d == 1 ? "" : "s");
    else if (s->dtype == KVG_INT8)
        (void)snprintf(out, cap, ": |delta| %lld", (long long)d);
    else
        (void)snprintf(out, cap, ": %lld code%s apart", (long long)d,
                       d == 1 ? "" : "s");
}

/* " head 1" after "slot 17" in a layout with heads (a head's fault is
 * named with its head), else "". */
static void head_name(const kvg_row_layout *l, int head, char *out,
                      size_t cap)
{
    out[0] = '\0';
    if (kvg_i_row_heads(l) > 1 && head >= 0)
        (void)snprintf(out, cap, " head %d", head);
}

void kvg_i_rows_place(const kvg_row_layout *l, int64_t slot, int head,
                      int segment, int64_t element, int64_t byte,
                      const kvg_i_elem *want, const kvg_i_elem *got,
                      int64_t distance, const char *group_note,
                      kvg_compare_row_place *p)
{
    const kvg_row_segment *s = &l->seg[segment];
    char a[64], g[64], unit[64], grp[32], dist[40], hd[18];

    memset(p, 0, sizeof *p);
    p->byte = byte;
    p->slot = slot;
    p->head = head;
    p->segment = segment;
    p->element = element;
    p->group = s->field == KVG_ROW_SCALE ? element
               : s->field == KVG_ROW_PAYLOAD && s->group > 0
                   ? element / s->group
                   : -1;
    p->golden_bits = want->bits;
    p->actual_bits = got->bits;
    p->distance = distance;
    kvg_i_rows_unit_text(s->dtype, got, a, sizeof a);
    kvg_i_rows_unit_text(s->dtype, want, g, sizeof g);
    distance_text(s, distance, dist, sizeof dist);
    head_name(l, head, hd, sizeof hd);
    if (s->field == KVG_ROW_SCALE) {
        place_text(p,
                   "slot %lld%s: scale of group %lld of %s is %s, "
                   "golden %s%s", (long long)slot, hd, (long long)element,
                   seg_name(l, s->of), a, g, group_note);
        return;
    }
    unit_name(s, element, unit, sizeof unit);
    grp[0] = '\0';
    if (p->group >= 0)
        (void)snprintf(grp, sizeof grp, " of group %lld",
                       (long long)p->group);
    place_text(p, "slot %lld%s: %s %s%s is %s, "
               "golden %s%s%s", (long long)slot, hd, seg_name(l, segment),
               unit, grp, a, g, dist, group_note);
}

/* Byte `byte` of tensor `tensor` in head `head`'s part of slot `slot` in
 * a region: its offset there and the region, or -1. */
static int64_t offset_in_slot(const kvg_row_layout *l, int tensor,
                              int64_t slot, int head, int64_t byte,
                              int *region)
{
    const int64_t base = slot / l->block_size * l->block_stride[tensor];
    int r;

    for (r = 0; r < l->regions; r++) {
        int64_t at = byte - (base + l->region_offset[r] +
                             kvg_i_row_part(l, r, slot % l->block_size,
                                            head));
        if (l->region_tensor[r] == tensor && at >= 0 &&
            at < l->slot_stride[r]) {
            *region = r;
            return at;
        }
    }
    return -1;
}

void kvg_i_rows_untouched_place(const kvg_compare_args *a, int64_t byte,
                                const char *ref_name,
                                kvg_compare_row_place *p)
{
    const kvg_row_layout *l = a->row_layout;
    const unsigned char *x = (const unsigned char *)a->actual->data;
    const unsigned char *ref = a->initial != NULL
                                   ? (const unsigned char *)a->initial->data
                                   : (const unsigned char *)a->golden->data;
    kvg_row_place at = kvg_row_place_of(l, a->row_tensor, byte);
    char where[32] = "", hd[18];
    int region = 0;
    int64_t off;

    memset(p, 0, sizeof *p);
    p->byte = byte;
    p->slot = at.slot;
    p->head = at.head;
    p->segment = at.segment;
    p->element = -1;
    p->group = -1;
    p->golden_bits = ref[byte];
    p->actual_bits = x[byte];
    p->distance = -1;
    if (at.slot < 0) {
        place_text(p,
                   "byte %lld (in no slot's row) is 0x%02x, %s 0x%02x",
                   (long long)byte, (unsigned)x[byte], ref_name,
                   (unsigned)ref[byte]);
        return;
    }
    head_name(l, at.head, hd, sizeof hd);
    if (at.segment >= 0 && l->seg[at.segment].piece > 0) {
        /* a pieced segment's bytes are no one run: name the element */
        p->element = at.element;
        place_text(p,
                   "slot %lld%s (not written): %s element %lld is "
                   "0x%02x, %s 0x%02x", (long long)at.slot, hd,
                   seg_name(l, at.segment),
                   (long long)at.element, (unsigned)x[byte], ref_name,
                   (unsigned)ref[byte]);
        return;
    }
    if (at.segment >= 0) {
        p->element = byte - kvg_row_element_at(l, at.slot, at.head,
                                               at.segment, 0);
        place_text(p,
                   "slot %lld%s (not written): %s byte %lld is 0x%02x, "
                   "%s 0x%02x", (long long)at.slot, hd,
                   seg_name(l, at.segment),
                   (long long)p->element, (unsigned)x[byte], ref_name,
                   (unsigned)ref[byte]);
        return;
    }
    off = offset_in_slot(l, a->row_tensor, at.slot, at.head, byte, &region);
    /* a region is worth naming when the tensor has two */
    if (l->regions > 1 && l->region_tensor[0] == l->region_tensor[1])
        (void)snprintf(where, sizeof where, " of region %d", region);
    place_text(p,
               "slot %lld%s (%s): byte %lld%s of its row, outside "
               "its segments, is 0x%02x, %s 0x%02x", (long long)at.slot,
               hd,
               kvg_i_rows_slot_written(a, at.slot) ? "written"
                                                  : "not written",
               (long long)off, where, (unsigned)x[byte], ref_name,
               (unsigned)ref[byte]);
}
