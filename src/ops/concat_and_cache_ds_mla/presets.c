/*
 * src/ops/concat_and_cache_ds_mla/presets.c - the presets as data: the
 * two 656-byte rows and DeepSeek-V4's block-major 584-byte one, one
 * kvg_row_layout each (the only place a byte map is written; compare and
 * explain-layout read the same struct through the descriptor's
 * row_layout hook) and the group rule of the nope tiles.
 * docs/concat_and_cache_ds_mla.md cites the sources.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/group_rules.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"

#define FL_1_127 0x3C010204u /* fl(1/127), the A2/A3 kernel's constant */
#define FLT_MIN_BITS 0x00800000u

/* vllm-ascend SFA C8: torch.cat([k_nope, k_pe, knope_scale]) (sfa_v1.py
 * @182b75ea84:1369-1384). The nope dtype is the cache's (set per call). */
static const kvg_row_layout k_ascend = {
    .name = "ascend-sfa-c8",
    .segments = 3,
    .seg = {{"nope", KVG_ROW_PAYLOAD, KVG_INT8, 0, 0, KVG_CCDM_NOPE,
             KVG_CCDM_TILE, -1, 0, 0},
            {"rope", KVG_ROW_COPY, KVG_BF16, 0, 512, KVG_CCDM_ROPE, 0, -1, 0,
             0},
            {"scale", KVG_ROW_SCALE, KVG_FP32, 0, 640, 4, 0, 0, 0, 0}},
    .tensors = 1, /* the scales live in the row */
    .tensor_name = {"kv_cache", NULL},
    .regions = 1,
    .slot_stride = {KVG_CCDM_ROW, 0},
    .block_size = 1,
    .block_stride = {KVG_CCDM_ROW, 0}};

/* vLLM fp8_ds_mla: nope at [0, 512), scales at kv_lora_rank / 4 floats
 * (byte 512), rope at kv_lora_rank / 2 + 8 bf16 (byte 528). */
static const kvg_row_layout k_vllm = {
    .name = "vllm-fp8_ds_mla",
    .segments = 3,
    .seg = {{"nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, KVG_CCDM_NOPE,
             KVG_CCDM_TILE, -1, 0, 0},
            {"scale", KVG_ROW_SCALE, KVG_FP32, 0, 512, 4, 0, 0, 0, 0},
            {"rope", KVG_ROW_COPY, KVG_BF16, 0, 528, KVG_CCDM_ROPE, 0, -1, 0,
             0}},
    .tensors = 1,
    .tensor_name = {"kv_cache", NULL},
    .regions = 1,
    .slot_stride = {KVG_CCDM_ROW, 0},
    .block_size = 1,
    .block_stride = {KVG_CCDM_ROW, 0}};

/* FlashMLA MODEL1_FP8Sparse (deepseek-ai/FlashMLA@520fec6a
 * tests/quant.py:55-75; flash_mla/flash_mla_interface.py:105: "NoPE0,
 * RoPE0, NoPE1, RoPE1, ... while the second part stores scale factors:
 * 7xue8m0, 1Bpad, 7xue8m0, 1Bpad, ..."), block-major: region 0 the
 * tokens' [nope e4m3 448 | rope bf16 64] at stride 576, region 1 (at
 * block_size * 576, set per call) their [7 E8M0 | pad] at stride 8. The
 * pad is never written (result is torch.empty, :58) nor read (:111
 * takes [:, :, :7]): don't care. The block's tail past block_size * 584
 * is in no region: untouched. */
static const kvg_row_layout k_model1 = {
    .name = "flashmla-model1",
    .segments = 4,
    .seg = {{"nope", KVG_ROW_PAYLOAD, KVG_FP8_E4M3FN, 0, 0, KVG_CCDM_M1_NOPE,
             KVG_CCDM_M1_TILE, -1, 0, 0},
            {"rope", KVG_ROW_COPY, KVG_BF16, 0, KVG_CCDM_M1_NOPE,
             KVG_CCDM_ROPE, 0, -1, 0, 0},
            {"scale", KVG_ROW_SCALE, KVG_E8M0, 1, 0,
             KVG_CCDM_M1_NOPE / KVG_CCDM_M1_TILE, 0, 0, 0, 0},
            {"pad", KVG_ROW_DONT_CARE, KVG_UINT8, 1,
             KVG_CCDM_M1_NOPE / KVG_CCDM_M1_TILE, 1, 0, -1, 0, 0}},
    .tensors = 1,
    .tensor_name = {"kv_cache", NULL},
    .regions = 2,
    .region_tensor = {0, 0},
    .slot_stride = {KVG_CCDM_M1_ROW, KVG_CCDM_M1_SCALES},
    .block_size = 1};

const char *kvg_i_ccdm_preset_name(kvg_ccdm_preset preset)
{
    switch (preset) {
    case KVG_CCDM_ASCEND_SFA_C8:
        return "ascend-sfa-c8";
    case KVG_CCDM_VLLM_FP8_DS_MLA:
        return "vllm-fp8_ds_mla";
    case KVG_CCDM_FLASHMLA_MODEL1:
        return "flashmla-model1";
    default:
        return NULL;
    }
}

/* The engine's start of a rule (kvg_i_rule_base: amax over all bits,
 * true division, the cast's 1/MAX), with the finite amax - the inputs and
 * y are finite here (refused otherwise), where the two maxima agree - and
 * fp32 scales. Its coefficient is each rule's own: a2a3 sets fl(1/127),
 * the others divide by the cast's max (coeff_div), which reads none. */
static kvg_i_group_rule rule_base(kvg_dtype cast)
{
    kvg_i_group_rule r = kvg_i_rule_base(cast);

    r.amax = KVG_I_AMAX_FINITE;
    r.store = KVG_I_STORE_F32;
    return r;
}

/* DBQ a2a3 (docs/dynamic_block_quant.md; ops-nn's A2 kernel :216-218,
 * 327-360):
 * stored scale amax * fl(1/127), payload int8(rint(y * fl(fl(1/amax) *
 * 127))). */
static kvg_i_group_rule rule_dbq_a2a3(void)
{
    kvg_i_group_rule r = rule_base(KVG_INT8);

    r.name = "DBQ-A2";
    r.coeff = FL_1_127;
    r.op = KVG_I_PAY_RECIP_MUL;
    return r;
}

/* DBQ ascend950 (docs/dynamic_block_quant.md; arch35 single_row_kernel.h
 * :328-390): s =
 * amax / 448, y / s cast RINT SAT; 0 / 0 of an all-zero tile -> +0. */
static kvg_i_group_rule rule_dbq_950(void)
{
    kvg_i_group_rule r = rule_base(KVG_FP8_E4M3FN);

    r.name = "DBQ-950";
    r.coeff_div = 1;
    r.clamp = 1;
    r.nan_zero = 1;
    return r;
}

/* concat_and_cache_ds_mla_kernel: s = fmaxf(amax / 448.f, FLT_MIN), x / s
 * __NV_SATFINITE. */
static kvg_i_group_rule rule_ds_mla(void)
{
    kvg_i_group_rule r = rule_base(KVG_FP8_E4M3FN);

    r.name = "DS-MLA";
    r.coeff_div = 1;
    r.s_floor = FLT_MIN_BITS;
    r.clamp = 1;
    return r;
}

/* FlashMLA's _cast_scale_inv_to_ue8m0 on amax / 448 (tests/quant.py:17-18,
 * :66-71): v = amax / 448.0 (a binary32 true division), clamp_min(v,
 * 1e-4), 2^ceil(log2 v) - the least power of two >= v, which R-CEIL-V
 * takes on v's fields (the generator proves the two equal for every
 * positive finite bf16 amax) - stored as float8_e8m0fnu (its exponent
 * byte), q = e4m3(x / 2^k). vLLM's fp8_ds_mla writer with use_ue8m0
 * (PR #49435: 2 ** ceil(log2(max(amax / 448, 1e-4)))) is the same rule
 * stored as the fp32 bits of 2^k. */
static kvg_i_group_rule rule_pow2(kvg_i_scale_store store)
{
    kvg_i_group_rule r = kvg_i_rule_ceil_v(KVG_FP8_E4M3FN, store);

    r.amax = KVG_I_AMAX_FINITE; /* inputs are finite (refused otherwise) */
    return r;
}

int64_t kvg_i_ccdm_m1_block_bytes(int64_t block_size)
{
    const int64_t most = INT64_MAX / KVG_CCDM_M1_TOKEN - KVG_CCDM_M1_ROW;

    if (block_size < 0 || block_size > most)
        return -1;
    return (block_size * KVG_CCDM_M1_TOKEN + KVG_CCDM_M1_ROW - 1) /
           KVG_CCDM_M1_ROW * KVG_CCDM_M1_ROW;
}

static void preset_model1(int64_t blocks, int64_t block_size,
                          int64_t block_bytes,
                          kvg_i_concat_and_cache_ds_mla_plan *plan)
{
    plan->layout = k_model1;
    plan->layout.block_size = block_size;
    plan->layout.region_offset[1] = block_size * KVG_CCDM_M1_ROW;
    plan->layout.block_stride[0] = block_bytes;
    plan->layout.blocks = blocks;
    plan->dbq = KVG_I_CCDM_DBQ_NONE;
    plan->rule = rule_pow2(KVG_I_STORE_E8M0);
    /* FlashMLA's invalid index is -1 (tests/quant.py:126-159,
     * abs_indices2indices_in_kvcache): a negative slot writes nothing */
    plan->policy = KVG_I_SLOT_SKIP_NEGATIVE;
    plan->slots = blocks * block_size;
    plan->nope = KVG_CCDM_M1_NOPE;
}

void kvg_i_ccdm_preset(kvg_ccdm_preset preset, kvg_dtype payload,
                       int64_t blocks, int64_t block_size,
                       int64_t block_bytes, int use_ue8m0,
                       kvg_i_concat_and_cache_ds_mla_plan *plan)
{
    const int ascend = preset == KVG_CCDM_ASCEND_SFA_C8;

    if (preset == KVG_CCDM_FLASHMLA_MODEL1) {
        preset_model1(blocks, block_size, block_bytes, plan);
        return;
    }
    plan->nope = KVG_CCDM_NOPE;

    plan->layout = ascend ? k_ascend : k_vllm;
    plan->layout.seg[0].dtype = payload;
    plan->layout.block_size = block_size;
    plan->layout.block_stride[0] = block_size * KVG_CCDM_ROW;
    plan->layout.blocks = blocks;
    plan->dbq = !ascend                ? KVG_I_CCDM_DBQ_NONE
                : payload == KVG_INT8 ? KVG_I_CCDM_DBQ_A2A3
                                      : KVG_I_CCDM_DBQ_950;
    plan->rule = plan->dbq == KVG_I_CCDM_DBQ_A2A3  ? rule_dbq_a2a3()
                 : plan->dbq == KVG_I_CCDM_DBQ_950 ? rule_dbq_950()
                 : use_ue8m0 ? rule_pow2(KVG_I_STORE_F32)
                             : rule_ds_mla();
    /* Both skip a negative slot. vLLM: `if (slot_idx < 0) return;`.
     * ascend: the row's scatter (aclnnScatterNdUpdate) writes nothing of
     * the cache for an index < 0 in every hicann/ops-nn@e5c3fa93 kernel:
     * the checked ones skip it (arch35 *.h, arch22 no_sort / large_index
     * / the sorted path's bounds), the A2/A3 high_performance build's
     * arch22/scatter_nd_update_hp.h writes the row outside the cache,
     * before its first byte - bytes no tensor of this call holds
     * (docs/concat_and_cache_ds_mla.md, "Slots"). A slot past the cache
     * is refused for both. */
    plan->policy = KVG_I_SLOT_SKIP_NEGATIVE;
    plan->slots = blocks * block_size;
}
