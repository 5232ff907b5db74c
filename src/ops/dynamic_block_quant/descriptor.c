/*
 * src/ops/dynamic_block_quant/descriptor.c - DynamicBlockQuant's descriptor
 * (src/registry/op_desc.h); docs/dynamic_block_quant.md, "Case files",
 * lists the same names. The attributes are aclnnDynamicBlockQuantV2's;
 * dst_type is written as kvgold's dtype tag ("int8", "hif8", "fp8_e5m2",
 * "fp8_e4m3fn") instead of the ACL enum number.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <string.h>

#include "kvgold/dynamic_block_quant.h"
#include "src/common/internal.h"
#include "src/ops/dynamic_block_quant/internal.h"
#include "src/registry/op_desc.h"

typedef kvg_dynamic_block_quant_args op_args;

static const kvg_i_op_tensor k_tensors[] = {
    KVG_I_OP_TENSOR(x, KVG_OP_INPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(y, KVG_OP_OUTPUT, KVG_OP_REQUIRED, 0),
    KVG_I_OP_TENSOR(scale, KVG_OP_OUTPUT, KVG_OP_REQUIRED, 0),
};

KVG_I_OP_SET_VALUE(set_min_scale, op_args, min_scale, double, f);
KVG_I_OP_SET_VALUE(set_row_block_size, op_args, row_block_size, int64_t, i);
KVG_I_OP_SET_VALUE(set_col_block_size, op_args, col_block_size, int64_t, i);
KVG_I_OP_SET_VALUE(set_dst_type_max, op_args, dst_type_max, double, f);

static const kvg_i_op_choice k_round_modes[] = {
    {"rint", KVG_DYNAMIC_BLOCK_QUANT_RINT},
    {"round", KVG_DYNAMIC_BLOCK_QUANT_ROUND},
    {"hybrid", KVG_DYNAMIC_BLOCK_QUANT_HYBRID}};
KVG_I_OP_SET_CHOICE(set_round_mode, op_args, round_mode,
                    kvg_dynamic_block_quant_round, k_round_modes);

/* Any dtype tag parses; the operator's check refuses the ones that are
 * not 8-bit quantised types, saying which are. */
static kvg_status set_dst_type(kvg_i_op_args *a, const kvg_i_op_attr *attr,
                               const kvg_value *v, kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    k->dst_type = kvg_dtype_from_name(v->s);
    if (k->dst_type == KVG_DTYPE_INVALID)
        return kvg_i_op_refuse(attr, v->s, diag);
    KVG_I_STORE(a, k);
    return KVG_OK;
}

KVG_I_OP_SET_NAMED(set_profile, op_args, profile,
                   kvg_profile_from_name);

static const kvg_i_op_attr k_attrs[] = {
    {{"min_scale", KVG_VALUE_FLOAT, 0, 0, "0"}, set_min_scale, NULL, 0},
    {{"round_mode", KVG_VALUE_STRING, 0, 0, "\"rint\""}, set_round_mode,
     "\"%s\" is not rint, round or hybrid", 0},
    {{"dst_type", KVG_VALUE_STRING, 0, 0, "\"int8\""}, set_dst_type,
     "\"%s\" is not a dtype tag (int8, hif8, fp8_e5m2 or fp8_e4m3fn)", 0},
    {{"row_block_size", KVG_VALUE_INT, 0, 0, "1"}, set_row_block_size, NULL,
     0},
    {{"col_block_size", KVG_VALUE_INT, 0, 0, "128"}, set_col_block_size,
     NULL, 0},
    {{"dst_type_max", KVG_VALUE_FLOAT, 0, 0, "0"}, set_dst_type_max, NULL,
     0},
    {{"profile", KVG_VALUE_STRING, 1, 0, "\"ascend950\""}, set_profile,
     "\"%s\" is not ascend950 or a2a3", 1},
};

static int64_t ceil_div(int64_t n, int64_t d)
{
    return n / d + (n % d != 0);
}

/* y: x's shape, dst_type; scale: fp32, x's shape with the last two dims
 * counted in blocks. */
static kvg_status output_shape(const kvg_i_op_args *a, const char *name,
                               int *produced, kvg_dtype *dtype, int *rank,
                               int64_t *shape, kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    const int is_y = strcmp(name, "y") == 0;
    const kvg_tensor *x = k->x;
    int d;

    if (x == NULL || (x->rank != 2 && x->rank != 3) ||
        (!is_y && (k->row_block_size <= 0 || k->col_block_size <= 0)))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: its shape needs x [M, N] or [B, M, N]%s, "
                            "which are missing or malformed", name,
                            is_y ? "" : " and positive block sizes");
    for (d = 0; d < x->rank; d++)
        if (x->shape[d] <= 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, d, -1,
                                "%s: its shape needs x's dims > 0", name);
    *produced = 1;
    *dtype = is_y ? k->dst_type : KVG_FP32;
    *rank = x->rank;
    memcpy(shape, x->shape, (size_t)x->rank * sizeof shape[0]);
    if (!is_y) {
        shape[x->rank - 2] = ceil_div(x->shape[x->rank - 2],
                                      k->row_block_size);
        shape[x->rank - 1] = ceil_div(x->shape[x->rank - 1],
                                      k->col_block_size);
    }
    return KVG_OK;
}

/* y: quantised codes; scale: a floating-point result (amax / DST_MAX). */
static void describe(const kvg_i_op_args *a, const char *name,
                     const kvg_tensor *t, kvg_compare_role *role,
                     int *has_layout, kvg_cache_layout *layout)
{
    (void)a;
    (void)t;
    (void)has_layout;
    (void)layout;
    *role = strcmp(name, "y") == 0 ? KVG_ROLE_QUANT : KVG_ROLE_COMPUTE;
}

/* Both outputs are written whole by a call that passes validation. */
static kvg_status written(const kvg_i_op_args *a, const kvg_i_written *w,
                          kvg_diag *diag)
{
    KVG_I_LOAD(op_args, a, k);
    kvg_i_dynamic_block_quant_plan p;
    kvg_i_dynamic_block_quant_ws ws;

    KVG_TRY(kvg_i_dynamic_block_quant_validate(k, &p, &ws, diag));
    return kvg_i_written_whole(w, diag);
}

KVG_I_OP_DEFINE(dynamic_block_quant, KVG_I_OP_ATTRS(k_attrs));
