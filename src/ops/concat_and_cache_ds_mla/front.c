/*
 * src/ops/concat_and_cache_ds_mla/front.c - the bf16 row the nope tiles
 * are quantised from. ascend-sfa-c8 runs npu_rms_norm then
 * npu_interleave_rope, each returning bf16 (sfa_v1.py @182b75ea84
 * custom_kv_rmsnorm_rope, 1708-1744); their arithmetic is taken from
 * kvgold's KV RmsNorm-RoPE cache operator (docs/kv_rms_norm_rope_cache.md;
 * src/kernels: binary32, one rounding per
 * operation), which the doc marks unverified (quant_epilogs.md Q18).
 * vllm-fp8_ds_mla takes kv_c and k_pe as they are.
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
        r[KVG_CCDM_ROPE];

    kvg_i_load_row(KVG_BF16, row_of(a->kv_c, t, KVG_CCDM_NOPE),
                   KVG_CCDM_NOPE, x);
    kvg_i_load_row(KVG_BF16, a->gamma->data, KVG_CCDM_NOPE, g);
    (void)kvg_i_rms_norm(x, g, KVG_CCDM_NOPE, p->eps, a->reduce_order,
                         scratch, x);
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
    memcpy(row, row_of(a->kv_c, t, KVG_CCDM_NOPE), 2 * KVG_CCDM_NOPE);
    memcpy(row + 2 * KVG_CCDM_NOPE, row_of(a->k_pe, t, KVG_CCDM_ROPE),
           2 * KVG_CCDM_ROPE);
}
