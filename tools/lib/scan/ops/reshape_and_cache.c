/*
 * tools/lib/scan/ops/reshape_and_cache.c - ReshapeAndCache in the dumps:
 * ATB's ReshapeAndCacheOperation (inputs key, value, keyCache, valueCache,
 * slotMapping[, winsOptional, seqLen[, offsetIndex]]; outputs keyCache,
 * valueCache, in place) and torch_npu._npu_reshape_and_cache (key, value,
 * key_cache, value_cache, slot_indices; returns nothing, so its post-call
 * caches are msprobe's outputs only when the dump has them).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "scan.h"

/* ATB records no mode apart from its parameters: the compress type is the
 * parameter when the dump has it, else what the optional inputs given
 * imply (wins and seq_len: KVHEAD; offset_index too: KVHEAD_ROPE), and
 * the NZ layout is the caches' storage format. */
static kvg_status finish(const kvg_scan_call *c, kvg_scan_bound *b,
                         kvg_diag *diag)
{
    static const char *const k_compress[] = {"\"UNDEFINED\"", "\"KVHEAD\"",
                                             "\"KVHEAD_ROPE\""};
    const kvg_scan_arg *p = kvg_scan_param(c, "compressType");
    const kvg_scan_arg *kc = kvg_scan_bound_pre(b, "key_cache");
    int mode = kvg_scan_bound_pre(b, "offset_index") != NULL ? 2
               : kvg_scan_bound_pre(b, "wins") != NULL   ? 1
                                                          : 0;
    if (p != NULL) {
        int v = -1;
        if (sscanf(p->value, "%d", &v) != 1 || v < 0 || v > 2)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "compressType",
                                -1, -1, "parameter compressType = %s is not "
                                "0, 1 or 2", p->value);
        mode = v;
    }
    if (kvg_scan_get_attr(b, "compress_type") == NULL)
        (void)kvg_scan_set_attr(b, "compress_type", k_compress[mode], NULL);
    if (kc != NULL && kc->layout == KVG_SCAN_LAYOUT_NZ &&
        kvg_scan_get_attr(b, "cache_layout") == NULL)
        (void)kvg_scan_set_attr(b, "cache_layout", "\"NZ\"", NULL);
    return KVG_OK;
}

/* its call forms: tools/lib/bindings/reshape_and_cache.c */
extern const kvg_binding kvg_binding_reshape_and_cache;

const kvg_scan_opmap kvg_scan_map_reshape_and_cache = {
    .binding = &kvg_binding_reshape_and_cache,
    .finish = finish,
    .bin_shapes = kvg_scan_paged_bin_shapes};
