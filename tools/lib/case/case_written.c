/*
 * tools/lib/case/case_written.c - which elements of a case's output or cache
 * the operator writes, as sorted runs, from kvg_op_written_runs
 * (kvgold/op.h): shapes, attributes and index values only, no second run
 * of the operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "membudget.h"

/* The call of the case with its golden outputs in place of the inputs of
 * the same name (caches) and added (outputs). */
static kvg_status build_call(const kvg_case *c, const kvg_case_set *outputs,
                             kvg_case_call *cc, kvg_diag *diag)
{
    kvg_status st = kvg_case_call_build(c, cc, diag);
    int i;
    size_t j;

    for (i = 0; st == KVG_OK && i < outputs->count; i++) {
        const kvg_case_tensor *o = &outputs->items[i];
        for (j = 0; j < cc->call.tensor_count; j++)
            if (strcmp(cc->tensors[j].name, o->name) == 0)
                break;
        if (j == KVG_CASE_MAX_TENSORS)
            continue;
        cc->tensors[j].name = o->name;
        cc->tensors[j].tensor = &o->t;
        if (j == cc->call.tensor_count)
            cc->call.tensor_count++;
    }
    return st;
}

static kvg_status query(const kvg_case_call *cc, const char *name,
                        int *produced, kvg_elem_run **runs, size_t *count,
                        kvg_diag *diag)
{
    size_t need = 0, bytes;
    kvg_status st;

    st = kvg_op_written_runs(&cc->call, name, produced, NULL, 0, &need, diag);
    if (st != KVG_OK || !*produced)
        return st;
    bytes = (need ? need : 1) * sizeof **runs;
    if ((st = kvg_mem_reserve(bytes, "the written runs", diag)) != KVG_OK)
        return st;
    if ((*runs = (kvg_elem_run *)malloc(bytes)) == NULL) {
        kvg_mem_release(bytes);
        return KVG_ERR_NOMEM;
    }
    st = kvg_op_written_runs(&cc->call, name, produced, *runs, need, count,
                             diag);
    /* keep the reservation at what kvg_case_runs_free releases */
    kvg_mem_release(bytes);
    if (st == KVG_OK &&
        kvg_mem_reserve((*count ? *count : 1) * sizeof **runs,
                        "the written runs", diag) == KVG_OK)
        return KVG_OK;
    free(*runs);
    *runs = NULL;
    *count = 0;
    return st != KVG_OK ? st : KVG_ERR_NOMEM;
}

kvg_status kvg_case_written_runs(const kvg_case *c,
                                 const kvg_case_set *outputs,
                                 const char *name, kvg_elem_run **runs,
                                 size_t *count, kvg_diag *diag)
{
    kvg_case_call cc;
    size_t ws = 0;
    int produced = 0;
    kvg_status st;

    *runs = NULL;
    *count = 0;
    if ((st = build_call(c, outputs, &cc, diag)) != KVG_OK ||
        (st = kvg_op_workspace_size(&cc.call, &ws, diag)) != KVG_OK)
        return st;
    cc.call.workspace = kvg_case_workspace(ws);
    cc.call.workspace_size = ws;
    if (cc.call.workspace == NULL)
        return KVG_ERR_NOMEM;
    st = query(&cc, name, &produced, runs, count, diag);
    free(cc.call.workspace);
    return st;
}

void kvg_case_runs_free(kvg_elem_run *runs, size_t count)
{
    if (runs == NULL)
        return;
    free(runs);
    kvg_mem_release((count ? count : 1) * sizeof *runs);
}

/* The golden's gap was just found equal to the initial cache, i.e. to its
 * file: its copy-on-write pages there can go too. */
static void drop_left_behind(void *user, int64_t first, int64_t end)
{
    const kvg_case_views *v = (const kvg_case_views *)user;
    size_t off = (size_t)first * v->esize;
    size_t n = (size_t)(end - first) * v->esize;
    int j;

    if (v->data[0] != NULL)
        kvg_file_map_drop_unchanged(v->map[0], v->data[0] + off, n);
    for (j = 1; j < 4; j++)
        if (v->data[j] != NULL)
            kvg_file_map_drop(v->map[j], v->data[j] + off, n);
}

void kvg_case_views_attach(kvg_case_views *v, kvg_compare_args *a,
                           const kvg_file_map *golden,
                           const kvg_file_map *actual,
                           const kvg_file_map *initial,
                           const kvg_file_map *third_party)
{
    memset(v, 0, sizeof *v);
    v->esize = kvg_dtype_size(a->golden->dtype);
    v->map[0] = golden;
    v->map[1] = actual;
    v->map[2] = initial;
    v->map[3] = a->third_party != NULL ? third_party : NULL;
    v->data[0] = (const unsigned char *)a->golden->data;
    v->data[1] = (const unsigned char *)a->actual->data;
    v->data[2] = a->initial ? (const unsigned char *)a->initial->data : NULL;
    v->data[3] = a->third_party
                     ? (const unsigned char *)a->third_party->data
                     : NULL;
    a->left_behind = drop_left_behind;
    a->left_behind_user = v;
}
