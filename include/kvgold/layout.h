/*
 * kvgold/layout.h - where a cache element lives in memory.
 *
 * Every cache the operators write is, logically, a grid of
 * (block, slot, head, channel) coordinates; the modes differ only in how that
 * grid is laid out in memory (spec section 3). C0 is the number of elements
 * in 32 bytes of the cache's own dtype: 16 for fp16/bf16, 32 for 1-byte types.
 *
 *   KVG_LAYOUT_ND    [blocks, slots, heads, dim]            PA, PA_BNSD,
 *                                                          PA_BLK_BNSD, ND
 *   KVG_LAYOUT_BNSD  [blocks, heads, slots, dim]            Norm (block =
 *                                                          batch, slot = seq)
 *   KVG_LAYOUT_NZ    [blocks, heads*dim/C0, slots, C0]      PA_NZ, PA_BLK_NZ,
 *                                                          QKV PA_NZ, NZ
 *
 * In NZ the channel c = head*dim + channel is split into c / C0 (the row of
 * the fractal) and c % C0 (the column), so one block holds, for each group of
 * C0 channels, all its slots contiguously.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_LAYOUT_H
#define KVGOLD_LAYOUT_H

#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kvg_layout_kind {
    KVG_LAYOUT_ND = 0,
    KVG_LAYOUT_BNSD = 1,
    KVG_LAYOUT_NZ = 2
} kvg_layout_kind;

typedef struct kvg_cache_layout {
    kvg_layout_kind kind;
    int64_t blocks; /* BlockNum (or Bcache for BNSD) */
    int64_t slots;  /* BlockSize (or Scache for BNSD) */
    int64_t heads;  /* N */
    int64_t dim;    /* D per head */
    int64_t c0;     /* NZ only: elements per 32 bytes of the cache dtype */
} kvg_cache_layout;

typedef struct kvg_cache_coord {
    int64_t block, slot, head, channel;
} kvg_cache_coord;

/*
 * The operators' cache_mode attribute: one vocabulary for every operator
 * that has one (aclnn's strings, exact spelling). "PA" and "PA_BNSD" are
 * one mode, as the NPU maps both strings to the same value. Each operator
 * accepts its own subset, its header says which and its default, and
 * refuses the rest by name.
 */
typedef enum kvg_cache_mode {
    KVG_CACHE_NORM = 0,        /* BNSD: block = batch, slot = sequence */
    KVG_CACHE_PA_BNSD = 1,     /* ND paged */
    KVG_CACHE_PA = KVG_CACHE_PA_BNSD,
    KVG_CACHE_PA_NZ = 2,       /* NZ paged */
    KVG_CACHE_PA_BLK_BNSD = 3, /* ND paged, a block table per batch */
    KVG_CACHE_PA_BLK_NZ = 4    /* NZ paged, a block table per batch */
} kvg_cache_mode;

/* "Norm", "PA", "PA_BNSD", "PA_NZ", "PA_BLK_BNSD", "PA_BLK_NZ" -> *mode
 * and 1; 0 (and *mode untouched) for anything else or NULL. */
KVG_API int kvg_cache_mode_from_name(const char *name, kvg_cache_mode *mode);
/* The canonical name ("PA_BNSD" for PA); NULL for an invalid value. */
KVG_API const char *kvg_cache_mode_name(kvg_cache_mode mode);

/* Elements per 32 bytes of `dtype`: 32 / kvg_dtype_size (16 for 2-byte,
 * 32 for 1-byte types including the packed fp4 pairs, 8 for 4-byte);
 * 0 for KVG_DTYPE_INVALID. */
KVG_API int64_t kvg_c0_of(kvg_dtype dtype);

/* Element offset of a coordinate. The coordinate must be in range; the
 * layout must have heads*dim divisible by c0 for NZ (operators check both). */
KVG_API int64_t kvg_layout_offset(const kvg_cache_layout *layout,
                                  const kvg_cache_coord *coord);

/* Inverse of kvg_layout_offset for 0 <= offset < blocks*slots*heads*dim. */
KVG_API kvg_cache_coord kvg_layout_coord(const kvg_cache_layout *layout,
                                         int64_t offset);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_LAYOUT_H */
