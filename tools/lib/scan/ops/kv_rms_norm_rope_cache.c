/*
 * tools/lib/scan/ops/kv_rms_norm_rope_cache.c - KvRmsNormRopeCache in the
 * dumps: torch_npu.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, index,
 * k_cache, ckv_cache, *, k_rope_scale, c_kv_scale, k_rope_offset,
 * c_kv_offset, epsilon, cache_mode, is_output_kv) -> (k_cache, ckv_cache,
 * k_rope, c_kv); the kernel KvRmsNormRopeCache (CANN dumps: the same
 * inputs, the four scale / offset tensors positional, the same outputs);
 * ops-test-kit (the kernel's tensors; its attributes live in the case CSV,
 * not the directory: --attr).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "binding.h"
#include "scan.h"

/* its call forms: tools/lib/bindings/kv_rms_norm_rope_cache.c */
extern const kvg_binding kvg_binding_kv_rms_norm_rope_cache;

const kvg_scan_opmap kvg_scan_map_kv_rms_norm_rope_cache = {
    .binding = &kvg_binding_kv_rms_norm_rope_cache,
    .finish = NULL,
    .bin_shapes = NULL};
