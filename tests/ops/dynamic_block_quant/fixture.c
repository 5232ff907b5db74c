/*
 * tests/ops/dynamic_block_quant/fixture.c - DynamicBlockQuant in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls of each
 * profile (ascend950: every x and y dtype, the block sizes, 2-D and 3-D;
 * a2a3: int8 1x128), their attribute mutations and the x values each
 * profile refuses. The one untied change: x's fp16 and bf16 are both
 * accepted, so one for the other (the same bytes) is a valid call.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/dynamic_block_quant.h"
#include "kvgold/format.h"

typedef kvg_dynamic_block_quant_args op_args;

static int64_t ceil_div(int64_t n, int64_t d)
{
    return (n + d - 1) / d;
}

/* x [B, M, N] or [M, N], y alike, scale in blocks. B and M are powers of
 * two (B 1 or 2, M 4 or 8: one row block or several, whole or partial),
 * so that each tensor has a dim whose byte size can wrap size_t for
 * test_size_overflow; N is any width up to 300. */
static void add_tensors(opf *f, kvgt_rng *r, kvg_dtype xt, int rank)
{
    op_args *a = (op_args *)f->args;
    const int64_t m = opf_pick(r, 0, 1) ? 8 : 4, n = opf_pick(r, 1, 300);
    int64_t sh[3];
    const int lead = rank - 2;

    sh[0] = opf_pick(r, 1, 2);
    sh[lead] = m, sh[lead + 1] = n;
    opf_add(f, r, "x", OPF_INPUT, 1, xt, rank, sh, &a->x);
    opf_add(f, r, "y", OPF_OUTPUT, 1, a->dst_type, rank, sh, &a->y);
    sh[lead] = ceil_div(m, a->row_block_size);
    sh[lead + 1] = ceil_div(n, a->col_block_size);
    opf_add(f, r, "scale", OPF_OUTPUT, 1, KVG_FP32, rank, sh, &a->scale);
}

static void build_950(opf *f, kvgt_rng *r)
{
    static const kvg_dtype xs[3] = {KVG_FP16, KVG_BF16, KVG_FP32};
    static const kvg_dtype ys[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    static const int64_t rbs[5] = {1, 64, 128, 256, 512};
    static const int64_t cbs[4] = {64, 128, 192, 256};
    op_args *a = (op_args *)f->args;

    kvg_dynamic_block_quant_args_init(a);
    a->dst_type = ys[opf_pick(r, 0, 3)];
    a->round_mode = a->dst_type == KVG_HIF8 ? KVG_DYNAMIC_BLOCK_QUANT_ROUND
                                            : KVG_DYNAMIC_BLOCK_QUANT_RINT;
    if (a->dst_type == KVG_HIF8 && opf_pick(r, 0, 1))
        a->dst_type_max = opf_pick(r, 0, 1) ? 15.0 : 224.0;
    a->row_block_size = rbs[opf_pick(r, 0, 4)];
    a->col_block_size = cbs[opf_pick(r, 0, 3)];
    a->min_scale = opf_pick(r, 0, 1) ? 0.0 : 0.5;
    add_tensors(f, r, xs[opf_pick(r, 0, 2)], (int)opf_pick(r, 2, 3));
}

static void build_a2a3(opf *f, kvgt_rng *r)
{
    op_args *a = (op_args *)f->args;

    kvg_dynamic_block_quant_args_init(a);
    a->profile = KVG_PROFILE_A2A3;
    /* x in (0.05, 3): m >= 42, so a min_scale of 1 is inactive */
    a->min_scale = opf_pick(r, 0, 1) ? 0.0 : 1.0;
    add_tensors(f, r, opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16,
                (int)opf_pick(r, 2, 3));
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 7);

    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: a->row_block_size = opf_pick(r, 0, 1) ? 2 : -1; break;
    case 1: a->col_block_size = opf_pick(r, 0, 1) ? 100 : 0; break;
    case 2: a->round_mode = KVG_DYNAMIC_BLOCK_QUANT_HYBRID; break;
    case 3: a->dst_type = a->dst_type == KVG_INT8 ? KVG_HIF8 : KVG_INT8;
        break;
    case 4: a->dst_type_max = opf_pick(r, 0, 1) ? 100.0 : -15.0; break;
    case 5: a->min_scale = opf_pick(r, 0, 1) ? -0.5 : NAN; break;
    case 6: a->profile = (kvg_profile)7; break;
    default: a->dst_type = KVG_FP16; break;
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

/* One element of x made refusable: subnormal (bf16 / fp32 x), or on a2a3
 * NaN / Inf. An fp16 x has no subnormal binary32 value, so the 950's fp16
 * calls draw another mutation. */
static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    const op_args *a = (const op_args *)f->args;
    opf_tensor *x = opf_find(f, "x");
    const size_t es = kvg_dtype_size(x->natural.dtype);
    const int64_t at = opf_pick(r, 0, (int64_t)(x->natural.nbytes / es) - 1);
    const int a2a3 = a->profile == KVG_PROFILE_A2A3;
    float v = opf_pick(r, 0, 1) ? 0x1p-130f : -0x1p-127f;

    if (x->natural.dtype == KVG_FP16) {
        if (!a2a3)
            return 0;
        v = opf_pick(r, 0, 1) ? NAN : -INFINITY;
    }
    assert_int_equal(kvg_encode_f32(x->natural.dtype, v, KVG_OVF_NONSAT,
                                    (unsigned char *)x->natural.data +
                                        (size_t)at * es),
                     KVG_OK);
    *want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(what, cap, "x[%lld] = %g", (long long)at, (double)v);
    return 1;
}

/* x's fp16 and bf16 are interchangeable (2 bytes each; values of the other
 * reading stay normal and finite). */
static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    (void)f;
    return strcmp(x->name, "x") == 0 && k == OPF_UNTIED_DTYPE &&
           (x->natural.dtype == KVG_FP16 || x->natural.dtype == KVG_BF16) &&
           (v == KVG_FP16 || v == KVG_BF16);
}

static const opf_kind_desc kind_950 = {
    "dynamic_block_quant", "dynamic_block_quant", build_950, mutate_attr,
    mutate_value, untied};

static const opf_kind_desc kind_a2a3 = {
    "dynamic_block_quant_a2a3", "dynamic_block_quant", build_a2a3,
    mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_dynamic_block_quant[] = {
    &kind_950, &kind_a2a3, NULL};
