/*
 * src/ops/dynamic_block_quant/profile.c - the profile names of
 * kvg_dynamic_block_quant_profile: the spelling the `profile` option has for
 * every operator ("ascend950", "a2a3").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/dynamic_block_quant.h"

int kvg_dynamic_block_quant_profile_from_name(
    const char *name, kvg_dynamic_block_quant_profile *profile)
{
    if (name == NULL)
        return 0;
    if (strcmp(name, "ascend950") == 0)
        *profile = KVG_DYNAMIC_BLOCK_QUANT_ASCEND950;
    else if (strcmp(name, "a2a3") == 0)
        *profile = KVG_DYNAMIC_BLOCK_QUANT_A2A3;
    else
        return 0;
    return 1;
}
