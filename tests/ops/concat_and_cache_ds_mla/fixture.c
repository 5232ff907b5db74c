/*
 * tests/ops/concat_and_cache_ds_mla/fixture.c - the packed C8 MLA row in
 * the reliability fixture (tests/op_fixture.h): one kind per preset,
 * seeded valid calls over 2-D [rows, 656] and 3-D [blocks, block_size,
 * 656] caches (flashmla-model1: [blocks, block_bytes] with its
 * block_size attribute; vllm-fp8_ds_mla with use_ue8m0 or not), both
 * cache dtypes of the preset, token shapes of
 * rank 2 and 3; their attribute mutations and the values the operator
 * refuses.
 *
 * Untied changes: the cache's other dtype of the preset (ascend int8 /
 * fp8_e4m3fn, vllm uint8 / fp8_e4m3fn), ascend's other slot dtype (int32
 * / int64), the cache's blocks / slots a block (no shape ties them: a
 * slot past a smaller cache is a value error), and vllm's scale in any
 * rank (one element is all it must be). model1: its slot dtype, cache
 * dtype and blocks; its block_bytes is tied to block_size.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/concat_and_cache_ds_mla.h"

typedef kvg_concat_and_cache_ds_mla_args op_args;

static int ascend(const opf *f)
{
    return ((const op_args *)f->args)->preset == KVG_CCDM_ASCEND_SFA_C8;
}

static int model1(const opf *f)
{
    return ((const op_args *)f->args)->preset == KVG_CCDM_FLASHMLA_MODEL1;
}

/* flashmla-model1: kv_c [.., 448], a cache [blocks, block_bytes] of
 * block_size 1..16 tokens (block_bytes = ceil(bs * 584 / 576) * 576). */
static void build_model1(opf *f, kvgt_rng *r)
{
    op_args *a = (op_args *)f->args;
    const int64_t bs = opf_pick(r, 1, 16), blocks = opf_pick(r, 1, 3);
    int64_t sh[3], ps[3], tokens = opf_pick(r, 1, 4) * 2;
    opf_tensor *s;
    int rank;

    kvg_concat_and_cache_ds_mla_args_init(a);
    a->preset = KVG_CCDM_FLASHMLA_MODEL1;
    a->block_size = bs;
    if (tokens > blocks * bs)
        tokens = 1;
    rank = tokens % 2 == 0 && opf_pick(r, 0, 1) ? 3 : 2;
    if (rank == 3)
        sh[0] = 2, sh[1] = tokens / 2;
    else
        sh[0] = tokens;
    memcpy(ps, sh, sizeof sh);
    sh[rank - 1] = 448;
    ps[rank - 1] = 64;
    opf_add(f, r, "kv_c", OPF_INPUT, 1, KVG_BF16, rank, sh, &a->kv_c);
    opf_add(f, r, "k_pe", OPF_INPUT, 1, KVG_BF16, rank, ps, &a->k_pe);
    s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1,
                opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64, rank - 1, sh,
                &a->slot_mapping);
    f->g.tokens = tokens;
    f->g.slots = blocks * bs;
    f->g.bs = bs;
    opf_distinct_slots(r, s, tokens, blocks * bs);
    sh[0] = blocks, sh[1] = (bs * 584 + 575) / 576 * 576;
    opf_add(f, r, "kv_cache", OPF_CACHE, 1,
            opf_pick(r, 0, 1) ? KVG_FP8_E4M3FN : KVG_UINT8, 2, sh,
            &a->kv_cache);
}

static void build(opf *f, kvgt_rng *r, kvg_ccdm_preset preset)
{
    op_args *a = (op_args *)f->args;
    const int asc = preset == KVG_CCDM_ASCEND_SFA_C8;
    int64_t sh[3], ps[3], blocks, bs, tokens;
    const int three = (int)opf_pick(r, 0, 1);
    kvg_dtype sdt = KVG_INT64;
    opf_tensor *s;
    int rank;

    kvg_concat_and_cache_ds_mla_args_init(a);
    a->preset = preset;
    if (asc && opf_pick(r, 0, 1))
        a->epsilon = 1e-6;
    bs = three ? (int64_t)1 << opf_pick(r, 0, 3) : 1;
    blocks = opf_pick(r, 1, 4);
    tokens = 2 * opf_pick(r, 1, 4);
    if (tokens > blocks * bs)
        tokens = blocks * bs;
    if (tokens % 2)
        tokens = 1;
    rank = tokens % 2 == 0 && opf_pick(r, 0, 1) ? 3 : 2;
    if (rank == 3)
        sh[0] = 2, sh[1] = tokens / 2;
    else
        sh[0] = tokens;
    memcpy(ps, sh, sizeof sh);
    sh[rank - 1] = 512;
    ps[rank - 1] = 64;
    opf_add(f, r, "kv_c", OPF_INPUT, 1, KVG_BF16, rank, sh, &a->kv_c);
    opf_add(f, r, "k_pe", OPF_INPUT, 1, KVG_BF16, rank, ps, &a->k_pe);
    if (asc) {
        const int64_t gs[1] = {512};
        opf_add(f, r, "gamma", OPF_INPUT, 1, KVG_BF16, 1, gs, &a->gamma);
        opf_add(f, r, "cos", OPF_INPUT, 1, KVG_BF16, rank, ps, &a->cos);
        opf_add(f, r, "sin", OPF_INPUT, 1, KVG_BF16, rank, ps, &a->sin);
        sdt = opf_pick(r, 0, 1) ? KVG_INT32 : KVG_INT64;
    }
    s = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, sdt, rank - 1, sh,
                &a->slot_mapping);
    f->g.tokens = tokens;
    f->g.slots = blocks * bs;
    f->g.bs = bs;
    opf_distinct_slots(r, s, tokens, blocks * bs); /* -1: skipped, both */
    sh[0] = blocks, sh[1] = bs, sh[2] = 656;
    if (!three)
        sh[1] = 656;
    opf_add(f, r, "kv_cache", OPF_CACHE, 1,
            opf_pick(r, 0, 1) ? KVG_FP8_E4M3FN
            : asc             ? KVG_INT8
                              : KVG_UINT8,
            three ? 3 : 2, sh, &a->kv_cache);
    if (!asc) /* vLLM's power-of-two tile scales, half the calls */
        a->use_ue8m0 = (int)opf_pick(r, 0, 1);
    if (!asc && opf_pick(r, 0, 1)) { /* vLLM's scale: read, not used */
        const int64_t one[1] = {1};
        opf_add(f, r, "scale", OPF_INPUT, 0, KVG_FP32, 1, one, &a->scale);
    }
}

static void build_ascend(opf *f, kvgt_rng *r)
{
    build(f, r, KVG_CCDM_ASCEND_SFA_C8);
}

static void build_vllm(opf *f, kvgt_rng *r)
{
    build(f, r, KVG_CCDM_VLLM_FP8_DS_MLA);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    op_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 2);

    *want = KVG_ERR_PARAM_INVALID;
    if (model1(f) && c == 0) { /* block_bytes no longer the padded size */
        a->block_size += opf_pick(r, 0, 1) ? 1 : -a->block_size;
        (void)snprintf(what, cap, "block_size %lld",
                       (long long)a->block_size);
        return;
    }
    if (model1(f) && c == 2) { /* vLLM's attribute, not model1's */
        a->use_ue8m0 = 1;
        (void)snprintf(what, cap, "use_ue8m0 true");
        return;
    }
    switch (c) {
    case 0: a->preset = (kvg_ccdm_preset)7; break;
    case 1: /* vllm has no RmsNorm; ascend's must be > 0 */
        a->epsilon = ascend(f) ? -1.0 : 1e-6;
        break;
    default:
        a->reduce_order = ascend(f) ? (kvg_reduce_order)99 : KVG_REDUCE_A2;
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

static int mutate_value(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap)
{
    opf_tensor *s = opf_find(f, "slot_mapping");
    int64_t pos[64], n = opf_live(s, f->g.tokens, pos), t;
    const int64_t c = opf_pick(r, 0, 2);
    unsigned char *e;

    *want = KVG_ERR_PARAM_INVALID;
    if (c == 0 && n >= 1) {
        t = pos[opf_pick(r, 0, n - 1)];
        const int64_t nope = model1(f) ? 448 : 512;
        e = (unsigned char *)opf_find(f, "kv_c")->natural.data +
            (t * nope + opf_pick(r, 0, nope - 1)) * 2;
        e[0] = 0x80, e[1] = 0x7F; /* +Inf */
        (void)snprintf(what, cap, "kv_c token %lld: +Inf", (long long)t);
        return 1;
    }
    return opf_mutate_token_index(f, r, "slot_mapping", want, what, cap);
}

static int untied(const opf *f, const opf_tensor *x, int k, int64_t v)
{
    if (strcmp(x->name, "scale") == 0) /* one float32 of any rank */
        return k == OPF_UNTIED_RANK ? v >= 0 && v <= KVG_MAX_RANK
                                    : k >= 0 && v == 1;
    if (strcmp(x->name, "slot_mapping") == 0)
        return k == OPF_UNTIED_DTYPE && (ascend(f) || model1(f)) &&
               (v == KVG_INT32 || v == KVG_INT64);
    if (strcmp(x->name, "kv_cache") != 0)
        return 0;
    if (k == OPF_UNTIED_DTYPE)
        return v == KVG_FP8_E4M3FN ||
               v == (ascend(f) ? KVG_INT8 : KVG_UINT8);
    if (k < 0 || v < 1 || v == INT64_MAX)
        return 0;
    return k < x->natural.rank - 1; /* blocks, slots a block (model1:
                                       blocks; block_bytes is tied) */
}

static const opf_kind_desc k_ascend = {
    "concat_and_cache_ds_mla ascend-sfa-c8", "concat_and_cache_ds_mla",
    build_ascend, mutate_attr, mutate_value, untied};
static const opf_kind_desc k_vllm = {
    "concat_and_cache_ds_mla vllm-fp8_ds_mla", "concat_and_cache_ds_mla",
    build_vllm, mutate_attr, mutate_value, untied};

static const opf_kind_desc k_model1 = {
    "concat_and_cache_ds_mla flashmla-model1", "concat_and_cache_ds_mla",
    build_model1, mutate_attr, mutate_value, untied};

const opf_kind_desc *const opf_kinds_concat_and_cache_ds_mla[] = {
    &k_ascend, &k_vllm, &k_model1, NULL};
