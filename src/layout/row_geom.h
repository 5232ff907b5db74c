/*
 * src/layout/row_geom.h - the shape of one region of a packed-row layout
 * (kvgold/row_layout.h) in a block, as nested strided dimensions: slots
 * within a tile, tiles, heads and - for a segment whose pieces interleave
 * with other slots' (the NZ order of a PA_NZ cache) - its pieces, around
 * an innermost cell of contiguous bytes.
 *
 * Why one description: kvg_row_layout_check proves that no two bytes of
 * a region coincide by one rule on it (each dimension's stride at least
 * the span of every smaller one: a mixed-radix number, so every address
 * has one decomposition), and kvg_row_place_of inverts an address by the
 * same dimensions, largest stride first - arithmetic, no search over
 * slots or pieces, so compare's audit of untouched bytes stays linear.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_LAYOUT_ROW_GEOM_H
#define KVGOLD_SRC_LAYOUT_ROW_GEOM_H

#include <stdint.h>

#include "kvgold/row_layout.h"

/* The dimensions of a region, by what they index. */
typedef enum kvg_i_row_dim_kind {
    KVG_I_DIM_SLOT = 0,  /* position within a tile (p % tile, or p) */
    KVG_I_DIM_TILE = 1,  /* p / tile */
    KVG_I_DIM_HEAD = 2,
    KVG_I_DIM_PIECE = 3  /* pieces of the interleaved segment */
} kvg_i_row_dim_kind;

typedef struct kvg_i_row_dim {
    kvg_i_row_dim_kind kind;
    int64_t stride, count;
} kvg_i_row_dim;

typedef struct kvg_i_row_geom {
    /* the dimensions with count > 1, smallest stride first */
    int dims;
    kvg_i_row_dim dim[4];
    /* the segment whose pieces reach past its slot's row (it is the
     * region's only one), or -1: rows of slot_stride bytes */
    int nz;
    int64_t base; /* the cell's first byte in the region: nz's offset */
    int64_t cell; /* bytes of the cell: slot_stride (a slot's row), the
                     end of one head's segments when heads sit side by
                     side in a row, or an NZ segment's piece */
    int64_t span; /* bytes from base that the nested dimensions reach */
    int64_t end;  /* one past the region's last byte in a block */
} kvg_i_row_geom;

/* Slots per tile of region r (block_size when untiled). */
int64_t kvg_i_row_per_tile(const kvg_row_layout *l, int r);

/* heads, 0 read as 1. */
int kvg_i_row_heads(const kvg_row_layout *l);

/* Bytes of n units of dtype dt (fp4: n / 2). */
int64_t kvg_i_row_units_bytes(kvg_dtype dt, int64_t n);

/* Pieces of segment s (1 when unpieced), and the bytes from its first
 * byte to one past its last. */
int64_t kvg_i_row_pieces(const kvg_row_segment *s);
int64_t kvg_i_row_extent(const kvg_row_segment *s);

/* Bytes of segment s's piece k (the last one may be shorter). */
int64_t kvg_i_row_piece_bytes(const kvg_row_segment *s, int64_t k);

/* Region r's geometry, for a layout whose tile, head, piece and slot
 * fields are in range (each >= 1 where used; the check's first rules).
 * NULL, or the rule a region breaks (a static text; *dim names the
 * dimension, -1 for none): two of its bytes would coincide, or an
 * extent overflows int64. */
const char *kvg_i_row_geom_of(const kvg_row_layout *l, int r,
                              kvg_i_row_geom *g, int *dim);

/* Start of head h's part of slot position p's part of region r, from the
 * region's first byte in a block. */
int64_t kvg_i_row_part(const kvg_row_layout *l, int r, int64_t p, int h);

#endif /* KVGOLD_SRC_LAYOUT_ROW_GEOM_H */
