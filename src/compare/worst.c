/*
 * src/compare/worst.c - reported elements: their coordinates and the list
 * of the worst written elements (kvgold/compare.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "src/compare/compare_internal.h"

static void coords_of(const kvg_i_cmp_ctx *c, int64_t index,
                      kvg_compare_element *e)
{
    int i;

    index /= c->per; /* packed fp4: the coordinates of the code's byte */
    memset(e->coord, 0, sizeof e->coord);
    if (c->r->has_layout) {
        kvg_cache_coord cc = kvg_layout_coord(&c->r->layout, index);
        e->coord_rank = 4;
        e->coord[0] = cc.block;
        e->coord[1] = cc.slot;
        e->coord[2] = cc.head;
        e->coord[3] = cc.channel;
        return;
    }
    e->coord_rank = c->a->golden->rank;
    for (i = e->coord_rank - 1; i >= 0; i--) {
        int64_t dim = c->a->golden->shape[i];
        e->coord[i] = index % dim;
        index /= dim;
    }
}

void kvg_i_cmp_fill_element(const kvg_i_cmp_ctx *c, int64_t index,
                            const kvg_i_elem *want, const kvg_i_elem *got,
                            double abs_err, double rel_err, double score,
                            kvg_compare_element *e)
{
    e->index = index;
    coords_of(c, index, e);
    e->golden = want->v;
    e->actual = got->v;
    e->golden_bits = want->bits;
    e->actual_bits = got->bits;
    e->abs_err = abs_err;
    e->rel_err = rel_err;
    e->score = score;
    if (c->r->values_not_applicable) {
        /* e8m0: the distance is in binades (the score); fp4_e1m2: its code
         * number stood in for a value, and is no value */
        e->abs_err = e->rel_err = NAN;
        if (c->dt == KVG_FP4_E1M2)
            e->golden = e->actual = NAN;
    }
}

/* Keep the K highest scores; elements arrive in index order, so an equal
 * score never displaces an earlier element (ties stay by index). */
void kvg_i_cmp_offer_worst(kvg_i_cmp_ctx *c, int64_t index,
                           const kvg_i_elem *want, const kvg_i_elem *got,
                           double abs_err, double rel_err, double score)
{
    kvg_compare_result *r = c->r;
    int pos = r->worst_count;

    if (pos == KVG_COMPARE_WORST) {
        if (!(score > r->worst[KVG_COMPARE_WORST - 1].score))
            return;
        pos = KVG_COMPARE_WORST - 1;
    } else {
        r->worst_count++;
    }
    while (pos > 0 && score > r->worst[pos - 1].score) {
        r->worst[pos] = r->worst[pos - 1];
        pos--;
    }
    kvg_i_cmp_fill_element(c, index, want, got, abs_err, rel_err, score,
                           &r->worst[pos]);
}
