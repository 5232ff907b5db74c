/*
 * tools/lib/report/cache_map.c - fold a judged cache into blocks x slots.
 * Heads and channels of one (block, slot) always share a cell: the bug
 * shapes engineers look for (a shifted slot, a wrong block, a stale page)
 * are shapes over blocks and slots.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "cache_map.h"

int64_t kvg_map_fold(int64_t n, int64_t max)
{
    return n <= max ? 1 : (n + max - 1) / max;
}

/* Is `e` (class `cls`, flat `index`) worse than what the cell holds? Worse
 * class first, then higher score, then the lower index (stable). */
static int worse_than_cell(const kvg_map_cell *cell, int empty,
                           const kvg_elem_judgement *e, int64_t index)
{
    if (empty || e->cls > cell->worst)
        return 1;
    if (e->cls < cell->worst)
        return 0;
    if (e->score > cell->worst_elem.score)
        return 1;
    return e->score == cell->worst_elem.score && index < cell->worst_index;
}

static int layout_fits(const kvg_report_tensor *t)
{
    const kvg_cache_layout *l = t->layout;
    if (l == NULL || l->blocks <= 0 || l->slots <= 0 || l->heads <= 0 ||
        l->dim <= 0)
        return 0;
    if (l->blocks > INT64_MAX / l->slots / l->heads / l->dim)
        return 0;
    return l->blocks * l->slots * l->heads * l->dim ==
           kvg_report_tensor_elements(t);
}

kvg_status kvg_cache_map_build(const kvg_report_tensor *t, kvg_cache_map *map,
                               kvg_diag *diag)
{
    kvg_elem_judge judge;
    unsigned char *seen;
    int64_t n, i;

    memset(map, 0, sizeof *map);
    if (!layout_fits(t))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, t->result->name, -1,
                            -1, "%s: no cache map: its layout does not "
                            "describe its %lld elements", t->result->name,
                            (long long)kvg_report_tensor_elements(t));
    map->blocks = t->layout->blocks;
    map->slots = t->layout->slots;
    map->blocks_per_row = kvg_map_fold(map->blocks, KVG_MAP_MAX_ROWS);
    map->slots_per_col = kvg_map_fold(map->slots, KVG_MAP_MAX_COLS);
    map->rows = (map->blocks + map->blocks_per_row - 1) / map->blocks_per_row;
    map->cols = (map->slots + map->slots_per_col - 1) / map->slots_per_col;
    map->cells = (kvg_map_cell *)calloc((size_t)(map->rows * map->cols),
                                        sizeof *map->cells);
    seen = (unsigned char *)calloc((size_t)(map->rows * map->cols), 1);
    if (map->cells == NULL || seen == NULL) {
        free(seen);
        kvg_cache_map_free(map);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, t->result->name, -1, -1,
                            "out of memory mapping %s", t->result->name);
    }
    kvg_elem_judge_init(&judge, t);
    n = kvg_report_tensor_elements(t);
    for (i = 0; i < n; i++) {
        kvg_cache_coord c = kvg_layout_coord(t->layout, i);
        int64_t cell_at = (c.block / map->blocks_per_row) * map->cols +
                          c.slot / map->slots_per_col;
        kvg_map_cell *cell = &map->cells[cell_at];
        kvg_elem_judgement e;
        kvg_elem_judge_one(&judge, i, &e);
        cell->count[e.cls]++;
        map->count[e.cls]++;
        if (worse_than_cell(cell, !seen[cell_at], &e, i)) {
            cell->worst = e.cls;
            cell->worst_index = i;
            cell->worst_coord = c;
            cell->worst_elem = e;
            seen[cell_at] = 1;
        }
    }
    free(seen);
    return KVG_OK;
}

void kvg_cache_map_free(kvg_cache_map *map)
{
    free(map->cells);
    map->cells = NULL;
}

const kvg_map_cell *kvg_cache_map_cell(const kvg_cache_map *map,
                                       int64_t block, int64_t slot)
{
    if (map->cells == NULL || block < 0 || block >= map->blocks || slot < 0 ||
        slot >= map->slots)
        return NULL;
    return &map->cells[(block / map->blocks_per_row) * map->cols +
                       slot / map->slots_per_col];
}
