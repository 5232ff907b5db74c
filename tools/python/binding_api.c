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

/* Form `i` of operator `op`, or NULL. */
static const kvg_binding_call *form_at(const char *op, size_t i)
{
    const kvg_binding *const *b;

    for (b = kvg_bindings; op != NULL && *b != NULL; b++)
        if (strcmp((*b)->op, op) == 0)
            return i < (*b)->n_calls ? &(*b)->calls[i] : NULL;
    return NULL;
}

KVG_API size_t kvg_py_call_form_count(const char *op)
{
    const kvg_binding *const *b;

    for (b = kvg_bindings; op != NULL && *b != NULL; b++)
        if (strcmp((*b)->op, op) == 0)
            return (*b)->n_calls;
    return 0;
}

static const char *kind_name(kvg_binding_kind kind)
{
    switch (kind) {
    case KVG_BINDING_TORCH_NPU:
        return "torch_npu";
    case KVG_BINDING_ACLNN:
        return "aclnn";
    case KVG_BINDING_ATB:
        return "atb";
    }
    return NULL;
}

KVG_API const char *kvg_py_call_form_text(const char *op, size_t i,
                                          const char *field)
{
    const kvg_binding_call *f = form_at(op, i);

    if (f == NULL || field == NULL)
        return NULL;
    if (strcmp(field, "kind") == 0)
        return kind_name(f->kind);
    if (strcmp(field, "api") == 0)
        return f->api;
    if (strcmp(field, "selector") == 0)
        return f->selector;
    if (strcmp(field, "note") == 0)
        return f->note;
    return NULL;
}

KVG_API const char *const *kvg_py_call_form_list(const char *op, size_t i,
                                                 const char *field)
{
    const kvg_binding_call *f = form_at(op, i);

    if (f == NULL || field == NULL)
        return NULL;
    if (strcmp(field, "names") == 0)
        return f->names;
    if (strcmp(field, "tensors") == 0)
        return f->tensors;
    if (strcmp(field, "attrs") == 0)
        return f->attrs;
    if (strcmp(field, "positional") == 0)
        return f->positional;
    if (strcmp(field, "keywords") == 0)
        return f->keywords;
    if (strcmp(field, "outputs") == 0)
        return f->outputs;
    if (strcmp(field, "framework_attrs") == 0)
        return f->framework_attrs;
    if (strcmp(field, "values") == 0)
        return f->values;
    return NULL;
}
