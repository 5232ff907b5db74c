/*
 * src/layout/row_geom.c - a region of a packed-row layout as nested
 * strided dimensions (row_geom.h): what the check proves disjoint and
 * what place_of inverts; and the byte sizes of segments and pieces.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/layout/row_geom.h"

/* kvgold/row_layout.h: the lowest piece of the addressing, so here */
int64_t kvg_row_segment_bytes(const kvg_row_segment *seg)
{
    const int64_t size = (int64_t)kvg_dtype_size(seg->dtype);

    if (size == 0 || seg->count < 0)
        return 0;
    if (kvg_dtype_is_fp4(seg->dtype))
        return seg->count % 2 ? 0 : seg->count / 2;
    return seg->count * size;
}

int64_t kvg_i_row_per_tile(const kvg_row_layout *l, int r)
{
    return l->tile[r] > 0 ? l->tile[r] : l->block_size;
}

int kvg_i_row_heads(const kvg_row_layout *l)
{
    return l->heads > 0 ? l->heads : 1;
}

int64_t kvg_i_row_units_bytes(kvg_dtype dt, int64_t n)
{
    return kvg_dtype_is_fp4(dt) ? n / 2 : n * (int64_t)kvg_dtype_size(dt);
}

int64_t kvg_i_row_pieces(const kvg_row_segment *s)
{
    if (s->piece <= 0 || s->piece >= s->count)
        return 1;
    return s->count / s->piece + (s->count % s->piece != 0);
}

int64_t kvg_i_row_piece_bytes(const kvg_row_segment *s, int64_t k)
{
    int64_t left;

    if (s->piece <= 0 || s->piece >= s->count)
        return kvg_row_segment_bytes(s);
    left = s->count - k * s->piece;
    return kvg_i_row_units_bytes(s->dtype, left < s->piece ? left : s->piece);
}

/* a * b + c for a, b, c >= 0, or -1 when it overflows int64. */
static int64_t mul_add(int64_t a, int64_t b, int64_t c)
{
    if (a < 0 || b < 0 || c < 0 || (a != 0 && b > (INT64_MAX - c) / a))
        return -1;
    return a * b + c;
}

int64_t kvg_i_row_extent(const kvg_row_segment *s)
{
    const int64_t n = kvg_i_row_pieces(s);

    if (n == 1)
        return kvg_row_segment_bytes(s);
    return mul_add(n - 1, s->piece_stride, kvg_i_row_piece_bytes(s, n - 1));
}

static void add_dim(kvg_i_row_geom *g, kvg_i_row_dim_kind kind,
                    int64_t stride, int64_t count)
{
    int i;

    if (count <= 1)
        return; /* one index: no stride to prove or invert */
    i = g->dims++;
    /* insertion by stride: at most four */
    while (i > 0 && g->dim[i - 1].stride > stride) {
        g->dim[i] = g->dim[i - 1];
        i--;
    }
    g->dim[i].kind = kind;
    g->dim[i].stride = stride;
    g->dim[i].count = count;
}

/* The interleaved segment of region r (its pieces reach past the slot's
 * row), or -1; -2 when one is not the region's only segment, -3 when an
 * extent overflows. */
static int find_nz(const kvg_row_layout *l, int r)
{
    int i, nz = -1, n = 0;

    for (i = 0; i < l->segments; i++) {
        const kvg_row_segment *s = &l->seg[i];
        const int64_t ext = kvg_i_row_extent(s);

        if (s->region != r)
            continue;
        if (ext < 0)
            return -3;
        n++;
        if (kvg_i_row_pieces(s) > 1 && s->offset > l->slot_stride[r] - ext)
            nz = i;
    }
    return nz >= 0 && n > 1 ? -2 : nz;
}

/* One past the last byte of region r's segments in a slot's row. */
static int64_t rows_end(const kvg_row_layout *l, int r)
{
    int64_t end = 0;
    int i;

    for (i = 0; i < l->segments; i++)
        if (l->seg[i].region == r &&
            l->seg[i].offset + kvg_i_row_extent(&l->seg[i]) > end)
            end = l->seg[i].offset + kvg_i_row_extent(&l->seg[i]);
    return end;
}

/* The nesting rule over g's dimensions around its cell: g->span, or the
 * rule broken (*dim the dimension; -1 for an overflow). */
static const char *nest(kvg_i_row_geom *g, int *dim)
{
    int64_t span = g->cell;
    int i;

    *dim = -1;
    for (i = 0; i < g->dims; i++) {
        if (g->dim[i].stride < span) {
            *dim = (int)g->dim[i].kind;
            g->span = span;
            return "its stride is less than the bytes nested inside it "
                   "(bytes of different slots, heads or pieces would "
                   "coincide)";
        }
        span = mul_add(g->dim[i].count - 1, g->dim[i].stride, span);
        if (span < 0)
            return "the region's extent overflows int64";
    }
    g->span = span;
    return NULL;
}

const char *kvg_i_row_geom_of(const kvg_row_layout *l, int r,
                              kvg_i_row_geom *g, int *dim)
{
    const int nz = find_nz(l, r);
    int64_t last = 0;
    const char *rule;

    *dim = -1;
    if (nz == -3)
        return "a segment's pieces reach past int64";
    if (nz == -2)
        return "a segment whose pieces reach past its slot's row (NZ "
               "order) must be the only segment of its region";
    g->dims = 0;
    g->nz = nz;
    g->base = 0;
    g->cell = l->slot_stride[r];
    if (nz >= 0) {
        const kvg_row_segment *s = &l->seg[nz];
        g->base = s->offset;
        g->cell = kvg_i_row_piece_bytes(s, 0);
        last = g->cell - kvg_i_row_piece_bytes(s, kvg_i_row_pieces(s) - 1);
        add_dim(g, KVG_I_DIM_PIECE, s->piece_stride, kvg_i_row_pieces(s));
    }
    add_dim(g, KVG_I_DIM_SLOT, l->slot_stride[r], kvg_i_row_per_tile(l, r));
    if (l->tile[r] > 0)
        add_dim(g, KVG_I_DIM_TILE, l->tile_stride[r],
                l->block_size / l->tile[r]);
    add_dim(g, KVG_I_DIM_HEAD, l->head_stride[r], kvg_i_row_heads(l));
    rule = nest(g, dim);
    if (rule != NULL && *dim >= 0 && nz < 0 && kvg_i_row_heads(l) > 1 &&
        rows_end(l, r) < g->cell) {
        /* heads side by side inside a slot's row ([Bs, N, D] of an ND
         * cache): the cell is one head's segments, not the whole row */
        g->cell = rows_end(l, r);
        rule = nest(g, dim);
    }
    if (rule != NULL)
        return rule;
    if (l->region_offset[r] > INT64_MAX - g->base)
        return "the region's extent overflows int64";
    g->end = mul_add(1, l->region_offset[r] + g->base, g->span - last);
    return g->end < 0 ? "the region's extent overflows int64" : NULL;
}

int64_t kvg_i_row_part(const kvg_row_layout *l, int r, int64_t p, int h)
{
    int64_t at = (int64_t)h * l->head_stride[r];

    if (l->tile[r] > 0)
        return at + p / l->tile[r] * l->tile_stride[r] +
               p % l->tile[r] * l->slot_stride[r];
    return at + p * l->slot_stride[r];
}
