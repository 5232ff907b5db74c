/*
 * src/ops/dynamic_block_quant/check.c - validation of DynamicBlockQuant:
 * the aclnn null checks (161001), the host tiling checks of the profile's
 * kernel (ops-nn quant/dynamic_block_quant/op_host: dynamic_block_quant_
 * tiling.cpp for ascend950, dynamic_block_quant_i8_tiling.cpp for a2a3) and
 * kvgold's value refusals (161002). Nothing here writes to a tensor.
 *
 * The order follows the host: tensors present, dtypes, attributes, shapes;
 * then x's values (a separate pass: the skeleton's `values` step).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/ops/dynamic_block_quant/internal.h"

#define INV KVG_ERR_PARAM_INVALID

/* 2^-126, the smallest normal binary32: the 950's Div flushes anything
 * below it (inputs and results) to zero. */
#define MIN_NORMAL FLT_MIN

/* ---- presence, dtypes ------------------------------------------------- */

static kvg_status check_presence(const kvg_dynamic_block_quant_args *a,
                                 kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->x, "x", diag));
    KVG_TRY(kvg_i_check_present(a->y, "y", diag));
    KVG_TRY(kvg_i_check_present(a->scale, "scale", diag));
    KVG_TRY(kvg_i_check_dense(a->x, "x", diag));
    KVG_TRY(kvg_i_check_dense(a->y, "y", diag));
    return kvg_i_check_dense(a->scale, "scale", diag);
}

static int is_quant_dst(kvg_dtype t)
{
    return t == KVG_INT8 || t == KVG_HIF8 || t == KVG_FP8_E5M2 ||
           t == KVG_FP8_E4M3FN;
}

static kvg_status check_dtypes(const kvg_dynamic_block_quant_args *a,
                               int a2a3, kvg_diag *diag)
{
    const kvg_dtype xt = a->x->dtype, yt = a->y->dtype;

    if (a2a3 ? !(xt == KVG_FP16 || xt == KVG_BF16)
             : !(xt == KVG_FP16 || xt == KVG_BF16 || xt == KVG_FP32))
        return kvg_diag_set(diag, INV, "x", -1, -1,
                            "x: dtype must be %s, got %s",
                            a2a3 ? "fp16 or bf16 (profile a2a3)"
                                 : "fp16, bf16 or fp32",
                            kvg_dtype_name(xt));
    if (a2a3 ? yt != KVG_INT8 : !is_quant_dst(yt))
        return kvg_diag_set(diag, INV, "y", -1, -1,
                            "y: dtype must be %s, got %s",
                            a2a3 ? "int8 (profile a2a3)"
                                 : "int8, hif8, fp8_e5m2 or fp8_e4m3fn",
                            kvg_dtype_name(yt));
    return kvg_i_check_dtype(a->scale, "scale", KVG_FP32, diag);
}

/* ---- attributes ------------------------------------------------------- */

static kvg_status check_dst_type(const kvg_dynamic_block_quant_args *a,
                                 kvg_diag *diag)
{
    if (!is_quant_dst(a->dst_type))
        return kvg_diag_set(diag, INV, "dst_type", -1, -1,
                            "dst_type: must be int8, hif8, fp8_e5m2 or "
                            "fp8_e4m3fn, got %s",
                            a->dst_type == KVG_DTYPE_INVALID
                                ? "an invalid dtype"
                                : kvg_dtype_name(a->dst_type));
    if (a->dst_type != a->y->dtype)
        return kvg_diag_set(diag, INV, "dst_type", -1, -1,
                            "dst_type: is %s but y is %s (they must be the "
                            "same)", kvg_dtype_name(a->dst_type),
                            kvg_dtype_name(a->y->dtype));
    return KVG_OK;
}

static const char *round_name(kvg_dynamic_block_quant_round r)
{
    return r == KVG_DYNAMIC_BLOCK_QUANT_RINT    ? "rint"
           : r == KVG_DYNAMIC_BLOCK_QUANT_ROUND ? "round"
           : r == KVG_DYNAMIC_BLOCK_QUANT_HYBRID ? "hybrid"
                                                 : "an unknown mode";
}

/* hif8 takes "round" only, the others "rint" only (the 950 tiling's
 * CheckRoundMode; "hybrid" is refused for every dtype, so the kernel's
 * HYBRID cast is unreachable). */
static kvg_status check_round_mode(const kvg_dynamic_block_quant_args *a,
                                   kvg_diag *diag)
{
    const kvg_dynamic_block_quant_round want =
        a->dst_type == KVG_HIF8 ? KVG_DYNAMIC_BLOCK_QUANT_ROUND
                                : KVG_DYNAMIC_BLOCK_QUANT_RINT;
    if (a->round_mode != want)
        return kvg_diag_set(diag, INV, "round_mode", -1, -1,
                            "round_mode: must be \"%s\" when y is %s, got "
                            "\"%s\"", round_name(want),
                            kvg_dtype_name(a->dst_type),
                            round_name(a->round_mode));
    return KVG_OK;
}

static kvg_status check_block_sizes(const kvg_dynamic_block_quant_args *a,
                                    int a2a3, kvg_diag *diag)
{
    const int64_t rb = a->row_block_size, cb = a->col_block_size;

    if (a2a3 ? rb != 1
             : !(rb == 1 || rb == 64 || rb == 128 || rb == 256 || rb == 512))
        return kvg_diag_set(diag, INV, "row_block_size", -1, -1,
                            "row_block_size: must be %s, got %lld",
                            a2a3 ? "1 (profile a2a3)"
                                 : "1, 64, 128, 256 or 512",
                            (long long)rb);
    if (a2a3 ? cb != 128
             : !(cb == 64 || cb == 128 || cb == 192 || cb == 256))
        return kvg_diag_set(diag, INV, "col_block_size", -1, -1,
                            "col_block_size: must be %s, got %lld",
                            a2a3 ? "128 (profile a2a3)"
                                 : "64, 128, 192 or 256",
                            (long long)cb);
    return KVG_OK;
}

static kvg_status check_dst_type_max(const kvg_dynamic_block_quant_args *a,
                                     int a2a3, kvg_diag *diag)
{
    const double m = a->dst_type_max;

    if (!(m == 0.0 || m == 15.0 || m == 56.0 || m == 224.0 || m == 32768.0))
        return kvg_diag_set(diag, INV, "dst_type_max", -1, -1,
                            "dst_type_max: must be 0, 15, 56, 224 or 32768, "
                            "got %g", m);
    if (m != 0.0 && (a2a3 || a->dst_type != KVG_HIF8))
        return kvg_diag_set(diag, INV, "dst_type_max", -1, -1,
                            "dst_type_max: must be 0 unless y is hif8%s, got "
                            "%g", a2a3 ? " (profile a2a3: always 0)" : "", m);
    return KVG_OK;
}

/* min_scale >= 0 is the host's rule; kvgold also refuses what has no
 * defined result: NaN, a value that is not finite as a float, and on the
 * 950 one whose reciprocal is subnormal, which the Div flushes to 0 (every
 * scale would then be 0 and every y saturated). */
static kvg_status check_min_scale(const kvg_dynamic_block_quant_args *a,
                                  int a2a3, kvg_diag *diag)
{
    const float f = (float)a->min_scale;

    if (!(a->min_scale >= 0.0) || !isfinite(f))
        return kvg_diag_set(diag, INV, "min_scale", -1, -1,
                            "min_scale: must be finite (as a float) and >= 0, "
                            "got %g", a->min_scale);
    if (!a2a3 && f != 0.0f && 1.0f / f < MIN_NORMAL)
        return kvg_diag_set(diag, INV, "min_scale", -1, -1,
                            "min_scale: %g makes 1/min_scale subnormal, which "
                            "the 950's division flushes to 0 (not "
                            "reproducible); must be <= 2^126", a->min_scale);
    return KVG_OK;
}

/* ---- shapes ----------------------------------------------------------- */

static int64_t ceil_div(int64_t n, int64_t d)
{
    return n / d + (n % d != 0);
}

static kvg_status check_shapes(const kvg_dynamic_block_quant_args *a,
                               kvg_i_dynamic_block_quant_plan *p,
                               kvg_diag *diag)
{
    const kvg_tensor *x = a->x;
    const int r = x->rank;
    char want[48];
    int d;

    if (r != 2 && r != 3)
        return kvg_diag_set(diag, INV, "x", -1, -1,
                            "x: rank must be 2 ([M, N]) or 3 ([B, M, N]), got "
                            "%d", r);
    KVG_TRY(kvg_i_check_rank(a->y, "y", r, diag));
    for (d = 0; d < r; d++)
        KVG_TRY(kvg_i_check_dim(a->y, "y", d, x->shape[d], "x's shape",
                                diag));
    p->batch = r == 3 ? x->shape[0] : 1;
    p->rows = x->shape[r - 2];
    p->cols = x->shape[r - 1];
    p->row_blocks = ceil_div(p->rows, p->rb);
    p->col_blocks = ceil_div(p->cols, p->cb);
    KVG_TRY(kvg_i_check_rank(a->scale, "scale", r, diag));
    if (r == 3)
        KVG_TRY(kvg_i_check_dim(a->scale, "scale", 0, p->batch, "x's B",
                                diag));
    snprintf(want, sizeof want, "ceil(M / row_block_size %lld)",
             (long long)p->rb);
    KVG_TRY(kvg_i_check_dim(a->scale, "scale", r - 2, p->row_blocks, want,
                            diag));
    snprintf(want, sizeof want, "ceil(N / col_block_size %lld)",
             (long long)p->cb);
    return kvg_i_check_dim(a->scale, "scale", r - 1, p->col_blocks, want,
                           diag);
}

/* DST_MAX: int8 127, e4m3fn 448, e5m2 57344, hif8 dst_type_max or 32768
 * (ops-nn arch35/dynamic_block_quant_common.h, GetDstTypeMaxValue). */
static float dst_max_of(kvg_dtype t, double dst_type_max)
{
    switch (t) {
    case KVG_INT8:
        return 127.0f;
    case KVG_FP8_E4M3FN:
        return 448.0f;
    case KVG_FP8_E5M2:
        return 57344.0f;
    default:
        return dst_type_max != 0.0 ? (float)dst_type_max : 32768.0f;
    }
}

kvg_status kvg_i_dynamic_block_quant_check_args(
    const kvg_dynamic_block_quant_args *a,
    kvg_i_dynamic_block_quant_plan *p, kvg_diag *diag)
{
    const int a2a3 = a->profile == KVG_PROFILE_A2A3;

    if (a->profile != KVG_PROFILE_ASCEND950 && !a2a3)
        return kvg_diag_set(diag, INV, "profile", -1, -1,
                            "profile: must be ascend950 or a2a3, got %d",
                            (int)a->profile);
    KVG_TRY(check_presence(a, diag));
    KVG_TRY(check_dtypes(a, a2a3, diag));
    KVG_TRY(check_min_scale(a, a2a3, diag));
    KVG_TRY(check_dst_type(a, diag));
    KVG_TRY(check_round_mode(a, diag));
    KVG_TRY(check_block_sizes(a, a2a3, diag));
    KVG_TRY(check_dst_type_max(a, a2a3, diag));
    p->rb = a->row_block_size;
    p->cb = a->col_block_size;
    p->xt = a->x->dtype;
    p->yt = a->y->dtype;
    p->profile = a->profile;
    p->dst_max = dst_max_of(p->yt, a->dst_type_max);
    p->min_scale = (float)a->min_scale;
    p->inv_min = 1.0f / p->min_scale; /* +inf for 0 (IEEE) */
    return check_shapes(a, p, diag);
}

/* ---- values ----------------------------------------------------------- */

/* Flat index of x[b][r][c]. */
static kvg_status refuse_element(const kvg_i_dynamic_block_quant_plan *p,
                                 int64_t b, int64_t r, int64_t c,
                                 const char *why, kvg_diag *diag)
{
    return kvg_diag_set(diag, INV, "x", -1, kvg_i_dynamic_block_quant_flat(p, b, r, c),
                        "x: element [%lld, %lld, %lld] (block [%lld, %lld]) "
                        "%s", (long long)b, (long long)r, (long long)c,
                        (long long)(r / p->rb), (long long)(c / p->cb), why);
}

static int is_subnormal(float v)
{
    return v != 0.0f && fabsf(v) < MIN_NORMAL;
}

/* An element refused whatever its block, or NULL: why. */
static const char *plain_refusal(const kvg_i_dynamic_block_quant_plan *p,
                                 float x)
{
    if (is_subnormal(x))
        return "is subnormal: the device's vector arithmetic flushes "
               "subnormal inputs to zero (not reproducible)";
    if (p->profile == KVG_PROFILE_A2A3 && !isfinite(x))
        return "is not finite: the A2/A3 kernel's float max and casts of "
               "Inf / NaN are not documented (profile a2a3)";
    return NULL;
}

/* An element whose scaled value is refused, or NULL: why. */
static const char *scaled_refusal(const kvg_i_dynamic_block_quant_plan *p,
                                  const kvg_i_dynamic_block_quant_block *blk,
                                  float x)
{
    const float z = kvg_i_dynamic_block_quant_scaled(p, blk, x);
    float r;

    if (p->profile == KVG_PROFILE_A2A3) {
        r = rintf(z);
        if (!(r >= -128.0f && r <= 127.0f))
            return "times the block's multiplier rounds outside [-128, 127]: "
                   "the A2/A3 kernel's int16 / int8 casts (CAST_NONE) do not "
                   "document overflow (profile a2a3)";
        return NULL;
    }
    if ((p->yt == KVG_FP8_E4M3FN || p->yt == KVG_FP8_E5M2) && is_subnormal(z))
        return "over its block's scale is subnormal: the 950's division "
               "flushes it to a zero whose sign (the fp8 code 0x00 or 0x80) "
               "is not documented";
    return NULL;
}

/* A block the profile refuses as a whole, or NULL: why. */
static const char *block_refusal(const kvg_i_dynamic_block_quant_plan *p,
                                 const kvg_i_dynamic_block_quant_block *blk)
{
    if (p->profile == KVG_PROFILE_A2A3)
        return blk->amax == 0.0f
                   ? "is in an all-zero block: the A2/A3 kernel computes "
                     "1/0 = inf and casts 0 * inf, which is not documented "
                     "(profile a2a3)"
                   : NULL;
    if (is_subnormal(blk->amax / p->dst_max))
        return "is the largest of a block whose scale amax / DST_MAX would "
               "be subnormal: the 950's division flushes it to 0 (not "
               "reproducible)";
    return NULL;
}

/* The block's first element of largest magnitude, for the message. */
static void argmax(const kvg_dynamic_block_quant_args *a,
                   const kvg_i_dynamic_block_quant_plan *p,
                   const kvg_i_dynamic_block_quant_block *blk, int64_t *rr,
                   int64_t *cc)
{
    int64_t r, c;
    for (r = blk->r0; r < blk->r1; r++)
        for (c = blk->c0; c < blk->c1; c++)
            if (fabsf(kvg_i_dynamic_block_quant_x(a, p, blk->b, r, c)) ==
                blk->amax) {
                *rr = r, *cc = c;
                return;
            }
    *rr = blk->r0, *cc = blk->c0;
}

/* The element refusals first (in x's order), then the block's, then
 * those of the scaled values (which need a block that is not refused). */
static kvg_status check_block(const kvg_dynamic_block_quant_args *a,
                              const kvg_i_dynamic_block_quant_plan *p,
                              const kvg_i_dynamic_block_quant_block *blk,
                              kvg_diag *diag)
{
    const char *why;
    int64_t r, c;
    float x;

    for (r = blk->r0; r < blk->r1; r++)
        for (c = blk->c0; c < blk->c1; c++) {
            why = plain_refusal(
                p, kvg_i_dynamic_block_quant_x(a, p, blk->b, r, c));
            if (why != NULL)
                return refuse_element(p, blk->b, r, c, why, diag);
        }
    why = block_refusal(p, blk);
    if (why != NULL) {
        argmax(a, p, blk, &r, &c);
        return refuse_element(p, blk->b, r, c, why, diag);
    }
    for (r = blk->r0; r < blk->r1; r++)
        for (c = blk->c0; c < blk->c1; c++) {
            x = kvg_i_dynamic_block_quant_x(a, p, blk->b, r, c);
            why = scaled_refusal(p, blk, x);
            if (why != NULL)
                return refuse_element(p, blk->b, r, c, why, diag);
        }
    return KVG_OK;
}

/* ---- the fast pass: which blocks need check_block ---------------------- */

/* Some element of the block is subnormal (plain_refusal's first test):
 * a magnitude pattern in [1, smallest normal), i.e. low below the
 * smallest normal's pattern minus 1. fp16's subnormals widen to normal
 * binary32 values, so an fp16 block never has one. */
static int has_subnormal(const kvg_i_dynamic_block_quant_plan *p,
                         const kvg_i_dynamic_block_quant_block *blk)
{
    if (p->xt == KVG_FP16)
        return 0;
    return blk->bits.low < (p->xt == KVG_FP32 ? 0x7FFFFFu : 0x7Fu);
}

/* The smallest nonzero |x| of the block, or 0 when it is all +-0. */
static float smallest_nonzero(const kvg_i_dynamic_block_quant_plan *p,
                              const kvg_i_dynamic_block_quant_block *blk)
{
    const uint32_t none = p->xt == KVG_FP32 ? 0x7FFFFFFFu : 0x7FFFu;
    const uint32_t u = blk->bits.low + 1u;

    if (blk->bits.low == none)
        return 0.0f;
    return kvg_i_dynamic_block_quant_widen(p->xt, u);
}

/* Whether some element could meet scaled_refusal. Rounding is monotonic
 * and the multiplier / divisor positive, so |x op m| grows with |x|: on
 * a2a3 the largest product bounds them all (rint of amax * m within 127
 * clears the block; its negative rounds to at least -127); on the 950 the
 * smallest nonzero quotient does (zeros give +-0, never subnormal; a NaN
 * divisor gives NaN everywhere, which compares false). */
static int scaled_suspect(const kvg_i_dynamic_block_quant_plan *p,
                          const kvg_i_dynamic_block_quant_block *blk)
{
    float least;

    if (p->profile == KVG_PROFILE_A2A3)
        return !(rintf(blk->amax * blk->mult) <= 127.0f);
    if (p->yt != KVG_FP8_E4M3FN && p->yt != KVG_FP8_E5M2)
        return 0;
    least = smallest_nonzero(p, blk);
    return least != 0.0f && least / blk->mult < MIN_NORMAL;
}

/* Whether check_block could refuse the block: every refusal it makes
 * implies one of these (each test says which), so a block that passes
 * them all passes check_block, and skipping it changes no verdict and no
 * message. */
static int suspect(const kvg_i_dynamic_block_quant_plan *p,
                   const kvg_i_dynamic_block_quant_block *blk)
{
    if (has_subnormal(p, blk))
        return 1;
    if (p->profile == KVG_PROFILE_A2A3 && !isfinite(blk->amax))
        return 1; /* plain_refusal's second test: amax is NaN or Inf */
    return block_refusal(p, blk) != NULL || scaled_suspect(p, blk);
}

/* One scan per block (its amax and smallest magnitude); the element by
 * element check_block only where a refusal is possible, in the same
 * block order, so the first refusal is the one it always was. */
kvg_status kvg_i_dynamic_block_quant_check_values(
    const kvg_dynamic_block_quant_args *a,
    const kvg_i_dynamic_block_quant_plan *p, kvg_diag *diag)
{
    kvg_i_dynamic_block_quant_block blk[KVG_I_DYNAMIC_BLOCK_QUANT_RUN];
    const int64_t blocks = kvg_i_dynamic_block_quant_blocks(p);
    int64_t q;
    int k, n;

    for (q = 0; q < blocks; q += n) {
        n = kvg_i_dynamic_block_quant_run_at(a, p, q, blk);
        for (k = 0; k < n; k++)
            if (suspect(p, &blk[k]))
                KVG_TRY(check_block(a, p, &blk[k], diag));
    }
    return KVG_OK;
}
