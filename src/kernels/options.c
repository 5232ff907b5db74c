/*
 * src/kernels/options.c - names of the arithmetic options.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/options.h"

static const char *const k_reduce_names[] = {"pairwise", "sequential",
                                             "double", "a2", "npu950"};
#define KVG_I_REDUCE_COUNT \
    ((int)(sizeof k_reduce_names / sizeof k_reduce_names[0]))

const char *kvg_reduce_order_name(kvg_reduce_order order)
{
    if ((int)order < 0 || (int)order >= KVG_I_REDUCE_COUNT)
        return NULL;
    return k_reduce_names[order];
}

int kvg_reduce_order_from_name(const char *name, kvg_reduce_order *order)
{
    int i;
    if (name == NULL)
        return 0;
    for (i = 0; i < KVG_I_REDUCE_COUNT; i++) {
        if (strcmp(name, k_reduce_names[i]) == 0) {
            *order = (kvg_reduce_order)i;
            return 1;
        }
    }
    return 0;
}
