/*
 * src/layout/cache_mode.c - the cache_mode vocabulary every operator shares
 * (kvgold/layout.h). Which modes an operator accepts is its own check.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/layout.h"

static const char *const k_names[] = {"Norm", "PA_BNSD", "PA_NZ",
                                      "PA_BLK_BNSD", "PA_BLK_NZ"};
#define N_NAMES ((int)(sizeof k_names / sizeof k_names[0]))

int kvg_cache_mode_from_name(const char *name, kvg_cache_mode *mode)
{
    int i;
    if (name == NULL || mode == NULL)
        return 0;
    if (strcmp(name, "PA") == 0) {
        *mode = KVG_CACHE_PA;
        return 1;
    }
    for (i = 0; i < N_NAMES; i++)
        if (strcmp(name, k_names[i]) == 0) {
            *mode = (kvg_cache_mode)i;
            return 1;
        }
    return 0;
}

const char *kvg_cache_mode_name(kvg_cache_mode mode)
{
    if ((int)mode < 0 || (int)mode >= N_NAMES)
        return NULL;
    return k_names[mode];
}
