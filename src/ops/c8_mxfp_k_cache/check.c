/*
 * src/ops/c8_mxfp_k_cache/check.c - the C8-MXFP K write's validation:
 * tensors and the source's constraints (check_args), then slot_mapping's
 * values and key's values (check_values). Messages name the tensor,
 * expected vs got, and the source's reason.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/format.h"
#include "src/common/bits.h"
#include "src/kernels/mx_refusal.h"
#include "src/ops/c8_mxfp_k_cache/internal.h"

#define INV KVG_ERR_PARAM_INVALID

static kvg_status check_present(const kvg_c8_mxfp_k_cache_args *a,
                                kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->key, "key", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->key_cache, "key_cache", diag));
    KVG_TRY(kvg_i_check_present(a->key_scale_cache, "key_scale_cache",
                                diag));
    KVG_TRY(kvg_i_check_dense(a->key, "key", diag));
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_dense(a->key_cache, "key_cache", diag));
    return kvg_i_check_dense(a->key_scale_cache, "key_scale_cache", diag);
}

/* key [T, N, D], bf16 / fp16 / fp32 (what MX quant takes with
 * block 32); D % 64 == 0: the source's validate_mxfp_k_scale_head_dim (a
 * scale pair covers 64 elements). */
static kvg_status check_key(const kvg_c8_mxfp_k_cache_args *a,
                            kvg_i_c8_mxfp_k_cache_plan *p, kvg_diag *diag)
{
    const kvg_tensor *k = a->key;

    if (k->dtype != KVG_BF16 && k->dtype != KVG_FP16 &&
        k->dtype != KVG_FP32)
        return kvg_diag_set(diag, INV, "key", -1, -1,
                            "key: dtype %s; bf16, fp16 or fp32 expected "
                            "(the MX quantisation's inputs)",
                            kvg_dtype_name(k->dtype));
    if (k->rank != 3)
        return kvg_diag_set(diag, INV, "key", -1, -1,
                            "key: rank %d; [T, N, D] expected", k->rank);
    p->tokens = k->shape[0];
    p->heads = k->shape[1];
    p->d = k->shape[2];
    if (p->d % 64 != 0)
        return kvg_diag_set(diag, INV, "key", 2, -1,
                            "key: head_dim D = %lld is not a multiple of 64 "
                            "(vllm-ascend validate_mxfp_k_scale_head_dim: "
                            "the K scale cache pairs 32-element blocks)",
                            (long long)p->d);
    return KVG_OK;
}

static kvg_status check_slots(const kvg_c8_mxfp_k_cache_args *a,
                              const kvg_i_c8_mxfp_k_cache_plan *p,
                              kvg_diag *diag)
{
    const kvg_tensor *s = a->slot_mapping;

    if (s->dtype != KVG_INT32 && s->dtype != KVG_INT64)
        return kvg_diag_set(diag, INV, "slot_mapping", -1, -1,
                            "slot_mapping: dtype %s; int32 or int64 "
                            "expected", kvg_dtype_name(s->dtype));
    KVG_TRY(kvg_i_check_rank(s, "slot_mapping", 1, diag));
    return kvg_i_check_dim(s, "slot_mapping", 0, p->tokens, "key.shape[0]",
                           diag);
}

/* key_cache: fp8_e4m3fn [Bn, N, D/32, Bs, 32], the PA_NZ view the source
 * hands the PA_NZ scatter; Bs % 64 == 0 (validate_mxfp_v_scale_
 * block_size, checked for every C8-MXFP cache), Bs < 65536
 * (the PA_NZ scatter's bound, the source's docstring). */
static kvg_status check_key_cache(const kvg_c8_mxfp_k_cache_args *a,
                                  kvg_i_c8_mxfp_k_cache_plan *p,
                                  kvg_diag *diag)
{
    const kvg_tensor *c = a->key_cache;

    if (c->dtype != KVG_FP8_E4M3FN)
        return kvg_diag_set(diag, INV, "key_cache", -1, -1,
                            "key_cache: dtype %s; fp8_e4m3fn expected (the "
                            "MX quantisation's e4m3fn codes)",
                            kvg_dtype_name(c->dtype));
    if (c->rank != 5)
        return kvg_diag_set(diag, INV, "key_cache", -1, -1,
                            "key_cache: rank %d; the PA_NZ view [Bn, N, "
                            "D/32, Bs, 32] expected (its [Bn, Bs, N, D] "
                            "storage is viewed so by the source)", c->rank);
    KVG_TRY(kvg_i_check_dim(c, "key_cache", 1, p->heads, "key's N", diag));
    KVG_TRY(kvg_i_check_dim(c, "key_cache", 2, p->d / 32, "key's D / 32",
                            diag));
    KVG_TRY(kvg_i_check_dim(c, "key_cache", 4, 32, "32 one-byte codes",
                            diag));
    p->blocks = c->shape[0];
    p->block_size = c->shape[3];
    if (p->block_size % 64 != 0 || p->block_size > KVG_I_MXK_BS_MAX)
        return kvg_diag_set(diag, INV, "key_cache", 3, -1,
                            "key_cache: block_size Bs = %lld; a multiple of "
                            "64 below 65536 expected (vllm-ascend "
                            "validate_mxfp_v_scale_block_size; "
                            "the PA_NZ scatter's Bs < 65536)",
                            (long long)p->block_size);
    p->slots = p->blocks * p->block_size; /* fits: key_cache is dense */
    return KVG_OK;
}

/* key_scale_cache: e8m0 (or the raw uint8 vllm-ascend allocates: the same
 * bytes) [Bn, N, Bs/16, D/64, 16, 2]. */
static kvg_status check_scale_cache(const kvg_c8_mxfp_k_cache_args *a,
                                    const kvg_i_c8_mxfp_k_cache_plan *p,
                                    kvg_diag *diag)
{
    const kvg_tensor *c = a->key_scale_cache;
    const int64_t want[6] = {p->blocks, p->heads, p->block_size / 16,
                             p->d / 64, 16, 2};
    static const char *const what[6] = {"key_cache's Bn", "key's N",
                                        "Bs / 16", "D / 64",
                                        "16 slots a tile", "a pair"};
    int i;

    if (c->dtype != KVG_E8M0 && c->dtype != KVG_UINT8)
        return kvg_diag_set(diag, INV, "key_scale_cache", -1, -1,
                            "key_scale_cache: dtype %s; e8m0 or uint8 "
                            "expected", kvg_dtype_name(c->dtype));
    if (c->rank != 6)
        return kvg_diag_set(diag, INV, "key_scale_cache", -1, -1,
                            "key_scale_cache: rank %d; [Bn, N, Bs/16, D/64, "
                            "16, 2] expected", c->rank);
    for (i = 0; i < 6; i++)
        KVG_TRY(kvg_i_check_dim(c, "key_scale_cache", i, want[i], what[i],
                                diag));
    return KVG_OK;
}

kvg_status kvg_i_c8_mxfp_k_cache_check_args(
    const kvg_c8_mxfp_k_cache_args *a, kvg_i_c8_mxfp_k_cache_plan *plan,
    kvg_diag *diag)
{
    size_t sizes[2];

    KVG_TRY(check_present(a, diag));
    KVG_TRY(check_key(a, plan, diag));
    KVG_TRY(check_slots(a, plan, diag));
    KVG_TRY(check_key_cache(a, plan, diag));
    KVG_TRY(check_scale_cache(a, plan, diag));
    kvg_i_mxk_plan_layout(plan, a->key->dtype);
    sizes[0] = a->key_cache->nbytes;
    sizes[1] = a->key_scale_cache->nbytes;
    /* cannot fail for the shapes above (test_c8_mxfp_k_cache.c checks
     * the layout against the source's formulas); kept as the engine's
     * precondition */
    return kvg_row_layout_check(&plan->layout, sizes, diag);
}

/* ---- values ------------------------------------------------------------ */

static kvg_status repeated(const void *ctx, int64_t key, int64_t first,
                           int64_t second, kvg_diag *diag)
{
    (void)ctx;
    return kvg_diag_set(diag, INV, "slot_mapping", 0, second,
                        "slot_mapping: duplicate slot %lld: tokens %lld and "
                        "%lld both write it", (long long)key,
                        (long long)first, (long long)second);
}

/* Slots: < Bn * Bs; negatives skip the payload (the PA_NZ scatter); no two
 * real tokens on one slot; and no real token at slot 0 beside a pad row:
 * the pad row's scales are clamped to slot 0 too, and which write lands
 * is not defined (vLLM never does it: slot 0 is its null block). */
static kvg_status check_slot_values(const kvg_c8_mxfp_k_cache_args *a,
                                    const kvg_i_c8_mxfp_k_cache_plan *p,
                                    const kvg_i_c8_mxfp_k_cache_ws *ws,
                                    kvg_diag *diag)
{
    kvg_i_unique u;
    int64_t t, pad = -1, zero = -1, v;

    u.index = a->slot_mapping;
    u.n = p->tokens;
    u.limit = p->slots;
    u.ctx = &p->slots;
    u.key_of = NULL;
    u.negative = NULL; /* every negative skips the payload */
    u.out_of_range = kvg_i_slot_out_of_range;
    u.repeated = repeated;
    KVG_TRY(kvg_i_check_unique(&u, ws->keys, diag));
    for (t = 0; t < p->tokens; t++) {
        v = kvg_i_index_at(a->slot_mapping, t);
        if (v < 0 && pad < 0)
            pad = t;
        if (v == 0)
            zero = t;
    }
    if (pad >= 0 && zero >= 0)
        return kvg_diag_set(
            diag, INV, "slot_mapping", 0, zero,
            "slot_mapping: token %lld writes slot 0 while token %lld is a "
            "pad row (negative slot) clamped to slot 0: both write slot "
            "0's scales and which lands is not defined (vLLM never does "
            "it: slot 0 is its null block)", (long long)zero,
            (long long)pad);
    return KVG_OK;
}

/* MX quant's value refusals (kvg_i_mx_refusal, the MX quant op's own;
 * docs/c8_mxfp_k_cache.md, section 3) for the 32 elements of block j of
 * row (t, n), with the block's code from the same rule the write uses
 * (kvg_i_group_quant, scale only). */
static kvg_status check_block(const kvg_c8_mxfp_k_cache_args *a,
                              const kvg_i_c8_mxfp_k_cache_plan *p,
                              int64_t row, int64_t j, kvg_diag *diag)
{
    const size_t xb = kvg_i_group_x_bytes(&p->rule);
    const unsigned char *x = (const unsigned char *)a->key->data +
                             (size_t)(row * p->d + j * KVG_I_MXK_BLOCK) * xb;
    unsigned char code = 0;
    const char *why;
    float m, v;
    int64_t i;

    kvg_i_group_quant(&p->rule, x, KVG_I_MXK_BLOCK, 0.0f, NULL, &code);
    /* the multiplier 2^(127 - c); 0 for code 0, NaN for an Inf / NaN
     * block (whose products are never subnormal; its subnormal elements
     * are refused all the same, as the MX quant operator does) */
    m = code == 0 ? 0.0f
        : code == 0xFF ? kvg_i_float(0x7FC00000u)
                       : kvg_i_float((uint32_t)(254 - code) << 23);
    for (i = 0; i < KVG_I_MXK_BLOCK; i++) {
        (void)kvg_decode_f32(a->key->dtype, x + (size_t)i * xb, &v);
        why = kvg_i_mx_refusal(a->key->dtype, v, m);
        if (why != NULL)
            return kvg_diag_set(
                diag, INV, "key", 2, row * p->d + j * KVG_I_MXK_BLOCK + i,
                "key: token %lld, head %lld, element %lld %s",
                (long long)(row / p->heads), (long long)(row % p->heads),
                (long long)(j * KVG_I_MXK_BLOCK + i), why);
    }
    return KVG_OK;
}

kvg_status kvg_i_c8_mxfp_k_cache_check_values(
    const kvg_c8_mxfp_k_cache_args *a, const kvg_i_c8_mxfp_k_cache_plan *p,
    const kvg_i_c8_mxfp_k_cache_ws *ws, kvg_diag *diag)
{
    int64_t row, j;

    KVG_TRY(check_slot_values(a, p, ws, diag));
    /* every row is quantised: a pad row's scales are written too */
    for (row = 0; row < p->tokens * p->heads; row++)
        for (j = 0; j < p->d / KVG_I_MXK_BLOCK; j++)
            KVG_TRY(check_block(a, p, row, j, diag));
    return KVG_OK;
}
