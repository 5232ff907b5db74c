/*
 * tools/lib/report/cache_map.h - a cache as a picture: every element judged
 * (element_class.h) and folded into a bounded grid of blocks x slots, each
 * cell keeping the worst class it holds and that class's worst element.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_CACHE_MAP_H
#define KVGOLD_TOOLS_CACHE_MAP_H

#include <stdint.h>

#include "element_class.h"

/* Grid bounds: beyond them, consecutive slots (columns) and then blocks
 * (rows) share a cell, so the HTML stays small whatever the cache. */
#define KVG_MAP_MAX_COLS 128
#define KVG_MAP_MAX_ROWS 32

typedef struct kvg_map_cell {
    kvg_elem_class worst;          /* worst class in the cell */
    int64_t count[KVG_EC_COUNT];   /* elements per class */
    int64_t worst_index;           /* flat index of the worst element */
    kvg_cache_coord worst_coord;
    kvg_elem_judgement worst_elem;
} kvg_map_cell;

typedef struct kvg_cache_map {
    int64_t blocks, slots;         /* the cache's grid */
    int64_t rows, cols;            /* the folded grid */
    int64_t blocks_per_row, slots_per_col;
    int64_t count[KVG_EC_COUNT];   /* elements per class, whole tensor */
    kvg_map_cell *cells;           /* rows * cols, row-major; malloc'd */
} kvg_cache_map;

/* Fold factor for `n` items into at most `max` cells: ceil(n / max). */
int64_t kvg_map_fold(int64_t n, int64_t max);

/*
 * Judge every element of `t` (which must have a layout whose element count
 * equals the tensor's) and fold it into `map`. KVG_OK, or
 * KVG_ERR_PARAM_INVALID if the layout does not describe the tensor (a
 * report then draws no map) or KVG_ERR_NOMEM, with diag filled; `map`
 * then holds no cells. Free with kvg_cache_map_free.
 */
kvg_status kvg_cache_map_build(const kvg_report_tensor *t, kvg_cache_map *map,
                               kvg_diag *diag);
void kvg_cache_map_free(kvg_cache_map *map);

/* The cell holding (block, slot). */
const kvg_map_cell *kvg_cache_map_cell(const kvg_cache_map *map,
                                       int64_t block, int64_t slot);

#endif /* KVGOLD_TOOLS_CACHE_MAP_H */
