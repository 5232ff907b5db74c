/*
 * src/layout/cache_layout.c - element offsets of the ND, BNSD and NZ cache
 * layouts, and their inverse (used to report a bad element in the cache's
 * logical coordinates).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/layout.h"

int64_t kvg_c0_of(kvg_dtype dtype)
{
    switch (dtype) {
    case KVG_FP16:
    case KVG_BF16:
        return 16;
    case KVG_INT8:
    case KVG_HIF8:
    case KVG_FP8_E4M3FN:
    case KVG_FP8_E5M2:
        return 32;
    default:
        return 0;
    }
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
