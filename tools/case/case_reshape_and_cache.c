/*
 * tools/case/case_reshape_and_cache.c - case adapter for reshape_and_cache
 * (docs/reshape_and_cache.md, "Case files").
 *
 * inputs: key, value, key_cache, value_cache, slot_mapping (required);
 * wins, seq_len (KVHEAD, KVHEAD_ROPE), offset_index (KVHEAD_ROPE) - passed
 * through when present, so the operator refuses a tensor its mode does not
 * take. outputs: key_cache, value_cache.
 * attrs: "compress_type": "UNDEFINED" (default) | "KVHEAD" | "KVHEAD_ROPE";
 *        "cache_layout": "ND" (default) | "NZ". No options.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "kvgold/reshape_and_cache.h"

static const char *const k_inputs[] = {
    "key", "value", "key_cache", "value_cache", "slot_mapping", "wins",
    "seq_len", "offset_index", NULL};
static const char *const k_required[] = {
    "key", "value", "key_cache", "value_cache", "slot_mapping", NULL};
static const char *const k_outputs[] = {"key_cache", "value_cache", NULL};
static const char *const k_attrs[] = {"compress_type", "cache_layout", NULL};
static const char *const k_none[] = {NULL};

static kvg_status bad_attr(const kvg_case *c, const char *key,
                           const char *value, const char *allowed,
                           kvg_diag *diag)
{
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = KVG_ERR_FILE_FORMAT;
        (void)snprintf(diag->tensor, sizeof diag->tensor, "%s", key);
        (void)snprintf(diag->message, sizeof diag->message,
                       "%s/case.json: attrs.%s \"%s\" is not %s", c->dir, key,
                       value, allowed);
    }
    return KVG_ERR_FILE_FORMAT;
}

static kvg_status read_attrs(const kvg_case *c, kvg_reshape_and_cache_args *a,
                             kvg_diag *diag)
{
    char name[32];
    kvg_status st;

    if ((st = kvg_case_check_keys(c, c->attrs, "attrs", k_attrs, diag)) !=
            KVG_OK ||
        (st = kvg_case_check_keys(c, c->options, "options", k_none, diag)) !=
            KVG_OK ||
        (st = kvg_case_get_string(c, c->attrs, "compress_type", "UNDEFINED",
                                  name, sizeof name, diag)) != KVG_OK)
        return st;
    if (!kvg_rac_compress_from_name(name, &a->compress_type))
        return bad_attr(c, "compress_type", name,
                        "UNDEFINED, KVHEAD or KVHEAD_ROPE", diag);
    if ((st = kvg_case_get_string(c, c->attrs, "cache_layout", "ND", name,
                                  sizeof name, diag)) != KVG_OK)
        return st;
    if (strcmp(name, "ND") == 0)
        a->cache_layout = KVG_LAYOUT_ND;
    else if (strcmp(name, "NZ") == 0)
        a->cache_layout = KVG_LAYOUT_NZ;
    else
        return bad_attr(c, "cache_layout", name, "ND or NZ", diag);
    return KVG_OK;
}

kvg_status kvg_case_run_reshape_and_cache(const kvg_case *c,
                                          kvg_case_set *outputs,
                                          kvg_diag *diag)
{
    kvg_reshape_and_cache_args a;
    const kvg_case_set *in = &c->inputs;
    kvg_tensor *kc, *vc;
    size_t bytes = 0;
    kvg_status st;

    kvg_reshape_and_cache_args_init(&a);
    if ((st = read_attrs(c, &a, diag)) != KVG_OK ||
        (st = kvg_case_check_names(c, k_inputs, k_required, k_outputs,
                                   diag)) != KVG_OK)
        return st;
    kc = kvg_case_set_add(outputs, "key_cache", KVG_DTYPE_INVALID, 0, NULL,
                          kvg_case_find(in, "key_cache"), diag);
    vc = kc == NULL ? NULL
                    : kvg_case_set_add(outputs, "value_cache",
                                       KVG_DTYPE_INVALID, 0, NULL,
                                       kvg_case_find(in, "value_cache"), diag);
    if (vc == NULL)
        return diag != NULL ? diag->status : KVG_ERR_NOMEM;
    a.key = kvg_case_find(in, "key");
    a.value = kvg_case_find(in, "value");
    a.key_cache = kc;
    a.value_cache = vc;
    a.slot_mapping = kvg_case_find(in, "slot_mapping");
    a.wins = kvg_case_find(in, "wins");
    a.seq_len = kvg_case_find(in, "seq_len");
    a.offset_index = kvg_case_find(in, "offset_index");
    if ((st = kvg_reshape_and_cache_workspace_size(&a, &bytes, diag)) !=
        KVG_OK)
        return st;
    a.workspace = kvg_case_workspace(bytes);
    a.workspace_size = bytes;
    if (a.workspace == NULL)
        return KVG_ERR_NOMEM;
    st = kvg_reshape_and_cache(&a, diag);
    free(a.workspace);
    return st;
}
