/*
 * tools/lib/bindings/reshape_and_cache_omni.c - how ReshapeAndCacheOmni is
 * called: ATB's ReshapeAndCacheOmniOperation only (torch_npu has no
 * function for it, so `kvgold prepare` has no form to write).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "binding.h"

static const char *const k_names[] = {"ReshapeAndCacheOmniOperation",
                                      "ReshapeAndCacheOmni",
                                      "reshape_and_cache_omni", NULL};
static const char *const k_in[] = {"key",          "value",   "key_cache",
                                   "value_cache",  "slot_mapping", "wins",
                                   "seq_len",      "offset_index", NULL};
static const char *const k_out[] = {"key_cache", "value_cache", NULL};

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_ATB,
     .api = "ReshapeAndCacheOmniOperation",
     .names = k_names,
     .tensors = k_in,
     .outputs = k_out},
};

const kvg_binding kvg_binding_reshape_and_cache_omni = {
    "reshape_and_cache_omni", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_PAGED};
