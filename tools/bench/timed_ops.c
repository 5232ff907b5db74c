/*
 * tools/bench/timed_ops.c - the timing shim the benchmark hands to the case
 * adapter instead of kvg_op_run (see bench.h). It names what the operator
 * writes and reads, from its tensor table, then hands the typed call to
 * kvgb_measure.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "timed_ops.h"

#include <string.h>

#include "bench.h"
#include "kvgold/op.h"

/* As many tensors as a case holds (tools/lib/case/case.h). */
#define MAX_TENSORS 32

/* The typed call, prepared once (no name lookups in the loop). */
static kvg_status call_typed(const void *p, kvg_diag *d)
{
    return kvg_op_run_prepared((const kvg_op_prepared *)p, d);
}

/* An op only moves bytes when every tensor it writes is judged as a copy
 * (a copy mode that averages a window, KVHEAD_ROPE, is not a copy). */
static int copies_only(const kvg_op_call *call)
{
    size_t i;
    for (i = 0; i < call->tensor_count; i++) {
        const kvg_op_tensor_info *e =
            kvg_op_tensor_find(call->op, call->tensors[i].name);
        kvg_compare_role role = KVG_ROLE_DEFAULT;
        kvg_cache_layout layout;
        int has_layout = 0;
        if (e == NULL || e->kind == KVG_OP_INPUT)
            continue;
        if (kvg_op_describe_output(call, e->name,
                                   call->tensors[i].tensor, &role,
                                   &has_layout, &layout, NULL) != KVG_OK ||
            role != KVG_ROLE_COPY)
            return 0;
    }
    return 1;
}

/* Written: caches and outputs. Read: a computing op reads every input in
 * full; a copying op the index tensors (int32 / int64), the data it copies
 * (srcs) being counted through the written bytes. */
static void split_tensors(const kvg_op_call *call, int copy_only,
                          const kvg_tensor **outs, int *n_outs,
                          const kvg_tensor **ins, int *n_ins,
                          const kvg_tensor **srcs, int *n_srcs)
{
    size_t i;
    *n_outs = *n_ins = *n_srcs = 0;
    for (i = 0; i < call->tensor_count; i++) {
        const kvg_op_tensor_info *e =
            kvg_op_tensor_find(call->op, call->tensors[i].name);
        const kvg_tensor *t = call->tensors[i].tensor;
        if (e == NULL || t == NULL)
            continue;
        if (e->kind != KVG_OP_INPUT)
            outs[(*n_outs)++] = t;
        else if (!copy_only || t->dtype == KVG_INT32 || t->dtype == KVG_INT64)
            ins[(*n_ins)++] = t;
        else
            srcs[(*n_srcs)++] = t;
    }
}

kvg_status kvgb_timed_op(const kvg_op_call *call, kvg_diag *diag)
{
    const kvg_tensor *outs[MAX_TENSORS], *ins[MAX_TENSORS];
    const kvg_tensor *srcs[MAX_TENSORS];
    kvg_op_prepared t;
    int n_outs, n_ins, n_srcs, copy_only;
    kvg_status st;

    if (call->tensor_count > MAX_TENSORS)
        return kvg_op_run(call, diag);
    if ((st = kvg_op_prepare(call, &t, diag)) != KVG_OK)
        return st;
    copy_only = copies_only(call);
    split_tensors(call, copy_only, outs, &n_outs, ins, &n_ins, srcs,
                  &n_srcs);
    return kvgb_measure(call_typed, &t, outs, n_outs, ins, n_ins, srcs,
                        n_srcs, copy_only, diag);
}
