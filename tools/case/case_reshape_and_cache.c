/*
 * tools/case/case_reshape_and_cache.c - case adapter for reshape_and_cache.
 * Placeholder until the operator lands.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "case.h"

kvg_status kvg_case_run_reshape_and_cache(const kvg_case *c, kvg_case_set *outputs,
                            kvg_diag *diag)
{
    (void)outputs;
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = KVG_ERR_PARAM_INVALID;
        (void)snprintf(diag->message, sizeof diag->message,
                       "%s: op reshape_and_cache is not implemented yet", c->dir);
    }
    return KVG_ERR_PARAM_INVALID;
}
