/*
 * src/common/entry.h - the one skeleton every operator's entry points run
 * through, so the four operators refuse the same things in the same order
 * with the same words.
 *
 * kvg_<op>_workspace_size and kvg_<op> (and the descriptors' `written`)
 * differ only in what they do after the shared steps, so an operator hands
 * the skeleton a kvg_i_entry - its argument checks, its tensors, its
 * workspace carving, its checks of tensor contents and its compute - and
 * the skeleton runs, in this order:
 *
 *   1. clear the diag (the entry points only; `written` runs inside
 *      kvg_op_written_runs, which clears it);
 *   2. refuse a NULL result pointer ("bytes: NULL result pointer") and a
 *      NULL argument struct ("args: NULL argument struct"), 161001;
 *   3. the operator's argument checks (`check`: everything that needs no
 *      tensor contents), which fill its plan;
 *   4. the workspace size, measured by the operator's own `carve` (the
 *      size query and the call share the arithmetic, see kvg_i_ws in
 *      internal.h); "workspace: size overflows size_t" (161002) if it does
 *      not fit;
 *   -- the size query stops here --
 *   5. the workspace present and large enough: "workspace: N bytes given
 *      (NULL | non-NULL), M needed" (170001);
 *   6. no written tensor sharing memory with another, the workspace sharing
 *      none with any tensor (kvg_i_check_apart, 161002);
 *   7. the workspace carved, then the operator's checks of tensor contents
 *      (`values`: index ranges and duplicates, inf / NaN);
 *   8. the compute - only now is a byte written.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_COMMON_ENTRY_H
#define KVGOLD_SRC_COMMON_ENTRY_H

#include <stddef.h>

#include "src/common/internal.h"

/* The most tensors an operator hands to kvg_i_check_apart. */
#define KVG_I_ENTRY_MAX_SPANS 20

/*
 * One operator, as the skeleton sees it. `args` is the operator's argument
 * struct (never NULL here), `plan` what `check` derived from it, `pieces`
 * the operator's pointers into the workspace, all typed by the operator.
 */
typedef struct kvg_i_entry {
    /* Where args->workspace (void *) and args->workspace_size (size_t)
     * sit in the argument struct (offsetof). */
    size_t workspace_offset, workspace_size_offset;
    /* Step 3; fills *plan. */
    kvg_status (*check)(const void *args, void *plan, kvg_diag *diag);
    /* The call's tensors into s[0..KVG_I_ENTRY_MAX_SPANS); returns how
     * many (absent ones may be listed with t == NULL). */
    size_t (*spans)(const void *args, const void *plan, kvg_i_span *s);
    /* Take the plan's pieces from ws in one fixed order (kvg_i_ws_take);
     * a measuring ws (kvg_i_ws_measure) only counts them. */
    void (*carve)(const void *plan, kvg_i_ws *ws, void *pieces);
    /* Step 7: the checks that read tensor contents. */
    kvg_status (*values)(const void *args, const void *plan, void *pieces,
                         kvg_diag *diag);
    /* Step 8: write the outputs and caches of a validated call. */
    void (*compute)(const void *args, const void *plan, void *pieces);
} kvg_i_entry;

/* kvg_<op>_workspace_size: steps 1 to 4, then *bytes. */
kvg_status kvg_i_entry_size(const kvg_i_entry *e, const void *args,
                            void *plan, void *pieces, size_t *bytes,
                            kvg_diag *diag);

/* Steps 2 (args only) to 7, the diag left as it is: what the entry point
 * and the descriptor's `written` share, so both refuse alike. */
kvg_status kvg_i_entry_validate(const kvg_i_entry *e, const void *args,
                                void *plan, void *pieces, kvg_diag *diag);

/* kvg_<op>: steps 1 to 8. */
kvg_status kvg_i_entry_call(const kvg_i_entry *e, const void *args,
                            void *plan, void *pieces, kvg_diag *diag);

/*
 * An operator's entry glue, written once, at the end of its entry.c, after
 * its static e_check, e_spans, e_carve, e_values and e_compute (the
 * kvg_i_entry members above, typed by the operator):
 *
 *   KVG_I_ENTRY_POINTS(<op>, kvg_i_<op>_plan, kvg_i_<op>_ws);
 *
 * defines the operator's kvg_i_entry and, over it,
 *   kvg_i_<op>_validate(args, plan, pieces, diag)  (kvg_i_entry_validate:
 *       shared with the descriptor's `written`, so both refuse alike),
 *   kvg_<op>_workspace_size(args, bytes, diag)     (kvg_i_entry_size),
 *   kvg_<op>(args, diag)                           (kvg_i_entry_call).
 * `op` is the registry name, so kvg_<op>_args is the args struct; plan_t
 * and pieces_t are what `check` fills and `carve` takes. The operator's
 * internal.h declares kvg_i_<op>_validate.
 */
#define KVG_I_ENTRY_POINTS(op, plan_t, pieces_t)                             \
    static const kvg_i_entry k_entry = {                                      \
        offsetof(kvg_##op##_args, workspace),                                 \
        offsetof(kvg_##op##_args, workspace_size),                            \
        e_check, e_spans, e_carve, e_values, e_compute};                      \
    kvg_status kvg_i_##op##_validate(const kvg_##op##_args *a, plan_t *plan, \
                                     pieces_t *pieces, kvg_diag *diag)        \
    {                                                                         \
        return kvg_i_entry_validate(&k_entry, a, plan, pieces, diag);         \
    }                                                                         \
    kvg_status kvg_##op##_workspace_size(const kvg_##op##_args *a,            \
                                         size_t *bytes, kvg_diag *diag)       \
    {                                                                         \
        plan_t p;                                                             \
        pieces_t w;                                                           \
        return kvg_i_entry_size(&k_entry, a, &p, &w, bytes, diag);            \
    }                                                                         \
    kvg_status kvg_##op(const kvg_##op##_args *a, kvg_diag *diag)             \
    {                                                                         \
        plan_t p;                                                             \
        pieces_t w;                                                           \
        return kvg_i_entry_call(&k_entry, a, &p, &w, diag);                   \
    }                                                                         \
    typedef int kvg_i_entry_points_##op /* swallows the caller's ';' */

/*
 * The steps an operator writes the house way, generated, for one whose
 * workspace is one key a token (the duplicate-slot check of
 * kvg_i_check_unique), before its e_spans and KVG_I_ENTRY_POINTS:
 *
 *   KVG_I_ENTRY_KEYED_STEPS(<op>);
 *
 * defines e_check (kvg_i_<op>_check_args(args, plan, diag)), e_carve
 * (kvg_i_<op>_ws's `keys`: plan.tokens kvg_i_keypos), e_values
 * (kvg_i_<op>_check_values(args, plan, ws, diag)) and e_compute (the
 * file's static compute(args, plan)). The packed-row operators use it.
 */
#define KVG_I_ENTRY_KEYED_STEPS(op)                                          \
    static kvg_status e_check(const void *a, void *p, kvg_diag *diag)         \
    {                                                                         \
        return kvg_i_##op##_check_args((const kvg_##op##_args *)a,            \
                                       (kvg_i_##op##_plan *)p, diag);         \
    }                                                                         \
    static void e_carve(const void *p, kvg_i_ws *ws, void *w)                 \
    {                                                                         \
        ((kvg_i_##op##_ws *)w)->keys = (kvg_i_keypos *)kvg_i_ws_take(         \
            ws, (size_t)((const kvg_i_##op##_plan *)p)->tokens,               \
            sizeof(kvg_i_keypos));                                            \
    }                                                                         \
    static kvg_status e_values(const void *a, const void *p, void *w,         \
                               kvg_diag *diag)                                \
    {                                                                         \
        return kvg_i_##op##_check_values((const kvg_##op##_args *)a,          \
                                         (const kvg_i_##op##_plan *)p,        \
                                         (const kvg_i_##op##_ws *)w, diag);   \
    }                                                                         \
    static void e_compute(const void *a, const void *p, void *w)              \
    {                                                                         \
        (void)w;                                                              \
        compute((const kvg_##op##_args *)a, (const kvg_i_##op##_plan *)p);    \
    }                                                                         \
    typedef int kvg_i_entry_keyed_steps_##op

#endif /* KVGOLD_SRC_COMMON_ENTRY_H */
