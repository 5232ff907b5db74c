/*
 * src/ops/kv_compress_epilog/check.c - KvCompressEpilog's validation:
 * tensors, attributes and the preset (check_args), then slot_mapping's
 * values and x's values in the tokens written (check_values). Messages name
 * the tensor or attribute, expected vs got.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/bits.h"
#include "src/common/half_row.h"
#include "src/ops/kv_compress_epilog/internal.h"

#include "src/kernels/dispatch.h"

#define D_MAX 8192 /* OT tiling_arch35.cpp ValidateShapes; CR2 the same */

static kvg_status check_present(const kvg_kv_compress_epilog_args *a,
                                kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(a->x, "x", diag));
    KVG_TRY(kvg_i_check_present(a->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(a->cache, "cache", diag));
    KVG_TRY(kvg_i_check_dense(a->x, "x", diag));
    KVG_TRY(kvg_i_check_dense(a->slot_mapping, "slot_mapping", diag));
    return kvg_i_check_dense(a->cache, "cache", diag);
}

/* x bf16 [..., d]; the v1 family's d: 64 < d <= 8192, d % 64 == 0 (OT
 * ValidateShapes); cr_v2: d <= 8192 (its group divides d, presets.c). */
static kvg_status check_x(const kvg_kv_compress_epilog_args *a,
                          int64_t *d, kvg_diag *diag)
{
    const kvg_tensor *x = a->x;

    KVG_TRY(kvg_i_check_dtype(x, "x", KVG_BF16, diag));
    if (x->rank < 2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", -1, -1,
                            "x: rank %d; [..., d] of rank >= 2 expected",
                            x->rank);
    *d = x->shape[x->rank - 1];
    if (a->impl == KVG_KCE_CR_V2 ? *d > D_MAX
                                 : *d <= 64 || *d > D_MAX || *d % 64 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x", x->rank - 1,
                            -1, "x: last dim d = %lld; %s takes %s",
                            (long long)*d, kvg_i_kce_impl_name(a->impl),
                            a->impl == KVG_KCE_CR_V2
                                ? "d <= 8192"
                                : "64 < d <= 8192, a multiple of 64");
    return KVG_OK;
}

/* cache: 2-D [rows, row_bytes] or 4-D [blocks, block_size, 1, row_bytes]. */
static kvg_status check_cache(const kvg_kv_compress_epilog_args *a,
                              kvg_i_kce_cache *c, kvg_diag *diag)
{
    const kvg_tensor *t = a->cache;

    if (t->rank != 2 && t->rank != 4)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "cache", -1, -1,
                            "cache: rank %d; 2-D [rows, row_bytes] or 4-D "
                            "[blocks, block_size, 1, row_bytes] expected",
                            t->rank);
    if (t->rank == 4)
        KVG_TRY(kvg_i_check_dim(t, "cache", 2, 1, "one row a slot", diag));
    c->rank = t->rank;
    c->dtype = t->dtype;
    c->blocks = t->shape[0];
    c->block_size = t->rank == 4 ? t->shape[1] : 1;
    c->row_bytes = t->shape[t->rank - 1];
    return KVG_OK;
}

static kvg_status check_attrs(const kvg_kv_compress_epilog_args *a,
                              kvg_diag *diag)
{
    if ((unsigned)a->impl > (unsigned)KVG_KCE_CR_V2)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "impl", -1, -1,
                            "impl: %d is not ot, sgk, va, cr or cr_v2",
                            (int)a->impl);
    if (a->round_scale != 0 && a->round_scale != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "round_scale", -1,
                            -1, "round_scale: 0 or 1, got %d",
                            a->round_scale);
    if (a->quant_group_size < 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "quant_group_size",
                            -1, -1, "quant_group_size: >= 0 (0: the "
                            "implementation's default), got %lld",
                            (long long)a->quant_group_size);
    /* FLT_MAX itself is a valid scale: the kernels' x * x_scale then
     * overflows to +-Inf, which their saturating hif8 cast stores as
     * +-32768 (docs/kv_compress_epilog.md section 3, "A large x_scale").
     * 17 digits: a double just past FLT_MAX must not print as FLT_MAX. */
    if (!kvg_i_finite_f32(a->x_scale))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "x_scale", -1, -1,
                            "x_scale: a finite binary32 value expected "
                            "(|x_scale| <= FLT_MAX), got %.17g",
                            a->x_scale);
    return KVG_OK;
}

kvg_status kvg_i_kv_compress_epilog_check_args(
    const kvg_kv_compress_epilog_args *a,
    kvg_i_kv_compress_epilog_plan *plan, kvg_diag *diag)
{
    kvg_i_kce_cache c;

    KVG_TRY(check_present(a, diag));
    KVG_TRY(check_attrs(a, diag));
    KVG_TRY(check_x(a, &plan->d, diag));
    KVG_TRY(kvg_i_packed_row_check_index(a->slot_mapping, a->x, diag));
    KVG_TRY(check_cache(a, &c, diag));
    plan->tokens = kvg_i_numel(a->slot_mapping);
    plan->x_scale = (float)a->x_scale;
    return kvg_i_kce_preset(a, &c, plan, diag);
}

/* 1 when one of the n bf16 codes at e is not finite (all-ones
 * exponent): one pass without an exit, which the compiler vectorises. */
KVG_I_ROW_KERNEL
static int row_has_nonfinite(const unsigned char *e, int64_t n)
{
    unsigned code, bad = 0;
    int64_t i;

    for (i = 0; i < n; i++) {
        code = (unsigned)e[2 * i] | (unsigned)e[2 * i + 1] << 8;
        bad |= (code & 0x7F80u) == 0x7F80u;
    }
    return bad != 0;
}

/* Non-finite x in a written token: refused (what the kernels do with one
 * is not established, quant_epilogs.md Q3); skipped tokens are not read.
 * A row with one is searched again for the first, to name it. */
static kvg_status check_x_values(const kvg_kv_compress_epilog_args *a,
                                 const kvg_i_kv_compress_epilog_plan *p,
                                 kvg_diag *diag)
{
    const unsigned char *x = (const unsigned char *)a->x->data;
    int64_t t;

    for (t = 0; t < p->tokens; t++) {
        const unsigned char *row = x + (size_t)(t * p->d) * 2;

        if (!kvg_i_packed_row_kept(p->policy,
                                   kvg_i_index_at(a->slot_mapping, t),
                                   p->slots) ||
            !row_has_nonfinite(row, p->d))
            continue;
        return kvg_i_refuse_nonfinite_row(a->x, row, p->d, t, diag);
    }
    return KVG_OK;
}

kvg_status kvg_i_kv_compress_epilog_check_values(
    const kvg_kv_compress_epilog_args *a,
    const kvg_i_kv_compress_epilog_plan *p,
    const kvg_i_kv_compress_epilog_ws *ws, kvg_diag *diag)
{
    KVG_TRY(kvg_i_packed_row_check_slots(a->slot_mapping, p->tokens,
                                         p->slots, p->policy, p->int32_only,
                                         ws->keys, diag));
    return check_x_values(a, p, diag);
}
