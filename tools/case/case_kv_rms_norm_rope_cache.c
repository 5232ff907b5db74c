/*
 * tools/case/case_kv_rms_norm_rope_cache.c - case adapter for
 * kv_rms_norm_rope_cache (docs/kv_rms_norm_rope_cache.md, "Case format").
 *
 *   attrs    epsilon (number, 1e-5), cache_mode (string, "Norm"),
 *            is_output_kv (bool, false)
 *   options  profile ("ascend950" | "a2a3"), reduce_order (kvgold/options.h
 *            names, "pairwise"), quant_overflow ("saturate" | "nonsat")
 *   inputs   kv gamma cos sin index k_cache ckv_cache (required);
 *            k_rope_scale c_kv_scale k_rope_offset c_kv_offset (optional)
 *   outputs  k_cache ckv_cache (the inputs, updated); k_rope c_kv when
 *            is_output_kv
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

#include "kvgold/kv_rms_norm_rope_cache.h"

static const char *const k_attrs[] = {"epsilon", "cache_mode", "is_output_kv",
                                      NULL};
static const char *const k_options[] = {"profile", "reduce_order",
                                        "quant_overflow", NULL};
static const char *const k_inputs[] = {
    "kv",           "gamma",      "cos",           "sin",
    "index",        "k_cache",    "ckv_cache",     "k_rope_scale",
    "c_kv_scale",   "k_rope_offset", "c_kv_offset", NULL};
static const char *const k_required[] = {"kv",    "gamma",   "cos",
                                         "sin",   "index",   "k_cache",
                                         "ckv_cache", NULL};
static const char *const k_outputs[] = {"k_cache", "ckv_cache", "k_rope",
                                        "c_kv", NULL};

static kvg_status fail(kvg_diag *diag, kvg_status st, const char *field,
                       const char *fmt, const char *a, const char *b)
{
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = st;
        strncpy(diag->tensor, field, sizeof diag->tensor - 1);
        (void)snprintf(diag->message, sizeof diag->message, fmt, a, b);
    }
    return st;
}

static kvg_status read_attrs(const kvg_case *c,
                             kvg_kv_rms_norm_rope_cache_args *a,
                             kvg_diag *diag)
{
    char mode[32], profile[32], order[32], ovf[32];
    kvg_reduce_order ro = KVG_REDUCE_PAIRWISE;
    kvg_status st;

    if ((st = kvg_case_check_keys(c, c->attrs, "attrs", k_attrs, diag)) ||
        (st = kvg_case_check_keys(c, c->options, "options", k_options,
                                  diag)) ||
        (st = kvg_case_get_double(c, c->attrs, "epsilon", 1e-5, &a->epsilon,
                                  diag)) ||
        (st = kvg_case_get_bool(c, c->attrs, "is_output_kv", 0,
                                &a->is_output_kv, diag)) ||
        (st = kvg_case_get_string(c, c->attrs, "cache_mode", "Norm", mode,
                                  sizeof mode, diag)) ||
        (st = kvg_case_get_string(c, c->options, "profile", "ascend950",
                                  profile, sizeof profile, diag)) ||
        (st = kvg_case_get_string(c, c->options, "reduce_order", "pairwise",
                                  order, sizeof order, diag)) ||
        (st = kvg_case_get_string(c, c->options, "quant_overflow",
                                  "saturate", ovf, sizeof ovf, diag)))
        return st;
    /* An unknown mode is the op's refusal (161002), not a malformed file:
     * the NPU would silently run it as Norm. */
    if (!kvg_kv_cache_mode_from_name(mode, &a->cache_mode))
        return fail(diag, KVG_ERR_PARAM_INVALID, "cache_mode",
                    "cache_mode: \"%s\" is not Norm, PA, PA_BNSD, PA_NZ, "
                    "PA_BLK_BNSD or PA_BLK_NZ (the NPU would silently run "
                    "it as Norm)%s", mode, "");
    if (!kvg_kv_profile_from_name(profile, &a->profile))
        return fail(diag, KVG_ERR_FILE_FORMAT, "profile",
                    "%s/case.json: options.profile \"%s\" is not ascend950 "
                    "or a2a3", c->dir, profile);
    if (!kvg_reduce_order_from_name(order, &ro))
        return fail(diag, KVG_ERR_FILE_FORMAT, "reduce_order",
                    "%s/case.json: options.reduce_order \"%s\" is not a "
                    "kvgold reduction order", c->dir, order);
    a->reduce_order = ro;
    if (strcmp(ovf, "saturate") == 0)
        a->quant_overflow = KVG_OVF_SATURATE;
    else if (strcmp(ovf, "nonsat") == 0)
        a->quant_overflow = KVG_OVF_NONSAT;
    else
        return fail(diag, KVG_ERR_FILE_FORMAT, "quant_overflow",
                    "%s/case.json: options.quant_overflow \"%s\" is not "
                    "saturate or nonsat", c->dir, ovf);
    return KVG_OK;
}

/* An output's shape [Bkv, 1, Skv, d] when the inputs allow computing it;
 * otherwise a one-element stand-in (the op then refuses the inputs). */
static kvg_tensor *add_output(kvg_case_set *out, const char *name,
                              const kvg_tensor *kv, const kvg_tensor *dsrc,
                              int ddim, kvg_diag *diag)
{
    int64_t shape[4] = {1, 1, 1, 1};
    int rank = 1;
    if (kv->rank == 4 && dsrc->rank > ddim && kv->shape[0] > 0 &&
        kv->shape[2] > 0 && dsrc->shape[ddim] > 0) {
        shape[0] = kv->shape[0];
        shape[2] = kv->shape[2];
        shape[3] = dsrc->shape[ddim];
        rank = 4;
    }
    return kvg_case_set_add(out, name, kv->dtype, rank, shape, NULL, diag);
}

kvg_status kvg_case_run_kv_rms_norm_rope_cache(const kvg_case *c,
                                               kvg_case_set *out,
                                               kvg_diag *diag)
{
    kvg_kv_rms_norm_rope_cache_args a;
    const kvg_case_set *in = &c->inputs;
    size_t bytes = 0;
    kvg_status st;

    kvg_kv_rms_norm_rope_cache_args_init(&a);
    if ((st = kvg_case_check_names(c, k_inputs, k_required, k_outputs,
                                   diag)) != KVG_OK ||
        (st = read_attrs(c, &a, diag)) != KVG_OK)
        return st;
    a.kv = kvg_case_find(in, "kv");
    a.gamma = kvg_case_find(in, "gamma");
    a.cos = kvg_case_find(in, "cos");
    a.sin = kvg_case_find(in, "sin");
    a.index = kvg_case_find(in, "index");
    a.k_rope_scale = kvg_case_find(in, "k_rope_scale");
    a.c_kv_scale = kvg_case_find(in, "c_kv_scale");
    a.k_rope_offset = kvg_case_find(in, "k_rope_offset");
    a.c_kv_offset = kvg_case_find(in, "c_kv_offset");
    /* the caches are updated in place: run on copies, report the copies */
    if ((a.k_cache = kvg_case_set_add(out, "k_cache", KVG_DTYPE_INVALID, 0,
                                      NULL, kvg_case_find(in, "k_cache"),
                                      diag)) == NULL ||
        (a.ckv_cache = kvg_case_set_add(out, "ckv_cache", KVG_DTYPE_INVALID,
                                        0, NULL,
                                        kvg_case_find(in, "ckv_cache"),
                                        diag)) == NULL)
        return diag != NULL ? diag->status : KVG_ERR_NOMEM;
    if (a.is_output_kv &&
        ((a.k_rope = add_output(out, "k_rope", a.kv, a.cos, 3, diag)) ==
             NULL ||
         (a.c_kv = add_output(out, "c_kv", a.kv, a.gamma, 0, diag)) == NULL))
        return diag != NULL ? diag->status : KVG_ERR_NOMEM;
    st = kvg_kv_rms_norm_rope_cache_workspace_size(&a, &bytes, diag);
    if (st != KVG_OK)
        return st;
    a.workspace = kvg_case_workspace(bytes);
    if (a.workspace == NULL)
        return fail(diag, KVG_ERR_NOMEM, "workspace",
                    "%s: out of memory for the workspace%s", c->dir, "");
    a.workspace_size = bytes;
    st = kvg_kv_rms_norm_rope_cache(&a, diag);
    free(a.workspace);
    return st;
}
