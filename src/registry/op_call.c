/*
 * src/registry/op_call.c - the generic entry point (kvgold/op.h): fill an
 * operator's typed args struct from named tensors and values, by its
 * descriptor's tables, then call the typed function. No allocation: the
 * args struct lives in a kvg_i_op_args on the stack.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/internal.h"
#include "src/registry/op_desc.h"

void kvg_op_call_init(kvg_op_call *call, const kvg_op *op)
{
    if (call == NULL)
        return;
    memset(call, 0, sizeof *call);
    call->op = op;
}

static kvg_status set_tensor(const kvg_op_call *call, size_t i,
                             kvg_i_op_args *a, kvg_diag *diag)
{
    const kvg_named_tensor *nt = &call->tensors[i];
    const kvg_i_op_tensor *entry;
    size_t j;

    if (nt->name == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, (int64_t)i,
                            "%s: tensor %lu of the call has no name",
                            call->op->name, (unsigned long)i);
    entry = kvg_i_op_tensor_named(call->op, nt->name);
    if (entry == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, nt->name, -1, -1,
                            "%s: %s has no tensor of this name", nt->name,
                            call->op->name);
    if (nt->tensor == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, nt->name, -1, -1,
                            "%s: the tensor view is NULL", nt->name);
    for (j = 0; j < i; j++)
        if (call->tensors[j].name != NULL &&
            strcmp(call->tensors[j].name, nt->name) == 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, nt->name, -1, -1,
                                "%s: given twice", nt->name);
    memcpy(a->u.bytes + entry->offset, &nt->tensor, sizeof nt->tensor);
    return KVG_OK;
}

static const char *const k_type_names[] = {"an integer", "a number",
                                           "a boolean", "a string",
                                           "an integer list"};

/* The value as the attribute's type wants it (an INT for a FLOAT is
 * widened), or a refusal naming the attribute. */
static kvg_status typed_value(const kvg_i_op_attr *attr, const kvg_value *v,
                              kvg_value *out, kvg_diag *diag)
{
    const kvg_value_type want = attr->info.type;
    *out = *v;
    if (want == KVG_VALUE_FLOAT && v->type == KVG_VALUE_INT) {
        out->type = KVG_VALUE_FLOAT;
        out->f = (double)v->i;
    }
    if (out->type != want)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr->info.name, -1,
                            -1, "%s: must be %s", attr->info.name,
                            k_type_names[want]);
    if (want == KVG_VALUE_BOOL && v->i != 0 && v->i != 1)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr->info.name, -1,
                            -1, "%s: a boolean must be 0 or 1, got %lld",
                            attr->info.name, (long long)v->i);
    if ((want == KVG_VALUE_STRING && v->s == NULL) ||
        (want == KVG_VALUE_INTS && v->ints == NULL && v->count != 0))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, attr->info.name, -1,
                            -1, "%s: the value is NULL", attr->info.name);
    return KVG_OK;
}

/* The value stored into args through its attribute's setter, as a call
 * would: its type checked first. */
static kvg_status store_value(const kvg_i_op_attr *attr, const kvg_value *v,
                              kvg_i_op_args *a, kvg_diag *diag)
{
    kvg_value typed;
    KVG_TRY(typed_value(attr, v, &typed, diag));
    return attr->set(a, attr, &typed, diag);
}

/* The table entry of attribute `name` (an older spelling included), or
 * the refusal of a name the operator does not have. */
static kvg_status attr_of(const kvg_op *op, const char *name,
                          const kvg_i_op_attr **attr, kvg_diag *diag)
{
    *attr = kvg_i_op_attr_named(op, name);
    if (*attr == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: %s has no attribute or option of this name",
                            name, op->name);
    return KVG_OK;
}

static kvg_status set_attr(const kvg_op_call *call, size_t i,
                           kvg_i_op_args *a, kvg_diag *diag)
{
    const kvg_value *v = &call->attrs[i];
    const kvg_i_op_attr *attr;
    size_t j;

    if (v->name == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, (int64_t)i,
                            "%s: attribute %lu of the call has no name",
                            call->op->name, (unsigned long)i);
    KVG_TRY(attr_of(call->op, v->name, &attr, diag));
    for (j = 0; j < i; j++) {
        const char *earlier = call->attrs[j].name;
        if (earlier == NULL ||
            kvg_i_op_attr_named(call->op, earlier) != attr)
            continue;
        if (strcmp(earlier, v->name) == 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, v->name, -1, -1,
                                "%s: given twice", v->name);
        /* an attribute under its name and its older spelling */
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, v->name, -1, -1,
                            "%s: given twice, also as %s (the same %s); "
                            "give one", v->name, earlier,
                            attr->info.is_option ? "option" : "attribute");
    }
    return store_value(attr, v, a, diag);
}

kvg_status kvg_i_op_fill(const kvg_op_call *call, kvg_i_op_args *a,
                            kvg_diag *diag)
{
    size_t i;

    if (call == NULL || call->op == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "the call or its operator is NULL");
    if ((call->tensors == NULL && call->tensor_count != 0) ||
        (call->attrs == NULL && call->attr_count != 0))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "%s: a tensor or attribute count without its "
                            "array", call->op->name);
    memset(a, 0, sizeof *a);
    call->op->args_init(a);
    for (i = 0; i < call->tensor_count; i++)
        KVG_TRY(set_tensor(call, i, a, diag));
    for (i = 0; i < call->attr_count; i++)
        KVG_TRY(set_attr(call, i, a, diag));
    memcpy(a->u.bytes + call->op->workspace_offset, &call->workspace,
           sizeof call->workspace);
    memcpy(a->u.bytes + call->op->workspace_size_offset,
           &call->workspace_size, sizeof call->workspace_size);
    return KVG_OK;
}

kvg_status kvg_op_workspace_size(const kvg_op_call *call, size_t *bytes,
                                 kvg_diag *diag)
{
    kvg_i_op_args a;

    if (diag != NULL)
        kvg_diag_clear(diag);
    if (bytes == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "bytes is NULL");
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    return call->op->workspace_size(&a, bytes, diag);
}

kvg_status kvg_op_run(const kvg_op_call *call, kvg_diag *diag)
{
    kvg_i_op_args a;

    if (diag != NULL)
        kvg_diag_clear(diag);
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    return call->op->run(&a, diag);
}

/* The table entry of an output or cache `name`, or a refusal. */
kvg_status kvg_i_op_written_entry(const kvg_op *op, const char *name,
                                  const kvg_i_op_tensor **entry,
                                  kvg_diag *diag)
{
    *entry = kvg_i_op_tensor_named(op, name);
    if (*entry == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: %s has no tensor of this name",
                            name ? name : "(null)", op->name);
    if ((*entry)->info.kind == KVG_OP_INPUT)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: an input of %s, not an output", name,
                            op->name);
    return KVG_OK;
}

kvg_status kvg_op_output_shape(const kvg_op_call *call, const char *name,
                               int *produced, kvg_dtype *dtype, int *rank,
                               int64_t shape[KVG_MAX_RANK], kvg_diag *diag)
{
    const kvg_i_op_tensor *entry;
    const kvg_tensor *cache;
    kvg_i_op_args a;

    if (diag != NULL)
        kvg_diag_clear(diag);
    if (produced == NULL || dtype == NULL || rank == NULL || shape == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "an output pointer is NULL");
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    KVG_TRY(kvg_i_op_written_entry(call->op, name, &entry, diag));
    if (entry->info.kind == KVG_OP_OUTPUT)
        return call->op->output_shape(&a, name, produced, dtype, rank, shape,
                                      diag);
    cache = kvg_i_op_tensor_of(call->op, &a, name);
    if (cache == NULL && entry->info.presence == KVG_OP_OPTIONAL) {
        *produced = 0; /* an optional cache left out is not written */
        return KVG_OK;
    }
    if (cache == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: the in-place cache is not given, so it "
                            "defines no shape", name);
    if (cache->rank < 0 || cache->rank > KVG_MAX_RANK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: rank %d is outside [0, %d]", name, cache->rank,
                            KVG_MAX_RANK);
    *produced = 1;
    *dtype = cache->dtype;
    *rank = cache->rank;
    memcpy(shape, cache->shape, sizeof cache->shape);
    return KVG_OK;
}

kvg_status kvg_op_describe_output(const kvg_op_call *call, const char *name,
                                  const kvg_tensor *output,
                                  kvg_compare_role *role, int *has_layout,
                                  kvg_cache_layout *layout, kvg_diag *diag)
{
    const kvg_i_op_tensor *entry;
    kvg_i_op_args a;

    if (diag != NULL)
        kvg_diag_clear(diag);
    if (output == NULL || role == NULL || has_layout == NULL ||
        layout == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: the output view or a result pointer is NULL",
                            name ? name : "(null)");
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    KVG_TRY(kvg_i_op_written_entry(call->op, name, &entry, diag));
    *role = KVG_ROLE_DEFAULT;
    *has_layout = 0;
    memset(layout, 0, sizeof *layout);
    call->op->describe(&a, name, output, role, has_layout, layout);
    return KVG_OK;
}

kvg_status kvg_op_row_layout(const kvg_op_call *call, const char *name,
                             kvg_row_layout *out, kvg_diag *diag)
{
    const kvg_i_op_tensor *entry;
    kvg_i_op_args a;
    kvg_row_layout l;

    if (diag != NULL)
        kvg_diag_clear(diag);
    if (out == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: the row layout pointer is NULL",
                            name ? name : "(null)");
    KVG_TRY(kvg_i_op_fill(call, &a, diag));
    KVG_TRY(kvg_i_op_written_entry(call->op, name, &entry, diag));
    if (call->op->row_layout == NULL) {
        memset(out, 0, sizeof *out); /* "none" */
        return KVG_OK;
    }
    KVG_TRY(call->op->row_layout(&a, name, &l, diag));
    /* the caller finds its tensor in the layout by name: a layout that
     * does not name it is the operator's mistake, never judged */
    if (l.segments > 0 && kvg_row_tensor_of(&l, name) < 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: the %s row layout does not name this "
                            "tensor among its tensors (operator bug)", name,
                            call->op->name);
    *out = l;
    return KVG_OK;
}

size_t kvg_op_row_layout_size(void)
{
    return sizeof(kvg_row_layout);
}

kvg_status kvg_op_check_value(const kvg_op *op, const kvg_value *v,
                              kvg_diag *diag)
{
    const kvg_i_op_attr *attr;
    kvg_i_op_args scratch;

    if (op == NULL || v == NULL || v->name == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "the operator, the value or its name is NULL");
    KVG_TRY(attr_of(op, v->name, &attr, diag));
    memset(&scratch, 0, sizeof scratch);
    return store_value(attr, v, &scratch, diag);
}

kvg_status kvg_op_prepare(const kvg_op_call *call, kvg_op_prepared *p,
                          kvg_diag *diag)
{
    if (diag != NULL)
        kvg_diag_clear(diag);
    if (p == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "the prepared call is NULL");
    p->op = NULL; /* a refused call cannot be run */
    KVG_TRY(kvg_i_op_fill(call, &p->args, diag));
    p->op = call->op;
    return KVG_OK;
}

kvg_status kvg_op_run_prepared(const kvg_op_prepared *p, kvg_diag *diag)
{
    /* the typed entry clears diag itself (src/common/entry.c) */
    if (p == NULL || p->op == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, NULL, -1, -1,
                            "the prepared call or its operator is NULL");
    return p->op->run(&p->args, diag);
}
