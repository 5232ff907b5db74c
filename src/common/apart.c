/*
 * src/common/apart.c - the check that a call's buffers do not share memory
 * where the operator writes.
 *
 * Why every operator has it: a cache or output that overlaps another
 * tensor is written while that tensor is still being read (the result
 * depends on the order of the writes), and a workspace that overlaps any
 * tensor is written during validation (the index sort), before the call
 * can still refuse - so the "nothing is lost on error" rule would break.
 * Read-only tensors may share memory with each other (cos and sin in one
 * buffer is harmless).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>

#include "src/common/internal.h"

static int bytes_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an > 0 && bn > 0 && x < y + bn && y < x + an;
}

static kvg_status check_ws_apart(const kvg_i_span *s, size_t n,
                                 const void *ws, size_t ws_size,
                                 kvg_diag *diag)
{
    size_t i;

    for (i = 0; ws != NULL && i < n; i++)
        if (s[i].t != NULL &&
            bytes_overlap(ws, ws_size, s[i].t->data, s[i].t->nbytes))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "workspace",
                                -1, -1,
                                "workspace: overlaps %s's buffer (the "
                                "workspace is written during validation)",
                                s[i].name);
    return KVG_OK;
}

kvg_status kvg_i_check_apart(const kvg_i_span *s, size_t n, const void *ws,
                             size_t ws_size, kvg_diag *diag)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        if (s[i].t == NULL || !s[i].written)
            continue;
        for (j = 0; j < n; j++) {
            if (j == i || s[j].t == NULL ||
                !bytes_overlap(s[i].t->data, s[i].t->nbytes, s[j].t->data,
                               s[j].t->nbytes))
                continue;
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, s[i].name, -1, -1,
                                "%s: its buffer overlaps %s's; caches and "
                                "outputs must not share memory with any other "
                                "tensor", s[i].name, s[j].name);
        }
    }
    return check_ws_apart(s, n, ws, ws_size, diag);
}
