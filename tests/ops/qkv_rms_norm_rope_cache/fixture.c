/*
 * tests/ops/qkv_rms_norm_rope_cache/fixture.c - QkvRmsNormRopeCache in the
 * reliability fixture (tests/op_fixture.h): a seeded valid call, its
 * attribute mutations (a zero scale among them: the size query refuses
 * it too) and index-value mutations, and the tensors whose absence is an
 * attribute-style error.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"

typedef kvg_qkv_rms_norm_rope_cache_args op_args;

/* The integer-list attributes, in the fixture's lists (restored with the
 * args). */
#define QKV_SIZE(f) ((f)->lists[0])
#define HEAD_NUMS(f) ((f)->lists[1])

/* ---- QkvRmsNormRopeCache ---------------------------------------------- */

static void build_qkv(opf *f, kvgt_rng *r)
{
    kvg_qkv_rms_norm_rope_cache_args *a = (op_args *)f->args;
    const kvg_dtype t = opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const kvg_dtype kt = opf_pick(r, 0, 1) ? KVG_INT8 : t;
    const kvg_dtype vt = opf_pick(r, 0, 1) ? KVG_INT8 : t;
    const int64_t b = opf_pick(r, 1, 2), s = opf_pick(r, 1, 3),
                  nk = opf_pick(r, 1, 2);
    const int64_t nq = nk * opf_pick(r, 1, 2), n = nq + 2 * nk, d = 128;
    const int64_t bs = 32 * opf_pick(r, 1, 2);
    const int64_t bn = (s + bs - 1) / bs * b + opf_pick(r, 0, 1), tok = b * s;
    const int cos_b = s == 1 && opf_pick(r, 0, 1);
    const int before = (int)opf_pick(r, 0, 1);
    int64_t sh[4];
    opf_tensor *idx;

    kvg_qkv_rms_norm_rope_cache_args_init(a);
    sh[0] = tok, sh[1] = n * d;
    opf_add(f, r, "qkv", OPF_INPUT, 1, t, 2, sh, &a->qkv);
    sh[0] = d;
    opf_add(f, r, "q_gamma", OPF_INPUT, 1, t, 1, sh, &a->q_gamma);
    opf_add(f, r, "k_gamma", OPF_INPUT, 1, t, 1, sh, &a->k_gamma);
    sh[0] = cos_b ? b : tok, sh[1] = d;
    opf_add(f, r, "cos", OPF_INPUT, 1, t, 2, sh, &a->cos);
    opf_add(f, r, "sin", OPF_INPUT, 1, t, 2, sh, &a->sin);
    sh[0] = tok;
    idx = opf_add(f, r, "index", OPF_INPUT, 1, KVG_INT64, 1, sh, &a->index);
    sh[0] = tok, sh[1] = nq * d;
    opf_add(f, r, "q_out", OPF_OUTPUT, 1, t, 2, sh, &a->q_out);
    sh[0] = bn, sh[1] = nk * d / kvg_c0_of(kt), sh[2] = bs;
    sh[3] = kvg_c0_of(kt);
    opf_add(f, r, "k_cache", OPF_CACHE, 1, kt, 4, sh, &a->k_cache);
    sh[1] = nk * d / kvg_c0_of(vt), sh[3] = kvg_c0_of(vt);
    opf_add(f, r, "v_cache", OPF_CACHE, 1, vt, 4, sh, &a->v_cache);
    sh[0] = nk, sh[1] = d;
    /* a missing scale of an int8 cache, or the before-quant q output
     * missing next to k/v, are attribute-style errors (161002) */
    if (kt == KVG_INT8) {
        opf_add(f, r, "k_scale", OPF_INPUT, 1, KVG_FP32, 2, sh, &a->k_scale)
            ->null_status = KVG_ERR_PARAM_INVALID;
        if (opf_pick(r, 0, 1))
            opf_add(f, r, "k_offset", OPF_INPUT, 0, KVG_FP32, 2, sh,
                &a->k_offset);
    }
    if (vt == KVG_INT8) {
        opf_add(f, r, "v_scale", OPF_INPUT, 1, KVG_FP32, 2, sh, &a->v_scale)
            ->null_status = KVG_ERR_PARAM_INVALID;
        if (opf_pick(r, 0, 1))
            opf_add(f, r, "v_offset", OPF_INPUT, 0, KVG_FP32, 2, sh,
                &a->v_offset);
    }
    if (before) {
        /* Dropping only q makes k/v "given without q" (invalid); dropping
         * k or v leaves q without them (invalid): all three required. */
        sh[0] = tok, sh[1] = nq * d;
        opf_add(f, r, "q_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->q_out_before_quant)->null_status = KVG_ERR_PARAM_INVALID;
        sh[1] = nk * d;
        opf_add(f, r, "k_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->k_out_before_quant);
        opf_add(f, r, "v_out_before_quant", OPF_OUTPUT, 1, t, 2, sh,
            &a->v_out_before_quant);
    }
    f->g.tokens = tok;
    f->g.slots = bn * bs;
    opf_distinct_slots(r, idx, tok, f->g.slots);
    QKV_SIZE(f)[0] = b, QKV_SIZE(f)[1] = s, QKV_SIZE(f)[2] = n;
    QKV_SIZE(f)[3] = d;
    HEAD_NUMS(f)[0] = nq, HEAD_NUMS(f)[1] = nk, HEAD_NUMS(f)[2] = nk;
    a->qkv_size = QKV_SIZE(f), a->qkv_size_len = 4;
    a->head_nums = HEAD_NUMS(f), a->head_nums_len = 3;
    a->epsilon = opf_pick(r, 0, 1) ? 1e-6 : 1e-5;
    a->reduce_order = (kvg_reduce_order)opf_pick(r, 0, 4);
    a->overflow = (kvg_overflow)opf_pick(r, 0, 2);
}

static void mutate_attr(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                          size_t cap)
{
    kvg_qkv_rms_norm_rope_cache_args *a = (op_args *)f->args;
    const int64_t c = opf_pick(r, 0, 11);
    const int i = (int)opf_pick(r, 0, 3), j = (int)opf_pick(r, 0, 2);
    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: QKV_SIZE(f)[i] += opf_pick(r, 0, 1) ? 1 : -QKV_SIZE(f)[i]; break;
    case 1: HEAD_NUMS(f)[j] += 1; break;
    case 2: a->qkv_size_len = opf_pick(r, 0, 1) ? 3 : 5; break;
    case 3: a->head_nums_len = opf_pick(r, 0, 1) ? 2 : 4; break;
    case 4: a->qkv_size = NULL, *want = KVG_ERR_PARAM_NULLPTR; break;
    case 5: a->head_nums = NULL, *want = KVG_ERR_PARAM_NULLPTR; break;
    case 6: {
        const double bad[4] = {-1e-6, NAN, INFINITY, 1e39};
        a->epsilon = bad[opf_pick(r, 0, 3)];
        break;
    }
    case 7: a->cache_mode = opf_pick(r, 0, 1) ? KVG_CACHE_PA : (kvg_cache_mode)9;
        break;
    case 8: a->reduce_order = (kvg_reduce_order)(opf_pick(r, 0, 1) ? 99 : -1);
        break;
    case 9: a->overflow = (kvg_overflow)opf_pick(r, 3, 9); break;
    case 10: QKV_SIZE(f)[i] = -1; break;
    default: { /* a zero scale (of an int8 cache) */
        opf_tensor *x = opf_find(f, opf_pick(r, 0, 1) ? "k_scale" : "v_scale");
        const float zero = opf_pick(r, 0, 1) ? 0.0f : -0.0f;
        int64_t at;
        if (x == NULL) {
            QKV_SIZE(f)[i] = -1;
            break;
        }
        at = opf_pick(r, 0, (int64_t)(x->natural.nbytes / 4) - 1);
        memcpy((unsigned char *)x->natural.data + (size_t)at * 4u, &zero, 4);
        (void)snprintf(what, cap, "%s[%lld] = %s0", x->name, (long long)at,
                       signbit(zero) ? "-" : "+");
        return;
    }
    }
    (void)snprintf(what, cap, "attribute change %d", (int)c);
}

static int mutate_index(opf *f, kvgt_rng *r, kvg_status *want,
                            char *what, size_t cap)
{
    return opf_mutate_token_index(f, r, "index", want, what, cap);
}

static const opf_kind_desc kind_qkv = {
    "qkv_rms_norm_rope_cache", "qkv_rms_norm_rope_cache", build_qkv,
    mutate_attr, mutate_index, NULL};

const opf_kind_desc *const opf_kinds_qkv_rms_norm_rope_cache[] = {&kind_qkv,
                                                                  NULL};
