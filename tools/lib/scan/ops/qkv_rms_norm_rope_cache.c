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

#include "scan.h"

static const char *const k_names[] = {"npu_qkv_rms_norm_rope_cache",
                                      "npu_qkv_rms_norm_rope_cache_functional",
                                      "QkvRmsNormRopeCache",
                                      "qkv_rms_norm_rope_cache",
                                      "aclnnQkvRmsNormRopeCache", NULL};
static const char *const k_in_torch[] = {
    "qkv",   "q_gamma", "k_gamma", "cos",       "sin",        "index",
    "q_out", "k_cache", "v_cache", "=qkv_size", "=head_nums", NULL};
static const char *const k_in_kernel[] = {
    "qkv",   "q_gamma", "k_gamma", "cos",     "sin",      "index",
    "q_out", "k_cache", "v_cache", "k_scale", "v_scale",  "k_offset",
    "v_offset", NULL};
static const char *const k_out_torch[] = {
    "q_out_before_quant", "k_out_before_quant", "v_out_before_quant",
    "q_out", "k_cache", "v_cache", NULL};
static const char *const k_out_kernel[] = {
    "q_out", "k_cache", "v_cache", "q_out_before_quant",
    "k_out_before_quant", "v_out_before_quant", NULL};
static const char *const k_kw[] = {
    "k_scale",   "k_scale",    "v_scale",       "v_scale",
    "k_offset",  "k_offset",   "v_offset",      "v_offset",
    "qkv_size",  "=qkv_size",  "head_nums",     "=head_nums",
    "epsilon",   "=epsilon",   "cache_mode",    "=cache_mode",
    "is_output_qkv", "=is_output_qkv", NULL};

static const kvg_scan_sig k_sigs[] = {
    {KVG_SCAN_MSPROBE, k_names, k_in_torch, k_out_torch, k_kw},
    {KVG_SCAN_CANN, k_names, k_in_kernel, k_out_kernel, NULL},
    {KVG_SCAN_TTK, k_names, k_in_kernel, k_out_kernel, NULL},
};

const kvg_scan_opmap kvg_scan_map_qkv_rms_norm_rope_cache = {
    .op = "qkv_rms_norm_rope_cache",
    .sigs = k_sigs,
    .n_sigs = sizeof k_sigs / sizeof k_sigs[0],
    .finish = NULL,
    .bin_shapes = NULL};
