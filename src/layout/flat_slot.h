/*
 * src/layout/flat_slot.h - where a slot_mapping value points: flat slot s
 * of a paged cache is block s / BlockSize, slot s % BlockSize, and its row
 * starts at head 0, channel 0. The copy engines (src/engines/) place every
 * token's row this way; kvg_layout_offset then turns it into elements.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_LAYOUT_FLAT_SLOT_H
#define KVGOLD_SRC_LAYOUT_FLAT_SLOT_H

#include <stdint.h>

#include "kvgold/layout.h"

/* The first element of flat slot s (s >= 0, already range-checked). */
static inline kvg_cache_coord kvg_i_flat_slot(const kvg_cache_layout *l,
                                              int64_t s)
{
    kvg_cache_coord c;
    c.block = s / l->slots;
    c.slot = s % l->slots;
    c.head = 0;
    c.channel = 0;
    return c;
}

#endif /* KVGOLD_SRC_LAYOUT_FLAT_SLOT_H */
