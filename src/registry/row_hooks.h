/*
 * src/registry/row_hooks.h - the descriptor hooks of an operator that
 * writes packed rows (kvgold/row_layout.h through src/engines/
 * packed_row.h), written once: `row_layout` (kvg_op_row_layout: the
 * call's checked layout, for compare, scan and explain-layout),
 * `written` (kvg_op_written_runs: the runs its tokens' rows cover) and
 * `describe` (kvg_op_describe_output: the comparison role).
 *
 * In src/ops/<op>/descriptor.c, before KVG_I_OP_DEFINE:
 *
 *   KVG_I_OP_ROW_HOOKS(<op>, <policy>, "<tensor>"[, "<tensor>"]);
 *   KVG_I_OP_DEFINE(<op>, ..., .row_layout = kvg_i_<op>_row_layout);
 *
 * What the operator must have (the house names, as KVG_I_ENTRY_POINTS):
 *   - kvg_i_<op>_plan with `layout` (its kvg_row_layout over the tensors
 *     named), `tokens` and `slots` (slot_mapping's entries, the cache's
 *     slots); kvg_i_<op>_ws;
 *   - kvg_i_<op>_check_args(args, &plan, diag): every check that reads
 *     no tensor contents, filling plan.layout;
 *   - kvg_i_<op>_validate(args, &plan, &ws, diag): the entry point's
 *     validation (KVG_I_ENTRY_POINTS defines it);
 *   - a `slot_mapping` tensor in its args (token t's slot).
 * <policy> is the kvg_i_slot_policy of its writes, an expression over
 * `p` (a const pointer to the plan): `p->policy`, or a constant.
 * The "<tensor>" names are the tensors of the layout (its tensor_name).
 *
 * It defines:
 *   - describe: every output and cache takes the role KVG_ROLE_QUANT
 *     (kvg_op_describe_output): the payload's, a quantisation result
 *     judged by its dtype's rule under the standard (code distance for
 *     fp8 / hif8), while compare judges scales, pass-through, pad and
 *     untouched bytes bit for bit through the layout whatever the role;
 *   - kvg_i_<op>_row_layout: for a named tensor, the layout of
 *     kvg_i_<op>_check_args (has_sink from the slot values when the
 *     policy clamps rows to a sink: kvg_i_packed_row_sink_raced); for any
 *     other name, and a named tensor that layout has not (an optional
 *     cache the call goes without), KVG_OK and an all-zero layout (the
 *     hook's "none"); NULL args or result: 161001;
 *   - written: kvg_i_<op>_validate, then kvg_i_row_written over the
 *     plan's layout and tokens: exactly what kvg_i_packed_row_write_tokens
 *     writes (the compute step must write through it under the same
 *     policy); an optional cache not given and not in the layout: none.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_REGISTRY_ROW_HOOKS_H
#define KVGOLD_SRC_REGISTRY_ROW_HOOKS_H

#include "kvgold/row_layout.h"
#include "src/engines/packed_row.h"
#include "src/registry/op_desc.h"

/* The operator's part of the row_layout hook: its layout of this call
 * (a: the call's filled kvg_i_op_args, never NULL), or its refusal. */
typedef kvg_status (*kvg_i_layout_of_fn)(const kvg_i_op_args *a,
                                         kvg_row_layout *out,
                                         kvg_diag *diag);

/* The row_layout hook: NULL args or out refused (161001); out zeroed;
 * `output` one of `tensors` (NULL-terminated): layout_of(args, out),
 * else KVG_OK with the zeroed layout ("none"). */
kvg_status kvg_i_row_layout_hook(const void *args, const char *output,
                                 const char *const tensors[],
                                 kvg_i_layout_of_fn layout_of,
                                 kvg_row_layout *out, kvg_diag *diag);

/* What a validated call writes into w->name: the runs of `k`'s tokens in
 * that tensor of layout l (kvg_i_packed_row_token_runs), as element runs
 * of the tensor's dtype, through kvg_i_written_collect. A name that is
 * not one of the layout's tensors: nothing written when the tensor is not
 * given (an optional cache), else refused (an operator bug). */
kvg_status kvg_i_row_written(const kvg_i_written *w, const kvg_row_layout *l,
                             const kvg_i_packed_tokens *k, kvg_diag *diag);

#define KVG_I_OP_ROW_HOOKS(op, slot_rule, ...)                               \
    static void describe(const kvg_i_op_args *a, const char *name,            \
                         const kvg_tensor *t, kvg_compare_role *role,         \
                         int *has_layout, kvg_cache_layout *layout)           \
    {                                                                         \
        (void)a;                                                              \
        (void)name;                                                           \
        (void)t;                                                              \
        (void)has_layout;                                                     \
        (void)layout;                                                         \
        *role = KVG_ROLE_QUANT;                                               \
    }                                                                         \
    static kvg_status written(const kvg_i_op_args *a,                         \
                              const kvg_i_written *w, kvg_diag *diag)         \
    {                                                                         \
        KVG_I_LOAD(kvg_##op##_args, a, k);                                    \
        kvg_i_##op##_plan p_;                                                 \
        const kvg_i_##op##_plan *const p = &p_;                               \
        kvg_i_##op##_ws ws_;                                                  \
        KVG_TRY(kvg_i_##op##_validate(k, &p_, &ws_, diag));                   \
        {                                                                     \
            const kvg_i_packed_tokens t_ = {k->slot_mapping, p->tokens,       \
                                            p->slots, (slot_rule)};           \
            return kvg_i_row_written(w, &p->layout, &t_, diag);               \
        }                                                                     \
    }                                                                         \
    static kvg_status layout_of(const kvg_i_op_args *a, kvg_row_layout *out, \
                                kvg_diag *diag)                               \
    {                                                                         \
        KVG_I_LOAD(kvg_##op##_args, a, k);                                    \
        kvg_i_##op##_plan p_;                                                 \
        const kvg_i_##op##_plan *const p = &p_;                               \
        KVG_TRY(kvg_i_##op##_check_args(k, &p_, diag));                       \
        {                                                                     \
            const kvg_i_packed_tokens t_ = {k->slot_mapping, p->tokens,       \
                                            p->slots, (slot_rule)};           \
            *out = p->layout;                                                 \
            out->has_sink |= kvg_i_packed_row_sink_raced(&t_);                \
            return KVG_OK;                                                    \
        }                                                                     \
    }                                                                         \
    kvg_status kvg_i_##op##_row_layout(const void *args, const char *output, \
                                       kvg_row_layout *out, kvg_diag *diag); \
    kvg_status kvg_i_##op##_row_layout(const void *args, const char *output, \
                                       kvg_row_layout *out, kvg_diag *diag)  \
    {                                                                         \
        static const char *const tensors_[] = {__VA_ARGS__, NULL};            \
        return kvg_i_row_layout_hook(args, output, tensors_, layout_of, out,  \
                                     diag);                                   \
    }                                                                         \
    typedef int kvg_i_row_hooks_##op

#endif /* KVGOLD_SRC_REGISTRY_ROW_HOOKS_H */
