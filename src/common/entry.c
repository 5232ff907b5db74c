/*
 * src/common/entry.c - the entry skeleton shared by the four operators
 * (src/common/entry.h says which steps, in which order, and why).
 *
 * Every message below is the only one of its kind in the library: an
 * operator that needs to refuse a NULL pointer or a workspace refuses it
 * here.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/entry.h"

#include <string.h>

static kvg_status refuse_null_args(const void *args, kvg_diag *diag)
{
    if (args == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "args", -1, -1,
                            "args: NULL argument struct");
    return KVG_OK;
}

/* The workspace the plan needs, measured by the operator's own carving. */
static kvg_status measure(const kvg_i_entry *e, const void *plan,
                          void *pieces, size_t *need, kvg_diag *diag)
{
    kvg_i_ws ws;

    kvg_i_ws_measure(&ws);
    e->carve(plan, &ws, pieces);
    *need = kvg_i_ws_used(&ws);
    if (*need == 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "workspace", -1, -1,
                            "workspace: size overflows size_t");
    return KVG_OK;
}

static kvg_status check_workspace(const void *base, size_t size, size_t need,
                                  kvg_diag *diag)
{
    if (base == NULL || size < need)
        return kvg_diag_set(diag, KVG_ERR_WORKSPACE, "workspace", -1, -1,
                            "workspace: %llu bytes given (%s), %llu needed",
                            (unsigned long long)size,
                            base == NULL ? "NULL" : "non-NULL",
                            (unsigned long long)need);
    return KVG_OK;
}

static kvg_status carve(const kvg_i_entry *e, const void *plan, void *base,
                        size_t size, void *pieces, kvg_diag *diag)
{
    kvg_i_ws ws;

    kvg_i_ws_init(&ws, base, size);
    e->carve(plan, &ws, pieces);
    /* unreachable after check_workspace: the size was measured by the
     * same carving */
    if (kvg_i_ws_used(&ws) == 0)
        return kvg_diag_set(diag, KVG_ERR_WORKSPACE, "workspace", -1, -1,
                            "workspace: could not be carved");
    return KVG_OK;
}

kvg_status kvg_i_entry_size(const kvg_i_entry *e, const void *args,
                            void *plan, void *pieces, size_t *bytes,
                            kvg_diag *diag)
{
    size_t need;

    kvg_diag_clear(diag);
    if (bytes == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "bytes", -1, -1,
                            "bytes: NULL result pointer");
    KVG_TRY(refuse_null_args(args, diag));
    KVG_TRY(e->check(args, plan, diag));
    KVG_TRY(measure(e, plan, pieces, &need, diag));
    *bytes = need;
    return KVG_OK;
}

kvg_status kvg_i_entry_validate(const kvg_i_entry *e, const void *args,
                                void *plan, void *pieces, kvg_diag *diag)
{
    kvg_i_span spans[KVG_I_ENTRY_MAX_SPANS];
    size_t need, size, n;
    void *base;

    KVG_TRY(refuse_null_args(args, diag));
    KVG_TRY(e->check(args, plan, diag));
    KVG_TRY(measure(e, plan, pieces, &need, diag));
    memcpy(&base, (const char *)args + e->workspace_offset, sizeof base);
    memcpy(&size, (const char *)args + e->workspace_size_offset,
           sizeof size);
    KVG_TRY(check_workspace(base, size, need, diag));
    n = e->spans(args, plan, spans);
    KVG_TRY(kvg_i_check_apart(spans, n, base, need, diag));
    KVG_TRY(carve(e, plan, base, size, pieces, diag));
    return e->values(args, plan, pieces, diag);
}

kvg_status kvg_i_entry_call(const kvg_i_entry *e, const void *args,
                            void *plan, void *pieces, kvg_diag *diag)
{
    kvg_diag_clear(diag);
    KVG_TRY(kvg_i_entry_validate(e, args, plan, pieces, diag));
    /* Validation is complete: from here on every byte written is final. */
    e->compute(args, plan, pieces);
    return KVG_OK;
}
