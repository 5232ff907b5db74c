/*
 * tools/case/case_qkv_rms_norm_rope_cache.c - case adapter for qkv_rms_norm_rope_cache.
 * Placeholder until the operator lands.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "case.h"

kvg_status kvg_case_run_qkv_rms_norm_rope_cache(const kvg_case *c, kvg_case_set *outputs,
                            kvg_diag *diag)
{
    (void)outputs;
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = KVG_ERR_PARAM_INVALID;
        (void)snprintf(diag->message, sizeof diag->message,
                       "%s: op qkv_rms_norm_rope_cache is not implemented yet", c->dir);
    }
    return KVG_ERR_PARAM_INVALID;
}
