/*
 * tools/lib/scan/ops/scatter_pa_kv_cache.c - ScatterPaKvCache in the dumps:
 * torch_npu.npu_scatter_pa_kv_cache(key, value, key_cache, value_cache,
 * slot_mapping, *, compress_lens, compress_seq_offsets, seq_lens,
 * cache_mode) in place, returning nothing (so msprobe has no post-call
 * caches for it), and npu_scatter_pa_kv_cache_functional, which returns
 * (key_cache, value_cache); the kernel ScatterPaKvCache and
 * aclnnScatterPaKvCache (CANN dumps, ops-test-kit) take key, key_cache,
 * slot_mapping, value, value_cache, compress_lens, compress_seq_offset,
 * seq_lens and write key_cache, value_cache.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "binding.h"
#include "scan.h"

/* torch_npu's default cache_mode is PA_NZ where the operator's is Norm:
 * an msprobe record without the keyword ran with PA_NZ. */
static int finish(const kvg_scan_call *c, kvg_scan_bound *b, char *why,
                  size_t cap)
{
    (void)why;
    (void)cap;
    if (c->format == KVG_SCAN_MSPROBE &&
        kvg_scan_get_attr(b, "cache_mode") == NULL)
        (void)kvg_scan_set_attr(b, "cache_mode", "\"PA_NZ\"");
    return 0;
}

/* its call forms: tools/lib/bindings/scatter_pa_kv_cache.c */
extern const kvg_binding kvg_binding_scatter_pa_kv_cache;

const kvg_scan_opmap kvg_scan_map_scatter_pa_kv_cache = {
    .binding = &kvg_binding_scatter_pa_kv_cache,
    .finish = finish,
    .bin_shapes = NULL};
