/*
 * tools/cli/roles.c - output roles and cache layouts per operator.
 *
 *   op                        output                 role
 *   qkv_rms_norm_rope_cache   q_out, q/k_before      compute
 *                             v_out_before_quant     copy (a widen-narrow)
 *                             k_cache                quant (int8) / compute
 *                             v_cache                quant (int8) / copy
 *   kv_rms_norm_rope_cache    k_rope, c_kv           compute
 *                             k_cache, ckv_cache     quant (1-byte) / compute
 *   reshape_and_cache_omni    key/value_cache        copy
 *   reshape_and_cache         key/value_cache        copy; compute with
 *                                                    KVHEAD_ROPE (its mean
 *                                                    token is arithmetic)
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "json.h"

#include "roles.h"

static const char *attr_string(const kvg_case *c, const char *key,
                               const char *dflt)
{
    const kvg_json *v = kvg_json_get(c->attrs, key);
    return kvg_json_is(v, KVG_JSON_STRING) ? v->text : dflt;
}

static int64_t attr_int(const kvg_case *c, const char *key, int i,
                        int64_t dflt)
{
    const kvg_json *e = kvg_json_at(kvg_json_get(c->attrs, key), (size_t)i);
    int64_t v;
    return e != NULL && kvg_json_int64(e, &v) == NULL ? v : dflt;
}

static void set_layout(kvg_cli_output_info *info, kvg_layout_kind kind,
                       int64_t blocks, int64_t slots, int64_t heads,
                       int64_t dim, int64_t c0)
{
    if (blocks <= 0 || slots <= 0 || heads <= 0 || dim <= 0 ||
        (kind == KVG_LAYOUT_NZ && (c0 <= 0 || (heads * dim) % c0 != 0)))
        return; /* not a shape we can describe: plain indices instead */
    info->has_layout = 1;
    info->layout.kind = kind;
    info->layout.blocks = blocks;
    info->layout.slots = slots;
    info->layout.heads = heads;
    info->layout.dim = dim;
    info->layout.c0 = kind == KVG_LAYOUT_NZ ? c0 : 0;
}

static void describe_qkv(const kvg_case *c, const char *name,
                         const kvg_tensor *t, kvg_cli_output_info *info)
{
    int is_k = strcmp(name, "k_cache") == 0;
    if (is_k || strcmp(name, "v_cache") == 0) {
        int64_t heads = attr_int(c, "head_nums", is_k ? 1 : 2, 0);
        info->role = t->dtype == KVG_INT8 ? KVG_ROLE_QUANT
                     : is_k               ? KVG_ROLE_COMPUTE
                                          : KVG_ROLE_COPY;
        if (t->rank == 4 && heads > 0)
            set_layout(info, KVG_LAYOUT_NZ, t->shape[0], t->shape[2], heads,
                       t->shape[1] * t->shape[3] / heads, t->shape[3]);
    } else {
        info->role = strcmp(name, "v_out_before_quant") == 0
                         ? KVG_ROLE_COPY
                         : KVG_ROLE_COMPUTE;
    }
}

static void describe_kv(const kvg_case *c, const char *name,
                        const kvg_tensor *t, kvg_cli_output_info *info)
{
    const char *mode = attr_string(c, "cache_mode", "Norm");
    if (strcmp(name, "k_cache") != 0 && strcmp(name, "ckv_cache") != 0) {
        info->role = KVG_ROLE_COMPUTE;
        return;
    }
    info->role = kvg_dtype_is_quant8(t->dtype) ? KVG_ROLE_QUANT
                                                : KVG_ROLE_COMPUTE;
    if (t->rank != 4)
        return;
    if (strcmp(mode, "Norm") == 0)
        set_layout(info, KVG_LAYOUT_BNSD, t->shape[0], t->shape[2],
                   t->shape[1], t->shape[3], 0);
    else if (strcmp(mode, "PA_NZ") == 0 || strcmp(mode, "PA_BLK_NZ") == 0)
        set_layout(info, KVG_LAYOUT_NZ, t->shape[0], t->shape[1], t->shape[2],
                   t->shape[3], kvg_c0_of(t->dtype));
    else
        set_layout(info, KVG_LAYOUT_ND, t->shape[0], t->shape[1], t->shape[2],
                   t->shape[3], 0);
}

static void describe_rac(const kvg_case *c, const char *name,
                         const kvg_tensor *t, kvg_cli_output_info *info)
{
    const int omni = strcmp(c->op, "reshape_and_cache_omni") == 0;
    const kvg_tensor *src = kvg_case_find(
        &c->inputs, strcmp(name, "key_cache") == 0 ? "key" : "value");
    info->role =
        !omni && strcmp(attr_string(c, "compress_type", "UNDEFINED"),
                        "KVHEAD_ROPE") == 0
            ? KVG_ROLE_COMPUTE
            : KVG_ROLE_COPY;
    if (t->rank != 4)
        return;
    if (!omni && strcmp(attr_string(c, "cache_layout", "ND"), "NZ") == 0) {
        if (src != NULL && src->rank == 3)
            set_layout(info, KVG_LAYOUT_NZ, t->shape[0], t->shape[2],
                       src->shape[1], src->shape[2], t->shape[3]);
    } else {
        set_layout(info, KVG_LAYOUT_ND, t->shape[0], t->shape[1], t->shape[2],
                   t->shape[3], 0);
    }
}

void kvg_cli_describe_output(const kvg_case *c, const char *name,
                             const kvg_tensor *t, kvg_cli_output_info *info)
{
    memset(info, 0, sizeof *info);
    info->role = KVG_ROLE_DEFAULT;
    if (strcmp(c->op, "qkv_rms_norm_rope_cache") == 0)
        describe_qkv(c, name, t, info);
    else if (strcmp(c->op, "kv_rms_norm_rope_cache") == 0)
        describe_kv(c, name, t, info);
    else
        describe_rac(c, name, t, info);
}

int kvg_cli_has_reduce_order(const kvg_case *c)
{
    return strcmp(c->op, "qkv_rms_norm_rope_cache") == 0 ||
           strcmp(c->op, "kv_rms_norm_rope_cache") == 0;
}
