/*
 * tools/lib/bindings/binding.c - look-ups over the generated binding table.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "binding.h"

int kvg_binding_has(const char *const *list, const char *name)
{
    if (list == NULL)
        return 0;
    for (; *list != NULL; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

kvg_status kvg_binding_attr_fixed(const kvg_case *c,
                                  const kvg_binding_call *call,
                                  const char *attr, double want,
                                  kvg_diag *diag)
{
    double v = want;

    KVG_TRY(kvg_case_get_double(c, c->attrs, attr, want, &v, diag));
    if (v != want)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr, -1, -1,
                            "attrs.%s is %g; %s has no such argument (it "
                            "is %g there)", attr, v, call->api, want);
    return KVG_OK;
}

/* Whether case c has what `selector` names: an input, or (the form
 * "attr=value") attribute attr given as the string value - one operator
 * whose implementations share its tensors tells its call forms apart by
 * an attribute. A case without the attribute matches no such selector:
 * the form for its default comes last, without one. */
static int selected(const kvg_case *c, const char *selector)
{
    const char *eq = strchr(selector, '=');
    char name[64], value[64];
    kvg_diag diag;

    if (eq == NULL)
        return kvg_case_find(&c->inputs, selector) != NULL;
    if ((size_t)(eq - selector) >= sizeof name)
        return 0;
    memcpy(name, selector, (size_t)(eq - selector));
    name[eq - selector] = '\0';
    if (kvg_case_get_string(c, c->attrs, name, "", value, sizeof value,
                            &diag) != KVG_OK)
        return 0;
    return strcmp(value, eq + 1) == 0;
}

const kvg_binding_call *kvg_binding_find(const kvg_case *c,
                                         kvg_binding_kind kind)
{
    const kvg_binding *const *b;
    size_t i;

    for (b = kvg_bindings; *b != NULL; b++) {
        if (strcmp((*b)->op, c->op) != 0)
            continue;
        for (i = 0; i < (*b)->n_calls; i++) {
            const kvg_binding_call *call = &(*b)->calls[i];
            if (call->kind == kind &&
                (call->selector == NULL || selected(c, call->selector)))
                return call;
        }
    }
    return NULL;
}

const kvg_binding_call *kvg_binding_call_named(const char *api,
                                               const kvg_binding **owner)
{
    const kvg_binding *const *b;
    size_t i;

    for (b = kvg_bindings; api != NULL && api[0] != '\0' && *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++)
            if ((*b)->calls[i].api != NULL &&
                strcmp((*b)->calls[i].api, api) == 0) {
                if (owner != NULL)
                    *owner = *b;
                return &(*b)->calls[i];
            }
    return NULL;
}

/* The triple of call->values whose attribute is `attr` and whose member
 * `side` (1: case.json, 2: the framework's) is `json`: its other member. */
static const char *spelling(const kvg_binding_call *call, const char *attr,
                            const char *json, int side)
{
    const char *const *v;

    for (v = call != NULL ? call->values : NULL;
         v != NULL && v[0] != NULL && v[1] != NULL && v[2] != NULL; v += 3)
        if (strcmp(v[0], attr) == 0 && strcmp(v[side], json) == 0)
            return v[3 - side];
    return NULL;
}

const char *kvg_binding_to_framework(const kvg_binding_call *call,
                                     const char *attr, const char *json)
{
    return spelling(call, attr, json, 1);
}

const char *kvg_binding_from_framework(const kvg_binding_call *call,
                                       const char *attr, const char *json)
{
    return spelling(call, attr, json, 2);
}

const char *kvg_given_param(const kvg_call_given *g, const char *name)
{
    return g->param != NULL ? g->param(g->ctx, name) : NULL;
}

int kvg_given_nz(const kvg_call_given *g, const char *name)
{
    return g->nz != NULL && g->nz(g->ctx, name);
}

kvg_dtype kvg_given_out_dtype(const kvg_call_given *g, const char *name)
{
    return g->out_dtype != NULL ? g->out_dtype(g->ctx, name)
                                : KVG_DTYPE_INVALID;
}
