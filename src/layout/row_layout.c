/*
 * src/layout/row_layout.c - the packed-row layout (kvgold/row_layout.h):
 * its one validation, the byte offset of a slot's segment in its tensor,
 * and the inverse (which slot, segment and group a byte of one tensor
 * belongs to), for the engine that writes rows and the comparator that
 * judges them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/row_layout.h"

#include <string.h>

static int is_fp4(kvg_dtype t)
{
    return t == KVG_FP4_E2M1 || t == KVG_FP4_E1M2;
}

int64_t kvg_row_segment_bytes(const kvg_row_segment *seg)
{
    const int64_t size = (int64_t)kvg_dtype_size(seg->dtype);

    if (size == 0 || seg->count < 0)
        return 0;
    if (is_fp4(seg->dtype))
        return seg->count % 2 ? 0 : seg->count / 2;
    return seg->count * size;
}

static kvg_status bad(kvg_diag *diag, const kvg_row_layout *l, int i,
                      const char *what)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "row layout", -1, i,
                        "%s: segment %d (%s): %s", l->name ? l->name : "?", i,
                        i >= 0 && l->seg[i].name ? l->seg[i].name : "-", what);
}

static kvg_status check_scale(const kvg_row_layout *l, int i, kvg_diag *diag)
{
    const kvg_row_segment *s = &l->seg[i], *p;

    if (s->of < 0 || s->of >= l->segments || s->of == i)
        return bad(diag, l, i, "a scale must name its payload segment");
    p = &l->seg[s->of];
    if (p->field != KVG_ROW_PAYLOAD || p->group <= 0)
        return bad(diag, l, i, "the segment it scales is not a grouped payload");
    if (s->count != p->count / p->group + (p->count % p->group != 0))
        return bad(diag, l, i, "count is not one scale per payload group");
    return KVG_OK;
}

static kvg_status check_segment(const kvg_row_layout *l, int i, kvg_diag *diag)
{
    const kvg_row_segment *s = &l->seg[i];
    const int64_t bytes = kvg_row_segment_bytes(s);

    if (s->region < 0 || s->region >= l->regions)
        return bad(diag, l, i, "region out of range");
    if (s->count <= 0 || bytes <= 0)
        return bad(diag, l, i, "no elements (or an odd fp4 count)");
    if (s->offset < 0 || s->offset > l->slot_stride[s->region] - bytes)
        return bad(diag, l, i, "does not fit in the slot's part of its region");
    if (s->field == KVG_ROW_PAYLOAD && s->group < 0)
        return bad(diag, l, i, "negative group");
    if (s->field == KVG_ROW_SCALE)
        return check_scale(l, i, diag);
    if (s->field != KVG_ROW_PAYLOAD && s->field != KVG_ROW_COPY &&
        s->field != KVG_ROW_PAD && s->field != KVG_ROW_UNDEFINED)
        return bad(diag, l, i, "unknown field");
    return KVG_OK;
}

static int overlap(const kvg_row_segment *a, const kvg_row_segment *b)
{
    return a->region == b->region &&
           a->offset < b->offset + kvg_row_segment_bytes(b) &&
           b->offset < a->offset + kvg_row_segment_bytes(a);
}

/* A rule about the layout as a whole, or about tensor / region `i`
 * (`what` names which). */
static kvg_status bad_at(kvg_diag *diag, const kvg_row_layout *l,
                         const char *what, int i, const char *rule)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "row layout", -1, i,
                        "%s: %s %d: %s", l->name ? l->name : "?", what, i,
                        rule);
}

/* 1..2 tensors, each named (non-NULL, distinct): a consumer holding one
 * tensor finds which it is by its name. */
static kvg_status check_tensors(const kvg_row_layout *l, kvg_diag *diag)
{
    int t;

    if (l->tensors < 1 || l->tensors > KVG_ROW_TENSORS)
        return bad(diag, l, -1, "1..2 tensors");
    for (t = 0; t < l->tensors; t++) {
        if (l->tensor_name[t] == NULL)
            return bad_at(diag, l, "tensor", t, "has no name");
        if (t > 0 && l->tensor_name[0] != NULL &&
            strcmp(l->tensor_name[t], l->tensor_name[0]) == 0)
            return bad_at(diag, l, "tensor", t,
                          "has the name of tensor 0");
        if (l->block_stride[t] < 1)
            return bad_at(diag, l, "tensor", t, "block_stride must be >= 1");
    }
    return KVG_OK;
}

/* Region r's span in a block of its tensor: [region_offset[r],
 * region_offset[r] + block_size * slot_stride[r]). */
static kvg_status check_region(const kvg_row_layout *l, int r, int64_t *lo,
                               int64_t *hi, kvg_diag *diag)
{
    if (l->region_tensor[r] < 0 || l->region_tensor[r] >= l->tensors)
        return bad_at(diag, l, "region", r, "its tensor is out of range");
    if (l->slot_stride[r] < 1 || l->region_offset[r] < 0 ||
        l->slot_stride[r] > (INT64_MAX - l->region_offset[r]) /
                                l->block_size)
        return bad_at(diag, l, "region", r, "its offset or slot stride");
    *lo = l->region_offset[r];
    *hi = *lo + l->block_size * l->slot_stride[r];
    if (*hi > l->block_stride[l->region_tensor[r]])
        return bad_at(diag, l, "region", r,
                      "extends past its tensor's block_stride");
    return KVG_OK;
}

/* Each region inside its tensor's block, two regions of one tensor
 * disjoint (regions of different tensors share no byte). */
static kvg_status check_regions(const kvg_row_layout *l, kvg_diag *diag)
{
    int64_t lo[KVG_ROW_REGIONS], hi[KVG_ROW_REGIONS];
    int r;

    if (l->block_size < 1 || l->blocks < 0)
        return bad(diag, l, -1, "block_size must be >= 1, blocks >= 0");
    for (r = 0; r < l->regions; r++)
        KVG_TRY(check_region(l, r, &lo[r], &hi[r], diag));
    if (l->regions == 2 && l->region_tensor[0] == l->region_tensor[1] &&
        lo[0] < hi[1] && lo[1] < hi[0])
        return bad(diag, l, -1, "the two regions overlap");
    return KVG_OK;
}

/* Every tensor holds a segment (and so a region): a tensor the layout
 * writes nothing into is no part of it. */
static kvg_status check_used(const kvg_row_layout *l, kvg_diag *diag)
{
    int t, i;

    for (t = 0; t < l->tensors; t++) {
        for (i = 0; i < l->segments; i++)
            if (kvg_row_segment_tensor(l, i) == t)
                break;
        if (i == l->segments)
            return bad_at(diag, l, "tensor", t,
                          "holds no segment (every tensor needs a region "
                          "with one)");
    }
    return KVG_OK;
}

/* blocks * block_stride[t] inside each tensor whose size is given. */
static kvg_status check_sizes(const kvg_row_layout *l,
                              const size_t *tensor_bytes, kvg_diag *diag)
{
    int t;

    if (tensor_bytes == NULL)
        return KVG_OK;
    for (t = 0; t < l->tensors; t++)
        if (tensor_bytes[t] != 0 &&
            l->blocks > (int64_t)(tensor_bytes[t] /
                                  (size_t)l->block_stride[t]))
            return bad_at(diag, l, "tensor", t,
                          l->tensors == 1
                              ? "blocks * block_stride exceeds the cache"
                              : "blocks * block_stride exceeds the tensor");
    return KVG_OK;
}

kvg_status kvg_row_layout_check(const kvg_row_layout *l,
                                const size_t *tensor_bytes, kvg_diag *diag)
{
    int i, j;

    if (l == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "row layout", -1,
                            -1, "row layout is NULL");
    if (l->segments < 1 || l->segments > KVG_ROW_SEGMENTS ||
        l->regions < 1 || l->regions > KVG_ROW_REGIONS)
        return bad(diag, l, -1, "1..8 segments and 1..2 regions");
    KVG_TRY(check_tensors(l, diag));
    KVG_TRY(check_regions(l, diag));
    for (i = 0; i < l->segments; i++) {
        KVG_TRY(check_segment(l, i, diag));
        for (j = 0; j < i; j++)
            if (overlap(&l->seg[i], &l->seg[j]))
                return bad(diag, l, i, "overlaps an earlier segment");
    }
    KVG_TRY(check_used(l, diag));
    return check_sizes(l, tensor_bytes, diag);
}

int kvg_row_segment_tensor(const kvg_row_layout *l, int segment)
{
    if (segment < 0 || segment >= l->segments)
        return -1;
    return l->region_tensor[l->seg[segment].region];
}

int kvg_row_tensor_of(const kvg_row_layout *l, const char *name)
{
    int t;

    if (name == NULL)
        return -1;
    for (t = 0; t < l->tensors && t < KVG_ROW_TENSORS; t++)
        if (l->tensor_name[t] != NULL && strcmp(l->tensor_name[t], name) == 0)
            return t;
    return -1;
}

int64_t kvg_row_segment_at(const kvg_row_layout *l, int64_t slot, int segment)
{
    const kvg_row_segment *s;

    if (slot < 0 || slot / l->block_size >= l->blocks || segment < 0 ||
        segment >= l->segments)
        return -1;
    s = &l->seg[segment];
    return slot / l->block_size * l->block_stride[l->region_tensor[s->region]] +
           l->region_offset[s->region] +
           slot % l->block_size * l->slot_stride[s->region] + s->offset;
}

static kvg_row_place nowhere(int64_t slot)
{
    kvg_row_place p;

    p.slot = slot, p.segment = -1, p.element = -1, p.group = -1;
    return p;
}

/* The segment of region r holding byte `at` of a slot's part. */
static kvg_row_place in_slot(const kvg_row_layout *l, int r, int64_t slot,
                             int64_t at)
{
    kvg_row_place p = nowhere(slot);
    int i;

    for (i = 0; i < l->segments; i++) {
        const kvg_row_segment *s = &l->seg[i];
        const int64_t rel = at - s->offset;

        if (s->region != r || rel < 0 || rel >= kvg_row_segment_bytes(s))
            continue;
        p.segment = i;
        p.element = is_fp4(s->dtype)
                        ? rel * 2
                        : rel / (int64_t)kvg_dtype_size(s->dtype);
        if (s->field == KVG_ROW_SCALE)
            p.group = p.element;
        else if (s->field == KVG_ROW_PAYLOAD && s->group > 0)
            p.group = p.element / s->group;
        return p;
    }
    return p;
}

kvg_row_place kvg_row_place_of(const kvg_row_layout *l, int tensor,
                               int64_t byte)
{
    int64_t block, within, stride;
    int r;

    if (tensor < 0 || tensor >= l->tensors || tensor >= KVG_ROW_TENSORS ||
        byte < 0 || l->block_stride[tensor] < 1)
        return nowhere(-1);
    stride = l->block_stride[tensor];
    block = byte / stride;
    within = byte % stride;
    if (block >= l->blocks)
        return nowhere(-1);
    for (r = 0; r < l->regions; r++) {
        const int64_t rel = within - l->region_offset[r];

        if (l->region_tensor[r] == tensor && rel >= 0 &&
            rel < l->block_size * l->slot_stride[r])
            return in_slot(l, r,
                           block * l->block_size + rel / l->slot_stride[r],
                           rel % l->slot_stride[r]);
    }
    return nowhere(-1);
}
