/*
 * src/ops/concat_and_cache_ds_mla/check.c - the checks that read no tensor
 * contents: tensors (dtypes, shapes, which the preset takes), attributes,
 * the cache; then the preset placed in the cache (presets.c). Messages
 * name the tensor or attribute, expected vs got.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/bits.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"

typedef kvg_concat_and_cache_ds_mla_args args_t;

static int is_ascend(const args_t *a)
{
    return a->preset == KVG_CCDM_ASCEND_SFA_C8;
}

static int is_model1(const args_t *a)
{
    return a->preset == KVG_CCDM_FLASHMLA_MODEL1;
}

static const char *preset_name(const args_t *a)
{
    return kvg_i_ccdm_preset_name(a->preset);
}

/* A tensor the preset takes must be there; one it has not must not. */
static kvg_status check_optional(const args_t *a, const kvg_tensor *t,
                                 const char *name, kvg_diag *diag)
{
    if (is_ascend(a))
        return kvg_i_check_present(t, name, diag);
    if (t != NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: given, but %s has no %s (kv_c and k_pe "
                            "arrive normed and roped)", name, preset_name(a),
                            name);
    return KVG_OK;
}

static kvg_status check_present(const args_t *a, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->kv_c, "kv_c", diag));
    KVG_TRY(kvg_i_check_present(a->k_pe, "k_pe", diag));
    KVG_TRY(check_optional(a, a->gamma, "gamma", diag));
    KVG_TRY(check_optional(a, a->cos, "cos", diag));
    KVG_TRY(check_optional(a, a->sin, "sin", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->kv_cache, "kv_cache", diag));
    KVG_TRY(kvg_i_check_dense(a->kv_c, "kv_c", diag));
    KVG_TRY(kvg_i_check_dense(a->k_pe, "k_pe", diag));
    if (is_ascend(a)) {
        KVG_TRY(kvg_i_check_dense(a->gamma, "gamma", diag));
        KVG_TRY(kvg_i_check_dense(a->cos, "cos", diag));
        KVG_TRY(kvg_i_check_dense(a->sin, "sin", diag));
    }
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    return kvg_i_check_dense(a->kv_cache, "kv_cache", diag);
}

/* scale: vLLM's `Tensor scale`, which concat_and_cache_mla hands the
 * ds_mla kernel as a float pointer the kernel never reads - so any value,
 * but float32 and one element, as vLLM passes it; the Ascend path has
 * none. */
static kvg_status check_scale(const args_t *a, kvg_diag *diag)
{
    const kvg_tensor *t = a->scale;

    if (t == NULL)
        return KVG_OK;
    if (a->preset != KVG_CCDM_VLLM_FP8_DS_MLA)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "scale", -1, -1,
                            "scale: given, but %s has no scale (it is "
                            "vLLM's argument)", preset_name(a));
    KVG_TRY(kvg_i_check_present(t, "scale", diag));
    KVG_TRY(kvg_i_check_dense(t, "scale", diag));
    KVG_TRY(kvg_i_check_dtype(t, "scale", KVG_FP32, diag));
    if (kvg_i_numel(t) != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "scale", -1, -1,
                            "scale: %lld elements; one float32 expected "
                            "(vLLM's scale, unused by the ds_mla kernel)",
                            (long long)kvg_i_numel(t));
    return KVG_OK;
}

/* kv_c's last dim under the preset: kv_lora_rank 512, model1's 448. */
static int64_t nope_of(const args_t *a)
{
    return is_model1(a) ? KVG_CCDM_M1_NOPE : KVG_CCDM_NOPE;
}

/* t: bf16 with kv_c's leading dims and last dim `last`. */
static kvg_status check_rows(const args_t *a, const kvg_tensor *t,
                             const char *name, int64_t last, kvg_diag *diag)
{
    const kvg_tensor *kv = a->kv_c;
    int i;

    KVG_TRY(kvg_i_check_dtype(t, name, KVG_BF16, diag));
    KVG_TRY(kvg_i_check_rank(t, name, kv->rank, diag));
    for (i = 0; i + 1 < kv->rank; i++)
        KVG_TRY(kvg_i_check_dim(t, name, i, kv->shape[i],
                                "kv_c.shape[:-1]", diag));
    return kvg_i_check_dim(t, name, kv->rank - 1, last,
                           last == KVG_CCDM_NOPE      ? "kv_lora_rank 512"
                           : last == KVG_CCDM_M1_NOPE ? "MODEL1's d_nope 448"
                                                      : "qk_rope_head_dim 64",
                           diag);
}

static kvg_status check_inputs(const args_t *a, kvg_diag *diag)
{
    if (a->kv_c->rank < 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_c", -1, -1,
                            "kv_c: rank %d; [..., %lld] of rank >= 2 "
                            "expected", a->kv_c->rank,
                            (long long)nope_of(a));
    KVG_TRY(check_rows(a, a->kv_c, "kv_c", nope_of(a), diag));
    KVG_TRY(check_rows(a, a->k_pe, "k_pe", KVG_CCDM_ROPE, diag));
    if (!is_ascend(a))
        return KVG_OK;
    KVG_TRY(check_rows(a, a->cos, "cos", KVG_CCDM_ROPE, diag));
    KVG_TRY(check_rows(a, a->sin, "sin", KVG_CCDM_ROPE, diag));
    KVG_TRY(kvg_i_check_dtype(a->gamma, "gamma", KVG_BF16, diag));
    KVG_TRY(kvg_i_check_rank(a->gamma, "gamma", 1, diag));
    return kvg_i_check_dim(a->gamma, "gamma", 0, KVG_CCDM_NOPE,
                           "kv_lora_rank 512", diag);
}

/* slot_mapping: kv_c.shape[:-1]; int32 or int64 (vllm: int64, the kernel
 * reads slot_mapping.data_ptr<int64_t>()). */
static kvg_status check_slots(const args_t *a, kvg_diag *diag)
{
    const kvg_tensor *s = a->slot_mapping, *kv = a->kv_c;
    int i;

    if (s->dtype != KVG_INT64 &&
        (s->dtype != KVG_INT32 || a->preset == KVG_CCDM_VLLM_FP8_DS_MLA))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", -1,
                            -1, "slot_mapping: dtype %s; %s expected",
                            kvg_dtype_name(s->dtype),
                            a->preset != KVG_CCDM_VLLM_FP8_DS_MLA
                                ? "int32 or int64"
                                : "int64 (vllm-fp8_ds_mla's kernel reads "
                                  "data_ptr<int64_t>)");
    KVG_TRY(kvg_i_check_rank(s, "slot_mapping", kv->rank - 1, diag));
    for (i = 0; i < s->rank; i++)
        KVG_TRY(kvg_i_check_dim(s, "slot_mapping", i, kv->shape[i],
                                "kv_c.shape[:-1]", diag));
    return KVG_OK;
}

/* The payload dtype a cache dtype means under the preset, or KVG_UINT8
 * (not one of its dtypes). */
static kvg_dtype payload_of(const args_t *a, kvg_dtype cache)
{
    if (cache == KVG_FP8_E4M3FN)
        return KVG_FP8_E4M3FN;
    if (is_ascend(a))
        return cache == KVG_INT8 ? KVG_INT8 : KVG_UINT8;
    return cache == KVG_UINT8 ? KVG_FP8_E4M3FN : KVG_UINT8;
}

/* model1's kv_cache: [num_blocks, block_bytes], block_bytes exactly
 * FlashMLA's size_per_block_padded for the block_size attribute. */
static kvg_status check_cache_model1(const args_t *a, int64_t *blocks,
                                     int64_t *block_size,
                                     int64_t *block_bytes, kvg_diag *diag)
{
    const kvg_tensor *t = a->kv_cache;

    if (t->rank != 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_cache", -1, -1,
                            "kv_cache: rank %d; [num_blocks, block_bytes] "
                            "expected (flashmla-model1)", t->rank);
    *block_bytes = kvg_i_ccdm_m1_block_bytes(a->block_size);
    if (*block_bytes < 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_size", -1,
                            -1, "block_size: %lld; its block's bytes "
                            "overflow int64", (long long)a->block_size);
    if (t->shape[1] != *block_bytes)
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, "kv_cache", 1, -1,
            "kv_cache: dim 1 is %lld bytes; block_size %lld needs "
            "ceil(%lld * 584 / 576) * 576 = %lld (FlashMLA's "
            "size_per_block_padded)", (long long)t->shape[1],
            (long long)a->block_size, (long long)a->block_size,
            (long long)*block_bytes);
    *blocks = t->shape[0];
    *block_size = a->block_size;
    return KVG_OK;
}

/* kv_cache: [rows, 656] or [blocks, block_size, 656]; model1 its own. */
static kvg_status check_cache(const args_t *a, kvg_dtype *payload,
                              int64_t *blocks, int64_t *block_size,
                              int64_t *block_bytes, kvg_diag *diag)
{
    const kvg_tensor *t = a->kv_cache;

    *payload = payload_of(a, t->dtype);
    if (*payload == KVG_UINT8)
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, "kv_cache", -1, -1,
            "kv_cache: dtype %s; %s expected", kvg_dtype_name(t->dtype),
            is_ascend(a) ? "int8 (A3: int8 payload) or float8_e4m3fn (A5: "
                           "e4m3 payload) - the dtype picks the chip"
                         : "uint8 or float8_e4m3fn (e4m3 codes)");
    if (is_model1(a))
        return check_cache_model1(a, blocks, block_size, block_bytes, diag);
    if (t->rank != 2 && t->rank != 3)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "kv_cache", -1, -1,
                            "kv_cache: rank %d; [rows, 656] or [blocks, "
                            "block_size, 656] expected", t->rank);
    KVG_TRY(kvg_i_check_dim(t, "kv_cache", t->rank - 1, KVG_CCDM_ROW,
                            "the packed row's 656 bytes", diag));
    *blocks = t->shape[0];
    *block_size = t->rank == 3 ? t->shape[1] : 1;
    return KVG_OK;
}

static kvg_status check_attrs(const args_t *a, kvg_diag *diag)
{
    if (kvg_i_ccdm_preset_name(a->preset) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "preset", -1, -1,
                            "preset: %d is not ascend-sfa-c8, "
                            "vllm-fp8_ds_mla or flashmla-model1",
                            (int)a->preset);
    if (is_model1(a) && a->block_size <= 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_size", -1,
                            -1, "block_size: %lld; flashmla-model1 needs "
                            "its tokens a block (> 0: the cache is "
                            "[num_blocks, block_bytes])",
                            (long long)a->block_size);
    if (!is_model1(a) && a->block_size != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "block_size", -1,
                            -1, "block_size: %lld; %s has no block_size "
                            "attribute (its cache's shape gives it; only "
                            "the default 0)", (long long)a->block_size,
                            preset_name(a));
    if (a->use_ue8m0 && a->preset != KVG_CCDM_VLLM_FP8_DS_MLA)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "use_ue8m0", -1,
                            -1, "use_ue8m0: true; %s has no use_ue8m0 "
                            "(vLLM's power-of-two tile scales are "
                            "vllm-fp8_ds_mla's; only the default false)",
                            preset_name(a));
    if (kvg_reduce_order_name(a->reduce_order) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "reduce_order", -1,
                            -1, "reduce_order: %d is not a kvgold reduction "
                            "order", (int)a->reduce_order);
    /* the op's epsilon is a binary32 attribute: every finite one > 0,
     * FLT_MAX too (mean + eps is then FLT_MAX, rstd 2^-64). 17 digits:
     * a double just past FLT_MAX must not print as FLT_MAX. */
    if (!(a->epsilon > 0.0 && kvg_i_finite_f32(a->epsilon)))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "epsilon", -1, -1,
                            "epsilon: a finite binary32 value > 0 expected "
                            "(<= FLT_MAX), got %.17g",
                            a->epsilon);
    if (!is_ascend(a) && a->epsilon != 1e-5)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "epsilon", -1, -1,
                            "epsilon: %g; %s has no RmsNorm (only the "
                            "default 1e-05)", a->epsilon, preset_name(a));
    if (!is_ascend(a) && a->reduce_order != KVG_REDUCE_PAIRWISE)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "reduce_order", -1,
                            -1, "reduce_order: %s; %s has no RmsNorm (only "
                            "the default pairwise)",
                            kvg_reduce_order_name(a->reduce_order),
                            preset_name(a));
    return KVG_OK;
}

kvg_status kvg_i_concat_and_cache_ds_mla_check_args(
    const args_t *a, kvg_i_concat_and_cache_ds_mla_plan *plan,
    kvg_diag *diag)
{
    kvg_dtype payload = KVG_UINT8;
    int64_t blocks = 0, block_size = 0, block_bytes = 0;

    KVG_TRY(check_attrs(a, diag));
    KVG_TRY(check_present(a, diag));
    KVG_TRY(check_scale(a, diag));
    KVG_TRY(check_inputs(a, diag));
    KVG_TRY(check_slots(a, diag));
    KVG_TRY(check_cache(a, &payload, &blocks, &block_size, &block_bytes,
                        diag));
    kvg_i_ccdm_preset(a->preset, payload, blocks, block_size, block_bytes,
                      a->use_ue8m0 != 0, plan);
    plan->tokens = kvg_i_numel(a->slot_mapping);
    plan->eps = (float)a->epsilon;
    return kvg_row_layout_check(&plan->layout, NULL, diag);
}
