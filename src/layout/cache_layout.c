/*
 * src/layout/cache_layout.c - element offsets of the ND, BNSD and NZ cache
 * layouts, and their inverse (used to report a bad element in the cache's
 * logical coordinates).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/layout.h"

int64_t kvg_c0_of(kvg_dtype dtype)
{
    /* 32 bytes of the dtype: 16 for 2-byte, 32 for 1-byte types (and 32
     * packed fp4 byte pairs = 64 codes), 8 for 4-byte, 4 for int64. */
    const size_t size = kvg_dtype_size(dtype);
    return size != 0 ? (int64_t)(32 / size) : 0;
}

int64_t kvg_layout_offset(const kvg_cache_layout *l, const kvg_cache_coord *c)
{
    int64_t ch;

    switch (l->kind) {
    case KVG_LAYOUT_BNSD:
        return ((c->block * l->heads + c->head) * l->slots + c->slot) * l->dim +
               c->channel;
    case KVG_LAYOUT_NZ:
        ch = c->head * l->dim + c->channel;
        return ((c->block * (l->heads * l->dim / l->c0) + ch / l->c0) *
                    l->slots +
                c->slot) *
                   l->c0 +
               ch % l->c0;
    case KVG_LAYOUT_ND:
    default:
        return ((c->block * l->slots + c->slot) * l->heads + c->head) * l->dim +
               c->channel;
    }
}

kvg_cache_coord kvg_layout_coord(const kvg_cache_layout *l, int64_t offset)
{
    kvg_cache_coord c;
    int64_t rest = offset, ch, rows;

    switch (l->kind) {
    case KVG_LAYOUT_BNSD:
        c.channel = rest % l->dim, rest /= l->dim;
        c.slot = rest % l->slots, rest /= l->slots;
        c.head = rest % l->heads, rest /= l->heads;
        c.block = rest;
        break;
    case KVG_LAYOUT_NZ:
        rows = l->heads * l->dim / l->c0;
        ch = rest % l->c0, rest /= l->c0;
        c.slot = rest % l->slots, rest /= l->slots;
        ch += (rest % rows) * l->c0, rest /= rows;
        c.block = rest;
        c.head = ch / l->dim;
        c.channel = ch % l->dim;
        break;
    case KVG_LAYOUT_ND:
    default:
        c.channel = rest % l->dim, rest /= l->dim;
        c.head = rest % l->heads, rest /= l->heads;
        c.slot = rest % l->slots, rest /= l->slots;
        c.block = rest;
        break;
    }
    return c;
}
