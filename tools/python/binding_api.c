/*
 * tools/python/binding_api.c - see binding_api.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "binding_api.h"

#include <string.h>

#include "binding.h"

typedef struct given_list {
    const char *const *names;
    const int *ranks;
    size_t n;
} given_list;

static int listed_rank(const void *ctx, const char *name)
{
    const given_list *g = (const given_list *)ctx;
    size_t i;
    for (i = 0; i < g->n; i++)
        if (g->names[i] != NULL && strcmp(g->names[i], name) == 0)
            return g->ranks[i];
    return -1;
}

KVG_API const char *kvg_py_framework_value(const char *api, const char *attr,
                                           const char *const *names,
                                           const int *ranks, size_t n)
{
    const given_list list = {names, ranks, n};
    const kvg_call_given given = {.rank = listed_rank, .ctx = &list};
    const kvg_binding_call *f =
        attr != NULL ? kvg_binding_call_named(api, NULL) : NULL;

    if (f == NULL || f->framework_value == NULL ||
        !kvg_binding_has(f->framework_attrs, attr) ||
        (n > 0 && (names == NULL || ranks == NULL)))
        return NULL;
    return f->framework_value(&given, attr);
}
