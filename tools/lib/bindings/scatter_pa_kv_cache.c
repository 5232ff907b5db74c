/*
 * tools/lib/bindings/scatter_pa_kv_cache.c - how ScatterPaKvCache is called:
 * torch_npu.npu_scatter_pa_kv_cache(key, value, key_cache, value_cache,
 * slot_mapping, *, compress_lens, compress_seq_offsets, seq_lens,
 * cache_mode) in place, returning nothing (its _functional returns
 * (key_cache, value_cache)), and the kernel / aclnnScatterPaKvCache.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"
#include "fileio.h"
#include "json.h"

static const char *const k_names_torch[] = {
    "npu_scatter_pa_kv_cache", "npu_scatter_pa_kv_cache_functional", NULL};
static const char *const k_names_kernel[] = {
    "ScatterPaKvCache", "scatter_pa_kv_cache", "aclnnScatterPaKvCache",
    NULL};
static const char *const k_in_torch[] = {
    "key", "value", "key_cache", "value_cache", "slot_mapping",
    "compress_lens", "compress_seq_offset", "seq_lens", NULL};
static const char *const k_attrs_torch[] = {"cache_mode", NULL};
static const char *const k_positional_torch[] = {
    "key", "value", "key_cache", "value_cache", "slot_mapping", NULL};
static const char *const k_kw[] = {
    "compress_lens", "compress_lens", "compress_seq_offsets",
    "compress_seq_offset", "seq_lens", "seq_lens", "cache_mode",
    "=cache_mode", NULL};
static const char *const k_in_kernel[] = {
    "key",           "key_cache",           "slot_mapping", "value",
    "value_cache",   "compress_lens",       "compress_seq_offset",
    "seq_lens",      NULL};
static const char *const k_out[] = {"key_cache", "value_cache", NULL};

/* What torch_npu sets that a call does not: its default cache_mode is
 * PA_NZ where the operator's is Norm (a torch_npu call without the keyword
 * - an msprobe record, an ops-test-kit e2e testcase - ran with PA_NZ), and
 * it always passes scatter_mode None, which the 950 turns into Alibi (or
 * Rope, given compress_seq_offsets) for a 4-D key [B, S, N, D] with
 * compress_lens and seq_lens (docs/scatter_pa_kv_cache.md). */
static const char *const k_framework_torch[] = {"cache_mode", "scatter_mode",
                                                NULL};

static const char *torch_value(const kvg_call_given *g, const char *attr)
{
    if (strcmp(attr, "cache_mode") == 0)
        return "\"PA_NZ\"";
    if (g->rank(g->ctx, "key") != 4 ||
        g->rank(g->ctx, "compress_lens") < 0 ||
        g->rank(g->ctx, "seq_lens") < 0)
        return "\"None\"";
    return g->rank(g->ctx, "compress_seq_offset") >= 0 ? "\"Rope\""
                                                       : "\"Alibi\"";
}

static int case_rank(const void *ctx, const char *name)
{
    const kvg_tensor *t = kvg_case_find(&((const kvg_case *)ctx)->inputs,
                                        name);
    return t != NULL ? t->rank : -1;
}

/* torch_npu passes scatter_mode None (what the 950 makes of it above), no
 * strides or offsets, and always a value */
static kvg_status check_torch(const kvg_case *c,
                              const kvg_binding_call *call, kvg_diag *diag)
{
    const kvg_call_given given = {.rank = case_rank, .ctx = c};
    const char *reached = torch_value(&given, "scatter_mode");
    char mode[32];

    KVG_TRY(kvg_case_get_string(c, c->attrs, "scatter_mode", "None", mode,
                                sizeof mode, diag));
    /* reached is "\"Mode\"": compare its inside */
    if (strlen(reached) != strlen(mode) + 2 ||
        strncmp(reached + 1, mode, strlen(mode)) != 0 ||
        kvg_json_get(c->attrs, "strides") != NULL ||
        kvg_json_get(c->attrs, "offsets") != NULL)
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, "scatter_mode", -1, -1,
            "attrs.scatter_mode \"%s\" (or strides / offsets given): %s "
            "always passes scatter_mode None and no strides or offsets (a "
            "4-D key with compress_lens and seq_lens: Rope or Alibi on the "
            "950)",
            mode, call->api);
    if (kvg_case_find(&c->inputs, "value") == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "value", -1, -1,
                            "a key-only call: %s takes a value and a "
                            "value_cache", call->api);
    return KVG_OK;
}

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu.npu_scatter_pa_kv_cache",
     .names = k_names_torch,
     .tensors = k_in_torch,
     .attrs = k_attrs_torch,
     .positional = k_positional_torch,
     .keywords = k_kw,
     .outputs = k_out,
     .note = "with scatter_mode None and a value (or the 950's Rope / "
             "Alibi of a 4-D key)",
     .check = check_torch,
     .framework_attrs = k_framework_torch,
     .framework_value = torch_value},
    {.kind = KVG_BINDING_ACLNN,
     .api = "aclnnScatterPaKvCache",
     .names = k_names_kernel,
     .tensors = k_in_kernel,
     .outputs = k_out},
};

const kvg_binding kvg_binding_scatter_pa_kv_cache = {
    "scatter_pa_kv_cache", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_NONE};
