/*
 * tools/cli/roles.h - what each operator's outputs are, for the comparison:
 * the role that picks the CANN criterion, and the cache layout that turns a
 * flat element index into (block, slot, head, channel).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_ROLES_H
#define KVGOLD_TOOLS_ROLES_H

#include "case.h"
#include "kvgold/compare.h"
#include "kvgold/layout.h"

typedef struct kvg_cli_output_info {
    kvg_compare_role role;
    int has_layout;
    kvg_cache_layout layout;
} kvg_cli_output_info;

/* Describe output `name` (tensor `t`) of case `c`'s operator. */
void kvg_cli_describe_output(const kvg_case *c, const char *name,
                             const kvg_tensor *t, kvg_cli_output_info *info);

/* 1 if the case's operator takes options.reduce_order. */
int kvg_cli_has_reduce_order(const kvg_case *c);

#endif /* KVGOLD_TOOLS_ROLES_H */
