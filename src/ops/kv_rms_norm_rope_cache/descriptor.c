/*
 * src/ops/kv_rms_norm_rope_cache/descriptor.c - KvRmsNormRopeCache's
 * descriptor: its tensors, attributes and options, how its outputs are shaped
 * and judged (src/registry/op_desc.h). docs/kv_rms_norm_rope_cache.md, "Case
 * format", lists the same names.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/kv_rms_norm_rope_cache.h"
#include "src/common/internal.h"
#include "src/ops/kv_rms_norm_rope_cache/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_kv_rms_norm_rope_cache_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(kv, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(gamma, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(cos, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(sin, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(index, KVG_OP_INPUT, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(k_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(ckv_cache, KVG_OP_CACHE, KVG_OP_REQUIRED, 1),
    KVG_I_OP_TENSOR(k_rope_scale, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(c_kv_scale, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(k_rope_offset, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(c_kv_offset, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(v, KVG_OP_INPUT, KVG_OP_OPTIONAL, 0),
    KVG_I_OP_TENSOR(k_rope, KVG_OP_OUTPUT, KVG_OP_PRODUCED, 0),
    KVG_I_OP_TENSOR(c_kv, KVG_OP_OUTPUT, KVG_OP_PRODUCED, 0),
};

KVG_I_OP_SET_VALUE(set_epsilon, op_args, epsilon, double, f);

KVG_I_OP_SET_VALUE(set_output_kv, op_args, is_output_kv, int, i);

/* An unknown mode is the op's refusal (161002), not a malformed file: the
 * NPU would silently run it as Norm. */
KVG_I_OP_SET_NAMED(set_cache_mode, op_args, cache_mode,
                   kvg_cache_mode_from_name);

KVG_I_OP_SET_NAMED(set_profile, op_args, profile,
                   kvg_kv_profile_from_name);

KVG_I_OP_SET_NAMED(set_reduce_order, op_args, reduce_order,
                   kvg_reduce_order_from_name);

static const kvg_i_op_choice k_overflows[] = {{"saturate", KVG_OVF_SATURATE},
                                             {"nonsat", KVG_OVF_NONSAT}};
KVG_I_OP_SET_CHOICE(set_quant_overflow, op_args, quant_overflow,
                    kvg_overflow, k_overflows);

static const kvg_i_op_attr k_attrs[] = {
    {{"epsilon", KVG_VALUE_FLOAT, 0, 0, "1e-05"}, set_epsilon, NULL, 0},
    {{"cache_mode", KVG_VALUE_STRING, 0, 0, "\"Norm\""}, set_cache_mode,
     "\"%s\" is not Norm, PA, PA_BNSD, PA_NZ, PA_BLK_BNSD or PA_BLK_NZ (the "
     "NPU would silently run it as Norm)", 0},
    {{"is_output_kv", KVG_VALUE_BOOL, 0, 0, "false"}, set_output_kv, NULL, 0},
    {{"profile", KVG_VALUE_STRING, 1, 0, "\"ascend950\""}, set_profile,
     "\"%s\" is not ascend950 or a2a3", 1},
    {{"reduce_order", KVG_VALUE_STRING, 1, 0, "\"pairwise\""},
     set_reduce_order, "\"%s\" is not a kvgold reduction order", 1},
    {{"overflow", KVG_VALUE_STRING, 1, 0, "\"saturate\""},
     set_quant_overflow, "\"%s\" is not saturate or nonsat", 1},
};

/* k_rope [Bkv, N, Skv, Dk] and c_kv [Bkv, N, Skv, Dv], of kv's dtype: V1
 * (N = 1) takes Dk from cos dim 3 and Dv from gamma; V2 takes Dk from kv
 * dim 3 and Dv from v dim 3. */
static kvg_status output_shape(const kvg_i_op_args *a, const char *name,
                               int *produced, kvg_dtype *dtype, int *rank,
                               int64_t *shape, kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int rope = strcmp(name, "k_rope") == 0;
    const kvg_tensor *dsrc = k->v != NULL ? (rope ? k->kv : k->v)
                                          : (rope ? k->cos : k->gamma);
    const int ddim = rope || k->v != NULL ? 3 : 0;

    if (!k->is_output_kv) {
        *produced = 0;
        return KVG_OK;
    }
    if (k->kv == NULL || dsrc == NULL || k->kv->rank != 4 ||
        dsrc->rank <= ddim || k->kv->shape[0] <= 0 || k->kv->shape[2] <= 0 ||
        dsrc->shape[ddim] <= 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: its shape needs kv [Bkv, N, Skv, D] and %s, "
                            "which are missing or malformed", name,
                            k->v != NULL ? (rope ? "kv" : "v [.., Dv]")
                                         : (rope ? "cos [.., Dk]"
                                                 : "gamma [Dv]"));
    *produced = 1;
    *dtype = k->kv->dtype;
    *rank = 4;
    shape[0] = k->kv->shape[0];
    shape[1] = k->v != NULL ? k->kv->shape[1] : 1;
    shape[2] = k->kv->shape[2];
    shape[3] = dsrc->shape[ddim];
    return KVG_OK;
}

/* k_rope, c_kv: compute. The caches: quant (1-byte) or compute, laid out
 * as the cache mode says. V2 moves v unchanged into c_kv and, unquantised,
 * into ckv_cache: those are copies, judged bit for bit. */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    KVG_I_LOAD(op_args, a, k);
    const kvg_cache_mode mode = k->cache_mode;
    const int v2 = k->v != NULL;
    if (strcmp(name, "k_cache") != 0 && strcmp(name, "ckv_cache") != 0) {
        *role = v2 && strcmp(name, "c_kv") == 0 ? KVG_ROLE_COPY
                                                : KVG_ROLE_COMPUTE;
        return;
    }
    *role = kvg_dtype_is_quant8(t->dtype)          ? KVG_ROLE_QUANT
            : v2 && strcmp(name, "ckv_cache") == 0 ? KVG_ROLE_COPY
                                                   : KVG_ROLE_COMPUTE;
    if (t->rank != 4)
        return;
    if (mode == KVG_CACHE_NORM)
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_BNSD, t->shape[0],
                            t->shape[2], t->shape[1], t->shape[3], 0);
    else if (mode == KVG_CACHE_PA_NZ || mode == KVG_CACHE_PA_BLK_NZ)
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_NZ, t->shape[0],
                            t->shape[1], t->shape[2], t->shape[3],
                            kvg_c0_of(t->dtype));
    else
        kvg_i_op_set_layout(has_layout, layout, KVG_LAYOUT_ND, t->shape[0],
                            t->shape[1], t->shape[2], t->shape[3], 0);
}

/* One cache of a validated call: the rows its tokens write. */
typedef struct cache_rows {
    const op_args *k;
    const kvg_i_kv_rms_norm_rope_cache_plan *p;
    const kvg_cache_layout *lay;
    int64_t dim; /* Dk for k_cache, Dv for ckv_cache */
} cache_rows;

static void enumerate_rows(const void *ctx, kvg_i_run_sink *s)
{
    const cache_rows *c = (const cache_rows *)ctx;
    kvg_cache_coord at;
    int64_t b, t, n;

    for (b = 0; b < c->p->bkv; b++)
        for (t = 0; t < c->p->skv; t++)
            if (kvg_i_kv_rms_norm_rope_cache_target(c->k, c->p, b, t, &at))
                for (n = 0; n < c->p->nh; n++) {
                    at.head = n;
                    kvg_i_sink_row(s, c->lay, at, c->dim);
                }
}

/* k_rope, c_kv: whole when is_output_kv; the caches: one row per token
 * (and head, in V2) whose index is not negative, where the operator puts
 * it. */
static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_k = strcmp(w->name, "k_cache") == 0;
    kvg_i_kv_rms_norm_rope_cache_plan p;
    kvg_i_kv_rms_norm_rope_cache_ws ws;
    cache_rows rows;

    KVG_TRY(kvg_i_kv_rms_norm_rope_cache_validate(k, &p, &ws, diag));
    if (!is_k && strcmp(w->name, "ckv_cache") != 0)
        return p.out_kv ? kvg_i_written_whole(w, diag)
                        : kvg_i_written_none(w);
    rows.k = k;
    rows.p = &p;
    rows.lay = is_k ? &p.klay : &p.clay;
    rows.dim = is_k ? p.dk : p.dv;
    return kvg_i_written_collect(w, enumerate_rows, &rows, diag);
}

/* The option was spelled quant_overflow before the spelling of the later
 * operators, overflow, became every operator's. */
static const kvg_i_op_alias k_aliases[] = {{"quant_overflow", "overflow"}};

KVG_I_OP_DEFINE(kv_rms_norm_rope_cache, KVG_I_OP_ATTRS(k_attrs),
                KVG_I_OP_ALIASES(k_aliases));
