/*
 * src/ops/concat_and_cache_ds_mla/front.c - the bf16 row the nope tiles
 * are quantised from. ascend-sfa-c8 runs npu_rms_norm then
 * npu_interleave_rope, each returning bf16 (sfa_v1.py @182b75ea84
 * custom_kv_rmsnorm_rope, 1708-1744), in binary32 with one rounding per
 * operation (src/kernels):
 *   RmsNorm as ops-nn's rms_norm kernels compute it (norm/rms_norm/
 *   op_kernel: rms_norm_single_row.h ComputeMixDtype,
 *   rms_norm_whole_reduce_sum.h ComputeRstd / Compute): rstd = 1 /
 *   sqrtf(sum * fl(1/512) + eps), y = (x * rstd) * gamma - a multiply by
 *   the reciprocal, where kvgold's KV RmsNorm-RoPE cache operator divides
 *   by the rms; the sum's order is kvgold's reduce_order option (the
 *   kernels' ReduceSumHalfInterval order is not modelled);
 *   RoPE as torch_npu's npu_interleave_rope documents it (the
 *   de-interleave, then q * cos + RotateHalf(q) * sin: kvg_i_rope_
 *   interleave); its kernel's rounding was not read.
 * docs/concat_and_cache_ds_mla.md says what is verified (Q18).
 * vllm-fp8_ds_mla and flashmla-model1 take kv_c and k_pe as they are.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/kernels.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"

/* floats of kvg_i_sum_squares scratch for 512 values (pairwise: 512) */
#define SCRATCH 1024

static const unsigned char *row_of(const kvg_tensor *t, int64_t t_idx,
                                   int64_t n)
{
    return (const unsigned char *)t->data + (size_t)(t_idx * n) * 2;
}

static void norm_rope(const kvg_concat_and_cache_ds_mla_args *a,
                      const kvg_i_concat_and_cache_ds_mla_plan *p,
                      int64_t t, unsigned char *row)
{
    float x[KVG_CCDM_NOPE], g[KVG_CCDM_NOPE], scratch[SCRATCH];
    float xr[KVG_CCDM_ROPE], c[KVG_CCDM_ROPE], s[KVG_CCDM_ROPE],
        r[KVG_CCDM_ROPE], rstd;
    int j;

    kvg_i_load_row(KVG_BF16, row_of(a->kv_c, t, KVG_CCDM_NOPE),
                   KVG_CCDM_NOPE, x);
    kvg_i_load_row(KVG_BF16, a->gamma->data, KVG_CCDM_NOPE, g);
    rstd = 1.0f / kvg_i_rms_of(x, KVG_CCDM_NOPE, p->eps, a->reduce_order,
                               scratch);
    for (j = 0; j < KVG_CCDM_NOPE; j++)
        x[j] = (x[j] * rstd) * g[j];
    kvg_i_store_row(KVG_BF16, x, KVG_CCDM_NOPE, KVG_OVF_DEFAULT, row);
    kvg_i_load_row(KVG_BF16, row_of(a->k_pe, t, KVG_CCDM_ROPE),
                   KVG_CCDM_ROPE, xr);
    kvg_i_load_row(KVG_BF16, row_of(a->cos, t, KVG_CCDM_ROPE),
                   KVG_CCDM_ROPE, c);
    kvg_i_load_row(KVG_BF16, row_of(a->sin, t, KVG_CCDM_ROPE),
                   KVG_CCDM_ROPE, s);
    kvg_i_rope_interleave(xr, c, s, KVG_CCDM_ROPE, r);
    kvg_i_store_row(KVG_BF16, r, KVG_CCDM_ROPE, KVG_OVF_DEFAULT,
                    row + 2 * KVG_CCDM_NOPE);
}

void kvg_i_ccdm_row(const kvg_concat_and_cache_ds_mla_args *a,
                    const kvg_i_concat_and_cache_ds_mla_plan *p, int64_t t,
                    unsigned char *row)
{
    if (p->dbq != KVG_I_CCDM_DBQ_NONE) {
        norm_rope(a, p, t, row);
        return;
    }
    memcpy(row, row_of(a->kv_c, t, p->nope), 2 * (size_t)p->nope);
    memcpy(row + 2 * p->nope, row_of(a->k_pe, t, KVG_CCDM_ROPE),
           2 * KVG_CCDM_ROPE);
}
