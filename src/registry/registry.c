/*
 * src/registry/registry.c - the list of operators and their tables
 * (kvgold/op.h, "the registry"). Adding an operator adds one line here.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "src/common/internal.h"
#include "src/registry/op_desc.h"

/* Descriptors declared only here: the registry list is the one shared
 * file that names them. */
extern const kvg_op kvg_i_op_kv_rms_norm_rope_cache;
extern const kvg_op kvg_i_op_qkv_rms_norm_rope_cache;
extern const kvg_op kvg_i_op_reshape_and_cache_omni;
extern const kvg_op kvg_i_op_reshape_and_cache;
extern const kvg_op kvg_i_op_scatter_pa_kv_cache;
extern const kvg_op kvg_i_op_dynamic_block_quant;
extern const kvg_op kvg_i_op_dynamic_mx_quant;
extern const kvg_op kvg_i_op_kv_compress_epilog;
extern const kvg_op kvg_i_op_c8_mxfp_k_cache;
extern const kvg_op kvg_i_op_indexer_quant_cache;
extern const kvg_op kvg_i_op_concat_and_cache_ds_mla;
extern const kvg_op kvg_i_op_indexer_compress_epilog;

/* The fixed order of kvg_op_at. */
static const kvg_op *const k_ops[] = {
    &kvg_i_op_kv_rms_norm_rope_cache,
    &kvg_i_op_qkv_rms_norm_rope_cache,
    &kvg_i_op_reshape_and_cache_omni,
    &kvg_i_op_reshape_and_cache,
    &kvg_i_op_scatter_pa_kv_cache,
    &kvg_i_op_dynamic_block_quant,
    &kvg_i_op_dynamic_mx_quant,
    &kvg_i_op_kv_compress_epilog,
    &kvg_i_op_c8_mxfp_k_cache,
    &kvg_i_op_indexer_quant_cache,
    &kvg_i_op_concat_and_cache_ds_mla,
    &kvg_i_op_indexer_compress_epilog,
};

#define OP_COUNT (sizeof k_ops / sizeof k_ops[0])

size_t kvg_op_count(void) { return OP_COUNT; }

const kvg_op *kvg_op_at(size_t i) { return i < OP_COUNT ? k_ops[i] : NULL; }

const kvg_op *kvg_op_find(const char *name)
{
    size_t i;
    if (name == NULL)
        return NULL;
    for (i = 0; i < OP_COUNT; i++)
        if (strcmp(k_ops[i]->name, name) == 0)
            return k_ops[i];
    return NULL;
}

const char *kvg_op_name(const kvg_op *op) { return op ? op->name : NULL; }

size_t kvg_op_tensor_count(const kvg_op *op)
{
    return op ? op->tensor_count : 0;
}

const kvg_op_tensor_info *kvg_op_tensor_at(const kvg_op *op, size_t i)
{
    return op != NULL && i < op->tensor_count ? &op->tensors[i].info : NULL;
}

size_t kvg_op_attr_count(const kvg_op *op) { return op ? op->attr_count : 0; }

const kvg_op_attr_info *kvg_op_attr_at(const kvg_op *op, size_t i)
{
    return op != NULL && i < op->attr_count ? &op->attrs[i].info : NULL;
}

const kvg_i_op_tensor *kvg_i_op_tensor_named(const kvg_op *op,
                                             const char *name)
{
    size_t i;
    for (i = 0; name != NULL && i < op->tensor_count; i++)
        if (strcmp(op->tensors[i].info.name, name) == 0)
            return &op->tensors[i];
    return NULL;
}

const kvg_i_op_attr *kvg_i_op_attr_named(const kvg_op *op, const char *name)
{
    size_t i;
    for (i = 0; name != NULL && i < op->attr_count; i++)
        if (strcmp(op->attrs[i].info.name, name) == 0)
            return &op->attrs[i];
    for (i = 0; name != NULL && i < op->alias_count; i++)
        if (strcmp(op->aliases[i].old_name, name) == 0)
            return kvg_i_op_attr_named(op, op->aliases[i].name);
    return NULL;
}

const char *kvg_i_op_attr_alias(const kvg_op *op, const kvg_i_op_attr *attr)
{
    size_t i;
    for (i = 0; i < op->alias_count; i++)
        if (strcmp(op->aliases[i].name, attr->info.name) == 0)
            return op->aliases[i].old_name;
    return NULL;
}

const kvg_tensor *kvg_i_op_tensor_of(const kvg_op *op,
                                     const kvg_i_op_args *a, const char *name)
{
    const kvg_i_op_tensor *t = kvg_i_op_tensor_named(op, name);
    const kvg_tensor *p = NULL;
    if (t != NULL)
        memcpy(&p, a->u.bytes + t->offset, sizeof p);
    return p;
}

void kvg_i_op_refusal_text(char *buf, size_t cap, const char *refusal,
                           const char *value)
{
    const char *mark = strstr(refusal, "%s");
    if (mark == NULL) {
        (void)snprintf(buf, cap, "%s", refusal);
        return;
    }
    (void)snprintf(buf, cap, "%.*s%s%s", (int)(mark - refusal), refusal,
                   value, mark + 2);
}

kvg_status kvg_i_op_refuse(const kvg_i_op_attr *attr, const char *value,
                           kvg_diag *diag)
{
    char text[KVG_DIAG_MESSAGE_MAX];
    kvg_i_op_refusal_text(text, sizeof text, attr->refusal, value);
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr->info.name, -1, -1,
                        "%s: %s", attr->info.name, text);
}

void kvg_i_op_set_layout(int *has, kvg_cache_layout *layout,
                         kvg_layout_kind kind, int64_t blocks, int64_t slots,
                         int64_t heads, int64_t dim, int64_t c0)
{
    int64_t width = 0;
    if (blocks <= 0 || slots <= 0 || !kvg_i_mul_i64(heads, dim, &width) ||
        heads <= 0 || dim <= 0 ||
        (kind == KVG_LAYOUT_NZ && (c0 <= 0 || width % c0 != 0)))
        return; /* not a shape we can describe: plain indices instead */
    *has = 1;
    layout->kind = kind;
    layout->blocks = blocks;
    layout->slots = slots;
    layout->heads = heads;
    layout->dim = dim;
    layout->c0 = kind == KVG_LAYOUT_NZ ? c0 : 0;
}

const kvg_op_tensor_info *kvg_op_tensor_find(const kvg_op *op,
                                             const char *name)
{
    const kvg_i_op_tensor *t = op != NULL ? kvg_i_op_tensor_named(op, name)
                                          : NULL;
    return t != NULL ? &t->info : NULL;
}

const kvg_op_attr_info *kvg_op_attr_find(const kvg_op *op, const char *name)
{
    const kvg_i_op_attr *a = op != NULL ? kvg_i_op_attr_named(op, name)
                                        : NULL;
    return a != NULL ? &a->info : NULL;
}

const char *kvg_op_attr_old_name(const kvg_op *op, const char *name)
{
    const kvg_i_op_attr *a = op != NULL ? kvg_i_op_attr_named(op, name)
                                        : NULL;
    return a != NULL ? kvg_i_op_attr_alias(op, a) : NULL;
}

unsigned kvg_op_case_rules(const kvg_op *op, const char *name)
{
    const kvg_i_op_tensor *t;
    const kvg_i_op_attr *a;

    if (op == NULL || name == NULL)
        return 0;
    t = kvg_i_op_tensor_named(op, name);
    if (t != NULL)
        return t->case_required ? KVG_OP_CASE_REQUIRED : 0u;
    a = kvg_i_op_attr_named(op, name);
    return a != NULL && a->case_format ? KVG_OP_CASE_FORMAT : 0u;
}
