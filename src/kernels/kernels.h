/*
 * src/kernels/kernels.h - the row arithmetic the fused operators share:
 * RmsNorm, the two RoPE variants and quantisation (spec section 1).
 *
 * All of it is binary32 with one rounding per operation, in exactly the
 * order written; the build forbids FMA contraction (-ffp-contract=off).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_KERNELS_H
#define KVGOLD_SRC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/dtype.h"
#include "kvgold/format.h"
#include "kvgold/options.h"

/* Floats of scratch kvg_i_sum_squares needs for n inputs (pairwise pads to
 * a power of two); 0 if n is 0 or too large. */
size_t kvg_i_sum_squares_scratch(size_t n);

/* Sum of x[j]^2 in the given order. `scratch` holds at least
 * kvg_i_sum_squares_scratch(n) floats (unused by the sequential orders;
 * the a2 and npu950 orders fit in the same size). */
float kvg_i_sum_squares(const float *x, size_t n, kvg_reduce_order order,
                        float *scratch);

/* rms = sqrtf(sum * (1.0f / (float)n) + eps), sum = kvg_i_sum_squares. */
float kvg_i_rms_of(const float *x, size_t n, float eps,
                   kvg_reduce_order order, float *scratch);

/* kvg_i_load_row(dtype, src, n, x), then kvg_i_rms_of(x, ...), the same
 * result; in the pairwise order in one pass for bf16 rows of 2^k > 64
 * values and fp16 or bf16 rows of 512. */
float kvg_i_load_rms_of(kvg_dtype dtype, const void *src, size_t n, float eps,
                        kvg_reduce_order order, float *scratch, float *x);

/* y[j] = (x[j] / rms) * gamma[j]; `y` may alias `x`. */
void kvg_i_rms_apply(const float *x, const float *gamma, size_t n, float rms,
                     float *y);

/*
 * kvg_i_rms_apply with rms = kvg_i_rms_of(x, n, eps, ...).
 * `y` may alias `x`. Returns the rms (sqrtf(...)), for diagnostics.
 */
float kvg_i_rms_norm(const float *x, const float *gamma, size_t n, float eps,
                     kvg_reduce_order order, float *scratch, float *y);

/* Half (rotate-half, NeoX) RoPE over n = 2H values; out must not alias y. */
void kvg_i_rope_half(const float *y, const float *cos_row, const float *sin_row,
                     size_t n, float *out);

/*
 * One call of kvg_i_norm_rope_half_heads128: for each of `heads` heads of
 * 128 channels (dtype, contiguous from src), kvg_i_load_rms_of, then
 * kvg_i_rms_apply with gamma and kvg_i_rope_half with cos_row and sin_row
 * (128 floats each) into out + 128 * head: the same operations in the
 * same order.
 */
typedef struct kvg_i_heads128 {
    kvg_dtype dtype;         /* of src (fp16, bf16 or fp32) */
    const void *src;         /* heads * 128 elements */
    /* The end of the buffer src lies in, or NULL: the kernel asks for the
     * bytes a few KiB ahead of each head it reads, never past it
     * (prefetch.h), so rows streamed from memory arrive in time. */
    const void *src_end;
    size_t heads;
    float eps;
    kvg_reduce_order order;
    const float *gamma, *cos_row, *sin_row;
    float *scratch;          /* 256 floats (the orders other than pairwise) */
    float *out;              /* heads * 128 floats; aliases no input */
    /* NULL, or heads * 128 elements of dtype (fp16 or bf16): out narrowed
     * as kvg_i_store_row(dtype, out, ..., overflow) would, each head as
     * soon as it is computed (its stores then overlap the next head's
     * arithmetic instead of waiting for the memory in one burst). */
    void *narrow_to;
    kvg_overflow overflow;
} kvg_i_heads128;

void kvg_i_norm_rope_half_heads128(const kvg_i_heads128 *job);

/* Interleaved-in, half-split-out RoPE over n = 2H values (spec 1.4);
 * out must not alias x. */
void kvg_i_rope_interleave(const float *restrict x,
                           const float *restrict cos_row,
                           const float *restrict sin_row, size_t n,
                           float *restrict out);

/* How a quantiser applies its scale. */
typedef enum kvg_i_scale_op {
    KVG_I_SCALE_DIV = 0, /* z = x / scale */
    KVG_I_SCALE_MUL = 1  /* z = x * scale (which one: the operator's) */
} kvg_i_scale_op;

/*
 * z = x (op) scale[j * scale_step] (+ offset[j * offset_step]), then narrow
 * z to `dtype` (int8, hif8, fp8 with `overflow`, or fp16/bf16) and store
 * element j at dst + j * size. `scale` NULL means no scaling; `offset` NULL
 * means no offset; a step of 0 broadcasts a single value. A NaN z is written
 * as the target's canonical positive quiet NaN (see quant.c for why).
 */
void kvg_i_quantize_row(const float *x, size_t n, const float *scale,
                        size_t scale_step, const float *offset,
                        size_t offset_step, kvg_i_scale_op op, kvg_dtype dtype,
                        kvg_overflow overflow, void *dst);

/*
 * RmsNorm, then quantisation, of one row without the intermediate row:
 * z = ((x[j] / rms) * gamma[j]) * scale[j * scale_step]
 * (+ offset[j * offset_step]), narrowed to `dtype` as kvg_i_quantize_row
 * does with KVG_I_SCALE_MUL: the same operations in the same order, so
 * the same bits as kvg_i_rms_norm followed by kvg_i_quantize_row (scale
 * NULL: no scaling, the row stored as `dtype`, as kvg_i_store_row).
 */
void kvg_i_norm_quantize_row(const float *x, size_t n, float rms,
                             const float *gamma, const float *scale,
                             size_t scale_step, const float *offset,
                             size_t offset_step, kvg_dtype dtype,
                             kvg_overflow overflow, void *dst);

/* Widen n elements of a fp16/bf16/fp32 row to binary32 (exact). */
void kvg_i_load_row(kvg_dtype dtype, const void *src, size_t n, float *dst);

/* Narrow n binary32 values to fp16/bf16 (RNE) or store as fp32; NaN
 * canonical as in kvg_i_quantize_row. */
void kvg_i_store_row(kvg_dtype dtype, const float *src, size_t n,
                     kvg_overflow overflow, void *dst);

/* Copy `runs` runs of `run` bytes, contiguous in src, to dst + k*stride
 * (one row of an NZ cache: C0-element runs BlockSize*C0 elements apart). */
void kvg_i_copy_runs(void *dst, size_t stride, const void *src, size_t run,
                     size_t runs);

/* The same for `rows` rows at once, row i from src[i] to dst[i]: rows to
 * consecutive slots run by run, scattered rows a few runs of every row at
 * a time (see copy.c for why the order matters). */
void kvg_i_copy_runs_tiled(unsigned char *const *dst, size_t stride,
                           const unsigned char *const *src, size_t run,
                           size_t runs, size_t rows);

/* memcpy(dst, src, bytes), as 32-byte copies of constant size where
 * bytes is a multiple of 32 (see copy.c for why). */
void kvg_i_copy_bytes(void *dst, const void *src, size_t bytes);

/* Rows a caller gathers per kvg_i_copy_runs_tiled call: a prefill's
 * tokens then fill a block of 128 slots in one stretch (measured 64 and
 * 128), and a decode step's 256 rows are one scattered tile (copy.c;
 * docs/performance.md). */
#define KVG_I_COPY_TILE 256

#endif /* KVGOLD_SRC_KERNELS_H */
