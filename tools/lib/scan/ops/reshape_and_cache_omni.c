/*
 * tools/lib/scan/ops/reshape_and_cache_omni.c - ReshapeAndCacheOmni in the
 * dumps: ATB's ReshapeAndCacheOmniOperation (inputs key, value, keyCache,
 * valueCache, slotMapping, winsOptional, seqLen, offsetIndex; outputs
 * keyCache, valueCache, in place).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "binding.h"
#include "scan.h"

/* its call forms: tools/lib/bindings/reshape_and_cache_omni.c */
extern const kvg_binding kvg_binding_reshape_and_cache_omni;

const kvg_scan_opmap kvg_scan_map_reshape_and_cache_omni = {
    .binding = &kvg_binding_reshape_and_cache_omni,
    .finish = NULL,
    .bin_shapes = kvg_scan_paged_bin_shapes};
