/*
 * tools/lib/scan/ops/reshape_and_cache_omni.c - ReshapeAndCacheOmni in the
 * dumps: ATB's ReshapeAndCacheOmniOperation (inputs key, value, keyCache,
 * valueCache, slotMapping, winsOptional, seqLen, offsetIndex; outputs
 * keyCache, valueCache, in place).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "scan.h"

static const char *const k_names[] = {"ReshapeAndCacheOmniOperation",
                                      "ReshapeAndCacheOmni",
                                      "reshape_and_cache_omni", NULL};
static const char *const k_in[] = {"key",          "value",   "key_cache",
                                   "value_cache",  "slot_mapping", "wins",
                                   "seq_len",      "offset_index", NULL};
static const char *const k_out[] = {"key_cache", "value_cache", NULL};

static const kvg_scan_sig k_sigs[] = {
    {KVG_SCAN_MSPROBE, k_names, k_in, k_out, NULL},
    {KVG_SCAN_ATB, k_names, k_in, k_out, NULL},
    {KVG_SCAN_CANN, k_names, k_in, k_out, NULL},
    {KVG_SCAN_TTK, k_names, k_in, k_out, NULL},
};

const kvg_scan_opmap kvg_scan_map_reshape_and_cache_omni = {
    .op = "reshape_and_cache_omni",
    .sigs = k_sigs,
    .n_sigs = sizeof k_sigs / sizeof k_sigs[0],
    .finish = NULL,
    .bin_shapes = kvg_scan_rac_bin_shapes};
