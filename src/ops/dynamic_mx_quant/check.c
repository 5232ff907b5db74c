/*
 * src/ops/dynamic_mx_quant/check.c - validation of DynamicMxQuant: the
 * aclnn null checks (161001), the host checks of the 950 tiling and of
 * torch_npu (ops-nn quant/dynamic_mx_quant/op_host/arch35/
 * dynamic_mx_quant_tiling_arch35.cpp, op-plugin
 * DynamicMxQuantKernelNpuOpApi.cpp), what kvgold does not model, and the
 * value refusals (161002). Nothing here writes to a tensor.
 *
 * The order follows the host: tensors present, dtypes, attributes, shapes;
 * then x's values (a separate pass: the skeleton's `values` step).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "src/common/bits.h"
#include "src/kernels/mx_refusal.h"
#include "src/ops/dynamic_mx_quant/internal.h"

#define INV KVG_ERR_PARAM_INVALID

/* ---- presence, dtypes ------------------------------------------------- */

static kvg_status check_presence(const kvg_dynamic_mx_quant_args *a,
                                 kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->x, "x", diag));
    KVG_TRY(kvg_i_check_present(a->y, "y", diag));
    KVG_TRY(kvg_i_check_present(a->mxscale, "mxscale", diag));
    KVG_TRY(kvg_i_check_dense(a->x, "x", diag));
    KVG_TRY(kvg_i_check_dense(a->y, "y", diag));
    return kvg_i_check_dense(a->mxscale, "mxscale", diag);
}

static int is_dst(kvg_dtype t)
{
    return t == KVG_FP4_E2M1 || t == KVG_FP8_E4M3FN || t == KVG_FP8_E5M2;
}

static const char *dtype_or_invalid(kvg_dtype t)
{
    return t == KVG_DTYPE_INVALID ? "an invalid dtype" : kvg_dtype_name(t);
}

/* fp4_e1m2 is a valid aclnn dst type that kvgold cannot compute: its own
 * message, not "must be one of". */
static kvg_status check_dtypes(const kvg_dynamic_mx_quant_args *a,
                               kvg_diag *diag)
{
    const kvg_dtype xt = a->x->dtype;

    if (!(xt == KVG_FP16 || xt == KVG_BF16 || xt == KVG_FP32))
        return kvg_diag_set(diag, INV, "x", -1, -1,
                            "x: dtype must be fp16, bf16 or fp32, got %s",
                            kvg_dtype_name(xt));
    if (a->dst_type == KVG_FP4_E1M2)
        return kvg_diag_set(diag, INV, "dst_type", -1, -1,
                            "dst_type: fp4_e1m2 is not modelled: kvgold's "
                            "formats layer has no FP4 E1M2 encoder (use "
                            "fp4_e2m1, fp8_e4m3fn or fp8_e5m2)");
    if (!is_dst(a->dst_type))
        return kvg_diag_set(diag, INV, "dst_type", -1, -1,
                            "dst_type: must be fp4_e2m1, fp8_e4m3fn or "
                            "fp8_e5m2, got %s", dtype_or_invalid(a->dst_type));
    if (a->y->dtype != a->dst_type)
        return kvg_diag_set(diag, INV, "y", -1, -1,
                            "y: dtype must be dst_type %s, got %s",
                            kvg_dtype_name(a->dst_type),
                            kvg_dtype_name(a->y->dtype));
    return kvg_i_check_dtype(a->mxscale, "mxscale", KVG_E8M0, diag);
}

/* ---- attributes ------------------------------------------------------- */

static const char *round_name(kvg_fp4_round r)
{
    return r == KVG_FP4_RINT    ? "rint"
           : r == KVG_FP4_FLOOR ? "floor"
           : r == KVG_FP4_ROUND ? "round"
                                : "an unknown mode";
}

/* fp4 takes the three modes, fp8 "rint" only (tiling CheckRoundMode). */
static kvg_status check_round_mode(const kvg_dynamic_mx_quant_args *a,
                                   kvg_diag *diag)
{
    const kvg_fp4_round r = a->round_mode;

    if (!(r == KVG_FP4_RINT || r == KVG_FP4_FLOOR || r == KVG_FP4_ROUND))
        return kvg_diag_set(diag, INV, "round_mode", -1, -1,
                            "round_mode: must be rint, floor or round, got "
                            "%d", (int)r);
    if (a->dst_type != KVG_FP4_E2M1 && r != KVG_FP4_RINT)
        return kvg_diag_set(diag, INV, "round_mode", -1, -1,
                            "round_mode: must be \"rint\" when y is %s, got "
                            "\"%s\"", kvg_dtype_name(a->dst_type),
                            round_name(r));
    return KVG_OK;
}

/* block_size: a multiple of 32 up to 1024 (torch_npu and the tiling);
 * fp32 x: 32 only (tiling). */
static kvg_status check_block_size(const kvg_dynamic_mx_quant_args *a,
                                   kvg_diag *diag)
{
    const int64_t bs = a->block_size;

    if (!(bs > 0 && bs <= 1024 && bs % 32 == 0))
        return kvg_diag_set(diag, INV, "block_size", -1, -1,
                            "block_size: must be a multiple of 32 in [32, "
                            "1024], got %lld", (long long)bs);
    if (a->x->dtype == KVG_FP32 && bs != 32)
        return kvg_diag_set(diag, INV, "block_size", -1, -1,
                            "block_size: must be 32 when x is fp32, got %lld",
                            (long long)bs);
    return KVG_OK;
}

/* scale_alg 0 (any dst) and 1 (fp8); 2 and the two V3 floats exist on the
 * device but are not modelled (docs/dynamic_mx_quant.md, "Refused"). */
static kvg_status check_scale_alg(const kvg_dynamic_mx_quant_args *a,
                                  kvg_diag *diag)
{
    const int64_t s = a->scale_alg;

    if (s == 2)
        return kvg_diag_set(diag, INV, "scale_alg", -1, -1,
                            "scale_alg: 2 (the FP4 cuBLAS-like rule with "
                            "dst_type_max) is not modelled by kvgold; use 0 "
                            "or 1");
    if (s != 0 && s != 1)
        return kvg_diag_set(diag, INV, "scale_alg", -1, -1,
                            "scale_alg: must be 0 or 1, got %lld",
                            (long long)s);
    if (s == 1 && a->dst_type == KVG_FP4_E2M1)
        return kvg_diag_set(diag, INV, "scale_alg", -1, -1,
                            "scale_alg: 1 (cuBLAS) needs an fp8 y, got %s",
                            kvg_dtype_name(a->dst_type));
    if (a->dst_type_max != 0.0)
        return kvg_diag_set(diag, INV, "dst_type_max", -1, -1,
                            "dst_type_max: must be 0, got %g (other values "
                            "belong to scale_alg 2, not modelled)",
                            a->dst_type_max);
    if (a->max_low_bound != 0.0)
        return kvg_diag_set(diag, INV, "max_low_bound", -1, -1,
                            "max_low_bound: must be 0, got %g (a floor on "
                            "amax is not modelled)", a->max_low_bound);
    return KVG_OK;
}

/* ---- shapes ----------------------------------------------------------- */

static kvg_status check_axis(const kvg_dynamic_mx_quant_args *a,
                             kvg_diag *diag)
{
    const int r = a->x->rank;

    if (r < 1 || r > 7)
        return kvg_diag_set(diag, INV, "x", -1, -1,
                            "x: rank must be 1 to 7, got %d", r);
    if (a->axis < -r || a->axis >= r)
        return kvg_diag_set(diag, INV, "axis", -1, -1,
                            "axis: must be in [%d, %d] for x of rank %d, got "
                            "%lld", -r, r - 1, r, (long long)a->axis);
    return KVG_OK;
}

static kvg_status check_y(const kvg_dynamic_mx_quant_args *a, int fp4,
                          kvg_diag *diag)
{
    const kvg_tensor *x = a->x;
    const int r = x->rank;
    int d;

    if (fp4 && x->shape[r - 1] % 2 != 0)
        return kvg_diag_set(diag, INV, "x", r - 1, -1,
                            "x: last dim must be even when y is fp4_e2m1 "
                            "(two codes per byte), got %lld",
                            (long long)x->shape[r - 1]);
    KVG_TRY(kvg_i_check_rank(a->y, "y", r, diag));
    for (d = 0; d < r - 1; d++)
        KVG_TRY(kvg_i_check_dim(a->y, "y", d, x->shape[d], "x's shape",
                                diag));
    return kvg_i_check_dim(a->y, "y", r - 1,
                           fp4 ? x->shape[r - 1] / 2 : x->shape[r - 1],
                           fp4 ? "x's last dim / 2 (fp4 pairs)"
                               : "x's last dim",
                           diag);
}

static kvg_status check_mxscale(const kvg_dynamic_mx_quant_args *a,
                                const kvg_i_dynamic_mx_quant_plan *p,
                                kvg_diag *diag)
{
    const kvg_tensor *x = a->x;
    const int r = x->rank;
    char want[64];
    int d;

    KVG_TRY(kvg_i_check_rank(a->mxscale, "mxscale", r + 1, diag));
    for (d = 0; d < r; d++)
        if (d != p->axis)
            KVG_TRY(kvg_i_check_dim(a->mxscale, "mxscale", d, x->shape[d],
                                    "x's shape", diag));
    snprintf(want, sizeof want, "ceil(ceil(x.shape[axis] / %lld) / 2)",
             (long long)p->bs);
    KVG_TRY(kvg_i_check_dim(a->mxscale, "mxscale", p->axis, p->pairs, want,
                            diag));
    return kvg_i_check_dim(a->mxscale, "mxscale", r, 2,
                           "2 (a block pair)", diag);
}

static int64_t ceil_div(int64_t n, int64_t d)
{
    return n / d + (n % d != 0);
}

static void plan_shape(const kvg_dynamic_mx_quant_args *a,
                       kvg_i_dynamic_mx_quant_plan *p)
{
    const kvg_tensor *x = a->x;
    int d;

    p->axis = (int)(a->axis < 0 ? a->axis + x->rank : a->axis);
    p->outer = 1, p->inner = 1;
    for (d = 0; d < p->axis; d++)
        p->outer *= x->shape[d];
    for (d = p->axis + 1; d < x->rank; d++)
        p->inner *= x->shape[d];
    p->n = x->shape[p->axis];
    p->bs = a->block_size;
    p->blocks = ceil_div(p->n, p->bs);
    p->pairs = ceil_div(p->blocks, 2);
}

kvg_status kvg_i_dynamic_mx_quant_check_args(
    const kvg_dynamic_mx_quant_args *a, kvg_i_dynamic_mx_quant_plan *p,
    kvg_diag *diag)
{
    KVG_TRY(check_presence(a, diag));
    KVG_TRY(check_dtypes(a, diag));
    KVG_TRY(check_round_mode(a, diag));
    KVG_TRY(check_block_size(a, diag));
    KVG_TRY(check_scale_alg(a, diag));
    KVG_TRY(check_axis(a, diag));
    p->xt = a->x->dtype;
    p->yt = a->y->dtype;
    p->xsize = kvg_dtype_size(p->xt);
    p->fp4 = p->yt == KVG_FP4_E2M1;
    p->rule = a->scale_alg == 1 ? KVG_E8M0_CUBLAS : KVG_E8M0_OCP;
    p->mode = a->round_mode;
    plan_shape(a, p);
    KVG_TRY(check_y(a, p->fp4, diag));
    return check_mxscale(a, p, diag);
}

/* ---- values ----------------------------------------------------------- */

static kvg_status refuse_element(const kvg_i_dynamic_mx_quant_plan *p,
                                 int64_t o, int64_t r, int64_t i,
                                 const char *why, kvg_diag *diag)
{
    return kvg_diag_set(diag, INV, "x", -1,
                        kvg_i_dynamic_mx_quant_flat(p, o, r, i),
                        "x: element %lld (block %lld along axis %d) %s",
                        (long long)kvg_i_dynamic_mx_quant_flat(p, o, r, i),
                        (long long)(r / p->bs), p->axis, why);
}

/* Whether block row (o, j) may hold a refused element: a column whose
 * smallest magnitude is subnormal (bf16 / fp32 x), or whose smallest
 * negative one scales to a subnormal. Exact: the products are exact. */
static int row_suspect(const kvg_i_dynamic_mx_quant_plan *p, int64_t o,
                       int64_t j, const kvg_i_dynamic_mx_quant_ws *ws)
{
    const int64_t b0 = kvg_i_dynamic_mx_quant_block(p, o, j, 0);
    int64_t i;
    float m;

    for (i = 0; i < p->inner; i++) {
        if (p->xt != KVG_FP16 && ws->minmag[i] < 0x00800000u)
            return 1;
        m = ws->mult[b0 + i];
        if (ws->minneg[i] != 0xFFFFFFFFu && m == m &&
            kvg_i_f32_subnormal(kvg_i_float(ws->minneg[i]) * m))
            return 1;
    }
    return 0;
}

/* The first refused element of a suspect block row, in x's order. */
static kvg_status refuse_in_row(const kvg_dynamic_mx_quant_args *a,
                                const kvg_i_dynamic_mx_quant_plan *p,
                                int64_t o, int64_t j,
                                const kvg_i_dynamic_mx_quant_ws *ws,
                                kvg_diag *diag)
{
    const int64_t b0 = kvg_i_dynamic_mx_quant_block(p, o, j, 0);
    int64_t r, r0, r1, i;
    const char *why;

    kvg_i_dynamic_mx_quant_rows(p, j, &r0, &r1);
    for (r = r0; r < r1; r++)
        for (i = 0; i < p->inner; i++) {
            why = kvg_i_mx_refusal(
                p->xt,
                kvg_i_dynamic_mx_quant_x(
                    a, p, kvg_i_dynamic_mx_quant_flat(p, o, r, i)),
                ws->mult[b0 + i]);
            if (why != NULL)
                return refuse_element(p, o, r, i, why, diag);
        }
    return KVG_OK; /* unreachable: row_suspect found one */
}

kvg_status kvg_i_dynamic_mx_quant_check_values(
    const kvg_dynamic_mx_quant_args *a, const kvg_i_dynamic_mx_quant_plan *p,
    const kvg_i_dynamic_mx_quant_ws *ws, kvg_diag *diag)
{
    int64_t o, j;

    for (o = 0; o < p->outer; o++)
        for (j = 0; j < p->blocks; j++) {
            kvg_i_dynamic_mx_quant_block_row(a, p, o, j, ws);
            if (row_suspect(p, o, j, ws))
                return refuse_in_row(a, p, o, j, ws, diag);
        }
    return KVG_OK;
}
