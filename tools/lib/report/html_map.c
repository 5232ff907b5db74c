/*
 * tools/lib/report/html_map.c - a cache map as inline SVG: one row per block
 * (or group of blocks), one column per slot (or group of slots), each cell
 * filled with the colour of the worst element class it holds and titled
 * with its coordinates, its class counts and its worst element (the title
 * is what a browser shows on hover). Cells are separated by one-pixel
 * lines of the frame colour, on integer coordinates, so every cell renders
 * as a crisp block of one colour.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "html_common.h"

#define MAP_WIDTH 1024  /* pixels the grid may take */
#define MAP_LEFT 84     /* room for the block labels */
#define MAP_TOP 20      /* room for the slot ticks */
#define MIN_CELL_W 4
#define MAX_CELL_W 24
#define MIN_CELL_H 20
#define TICK_SPACING 48 /* pixels between slot labels, at least */

typedef struct map_geometry {
    int cw, ch;          /* cell pitch (the last pixel is the grid line) */
    int64_t tick_every;  /* columns between slot labels */
} map_geometry;

static map_geometry geometry_of(const kvg_cache_map *map)
{
    map_geometry g;
    int64_t w = MAP_WIDTH / map->cols;
    g.cw = (int)(w < MIN_CELL_W ? MIN_CELL_W : w > MAX_CELL_W ? MAX_CELL_W : w);
    g.ch = g.cw < MIN_CELL_H ? MIN_CELL_H : g.cw;
    g.tick_every = 1;
    while (g.tick_every * g.cw < TICK_SPACING)
        g.tick_every *= 2;
    return g;
}

/* "block 3" or "blocks 4-7"; the same for slots. */
static void range_text(char *buf, size_t cap, const char *what,
                       int64_t first, int64_t per, int64_t limit)
{
    int64_t last = first + per - 1 < limit ? first + per - 1 : limit - 1;
    if (last == first)
        (void)snprintf(buf, cap, "%s %lld", what, (long long)first);
    else
        (void)snprintf(buf, cap, "%ss %lld-%lld", what, (long long)first,
                       (long long)last);
}

static void put_cell_title(FILE *out, const kvg_report_tensor *t,
                           const kvg_cache_map *map, const kvg_map_cell *cell,
                           int64_t row, int64_t col)
{
    char blocks[48], slots[48], exp[64], act[64];
    const kvg_cache_coord *c = &cell->worst_coord;
    int k, first = 1;
    range_text(blocks, sizeof blocks, "block", row * map->blocks_per_row,
               map->blocks_per_row, map->blocks);
    range_text(slots, sizeof slots, "slot", col * map->slots_per_col,
               map->slots_per_col, map->slots);
    fprintf(out, "<title>%s, %s: %s\n", blocks, slots,
            kvg_elem_class_legend(cell->worst));
    for (k = KVG_EC_COUNT - 1; k >= 0; k--) {
        if (cell->count[k] == 0)
            continue;
        fprintf(out, "%s%s %lld", first ? "" : ", ",
                kvg_elem_class_name((kvg_elem_class)k),
                (long long)cell->count[k]);
        first = 0;
    }
    if (cell->worst != KVG_EC_UNTOUCHED && cell->worst != KVG_EC_EXACT) {
        kvg_html_value(exp, sizeof exp, cell->worst_elem.expected,
                       (unsigned long long)cell->worst_elem.expected_bits,
                       t->golden->dtype);
        kvg_html_value(act, sizeof act, cell->worst_elem.actual,
                       (unsigned long long)cell->worst_elem.actual_bits,
                       t->golden->dtype);
        fprintf(out, "\nworst: block=%lld slot=%lld head=%lld channel=%lld "
                     "(index %lld)\nexpected %s, got %s",
                (long long)c->block, (long long)c->slot, (long long)c->head,
                (long long)c->channel, (long long)cell->worst_index, exp, act);
    }
    fputs("</title>", out);
}

static void put_axes(FILE *out, const kvg_cache_map *map, map_geometry g)
{
    int64_t r, col;
    for (col = 0; col < map->cols; col += g.tick_every)
        fprintf(out, "<text class=\"tick\" x=\"%lld\" y=\"%d\">%lld</text>\n",
                (long long)(MAP_LEFT + col * g.cw), MAP_TOP - 6,
                (long long)(col * map->slots_per_col));
    for (r = 0; r < map->rows; r++) {
        char label[48];
        range_text(label, sizeof label, "block", r * map->blocks_per_row,
                   map->blocks_per_row, map->blocks);
        fprintf(out, "<text class=\"blk\" x=\"%d\" y=\"%lld\">%s</text>\n",
                MAP_LEFT - 6, (long long)(MAP_TOP + r * g.ch + g.ch - 3),
                label);
    }
}

void kvg_html_cache_map(FILE *out, const kvg_report_tensor *t,
                        const kvg_cache_map *map)
{
    map_geometry g = geometry_of(map);
    long long width = MAP_LEFT + map->cols * g.cw + 8;
    long long height = MAP_TOP + map->rows * g.ch + 4;
    int64_t r, col;

    fprintf(out, "<svg class=\"map\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\">\n",
            width, height, width, height);
    put_axes(out, map, g);
    fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%lld\" "
                 "height=\"%lld\" fill=\"%s\"/>\n",
            MAP_LEFT - 1, MAP_TOP - 1, (long long)(map->cols * g.cw + 1),
            (long long)(map->rows * g.ch + 1), KVG_HTML_FRAME);
    for (r = 0; r < map->rows; r++) {
        for (col = 0; col < map->cols; col++) {
            const kvg_map_cell *cell = &map->cells[r * map->cols + col];
            fprintf(out, "<rect class=\"c%d\" x=\"%lld\" y=\"%lld\" "
                         "width=\"%d\" height=\"%d\" data-block=\"%lld\" "
                         "data-slot=\"%lld\">",
                    (int)cell->worst, (long long)(MAP_LEFT + col * g.cw),
                    (long long)(MAP_TOP + r * g.ch), g.cw - 1, g.ch - 1,
                    (long long)(r * map->blocks_per_row),
                    (long long)(col * map->slots_per_col));
            put_cell_title(out, t, map, cell, r, col);
            fputs("</rect>\n", out);
        }
    }
    fputs("</svg>\n", out);
}
