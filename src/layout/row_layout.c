/*
 * src/layout/row_layout.c - the packed-row layout's addressing
 * (kvgold/row_layout.h): the byte of a slot's segment element in its
 * tensor, and the inverse (which slot, head, segment and group a byte of
 * one tensor belongs to), for the engine that writes rows and the
 * comparator that judges them. The validation is row_layout_check.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/row_layout.h"

#include <string.h>

#include "src/layout/row_geom.h"

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

/* The formula of row_layout.h, without range checks. */
static int64_t address(const kvg_row_layout *l, int64_t slot, int head,
                       int segment, int64_t e)
{
    const kvg_row_segment *s = &l->seg[segment];
    const int r = s->region;
    int64_t at = slot / l->block_size * l->block_stride[l->region_tensor[r]] +
                 l->region_offset[r] +
                 kvg_i_row_part(l, r, slot % l->block_size, head) + s->offset;

    if (s->piece > 0)
        return at + e / s->piece * s->piece_stride +
               kvg_i_row_units_bytes(s->dtype, e % s->piece);
    return at + kvg_i_row_units_bytes(s->dtype, e);
}

int64_t kvg_row_segment_at(const kvg_row_layout *l, int64_t slot, int segment)
{
    if (slot < 0 || slot / l->block_size >= l->blocks || segment < 0 ||
        segment >= l->segments)
        return -1;
    return address(l, slot, 0, segment, 0);
}

int64_t kvg_row_element_at(const kvg_row_layout *l, int64_t slot, int head,
                           int segment, int64_t element)
{
    if (slot < 0 || slot / l->block_size >= l->blocks || segment < 0 ||
        segment >= l->segments || head < 0 || head >= kvg_i_row_heads(l) ||
        element < 0 || element >= l->seg[segment].count)
        return -1;
    return address(l, slot, head, segment, element);
}

static kvg_row_place nowhere(int64_t slot, int head)
{
    kvg_row_place p;

    p.slot = slot, p.head = head, p.segment = -1, p.element = -1;
    p.group = -1;
    return p;
}

/* Element `e` of segment i found: its group. */
static kvg_row_place found(const kvg_row_layout *l, kvg_row_place p, int i,
                           int64_t e)
{
    const kvg_row_segment *s = &l->seg[i];

    p.segment = i;
    p.element = e;
    if (s->field == KVG_ROW_SCALE)
        p.group = e;
    else if (s->field == KVG_ROW_PAYLOAD && s->group > 0)
        p.group = e / s->group;
    return p;
}

/* The element of segment s at byte `rel` from its first byte, or -1 (a
 * gap between its pieces, or past its end). */
static int64_t element_of(const kvg_row_segment *s, int64_t rel)
{
    const int64_t usize = (int64_t)kvg_dtype_size(s->dtype);
    int64_t k = 0, e;

    if (rel < 0)
        return -1;
    if (kvg_i_row_pieces(s) > 1) {
        k = rel / s->piece_stride;
        rel %= s->piece_stride;
        if (k >= kvg_i_row_pieces(s) || rel >= kvg_i_row_piece_bytes(s, k))
            return -1;
    }
    e = kvg_dtype_is_fp4(s->dtype) ? rel * 2 : rel / usize;
    e += k * (s->piece > 0 ? s->piece : 0);
    return e < s->count ? e : -1;
}

/* The segment of region r holding byte `at` of a slot's row. */
static kvg_row_place in_row(const kvg_row_layout *l, int r, kvg_row_place p,
                            int64_t at)
{
    int i;

    for (i = 0; i < l->segments; i++) {
        const kvg_row_segment *s = &l->seg[i];
        int64_t e;

        if (s->region != r)
            continue;
        e = element_of(s, at - s->offset);
        if (e >= 0)
            return found(l, p, i, e);
    }
    return p;
}

/* Byte `rel` from region r's first byte in block `block`: the largest
 * stride first, each index is rel / stride (the check proved the
 * nesting); a byte in a gap between two dimensions' spans is in no
 * slot's part. */
static kvg_row_place in_region(const kvg_row_layout *l, int r, int64_t block,
                               int64_t rel)
{
    kvg_i_row_geom g;
    int64_t idx[4] = {0, 0, 0, 0}, k;
    int d, dim;
    kvg_row_place p;

    if (kvg_i_row_geom_of(l, r, &g, &dim) != NULL)
        return nowhere(-1, -1);
    rel -= g.base;
    if (rel < 0 || rel >= g.span)
        return nowhere(-1, -1);
    for (d = g.dims - 1; d >= 0; d--) {
        k = rel / g.dim[d].stride;
        if (k >= g.dim[d].count)
            return nowhere(-1, -1); /* a gap past this dimension's span */
        idx[g.dim[d].kind] = k;
        rel -= k * g.dim[d].stride;
    }
    if (rel >= g.cell)
        return nowhere(-1, -1);
    p = nowhere(block * l->block_size + idx[KVG_I_DIM_TILE] *
                                            kvg_i_row_per_tile(l, r) +
                    idx[KVG_I_DIM_SLOT],
                (int)idx[KVG_I_DIM_HEAD]);
    if (g.nz < 0)
        return in_row(l, r, p, rel);
    k = element_of(&l->seg[g.nz],
                   idx[KVG_I_DIM_PIECE] * l->seg[g.nz].piece_stride + rel);
    return k >= 0 ? found(l, p, g.nz, k) : p;
}

kvg_row_place kvg_row_place_of(const kvg_row_layout *l, int tensor,
                               int64_t byte)
{
    int64_t block, within, stride;
    int r;

    if (tensor < 0 || tensor >= l->tensors || tensor >= KVG_ROW_TENSORS ||
        byte < 0 || l->block_stride[tensor] < 1)
        return nowhere(-1, -1);
    stride = l->block_stride[tensor];
    block = byte / stride;
    within = byte % stride;
    if (block >= l->blocks)
        return nowhere(-1, -1);
    for (r = 0; r < l->regions; r++) {
        kvg_row_place p;

        if (l->region_tensor[r] != tensor || within < l->region_offset[r])
            continue;
        p = in_region(l, r, block, within - l->region_offset[r]);
        if (p.slot >= 0)
            return p;
    }
    return nowhere(-1, -1);
}
