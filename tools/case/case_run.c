/*
 * tools/case/case_run.c - operator dispatch by the case's "op".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "case.h"

typedef struct runner_entry {
    const char *op;
    kvg_case_runner run;
} runner_entry;

static const runner_entry k_runners[] = {
    {"kv_rms_norm_rope_cache", kvg_case_run_kv_rms_norm_rope_cache},
    {"qkv_rms_norm_rope_cache", kvg_case_run_qkv_rms_norm_rope_cache},
    {"reshape_and_cache_omni", kvg_case_run_reshape_and_cache_omni},
    {"reshape_and_cache", kvg_case_run_reshape_and_cache},
};

kvg_case_runner kvg_case_runner_for(const char *op)
{
    size_t i;
    for (i = 0; i < sizeof k_runners / sizeof k_runners[0]; i++)
        if (strcmp(k_runners[i].op, op) == 0)
            return k_runners[i].run;
    return NULL;
}

kvg_status kvg_case_run(const kvg_case *c, kvg_case_set *outputs,
                        kvg_diag *diag)
{
    kvg_case_runner run = kvg_case_runner_for(c->op);
    outputs->count = 0;
    if (run == NULL)
        return KVG_ERR_FILE_FORMAT; /* kvg_case_load already refused it */
    return run(c, outputs, diag);
}
