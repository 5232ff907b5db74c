/*
 * tools/lib/case/case_op.c - the one case adapter: turns any case into a
 * generic call (kvgold/op.h) by its operator's tables, and runs it.
 *
 *   attrs / options  only the operator's attribute / option names; each
 *                    read by its table type (a wrong JSON type is a
 *                    malformed case naming the key); absent ones take the
 *                    operator's defaults
 *   inputs           its inputs and caches, and the outputs it always
 *                    writes (initial contents: QKV's q_out); the tensors
 *                    the table marks case_required must be there
 *   expected         only its caches and outputs
 *
 * Outputs: every cache as a copy of its input (copy-on-write when the
 * input is mapped), updated; every output the
 * call produces (kvg_op_output_shape), copied from inputs when given there,
 * else allocated and filled with 0xFF bytes, so an element the op fails to
 * write shows up as NaN instead of a plausible zero.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"

#include "case.h"
#include "membudget.h"
#include "kvgold/op.h"

#define MAX_NAMES (KVG_CASE_MAX_TENSORS + 1)

static kvg_status fail(kvg_diag *diag, kvg_status st, const char *field,
                       const char *message)
{
    if (diag != NULL) {
        kvg_diag_clear(diag);
        diag->status = st;
        (void)snprintf(diag->tensor, sizeof diag->tensor, "%s", field);
        (void)snprintf(diag->message, sizeof diag->message, "%s", message);
    }
    return st;
}

/* The attribute (options = 0) or option (1) names of an operator, their
 * older spellings included. */
static void attr_names(const kvg_op *op, int options, const char **names)
{
    const size_t count = kvg_op_attr_count(op);
    size_t i, n = 0;
    for (i = 0; i < count && n + 1 < MAX_NAMES; i++)
        if (kvg_op_attr_at(op, i)->is_option == options)
            names[n++] = kvg_op_attr_at(op, i)->name;
    for (i = 0; i < count && n + 1 < MAX_NAMES; i++) {
        const kvg_op_attr_info *a = kvg_op_attr_at(op, i);
        const char *old = kvg_op_attr_old_name(op, a->name);
        if (old != NULL && a->is_option == options)
            names[n++] = old;
    }
    names[n] = NULL;
}

/* The case's allowed inputs, required inputs and allowed expected names. */
static void tensor_names(const kvg_op *op, const char **inputs,
                         const char **required, const char **outputs)
{
    const size_t count = kvg_op_tensor_count(op);
    size_t i, ni = 0, nr = 0, no = 0;
    for (i = 0; i < count && i + 1 < MAX_NAMES; i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        if (t->kind != KVG_OP_OUTPUT || t->presence == KVG_OP_REQUIRED)
            inputs[ni++] = t->name;
        if (kvg_op_case_rules(op, t->name) & KVG_OP_CASE_REQUIRED)
            required[nr++] = t->name;
        if (t->kind != KVG_OP_INPUT)
            outputs[no++] = t->name;
    }
    inputs[ni] = required[nr] = outputs[no] = NULL;
}

static kvg_status check_names(const kvg_case *c, const kvg_op *op,
                              kvg_diag *diag)
{
    const char *attrs[MAX_NAMES], *options[MAX_NAMES];
    const char *inputs[MAX_NAMES], *required[MAX_NAMES], *outputs[MAX_NAMES];
    kvg_status st;

    attr_names(op, 0, attrs);
    attr_names(op, 1, options);
    tensor_names(op, inputs, required, outputs);
    if ((st = kvg_case_check_keys(c, c->attrs, "attrs", attrs, diag)) !=
            KVG_OK ||
        (st = kvg_case_check_keys(c, c->options, "options", options,
                                  diag)) != KVG_OK)
        return st;
    return kvg_case_check_names(c, inputs, required, outputs, diag);
}

/* A value the case file must get right (a mode string whose refusal is a
 * malformed file, not the operator's): checked alone by the library, its
 * refusal ("<name>: why") said of the file's key. */
static kvg_status check_format_value(const kvg_case *c, const kvg_op *op,
                                     const kvg_op_attr_info *attr,
                                     const char *key, const kvg_value *v,
                                     kvg_diag *diag)
{
    char msg[KVG_DIAG_MESSAGE_MAX + 1200];
    const size_t n = strlen(attr->name);
    const char *why;
    kvg_diag d;

    if (!(kvg_op_case_rules(op, attr->name) & KVG_OP_CASE_FORMAT) ||
        kvg_op_check_value(op, v, &d) == KVG_OK)
        return KVG_OK;
    why = d.message;
    if (strncmp(why, attr->name, n) == 0 && strncmp(why + n, ": ", 2) == 0)
        why += n + 2;
    (void)snprintf(msg, sizeof msg, "%s/case.json: %s.%s %s", c->dir,
                   attr->is_option ? "options" : "attrs", key, why);
    return fail(diag, KVG_ERR_FILE_FORMAT, attr->name, msg);
}

/* Which key of `obj` holds attribute `attr`: its name or its older
 * spelling (NULL: neither); a file that gives both is malformed. */
static kvg_status value_key(const kvg_case *c, const kvg_op *op,
                            const kvg_json *obj, const kvg_op_attr_info *attr,
                            const char **key, kvg_diag *diag)
{
    const char *where = attr->is_option ? "options" : "attrs";
    const char *old = kvg_op_attr_old_name(op, attr->name);
    const kvg_json *now = kvg_json_get(obj, attr->name);
    const kvg_json *then = old != NULL ? kvg_json_get(obj, old) : NULL;
    char msg[KVG_DIAG_MESSAGE_MAX + 1200];

    *key = now != NULL ? attr->name : then != NULL ? old : NULL;
    if (now == NULL || then == NULL)
        return KVG_OK;
    (void)snprintf(msg, sizeof msg,
                   "%s/case.json: %s.%s and %s.%s are the same %s (%s is "
                   "its older spelling); give one",
                   c->dir, where, attr->name, where, old,
                   attr->is_option ? "option" : "attribute", old);
    return fail(diag, KVG_ERR_FILE_FORMAT, attr->name, msg);
}

/* Read attribute `attr` from the case into cc's next value, if given. */
static kvg_status read_value(const kvg_case *c, const kvg_op *op,
                             const kvg_op_attr_info *attr, kvg_case_call *cc,
                             kvg_diag *diag)
{
    const kvg_json *obj = attr->is_option ? c->options : c->attrs;
    const size_t k = cc->call.attr_count;
    kvg_value *v = &cc->values[k];
    const char *key = NULL;
    kvg_status st = KVG_OK;
    int n = 0, flag = 0;

    if (obj == NULL)
        return KVG_OK;
    if ((st = value_key(c, op, obj, attr, &key, diag)) != KVG_OK ||
        key == NULL)
        return st;
    memset(v, 0, sizeof *v);
    v->name = attr->name;
    v->type = attr->type;
    switch (attr->type) {
    case KVG_VALUE_FLOAT:
        st = kvg_case_get_double(c, obj, key, 0.0, &v->f, diag);
        break;
    case KVG_VALUE_BOOL:
        st = kvg_case_get_bool(c, obj, key, 0, &flag, diag);
        v->i = flag;
        break;
    case KVG_VALUE_STRING:
        st = kvg_case_get_string(c, obj, key, NULL, cc->strings[k],
                                 sizeof cc->strings[k], diag);
        v->s = cc->strings[k];
        break;
    case KVG_VALUE_INTS:
        st = kvg_case_get_ints(c, obj, key, 0, cc->ints[k],
                               KVG_CASE_MAX_INTS, &n, diag);
        v->ints = cc->ints[k];
        v->count = (size_t)n;
        break;
    case KVG_VALUE_INT:
        st = kvg_case_get_ints(c, obj, key, 0, cc->ints[k], 1, &n, diag);
        v->i = cc->ints[k][0];
        break;
    }
    if (st == KVG_OK)
        st = check_format_value(c, op, attr, key, v, diag);
    if (st == KVG_OK)
        cc->call.attr_count++;
    return st;
}

kvg_status kvg_case_call_build(const kvg_case *c, kvg_case_call *cc,
                               kvg_diag *diag)
{
    const kvg_op *op = kvg_op_find(c->op);
    kvg_status st;
    size_t i;
    int j;

    memset(cc, 0, sizeof *cc);
    if (op == NULL)
        return fail(diag, KVG_ERR_FILE_FORMAT, "op", "unknown operator");
    kvg_op_call_init(&cc->call, op);
    cc->call.tensors = cc->tensors;
    cc->call.attrs = cc->values;
    if ((st = check_names(c, op, diag)) != KVG_OK)
        return st;
    for (i = 0; i < kvg_op_attr_count(op) && i < KVG_CASE_MAX_VALUES; i++)
        if ((st = read_value(c, op, kvg_op_attr_at(op, i), cc, diag)) !=
            KVG_OK)
            return st;
    for (j = 0; j < c->inputs.count; j++) {
        cc->tensors[j].name = c->inputs.items[j].name;
        cc->tensors[j].tensor = &c->inputs.items[j].t;
    }
    cc->call.tensor_count = (size_t)j;
    return KVG_OK;
}

/* Point the call's tensor `name` at `t`, adding it when absent. */
static void put_tensor(kvg_case_call *cc, const char *name,
                       const kvg_tensor *t)
{
    size_t i;
    for (i = 0; i < cc->call.tensor_count; i++)
        if (strcmp(cc->tensors[i].name, name) == 0) {
            cc->tensors[i].tensor = t;
            return;
        }
    if (cc->call.tensor_count < KVG_CASE_MAX_TENSORS) {
        cc->tensors[cc->call.tensor_count].name = name;
        cc->tensors[cc->call.tensor_count++].tensor = t;
    }
}

/* An output the call produces, allocated as kvg_op_output_shape says. When
 * the inputs cannot shape it, an optional output gets a one-element
 * stand-in (of the first tensor's dtype) so the operator itself refuses
 * the inputs with its own message; a required one is left out. */
static kvg_status add_output(const kvg_case *c, kvg_case_call *cc,
                             const kvg_op_tensor_info *entry,
                             kvg_case_set *out, kvg_diag *diag)
{
    const char *name = entry->name;
    int64_t shape[KVG_MAX_RANK] = {1};
    const kvg_tensor *first = kvg_case_find(
        &c->inputs, kvg_op_tensor_at(cc->call.op, 0)->name);
    kvg_dtype dtype = first != NULL ? first->dtype : KVG_FP16;
    int produced = 0, rank = 1;
    kvg_tensor *t;

    if (kvg_op_output_shape(&cc->call, name, &produced, &dtype, &rank, shape,
                            NULL) == KVG_OK) {
        if (!produced)
            return KVG_OK;
    } else if (entry->presence == KVG_OP_REQUIRED) {
        return KVG_OK;
    }
    t = kvg_case_set_add(out, name, dtype, rank, shape, NULL, diag);
    if (t == NULL)
        return diag != NULL ? diag->status : KVG_ERR_NOMEM;
    memset(t->data, 0xFF, t->nbytes);
    put_tensor(cc, name, t);
    return KVG_OK;
}

/* The caches (copies of the inputs) and outputs, in table order. */
static kvg_status add_written(const kvg_case *c, kvg_case_call *cc,
                              kvg_case_set *out, kvg_diag *diag)
{
    const kvg_op *op = cc->call.op;
    size_t i;

    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *entry = kvg_op_tensor_at(op, i);
        const kvg_tensor *in = kvg_case_find(&c->inputs, entry->name);
        kvg_tensor *t;
        kvg_status st;

        if (entry->kind == KVG_OP_INPUT)
            continue;
        if (in == NULL) {
            if (entry->kind == KVG_OP_OUTPUT &&
                (st = add_output(c, cc, entry, out, diag)) != KVG_OK)
                return st;
            continue;
        }
        t = kvg_case_set_add_cache(out, c, entry->name, diag);
        if (t == NULL)
            return diag != NULL ? diag->status : KVG_ERR_NOMEM;
        put_tensor(cc, entry->name, t);
    }
    return KVG_OK;
}

/* The whole pages of `item`'s private mapping that the elements in `runs`
 * (sorted, disjoint) fall in: each is copied by the kernel when the
 * golden first writes it. */
static uint64_t cow_pages(const kvg_case_tensor *item,
                          const kvg_elem_run *runs, size_t count,
                          uint64_t page)
{
    const uint64_t esize = kvg_dtype_size(item->t.dtype);
    const uint64_t off = (uint64_t)((const unsigned char *)item->t.data -
                                    (const unsigned char *)item->map.base);
    uint64_t pages = 0, last = UINT64_MAX; /* the last page counted */
    size_t r;

    for (r = 0; r < count; r++) {
        uint64_t lo, hi;
        if (runs[r].count <= 0 || runs[r].first < 0)
            continue;
        lo = (off + (uint64_t)runs[r].first * esize) / page;
        hi = (off + ((uint64_t)runs[r].first + (uint64_t)runs[r].count) *
                        esize - 1) / page;
        if (last != UINT64_MAX && lo <= last)
            lo = last + 1;
        if (hi >= lo) {
            pages += hi - lo + 1;
            last = hi;
        }
    }
    return pages * page;
}

/* Reserve (membudget.h) the pages the golden will dirty in each cache that
 * is a private copy-on-write mapping: they become private memory of the
 * process, as much as a read cache would be where the operator writes
 * everywhere. Counted from the operator's written runs (shapes, attributes
 * and indices alone), before it runs; a case that does not fit is refused
 * instead of using more than the limit. */
static kvg_status reserve_cow(kvg_case_call *cc, kvg_case_set *outputs,
                              kvg_diag *diag)
{
    long ps = sysconf(_SC_PAGESIZE);
    const uint64_t page = ps > 0 ? (uint64_t)ps : 4096u;
    int i;

    for (i = 0; i < outputs->count; i++) {
        kvg_case_tensor *item = &outputs->items[i];
        kvg_elem_run *runs;
        size_t need = 0, count = 0, bytes;
        int produced = 0;
        uint64_t cow;
        char what[KVG_CASE_PATH_MAX + 96];
        kvg_status st;

        if (item->map.base == NULL || item->map.mode != KVG_MAP_PRIVATE)
            continue;
        st = kvg_op_written_runs(&cc->call, item->name, &produced, NULL, 0,
                                 &need, diag);
        if (st != KVG_OK)
            return st; /* the operator's own refusal of the call */
        if (!produced)
            continue;
        bytes = (need ? need : 1) * sizeof *runs;
        if ((st = kvg_mem_reserve(bytes, "the written runs", diag)) !=
            KVG_OK)
            return st;
        if ((runs = (kvg_elem_run *)malloc(bytes)) == NULL) {
            kvg_mem_release(bytes);
            return fail(diag, KVG_ERR_NOMEM, item->name,
                        "out of memory for the written runs");
        }
        st = kvg_op_written_runs(&cc->call, item->name, &produced, runs, need,
                                 &count, diag);
        cow = st == KVG_OK ? cow_pages(item, runs, count, page) : 0;
        free(runs);
        kvg_mem_release(bytes);
        if (st != KVG_OK)
            return st;
        (void)snprintf(what, sizeof what,
                       "copy-on-write of mapped %s (%s, the %llu pages the "
                       "golden writes)", item->name, item->file,
                       (unsigned long long)(cow / page));
        if ((st = kvg_mem_reserve(cow, what, diag)) != KVG_OK) {
            if (diag != NULL) {
                strncpy(diag->tensor, item->name, sizeof diag->tensor - 1);
                diag->tensor[sizeof diag->tensor - 1] = '\0';
            }
            return st;
        }
        item->cow_reserved = cow;
    }
    return KVG_OK;
}

kvg_status kvg_case_run_with(const kvg_case *c, kvg_case_set *outputs,
                             kvg_case_op_runner run, kvg_diag *diag)
{
    kvg_case_call cc;
    size_t bytes = 0;
    kvg_status st;

    outputs->count = 0;
    st = kvg_case_call_build(c, &cc, diag);
    if (st == KVG_OK)
        st = add_written(c, &cc, outputs, diag);
    if (st == KVG_OK)
        st = kvg_op_workspace_size(&cc.call, &bytes, diag);
    if (st == KVG_OK) {
        cc.call.workspace = kvg_case_workspace(bytes);
        cc.call.workspace_size = bytes;
        if (cc.call.workspace == NULL) {
            char msg[KVG_CASE_PATH_MAX + 64];
            (void)snprintf(msg, sizeof msg,
                           "%s: out of memory for the workspace", c->dir);
            st = fail(diag, KVG_ERR_NOMEM, "workspace", msg);
        } else if ((st = reserve_cow(&cc, outputs, diag)) == KVG_OK) {
            st = run(&cc.call, diag);
        }
        free(cc.call.workspace);
    }
    if (st != KVG_OK)
        kvg_case_set_free(outputs);
    return st;
}

kvg_status kvg_case_run(const kvg_case *c, kvg_case_set *outputs,
                        kvg_diag *diag)
{
    return kvg_case_run_with(c, outputs, kvg_op_run, diag);
}

kvg_status kvg_case_describe_output(const kvg_case *c, const char *name,
                                    const kvg_tensor *output,
                                    kvg_compare_role *role, int *has_layout,
                                    kvg_cache_layout *layout, kvg_diag *diag)
{
    kvg_case_call cc;
    kvg_status st = kvg_case_call_build(c, &cc, diag);
    if (st != KVG_OK)
        return st;
    return kvg_op_describe_output(&cc.call, name, output, role, has_layout,
                                  layout, diag);
}

kvg_status kvg_case_row_layout(const kvg_case *c, const char *name,
                               kvg_row_layout *out, kvg_diag *diag)
{
    kvg_case_call cc;

    KVG_TRY(kvg_case_call_build(c, &cc, diag));
    return kvg_op_row_layout(&cc.call, name, out, diag);
}

kvg_status kvg_case_row_layout_or_not_judged(const kvg_case *c,
                                             const char *name,
                                             kvg_dtype dtype,
                                             kvg_row_layout *out,
                                             kvg_compare_result *res)
{
    char why[KVG_COMPARE_REASON_MAX];
    kvg_diag diag;
    kvg_status st;

    kvg_diag_clear(&diag);
    st = kvg_case_row_layout(c, name, out, &diag);
    if (st != KVG_OK) {
        (void)snprintf(why, sizeof why, "no row layout: %s", diag.message);
        (void)kvg_compare_result_not_judged(res, name, dtype, why);
    }
    return st;
}

int kvg_case_has_option(const kvg_case *c, const char *name)
{
    const kvg_op_attr_info *attr = kvg_op_attr_find(kvg_op_find(c->op), name);
    return attr != NULL && attr->is_option;
}
