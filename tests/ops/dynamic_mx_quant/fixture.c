/*
 * tests/ops/dynamic_mx_quant/fixture.c - DynamicMxQuant in the reliability
 * fixture (tests/op_fixture.h): seeded valid calls (x fp16 / bf16 / fp32,
 * rank 2-4, any axis, fp4 in the three round modes, fp8 under OCP and
 * cuBLAS, block sizes 32-128, partial blocks and odd block counts), their
 * attribute mutations and the x values the operator refuses. The dims
 * other than the axis are powers of two, so that every tensor has a dim
 * whose byte size can wrap size_t (test_size_overflow). The one untied
 * change: x's fp16 and bf16 are both accepted, so one for the other (the
 * same bytes) is a valid call.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/dynamic_mx_quant.h"
#include "kvgold/format.h"

typedef kvg_dynamic_mx_quant_args op_args;

/* x of rank 2-4 whose dims are 2, 4 or 8 but for the axis (1 to 100;
 * even when it is the last dim and y is fp4); y and mxscale to match. */
static void add_tensors(opf *f, kvgt_rng *r, kvg_dtype xt)
{
    op_args *a = (op_args *)f->args;
    const int rank = (int)opf_pick(r, 2, 4);
    const int axis = (int)opf_pick(r, 0, rank - 1);
    const int fp4 = a->dst_type == KVG_FP4_E2M1;
    int64_t sh[5], nb;
    int d;

    for (d = 0; d < rank; d++)
        sh[d] = (int64_t)1 << opf_pick(r, 1, 3);
    sh[axis] = opf_pick(r, 1, 100);
    if (fp4 && axis == rank - 1)
        sh[axis] += sh[axis] % 2;
    a->axis = opf_pick(r, 0, 1) ? axis : axis - rank;
    opf_add(f, r, "x", OPF_INPUT, 1, xt, rank, sh, &a->x);
    nb = (sh[axis] + a->block_size - 1) / a->block_size;
    if (fp4)
        sh[rank - 1] /= 2;
    opf_add(f, r, "y", OPF_OUTPUT, 1, a->dst_type, rank, sh, &a->y);
    if (fp4)
        sh[rank - 1] *= 2;
    sh[axis] = (nb + 1) / 2;
    sh[rank] = 2;
    opf_add(f, r, "mxscale", OPF_OUTPUT, 1, KVG_E8M0, rank + 1, sh,
            &a->mxscale);
}

static void build(opf *f, kvgt_rng *r)
{
    static const kvg_dtype xs[3] = {KVG_FP16, KVG_BF16, KVG_FP32};
    static const kvg_dtype ys[3] = {KVG_FP4_E2M1, KVG_FP8_E4M3FN,
                                    KVG_FP8_E5M2};
    op_args *a = (op_args *)f->args;
    const kvg_dtype xt = xs[opf_pick(r, 0, 2)];

    kvg_dynamic_mx_quant_args_init(a);
    a->dst_type = ys[opf_pick(r, 0, 2)];
    if (a->dst_type == KVG_FP4_E2M1)
        a->round_mode = (kvg_fp4_round)opf_pick(r, 0, 2);
    else
        a->scale_alg = opf_pick(r, 0, 1);
    a->block_size = xt == KVG_FP32 ? 32 : 32 * opf_pick(r, 1, 4);
    add_tensors(f, r, xt);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int fp4 = a->dst_type == KVG_FP4_E2M1;
    const int64_t c = opf_pick(r, 0, 8);

    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: a->block_size = opf_pick(r, 0, 1) ? 48 : 2048; break;
    case 1: a->scale_alg = opf_pick(r, 0, 1) ? 2 : -1; break;
    case 2: a->dst_type_max = 6.0; break;
    case 3: a->max_low_bound = 1e-4; break;
    case 4: a->axis = opf_pick(r, 0, 1) ? a->x->rank : -a->x->rank - 1;
        break;
    case 5: a->dst_type = opf_pick(r, 0, 1) ? KVG_FP4_E1M2 : KVG_INT8;
        break;
    case 6: /* fp4: cuBLAS needs fp8; fp8: rint only */
        if (fp4)
            a->scale_alg = 1;
        else
            a->round_mode = KVG_FP4_FLOOR;
        break;
    case 7: a->round_mode = (kvg_fp4_round)7; break;
    default: a->dst_type = fp4 ? KVG_FP8_E4M3FN : KVG_FP4_E2M1; break;
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

/* One element of a bf16 / fp32 x made subnormal; an fp16 x has no
 * subnormal binary32 value, so its calls draw another mutation. */
static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    opf_tensor *x = opf_find(f, "x");
    const size_t es = kvg_dtype_size(x->natural.dtype);
    const int64_t at = opf_pick(r, 0, (int64_t)(x->natural.nbytes / es) - 1);
    const float v = opf_pick(r, 0, 1) ? 0x1p-130f : -0x1p-127f;

    if (x->natural.dtype == KVG_FP16)
        return 0;
    assert_int_equal(kvg_encode_f32(x->natural.dtype, v, KVG_OVF_NONSAT,
                                    (unsigned char *)x->natural.data +
                                        (size_t)at * es),
                     KVG_OK);
    *want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(what, cap, "x[%lld] = %g", (long long)at, (double)v);
    return 1;
}

/* x's fp16 and bf16 are interchangeable (2 bytes each; the values of the
 * other reading of [0.05, 3] stay normal and finite). */
static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    (void)f;
    return strcmp(x->name, "x") == 0 && k == OPF_UNTIED_DTYPE &&
           (x->natural.dtype == KVG_FP16 || x->natural.dtype == KVG_BF16) &&
           (v == KVG_FP16 || v == KVG_BF16);
}

static const opf_kind_desc kind = {"dynamic_mx_quant", "dynamic_mx_quant",
                                   build, mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_dynamic_mx_quant[] = {&kind, NULL};
