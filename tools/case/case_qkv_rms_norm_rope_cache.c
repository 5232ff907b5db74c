/*
 * tools/case/case_qkv_rms_norm_rope_cache.c - case adapter for
 * qkv_rms_norm_rope_cache (docs/qkv_rms_norm_rope_cache.md, "Case files").
 *
 * attrs:   qkv_size [B,S,N,D], head_nums [Nq,Nk,Nv], epsilon (1e-6),
 *          cache_mode ("PA_NZ"), is_output_qkv (false)
 * options: reduce_order ("pairwise" | "sequential" | "double"),
 *          overflow ("inf" | "saturate") for the fp16/bf16 outputs
 *
 * An input the case leaves out is passed as NULL, so the operator itself
 * reports it (161001 naming the tensor), except q_out: it is fully
 * overwritten, so a case may omit it to save space and the adapter then
 * allocates it filled with 0xFF bytes (NaN in fp16 and bf16). The outputs
 * are q_out, k_cache and v_cache (copies of the inputs, updated) and, with
 * is_output_qkv, the three before-quant outputs (allocated as aclnn's
 * infershape shapes them, filled with 0xFF bytes).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#include "case.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"

static const char *const k_attr_keys[] = {"qkv_size", "head_nums", "epsilon",
                                          "cache_mode", "is_output_qkv", NULL};
static const char *const k_option_keys[] = {"reduce_order", "overflow", NULL};
static const char *const k_inputs[] = {
    "qkv",     "q_gamma", "k_gamma", "cos",      "sin",      "index",
    "q_out",   "k_cache", "v_cache", "k_scale",  "v_scale",  "k_offset",
    "v_offset", NULL};
static const char *const k_outputs[] = {
    "q_out", "k_cache", "v_cache", "q_out_before_quant", "k_out_before_quant",
    "v_out_before_quant", NULL};

typedef struct attrs {
    int64_t qkv_size[8], head_nums[8];
    int n_size, n_heads;
    double epsilon;
    char cache_mode[32];
    int is_output_qkv;
    int order;
    kvg_overflow overflow;
} attrs;

/* 1 when attrs has `key`: an absent required attribute is passed as NULL
 * so that the operator reports it (161001), as aclnn does. */
static int has_attr(const kvg_case *c, const char *key)
{
    return kvg_json_get(c->attrs, key) != NULL;
}

static kvg_status fail_case(const kvg_case *c, kvg_diag *diag,
                            const char *field, const char *msg,
                            const char *value)
{
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = KVG_ERR_FILE_FORMAT;
        strncpy(diag->tensor, field, sizeof diag->tensor - 1);
        (void)snprintf(diag->message, sizeof diag->message,
                       "%s/case.json: %s \"%s\"", c->dir, msg, value);
    }
    return KVG_ERR_FILE_FORMAT;
}

static kvg_status read_attrs(const kvg_case *c, attrs *at, kvg_diag *diag)
{
    char ovf[32];
    kvg_status st;

    st = kvg_case_check_keys(c, c->attrs, "attrs", k_attr_keys, diag);
    if (st == KVG_OK)
        st = kvg_case_check_keys(c, c->options, "options", k_option_keys,
                                 diag);
    if (st == KVG_OK)
        st = kvg_case_get_ints(c, c->attrs, "qkv_size", 0, at->qkv_size, 8,
                               &at->n_size, diag);
    if (st == KVG_OK)
        st = kvg_case_get_ints(c, c->attrs, "head_nums", 0, at->head_nums, 8,
                               &at->n_heads, diag);
    if (st == KVG_OK)
        st = kvg_case_get_double(c, c->attrs, "epsilon", 1e-6, &at->epsilon,
                                 diag);
    if (st == KVG_OK)
        st = kvg_case_get_string(c, c->attrs, "cache_mode", "PA_NZ",
                                 at->cache_mode, sizeof at->cache_mode, diag);
    if (st == KVG_OK)
        st = kvg_case_get_bool(c, c->attrs, "is_output_qkv", 0,
                               &at->is_output_qkv, diag);
    if (st == KVG_OK)
        st = kvg_case_get_reduce_order(c, &at->order, diag);
    if (st == KVG_OK)
        st = kvg_case_get_string(c, c->options, "overflow", "inf", ovf,
                                 sizeof ovf, diag);
    if (st != KVG_OK)
        return st;
    if (strcmp(ovf, "inf") == 0)
        at->overflow = KVG_OVF_DEFAULT;
    else if (strcmp(ovf, "saturate") == 0)
        at->overflow = KVG_OVF_SATURATE;
    else
        return fail_case(c, diag, "overflow",
                         "options.overflow must be \"inf\" or \"saturate\", "
                         "got", ovf);
    return KVG_OK;
}

/* An output the adapter allocates: filled with 0xFF, so an element the op
 * fails to write shows up as NaN instead of a plausible zero. */
static const kvg_tensor *add_filled(kvg_case_set *out, const char *name,
                                    kvg_dtype dtype, int64_t rows,
                                    int64_t cols, kvg_diag *diag)
{
    int64_t shape[2];
    kvg_tensor *t;

    shape[0] = rows > 0 ? rows : 1;
    shape[1] = cols > 0 ? cols : 1;
    t = kvg_case_set_add(out, name, dtype, 2, shape, NULL, diag);
    if (t != NULL)
        memset(t->data, 0xFF, t->nbytes);
    return t;
}

/* A deep copy of an in-place input under its output name. */
static const kvg_tensor *add_copy(kvg_case_set *out, const kvg_case *c,
                                  const char *name, kvg_diag *diag,
                                  kvg_status *st)
{
    const kvg_tensor *in = kvg_case_find(&c->inputs, name);
    const kvg_tensor *t;

    if (in == NULL)
        return NULL;
    t = kvg_case_set_add(out, name, in->dtype, in->rank, in->shape, in, diag);
    if (t == NULL)
        *st = KVG_ERR_NOMEM;
    return t;
}

/* Columns of a before-quant output as infershape derives them: from q_out,
 * or the cache's dims 1 and 3 (N*D/C0 * C0). */
static int64_t cache_cols(const kvg_tensor *cache)
{
    if (cache == NULL || cache->rank != 4)
        return 1;
    return cache->shape[1] * cache->shape[3];
}

static kvg_status make_outputs(const kvg_case *c, const attrs *at,
                               kvg_qkv_rms_norm_rope_cache_args *a,
                               kvg_case_set *out, kvg_diag *diag)
{
    const kvg_tensor *qkv = a->qkv;
    const int shaped = qkv != NULL && qkv->rank == 2;
    const kvg_dtype t = qkv != NULL ? qkv->dtype : KVG_FP16;
    const int64_t rows = shaped ? qkv->shape[0] : 1;
    kvg_status st = KVG_OK;

    a->q_out = add_copy(out, c, "q_out", diag, &st);
    if (st == KVG_OK && a->q_out == NULL && shaped && at->n_heads >= 1 &&
        at->n_size == 4 && at->head_nums[0] > 0 && at->qkv_size[3] > 0 &&
        at->head_nums[0] <= qkv->shape[1] / at->qkv_size[3]) {
        a->q_out = add_filled(out, "q_out", t, rows,
                              at->head_nums[0] * at->qkv_size[3], diag);
        if (a->q_out == NULL)
            st = KVG_ERR_NOMEM;
    }
    if (st == KVG_OK)
        a->k_cache = add_copy(out, c, "k_cache", diag, &st);
    if (st == KVG_OK)
        a->v_cache = add_copy(out, c, "v_cache", diag, &st);
    if (st != KVG_OK || !at->is_output_qkv)
        return st;
    a->q_out_before_quant = add_filled(
        out, "q_out_before_quant", t, rows,
        a->q_out != NULL && a->q_out->rank == 2 ? a->q_out->shape[1] : 1, diag);
    a->k_out_before_quant = add_filled(out, "k_out_before_quant", t, rows,
                                       cache_cols(a->k_cache), diag);
    a->v_out_before_quant = add_filled(out, "v_out_before_quant", t, rows,
                                       cache_cols(a->v_cache), diag);
    if (a->q_out_before_quant == NULL || a->k_out_before_quant == NULL ||
        a->v_out_before_quant == NULL)
        return KVG_ERR_NOMEM;
    return KVG_OK;
}

kvg_status kvg_case_run_qkv_rms_norm_rope_cache(const kvg_case *c,
                                                kvg_case_set *outputs,
                                                kvg_diag *diag)
{
    kvg_qkv_rms_norm_rope_cache_args a;
    attrs at;
    size_t bytes = 0;
    kvg_status st;

    memset(&at, 0, sizeof at);
    st = kvg_case_check_names(c, k_inputs, NULL, k_outputs, diag);
    if (st == KVG_OK)
        st = read_attrs(c, &at, diag);
    if (st != KVG_OK)
        return st;
    kvg_qkv_rms_norm_rope_cache_args_init(&a);
    a.qkv = kvg_case_find(&c->inputs, "qkv");
    a.q_gamma = kvg_case_find(&c->inputs, "q_gamma");
    a.k_gamma = kvg_case_find(&c->inputs, "k_gamma");
    a.cos = kvg_case_find(&c->inputs, "cos");
    a.sin = kvg_case_find(&c->inputs, "sin");
    a.index = kvg_case_find(&c->inputs, "index");
    a.k_scale = kvg_case_find(&c->inputs, "k_scale");
    a.v_scale = kvg_case_find(&c->inputs, "v_scale");
    a.k_offset = kvg_case_find(&c->inputs, "k_offset");
    a.v_offset = kvg_case_find(&c->inputs, "v_offset");
    a.qkv_size = has_attr(c, "qkv_size") ? at.qkv_size : NULL;
    a.qkv_size_len = (size_t)at.n_size;
    a.head_nums = has_attr(c, "head_nums") ? at.head_nums : NULL;
    a.head_nums_len = (size_t)at.n_heads;
    a.epsilon = at.epsilon;
    a.cache_mode = at.cache_mode;
    a.reduce_order = (kvg_reduce_order)at.order;
    a.overflow = at.overflow;
    st = make_outputs(c, &at, &a, outputs, diag);
    if (st == KVG_OK)
        st = kvg_qkv_rms_norm_rope_cache_workspace_size(&a, &bytes, diag);
    if (st == KVG_OK) {
        a.workspace = kvg_case_workspace(bytes);
        a.workspace_size = bytes;
        if (a.workspace == NULL)
            st = KVG_ERR_NOMEM;
        else
            st = kvg_qkv_rms_norm_rope_cache(&a, diag);
        free(a.workspace);
    }
    if (st != KVG_OK)
        kvg_case_set_free(outputs);
    return st;
}
