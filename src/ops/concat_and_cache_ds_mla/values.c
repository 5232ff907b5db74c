/*
 * src/ops/concat_and_cache_ds_mla/values.c - the checks that read tensor
 * contents, before the first byte is written: slot_mapping (the preset's
 * slot policy, no slot written twice), the inputs of every written token
 * finite, and for the Ascend path the tiles the block quant refuses
 * (the same rules as docs/dynamic_block_quant.md's, the op the path
 * calls). flashmla-model1 checks kv_c only: its k_pe is copied bit for
 * bit whatever it holds (FlashMLA's quantiser assigns the rope as is,
 * tests/quant.py:64), and a non-finite nope value is refused because
 * FlashMLA has no rule for it (its amax and division would carry a NaN
 * into a scale byte).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/bits.h"
#include "src/common/half_row.h"
#include "src/ops/concat_and_cache_ds_mla/internal.h"

typedef kvg_concat_and_cache_ds_mla_args args_t;
typedef kvg_i_concat_and_cache_ds_mla_plan plan_t;

static unsigned bf16_code(const unsigned char *p, int64_t i)
{
    return (unsigned)p[2 * i] | ((unsigned)p[2 * i + 1] << 8);
}

/* n bf16 values of tensor `name` from element `first`: all finite, or
 * the first other refused in half_row.h's one wording (token < 0: gamma,
 * one row, named by the element). */
static kvg_status finite_run(const kvg_tensor *t, const char *name,
                             int64_t first, int64_t n, int64_t token,
                             kvg_diag *diag)
{
    return kvg_i_refuse_nonfinite_in(
        t, name, (const unsigned char *)t->data + 2 * first, n, token, diag);
}

static kvg_status finite_token(const args_t *a, const plan_t *p, int64_t t,
                               kvg_diag *diag)
{
    KVG_TRY(finite_run(a->kv_c, "kv_c", t * p->nope, p->nope, t, diag));
    if (a->preset == KVG_CCDM_FLASHMLA_MODEL1)
        return KVG_OK;
    KVG_TRY(finite_run(a->k_pe, "k_pe", t * KVG_CCDM_ROPE, KVG_CCDM_ROPE, t,
                       diag));
    if (p->dbq == KVG_I_CCDM_DBQ_NONE)
        return KVG_OK;
    KVG_TRY(finite_run(a->cos, "cos", t * KVG_CCDM_ROPE, KVG_CCDM_ROPE, t,
                       diag));
    return finite_run(a->sin, "sin", t * KVG_CCDM_ROPE, KVG_CCDM_ROPE, t,
                      diag);
}

static float bf16_value(const unsigned char *row, int64_t i)
{
    return kvg_i_float((uint32_t)bf16_code(row, i) << 16);
}

static int subnormal(float v)
{
    return v != 0.0f && (kvg_i_bits(v) & 0x7F800000u) == 0;
}

/* Tile k of the normed row (bf16, finite): why the block quant's
 * profile refuses it, or NULL. */
static const char *tile_refusal(const plan_t *p, const unsigned char *row,
                                int64_t k)
{
    float amax = 0.0f, v, s;
    int64_t i;

    for (i = k * KVG_CCDM_TILE; i < (k + 1) * KVG_CCDM_TILE; i++) {
        v = bf16_value(row, i);
        if ((kvg_i_bits(v) & 0x7FFFFFFFu) >= 0x7F800000u)
            return "RmsNorm output is not finite in bf16";
        if ((v < 0 ? -v : v) > amax)
            amax = v < 0 ? -v : v;
    }
    if (p->dbq == KVG_I_CCDM_DBQ_A2A3)
        return amax == 0.0f ? "is all-zero: the A2/A3 block quant "
                              "computes 1/0 = inf and casts 0 * inf, which "
                              "is not documented"
                            : NULL;
    s = amax / 448.0f;
    if (subnormal(s))
        return "has a scale amax / 448 that is subnormal: the 950's "
               "division flushes it to 0 (not reproducible)";
    for (i = k * KVG_CCDM_TILE; i < (k + 1) * KVG_CCDM_TILE && s != 0.0f;
         i++)
        if (subnormal(bf16_value(row, i) / s))
            return "has a quotient y / scale that is subnormal: the 950 "
                   "flushes it to a zero whose fp8 sign is not documented";
    return NULL;
}

static kvg_status dbq_token(const args_t *a, const plan_t *p, int64_t t,
                            kvg_diag *diag)
{
    unsigned char row[KVG_CCDM_XROW];
    const char *why;
    int64_t k;

    kvg_i_ccdm_row(a, p, t, row);
    for (k = 0; k < KVG_CCDM_NOPE / KVG_CCDM_TILE; k++)
        if ((why = tile_refusal(p, row, k)) != NULL)
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, "kv_c", a->kv_c->rank - 1, t,
                "kv_c: token %lld, tile %lld (columns %lld..%lld) after "
                "RmsNorm %s (refused, as kvgold's block quant does)",
                (long long)t, (long long)k, (long long)(k * KVG_CCDM_TILE),
                (long long)((k + 1) * KVG_CCDM_TILE - 1), why);
    return KVG_OK;
}

kvg_status kvg_i_concat_and_cache_ds_mla_check_values(
    const args_t *a, const plan_t *p,
    const kvg_i_concat_and_cache_ds_mla_ws *ws, kvg_diag *diag)
{
    int64_t t;

    KVG_TRY(kvg_i_packed_row_check_slots(a->slot_mapping, p->tokens,
                                         p->slots, p->policy, 0, ws->keys,
                                         diag));
    if (p->dbq != KVG_I_CCDM_DBQ_NONE)
        KVG_TRY(finite_run(a->gamma, "gamma", 0, KVG_CCDM_NOPE, -1, diag));
    for (t = 0; t < p->tokens; t++) {
        if (!kvg_i_packed_row_kept(p->policy,
                                   kvg_i_index_at(a->slot_mapping, t),
                                   p->slots))
            continue;
        KVG_TRY(finite_token(a, p, t, diag));
        if (p->dbq != KVG_I_CCDM_DBQ_NONE)
            KVG_TRY(dbq_token(a, p, t, diag));
    }
    return KVG_OK;
}
