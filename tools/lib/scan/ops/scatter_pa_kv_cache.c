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

/* Present: bound and not an empty (absent) tensor. */
static int given(const kvg_scan_bound *b, const char *name)
{
    const kvg_scan_arg *a = kvg_scan_bound_pre(b, name);
    return a != NULL && a->rank > 0;
}

/* torch_npu's default cache_mode is PA_NZ where the operator's is Norm:
 * a torch_npu call without the keyword (an msprobe record, an
 * ops-test-kit e2e testcase) ran with PA_NZ. torch_npu always
 * passes scatter_mode None; on the 950 a 4-D key [B, S, N, D] given
 * compress_lens and seq_lens is the compressed write, Rope when
 * compress_seq_offsets is given, else Alibi (as kvgold's Python
 * npu_scatter_pa_kv_cache, docs/scatter_pa_kv_cache.md). */
static kvg_status finish(const kvg_scan_call *c, kvg_scan_bound *b,
                         kvg_diag *diag)
{
    const kvg_scan_arg *key = kvg_scan_bound_pre(b, "key");
    (void)diag;
    if (!kvg_scan_is_torch_npu(c))
        return KVG_OK; /* the kernel's call: the operator's own defaults */
    if (kvg_scan_get_attr(b, "cache_mode") == NULL)
        (void)kvg_scan_set_attr(b, "cache_mode", "\"PA_NZ\"", NULL);
    if (key != NULL && key->rank == 4 && given(b, "compress_lens") &&
        given(b, "seq_lens"))
        (void)kvg_scan_set_attr(b, "scatter_mode",
                                given(b, "compress_seq_offset")
                                    ? "\"Rope\""
                                    : "\"Alibi\"", NULL);
    return KVG_OK;
}

/* its call forms: tools/lib/bindings/scatter_pa_kv_cache.c */
extern const kvg_binding kvg_binding_scatter_pa_kv_cache;

const kvg_scan_opmap kvg_scan_map_scatter_pa_kv_cache = {
    .binding = &kvg_binding_scatter_pa_kv_cache,
    .finish = finish,
    .bin_shapes = NULL};
