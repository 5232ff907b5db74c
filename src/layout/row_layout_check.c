/*
 * src/layout/row_layout_check.c - kvg_row_layout_check, the one validation
 * of a packed-row layout (kvgold/row_layout.h): everything the engine,
 * compare and explain-layout rely on before they read a byte.
 *
 * Why rules and not an enumeration: the core never allocates, and a
 * cache has billions of bytes. That no two bytes of different (slot,
 * head, segment, element) coincide is proven on the strides: segments
 * of a slot's row are disjoint intervals, and each region's dimensions
 * (slots in a tile, tiles, heads, an NZ segment's pieces) nest - every
 * stride at least the span of the smaller ones (row_geom.h). A layout
 * these rules cannot prove is refused with the rule named, never taken
 * on trust.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/row_layout.h"

#include <string.h>

#include "src/layout/row_geom.h"

static kvg_status bad(kvg_diag *diag, const kvg_row_layout *l, int i,
                      const char *what)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "row layout", -1, i,
                        "%s: segment %d (%s): %s", l->name ? l->name : "?", i,
                        i >= 0 && l->seg[i].name ? l->seg[i].name : "-", what);
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

/* piece / piece_stride: pieces of whole bytes that do not overlap, and a
 * payload's groups each inside one piece (a group is quantised as one
 * contiguous run of codes). */
static kvg_status check_pieces(const kvg_row_layout *l, int i, kvg_diag *diag)
{
    const kvg_row_segment *s = &l->seg[i];

    if (s->piece < 0)
        return bad(diag, l, i, "piece must be >= 0 (0: one piece)");
    if (kvg_i_row_pieces(s) == 1)
        return KVG_OK;
    if (kvg_dtype_is_fp4(s->dtype) && s->piece % 2 != 0)
        return bad(diag, l, i, "an fp4 piece must hold an even number of "
                               "codes (whole bytes)");
    if (s->piece_stride < kvg_i_row_piece_bytes(s, 0))
        return bad(diag, l, i, "piece_stride is less than a piece's bytes "
                               "(its pieces would overlap)");
    if (s->field == KVG_ROW_PAYLOAD &&
        (s->group <= 0 || s->piece % s->group != 0))
        return bad(diag, l, i, "a pieced payload needs group > 0 and piece "
                               "a multiple of group (each group in one "
                               "piece)");
    if (kvg_i_row_extent(s) < 0)
        return bad(diag, l, i, "its pieces reach past int64");
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
    KVG_TRY(check_pieces(l, i, diag));
    /* a segment of several pieces may reach past its row: the NZ order,
     * proven by the region's geometry */
    if (s->offset < 0 ||
        (kvg_i_row_pieces(s) == 1 &&
         s->offset > l->slot_stride[s->region] - bytes))
        return bad(diag, l, i, "does not fit in the slot's part of its region");
    if (s->field == KVG_ROW_PAYLOAD && s->group < 0)
        return bad(diag, l, i, "negative group");
    if (s->field == KVG_ROW_SCALE)
        return check_scale(l, i, diag);
    if (s->field != KVG_ROW_PAYLOAD && s->field != KVG_ROW_COPY &&
        s->field != KVG_ROW_PAD && s->field != KVG_ROW_UNDEFINED &&
        s->field != KVG_ROW_DONT_CARE)
        return bad(diag, l, i, "unknown field");
    return KVG_OK;
}

/* Whether segment s reaches past its slot's row: an NZ segment, which
 * the region's geometry proves (as its region's only segment). */
static int past_row(const kvg_row_layout *l, const kvg_row_segment *s)
{
    return s->offset > l->slot_stride[s->region] - kvg_i_row_extent(s);
}

/* Two segments of one slot's row (pieced ones by their whole extent). */
static int overlap(const kvg_row_layout *l, const kvg_row_segment *a,
                   const kvg_row_segment *b)
{
    return a->region == b->region && !past_row(l, a) && !past_row(l, b) &&
           a->offset < b->offset + kvg_i_row_extent(b) &&
           b->offset < a->offset + kvg_i_row_extent(a);
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

/* Slots, heads and the sink: the layout's counts. */
static kvg_status check_counts(const kvg_row_layout *l, kvg_diag *diag)
{
    if (l->block_size < 1 || l->blocks < 0)
        return bad(diag, l, -1, "block_size must be >= 1, blocks >= 0");
    if (l->heads < 0)
        return bad(diag, l, -1, "heads must be >= 0 (0 read as 1)");
    if (l->has_sink != 0 && l->has_sink != 1)
        return bad(diag, l, -1, "has_sink must be 0 or 1");
    if (l->has_sink &&
        (l->sink_slot < 0 || l->sink_slot / l->block_size >= l->blocks))
        return bad(diag, l, -1, "sink_slot must be a slot of the layout "
                                "(0 <= sink_slot < blocks * block_size)");
    return KVG_OK;
}

/* Region r's own fields: its tensor, offset and strides. */
static kvg_status check_region_fields(const kvg_row_layout *l, int r,
                                      kvg_diag *diag)
{
    if (l->region_tensor[r] < 0 || l->region_tensor[r] >= l->tensors)
        return bad_at(diag, l, "region", r, "its tensor is out of range");
    if (l->slot_stride[r] < 1 || l->region_offset[r] < 0)
        return bad_at(diag, l, "region", r, "its offset or slot stride");
    if (l->tile[r] < 0 ||
        (l->tile[r] > 0 && (l->block_size % l->tile[r] != 0 ||
                            l->tile_stride[r] < 1)))
        return bad_at(diag, l, "region", r,
                      "tile must be 0 (untiled) or divide block_size, with "
                      "tile_stride >= 1");
    if (kvg_i_row_heads(l) > 1 && l->head_stride[r] < 1)
        return bad_at(diag, l, "region", r,
                      "head_stride must be >= 1 with heads > 1");
    return KVG_OK;
}

static const char *dim_name(int kind)
{
    static const char *const names[] = {"slot_stride", "tile_stride",
                                        "head_stride", "piece_stride"};
    return kind >= 0 && kind < 4 ? names[kind] : "extent";
}

/* Region r's span in a block of its tensor: [region_offset[r], end),
 * its bytes proven distinct by the nesting of its dimensions. */
static kvg_status check_region(const kvg_row_layout *l, int r, int64_t *lo,
                               int64_t *hi, kvg_diag *diag)
{
    kvg_i_row_geom g;
    const char *rule;
    int dim;

    rule = kvg_i_row_geom_of(l, r, &g, &dim);
    if (rule != NULL && dim >= 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "row layout", -1, r,
                            "%s: region %d: %s %lld: %s (%lld bytes)",
                            l->name ? l->name : "?", r, dim_name(dim),
                            (long long)(dim == KVG_I_DIM_PIECE
                                            ? l->seg[g.nz].piece_stride
                                        : dim == KVG_I_DIM_SLOT
                                            ? l->slot_stride[r]
                                        : dim == KVG_I_DIM_TILE
                                            ? l->tile_stride[r]
                                            : l->head_stride[r]),
                            rule, (long long)g.span);
    if (rule != NULL)
        return bad_at(diag, l, "region", r, rule);
    *lo = l->region_offset[r];
    *hi = g.end;
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
    KVG_TRY(check_counts(l, diag));
    for (i = 0; i < l->regions; i++)
        KVG_TRY(check_region_fields(l, i, diag));
    for (i = 0; i < l->segments; i++) {
        KVG_TRY(check_segment(l, i, diag));
        for (j = 0; j < i; j++)
            if (overlap(l, &l->seg[i], &l->seg[j]))
                return bad(diag, l, i, "overlaps an earlier segment");
    }
    KVG_TRY(check_regions(l, diag));
    KVG_TRY(check_used(l, diag));
    return check_sizes(l, tensor_bytes, diag);
}
