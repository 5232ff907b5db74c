/*
 * tools/lib/scan/ops/qkv_rms_norm_rope_cache.c - QkvRmsNormRopeCache in the
 * dumps: torch_npu.npu_qkv_rms_norm_rope_cache(qkv, q_gamma, k_gamma, cos,
 * sin, index, q_out, k_cache, v_cache, qkv_size, head_nums, *, k_scale,
 * v_scale, k_offset, v_offset, epsilon, cache_mode, is_output_qkv), in
 * place, returning (q_out_before_quant, k_out_before_quant,
 * v_out_before_quant); the functional variant returns q_out, k_cache and
 * v_cache after them. The kernel and aclnn take the scale / offset
 * tensors positionally, ops-test-kit directories hold the
 * tensors in that order (the attributes are in its CSV: --attr).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "binding.h"
#include "scan.h"

/* its call forms: tools/lib/bindings/qkv_rms_norm_rope_cache.c */
extern const kvg_binding kvg_binding_qkv_rms_norm_rope_cache;

const kvg_scan_opmap kvg_scan_map_qkv_rms_norm_rope_cache = {
    .binding = &kvg_binding_qkv_rms_norm_rope_cache,
    .finish = NULL,
    .bin_shapes = NULL};
