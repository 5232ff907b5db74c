/*
 * src/engines/slot_rows.h - token rows into the cache slots slot_mapping
 * names: the per-token write of every paged copy into ND or NZ caches
 * (the operators on it: docs/architecture.md, "The tree"), which differ
 * only in where a token's source row starts (a strided storage has a
 * stride and an offset).
 *
 * The caller has validated everything (shapes, slots in range, no slot
 * twice, buffers apart): this only writes, in the order measured fastest
 * (docs/performance.md). The order is not part of the contract: every
 * written slot is distinct.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_ENGINES_SLOT_ROWS_H
#define KVGOLD_SRC_ENGINES_SLOT_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/layout.h"
#include "kvgold/tensor.h"

/* One cache and the rows that go into it. */
typedef struct kvg_i_slot_rows {
    unsigned char *cache;     /* the cache's first byte */
    kvg_cache_layout layout;  /* ND [blocks, BS, N, D] or NZ */
    size_t esize;             /* bytes per element (source and cache) */
    const unsigned char *src; /* token t's N*D elements at src + t*stride */
    size_t stride;            /* bytes from one token's row to the next */
    const kvg_tensor *slot_mapping; /* token -> flat slot; < 0: skipped */
    int64_t tokens;
} kvg_i_slot_rows;

/* Token t's row to flat slot slot_mapping[t] (block s / BS, row s % BS);
 * layout.kind must be KVG_LAYOUT_ND or KVG_LAYOUT_NZ. */
void kvg_i_slot_rows_write(const kvg_i_slot_rows *w);

#endif /* KVGOLD_SRC_ENGINES_SLOT_ROWS_H */
