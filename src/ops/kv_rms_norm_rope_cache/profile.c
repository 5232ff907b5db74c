/*
 * src/ops/kv_rms_norm_rope_cache/profile.c - the chip profiles' names
 * (kvg_kv_profile, kvgold/kv_rms_norm_rope_cache.h). A file of their own:
 * the checks (check.c), the entry points (entry.c) and the descriptor all
 * read them, and none of those calls another back.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/kv_rms_norm_rope_cache.h"

static const char *const k_profile_names[] = {"ascend950", "a2a3"};

int kvg_kv_profile_from_name(const char *name, kvg_kv_profile *profile)
{
    int i;
    if (name == NULL)
        return 0;
    for (i = 0; i < 2; i++) {
        if (strcmp(name, k_profile_names[i]) == 0) {
            *profile = (kvg_kv_profile)i;
            return 1;
        }
    }
    return 0;
}

const char *kvg_kv_profile_name(kvg_kv_profile profile)
{
    if ((int)profile < 0 || (int)profile > 1)
        return NULL;
    return k_profile_names[profile];
}
