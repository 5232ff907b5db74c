/*
 * src/ops/qkv_rms_norm_rope_cache/check.c - validation of
 * QkvRmsNormRopeCache: the aclnn null checks (161001), the host tiling
 * checks of the real operator (reference section 8.2) and kvgold's value
 * checks (161002). Nothing here writes to a tensor.
 *
 * The order follows the real operator: null pointers, attributes, then each
 * tensor in parameter order, then index values (a separate pass, because it
 * needs the workspace for the duplicate search).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/layout.h"
#include "src/ops/qkv_rms_norm_rope_cache/internal.h"

#define INV KVG_ERR_PARAM_INVALID

/* ---- presence ------------------------------------------------------- */

static kvg_status check_optional(const kvg_tensor *t, const char *name,
                                 kvg_diag *diag)
{
    return t == NULL ? KVG_OK : kvg_i_check_present(t, name, diag);
}

/*
 * The before-quant outputs come as a set. aclnn decides from
 * q_out_before_quant alone and refuses a partial set with an inner
 * null-pointer code; kvgold names the tensor that breaks the set: a missing
 * k/v output is a NULL pointer (161001), a k/v output without q's would be
 * silently ignored by aclnn, which an oracle refuses (161002).
 */
static kvg_status check_before_set(const kvg_qkv_rms_norm_rope_cache_args *a,
                                   kvg_diag *diag)
{
    static const char *const names[3] = {"q_out_before_quant",
                                         "k_out_before_quant",
                                         "v_out_before_quant"};
    const kvg_tensor *t[3];
    int i;

    t[0] = a->q_out_before_quant;
    t[1] = a->k_out_before_quant;
    t[2] = a->v_out_before_quant;
    for (i = 1; i < 3; i++) {
        if (t[0] != NULL && t[i] == NULL)
            return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, names[i], -1, -1,
                                "%s: is NULL but q_out_before_quant is given "
                                "(the before-quant outputs are all three or "
                                "none)", names[i]);
        if (t[0] == NULL && t[i] != NULL)
            return kvg_diag_set(diag, INV, names[i], -1, -1,
                                "%s: is given but q_out_before_quant is NULL "
                                "(the before-quant outputs are all three or "
                                "none)", names[i]);
    }
    return KVG_OK;
}

static kvg_status check_presence(const kvg_qkv_rms_norm_rope_cache_args *a,
                                 kvg_diag *diag)
{
    const struct {
        const kvg_tensor *t;
        const char *name;
        int required;
    } list[] = {
        {a->qkv, "qkv", 1},
        {a->q_gamma, "q_gamma", 1},
        {a->k_gamma, "k_gamma", 1},
        {a->cos, "cos", 1},
        {a->sin, "sin", 1},
        {a->index, "index", 1},
        {a->q_out, "q_out", 1},
        {a->k_cache, "k_cache", 1},
        {a->v_cache, "v_cache", 1},
        {a->k_scale, "k_scale", 0},
        {a->v_scale, "v_scale", 0},
        {a->k_offset, "k_offset", 0},
        {a->v_offset, "v_offset", 0},
        {a->q_out_before_quant, "q_out_before_quant", 0},
        {a->k_out_before_quant, "k_out_before_quant", 0},
        {a->v_out_before_quant, "v_out_before_quant", 0},
    };
    size_t i;

    for (i = 0; i < sizeof list / sizeof list[0]; i++)
        KVG_TRY(list[i].required
                    ? kvg_i_check_present(list[i].t, list[i].name, diag)
                    : check_optional(list[i].t, list[i].name, diag));
    if (a->qkv_size == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "qkv_size", -1, -1,
                            "qkv_size: required attribute is NULL");
    if (a->head_nums == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "head_nums", -1, -1,
                            "head_nums: required attribute is NULL");
    return check_before_set(a, diag);
}

/* ---- attributes ------------------------------------------------------- */

static kvg_status check_list(const int64_t *v, size_t len, size_t want,
                             const char *name, const char *const *labels,
                             kvg_diag *diag)
{
    size_t i;
    if (len != want)
        return kvg_diag_set(diag, INV, name, -1, -1,
                            "%s: must have %lu elements, got %lu", name,
                            (unsigned long)want, (unsigned long)len);
    for (i = 0; i < len; i++)
        if (v[i] <= 0)
            return kvg_diag_set(diag, INV, name, (int)i, -1,
                                "%s: element %lu (%s) must be > 0, got %lld",
                                name, (unsigned long)i, labels[i],
                                (long long)v[i]);
    return KVG_OK;
}

static kvg_status check_heads(kvg_i_qkv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    int64_t sum;

    if (!kvg_i_add_i64(p->nq, p->nk, &sum) || !kvg_i_add_i64(sum, p->nv, &sum)
        || sum != p->n)
        return kvg_diag_set(diag, INV, "head_nums", -1, -1,
                            "head_nums: Nq + Nk + Nv must equal N = %lld "
                            "(qkv_size[2]), got %lld + %lld + %lld",
                            (long long)p->n, (long long)p->nq, (long long)p->nk,
                            (long long)p->nv);
    if (p->nk != p->nv)
        return kvg_diag_set(diag, INV, "head_nums", 2, -1,
                            "head_nums: Nv must equal Nk = %lld, got %lld",
                            (long long)p->nk, (long long)p->nv);
    if (p->nq % p->nk != 0)
        return kvg_diag_set(diag, INV, "head_nums", 0, -1,
                            "head_nums: Nq = %lld must be a multiple of Nk = "
                            "%lld", (long long)p->nq, (long long)p->nk);
    return KVG_OK;
}

static kvg_status check_options(const kvg_qkv_rms_norm_rope_cache_args *a,
                                kvg_i_qkv_rms_norm_rope_cache_plan *p,
                                kvg_diag *diag)
{
    /* The host does not range-check epsilon; kvgold refuses the values that
     * make every output NaN or cannot be narrowed to float. */
    if (!(a->epsilon >= 0.0 && a->epsilon <= (double)FLT_MAX))
        return kvg_diag_set(diag, INV, "epsilon", -1, -1,
                            "epsilon: must be finite and >= 0, got %g",
                            a->epsilon);
    p->eps = (float)a->epsilon;
    if (a->cache_mode != KVG_CACHE_PA_NZ) {
        const char *m = kvg_cache_mode_name(a->cache_mode);
        return kvg_diag_set(diag, INV, "cache_mode", -1, -1,
                            "cache_mode: must be KVG_CACHE_PA_NZ \"PA_NZ\" "
                            "(the only mode of this operator), got %s",
                            m != NULL ? m : "an invalid kvg_cache_mode");
    }
    if (kvg_reduce_order_name(a->reduce_order) == NULL)
        return kvg_diag_set(diag, INV, "reduce_order", -1, -1,
                            "reduce_order: invalid value %d",
                            (int)a->reduce_order);
    if (a->overflow != KVG_OVF_DEFAULT && a->overflow != KVG_OVF_SATURATE &&
        a->overflow != KVG_OVF_NONSAT)
        return kvg_diag_set(diag, INV, "overflow", -1, -1,
                            "overflow: invalid value %d", (int)a->overflow);
    return KVG_OK;
}

static kvg_status check_attrs(const kvg_qkv_rms_norm_rope_cache_args *a,
                              kvg_i_qkv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    static const char *const size_labels[4] = {"B", "S", "N", "D"};
    static const char *const head_labels[3] = {"Nq", "Nk", "Nv"};
    int64_t nd;

    KVG_TRY(check_list(a->qkv_size, a->qkv_size_len, 4, "qkv_size",
                       size_labels, diag));
    p->b = a->qkv_size[0];
    p->s = a->qkv_size[1];
    p->n = a->qkv_size[2];
    p->d = a->qkv_size[3];
    if (p->d != KVG_QKV_HEAD_DIM)
        return kvg_diag_set(diag, INV, "qkv_size", 3, -1,
                            "qkv_size: D must be %d (the only head size of the "
                            "operator), got %lld", KVG_QKV_HEAD_DIM,
                            (long long)p->d);
    if (!kvg_i_mul_i64(p->b, p->s, &p->tokens) ||
        !kvg_i_mul_i64(p->n, p->d, &nd))
        return kvg_diag_set(diag, INV, "qkv_size", -1, -1,
                            "qkv_size: B*S or N*D overflows int64");
    KVG_TRY(check_list(a->head_nums, a->head_nums_len, 3, "head_nums",
                       head_labels, diag));
    p->nq = a->head_nums[0];
    p->nk = a->head_nums[1];
    p->nv = a->head_nums[2];
    KVG_TRY(check_heads(p, diag));
    return check_options(a, p, diag);
}

/* ---- tensors ---------------------------------------------------------- */

/* Dense, of dtype `dt`, rank 2 with shape [r, c]. */
static kvg_status check_2d(const kvg_tensor *t, const char *name,
                           kvg_dtype dt, int64_t r, const char *rwhat,
                           int64_t c, const char *cwhat, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    KVG_TRY(kvg_i_check_dtype(t, name, dt, diag));
    KVG_TRY(kvg_i_check_rank(t, name, 2, diag));
    KVG_TRY(kvg_i_check_dim(t, name, 0, r, rwhat, diag));
    return kvg_i_check_dim(t, name, 1, c, cwhat, diag);
}

static kvg_status check_qkv(const kvg_tensor *t,
                            kvg_i_qkv_rms_norm_rope_cache_plan *p,
                            kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, "qkv", diag));
    if (t->dtype != KVG_FP16 && t->dtype != KVG_BF16)
        return kvg_diag_set(diag, INV, "qkv", -1, -1,
                            "qkv: dtype must be fp16 or bf16, got %s",
                            kvg_dtype_name(t->dtype));
    p->t = t->dtype;
    return check_2d(t, "qkv", p->t, p->tokens, "B*S", p->n * p->d, "N*D",
                    diag);
}

static kvg_status check_gamma(const kvg_tensor *t, const char *name,
                              const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    KVG_TRY(kvg_i_check_dtype(t, name, p->t, diag));
    KVG_TRY(kvg_i_check_rank(t, name, 1, diag));
    return kvg_i_check_dim(t, name, 0, p->d, "D", diag);
}

/*
 * cos/sin: [B*S, D], or [B, D] when S == 1 (then the two are the same).
 * The tiling also accepts [B, D] for S > 1, but the kernel has no broadcast
 * and reads row b*S+s past the end; kvgold refuses that case.
 */
static kvg_status check_rope_table(const kvg_tensor *t, const char *name,
                                   const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                                   kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    KVG_TRY(kvg_i_check_dtype(t, name, p->t, diag));
    KVG_TRY(kvg_i_check_rank(t, name, 2, diag));
    KVG_TRY(kvg_i_check_dim(t, name, 1, p->d, "D", diag));
    if (t->shape[0] == p->tokens)
        return KVG_OK;
    if (t->shape[0] == p->b)
        return kvg_diag_set(diag, INV, name, 0, -1,
                            "%s: dim 0 is B = %lld, accepted only when S == 1 "
                            "(the kernel reads row b*S+s and does not "
                            "broadcast); give [B*S, D] = [%lld, %lld] for S = "
                            "%lld", name, (long long)p->b, (long long)p->tokens,
                            (long long)p->d, (long long)p->s);
    return kvg_i_check_dim(t, name, 0, p->tokens, "B*S", diag);
}

/* The host also requires rows(sin) == rows(cos); with [B, D] accepted only
 * when S == 1 (so B == B*S), two tables that pass are the same shape. */
static kvg_status check_rope(const kvg_qkv_rms_norm_rope_cache_args *a,
                             const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                             kvg_diag *diag)
{
    KVG_TRY(check_rope_table(a->cos, "cos", p, diag));
    return check_rope_table(a->sin, "sin", p, diag);
}

static kvg_status
check_index_tensor(const kvg_tensor *t,
                   const kvg_i_qkv_rms_norm_rope_cache_plan *p, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, "index", diag));
    KVG_TRY(kvg_i_check_dtype(t, "index", KVG_INT64, diag));
    KVG_TRY(kvg_i_check_rank(t, "index", 1, diag));
    return kvg_i_check_dim(t, "index", 0, p->tokens, "B*S", diag);
}

/* dtype T (no quantisation) or int8; rank 4; dims 1 and 3 from the dtype's
 * C0. Returns the C0 in *c0. */
static kvg_status check_cache_form(const kvg_tensor *t, const char *name,
                                   const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                                   int64_t heads, kvg_diag *diag)
{
    char what[64];
    int64_t c0;

    KVG_TRY(kvg_i_check_dense(t, name, diag));
    if (t->dtype != p->t && t->dtype != KVG_INT8)
        return kvg_diag_set(diag, INV, name, -1, -1,
                            "%s: dtype must be %s (as qkv, no quantisation) or "
                            "int8 (quantised), got %s", name,
                            kvg_dtype_name(p->t), kvg_dtype_name(t->dtype));
    KVG_TRY(kvg_i_check_rank(t, name, 4, diag));
    c0 = kvg_c0_of(t->dtype);
    (void)snprintf(what, sizeof what, "N*D/C0 with C0 = %lld for %s",
                   (long long)c0, kvg_dtype_name(t->dtype));
    KVG_TRY(kvg_i_check_dim(t, name, 1, heads * p->d / c0, what, diag));
    (void)snprintf(what, sizeof what, "C0 of %s", kvg_dtype_name(t->dtype));
    return kvg_i_check_dim(t, name, 3, c0, what, diag);
}

static kvg_status check_caches(const kvg_qkv_rms_norm_rope_cache_args *a,
                               kvg_i_qkv_rms_norm_rope_cache_plan *p,
                               kvg_diag *diag)
{
    const kvg_tensor *k = a->k_cache, *v = a->v_cache;
    int64_t need;

    KVG_TRY(check_cache_form(k, "k_cache", p, p->nk, diag));
    p->blocks = k->shape[0];
    p->bs = k->shape[2];
    if (p->bs % 32 != 0)
        return kvg_diag_set(diag, INV, "k_cache", 2, -1,
                            "k_cache: dim 2 (BlockSize) must be a multiple of "
                            "32 (the host requires it for every cache dtype), "
                            "got %lld", (long long)p->bs);
    if (!kvg_i_mul_i64((p->s - 1) / p->bs + 1, p->b, &need) ||
        p->blocks < need)
        return kvg_diag_set(
            diag, INV, "k_cache", 0, -1,
            "k_cache: dim 0 (BlockNum) must be >= ceil(S / "
            "BlockSize) * B = ceil(%lld / %lld) * %lld, got %lld",
            (long long)p->s, (long long)p->bs, (long long)p->b,
            (long long)p->blocks);
    p->slots = p->blocks * p->bs; /* fits: the cache's numel does */
    KVG_TRY(check_cache_form(v, "v_cache", p, p->nv, diag));
    KVG_TRY(kvg_i_check_dim(v, "v_cache", 0, p->blocks,
                            "BlockNum of k_cache", diag));
    return kvg_i_check_dim(v, "v_cache", 2, p->bs, "BlockSize of k_cache",
                           diag);
}

/* A scale value of 0 is forbidden by the operator's documentation (nothing
 * on the device checks it; x / 0 would saturate every code). */
static kvg_status check_scale_values(const kvg_tensor *t, const char *name,
                                     kvg_diag *diag)
{
    const unsigned char *bytes = (const unsigned char *)t->data;
    int64_t n = kvg_i_numel(t), i;
    for (i = 0; i < n; i++) {
        float s;
        memcpy(&s, bytes + (size_t)i * sizeof s, sizeof s);
        if (s == 0.0f)
            return kvg_diag_set(diag, INV, name, -1, i,
                                "%s: element [%lld, %lld] is %s0 (scales must "
                                "be non-zero)", name,
                                (long long)(i / t->shape[1]),
                                (long long)(i % t->shape[1]),
                                signbit(s) ? "-" : "");
    }
    return KVG_OK;
}

/* scale: present iff the cache is int8; offset: only with an int8 cache
 * (the host checks its dtype only; kvgold also requires [N, D]). */
static kvg_status check_quant(const kvg_tensor *cache, const char *cname,
                              const kvg_tensor *scale, const char *sname,
                              const kvg_tensor *offset, const char *oname,
                              int64_t heads,
                              const kvg_i_qkv_rms_norm_rope_cache_plan *p,
                              kvg_diag *diag)
{
    const int quant = cache->dtype == KVG_INT8;

    if (quant && scale == NULL)
        return kvg_diag_set(diag, INV, sname, -1, -1,
                            "%s: required because %s is int8 (quantised)",
                            sname,
                            cname);
    if (!quant && scale != NULL)
        return kvg_diag_set(diag, INV, sname, -1, -1,
                            "%s: given but %s is %s (not quantised)", sname,
                            cname, kvg_dtype_name(cache->dtype));
    if (!quant && offset != NULL)
        return kvg_diag_set(diag, INV, oname, -1, -1,
                            "%s: given but %s is %s (not quantised)", oname,
                            cname, kvg_dtype_name(cache->dtype));
    if (!quant)
        return KVG_OK;
    KVG_TRY(check_2d(scale, sname, KVG_FP32, heads, "heads", p->d, "D",
                     diag));
    KVG_TRY(check_scale_values(scale, sname, diag));
    if (offset == NULL)
        return KVG_OK;
    return check_2d(offset, oname, KVG_FP32, heads, "heads", p->d, "D", diag);
}

static kvg_status check_outputs(const kvg_qkv_rms_norm_rope_cache_args *a,
                                kvg_i_qkv_rms_norm_rope_cache_plan *p,
                                kvg_diag *diag)
{
    KVG_TRY(check_2d(a->q_out, "q_out", p->t, p->tokens, "B*S",
                     p->nq * p->d, "Nq*D", diag));
    p->before = a->q_out_before_quant != NULL;
    if (!p->before)
        return KVG_OK;
    KVG_TRY(check_2d(a->q_out_before_quant, "q_out_before_quant", p->t,
                     p->tokens, "B*S", p->nq * p->d, "Nq*D", diag));
    KVG_TRY(check_2d(a->k_out_before_quant, "k_out_before_quant", p->t,
                     p->tokens, "B*S", p->nk * p->d, "Nk*D", diag));
    return check_2d(a->v_out_before_quant, "v_out_before_quant", p->t,
                    p->tokens, "B*S", p->nv * p->d, "Nv*D", diag);
}

kvg_status kvg_i_qkv_rms_norm_rope_cache_check_args(
    const kvg_qkv_rms_norm_rope_cache_args *a,
    kvg_i_qkv_rms_norm_rope_cache_plan *p, kvg_diag *diag)
{
    memset(p, 0, sizeof *p);
    KVG_TRY(check_presence(a, diag));
    KVG_TRY(check_attrs(a, p, diag));
    KVG_TRY(check_qkv(a->qkv, p, diag));
    KVG_TRY(check_gamma(a->q_gamma, "q_gamma", p, diag));
    KVG_TRY(check_gamma(a->k_gamma, "k_gamma", p, diag));
    KVG_TRY(check_rope(a, p, diag));
    KVG_TRY(check_index_tensor(a->index, p, diag));
    KVG_TRY(check_caches(a, p, diag));
    KVG_TRY(check_quant(a->k_cache, "k_cache", a->k_scale, "k_scale",
                        a->k_offset, "k_offset", p->nk, p, diag));
    KVG_TRY(check_quant(a->v_cache, "v_cache", a->v_scale, "v_scale",
                        a->v_offset, "v_offset", p->nv, p, diag));
    return check_outputs(a, p, diag);
}

/* ---- index values ----------------------------------------------------- */

/* The unique-index check's messages (kvg_i_check_unique). */
static kvg_status index_out_of_range(const void *ctx, int64_t t,
                                     int64_t slot, kvg_diag *diag)
{
    const kvg_i_qkv_rms_norm_rope_cache_plan *p =
        (const kvg_i_qkv_rms_norm_rope_cache_plan *)ctx;
    return kvg_diag_set(diag, INV, "index", -1, t,
                        "index: token %lld (b %lld, s %lld): slot %lld "
                        "is out of range [0, %lld) = BlockNum %lld * "
                        "BlockSize %lld (negative slots skip)",
                        (long long)t, (long long)(t / p->s),
                        (long long)(t % p->s), (long long)slot,
                        (long long)p->slots, (long long)p->blocks,
                        (long long)p->bs);
}

static kvg_status index_repeated(const void *ctx, int64_t key, int64_t first,
                                 int64_t second, kvg_diag *diag)
{
    const kvg_i_qkv_rms_norm_rope_cache_plan *p =
        (const kvg_i_qkv_rms_norm_rope_cache_plan *)ctx;
    return kvg_diag_set(diag, INV, "index", -1, second,
                        "index: token %lld (b %lld, s %lld) repeats slot "
                        "%lld of token %lld (non-negative slots must be "
                        "unique)", (long long)second,
                        (long long)(second / p->s), (long long)(second % p->s),
                        (long long)key, (long long)first);
}

kvg_status kvg_i_qkv_rms_norm_rope_cache_check_index(
    const kvg_qkv_rms_norm_rope_cache_args *a,
    const kvg_i_qkv_rms_norm_rope_cache_plan *p, kvg_i_keypos *scratch,
    kvg_diag *diag)
{
    kvg_i_unique u;
    u.index = a->index, u.n = p->tokens, u.limit = p->slots, u.ctx = p;
    u.key_of = NULL, u.negative = NULL, u.out_of_range = index_out_of_range;
    u.repeated = index_repeated;
    return kvg_i_check_unique(&u, scratch, diag);
}

/* ---- workspace ---------------------------------------------------------- */

/* The size query measures this same carving (src/common/entry.c). */
size_t kvg_i_qkv_rms_norm_rope_cache_row_floats(
    const kvg_i_qkv_rms_norm_rope_cache_plan *p)
{
    const size_t wide = (size_t)(p->nk > p->nv ? p->nk : p->nv);
    const size_t cached = (size_t)(p->nk + p->nv);

    return (5 + (size_t)p->n + wide + 2 * cached) * (size_t)p->d;
}

void kvg_i_qkv_rms_norm_rope_cache_ws_carve(
    const kvg_i_qkv_rms_norm_rope_cache_plan *p, kvg_i_ws *w,
    kvg_i_qkv_rms_norm_rope_cache_ws *ws)
{
    ws->keys = (kvg_i_keypos *)kvg_i_ws_take(w, (size_t)p->tokens,
                                             sizeof(kvg_i_keypos));
    ws->rows = (float *)kvg_i_ws_take(
        w, kvg_i_qkv_rms_norm_rope_cache_row_floats(p), sizeof(float));
}
