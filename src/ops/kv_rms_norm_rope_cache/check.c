/*
 * src/ops/kv_rms_norm_rope_cache/check.c - every rule KvRmsNormRopeCache
 * enforces before it writes a byte (docs/kv_rms_norm_rope_cache.md, section
 * "Validation", lists them with their sources).
 *
 * Messages name the tensor, the dimension and expected vs got. Where the
 * real aclnn refuses the same call in its tiling (ACLNN_ERR_INNER_TILING_
 * ERROR, 561002) the message says so; where the NPU does not check at all,
 * it says what the NPU would do instead.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/format.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/kernels.h"
#include "src/ops/kv_rms_norm_rope_cache/internal.h"

#define TILING "aclnn reports 561002 (tiling error)"
#define A2 "Atlas A2/A3"

typedef const kvg_kv_rms_norm_rope_cache_args args_t;

/* Append "; <why>" to a failure's message (the aclnn-side explanation). */
static kvg_status note(kvg_diag *diag, kvg_status st, const char *why)
{
    size_t len;
    if (st == KVG_OK || diag == NULL)
        return st;
    len = strlen(diag->message);
    if (len + 3 < sizeof diag->message)
        (void)snprintf(diag->message + len, sizeof diag->message - len,
                       "; %s", why);
    return st;
}

#define TRY_NOTE(expr, why) KVG_TRY(note(diag, (expr), (why)))

static int is_a2(args_t *a) { return a->profile == KVG_KV_PROFILE_A2A3; }

/* ---- presence and attributes -------------------------------------------- */

static kvg_status check_optional(const kvg_tensor *t, const char *name,
                                 kvg_diag *diag)
{
    if (t != NULL && t->data == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: given but its data pointer is NULL", name);
    return KVG_OK;
}

/* BlockSize 0 is named as such before the generic rules (an empty tensor
 * may come without a data pointer): the PA modes divide by it, and the 950
 * host code crashed on it before it checked. */
static kvg_status check_block_size_zero(args_t *a, kvg_diag *diag)
{
    const char *mode = kvg_cache_mode_name(a->cache_mode);
    if (mode != NULL && a->cache_mode != KVG_CACHE_NORM &&
        a->k_cache != NULL && a->k_cache->rank == 4 &&
        a->k_cache->shape[1] == 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "k_cache", 1, -1,
                            "k_cache: dim 1 (BlockSize) must be at least 1 in "
                            "%s, got 0; " TILING, mode);
    return KVG_OK;
}

static kvg_status check_presence(args_t *a, kvg_diag *diag)
{
    KVG_TRY(check_block_size_zero(a, diag));
    KVG_TRY(kvg_i_check_present(a->kv, "kv", diag));
    KVG_TRY(kvg_i_check_present(a->gamma, "gamma", diag));
    KVG_TRY(kvg_i_check_present(a->cos, "cos", diag));
    KVG_TRY(kvg_i_check_present(a->sin, "sin", diag));
    KVG_TRY(kvg_i_check_present(a->index, "index", diag));
    KVG_TRY(kvg_i_check_present(a->k_cache, "k_cache", diag));
    KVG_TRY(kvg_i_check_present(a->ckv_cache, "ckv_cache", diag));
    KVG_TRY(check_optional(a->k_rope_scale, "k_rope_scale", diag));
    KVG_TRY(check_optional(a->c_kv_scale, "c_kv_scale", diag));
    KVG_TRY(check_optional(a->k_rope_offset, "k_rope_offset", diag));
    KVG_TRY(check_optional(a->c_kv_offset, "c_kv_offset", diag));
    KVG_TRY(check_optional(a->v, "v", diag));
    if (a->is_output_kv) {
        KVG_TRY(note(diag, kvg_i_check_present(a->k_rope, "k_rope", diag),
                 "k_rope is required when is_output_kv is set"));
        KVG_TRY(note(diag, kvg_i_check_present(a->c_kv, "c_kv", diag),
                 "c_kv is required when is_output_kv is set"));
    }
    return KVG_OK;
}

static kvg_status check_attrs(args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    if (kvg_cache_mode_name(a->cache_mode) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache_mode", -1, -1,
                            "cache_mode: %d is not a kvg_cache_mode",
                            (int)a->cache_mode);
    if (kvg_kv_profile_name(a->profile) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "profile", -1, -1,
                            "profile: %d is not a kvg_kv_profile",
                            (int)a->profile);
    if (kvg_reduce_order_name(a->reduce_order) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "reduce_order", -1, -1,
                            "reduce_order: %d is not a kvg_reduce_order",
                            (int)a->reduce_order);
    if ((int)a->quant_overflow < 0 || (int)a->quant_overflow > 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_overflow", -1,
                            -1, "quant_overflow: %d is not a kvg_overflow",
                            (int)a->quant_overflow);
    p->eps = (float)a->epsilon;
    /* A negative or non-finite eps makes sqrt(mean + eps) NaN for some
     * rows: no chip defines that, so an oracle must not produce it. */
    if (!(a->epsilon >= 0.0) || !isfinite(p->eps))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "epsilon", -1, -1,
                            "epsilon: must be finite and >= 0 (as a float), "
                            "got %g", a->epsilon);
    p->out_kv = a->is_output_kv ? 1 : 0;
    p->v2 = a->v != NULL;
    /* a2 and npu950 model the V1 kernels' folds of Dv = 512 in 64-lane
     * chunks; the V2 kernels fold Dk = 192 in 48-lane chunks, which no
     * order models: refuse rather than name a chip it does not match */
    if (p->v2 && (a->reduce_order == KVG_REDUCE_A2 ||
                  a->reduce_order == KVG_REDUCE_NPU950))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "reduce_order", -1, -1,
                            "reduce_order: %s models the V1 kernels' sum of "
                            "squares (64-lane chunks); V2 (v given) folds "
                            "48-lane chunks on " A2 ", not modelled: use "
                            "pairwise, sequential or double",
                            kvg_reduce_order_name(a->reduce_order));
    return KVG_OK;
}

/* ---- dtypes ------------------------------------------------------------- */

static int quant_ok(args_t *a, kvg_dtype d)
{
    if (is_a2(a))
        return d == KVG_INT8;
    return kvg_dtype_is_quant8(d);
}

static kvg_status check_cache_dtype(args_t *a, const kvg_tensor *c,
                                    const char *name, kvg_dtype t,
                                    kvg_diag *diag)
{
    if (c->dtype == t || quant_ok(a, c->dtype))
        return KVG_OK;
    if (is_a2(a) && kvg_dtype_is_quant8(c->dtype))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: dtype %s is not accepted on " A2 ", which "
                            "quantise to int8 only (%s, the dtype of kv, or "
                            "int8); profile ascend950 accepts it",
                            name, kvg_dtype_name(c->dtype), kvg_dtype_name(t));
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                        "%s: dtype must be %s (the dtype of kv) or %s, got %s",
                        name, kvg_dtype_name(t),
                        is_a2(a) ? "int8"
                                 : "one of int8, hif8, fp8_e5m2, fp8_e4m3fn",
                        kvg_dtype_name(c->dtype));
}

static kvg_status check_f32(const kvg_tensor *t, const char *name,
                            kvg_diag *diag)
{
    if (t == NULL)
        return KVG_OK;
    return kvg_i_check_dtype(t, name, KVG_FP32, diag);
}

static kvg_status check_dtypes(args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p,
                               kvg_diag *diag)
{
    const kvg_dtype t = a->kv->dtype;

    if (t != KVG_FP16 && t != KVG_BF16)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv", -1, -1,
                            "kv: dtype must be fp16 or bf16, got %s",
                            kvg_dtype_name(t));
    p->t = t;
    KVG_TRY(note(diag, kvg_i_check_dtype(a->gamma, "gamma", t, diag),
             "gamma, cos and sin share the dtype of kv"));
    KVG_TRY(note(diag, kvg_i_check_dtype(a->cos, "cos", t, diag),
             "gamma, cos and sin share the dtype of kv"));
    KVG_TRY(note(diag, kvg_i_check_dtype(a->sin, "sin", t, diag),
             "gamma, cos and sin share the dtype of kv"));
    KVG_TRY(kvg_i_check_dtype(a->index, "index", KVG_INT64, diag));
    KVG_TRY(check_cache_dtype(a, a->k_cache, "k_cache", t, diag));
    KVG_TRY(check_cache_dtype(a, a->ckv_cache, "ckv_cache", t, diag));
    p->kquant = a->k_cache->dtype != t;
    p->cquant = a->ckv_cache->dtype != t;
    if (p->kquant && p->cquant && a->k_cache->dtype != a->ckv_cache->dtype)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "ckv_cache", -1, -1,
                            "ckv_cache: dtype %s differs from k_cache's %s; "
                            "when both caches are quantised they share one "
                            "dtype", kvg_dtype_name(a->ckv_cache->dtype),
                            kvg_dtype_name(a->k_cache->dtype));
    KVG_TRY(check_f32(a->k_rope_scale, "k_rope_scale", diag));
    KVG_TRY(check_f32(a->c_kv_scale, "c_kv_scale", diag));
    KVG_TRY(check_f32(a->k_rope_offset, "k_rope_offset", diag));
    KVG_TRY(check_f32(a->c_kv_offset, "c_kv_offset", diag));
    if (p->v2)
        KVG_TRY(note(diag, kvg_i_check_dtype(a->v, "v", t, diag),
                 "v has the dtype of kv"));
    if (p->out_kv) {
        KVG_TRY(note(diag, kvg_i_check_dtype(a->k_rope, "k_rope", t, diag),
                 "the outputs have the dtype of kv"));
        KVG_TRY(note(diag, kvg_i_check_dtype(a->c_kv, "c_kv", t, diag),
                 "the outputs have the dtype of kv"));
    }
    return KVG_OK;
}

/* ---- which quantisation inputs go with which cache ---------------------- */

static kvg_status check_quant_inputs(args_t *a, int v2, const char *cache,
                                     const kvg_tensor *c, int quant,
                                     const kvg_tensor *scale,
                                     const char *sname,
                                     const kvg_tensor *offset,
                                     const char *oname, kvg_diag *diag)
{
    if (quant && scale == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, sname, -1, -1,
                            "%s: required because %s is %s (quantised); "
                            "" TILING,
                            sname, cache, kvg_dtype_name(c->dtype));
    if (!quant && scale != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, sname, -1, -1,
                            "%s: given but %s is %s (not quantised); the 950 "
                            "kernels would ignore it, " A2 " would write int8 "
                            "codes into the %s cache", sname, cache,
                            kvg_dtype_name(c->dtype), kvg_dtype_name(c->dtype));
    if (!quant && offset != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, oname, -1, -1,
                            "%s: given but %s is %s (not quantised); an offset "
                            "needs a quantised cache and its scale", oname,
                            cache, kvg_dtype_name(c->dtype));
    if (offset != NULL && is_a2(a) && !v2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, oname, -1, -1,
                            "%s: " A2 " V1 kernels ignore the offset "
                            "(symmetric quantisation only) and would compute "
                            "without it; drop it, or use profile ascend950",
                            oname);
    return KVG_OK;
}

/* ---- shapes ------------------------------------------------------------- */

const char *const
    kvg_i_kv_rms_norm_rope_cache_names[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS] =
        {"kv",          "gamma",
         "cos",         "sin",
         "index",       "k_cache",
         "ckv_cache",   "k_rope_scale",
         "c_kv_scale",  "k_rope_offset",
         "c_kv_offset", "k_rope",
         "c_kv",        "v"};

void kvg_i_kv_rms_norm_rope_cache_tensors(
    args_t *a, const kvg_tensor *t[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS])
{
    t[0] = a->kv, t[1] = a->gamma, t[2] = a->cos, t[3] = a->sin;
    t[4] = a->index, t[5] = a->k_cache, t[6] = a->ckv_cache;
    t[7] = a->k_rope_scale, t[8] = a->c_kv_scale;
    t[9] = a->k_rope_offset, t[10] = a->c_kv_offset;
    t[11] = a->is_output_kv ? a->k_rope : NULL;
    t[12] = a->is_output_kv ? a->c_kv : NULL;
    t[13] = a->v;
}

static kvg_status check_dense_all(args_t *a, kvg_diag *diag)
{
    const kvg_tensor *t[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS];
    size_t i;
    kvg_i_kv_rms_norm_rope_cache_tensors(a, t);
    for (i = 0; i < KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS; i++)
        if (t[i] != NULL)
            KVG_TRY(kvg_i_check_dense(
                t[i], kvg_i_kv_rms_norm_rope_cache_names[i], diag));
    return KVG_OK;
}

static kvg_status
check_kv_rope(args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p, kvg_diag *diag)
{
    const kvg_tensor *kv = a->kv, *cs = a->cos, *sn = a->sin;
    int i;

    TRY_NOTE(kvg_i_check_rank(kv, "kv", 4, diag), TILING);
    TRY_NOTE(kvg_i_check_dim(kv, "kv", 1, 1, "N; V1 has one head", diag),
             TILING);
    TRY_NOTE(kvg_i_check_rank(a->gamma, "gamma", 1, diag), TILING);
    TRY_NOTE(kvg_i_check_rank(cs, "cos", 4, diag), TILING);
    p->bkv = kv->shape[0];
    p->skv = kv->shape[2];
    p->nh = 1;
    p->dv = a->gamma->shape[0];
    p->dk = cs->shape[3];
    p->dr = p->dk;
    TRY_NOTE(kvg_i_check_dim(cs, "cos", 0, p->bkv, "Bkv, kv dim 0", diag),
             TILING);
    TRY_NOTE(kvg_i_check_dim(cs, "cos", 1, 1, "N", diag), TILING);
    if (cs->shape[2] != p->skv && cs->shape[2] != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 2, -1,
                            "cos: dim 2 must be Skv = %lld (kv dim 2) or 1 "
                            "(one row per batch), got %lld; " TILING,
                            (long long)p->skv, (long long)cs->shape[2]);
    p->srope = cs->shape[2];
    TRY_NOTE(kvg_i_check_rank(sn, "sin", 4, diag), TILING);
    for (i = 0; i < 4; i++)
        TRY_NOTE(kvg_i_check_dim(sn, "sin", i, cs->shape[i], "as cos", diag),
                 TILING);
    if (p->dk % 2 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 3, -1,
                            "cos: dim 3 (Dk) must be even for the interleaved "
                            "RoPE, got %lld; " TILING, (long long)p->dk);
    if (kv->shape[3] != p->dv + p->dk)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv", 3, -1,
                            "kv: dim 3 must be Dv + Dk = %lld + %lld = %lld "
                            "(gamma dim 0 + cos dim 3), got %lld; the 950 "
                            "tiling does not check this and would read rows "
                            "with the wrong stride", (long long)p->dv,
                            (long long)p->dk, (long long)(p->dv + p->dk),
                            (long long)kv->shape[3]);
    if (is_a2(a) && p->dv != 512)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "gamma", 0, -1,
                            "gamma: dim 0 (Dv) must be 512 on " A2 " (kv D = "
                            "576 = 512 + 64), got %lld; " TILING,
                            (long long)p->dv);
    if (is_a2(a) && p->dk != 64)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 3, -1,
                            "cos: dim 3 (Dk) must be 64 on " A2 " (kv D = 576 "
                            "= 512 + 64), got %lld; " TILING, (long long)p->dk);
    return KVG_OK;
}

/* V2: kv [Bkv, N, Skv, Dk] is normalised whole, its first R channels
 * rotated; v [Bkv, N, Skv, Dv] goes to ckv_cache. */
static kvg_status check_kv_rope_v2(args_t *a,
                                   kvg_i_kv_rms_norm_rope_cache_plan *p,
                                   kvg_diag *diag)
{
    const kvg_tensor *kv = a->kv, *cs = a->cos, *sn = a->sin, *v = a->v;
    static const char *const dims[3] = {"Bkv, kv dim 0", "N, kv dim 1",
                                        "Skv, kv dim 2"};
    int i;

    TRY_NOTE(kvg_i_check_rank(kv, "kv", 4, diag), TILING);
    TRY_NOTE(kvg_i_check_rank(a->gamma, "gamma", 1, diag), TILING);
    TRY_NOTE(kvg_i_check_rank(cs, "cos", 4, diag), TILING);
    TRY_NOTE(kvg_i_check_rank(v, "v", 4, diag), TILING);
    p->bkv = kv->shape[0];
    p->nh = kv->shape[1];
    p->skv = kv->shape[2];
    p->dk = kv->shape[3];
    p->dv = v->shape[3];
    p->dr = cs->shape[3];
    TRY_NOTE(kvg_i_check_dim(a->gamma, "gamma", 0, p->dk,
                             "Dk, kv dim 3: V2 normalises the whole kv row",
                             diag), TILING);
    for (i = 0; i < 3; i++)
        TRY_NOTE(kvg_i_check_dim(v, "v", i, kv->shape[i], dims[i], diag),
                 TILING);
    TRY_NOTE(kvg_i_check_dim(cs, "cos", 0, p->bkv, dims[0], diag), TILING);
    TRY_NOTE(kvg_i_check_dim(cs, "cos", 1, p->nh, dims[1], diag), TILING);
    if (cs->shape[2] != p->skv && cs->shape[2] != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 2, -1,
                            "cos: dim 2 must be Skv = %lld (kv dim 2) or 1 "
                            "(one row per batch and head), got %lld; " TILING,
                            (long long)p->skv, (long long)cs->shape[2]);
    p->srope = cs->shape[2];
    TRY_NOTE(kvg_i_check_rank(sn, "sin", 4, diag), TILING);
    for (i = 0; i < 4; i++)
        TRY_NOTE(kvg_i_check_dim(sn, "sin", i, cs->shape[i], "as cos", diag),
                 TILING);
    if (p->dr % 2 != 0 || p->dr > p->dk)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 3, -1,
                            "cos: dim 3 (R, the RoPE width) must be even and "
                            "at most Dk = %lld (kv dim 3), got %lld",
                            (long long)p->dk, (long long)p->dr);
    if (!is_a2(a))
        return KVG_OK;
    if (p->dk != 192)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv", 3, -1,
                            "kv: dim 3 (Dk) must be 192 in V2 on " A2 ", got "
                            "%lld; " TILING, (long long)p->dk);
    if (p->dr != 64)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 3, -1,
                            "cos: dim 3 (R) must be 64 in V2 on " A2 ", got "
                            "%lld; " TILING, (long long)p->dr);
    if (p->dv != 128)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "v", 3, -1,
                            "v: dim 3 (Dv) must be 128 in V2 on " A2 ", got "
                            "%lld; " TILING " (torch_npu runs V1 and ignores "
                            "v unless its dim 3 is 128)", (long long)p->dv);
    if (p->nh != 1 && p->nh != 2 && p->nh != 4 && p->nh != 8)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv", 1, -1,
                            "kv: dim 1 (N) must be 1, 2, 4 or 8 in V2 on " A2
                            ", got %lld; " TILING, (long long)p->nh);
    return KVG_OK;
}

static kvg_status check_norm_cache(const kvg_tensor *c, const char *name,
                                   int64_t d, const char *what,
                                   const kvg_i_kv_rms_norm_rope_cache_plan *p,
                                   int64_t scache, kvg_diag *diag)
{
    const char *heads = p->v2 ? "N, kv dim 1" : "N; V1 has one head";
    TRY_NOTE(kvg_i_check_rank(c, name, 4, diag), TILING);
    if (c->shape[0] < p->bkv)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, 0, -1,
                            "%s: dim 0 (Bcache) must be at least Bkv = %lld, "
                            "got %lld; " TILING, name, (long long)p->bkv,
                            (long long)c->shape[0]);
    TRY_NOTE(kvg_i_check_dim(c, name, 1, p->nh, heads, diag), TILING);
    TRY_NOTE(kvg_i_check_dim(c, name, 2, scache, "Scache, k_cache dim 2",
                             diag), TILING);
    TRY_NOTE(kvg_i_check_dim(c, name, 3, d, what, diag), TILING);
    return KVG_OK;
}

static kvg_status check_pa_cache(const kvg_tensor *c, const char *name,
                                 int64_t d, const char *what,
                                 const kvg_tensor *k,
                                 const kvg_i_kv_rms_norm_rope_cache_plan *p,
                                 kvg_diag *diag)
{
    static const char *same =
        "the NPU addresses both caches with k_cache's BlockNum and BlockSize "
        "without checking";
    TRY_NOTE(kvg_i_check_rank(c, name, 4, diag), TILING);
    if (c != k) {
        TRY_NOTE(kvg_i_check_dim(c, name, 0, k->shape[0],
                                 "BlockNum, k_cache dim 0", diag), same);
        TRY_NOTE(kvg_i_check_dim(c, name, 1, k->shape[1],
                                 "BlockSize, k_cache dim 1", diag), same);
    }
    TRY_NOTE(kvg_i_check_dim(c, name, 2, p->nh,
                             p->v2 ? "N, kv dim 1" : "N; V1 has one head",
                             diag), TILING);
    TRY_NOTE(kvg_i_check_dim(c, name, 3, d, what, diag), TILING);
    return KVG_OK;
}

static int is_nz(kvg_cache_mode m)
{
    return m == KVG_CACHE_PA_NZ || m == KVG_CACHE_PA_BLK_NZ;
}

static void set_layout(kvg_cache_layout *l, args_t *a, const kvg_tensor *c,
                       int64_t d, int64_t nh)
{
    memset(l, 0, sizeof *l);
    l->kind = a->cache_mode == KVG_CACHE_NORM ? KVG_LAYOUT_BNSD
              : is_nz(a->cache_mode)             ? KVG_LAYOUT_NZ
                                                 : KVG_LAYOUT_ND;
    l->blocks = c->shape[0];
    l->slots = a->cache_mode == KVG_CACHE_NORM ? c->shape[2] : c->shape[1];
    l->heads = nh;
    l->dim = d;
    l->c0 = kvg_c0_of(c->dtype);
}

/* NZ splits each row into C0-channel runs: D must be whole runs. */
static kvg_status check_nz_dim(const kvg_tensor *c, const char *name,
                               int64_t d, const char *what, args_t *a,
                               kvg_diag *diag)
{
    const int64_t c0 = kvg_c0_of(c->dtype);
    if (d % c0 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, 3, -1,
                            "%s: dim 3 (%s = %lld) must be a multiple of %lld "
                            "(C0 of %s, 32 bytes) in %s; " TILING, name, what,
                            (long long)d, (long long)c0,
                            kvg_dtype_name(c->dtype),
                            kvg_cache_mode_name(a->cache_mode));
    return KVG_OK;
}

static kvg_status check_block_size(const kvg_tensor *c, const char *name,
                                   kvg_diag *diag)
{
    const int64_t c0 = kvg_c0_of(c->dtype);
    if (c->shape[1] % c0 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, 1, -1,
                            "%s: dim 1 (BlockSize = %lld) must be a multiple "
                            "of %lld (C0 of %s, 32 bytes) in PA modes; " TILING
                            " (profile a2a3 does not require it: the " A2
                            " host code never checks it)", name,
                            (long long)c->shape[1], (long long)c0,
                            kvg_dtype_name(c->dtype));
    return KVG_OK;
}

static kvg_status check_caches(args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p,
                               kvg_diag *diag)
{
    const kvg_tensor *k = a->k_cache, *c = a->ckv_cache;
    const char *kwhat = p->v2 ? "Dk, kv dim 3" : "Dk, cos dim 3";
    const char *cwhat = p->v2 ? "Dv, v dim 3" : "Dv, gamma dim 0";

    if (a->cache_mode == KVG_CACHE_NORM) {
        TRY_NOTE(kvg_i_check_rank(k, "k_cache", 4, diag), TILING);
        KVG_TRY(check_norm_cache(k, "k_cache", p->dk, kwhat, p,
                           k->shape[2], diag));
        KVG_TRY(check_norm_cache(c, "ckv_cache", p->dv, cwhat, p,
                           k->shape[2], diag));
        p->row_limit = k->shape[2];
    } else {
        KVG_TRY(check_pa_cache(k, "k_cache", p->dk, kwhat, k, p, diag));
        KVG_TRY(check_pa_cache(c, "ckv_cache", p->dv, cwhat, k, p, diag));
        p->bs = k->shape[1];
        p->row_limit = k->shape[0] * k->shape[1];
        /* The BlockSize alignment is the 950 tiling's rule; V2 runs only on
         * Atlas A2/A3, whose tiling never checks it */
        if (!is_a2(a) && !p->v2) {
            KVG_TRY(check_block_size(k, "k_cache", diag));
            KVG_TRY(check_block_size(c, "ckv_cache", diag));
        }
    }
    if (is_nz(a->cache_mode)) {
        KVG_TRY(check_nz_dim(k, "k_cache", p->dk, "Dk", a, diag));
        KVG_TRY(check_nz_dim(c, "ckv_cache", p->dv, "Dv", a, diag));
    }
    set_layout(&p->klay, a, k, p->dk, p->nh);
    set_layout(&p->clay, a, c, p->dv, p->nh);
    return KVG_OK;
}

static kvg_status check_index_shape(args_t *a,
                                    kvg_i_kv_rms_norm_rope_cache_plan *p,
                                    kvg_diag *diag)
{
    const kvg_tensor *ix = a->index;
    const char *m = kvg_cache_mode_name(a->cache_mode);

    if (a->cache_mode == KVG_CACHE_NORM) {
        KVG_TRY(kvg_i_check_rank(ix, "index", 2, diag));
        KVG_TRY(
            kvg_i_check_dim(ix, "index", 0, p->bkv, "Bkv in Norm mode", diag));
        KVG_TRY(
            kvg_i_check_dim(ix, "index", 1, p->skv, "Skv in Norm mode", diag));
        p->index_n = p->bkv * p->skv;
        return KVG_OK;
    }
    KVG_TRY(kvg_i_check_rank(ix, "index", 1, diag));
    if (kvg_i_kv_rms_norm_rope_cache_is_blk(a->cache_mode)) {
        char what[96];
        p->nb = (p->skv + p->bs - 1) / p->bs;
        p->index_n = p->bkv * p->nb;
        (void)snprintf(what, sizeof what,
                       "Bkv * ceil(Skv / BlockSize) = %lld * %lld in %s",
                       (long long)p->bkv, (long long)p->nb, m);
        return note(diag, kvg_i_check_dim(ix, "index", 0, p->index_n, what,
                                          diag), TILING);
    }
    p->index_n = p->bkv * p->skv;
    return note(diag, kvg_i_check_dim(ix, "index", 0, p->index_n,
                                      "Bkv * Skv in PA modes", diag), TILING);
}

/* A scale or offset: [D], [1, D] or, off A2/A3, the scalar forms [1] and
 * [1, 1]. Returns its numel in *n. */
static kvg_status check_qparam(args_t *a, const kvg_tensor *t,
                               const char *name, int64_t d, int64_t *n,
                               kvg_diag *diag)
{
    int64_t last;
    *n = 0;
    if (t == NULL)
        return KVG_OK;
    last = t->rank >= 1 ? t->shape[t->rank - 1] : -1;
    if ((t->rank == 1 || (t->rank == 2 && t->shape[0] == 1)) &&
        (last == d || (last == 1 && !is_a2(a)))) {
        *n = last;
        return KVG_OK;
    }
    {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        if (is_a2(a))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                                "%s: shape must be [%lld] or [1, %lld] on " A2
                                " (no scalar scale), got %s; " TILING, name,
                                (long long)d, (long long)d, shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: shape must be [%lld], [1, %lld] or [1] (one "
                            "value for every channel), got %s; " TILING, name,
                            (long long)d, (long long)d, shape);
    }
}

/* V2: a scale or offset per head and channel, [N, D]; with one head [D]
 * too (the same floats). No broadcast form: the V2 kernels read N * D
 * floats whatever the shape (a [D] scale with N > 1 would be read past
 * its end). */
static kvg_status check_qparam_v2(const kvg_tensor *t, const char *name,
                                  int64_t d,
                                  const kvg_i_kv_rms_norm_rope_cache_plan *p,
                                  int64_t *n, kvg_diag *diag)
{
    char shape[160];
    *n = 0;
    if (t == NULL)
        return KVG_OK;
    if ((t->rank == 2 && t->shape[0] == p->nh && t->shape[1] == d) ||
        (t->rank == 1 && p->nh == 1 && t->shape[0] == d)) {
        *n = p->nh * d;
        return KVG_OK;
    }
    kvg_i_shape_str(t, shape, sizeof shape);
    if (p->nh == 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: shape must be [1, %lld] or [%lld] in V2 (one "
                            "value per channel, no broadcast), got %s", name,
                            (long long)d, (long long)d, shape);
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                        "%s: shape must be [N, D] = [%lld, %lld] in V2 (one "
                        "value per head and channel, no broadcast; the "
                        "kernels read N * D floats whatever the shape), got %s",
                        name, (long long)p->nh, (long long)d, shape);
}

static kvg_status check_quant(args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    if (p->v2) {
        KVG_TRY(check_quant_inputs(a, 1, "k_cache", a->k_cache, p->kquant,
                                   a->k_rope_scale, "k_rope_scale",
                                   a->k_rope_offset, "k_rope_offset",
                                   diag));
        KVG_TRY(check_quant_inputs(a, 1, "ckv_cache", a->ckv_cache,
                                   p->cquant, a->c_kv_scale, "c_kv_scale",
                                   a->c_kv_offset, "c_kv_offset", diag));
        KVG_TRY(check_qparam_v2(a->k_rope_scale, "k_rope_scale", p->dk, p,
                                &p->kscale_n, diag));
        KVG_TRY(check_qparam_v2(a->k_rope_offset, "k_rope_offset", p->dk,
                                p, &p->koff_n, diag));
        KVG_TRY(check_qparam_v2(a->c_kv_scale, "c_kv_scale", p->dv, p,
                                &p->cscale_n, diag));
        return check_qparam_v2(a->c_kv_offset, "c_kv_offset", p->dv, p,
                               &p->coff_n, diag);
    }
    KVG_TRY(check_quant_inputs(a, 0, "k_cache", a->k_cache, p->kquant,
                         a->k_rope_scale, "k_rope_scale", a->k_rope_offset,
                         "k_rope_offset", diag));
    KVG_TRY(check_quant_inputs(a, 0, "ckv_cache", a->ckv_cache, p->cquant,
                         a->c_kv_scale, "c_kv_scale", a->c_kv_offset,
                         "c_kv_offset", diag));
    KVG_TRY(check_qparam(a, a->k_rope_scale, "k_rope_scale", p->dk,
                         &p->kscale_n, diag));
    KVG_TRY(check_qparam(a, a->k_rope_offset, "k_rope_offset", p->dk,
                         &p->koff_n, diag));
    KVG_TRY(check_qparam(a, a->c_kv_scale, "c_kv_scale", p->dv, &p->cscale_n,
                   diag));
    KVG_TRY(check_qparam(a, a->c_kv_offset, "c_kv_offset", p->dv, &p->coff_n,
                   diag));
    if (is_a2(a) && a->k_rope_scale != NULL && a->c_kv_scale != NULL &&
        a->k_rope_scale->rank != a->c_kv_scale->rank)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "c_kv_scale", -1, -1,
                            "c_kv_scale: rank %d differs from k_rope_scale's "
                            "rank %d; " A2 " need both scales of one rank; "
                            TILING, a->c_kv_scale->rank, a->k_rope_scale->rank);
    return KVG_OK;
}

static kvg_status check_outputs(args_t *a,
                                const kvg_i_kv_rms_norm_rope_cache_plan *p,
                                kvg_diag *diag)
{
    const kvg_tensor *const t[2] = {a->k_rope, a->c_kv};
    static const char *const n[2] = {"k_rope", "c_kv"};
    const int64_t d[2] = {p->dk, p->dv};
    int i;

    if (!p->out_kv)
        return KVG_OK;
    for (i = 0; i < 2; i++) {
        KVG_TRY(kvg_i_check_rank(t[i], n[i], 4, diag));
        KVG_TRY(kvg_i_check_dim(t[i], n[i], 0, p->bkv, "Bkv", diag));
        KVG_TRY(kvg_i_check_dim(t[i], n[i], 1, p->nh,
                                p->v2 ? "N, kv dim 1" : "N", diag));
        KVG_TRY(kvg_i_check_dim(t[i], n[i], 2, p->skv, "Skv", diag));
        KVG_TRY(kvg_i_check_dim(t[i], n[i], 3, d[i], i ? "Dv" : "Dk", diag));
    }
    return KVG_OK;
}

/* V2 writes k_rope / c_kv in Norm mode only with quantisation, in every
 * profile. Atlas A2/A3 are the only chips that run V2: their tiling turns
 * is_output_kv off for Norm without a scale, and the Norm kernels it then
 * picks (keys 1000, 1001, 3000) are not even given the outputs' addresses,
 * so the NPU leaves them as allocated (aclnnKvRmsNormRopeCacheV2: the flag
 * has no effect there). The Ascend 950 runs no V2 (it ignores v). An
 * expected k_rope / c_kv would fail an honest kernel: refuse, as a2a3 V1
 * Norm with is_output_kv (docs/kv_rms_norm_rope_cache.md, Decisions). */
static kvg_status
check_v2_norm_outputs(args_t *a, const kvg_i_kv_rms_norm_rope_cache_plan *p,
                      kvg_diag *diag)
{
    if (p->v2 && a->cache_mode == KVG_CACHE_NORM && p->out_kv &&
        !p->kquant && !p->cquant)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "is_output_kv", -1, -1,
                            "is_output_kv: V2 (v given) writes k_rope / c_kv "
                            "in Norm mode only with a quantised cache; "
                            "without one, " A2 " (the only chips that run V2) "
                            "turn the flag off in the tiling and leave both "
                            "outputs unwritten, and the Ascend 950 runs no V2 "
                            "(profile %s); set is_output_kv false, quantise a "
                            "cache, or use a PA mode",
                            kvg_kv_profile_name(a->profile));
    return KVG_OK;
}

/* What Atlas A2/A3 accept as a combination (tiling and kernel dispatch). */
static kvg_status
check_a2_combination(args_t *a, const kvg_i_kv_rms_norm_rope_cache_plan *p,
                     kvg_diag *diag)
{
    const int norm = a->cache_mode == KVG_CACHE_NORM;
    if (!is_a2(a))
        return KVG_OK;
    if (!p->v2 && norm && (a->k_rope_scale != NULL || a->c_kv_scale != NULL))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID,
                            a->k_rope_scale ? "k_rope_scale" : "c_kv_scale",
                            -1, -1, "%s: " A2 " do not quantise in Norm mode; "
                            TILING "; use a PA mode, or profile ascend950",
                            a->k_rope_scale ? "k_rope_scale" : "c_kv_scale");
    if (!p->v2 && norm && p->out_kv)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "is_output_kv", -1, -1,
                            "is_output_kv: " A2 " never write k_rope / c_kv in "
                            "Norm mode (the flag is ignored and the outputs "
                            "stay unwritten); use a PA mode, or profile "
                            "ascend950");
    if (p->srope == 1 && p->skv > 1 &&
        !(norm || (a->cache_mode == KVG_CACHE_PA_BNSD && !p->kquant &&
                   !p->cquant && !p->out_kv)))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cos", 2, -1,
                            "cos: dim 2 = 1 broadcasts one row over Skv = %lld "
                            "tokens, which " A2 " implement only in Norm mode "
                            "and in non-quantised PA / PA_BNSD without "
                            "is_output_kv; the other kernels read cos per "
                            "token, past the tensor", (long long)p->skv);
    return KVG_OK;
}

/* ---- buffers that must not share memory --------------------------------- */

/* The call's tensors for kvg_i_check_apart, in
 * kvg_i_kv_rms_norm_rope_cache_names order: the caches (5, 6) and the
 * is_output_kv outputs (11, 12) are written, v (13) is read. */
size_t kvg_i_kv_rms_norm_rope_cache_spans(
    args_t *a, kvg_i_span s[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS])
{
    const kvg_tensor *t[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS];
    size_t i;

    kvg_i_kv_rms_norm_rope_cache_tensors(a, t);
    for (i = 0; i < KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS; i++) {
        s[i].name = kvg_i_kv_rms_norm_rope_cache_names[i];
        s[i].t = t[i];
        s[i].written = i == 5 || i == 6 || i == 11 || i == 12;
    }
    return KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS;
}

static kvg_status check_overlaps(args_t *a, kvg_diag *diag)
{
    kvg_i_span s[KVG_I_KV_RMS_NORM_ROPE_CACHE_TENSORS];
    const size_t n = kvg_i_kv_rms_norm_rope_cache_spans(a, s);
    return kvg_i_check_apart(s, n, NULL, 0, diag);
}

kvg_status kvg_i_kv_rms_norm_rope_cache_check_args(
    args_t *a, kvg_i_kv_rms_norm_rope_cache_plan *p, kvg_diag *diag)
{
    memset(p, 0, sizeof *p);
    KVG_TRY(check_presence(a, diag));
    KVG_TRY(check_attrs(a, p, diag));
    KVG_TRY(check_dense_all(a, diag));
    KVG_TRY(check_dtypes(a, p, diag));
    KVG_TRY(p->v2 ? check_kv_rope_v2(a, p, diag)
                  : check_kv_rope(a, p, diag));
    KVG_TRY(check_caches(a, p, diag));
    KVG_TRY(check_index_shape(a, p, diag));
    KVG_TRY(check_quant(a, p, diag));
    KVG_TRY(check_outputs(a, p, diag));
    KVG_TRY(check_v2_norm_outputs(a, p, diag));
    KVG_TRY(check_a2_combination(a, p, diag));
    return check_overlaps(a, diag);
}

/* ---- contents: inf / NaN ------------------------------------------------ */

/* "1, 0, 37": the coordinate of flat element i. */
static void coord_str(const kvg_tensor *t, int64_t i, char *buf, size_t size)
{
    int64_t coord[KVG_MAX_RANK];
    size_t used = 0;
    int k;

    buf[0] = '\0';
    for (k = t->rank - 1; k >= 0; k--) {
        coord[k] = i % t->shape[k];
        i /= t->shape[k];
    }
    for (k = 0; k < t->rank && used + 24 < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld",
                                 k ? ", " : "", (long long)coord[k]);
}

/* 1 when no element of a fp16 / bf16 / fp32 tensor has the all-ones
 * exponent of inf and NaN: one pass over the raw bits, no decoding (the
 * check runs on every input element of every call). Other dtypes: 0, so
 * that the caller looks at them element by element.
 * Adding the exponent's lowest bit to the masked exponent carries into the
 * sign position exactly when the exponent is all ones, so the loop only
 * ORs and tests that bit once at the end: no compare per element, and it
 * vectorises in the element's own width. */
KVG_I_ROW_KERNEL
static int all_finite_bits(const kvg_tensor *t, int64_t n)
{
    const unsigned char *d = (const unsigned char *)t->data;
    int64_t i;

    if (t->dtype == KVG_FP32) {
        uint32_t acc = 0;
        for (i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, d + (size_t)i * 4, 4);
            acc |= (u & 0x7F800000u) + 0x00800000u;
        }
        return (acc & 0x80000000u) == 0;
    }
    if (t->dtype == KVG_FP16 || t->dtype == KVG_BF16) {
        const uint16_t mask = t->dtype == KVG_FP16 ? 0x7C00u : 0x7F80u;
        const uint16_t low = (uint16_t)(mask & (0u - mask)); /* lowest bit */
        uint16_t acc = 0;
        for (i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, d + (size_t)i * 2, 2);
            acc |= (uint16_t)((h & mask) + low);
        }
        return (acc & 0x8000u) == 0;
    }
    return 0;
}

static kvg_status finite_tensor(const kvg_tensor *t, const char *name,
                                kvg_diag *diag)
{
    const unsigned char *d = (const unsigned char *)t->data;
    const size_t es = kvg_dtype_size(t->dtype);
    const int64_t n = kvg_i_numel(t);
    int64_t i;

    if (all_finite_bits(t, n))
        return KVG_OK;
    for (i = 0; i < n; i++) {
        float v;
        char at[160], shape[160];
        (void)kvg_decode_f32(t->dtype, d + (size_t)i * es, &v);
        if (isfinite(v))
            continue;
        coord_str(t, i, at, sizeof at);
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, i,
                            "%s: element %lld ([%s] of %s) is %s; the operator "
                            "does not accept inf or NaN inputs (aclnn "
                            "documentation), the NPU result is unspecified",
                            name, (long long)i, at, shape,
                            isnan(v) ? "NaN" : "inf");
    }
    return KVG_OK;
}

kvg_status kvg_i_kv_rms_norm_rope_cache_check_finite(args_t *a, kvg_diag *diag)
{
    const kvg_tensor *const t[] = {a->kv, a->gamma, a->cos, a->sin,
                                   a->k_rope_scale, a->c_kv_scale,
                                   a->k_rope_offset, a->c_kv_offset, a->v};
    static const char *const n[] = {"kv", "gamma", "cos", "sin",
                                    "k_rope_scale", "c_kv_scale",
                                    "k_rope_offset", "c_kv_offset", "v"};
    size_t i;
    for (i = 0; i < sizeof n / sizeof n[0]; i++)
        if (t[i] != NULL)
            KVG_TRY(finite_tensor(t[i], n[i], diag));
    return KVG_OK;
}

/* ---- contents: index values --------------------------------------------- */

static kvg_status out_of_range(args_t *a,
                               const kvg_i_kv_rms_norm_rope_cache_plan *p,
                               int64_t pos, int64_t v, kvg_diag *diag)
{
    const char *m = kvg_cache_mode_name(a->cache_mode);
    const char *npu = "the 950 kernel would silently skip the write, " A2
                      " would write past the cache";
    if (a->cache_mode == KVG_CACHE_NORM)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, pos,
                            "index: token %lld (batch %lld, seq %lld) has "
                            "position %lld, outside [0, %lld) (Scache, k_cache "
                            "dim 2; negative values skip); %s", (long long)pos,
                            (long long)(pos / p->skv),
                            (long long)(pos % p->skv),
                            (long long)v, (long long)p->row_limit, npu);
    if (kvg_i_kv_rms_norm_rope_cache_is_blk(a->cache_mode))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, pos,
                            "index: entry %lld (batch %lld, block %lld of the "
                            "sequence) is %lld, outside [0, %lld) (BlockNum * "
                            "BlockSize in %s; negative values skip); %s",
                            (long long)pos, (long long)(pos / p->nb),
                            (long long)(pos % p->nb), (long long)v,
                            (long long)p->row_limit, m, npu);
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, pos,
                        "index: token %lld (batch %lld, seq %lld) has slot "
                        "%lld, outside [0, %lld) (BlockNum * BlockSize in %s; "
                        "negative values skip); %s", (long long)pos,
                        (long long)(pos / p->skv), (long long)(pos % p->skv),
                        (long long)v, (long long)p->row_limit, m, npu);
}

static kvg_status duplicate(args_t *a,
                            const kvg_i_kv_rms_norm_rope_cache_plan *p,
                            int64_t key, int64_t first, int64_t second,
                            kvg_diag *diag)
{
    const int64_t v1 = kvg_i_index_at(a->index, first);
    const int64_t v2 = kvg_i_index_at(a->index, second);
    const char *race = "the NPU writes them in parallel, so which one lands "
                       "is undefined";
    if (a->cache_mode == KVG_CACHE_NORM)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, second,
                            "index: tokens %lld and %lld (batch %lld, seq %lld "
                            "and %lld) both write position %lld; positions may "
                            "repeat across batches, not within one; %s",
                            (long long)first, (long long)second,
                            (long long)(first / p->skv),
                            (long long)(first % p->skv),
                            (long long)(second % p->skv), (long long)v1, race);
    if (kvg_i_kv_rms_norm_rope_cache_is_blk(a->cache_mode))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, second,
                            "index: entries %lld and %lld (values %lld and "
                            "%lld) both select block %lld; value / BlockSize "
                            "must be unique in %s; %s", (long long)first,
                            (long long)second, (long long)v1, (long long)v2,
                            (long long)key,
                            kvg_cache_mode_name(a->cache_mode), race);
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "index", -1, second,
                        "index: tokens %lld and %lld both write slot %lld; "
                        "slots must be unique in %s; %s", (long long)first,
                        (long long)second, (long long)key,
                        kvg_cache_mode_name(a->cache_mode), race);
}

/* The unique-index check's callbacks (kvg_i_check_unique). */
typedef struct index_ctx {
    args_t *a;
    const kvg_i_kv_rms_norm_rope_cache_plan *p;
} index_ctx;

static int64_t index_key(const void *ctx, int64_t i, int64_t v)
{
    const index_ctx *c = (const index_ctx *)ctx;
    if (c->a->cache_mode == KVG_CACHE_NORM)
        return (i / c->p->skv) * c->p->row_limit + v; /* batch-local */
    if (kvg_i_kv_rms_norm_rope_cache_is_blk(c->a->cache_mode))
        return v / c->p->bs; /* only the block is used */
    return v;
}

static kvg_status index_out_of_range(const void *ctx, int64_t i, int64_t v,
                                     kvg_diag *diag)
{
    const index_ctx *c = (const index_ctx *)ctx;
    return out_of_range(c->a, c->p, i, v, diag);
}

static kvg_status index_repeated(const void *ctx, int64_t key, int64_t first,
                                 int64_t second, kvg_diag *diag)
{
    const index_ctx *c = (const index_ctx *)ctx;
    if (c->a->cache_mode == KVG_CACHE_NORM)
        key %= c->p->row_limit;
    return duplicate(c->a, c->p, key, first, second, diag);
}

kvg_status kvg_i_kv_rms_norm_rope_cache_check_index(
    args_t *a, const kvg_i_kv_rms_norm_rope_cache_plan *p, kvg_i_keypos *keys,
    kvg_diag *diag)
{
    index_ctx c;
    kvg_i_unique u;
    c.a = a, c.p = p;
    u.index = a->index, u.n = p->index_n, u.limit = p->row_limit;
    u.ctx = &c, u.key_of = index_key, u.negative = NULL;
    u.out_of_range = index_out_of_range;
    u.repeated = index_repeated;
    return kvg_i_check_unique(&u, keys, diag);
}

/* ---- workspace ---------------------------------------------------------- */

/* The pieces in kvg_i_kv_rms_norm_rope_cache_ws order; the size query measures
 * this same carving (src/common/entry.c). */
void kvg_i_kv_rms_norm_rope_cache_ws_carve(
    const kvg_i_kv_rms_norm_rope_cache_plan *p, kvg_i_ws *w,
    kvg_i_kv_rms_norm_rope_cache_ws *ws)
{
    const size_t dv = (size_t)p->dv, dk = (size_t)p->dk;
    const size_t nw = p->v2 ? dk : dv, rw = (size_t)p->dr;
    const size_t kq = p->v2 ? (size_t)p->nh * dk : dk;
    const size_t cq = p->v2 ? (size_t)p->nh * dv : dv;

    ws->keys = (kvg_i_keypos *)kvg_i_ws_take(w, (size_t)p->index_n,
                                             sizeof(kvg_i_keypos));
    ws->gamma = (float *)kvg_i_ws_take(w, nw, sizeof(float));
    ws->xv = (float *)kvg_i_ws_take(w, nw, sizeof(float));
    ws->y = (float *)kvg_i_ws_take(w, nw, sizeof(float));
    ws->scratch = (float *)kvg_i_ws_take(w, kvg_i_sum_squares_scratch(nw),
                                         sizeof(float));
    ws->xr = (float *)kvg_i_ws_take(w, rw, sizeof(float));
    ws->r = (float *)kvg_i_ws_take(w, rw, sizeof(float));
    ws->cos = (float *)kvg_i_ws_take(w, rw, sizeof(float));
    ws->sin = (float *)kvg_i_ws_take(w, rw, sizeof(float));
    ws->kscale = (float *)kvg_i_ws_take(w, kq, sizeof(float));
    ws->koff = (float *)kvg_i_ws_take(w, kq, sizeof(float));
    ws->cscale = (float *)kvg_i_ws_take(w, cq, sizeof(float));
    ws->coff = (float *)kvg_i_ws_take(w, cq, sizeof(float));
    ws->krow = (unsigned char *)kvg_i_ws_take(w, dk, 2);
    ws->crow = (unsigned char *)kvg_i_ws_take(w, dv, 2);
    ws->vrow = p->v2 ? (float *)kvg_i_ws_take(w, dv, sizeof(float)) : NULL;
}
