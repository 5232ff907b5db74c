/*
 * tests/ops/dynamic_mx_quant/fuzz_dynamic_mx_quant.c - DynamicMxQuant's
 * validation on fuzzed arguments: a call built from the input (x's dtype,
 * rank 1-4, axis, dst type, round mode, block size, scale_alg mostly among
 * the valid ones, sometimes not), every tensor open to a perturbation and
 * x's values to NaN / Inf / subnormals (the value mode), the shared
 * driver's invariants (fuzz_util.h: refusals name x with a position and
 * write nothing), and on success: every y code of x's sign or a zero, and
 * the +0 code wherever x is not finite.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "kvgold/dynamic_mx_quant.h"
#include "kvgold/format.h"

typedef struct ctx {
    const kvg_dynamic_mx_quant_args *a;
} ctx;

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_dynamic_mx_quant_workspace_size(
        (const kvg_dynamic_mx_quant_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_dynamic_mx_quant((const kvg_dynamic_mx_quant_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_dynamic_mx_quant_args *)a)->workspace = ws;
    ((kvg_dynamic_mx_quant_args *)a)->workspace_size = size;
}

static float x_at(const kvg_tensor *t, int64_t i)
{
    float v = 0.0f;
    FZ_CHECK(kvg_decode_f32(t->dtype, (const unsigned char *)t->data +
                                          (size_t)i * kvg_dtype_size(t->dtype),
                            &v) == KVG_OK,
             "decode");
    return v;
}

/* y's element i as a value (fp4: its nibble). */
static float y_at(const kvg_tensor *t, int64_t i)
{
    const unsigned char *b = (const unsigned char *)t->data;
    float v = 0.0f;
    if (t->dtype == KVG_FP4_E2M1)
        return kvg_fp4e2m1_to_f32(kvg_fp4_unpack(b[i / 2], (unsigned)i));
    FZ_CHECK(kvg_decode_f32(t->dtype, b + i, &v) == KVG_OK, "decode y");
    return v;
}

/* A successful call saw the views as they are: the invariants. */
static void on_success(void *p)
{
    const kvg_dynamic_mx_quant_args *a = ((const ctx *)p)->a;
    const int64_t n = (int64_t)(a->x->nbytes / kvg_dtype_size(a->x->dtype));
    int64_t i;

    for (i = 0; i < n; i++) {
        const float x = x_at(a->x, i), y = y_at(a->y, i);
        FZ_CHECK(y == y, "a NaN code in y");
        if (!isfinite(x))
            FZ_CHECK(y == 0.0f && !signbit(y), "non-finite x, y not +0");
        else
            FZ_CHECK(y == 0.0f || (y > 0.0f) == (x > 0.0f),
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

static void attributes(fz_in *in, kvg_dynamic_mx_quant_args *a)
{
    static const int64_t dsts[3] = {KVG_FP4_E2M1, KVG_FP8_E4M3FN,
                                    KVG_FP8_E5M2};
    static const int64_t bss[5] = {32, 32, 64, 96, 1024};
    static const int64_t algs[3] = {0, 0, 1};
    const uint8_t c = fz_u8(in);

    a->dst_type = (kvg_dtype)choose(in, dsts, 3);
    a->round_mode = a->dst_type == KVG_FP4_E2M1
                        ? (kvg_fp4_round)fz_pick(in, 0, (c & 1) ? 3 : 2)
                        : KVG_FP4_RINT;
    a->block_size = choose(in, bss, 5);
    a->scale_alg = a->dst_type == KVG_FP4_E2M1 && !(c & 2)
                       ? 0
                       : choose(in, algs, 3);
    a->dst_type_max = (c & 12) == 12 ? 6.0 : 0.0;
    a->max_low_bound = (c & 48) == 48 ? 1e-4 : 0.0;
}

/* x's natural shape, and axis: dims 1-40 (rank 1-2) or 1-12 (rank 3-4,
 * so that a call stays below 21 k elements and the replay fast under
 * ASan), the axis sometimes out of range. */
static int shape_x(fz_in *in, kvg_dynamic_mx_quant_args *a, int64_t *sh)
{
    const int rank = (int)fz_pick(in, 1, 4);
    const int64_t hi = rank <= 2 ? 40 : 12;
    int d;

    for (d = 0; d < rank; d++)
        sh[d] = fz_pick(in, 1, hi);
    a->axis = fz_pick(in, -rank - 1, rank);
    if (a->dst_type == KVG_FP4_E2M1 && sh[rank - 1] % 2 && fz_u8(in) & 1)
        sh[rank - 1]++;
    return rank;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"x", NULL};
    static const kvg_dtype xts[3] = {KVG_FP16, KVG_BF16, KVG_FP32};
    fz_in in;
    fz_pool pool;
    fz_op op;
    ctx cx;
    kvg_dynamic_mx_quant_args a;
    int64_t sh[5], bs, nb;
    int rank, axis;
    uint8_t vmode;
    kvg_dtype yt;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    kvg_dynamic_mx_quant_args_init(&a);
    attributes(&in, &a);
    rank = shape_x(&in, &a, sh);
    a.x = view(fz_tensor(&pool, &in, "x", FZ_INPUT, xts[fz_pick(&in, 0, 2)],
                         rank, sh));
    yt = kvg_dtype_size(a.dst_type) == 1 ? a.dst_type : KVG_FP8_E4M3FN;
    if (yt == KVG_FP4_E2M1 || yt == KVG_FP4_E1M2)
        sh[rank - 1] /= 2;
    a.y = view(fz_tensor(&pool, &in, "y", FZ_OUTPUT, yt, rank, sh));
    if (yt == KVG_FP4_E2M1 || yt == KVG_FP4_E1M2)
        sh[rank - 1] = a.x != NULL ? a.x->shape[rank - 1] : sh[rank - 1] * 2;
    /* mxscale's natural shape from a sane axis and block size only (weird
     * ones are refused before any shape matters) */
    axis = a.axis >= -rank && a.axis < rank
               ? (int)(a.axis < 0 ? a.axis + rank : a.axis)
               : rank - 1;
    bs = a.block_size > 0 && a.block_size <= 1024 ? a.block_size : 32;
    /* a ceiling without sh + bs - 1: the fuzzer's dims reach INT64_MAX */
    nb = sh[axis] / bs + (sh[axis] % bs != 0);
    sh[axis] = (nb + 1) / 2;
    sh[rank] = 2;
    a.mxscale = view(fz_tensor(&pool, &in, "mxscale", FZ_OUTPUT, KVG_E8M0,
                               rank + 1, sh));
    cx.a = &a;
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &cx, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
