/*
 * src/ops/kv_compress_epilog/entry.c - KvCompressEpilog: the entry points
 * (through the entry skeleton, src/common/entry.h) and the compute step:
 * each written token's row through the packed-row engine, with the layout
 * and rules of the call's preset (presets.c; validation in check.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/entry.h"
#include "src/ops/kv_compress_epilog/internal.h"

void kvg_kv_compress_epilog_args_init(kvg_kv_compress_epilog_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->impl = KVG_KCE_OT;
    args->quant_mode = 1;
    args->quant_group_size = 0;
    args->round_scale = 1;
    args->x_scale = 1.0;
    args->layout = 1;
    args->block_stride = 0;
}

int kvg_kce_impl_from_name(const char *name, kvg_kce_impl *impl)
{
    int i;

    if (name == NULL || impl == NULL)
        return 0;
    for (i = 0; i <= (int)KVG_KCE_CR_V2; i++)
        if (strcmp(name, kvg_i_kce_impl_name((kvg_kce_impl)i)) == 0) {
            *impl = (kvg_kce_impl)i;
            return 1;
        }
    return 0;
}

static void compute(const kvg_kv_compress_epilog_args *a,
                    const kvg_i_kv_compress_epilog_plan *p)
{
    const unsigned char *x = (const unsigned char *)a->x->data;
    unsigned char *const tensor[KVG_ROW_TENSORS] = {
        (unsigned char *)a->cache->data, NULL};
    const kvg_i_packed_tokens k = {a->slot_mapping, p->tokens, p->slots,
                                   p->policy};
    const kvg_i_token_rows rows = {x, (size_t)p->d * 2, NULL, NULL, NULL};
    kvg_i_packed_row row;
    int i;

    row.layout = &p->layout;
    row.x_scale = p->x_scale;
    row.head_columns = 0; /* one head: the row is the token's x */
    for (i = 0; i < KVG_ROW_SEGMENTS; i++) {
        row.rule[i] = p->rule_of[i] >= 0 ? &p->rules[p->rule_of[i]] : NULL;
        row.column[i] = p->column[i];
    }
    kvg_i_packed_row_write_tokens(&row, &k, tensor, &rows);
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_kv_compress_epilog_args args_t;

/* Written: the cache. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {{"x", a->x, 0},
                               {"slot_mapping", a->slot_mapping, 0},
                               {"cache", a->cache, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

KVG_I_ENTRY_KEYED_STEPS(kv_compress_epilog);

KVG_I_ENTRY_POINTS(kv_compress_epilog, kvg_i_kv_compress_epilog_plan,
                   kvg_i_kv_compress_epilog_ws);
