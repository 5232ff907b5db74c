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

#include "scan.h"

static const char *const k_names[] = {"npu_kv_rmsnorm_rope_cache",
                                      "KvRmsNormRopeCache",
                                      "kv_rms_norm_rope_cache",
                                      "aclnnKvRmsNormRopeCache", NULL};
static const char *const k_in_torch[] = {"kv", "gamma", "cos", "sin",
                                         "index", "k_cache", "ckv_cache",
                                         NULL};
static const char *const k_in_kernel[] = {
    "kv",           "gamma",         "cos",          "sin",
    "index",        "k_cache",       "ckv_cache",    "k_rope_scale",
    "c_kv_scale",   "k_rope_offset", "c_kv_offset",  NULL};
static const char *const k_out[] = {"k_cache", "ckv_cache", "k_rope", "c_kv",
                                    NULL};
static const char *const k_kw[] = {
    "k_rope_scale",  "k_rope_scale",  "c_kv_scale",   "c_kv_scale",
    "k_rope_offset", "k_rope_offset", "c_kv_offset",  "c_kv_offset",
    "epsilon",       "=epsilon",      "cache_mode",   "=cache_mode",
    "is_output_kv",  "=is_output_kv", NULL};

static const kvg_scan_sig k_sigs[] = {
    {KVG_SCAN_MSPROBE, k_names, k_in_torch, k_out, k_kw},
    {KVG_SCAN_CANN, k_names, k_in_kernel, k_out, NULL},
    {KVG_SCAN_TTK, k_names, k_in_kernel, k_out, NULL},
};

const kvg_scan_opmap kvg_scan_map_kv_rms_norm_rope_cache = {
    .op = "kv_rms_norm_rope_cache",
    .sigs = k_sigs,
    .n_sigs = sizeof k_sigs / sizeof k_sigs[0],
    .finish = NULL,
    .bin_shapes = NULL};
