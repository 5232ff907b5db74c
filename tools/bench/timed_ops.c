/*
 * tools/bench/timed_ops.c - the timing shims the benchmark's copies of the
 * case adapters call instead of the operators (see bench.h and
 * adapt_<op>.c). Each names what its operator writes and reads, then hands
 * the real call to kvgb_measure.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "timed_ops.h"

#include "bench.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Outputs that are absent (NULL) are dropped from the list. */
static int present(const kvg_tensor **list, int n)
{
    int i, m = 0;
    for (i = 0; i < n; i++)
        if (list[i] != NULL)
            list[m++] = list[i];
    return m;
}

static kvg_status call_qkv(const void *a, kvg_diag *d)
{
    return kvg_qkv_rms_norm_rope_cache(
        (const kvg_qkv_rms_norm_rope_cache_args *)a, d);
}

kvg_status kvgb_timed_qkv_rms_norm_rope_cache(
    const kvg_qkv_rms_norm_rope_cache_args *a, kvg_diag *diag)
{
    const kvg_tensor *outs[6], *ins[10];
    outs[0] = a->q_out, outs[1] = a->k_cache, outs[2] = a->v_cache;
    outs[3] = a->q_out_before_quant, outs[4] = a->k_out_before_quant;
    outs[5] = a->v_out_before_quant;
    ins[0] = a->qkv, ins[1] = a->q_gamma, ins[2] = a->k_gamma;
    ins[3] = a->cos, ins[4] = a->sin, ins[5] = a->index;
    ins[6] = a->k_scale, ins[7] = a->v_scale, ins[8] = a->k_offset;
    ins[9] = a->v_offset;
    return kvgb_measure(call_qkv, a, outs, present(outs, COUNT(outs)), ins,
                        present(ins, COUNT(ins)), 0, diag);
}

static kvg_status call_kv(const void *a, kvg_diag *d)
{
    return kvg_kv_rms_norm_rope_cache(
        (const kvg_kv_rms_norm_rope_cache_args *)a, d);
}

kvg_status kvgb_timed_kv_rms_norm_rope_cache(
    const kvg_kv_rms_norm_rope_cache_args *a, kvg_diag *diag)
{
    const kvg_tensor *outs[4], *ins[9];
    outs[0] = a->k_cache, outs[1] = a->ckv_cache;
    outs[2] = a->is_output_kv ? a->k_rope : NULL;
    outs[3] = a->is_output_kv ? a->c_kv : NULL;
    ins[0] = a->kv, ins[1] = a->gamma, ins[2] = a->cos, ins[3] = a->sin;
    ins[4] = a->index, ins[5] = a->k_rope_scale, ins[6] = a->c_kv_scale;
    ins[7] = a->k_rope_offset, ins[8] = a->c_kv_offset;
    return kvgb_measure(call_kv, a, outs, present(outs, COUNT(outs)), ins,
                        present(ins, COUNT(ins)), 0, diag);
}

static kvg_status call_omni(const void *a, kvg_diag *d)
{
    return kvg_reshape_and_cache_omni(
        (const kvg_reshape_and_cache_omni_args *)a, d);
}

kvg_status kvgb_timed_reshape_and_cache_omni(
    const kvg_reshape_and_cache_omni_args *a, kvg_diag *diag)
{
    const kvg_tensor *outs[2], *ins[4];
    outs[0] = a->key_cache, outs[1] = a->value_cache;
    ins[0] = a->slot_mapping, ins[1] = a->wins, ins[2] = a->seq_len;
    ins[3] = a->offset_index;
    return kvgb_measure(call_omni, a, outs, present(outs, COUNT(outs)), ins,
                        present(ins, COUNT(ins)), 1, diag);
}

static kvg_status call_rac(const void *a, kvg_diag *d)
{
    return kvg_reshape_and_cache((const kvg_reshape_and_cache_args *)a, d);
}

/* KVHEAD_ROPE averages a window it does not copy: count key and value as
 * read in full, like a computing op. */
kvg_status kvgb_timed_reshape_and_cache(const kvg_reshape_and_cache_args *a,
                                        kvg_diag *diag)
{
    const int mean = a->compress_type == KVG_RAC_COMPRESS_KVHEAD_ROPE;
    const kvg_tensor *outs[2], *ins[6];
    outs[0] = a->key_cache, outs[1] = a->value_cache;
    ins[0] = a->slot_mapping, ins[1] = a->wins, ins[2] = a->seq_len;
    ins[3] = a->offset_index;
    ins[4] = mean ? a->key : NULL, ins[5] = mean ? a->value : NULL;
    return kvgb_measure(call_rac, a, outs, present(outs, COUNT(outs)), ins,
                        present(ins, COUNT(ins)), !mean, diag);
}
