/*
 * src/registry/row_hooks.c - the descriptor hooks of the operators that
 * write packed rows: the row_layout hook's generic part and their
 * written runs (row_hooks.h).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/registry/row_hooks.h"

#include <string.h>

#include "src/common/dtype_size.h"

kvg_status kvg_i_row_layout_hook(const void *args, const char *output,
                                 const char *const tensors[],
                                 kvg_i_layout_of_fn layout_of,
                                 kvg_row_layout *out, kvg_diag *diag)
{
    int i;

    if (args == NULL || out == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "args", -1, -1,
                            "args: NULL argument struct or result");
    memset(out, 0, sizeof *out);
    for (i = 0; output != NULL && tensors[i] != NULL; i++)
        if (strcmp(output, tensors[i]) == 0) {
            KVG_TRY(layout_of((const kvg_i_op_args *)args, out, diag));
            /* a named tensor this call's layout has not (an optional
             * cache the call goes without): none for it */
            if (kvg_row_tensor_of(out, output) < 0)
                memset(out, 0, sizeof *out);
            return KVG_OK;
        }
    return KVG_OK; /* segments 0: no row layout (the hook's "none") */
}

typedef struct row_runs {
    const kvg_row_layout *l;
    const kvg_i_packed_tokens *k;
    int tensor;           /* of the layout */
    int64_t esize;        /* bytes an element of that tensor */
    kvg_i_run_sink *sink; /* set by each enumeration */
} row_runs;

/* Byte runs to element runs (segments start and end on elements). */
static void put(void *ctx, int64_t first, int64_t bytes)
{
    const row_runs *c = (const row_runs *)ctx;

    kvg_i_sink_put(c->sink, first / c->esize, bytes / c->esize);
}

static void enumerate(const void *ctx, kvg_i_run_sink *s)
{
    row_runs c = *(const row_runs *)ctx;

    c.sink = s;
    kvg_i_packed_row_token_runs(c.l, c.k, c.tensor, put, &c);
}

kvg_status kvg_i_row_written(const kvg_i_written *w, const kvg_row_layout *l,
                             const kvg_i_packed_tokens *k, kvg_diag *diag)
{
    row_runs runs;

    runs.l = l;
    runs.k = k;
    runs.sink = NULL;
    runs.tensor = kvg_row_tensor_of(l, w->name);
    if (runs.tensor < 0 && w->tensor == NULL)
        return kvg_i_written_none(w); /* an optional cache not given */
    if (runs.tensor < 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, w->name, -1, -1,
                            "%s: not a tensor of the row layout %s "
                            "(operator bug)", w->name,
                            l->name != NULL ? l->name : "(unnamed)");
    /* the tensor is given (validation requires it; collect says so
     * otherwise) and of a dtype with a size */
    runs.esize = w->tensor != NULL && kvg_i_dtype_size(w->tensor->dtype) > 0
                     ? (int64_t)kvg_i_dtype_size(w->tensor->dtype)
                     : 1;
    return kvg_i_written_collect(w, enumerate, &runs, diag);
}
