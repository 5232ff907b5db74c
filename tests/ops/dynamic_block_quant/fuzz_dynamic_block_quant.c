/*
 * tests/ops/dynamic_block_quant/fuzz_dynamic_block_quant.c - DynamicBlockQuant's
 * validation on fuzzed arguments: a call of either profile built from the
 * input (dtypes, block sizes and attributes mostly among the valid ones,
 * sometimes not), every tensor open to a perturbation and x's values to
 * NaN / Inf / subnormals (the value mode), the shared driver's invariants
 * (fuzz_util.h: refusals name x with a position and write nothing), and on
 * success: every scale +0, positive or NaN, and every y code of x's sign or
 * zero.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/dynamic_block_quant.h"
#include "kvgold/format.h"

typedef struct ctx {
    const kvg_dynamic_block_quant_args *a;
} ctx;

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_dynamic_block_quant_workspace_size(
        (const kvg_dynamic_block_quant_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_dynamic_block_quant((const kvg_dynamic_block_quant_args *)a,
                                   diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_dynamic_block_quant_args *)a)->workspace = ws;
    ((kvg_dynamic_block_quant_args *)a)->workspace_size = size;
}

static float element(const kvg_tensor *t, int64_t i)
{
    float v = 0.0f;
    FZ_CHECK(kvg_decode_f32(t->dtype, (const unsigned char *)t->data +
                                          (size_t)i * kvg_dtype_size(t->dtype),
                            &v) == KVG_OK,
             "decode");
    return v;
}

/* A successful call saw the views as they are: the invariants. */
static void on_success(void *p)
{
    const kvg_dynamic_block_quant_args *a = ((const ctx *)p)->a;
    const int64_t n = (int64_t)(a->x->nbytes / kvg_dtype_size(a->x->dtype));
    const int64_t ns = (int64_t)(a->scale->nbytes / 4);
    int64_t i;

    for (i = 0; i < ns; i++) {
        const float s = element(a->scale, i);
        FZ_CHECK(s != s || (s >= 0.0f && !signbit(s)), "negative scale");
    }
    for (i = 0; i < n; i++) {
        const float x = element(a->x, i), y = element(a->y, i);
        FZ_CHECK(y == y, "a NaN code in y");
        FZ_CHECK(y == 0.0f || (x == x && (y > 0.0f) == (x > 0.0f)),
                 "y's sign is not x's");
    }
}

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

/* An attribute mostly from its valid set, 1 in 16 something else. */
static int64_t choose(fz_in *in, const int64_t *valid, int n)
{
    const uint8_t c = fz_u8(in);
    return (c & 15) == 15 ? fz_weird(in) : valid[(c >> 4) % n];
}

static void attributes(fz_in *in, kvg_dynamic_block_quant_args *a)
{
    static const int64_t rbs[5] = {1, 64, 128, 256, 512};
    static const int64_t cbs[4] = {64, 128, 192, 256};
    static const int64_t dsts[4] = {KVG_INT8, KVG_HIF8, KVG_FP8_E5M2,
                                    KVG_FP8_E4M3FN};
    static const double mins[6] = {0.0, 0.0, 0.5, 1e-3, 64.0, -1.0};
    static const double dmaxes[6] = {0.0, 0.0, 15.0, 56.0, 224.0, 100.0};
    const uint8_t c = fz_u8(in);

    a->profile = (c & 1) ? KVG_PROFILE_A2A3
                         : KVG_PROFILE_ASCEND950;
    a->dst_type = a->profile == KVG_PROFILE_A2A3 && (c & 2)
                      ? KVG_INT8
                      : (kvg_dtype)choose(in, dsts, 4);
    a->round_mode = a->dst_type == KVG_HIF8 ? KVG_DYNAMIC_BLOCK_QUANT_ROUND
                                            : KVG_DYNAMIC_BLOCK_QUANT_RINT;
    if ((c & 12) == 12)
        a->round_mode = (kvg_dynamic_block_quant_round)fz_pick(in, 0, 3);
    a->row_block_size = a->profile == KVG_PROFILE_A2A3 && (c & 2)
                            ? 1
                            : choose(in, rbs, 5);
    a->col_block_size = a->profile == KVG_PROFILE_A2A3 && (c & 2)
                            ? 128
                            : choose(in, cbs, 4);
    a->min_scale = mins[fz_pick(in, 0, 5)];
    a->dst_type_max = a->dst_type == KVG_HIF8 ? dmaxes[fz_pick(in, 0, 5)]
                                              : (c & 16 ? 15.0 : 0.0) *
                                                    (double)((c & 48) == 48);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"x", NULL};
    static const kvg_dtype xts[3] = {KVG_FP16, KVG_BF16, KVG_FP32};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx cx;
    kvg_dynamic_block_quant_args a;
    int64_t sh[3];
    int rank, lead;
    uint8_t vmode;
    kvg_dtype xt;
    int64_t rb, cb;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_dynamic_block_quant_args_init(&a);
    attributes(&in, &a);
    xt = xts[fz_pick(&in, 0, 2)];
    rank = (int)fz_pick(&in, 2, 3);
    lead = rank - 2;
    sh[0] = fz_pick(&in, 1, 3);
    sh[lead] = fz_pick(&in, 1, 40);
    sh[lead + 1] = fz_pick(&in, 1, 200);
    a.x = view(fz_tensor(&pool, &in, "x", FZ_INPUT, xt, rank, sh));
    a.y = view(fz_tensor(&pool, &in, "y", FZ_OUTPUT,
                         kvg_dtype_size(a.dst_type) == 1 ? a.dst_type
                                                         : KVG_INT8,
                         rank, sh));
    /* the scale's natural shape from sane block sizes only (a weird one
     * is refused before any shape matters) */
    rb = a.row_block_size > 0 && a.row_block_size <= 1024 ? a.row_block_size
                                                          : 1;
    cb = a.col_block_size > 0 && a.col_block_size <= 1024 ? a.col_block_size
                                                          : 1;
    sh[lead] = (sh[lead] + rb - 1) / rb;
    sh[lead + 1] = (sh[lead + 1] + cb - 1) / cb;
    a.scale = view(fz_tensor(&pool, &in, "scale", FZ_OUTPUT, KVG_FP32, rank,
                             sh));
    cx.a = &a;
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &cx, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
