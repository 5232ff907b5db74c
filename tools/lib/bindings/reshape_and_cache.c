/*
 * tools/lib/bindings/reshape_and_cache.c - how ReshapeAndCache is called:
 * torch_npu._npu_reshape_and_cache (ATB's defaults only), its key-only
 * _npu_reshape_and_cache_siso and ATB's ReshapeAndCacheOperation.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "fileio.h"

static const char *const k_names_torch[] = {"_npu_reshape_and_cache",
                                            "npu_reshape_and_cache", NULL};
static const char *const k_names_atb[] = {"ReshapeAndCacheOperation",
                                          "ReshapeAndCache", NULL};
static const char *const k_in_torch[] = {"key", "value", "key_cache",
                                         "value_cache", "slot_mapping",
                                         NULL};
static const char *const k_in_atb[] = {"key",          "value",
                                       "key_cache",    "value_cache",
                                       "slot_mapping", "wins",
                                       "seq_len",      "offset_index",
                                       NULL};
/* _npu_reshape_and_cache calls its index slot_indices */
static const char *const k_kw[] = {"slot_indices", "slot_mapping",
                                   "slot_mapping", "slot_mapping", NULL};
/* it returns nothing: the caches it updates */
static const char *const k_out[] = {"key_cache", "value_cache", NULL};
/* _npu_reshape_and_cache_siso(key, key_cache, slot_indices): ATB's
 * K_CACHE_V_BYPASS, key_cache updated in place, returns nothing */
static const char *const k_in_siso[] = {"key", "key_cache", "slot_mapping",
                                        NULL};
static const char *const k_out_siso[] = {"key_cache", NULL};

/* A dump records no mode by kvgold's names: the compress type is ATB's
 * parameter compressType when the dump has it, else what the optional
 * inputs given imply (wins and seq_len: KVHEAD; offset_index too:
 * KVHEAD_ROPE; an ops-test-kit case of the torch_npu form gives them
 * positionally), and the NZ layout is the caches' storage format. */
static const char *const k_framework[] = {"compress_type", "cache_layout",
                                          NULL};

static const char *dump_value(const kvg_call_given *g, const char *attr)
{
    static const char *const k_compress[] = {"\"UNDEFINED\"", "\"KVHEAD\"",
                                             "\"KVHEAD_ROPE\""};
    const char *p = kvg_given_param(g, "compressType");
    int v = -1;

    if (strcmp(attr, "cache_layout") == 0)
        return kvg_given_nz(g, "key_cache") ? "\"NZ\"" : NULL;
    if (p == NULL)
        return k_compress[g->rank(g->ctx, "offset_index") >= 0 ? 2
                          : g->rank(g->ctx, "wins") >= 0       ? 1
                                                               : 0];
    if (sscanf(p, "%d", &v) == 1 && v >= 0 && v <= 2)
        return k_compress[v];
    /* the operator refuses it, this text in its message */
    return "\"(ATB's compressType is not 0, 1 or 2)\"";
}

/* torch_npu._npu_reshape_and_cache takes no parameters: ATB's defaults
 * only */
static kvg_status check_torch(const kvg_case *c,
                              const kvg_binding_call *call, kvg_diag *diag)
{
    static const char *const keys[] = {"compress_type", "cache_layout"};
    static const char *const dflt[] = {"UNDEFINED", "ND"};
    char mode[32];
    int i;

    for (i = 0; i < 2; i++) {
        KVG_TRY(kvg_case_get_string(c, c->attrs, keys[i], dflt[i], mode,
                                    sizeof mode, diag));
        if (strcmp(mode, dflt[i]) != 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, keys[i], -1, -1,
                                "attrs.%s is \"%s\"; %s has only \"%s\"",
                                keys[i], mode, call->api, dflt[i]);
    }
    return KVG_OK;
}

static const kvg_binding_call k_calls[] = {
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu._npu_reshape_and_cache",
     .names = k_names_torch,
     .tensors = k_in_torch,
     .positional = k_in_atb,
     .keywords = k_kw,
     .outputs = k_out,
     .note = "with its default parameters",
     .check = check_torch,
     .framework_attrs = k_framework,
     .framework_value = dump_value},
    /* after the form above, which `kvgold prepare` picks for every case
     * (no selector tells a key-only case apart); no other dump spelling,
     * so scan maps msprobe records by the form above as before */
    {.kind = KVG_BINDING_TORCH_NPU,
     .api = "torch_npu._npu_reshape_and_cache_siso",
     .tensors = k_in_siso,
     .keywords = k_kw,
     .outputs = k_out_siso,
     .note = "key only: not written by prepare, which takes the API above"},
    {.kind = KVG_BINDING_ATB,
     .api = "ReshapeAndCacheOperation",
     .names = k_names_atb,
     .tensors = k_in_atb,
     .outputs = k_out,
     .framework_attrs = k_framework,
     .framework_value = dump_value},
};

const kvg_binding kvg_binding_reshape_and_cache = {
    "reshape_and_cache", k_calls, sizeof k_calls / sizeof k_calls[0],
    KVG_BIN_SHAPES_PAGED};
