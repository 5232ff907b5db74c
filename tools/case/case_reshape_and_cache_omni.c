/*
 * tools/case/case_reshape_and_cache_omni.c - case adapter for
 * reshape_and_cache_omni (docs/reshape_and_cache.md, "Case files").
 *
 * inputs (all required): key, value, key_cache, value_cache, slot_mapping,
 * wins, seq_len, offset_index. outputs: key_cache, value_cache (copies of
 * the inputs, updated in place). No attrs and no options: the operator has
 * none, so any key there is an error.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "case.h"
#include "kvgold/reshape_and_cache_omni.h"

static const char *const k_inputs[] = {
    "key", "value", "key_cache", "value_cache", "slot_mapping", "wins",
    "seq_len", "offset_index", NULL};
static const char *const k_outputs[] = {"key_cache", "value_cache", NULL};
static const char *const k_none[] = {NULL};

kvg_status kvg_case_run_reshape_and_cache_omni(const kvg_case *c,
                                               kvg_case_set *outputs,
                                               kvg_diag *diag)
{
    kvg_reshape_and_cache_omni_args a;
    const kvg_case_set *in = &c->inputs;
    kvg_tensor *kc, *vc;
    size_t bytes = 0;
    kvg_status st;

    if ((st = kvg_case_check_keys(c, c->attrs, "attrs", k_none, diag)) !=
            KVG_OK ||
        (st = kvg_case_check_keys(c, c->options, "options", k_none, diag)) !=
            KVG_OK ||
        (st = kvg_case_check_names(c, k_inputs, k_inputs, k_outputs, diag)) !=
            KVG_OK)
        return st;
    kc = kvg_case_set_add(outputs, "key_cache", KVG_DTYPE_INVALID, 0, NULL,
                          kvg_case_find(in, "key_cache"), diag);
    vc = kc == NULL ? NULL
                    : kvg_case_set_add(outputs, "value_cache",
                                       KVG_DTYPE_INVALID, 0, NULL,
                                       kvg_case_find(in, "value_cache"), diag);
    if (vc == NULL)
        return diag != NULL ? diag->status : KVG_ERR_NOMEM;
    kvg_reshape_and_cache_omni_args_init(&a);
    a.key = kvg_case_find(in, "key");
    a.value = kvg_case_find(in, "value");
    a.key_cache = kc;
    a.value_cache = vc;
    a.slot_mapping = kvg_case_find(in, "slot_mapping");
    a.wins = kvg_case_find(in, "wins");
    a.seq_len = kvg_case_find(in, "seq_len");
    a.offset_index = kvg_case_find(in, "offset_index");
    if ((st = kvg_reshape_and_cache_omni_workspace_size(&a, &bytes, diag)) !=
        KVG_OK)
        return st;
    a.workspace = kvg_case_workspace(bytes);
    a.workspace_size = bytes;
    if (a.workspace == NULL)
        return KVG_ERR_NOMEM;
    st = kvg_reshape_and_cache_omni(&a, diag);
    free(a.workspace);
    return st;
}
