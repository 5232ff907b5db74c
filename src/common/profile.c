/*
 * src/common/profile.c - the chip profiles' names (kvg_profile,
 * kvgold/options.h), one spelling for every operator's `profile` option.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/options.h"

static const char *const k_profile_names[] = {"ascend950", "a2a3"};

int kvg_profile_from_name(const char *name, kvg_profile *profile)
{
    int i;
    if (name == NULL)
        return 0;
    for (i = 0; i < 2; i++) {
        if (strcmp(name, k_profile_names[i]) == 0) {
            *profile = (kvg_profile)i;
            return 1;
        }
    }
    return 0;
}

const char *kvg_profile_name(kvg_profile profile)
{
    if ((int)profile < 0 || (int)profile > 1)
        return NULL;
    return k_profile_names[profile];
}
