/*
 * src/engines/slot_rows.c - token rows into the cache slots slot_mapping
 * names, ND and NZ.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/slot_rows.h"

#include "src/common/internal.h"
#include "src/kernels/kernels.h"
#include "src/layout/flat_slot.h"

/* Bytes of one token's N*D row. */
static size_t row_bytes(const kvg_i_slot_rows *w)
{
    return (size_t)(w->layout.heads * w->layout.dim) * w->esize;
}

/* ND: tokens whose slots follow each other inside one block and whose
 * rows follow each other in the source are one stretch, one copy (a
 * prefill fills whole blocks in order), through kvg_i_copy_bytes (src/
 * kernels/copy.c: a decode step's 2 KiB rows 13% faster than through
 * glibc's memcpy). Slot s of [blocks, BS, N, D] is the cache's row s, so
 * a stretch goes s rows in (kvg_layout_offset's answer without a call and
 * a division per decode token); the slot test comes before the block-end
 * test, so a decode token, whose next slot is not s + 1, costs no division
 * either. A stretch stays inside its block, as the kernels' copies do. */
static void write_nd(const kvg_i_slot_rows *w)
{
    const size_t row = row_bytes(w);
    const int contiguous = w->stride == row;
    const int64_t bs = w->layout.slots;
    int64_t t = 0, u;

    while (t < w->tokens) {
        const int64_t s = kvg_i_index_at(w->slot_mapping, t);
        if (s < 0) {
            t++;
            continue; /* padding token: skipped */
        }
        for (u = t + 1; contiguous && u < w->tokens &&
                        kvg_i_index_at(w->slot_mapping, u) == s + (u - t) &&
                        (s + (u - t)) % bs != 0;
             u++)
            ;
        kvg_i_copy_bytes(w->cache + (size_t)s * row,
                         w->src + (size_t)t * w->stride, (size_t)(u - t) * row);
        t = u;
    }
}

/* NZ: a token's N*D channels are N*D/C0 runs of C0 elements (32 bytes),
 * BS*C0 elements apart from (block, group 0, slot). Tokens go in tiles of
 * KVG_I_COPY_TILE to kvg_i_copy_runs_tiled, which walks a tile run by run
 * where the slots follow each other (a prefill) and a few runs of every
 * token elsewhere (src/kernels/copy.c says why). */
static void write_nz(const kvg_i_slot_rows *w)
{
    const kvg_cache_layout *l = &w->layout;
    const size_t stride = (size_t)(l->slots * l->c0) * w->esize;
    const size_t run = (size_t)l->c0 * w->esize;
    const size_t runs = (size_t)(l->heads * l->dim / l->c0);
    unsigned char *dst[KVG_I_COPY_TILE];
    const unsigned char *from[KVG_I_COPY_TILE];
    size_t n = 0;
    int64_t t;

    for (t = 0; t < w->tokens; t++) {
        const int64_t s = kvg_i_index_at(w->slot_mapping, t);
        kvg_cache_coord c;
        if (s < 0)
            continue; /* padding token: skipped */
        c = kvg_i_flat_slot(l, s);
        dst[n] = w->cache + (size_t)kvg_layout_offset(l, &c) * w->esize;
        from[n] = w->src + (size_t)t * w->stride;
        if (++n == KVG_I_COPY_TILE) {
            kvg_i_copy_runs_tiled(dst, stride, from, run, runs, n);
            n = 0;
        }
    }
    if (n)
        kvg_i_copy_runs_tiled(dst, stride, from, run, runs, n);
}

void kvg_i_slot_rows_write(const kvg_i_slot_rows *w)
{
    if (w->layout.kind == KVG_LAYOUT_NZ)
        write_nz(w);
    else
        write_nd(w);
}
