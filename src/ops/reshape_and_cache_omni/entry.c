/*
 * src/ops/reshape_and_cache_omni/entry.c - ReshapeAndCacheOmni: the per-head
 * run engine (src/ops/reshape_and_cache_omni/head_runs.c) in its OMNI kind, which is the
 * KVHEAD_ROPE kernel without the compensation token.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/reshape_and_cache_omni.h"

#include <string.h>

#include "src/common/internal.h"
#include "src/ops/reshape_and_cache_omni/head_runs.h"
#include "src/ops/reshape_and_cache_omni/internal.h"

void kvg_reshape_and_cache_omni_args_init(kvg_reshape_and_cache_omni_args *args)
{
    if (args != NULL)
        memset(args, 0, sizeof *args);
}

kvg_status kvg_i_omni_runs(const kvg_reshape_and_cache_omni_args *args,
                           kvg_i_runs *r, kvg_diag *diag)
{
    if (args == NULL)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, "args", -1, -1,
                          "args: NULL argument struct");
    memset(r, 0, sizeof *r);
    r->kind = KVG_I_RUN_OMNI;
    r->key = args->key;
    r->value = args->value;
    r->key_cache = args->key_cache;
    r->value_cache = args->value_cache;
    r->slot_mapping = args->slot_mapping;
    r->wins = args->wins;
    r->seq_len = args->seq_len;
    r->offset_index = args->offset_index;
    return kvg_i_runs_check_shapes(r, diag);
}

kvg_status kvg_reshape_and_cache_omni_workspace_size(
    const kvg_reshape_and_cache_omni_args *args, size_t *bytes,
    kvg_diag *diag)
{
    kvg_i_runs r;
    kvg_status st;

    kvg_diag_clear(diag);
    if (bytes == NULL)
        return kvg_i_fail(diag, KVG_ERR_PARAM_NULLPTR, "bytes", -1, -1,
                          "bytes: NULL result pointer");
    if ((st = kvg_i_omni_runs(args, &r, diag)) != KVG_OK)
        return st;
    *bytes = kvg_i_runs_workspace_bytes(&r);
    if (*bytes == 0)
        return kvg_i_fail(diag, KVG_ERR_PARAM_INVALID, "workspace", -1, -1,
                          "workspace: size overflows size_t");
    return KVG_OK;
}

kvg_status kvg_reshape_and_cache_omni(
    const kvg_reshape_and_cache_omni_args *args, kvg_diag *diag)
{
    kvg_i_runs r;
    kvg_status st;

    kvg_diag_clear(diag);
    if ((st = kvg_i_omni_runs(args, &r, diag)) != KVG_OK)
        return st;
    return kvg_i_runs_execute(&r, args->workspace, args->workspace_size, diag);
}
