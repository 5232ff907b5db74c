/*
 * tools/python/_op_shim.c - TEMPORARY stand-in for the generic entry point
 * of include/kvgold/op.h, until the core library's registry (issue 11)
 * lands. DELETE this file and its line in tools/python/CMakeLists.txt
 * (KVG_PY_OP_SHIM) when src/ implements kvg_op_*: the symbols would clash.
 *
 * It is linked into the shared library the Python package loads, never into
 * the core static library. It fills each operator's args struct from the
 * named tensors and values and calls the typed entry point, as
 * tools/case/case_<op>.c does from case.json, so the Python binding can be
 * written and tested against the contract now. Small on purpose: the
 * registry is the real implementation.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "kvgold/kv_rms_norm_rope_cache.h"
#include "kvgold/op.h"
#include "kvgold/options.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "kvgold/reshape_and_cache.h"
#include "kvgold/reshape_and_cache_omni.h"

/* run: 0 = workspace size into *bytes, 1 = run the operator */
typedef kvg_status (*shim_call_fn)(const kvg_op_call *call, int run,
                                   size_t *bytes, kvg_diag *diag);
typedef kvg_status (*shim_shape_fn)(const kvg_op_call *call, const char *name,
                                    int *produced, kvg_dtype *dtype,
                                    int *rank, int64_t *shape,
                                    kvg_diag *diag);
typedef void (*shim_describe_fn)(const kvg_op_call *call, const char *name,
                                 const kvg_tensor *t, kvg_compare_role *role,
                                 int *has_layout, kvg_cache_layout *layout);

struct kvg_op {
    const char *name;
    const kvg_op_tensor_info *tensors;
    size_t tensor_count;
    const kvg_op_attr_info *attrs;
    size_t attr_count;
    shim_call_fn call;
    shim_shape_fn shape;
    shim_describe_fn describe;
};

static kvg_status fail(kvg_diag *diag, kvg_status st, const char *name,
                       const char *fmt, const char *a, const char *b)
{
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = st;
        (void)snprintf(diag->tensor, sizeof diag->tensor, "%s",
                       name != NULL ? name : "");
        (void)snprintf(diag->message, sizeof diag->message, fmt, a, b);
    }
    return st;
}

/* ---- names and values ------------------------------------------------- */

static const kvg_tensor *tensor_of(const kvg_op_call *c, const char *name)
{
    size_t i;
    for (i = 0; i < c->tensor_count; i++)
        if (strcmp(c->tensors[i].name, name) == 0)
            return c->tensors[i].tensor;
    return NULL;
}

static const kvg_value *value_of(const kvg_op_call *c, const char *name)
{
    size_t i;
    for (i = 0; i < c->attr_count; i++)
        if (strcmp(c->attrs[i].name, name) == 0)
            return &c->attrs[i];
    return NULL;
}

static const kvg_op_attr_info *attr_info(const kvg_op *op, const char *name)
{
    size_t i;
    for (i = 0; i < op->attr_count; i++)
        if (strcmp(op->attrs[i].name, name) == 0)
            return &op->attrs[i];
    return NULL;
}

static int tensor_known(const kvg_op *op, const char *name)
{
    size_t i;
    for (i = 0; i < op->tensor_count; i++)
        if (strcmp(op->tensors[i].name, name) == 0)
            return 1;
    return 0;
}

static int is_cache(const kvg_op *op, const char *name)
{
    size_t i;
    for (i = 0; i < op->tensor_count; i++)
        if (strcmp(op->tensors[i].name, name) == 0)
            return op->tensors[i].kind == KVG_OP_CACHE;
    return 0;
}

/* The generic refusals: unknown or repeated names, NULL views, values of
 * the wrong type. */
static kvg_status check_call(const kvg_op_call *c, kvg_diag *diag)
{
    size_t i, j;
    if (c == NULL || c->op == NULL)
        return fail(diag, KVG_ERR_PARAM_NULLPTR, "call",
                    "the call or its operator is NULL%s%s", "", "");
    for (i = 0; i < c->tensor_count; i++) {
        const char *n = c->tensors[i].name;
        if (n == NULL || c->tensors[i].tensor == NULL)
            return fail(diag, KVG_ERR_PARAM_NULLPTR, n,
                        "%s: tensor name or view is NULL%s", n ? n : "?", "");
        if (!tensor_known(c->op, n))
            return fail(diag, KVG_ERR_PARAM_INVALID, n,
                        "%s: %s has no tensor of that name", n, c->op->name);
        for (j = 0; j < i; j++)
            if (strcmp(c->tensors[j].name, n) == 0)
                return fail(diag, KVG_ERR_PARAM_INVALID, n,
                            "%s: given twice%s", n, "");
    }
    for (i = 0; i < c->attr_count; i++) {
        const char *n = c->attrs[i].name;
        const kvg_op_attr_info *info = n ? attr_info(c->op, n) : NULL;
        kvg_value_type t = c->attrs[i].type;
        if (info == NULL)
            return fail(diag, KVG_ERR_PARAM_INVALID, n ? n : "",
                        "%s: %s has no attribute or option of that name",
                        n ? n : "(null)", c->op->name);
        for (j = 0; j < i; j++)
            if (strcmp(c->attrs[j].name, n) == 0)
                return fail(diag, KVG_ERR_PARAM_INVALID, n,
                            "%s: given twice%s", n, "");
        if (t != info->type &&
            !(info->type == KVG_VALUE_FLOAT && t == KVG_VALUE_INT))
            return fail(diag, KVG_ERR_PARAM_INVALID, n,
                        "%s: a value of the wrong type (%s expected)", n,
                        info->type == KVG_VALUE_INT      ? "integer"
                        : info->type == KVG_VALUE_FLOAT  ? "number"
                        : info->type == KVG_VALUE_BOOL   ? "boolean"
                        : info->type == KVG_VALUE_STRING ? "string"
                                                         : "integer list");
        if ((t == KVG_VALUE_STRING && c->attrs[i].s == NULL) ||
            (t == KVG_VALUE_INTS && c->attrs[i].ints == NULL &&
             c->attrs[i].count > 0))
            return fail(diag, KVG_ERR_PARAM_NULLPTR, n, "%s: NULL value%s", n,
                        "");
    }
    return KVG_OK;
}

static double get_f64(const kvg_op_call *c, const char *name, double dflt)
{
    const kvg_value *v = value_of(c, name);
    if (v == NULL)
        return dflt;
    return v->type == KVG_VALUE_INT ? (double)v->i : v->f;
}

static int get_bool(const kvg_op_call *c, const char *name, int dflt)
{
    const kvg_value *v = value_of(c, name);
    return v == NULL ? dflt : v->i != 0;
}

static const char *get_str(const kvg_op_call *c, const char *name,
                           const char *dflt)
{
    const kvg_value *v = value_of(c, name);
    return v == NULL ? dflt : v->s;
}

static kvg_status get_order(const kvg_op_call *c, kvg_reduce_order *order,
                            kvg_diag *diag)
{
    const char *s = get_str(c, "reduce_order", "pairwise");
    if (!kvg_reduce_order_from_name(s, order))
        return fail(diag, KVG_ERR_PARAM_INVALID, "reduce_order",
                    "reduce_order: \"%s\" is not a kvgold reduction order%s",
                    s, "");
    return KVG_OK;
}

static kvg_status get_overflow(const kvg_op_call *c, const char *name,
                               const char *dflt, const char *alt,
                               kvg_overflow alt_value, kvg_overflow *out,
                               kvg_diag *diag)
{
    const char *s = get_str(c, name, dflt);
    if (strcmp(s, dflt) == 0)
        return KVG_OK; /* *out keeps the args_init default */
    if (strcmp(s, alt) == 0) {
        *out = alt_value;
        return KVG_OK;
    }
    return fail(diag, KVG_ERR_PARAM_INVALID, name, "%s: \"%s\" is not one of "
                "the accepted values", name, s);
}

static void set_layout(int *has, kvg_cache_layout *l, kvg_layout_kind kind,
                       int64_t blocks, int64_t slots, int64_t heads,
                       int64_t dim, int64_t c0)
{
    if (blocks <= 0 || slots <= 0 || heads <= 0 || dim <= 0 ||
        (kind == KVG_LAYOUT_NZ && (c0 <= 0 || (heads * dim) % c0 != 0)))
        return;
    *has = 1;
    l->kind = kind;
    l->blocks = blocks;
    l->slots = slots;
    l->heads = heads;
    l->dim = dim;
    l->c0 = kind == KVG_LAYOUT_NZ ? c0 : 0;
}

static void put_shape(kvg_dtype *dtype, int *rank, int64_t *shape,
                      kvg_dtype dt, int r, const int64_t *s)
{
    int i;
    *dtype = dt;
    *rank = r;
    for (i = 0; i < r; i++)
        shape[i] = s[i];
}

static kvg_status need(const kvg_tensor *t, const char *name, int rank,
                       kvg_diag *diag)
{
    if (t == NULL || t->rank < rank)
        return fail(diag, KVG_ERR_PARAM_INVALID, name,
                    "%s: needed (with its shape) to shape the outputs%s",
                    name, "");
    return KVG_OK;
}

/* ---- kv_rms_norm_rope_cache ------------------------------------------- */

static const kvg_op_tensor_info k_kv_tensors[] = {
    {"kv", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"gamma", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"cos", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"sin", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"index", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"k_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"ckv_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"k_rope_scale", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"c_kv_scale", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"k_rope_offset", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"c_kv_offset", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"k_rope", KVG_OP_OUTPUT, KVG_OP_PRODUCED},
    {"c_kv", KVG_OP_OUTPUT, KVG_OP_PRODUCED}};

static const kvg_op_attr_info k_kv_attrs[] = {
    {"epsilon", KVG_VALUE_FLOAT, 0, 0, "1e-05"},
    {"cache_mode", KVG_VALUE_STRING, 0, 0, "\"Norm\""},
    {"is_output_kv", KVG_VALUE_BOOL, 0, 0, "false"},
    {"profile", KVG_VALUE_STRING, 1, 0, "\"ascend950\""},
    {"reduce_order", KVG_VALUE_STRING, 1, 0, "\"pairwise\""},
    {"quant_overflow", KVG_VALUE_STRING, 1, 0, "\"saturate\""}};

static kvg_status kv_call(const kvg_op_call *c, int run, size_t *bytes,
                          kvg_diag *diag)
{
    kvg_kv_rms_norm_rope_cache_args a;
    const char *mode = get_str(c, "cache_mode", "Norm");
    const char *profile = get_str(c, "profile", "ascend950");
    kvg_status st;

    kvg_kv_rms_norm_rope_cache_args_init(&a);
    a.kv = tensor_of(c, "kv");
    a.gamma = tensor_of(c, "gamma");
    a.cos = tensor_of(c, "cos");
    a.sin = tensor_of(c, "sin");
    a.index = tensor_of(c, "index");
    a.k_cache = tensor_of(c, "k_cache");
    a.ckv_cache = tensor_of(c, "ckv_cache");
    a.k_rope_scale = tensor_of(c, "k_rope_scale");
    a.c_kv_scale = tensor_of(c, "c_kv_scale");
    a.k_rope_offset = tensor_of(c, "k_rope_offset");
    a.c_kv_offset = tensor_of(c, "c_kv_offset");
    a.k_rope = tensor_of(c, "k_rope");
    a.c_kv = tensor_of(c, "c_kv");
    a.epsilon = get_f64(c, "epsilon", 1e-5);
    a.is_output_kv = get_bool(c, "is_output_kv", 0);
    if (!kvg_kv_cache_mode_from_name(mode, &a.cache_mode))
        return fail(diag, KVG_ERR_PARAM_INVALID, "cache_mode",
                    "cache_mode: \"%s\" is not Norm, PA, PA_BNSD, PA_NZ, "
                    "PA_BLK_BNSD or PA_BLK_NZ%s", mode, "");
    if (!kvg_kv_profile_from_name(profile, &a.profile))
        return fail(diag, KVG_ERR_PARAM_INVALID, "profile",
                    "profile: \"%s\" is not ascend950 or a2a3%s", profile, "");
    if ((st = get_order(c, &a.reduce_order, diag)) != KVG_OK ||
        (st = get_overflow(c, "quant_overflow", "saturate", "nonsat",
                           KVG_OVF_NONSAT, &a.quant_overflow, diag)) != KVG_OK)
        return st;
    if (!run)
        return kvg_kv_rms_norm_rope_cache_workspace_size(&a, bytes, diag);
    a.workspace = c->workspace;
    a.workspace_size = c->workspace_size;
    return kvg_kv_rms_norm_rope_cache(&a, diag);
}

static kvg_status kv_shape(const kvg_op_call *c, const char *name,
                           int *produced, kvg_dtype *dtype, int *rank,
                           int64_t *shape, kvg_diag *diag)
{
    const kvg_tensor *kv = tensor_of(c, "kv");
    const int rope = strcmp(name, "k_rope") == 0;
    const char *src_name = rope ? "cos" : "gamma";
    const kvg_tensor *src = tensor_of(c, src_name);
    int64_t s[4];
    kvg_status st;

    *produced = get_bool(c, "is_output_kv", 0);
    if (!*produced)
        return KVG_OK;
    if ((st = need(kv, "kv", 4, diag)) != KVG_OK ||
        (st = need(src, src_name, rope ? 4 : 1, diag)) != KVG_OK)
        return st;
    s[0] = kv->shape[0];
    s[1] = 1;
    s[2] = kv->shape[2];
    s[3] = src->shape[rope ? 3 : 0];
    put_shape(dtype, rank, shape, kv->dtype, 4, s);
    return KVG_OK;
}

static void kv_describe(const kvg_op_call *c, const char *name,
                        const kvg_tensor *t, kvg_compare_role *role,
                        int *has, kvg_cache_layout *l)
{
    const char *mode = get_str(c, "cache_mode", "Norm");
    if (strcmp(name, "k_cache") != 0 && strcmp(name, "ckv_cache") != 0) {
        *role = KVG_ROLE_COMPUTE;
        return;
    }
    *role = kvg_dtype_is_quant8(t->dtype) ? KVG_ROLE_QUANT : KVG_ROLE_COMPUTE;
    if (t->rank != 4)
        return;
    if (strcmp(mode, "Norm") == 0)
        set_layout(has, l, KVG_LAYOUT_BNSD, t->shape[0], t->shape[2],
                   t->shape[1], t->shape[3], 0);
    else if (strcmp(mode, "PA_NZ") == 0 || strcmp(mode, "PA_BLK_NZ") == 0)
        set_layout(has, l, KVG_LAYOUT_NZ, t->shape[0], t->shape[1],
                   t->shape[2], t->shape[3], kvg_c0_of(t->dtype));
    else
        set_layout(has, l, KVG_LAYOUT_ND, t->shape[0], t->shape[1],
                   t->shape[2], t->shape[3], 0);
}

/* ---- qkv_rms_norm_rope_cache ------------------------------------------ */

static const kvg_op_tensor_info k_qkv_tensors[] = {
    {"qkv", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"q_gamma", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"k_gamma", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"cos", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"sin", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"index", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"q_out", KVG_OP_OUTPUT, KVG_OP_REQUIRED},
    {"k_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"v_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"k_scale", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"v_scale", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"k_offset", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"v_offset", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"q_out_before_quant", KVG_OP_OUTPUT, KVG_OP_PRODUCED},
    {"k_out_before_quant", KVG_OP_OUTPUT, KVG_OP_PRODUCED},
    {"v_out_before_quant", KVG_OP_OUTPUT, KVG_OP_PRODUCED}};

static const kvg_op_attr_info k_qkv_attrs[] = {
    {"qkv_size", KVG_VALUE_INTS, 0, 1, NULL},
    {"head_nums", KVG_VALUE_INTS, 0, 1, NULL},
    {"epsilon", KVG_VALUE_FLOAT, 0, 0, "1e-06"},
    {"cache_mode", KVG_VALUE_STRING, 0, 0, "\"PA_NZ\""},
    {"is_output_qkv", KVG_VALUE_BOOL, 0, 0, "false"},
    {"reduce_order", KVG_VALUE_STRING, 1, 0, "\"pairwise\""},
    {"overflow", KVG_VALUE_STRING, 1, 0, "\"inf\""}};

static kvg_status qkv_call(const kvg_op_call *c, int run, size_t *bytes,
                           kvg_diag *diag)
{
    kvg_qkv_rms_norm_rope_cache_args a;
    const kvg_value *size = value_of(c, "qkv_size");
    const kvg_value *heads = value_of(c, "head_nums");
    kvg_status st;

    kvg_qkv_rms_norm_rope_cache_args_init(&a);
    a.qkv = tensor_of(c, "qkv");
    a.q_gamma = tensor_of(c, "q_gamma");
    a.k_gamma = tensor_of(c, "k_gamma");
    a.cos = tensor_of(c, "cos");
    a.sin = tensor_of(c, "sin");
    a.index = tensor_of(c, "index");
    a.q_out = tensor_of(c, "q_out");
    a.k_cache = tensor_of(c, "k_cache");
    a.v_cache = tensor_of(c, "v_cache");
    a.k_scale = tensor_of(c, "k_scale");
    a.v_scale = tensor_of(c, "v_scale");
    a.k_offset = tensor_of(c, "k_offset");
    a.v_offset = tensor_of(c, "v_offset");
    a.q_out_before_quant = tensor_of(c, "q_out_before_quant");
    a.k_out_before_quant = tensor_of(c, "k_out_before_quant");
    a.v_out_before_quant = tensor_of(c, "v_out_before_quant");
    /* absent lists stay NULL: the operator reports them (161001) */
    a.qkv_size = size != NULL ? size->ints : NULL;
    a.qkv_size_len = size != NULL ? size->count : 0;
    a.head_nums = heads != NULL ? heads->ints : NULL;
    a.head_nums_len = heads != NULL ? heads->count : 0;
    a.epsilon = get_f64(c, "epsilon", 1e-6);
    a.cache_mode = get_str(c, "cache_mode", "PA_NZ");
    if ((st = get_order(c, &a.reduce_order, diag)) != KVG_OK ||
        (st = get_overflow(c, "overflow", "inf", "saturate", KVG_OVF_SATURATE,
                           &a.overflow, diag)) != KVG_OK)
        return st;
    if (!run)
        return kvg_qkv_rms_norm_rope_cache_workspace_size(&a, bytes, diag);
    a.workspace = c->workspace;
    a.workspace_size = c->workspace_size;
    return kvg_qkv_rms_norm_rope_cache(&a, diag);
}

static kvg_status qkv_shape(const kvg_op_call *c, const char *name,
                            int *produced, kvg_dtype *dtype, int *rank,
                            int64_t *shape, kvg_diag *diag)
{
    const kvg_tensor *qkv = tensor_of(c, "qkv");
    const kvg_value *size = value_of(c, "qkv_size");
    const kvg_value *heads = value_of(c, "head_nums");
    const int is_q = strncmp(name, "q_out", 5) == 0;
    const int is_k = strcmp(name, "k_out_before_quant") == 0;
    const kvg_tensor *cache = is_q ? NULL : tensor_of(c, is_k ? "k_cache"
                                                              : "v_cache");
    int64_t s[2];
    kvg_status st;

    *produced = strcmp(name, "q_out") == 0 || get_bool(c, "is_output_qkv", 0);
    if (!*produced)
        return KVG_OK;
    if ((st = need(qkv, "qkv", 2, diag)) != KVG_OK)
        return st;
    s[0] = qkv->shape[0];
    if (is_q) {
        if (size == NULL || size->count != 4 || heads == NULL ||
            heads->count != 3)
            return fail(diag, KVG_ERR_PARAM_INVALID, "qkv_size",
                        "qkv_size [B,S,N,D] and head_nums [Nq,Nk,Nv] are "
                        "needed to shape %s%s", name, "");
        s[1] = heads->ints[0] * size->ints[3];
    } else {
        /* as aclnn's infershape: the cache's N*D/C0 * C0 */
        if ((st = need(cache, is_k ? "k_cache" : "v_cache", 4, diag)) !=
            KVG_OK)
            return st;
        s[1] = cache->shape[1] * cache->shape[3];
    }
    put_shape(dtype, rank, shape, qkv->dtype, 2, s);
    return KVG_OK;
}

static void qkv_describe(const kvg_op_call *c, const char *name,
                         const kvg_tensor *t, kvg_compare_role *role,
                         int *has, kvg_cache_layout *l)
{
    const int is_k = strcmp(name, "k_cache") == 0;
    const kvg_value *heads = value_of(c, "head_nums");
    if (is_k || strcmp(name, "v_cache") == 0) {
        int64_t n = heads != NULL && heads->count == 3
                        ? heads->ints[is_k ? 1 : 2] : 0;
        *role = t->dtype == KVG_INT8 ? KVG_ROLE_QUANT
                : is_k               ? KVG_ROLE_COMPUTE
                                     : KVG_ROLE_COPY;
        if (t->rank == 4 && n > 0)
            set_layout(has, l, KVG_LAYOUT_NZ, t->shape[0], t->shape[2], n,
                       t->shape[1] * t->shape[3] / n, t->shape[3]);
    } else {
        *role = strcmp(name, "v_out_before_quant") == 0 ? KVG_ROLE_COPY
                                                        : KVG_ROLE_COMPUTE;
    }
}

/* ---- reshape_and_cache, reshape_and_cache_omni ------------------------ */

static const kvg_op_tensor_info k_rac_tensors[] = {
    {"key", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"value", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"key_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"value_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"slot_mapping", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"wins", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"seq_len", KVG_OP_INPUT, KVG_OP_OPTIONAL},
    {"offset_index", KVG_OP_INPUT, KVG_OP_OPTIONAL}};

static const kvg_op_tensor_info k_omni_tensors[] = {
    {"key", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"value", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"key_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"value_cache", KVG_OP_CACHE, KVG_OP_REQUIRED},
    {"slot_mapping", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"wins", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"seq_len", KVG_OP_INPUT, KVG_OP_REQUIRED},
    {"offset_index", KVG_OP_INPUT, KVG_OP_REQUIRED}};

static const kvg_op_attr_info k_rac_attrs[] = {
    {"compress_type", KVG_VALUE_STRING, 0, 0, "\"UNDEFINED\""},
    {"cache_layout", KVG_VALUE_STRING, 0, 0, "\"ND\""}};

static kvg_status rac_call(const kvg_op_call *c, int run, size_t *bytes,
                           kvg_diag *diag)
{
    kvg_reshape_and_cache_args a;
    const char *ct = get_str(c, "compress_type", "UNDEFINED");
    const char *layout = get_str(c, "cache_layout", "ND");

    kvg_reshape_and_cache_args_init(&a);
    a.key = tensor_of(c, "key");
    a.value = tensor_of(c, "value");
    a.key_cache = tensor_of(c, "key_cache");
    a.value_cache = tensor_of(c, "value_cache");
    a.slot_mapping = tensor_of(c, "slot_mapping");
    a.wins = tensor_of(c, "wins");
    a.seq_len = tensor_of(c, "seq_len");
    a.offset_index = tensor_of(c, "offset_index");
    if (!kvg_rac_compress_from_name(ct, &a.compress_type))
        return fail(diag, KVG_ERR_PARAM_INVALID, "compress_type",
                    "compress_type: \"%s\" is not UNDEFINED, KVHEAD or "
                    "KVHEAD_ROPE%s", ct, "");
    if (strcmp(layout, "ND") == 0)
        a.cache_layout = KVG_LAYOUT_ND;
    else if (strcmp(layout, "NZ") == 0)
        a.cache_layout = KVG_LAYOUT_NZ;
    else
        return fail(diag, KVG_ERR_PARAM_INVALID, "cache_layout",
                    "cache_layout: \"%s\" is not ND or NZ%s", layout, "");
    if (!run)
        return kvg_reshape_and_cache_workspace_size(&a, bytes, diag);
    a.workspace = c->workspace;
    a.workspace_size = c->workspace_size;
    return kvg_reshape_and_cache(&a, diag);
}

static kvg_status omni_call(const kvg_op_call *c, int run, size_t *bytes,
                            kvg_diag *diag)
{
    kvg_reshape_and_cache_omni_args a;
    kvg_reshape_and_cache_omni_args_init(&a);
    a.key = tensor_of(c, "key");
    a.value = tensor_of(c, "value");
    a.key_cache = tensor_of(c, "key_cache");
    a.value_cache = tensor_of(c, "value_cache");
    a.slot_mapping = tensor_of(c, "slot_mapping");
    a.wins = tensor_of(c, "wins");
    a.seq_len = tensor_of(c, "seq_len");
    a.offset_index = tensor_of(c, "offset_index");
    if (!run)
        return kvg_reshape_and_cache_omni_workspace_size(&a, bytes, diag);
    a.workspace = c->workspace;
    a.workspace_size = c->workspace_size;
    return kvg_reshape_and_cache_omni(&a, diag);
}

static kvg_status no_outputs(const kvg_op_call *c, const char *name,
                             int *produced, kvg_dtype *dtype, int *rank,
                             int64_t *shape, kvg_diag *diag)
{
    (void)c;
    (void)produced;
    (void)dtype;
    (void)rank;
    (void)shape;
    return fail(diag, KVG_ERR_PARAM_INVALID, name,
                "%s: not an output of this operator%s", name, "");
}

static void rac_describe(const kvg_op_call *c, const char *name,
                         const kvg_tensor *t, kvg_compare_role *role,
                         int *has, kvg_cache_layout *l)
{
    const int omni = strcmp(c->op->name, "reshape_and_cache_omni") == 0;
    const kvg_tensor *src =
        tensor_of(c, strcmp(name, "key_cache") == 0 ? "key" : "value");
    *role = !omni && strcmp(get_str(c, "compress_type", "UNDEFINED"),
                            "KVHEAD_ROPE") == 0
                ? KVG_ROLE_COMPUTE
                : KVG_ROLE_COPY;
    if (t->rank != 4)
        return;
    if (!omni && strcmp(get_str(c, "cache_layout", "ND"), "NZ") == 0) {
        if (src != NULL && src->rank == 3)
            set_layout(has, l, KVG_LAYOUT_NZ, t->shape[0], t->shape[2],
                       src->shape[1], src->shape[2], t->shape[3]);
    } else {
        set_layout(has, l, KVG_LAYOUT_ND, t->shape[0], t->shape[1],
                   t->shape[2], t->shape[3], 0);
    }
}

/* ---- the registry ----------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const kvg_op k_ops[] = {
    {"kv_rms_norm_rope_cache", k_kv_tensors, COUNT(k_kv_tensors), k_kv_attrs,
     COUNT(k_kv_attrs), kv_call, kv_shape, kv_describe},
    {"qkv_rms_norm_rope_cache", k_qkv_tensors, COUNT(k_qkv_tensors),
     k_qkv_attrs, COUNT(k_qkv_attrs), qkv_call, qkv_shape, qkv_describe},
    {"reshape_and_cache_omni", k_omni_tensors, COUNT(k_omni_tensors), NULL, 0,
     omni_call, no_outputs, rac_describe},
    {"reshape_and_cache", k_rac_tensors, COUNT(k_rac_tensors), k_rac_attrs,
     COUNT(k_rac_attrs), rac_call, no_outputs, rac_describe}};

size_t kvg_op_count(void) { return COUNT(k_ops); }

const kvg_op *kvg_op_at(size_t i)
{
    return i < COUNT(k_ops) ? &k_ops[i] : NULL;
}

const kvg_op *kvg_op_find(const char *name)
{
    size_t i;
    for (i = 0; name != NULL && i < COUNT(k_ops); i++)
        if (strcmp(k_ops[i].name, name) == 0)
            return &k_ops[i];
    return NULL;
}

const char *kvg_op_name(const kvg_op *op) { return op->name; }

size_t kvg_op_tensor_count(const kvg_op *op) { return op->tensor_count; }

const kvg_op_tensor_info *kvg_op_tensor_at(const kvg_op *op, size_t i)
{
    return i < op->tensor_count ? &op->tensors[i] : NULL;
}

size_t kvg_op_attr_count(const kvg_op *op) { return op->attr_count; }

const kvg_op_attr_info *kvg_op_attr_at(const kvg_op *op, size_t i)
{
    return i < op->attr_count ? &op->attrs[i] : NULL;
}

void kvg_op_call_init(kvg_op_call *call, const kvg_op *op)
{
    memset(call, 0, sizeof *call);
    call->op = op;
}

kvg_status kvg_op_output_shape(const kvg_op_call *call, const char *name,
                               int *produced, kvg_dtype *dtype, int *rank,
                               int64_t shape[KVG_MAX_RANK], kvg_diag *diag)
{
    const kvg_tensor *t;
    kvg_status st = check_call(call, diag);
    if (st != KVG_OK)
        return st;
    if (name == NULL || !tensor_known(call->op, name))
        return fail(diag, KVG_ERR_PARAM_INVALID, name ? name : "",
                    "%s: not a tensor of %s", name ? name : "(null)",
                    call->op->name);
    t = tensor_of(call, name);
    if (t != NULL && is_cache(call->op, name)) {
        /* an in-place cache: its own dtype and shape */
        *produced = 1;
        put_shape(dtype, rank, shape, t->dtype, t->rank, t->shape);
        return KVG_OK;
    }
    return call->op->shape(call, name, produced, dtype, rank, shape, diag);
}

kvg_status kvg_op_workspace_size(const kvg_op_call *call, size_t *bytes,
                                 kvg_diag *diag)
{
    kvg_status st = check_call(call, diag);
    return st != KVG_OK ? st : call->op->call(call, 0, bytes, diag);
}

kvg_status kvg_op_run(const kvg_op_call *call, kvg_diag *diag)
{
    kvg_status st = check_call(call, diag);
    return st != KVG_OK ? st : call->op->call(call, 1, NULL, diag);
}

kvg_status kvg_op_describe_output(const kvg_op_call *call, const char *name,
                                  const kvg_tensor *output,
                                  kvg_compare_role *role, int *has_layout,
                                  kvg_cache_layout *layout, kvg_diag *diag)
{
    kvg_status st = check_call(call, diag);
    if (st != KVG_OK)
        return st;
    if (name == NULL || output == NULL || role == NULL ||
        has_layout == NULL || layout == NULL)
        return fail(diag, KVG_ERR_PARAM_NULLPTR, "output",
                    "describe_output: a NULL argument%s%s", "", "");
    *role = KVG_ROLE_DEFAULT;
    *has_layout = 0;
    memset(layout, 0, sizeof *layout);
    call->op->describe(call, name, output, role, has_layout, layout);
    return KVG_OK;
}
