/*
 * tools/lib/scan/scan.c - the scan engine: a listed call onto its operator
 * (the per-operator maps of ops/), the golden run and compare's judgement.
 *
 * A call becomes a case in memory - the same struct `kvgold compare` loads
 * from a case directory, with its attributes as a JSON object - so the
 * golden runs through the one case adapter (kvg_case_run over the
 * registry), the written cache elements come from the operator
 * (kvg_case_written_runs), and each output is judged by
 * kvg_compare_tensor exactly as compare judges a dump. The pre-call cache
 * is the call's input; the NPU's post-call cache its output. Memory is
 * compare's too: big tensors are mapped, not read, the golden writes a
 * copy-on-write mapping of each cache, and the untouched gaps' pages are
 * given back as they are compared, so a call never holds its caches.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"

#include "case.h"
#include "fileio.h"
#include "membudget.h"
#include "npy_map.h"
#include "outset.h"
#include "tensor_file.h"
#include "report.h"
#include "binding.h"
#include "read_common.h"
#include "scan.h"

/* 1 if `name` is an attribute or option of operator `op` (NULL: of any
 * kvgold operator). */
static int known_attr(const char *name, const char *op)
{
    size_t i, k;
    for (i = 0; kvg_scan_opmaps[i] != NULL; i++) {
        const kvg_op *d = kvg_op_find(kvg_scan_op(kvg_scan_opmaps[i]));
        if (d == NULL || (op != NULL && strcmp(op, kvg_op_name(d)) != 0))
            continue;
        for (k = 0; k < kvg_op_attr_count(d); k++)
            if (strcmp(kvg_op_attr_at(d, k)->name, name) == 0)
                return 1;
    }
    return 0;
}

kvg_status kvg_scan_attr_check(const char *arg, const char *op,
                               kvg_diag *diag)
{
    const char *eq = strchr(arg, '=');
    char name[KVG_SCAN_NAME_MAX];
    kvg_json *doc = NULL;
    kvg_diag jd;
    size_t n;

    if (eq == NULL || eq == arg)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--attr", -1, -1,
                            "--attr needs NAME=VALUE (VALUE as case.json "
                            "writes it), got %s", arg);
    n = (size_t)(eq - arg);
    if (n < sizeof name) {
        memcpy(name, arg, n);
        name[n] = '\0';
    }
    if (n >= sizeof name || !known_attr(name, op))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--attr", -1, -1,
                            "--attr %.*s: no attribute or option of %s has "
                            "that name (docs/scan.md lists them)",
                            (int)n, arg,
                            op != NULL ? op : "any kvgold operator");
    if (strlen(eq + 1) >= KVG_SCAN_VALUE_MAX)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--attr", -1, -1,
                            "--attr %s: the value is longer than %d bytes",
                            name, KVG_SCAN_VALUE_MAX - 1);
    kvg_diag_clear(&jd);
    if (kvg_json_parse(eq + 1, strlen(eq + 1), name, &doc, &jd) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--attr", -1, -1,
                            "--attr %s: %s is not a JSON value (write it as "
                            "case.json does: 1e-06, true, '\"PA_NZ\"'): %s",
                            name, eq + 1, jd.message);
    kvg_json_free(doc);
    return KVG_OK;
}

kvg_status kvg_scan_set_attr(kvg_scan_bound *b, const char *attr,
                             const char *json, kvg_diag *diag)
{
    int i;
    for (i = 0; i < b->n_attrs; i++)
        if (strcmp(b->attr[i], attr) == 0)
            break;
    if (i == KVG_SCAN_MAX_ARGS || strlen(attr) >= KVG_SCAN_NAME_MAX ||
        strlen(json) >= KVG_SCAN_VALUE_MAX)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, attr, -1, -1,
                            "%s: value too long", attr);
    /* attr or json may be this very slot's text (a value rewritten in
     * place, framework_values): copy the name only into a new slot, the
     * value with memmove */
    if (i == b->n_attrs) {
        strcpy(b->attr[i], attr);
        b->n_attrs++;
    }
    memmove(b->value[i], json, strlen(json) + 1);
    return KVG_OK;
}

const char *kvg_scan_get_attr(const kvg_scan_bound *b, const char *attr)
{
    int i;
    for (i = 0; i < b->n_attrs; i++)
        if (strcmp(b->attr[i], attr) == 0)
            return b->value[i];
    return NULL;
}

const kvg_scan_arg *kvg_scan_bound_pre(const kvg_scan_bound *b,
                                       const char *name)
{
    int i;
    for (i = 0; i < b->n; i++)
        if (strcmp(b->name[i], name) == 0)
            return b->pre[i];
    return NULL;
}

const kvg_scan_arg *kvg_scan_param(const kvg_scan_call *c, const char *name)
{
    int i;
    for (i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].name, name) == 0)
            return &c->params[i];
    return NULL;
}

static int bound_index(kvg_scan_bound *b, const char *name)
{
    int i;
    for (i = 0; i < b->n; i++)
        if (strcmp(b->name[i], name) == 0)
            return i;
    if (b->n == KVG_SCAN_MAX_ARGS)
        return -1;
    b->name[b->n] = name;
    b->pre[b->n] = NULL;
    b->post[b->n] = NULL;
    b->post_where[b->n][0] = '\0';
    return b->n++;
}

/* More tensors than a bound call holds; the operators have fewer, so this
 * is a guard (it used to be a -1 with no reason). */
static kvg_status too_many_args(kvg_diag *diag)
{
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "", -1, -1,
                        "more than %d tensors", KVG_SCAN_MAX_ARGS);
}

/* Argument `a` of the call for map entry `entry` (a kvgold tensor name,
 * "=attr" or "-"). */
static kvg_status bind_input(kvg_scan_bound *b, const char *entry,
                             const kvg_scan_arg *a, kvg_diag *diag)
{
    int k;
    if (entry[0] == '-' || a->kind == KVG_SCAN_ABSENT ||
        a->kind == KVG_SCAN_NONE)
        return KVG_OK; /* None: the optional argument left out, its default */
    if (entry[0] == '=') {
        if (a->kind != KVG_SCAN_SCALAR)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, a->name, -1, -1,
                                "argument %s (%s): a tensor where the "
                                "operator takes a scalar",
                                a->name, entry + 1);
        if (kvg_scan_set_attr(b, entry + 1, a->value, NULL) != KVG_OK)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, a->name, -1, -1,
                                "argument %s: value too long", a->name);
        return KVG_OK;
    }
    if (a->kind != KVG_SCAN_TENSOR)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, a->name, -1, -1,
                            "argument %s (%s): a scalar (%s) where the "
                            "operator takes a tensor",
                            a->name, entry, a->value);
    if ((k = bound_index(b, entry)) < 0)
        return too_many_args(diag);
    b->pre[k] = a;
    return KVG_OK;
}

/* 1 if `name` is a kvgold option of the operator, 0 an attribute, -1
 * neither. */
static int is_option(const kvg_scan_opmap *m, const char *name)
{
    const kvg_op *op = kvg_op_find(kvg_scan_op(m));
    size_t i;
    for (i = 0; op != NULL && i < kvg_op_attr_count(op); i++)
        if (strcmp(kvg_op_attr_at(op, i)->name, name) == 0)
            return kvg_op_attr_at(op, i)->is_option;
    return -1;
}

/* How the call's format names its n-th output. */
static void output_name(const kvg_scan_call *c, int n, char *out, size_t cap)
{
    const char *p = strstr(c->out_pattern, "%d");
    if (p != NULL && strchr(p + 2, '%') == NULL &&
        strchr(c->out_pattern, '%') == p)
        (void)snprintf(out, cap, "%.*s%d%s", (int)(p - c->out_pattern),
                       c->out_pattern, n, p + 2);
    else
        (void)snprintf(out, cap, "output %d", n);
}

/* The call's inputs, by keyword or position, onto the signature's
 * entries. */
static kvg_status bind_inputs(const kvg_scan_call *c, const kvg_scan_opmap *m,
                              const kvg_scan_sig *s, kvg_scan_bound *b,
                              kvg_diag *diag)
{
    int i, n;

    for (i = 0; i < c->n_in; i++) {
        const char *entry = NULL;
        const kvg_scan_arg *a = &c->in[i];
        int j;
        if (a->name[0] != '\0' && s->kw != NULL)
            for (j = 0; s->kw[j] != NULL && s->kw[j + 1] != NULL; j += 2)
                if (strcmp(s->kw[j], a->name) == 0)
                    entry = s->kw[j + 1];
        if (entry == NULL) {
            for (n = 0; s->inputs[n] != NULL; n++)
                ;
            if (i >= n) {
                if (a->kind == KVG_SCAN_NONE || a->kind == KVG_SCAN_ABSENT)
                    continue;
                return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "", -1, -1,
                                    "the call has %d inputs, %s takes %d in "
                                    "%s", c->n_in, kvg_scan_op(m), n,
                                    kvg_scan_format_name(c->format));
            }
            entry = s->inputs[i];
        }
        KVG_TRY(bind_input(b, entry, a, diag));
    }
    return KVG_OK;
}

/* Where each output's post-call dump is, or how the format names it. */
static kvg_status bind_outputs(const kvg_scan_call *c, const kvg_scan_sig *s,
                               kvg_scan_bound *b, kvg_diag *diag)
{
    int n;

    for (n = 0; s->outputs[n] != NULL; n++) {
        int k;
        if (s->outputs[n][0] == '-')
            continue;
        if ((k = bound_index(b, s->outputs[n])) < 0)
            return too_many_args(diag);
        if (n < c->n_out && c->out[n].kind == KVG_SCAN_TENSOR) {
            b->post[k] = &c->out[n];
            (void)snprintf(b->post_where[k], sizeof b->post_where[k], "%s",
                           c->out[n].file);
        } else {
            output_name(c, n, b->post_where[k], sizeof b->post_where[k]);
        }
    }
    return KVG_OK;
}

/* Parameters the dump records under the operator's own attribute names
 * (a CANN dump's attrs). */
static kvg_status bind_params(const kvg_scan_call *c, const kvg_scan_opmap *m,
                              kvg_scan_bound *b, kvg_diag *diag)
{
    int i;

    for (i = 0; i < c->n_params; i++)
        if (c->params[i].kind == KVG_SCAN_SCALAR &&
            is_option(m, c->params[i].name) >= 0 &&
            kvg_scan_get_attr(b, c->params[i].name) == NULL &&
            kvg_scan_set_attr(b, c->params[i].name, c->params[i].value,
                              NULL) != KVG_OK)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID,
                                c->params[i].name, -1, -1,
                                "parameter %s: value too long",
                                c->params[i].name);
    return KVG_OK;
}

/* What framework_values' givers read: the dumped call and its binding. */
typedef struct given_ctx {
    const kvg_scan_call *c;
    const kvg_scan_bound *b;
} given_ctx;

/* A bound input's rank, -1 when the call gives none or an empty one. */
static int bound_rank(const void *ctx, const char *name)
{
    const kvg_scan_arg *a =
        kvg_scan_bound_pre(((const given_ctx *)ctx)->b, name);
    return a != NULL && a->rank > 0 ? a->rank : -1;
}

/* The dumped call's parameter `name` (ATB's), or NULL. */
static const char *dumped_param(const void *ctx, const char *name)
{
    const kvg_scan_arg *p = kvg_scan_param(((const given_ctx *)ctx)->c, name);
    return p != NULL ? p->value : NULL;
}

/* Whether a bound input is stored FRACTAL_NZ. */
static int bound_nz(const void *ctx, const char *name)
{
    const kvg_scan_arg *a =
        kvg_scan_bound_pre(((const given_ctx *)ctx)->b, name);
    return a != NULL && a->layout == KVG_SCAN_LAYOUT_NZ;
}

/* The dtype the dump records for bound output `name`. */
static kvg_dtype bound_out_dtype(const void *ctx, const char *name)
{
    const kvg_scan_bound *b = ((const given_ctx *)ctx)->b;
    int i;
    for (i = 0; i < b->n; i++)
        if (strcmp(b->name[i], name) == 0 && b->post[i] != NULL)
            return b->post[i]->dtype;
    return KVG_DTYPE_INVALID;
}

/* A framework attribute the dump records without its value (a scalar
 * read as null: msprobe's {} for an object it does not encode, such as
 * a torch.dtype under a keyword other than `dtype`) takes the value the
 * binding derives from what the dump does record, with out_dtype set;
 * one it derives none for stays null (valueless_left). */
static kvg_status recorded_without_value(const kvg_binding_call *f,
                                         const given_ctx *ctx,
                                         kvg_scan_bound *b, kvg_diag *diag)
{
    const kvg_call_given given = {.rank = bound_rank,
                                  .ctx = ctx,
                                  .param = dumped_param,
                                  .nz = bound_nz,
                                  .out_dtype = bound_out_dtype};
    int k;
    for (k = 0; k < b->n_attrs; k++) {
        const char *value;
        if (strcmp(b->value[k], "null") != 0 ||
            !kvg_binding_has(f->framework_attrs, b->attr[k]))
            continue;
        value = f->framework_value(&given, b->attr[k]);
        if (value != NULL)
            KVG_TRY(kvg_scan_set_attr(b, b->attr[k], value, diag));
    }
    return KVG_OK;
}

/* After --attr: a framework attribute still without a value makes the
 * call NOT JUDGED, never run with a guess. */
static kvg_status valueless_left(const kvg_scan_sig *s,
                                 const kvg_scan_bound *b, kvg_diag *diag)
{
    int k;
    for (k = 0; s->form != NULL && k < b->n_attrs; k++)
        if (strcmp(b->value[k], "null") == 0 &&
            kvg_binding_has(s->form->framework_attrs, b->attr[k]))
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, b->attr[k], -1, -1,
                "%s: the dump records it without a value (msprobe's {} for "
                "an object it does not encode, such as a torch.dtype) and "
                "the outputs it records do not tell it; give it with "
                "--attr %s=...",
                b->attr[k], b->attr[k]);
    return KVG_OK;
}

/* What the framework sets that the dumped call does not record by
 * kvgold's names (binding.h: framework_attrs): a torch_npu call ran with
 * torch_npu's defaults, not the operator's; an ATB call's mode is its
 * parameter or what its inputs imply. */
static kvg_status framework_values(const kvg_scan_call *c,
                                   const kvg_scan_sig *s, kvg_scan_bound *b,
                                   kvg_diag *diag)
{
    const kvg_binding_call *f = s->form;
    const given_ctx ctx = {c, b};
    const kvg_call_given given = {.rank = bound_rank,
                                  .ctx = &ctx,
                                  .param = dumped_param,
                                  .nz = bound_nz,
                                  .out_dtype = NULL};
    size_t i;
    int k;

    /* the framework's own spellings of values, as case.json writes them */
    for (k = 0; f != NULL && k < b->n_attrs; k++) {
        const char *mine = kvg_binding_from_framework(f, b->attr[k],
                                                      b->value[k]);
        if (mine != NULL)
            KVG_TRY(kvg_scan_set_attr(b, b->attr[k], mine, diag));
    }
    if (f == NULL || f->framework_attrs == NULL)
        return KVG_OK;
    KVG_TRY(recorded_without_value(f, &ctx, b, diag));
    for (i = 0; f->framework_attrs[i] != NULL; i++) {
        const char *attr = f->framework_attrs[i];
        const char *value = f->framework_value(&given, attr);
        if (value != NULL && kvg_scan_get_attr(b, attr) == NULL)
            KVG_TRY(kvg_scan_set_attr(b, attr, value, diag));
    }
    return KVG_OK;
}

kvg_status kvg_scan_bind(const kvg_scan_call *c, const kvg_scan_opmap *m,
                         const kvg_scan_sig *s, kvg_scan_bound *b,
                         kvg_diag *diag)
{
    memset(b, 0, sizeof *b);
    KVG_TRY(bind_inputs(c, m, s, b, diag));
    KVG_TRY(bind_outputs(c, s, b, diag));
    KVG_TRY(bind_params(c, m, b, diag));
    return framework_values(c, s, b, diag);
}

/* ---- loading ----------------------------------------------------------- */

static int file_index(const kvg_scan_files *f, const char *file)
{
    int k;
    for (k = 0; k < f->n; k++)
        if (strcmp(f->file[k], file) == 0)
            return k;
    return -1;
}

void kvg_scan_files_plan(kvg_scan_files *f, const kvg_scan_call *c)
{
    int i, k;

    memset(f, 0, sizeof *f);
    for (i = 0; i < c->n_in + c->n_out; i++) {
        const kvg_scan_arg *a = i < c->n_in ? &c->in[i] : &c->out[i - c->n_in];
        if (a->kind != KVG_SCAN_TENSOR)
            continue;
        if ((k = file_index(f, a->file)) < 0) {
            if (f->n == KVG_SCAN_MAX_FILES)
                continue; /* read, not mapped */
            k = f->n++;
            (void)snprintf(f->file[k], sizeof f->file[k], "%s", a->file);
        }
        f->used[k] = a->nbytes > UINT64_MAX - f->used[k]
                         ? UINT64_MAX
                         : f->used[k] + a->nbytes;
    }
}

void kvg_scan_files_close(kvg_scan_files *f)
{
    int k;
    for (k = 0; k < f->n; k++)
        kvg_file_unmap(&f->map[k]);
}

/* Map file k of the call whole, or leave it to be read (f->used[k] 0:
 * empty, or too big for the address space); a file that cannot be opened
 * or mapped is "unreadable: ...". */
static kvg_status map_file(kvg_scan_files *f, int k, const char *path,
                           kvg_diag *diag)
{
    struct stat sb;
    kvg_diag why;
    kvg_status st;
    void *base;
    int fd;

    kvg_diag_clear(&why);
    st = kvg_open_regular(path, f->file[k], &fd, &sb, &why);
    if (st == KVG_OK) {
        close(fd);
        st = kvg_region_map(path, f->file[k], 0, (uint64_t)sb.st_size,
                            KVG_MAP_READ, &f->map[k], &base, &why);
    }
    if (st == KVG_OK)
        return KVG_OK;
    if (st == KVG_ERR_PARAM_INVALID) {
        f->used[k] = 0; /* read its tensors, which says what is wrong */
        return KVG_OK;
    }
    return kvg_diag_set(diag, st, why.tensor, -1, -1, "%s%s",
                        st == KVG_ERR_IO ? "unreadable: " : "", why.message);
}

static kvg_status truncated(kvg_diag *diag, const char *path,
                            const kvg_scan_arg *a, uint64_t size)
{
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, a->file, -1, -1,
                        "%s: truncated: %llu bytes of data at offset %llu, "
                        "the file has %llu",
                        path, (unsigned long long)a->nbytes,
                        (unsigned long long)a->offset,
                        (unsigned long long)size);
}

/* Argument a as a view into the call's mapping of its file k. */
static kvg_status view_mapped(const kvg_scan_files *f, int k,
                              const char *path, const kvg_scan_arg *a,
                              kvg_tensor *out, kvg_file_map *map,
                              kvg_diag *diag)
{
    const kvg_file_map *m = &f->map[k];
    if ((uint64_t)m->len < a->offset ||
        (uint64_t)m->len - a->offset < a->nbytes)
        return truncated(diag, path, a, (uint64_t)m->len);
    *map = *m;
    map->borrowed = 1; /* the call's file table unmaps it */
    *out = kvg_tensor_make((unsigned char *)m->base + (size_t)a->offset,
                           (size_t)a->nbytes, a->dtype, a->rank, a->shape);
    return KVG_OK;
}

/* Argument a read from its open file into memory reserved in the ledger
 * (under `what`). */
static kvg_status read_tensor(int fd, uint64_t size, const char *path,
                              const char *what, const kvg_scan_arg *a,
                              kvg_tensor *out, kvg_diag *diag)
{
    void *buf;
    size_t got = 0;
    kvg_status st;

    if (size < a->offset || size - a->offset < a->nbytes)
        return truncated(diag, path, a, size);
    KVG_TRY(kvg_mem_reserve(a->nbytes, what, diag));
    buf = malloc(a->nbytes ? (size_t)a->nbytes : 1);
    st = buf == NULL ? kvg_diag_set(diag, KVG_ERR_NOMEM, a->file, -1, -1,
                                    "%s: out of memory", path)
                     : kvg_pread_full(fd, buf, (size_t)a->nbytes, a->offset,
                                      &got, path, a->file, diag);
    if (st == KVG_OK && (uint64_t)got != a->nbytes)
        st = kvg_diag_set(diag, KVG_ERR_IO, a->file, -1, -1,
                          "%s: shorter than its header says", path);
    if (st != KVG_OK) {
        free(buf);
        kvg_mem_release(a->nbytes);
        return st;
    }
    *out = kvg_tensor_make(buf, (size_t)a->nbytes, a->dtype, a->rank,
                           a->shape);
    return KVG_OK;
}

/* Argument a of a call in `dir`, mapped (its file mapped for the call
 * first when it is big) or read. */
static kvg_status open_at(const char *path, kvg_scan_files *f,
                          const kvg_scan_arg *a, kvg_tensor *out,
                          kvg_file_map *map, kvg_diag *diag)
{
    char what[KVG_SCAN_FILE_MAX + 32];
    struct stat sb;
    kvg_diag why;
    kvg_status st;
    int fd, k;

    (void)snprintf(what, sizeof what, "%s", a->file);
    k = file_index(f, a->file);
    if (k >= 0 && f->used[k] >= (uint64_t)KVG_TENSOR_MAP_MIN &&
        f->map[k].base == NULL)
        KVG_TRY(map_file(f, k, path, diag));
    if (k >= 0 && f->map[k].base != NULL)
        return view_mapped(f, k, path, a, out, map, diag);
    kvg_diag_clear(&why);
    if (kvg_open_regular(path, what, &fd, &sb, &why) != KVG_OK)
        return kvg_diag_set(diag, why.status, why.tensor, -1, -1,
                            "unreadable: %s", why.message);
    st = read_tensor(fd, (uint64_t)sb.st_size, path, what, a, out, diag);
    close(fd);
    return st;
}

/* An opened argument whose file holds one fp4 code a byte (a->fp4_codes)
 * replaced by a copy of its codes packed two a byte, reserved in the
 * ledger; the file's view is closed either way, the file never written. */
static kvg_status pack_codes(const kvg_scan_arg *a, kvg_tensor *t,
                             kvg_file_map *map, kvg_diag *diag)
{
    size_t n = t->nbytes / 2;
    unsigned char *buf = NULL;
    kvg_status st = kvg_mem_reserve(n, a->file, diag);

    if (st == KVG_OK) {
        buf = (unsigned char *)malloc(n ? n : 1);
        st = buf == NULL
                 ? kvg_diag_set(diag, KVG_ERR_NOMEM, a->file, -1, -1,
                                "%s: out of memory", a->file)
                 : kvg_scan_fp4_pack_codes((const unsigned char *)t->data,
                                           t->nbytes, buf, a->file, diag);
        if (st != KVG_OK) {
            free(buf);
            kvg_mem_release(n);
        }
    }
    kvg_scan_close(t, map);
    if (st != KVG_OK)
        return st;
    *t = kvg_tensor_make(buf, n, a->dtype, a->rank, a->shape);
    return KVG_OK;
}

/* As compare maps a case's big files: mapped pages are file pages the
 * kernel can drop and read again, not allocations, so nothing is
 * reserved for them; a read tensor is reserved first. Either way its
 * bytes are not copied twice, and a cache the golden updates is mapped
 * again privately by the case harness (kvg_case_set_add_cache), so only
 * the pages it writes are copied. */
kvg_status kvg_scan_open(const kvg_scan_call *c, kvg_scan_files *f,
                         const kvg_scan_arg *a, kvg_tensor *out,
                         kvg_file_map *map, kvg_diag *diag)
{
    kvg_status st;
    char *path;

    memset(out, 0, sizeof *out);
    memset(map, 0, sizeof *map);
    if (a->nbytes > SIZE_MAX - 1)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, a->file, -1, -1,
                            "%s: %llu bytes do not fit in memory", a->file,
                            (unsigned long long)a->nbytes);
    KVG_TRY(kvg_scan_no_link(c->dir, a->file, diag));
    if ((path = kvg_path_join(c->dir, a->file, NULL, diag)) == NULL)
        return KVG_ERR_NOMEM;
    st = open_at(path, f, a, out, map, diag);
    free(path);
    if (st == KVG_OK && a->fp4_codes)
        st = pack_codes(a, out, map, diag);
    return st;
}

void kvg_scan_close(kvg_tensor *t, kvg_file_map *map)
{
    if (map->base != NULL) {
        kvg_file_unmap(map);
    } else if (t->data != NULL) {
        free(t->data);
        kvg_mem_release(t->nbytes);
    }
    memset(t, 0, sizeof *t);
}

/* Append argument `a` as tensor `name` of set `s`, mapped or read. */
static kvg_status add_tensor(const kvg_scan_call *c, kvg_scan_files *f,
                             kvg_case_set *s, const char *name,
                             const kvg_scan_arg *a, kvg_diag *diag)
{
    kvg_case_tensor *item;

    if (s->count == KVG_CASE_MAX_TENSORS)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "too many tensors");
    item = &s->items[s->count];
    memset(item, 0, sizeof *item);
    KVG_TRY(kvg_scan_open(c, f, a, &item->t, &item->map, diag));
    s->count++; /* the case owns it now: kvg_case_set_free */
    (void)snprintf(item->name, sizeof item->name, "%s", name);
    (void)snprintf(item->file, sizeof item->file, "%s", a->file);
    return KVG_OK;
}

/* --attr NAME=JSON for the operators that have NAME. */
static kvg_status user_attrs(const kvg_scan_opmap *m, const kvg_scan_opts *o,
                             kvg_scan_bound *b, kvg_diag *diag)
{
    int i;
    for (i = 0; i < o->n_attrs; i++) {
        const char *eq = strchr(o->attrs[i], '=');
        char name[KVG_SCAN_NAME_MAX];
        if (eq == NULL || (size_t)(eq - o->attrs[i]) >= sizeof name)
            continue;
        memcpy(name, o->attrs[i], (size_t)(eq - o->attrs[i]));
        name[eq - o->attrs[i]] = '\0';
        if (is_option(m, name) < 0)
            continue;
        if (kvg_scan_set_attr(b, name, eq + 1, NULL) != KVG_OK)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--attr", -1, -1,
                                "--attr %s: too long", o->attrs[i]);
    }
    return KVG_OK;
}

/* The call as a case: op, attributes (JSON), the pre-call tensors. */
static kvg_status build_case(const kvg_scan_call *c, kvg_scan_files *f,
                             const kvg_scan_opmap *m, const kvg_scan_bound *b,
                             kvg_case *k, kvg_diag *diag)
{
    char text[KVG_SCAN_MAX_ARGS * (KVG_SCAN_NAME_MAX + KVG_SCAN_VALUE_MAX +
                                   8) + 32];
    kvg_diag jd;
    size_t used;
    int i, pass;

    memset(k, 0, sizeof *k);
    (void)snprintf(k->dir, sizeof k->dir, "%s", c->dir);
    (void)snprintf(k->op, sizeof k->op, "%s", kvg_scan_op(m));
    used = (size_t)snprintf(text, sizeof text, "{\"attrs\":{");
    for (pass = 0; pass < 2; pass++) {
        int first = 1;
        if (pass == 1 && used < sizeof text)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "},\"options\":{");
        for (i = 0; i < b->n_attrs && used < sizeof text; i++) {
            if (is_option(m, b->attr[i]) != pass)
                continue;
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "%s\"%s\":%s", first ? "" : ",",
                                     b->attr[i], b->value[i]);
            first = 0;
        }
    }
    if (used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "}}");
    if (used >= sizeof text)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "attributes", -1,
                            -1, "the attributes do not fit");
    if (kvg_json_parse(text, used, "attributes", &k->json, &jd) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "attributes", -1, -1,
                            "a dumped attribute is not a value: %s",
                            jd.message);
    k->attrs = kvg_json_get(k->json, "attrs");
    k->options = kvg_json_get(k->json, "options");
    for (i = 0; i < b->n; i++)
        if (b->pre[i] != NULL)
            KVG_TRY(add_tensor(c, f, &k->inputs, b->name[i], b->pre[i],
                               diag));
    return KVG_OK;
}

/* ---- judging ----------------------------------------------------------- */

static void geometry(char *out, size_t cap, kvg_dtype dt, int rank,
                     const int64_t *shape)
{
    size_t used = (size_t)snprintf(out, cap, "%s [", kvg_dtype_name(dt));
    int i;
    for (i = 0; i < rank && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%lld",
                                 i ? ", " : "", (long long)shape[i]);
    if (used < cap)
        (void)snprintf(out + used, cap - used, "]");
}

/*
 * 1 if a dumped uint8 tensor holds golden dtype g's codes: torch has no
 * dtype for hifloat8, packed fp4 or (before 2.7) E8M0, and torch_npu hands
 * such outputs back as torch.uint8 tensors of their bytes (a quantiser's
 * hif8 or fp4 payload, its E8M0 scales), which msprobe dumps as
 * "torch.uint8". The bytes are the codes; no value was converted.
 */
static int uint8_codes_of(kvg_dtype g, kvg_dtype dumped)
{
    return dumped == KVG_UINT8 &&
           (g == KVG_HIF8 || g == KVG_FP8_E4M3FN || g == KVG_FP8_E5M2 ||
            g == KVG_FP4_E2M1 || g == KVG_FP4_E1M2 || g == KVG_E8M0);
}

/* Why the post-call dump of golden output g cannot be compared with it,
 * or NULL. */
static const char *mismatch(const kvg_tensor *g, const kvg_scan_arg *a,
                            char *why, size_t cap)
{
    char want[128], got[128];
    int i, same = (g->dtype == a->dtype || uint8_codes_of(g->dtype, a->dtype)) &&
                  g->rank == a->rank;
    for (i = 0; same && i < g->rank; i++)
        same = g->shape[i] == a->shape[i];
    if (same)
        return NULL;
    geometry(want, sizeof want, g->dtype, g->rank, g->shape);
    geometry(got, sizeof got, a->dtype, a->rank, a->shape);
    (void)snprintf(why, cap, "%s is %s, the golden's %s", a->file, got, want);
    return why;
}

static const kvg_file_map *input_map(const kvg_case *k, const char *name)
{
    int i;
    for (i = 0; i < k->inputs.count; i++)
        if (strcmp(k->inputs.items[i].name, name) == 0)
            return &k->inputs.items[i].map;
    return NULL;
}

typedef struct judged {
    kvg_scan_files files; /* the call's mapped files, closed last */
    kvg_case_set gold;
    /* the golden's outputs, then the dumped outputs nobody judged, then
     * the in-place caches whose untouched bytes the format keeps from
     * being judged */
    kvg_compare_result res[2 * KVG_CASE_MAX_TENSORS + KVG_SCAN_MAX_ARGS];
    int n_extra;
    kvg_tensor npu[KVG_CASE_MAX_TENSORS];
    kvg_file_map npu_map[KVG_CASE_MAX_TENSORS];
    int loaded[KVG_CASE_MAX_TENSORS];
    kvg_case_views views[KVG_CASE_MAX_TENSORS];
    kvg_elem_run *runs[KVG_CASE_MAX_TENSORS];
    size_t run_count[KVG_CASE_MAX_TENSORS];
    kvg_cache_layout layout[KVG_CASE_MAX_TENSORS];
    int has_layout[KVG_CASE_MAX_TENSORS];
    int n;
} judged;

/*
 * Read-back's contradiction guard (docs/scan.md, "Read-back", rule 4): a
 * kernel writes at most what its call writes, so a tensor read back from
 * a later record that differs from the pre-call cache outside the written
 * elements in more of them than the call writes is another cache (another
 * layer's), not this call's: NOT JUDGED, never FAIL. Within the bound the
 * comparison stands, stray writes failing as they do. Counted in compare's
 * units: bytes of a packed row or a one-byte cache, codes of fp4, else
 * elements.
 */
static void not_this_cache(const kvg_scan_arg *post, kvg_compare_result *res)
{
    char why[KVG_SCAN_REASON_MAX];
    const char *unit = res->codes_per_element == 2 && !res->has_rows
                           ? "codes"
                       : res->has_rows || kvg_dtype_size(res->dtype) == 1
                           ? "bytes"
                           : "elements";
    char name[KVG_DIAG_NAME_MAX];
    kvg_dtype dt = res->dtype;

    if (res->verdict == KVG_VERDICT_NOT_JUDGED ||
        res->untouched_changed <= res->written)
        return;
    (void)snprintf(why, sizeof why,
                   "%s differs from the pre-call %s in %lld %s the call "
                   "does not write (it writes %lld): not this call's cache",
                   post->name, res->name, (long long)res->untouched_changed,
                   unit, (long long)res->written);
    (void)snprintf(name, sizeof name, "%s", res->name);
    (void)kvg_compare_result_not_judged(res, name, dt, why);
}

static void judge_output(const kvg_scan_call *c, const kvg_case *k,
                         const kvg_scan_bound *b, const kvg_scan_opts *o,
                         judged *j, int i)
{
    const kvg_case_tensor *g = &j->gold.items[i];
    kvg_compare_result *res = &j->res[i];
    const kvg_scan_arg *post = NULL;
    char why[KVG_SCAN_REASON_MAX];
    kvg_compare_role role = KVG_ROLE_DEFAULT;
    kvg_compare_args a;
    kvg_row_layout row_layout;
    kvg_case_byte_view bytes;
    kvg_diag diag;
    kvg_status st;
    int x;

    for (x = 0; x < b->n; x++)
        if (strcmp(b->name[x], g->name) == 0)
            break;
    if (x < b->n)
        post = b->post[x];
    if (post == NULL) {
        if (x < b->n)
            (void)snprintf(why, sizeof why, "missing: the dump has no "
                                            "post-call %s (%s)%s%s",
                           g->name, b->post_where[x],
                           c->read_back_why[0] ? "; " : "",
                           c->read_back_why);
        else
            (void)snprintf(why, sizeof why, "missing: the %s dump format "
                                            "has no post-call %s",
                           kvg_scan_format_name(c->format), g->name);
        (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype, why);
        return;
    }
    if (mismatch(&g->t, post, why, sizeof why) != NULL) {
        (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype, why);
        return;
    }
    kvg_diag_clear(&diag);
    if (kvg_scan_open(c, &j->files, post, &j->npu[i], &j->npu_map[i],
                      &diag) != KVG_OK) {
        /* a reason is cut where it always was */
        (void)snprintf(why, sizeof why, "%s", diag.message);
        (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype, why);
        return;
    }
    j->loaded[i] = 1;
    j->npu[i].dtype = g->t.dtype; /* uint8 codes read as their dtype's */
    if (kvg_case_find(&k->inputs, g->name) != NULL) {
        kvg_diag_clear(&diag);
        if (kvg_case_written_runs(k, &j->gold, g->name, &j->runs[i],
                                  &j->run_count[i], &diag) != KVG_OK) {
            (void)snprintf(why, sizeof why, "the written elements of %s "
                                            "could not be had: %s",
                           g->name, diag.message);
            (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype,
                                                why);
            return;
        }
    }
    (void)kvg_case_describe_output(k, g->name, &g->t, &role,
                                   &j->has_layout[i], &j->layout[i], NULL);
    if (kvg_case_row_layout_or_not_judged(k, g->name, g->t.dtype,
                                          &row_layout, res) != KVG_OK)
        return;
    kvg_compare_args_init(&a);
    a.row_layout = row_layout.segments > 0 ? &row_layout : NULL;
    /* a layout over two tensors: which one this is (op_call checked
     * that it names it) */
    a.row_tensor =
        a.row_layout ? kvg_row_tensor_of(&row_layout, g->name) : 0;
    a.name = g->name;
    a.golden = &g->t;
    a.actual = &j->npu[i];
    a.role = role;
    a.layout = j->has_layout[i] ? &j->layout[i] : NULL;
    a.standard = o->standard;
    if (j->runs[i] != NULL) {
        a.initial = kvg_case_find(&k->inputs, g->name);
        a.written_runs = j->runs[i];
        a.written_run_count = j->run_count[i];
        /* the untouched gaps' pages are given back as compared */
        kvg_case_views_attach(&j->views[i], &a, &g->map, &j->npu_map[i],
                              input_map(k, g->name), NULL);
    }
    kvg_diag_clear(&diag);
    if (kvg_case_rows_as_bytes(&a, &bytes, &diag) != KVG_OK) {
        (void)snprintf(why, sizeof why, "cannot compare: %s", diag.message);
        (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype, why);
        return;
    }
    st = kvg_compare_tensor(&a, res, &diag);
    kvg_case_byte_view_free(&bytes);
    if (st != KVG_OK && res->verdict != KVG_VERDICT_FAIL) {
        (void)snprintf(why, sizeof why, "cannot compare: %s", diag.message);
        (void)kvg_compare_result_not_judged(res, g->name, g->t.dtype, why);
    } else if (post->read_back && a.initial != NULL) {
        not_this_cache(post, res);
    }
}

/* A format that records a call's inputs after the call ran (the reader
 * says so: c->inputs_after) gives the golden in-place caches that already
 * hold the kernel's writes. Their written elements are judged as ever
 * (they do not depend on the old contents), but a stray write outside
 * them is in the "pre-call" cache too, so the untouched comparison could
 * not fail: each such cache's untouched bytes are NOT JUDGED, by a
 * result of their own, and the call is never PASS. A cache not compared
 * at all is NOT JUDGED already. */
static void untouched_unjudged(const kvg_scan_call *c, const kvg_case *k,
                               judged *j)
{
    char name[KVG_DIAG_NAME_MAX];
    int i;

    if (c->inputs_after == NULL)
        return;
    for (i = 0; i < j->n; i++) {
        const char *cache = j->gold.items[i].name;
        if (!j->loaded[i] || j->res[i].verdict == KVG_VERDICT_NOT_JUDGED ||
            kvg_case_find(&k->inputs, cache) == NULL)
            continue;
        (void)snprintf(name, sizeof name, "untouched bytes of %s", cache);
        (void)kvg_compare_result_not_judged(&j->res[j->n + j->n_extra], name,
                                            j->gold.items[i].t.dtype,
                                            c->inputs_after);
        j->n_extra++;
    }
}

/* 1 if dumped output n of call c is the post-call tensor of an output
 * the golden computed. */
static int output_judged(const kvg_scan_call *c, const kvg_scan_bound *b,
                         const judged *j, int n)
{
    int x;
    for (x = 0; x < b->n; x++)
        if (b->post[x] == &c->out[n] &&
            kvg_case_find(&j->gold, b->name[x]) != NULL)
            return 1;
    return 0;
}

/* Every output the dump holds is judged or said: the ones the golden does
 * not compute (an attribute the dump does not record that switches an
 * output off, left at kvgold's default; more
 * outputs than the operator has) are NOT JUDGED by name. */
static void unjudged_outputs(const kvg_scan_call *c, const kvg_scan_sig *s,
                             const kvg_scan_bound *b, judged *j)
{
    char why[KVG_SCAN_REASON_MAX], attrs[KVG_SCAN_REASON_MAX / 2];
    size_t used = 0;
    int n, k, n_sig;

    for (n_sig = 0; s->outputs[n_sig] != NULL; n_sig++)
        ;
    attrs[0] = '\0';
    for (k = 0; k < b->n_attrs && used < sizeof attrs; k++)
        used += (size_t)snprintf(attrs + used, sizeof attrs - used, "%s%s=%s",
                                 k ? ", " : "", b->attr[k], b->value[k]);
    for (n = 0; n < c->n_out; n++) {
        const kvg_scan_arg *a = &c->out[n];
        const char *name = n < n_sig ? s->outputs[n] : a->name;
        if (a->kind != KVG_SCAN_TENSOR || a->nbytes == 0 ||
            output_judged(c, b, j, n))
            continue;
        if (n >= n_sig)
            (void)snprintf(why, sizeof why, "the dump holds output %d (%s), "
                                            "and the operator has %d",
                           n, a->file, n_sig);
        else
            (void)snprintf(why, sizeof why, "the dump holds %s (%s), which "
                                            "the golden does not compute "
                                            "with the call's attributes "
                                            "(%s); one the dump does not "
                                            "record takes kvgold's default: "
                                            "give it with --attr",
                           name, a->file, attrs[0] ? attrs : "none");
        (void)kvg_compare_result_not_judged(&j->res[j->n + j->n_extra], name,
                                            a->dtype, why);
        j->n_extra++;
    }
}

static char *render(const kvg_compare_result *res, size_t n, int json)
{
    size_t len = 0;
    kvg_diag diag;
    char *buf;
    kvg_status st;

    st = json ? kvg_compare_report_json(res, n, NULL, 0, &len, &diag)
              : kvg_compare_report_text(res, n, NULL, 0, &len, &diag);
    if (st != KVG_OK || (buf = (char *)malloc(len + 1)) == NULL)
        return NULL;
    st = json ? kvg_compare_report_json(res, n, buf, len + 1, &len, &diag)
              : kvg_compare_report_text(res, n, buf, len + 1, &len, &diag);
    if (st != KVG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static kvg_status put_page(FILE *out, void *set, kvg_diag *diag)
{
    return kvg_report_html(out, (const kvg_report_set *)set, diag);
}

/* The call's own page: compare's HTML (cache maps, histograms). */
static void write_page(const kvg_scan_call *c, const kvg_case *k,
                       const judged *j, size_t index,
                       const kvg_scan_opts *o, kvg_scan_result *r)
{
    kvg_report_tensor t[KVG_CASE_MAX_TENSORS];
    const char *skipped[KVG_CASE_MAX_TENSORS + KVG_SCAN_MAX_ARGS];
    kvg_report_set set;
    char title[KVG_SCAN_DIR_MAX + 2 * KVG_SCAN_NAME_MAX + 8];
    kvg_outset *page = NULL;
    kvg_diag diag;
    int i, n = 0;

    memset(&set, 0, sizeof set);
    memset(t, 0, sizeof t);
    for (i = 0; i < j->n; i++) {
        if (!j->loaded[i] || j->res[i].verdict == KVG_VERDICT_NOT_JUDGED) {
            skipped[set.n_skipped++] = j->gold.items[i].name;
            continue;
        }
        t[n].result = &j->res[i];
        t[n].golden = &j->gold.items[i].t;
        t[n].actual = &j->npu[i];
        t[n].initial = j->runs[i] ? kvg_case_find(&k->inputs,
                                                  j->gold.items[i].name)
                                  : NULL;
        t[n].written_runs = j->runs[i];
        t[n].written_run_count = j->run_count[i];
        t[n].layout = j->has_layout[i] ? &j->layout[i] : NULL;
        n++;
    }
    for (i = 0; i < j->n_extra; i++)
        skipped[set.n_skipped++] = j->res[j->n + i].name;
    (void)snprintf(r->page, sizeof r->page, "call_%06lu.html",
                   (unsigned long)index);
    (void)snprintf(title, sizeof title, "%s (%s)", c->id, c->dir);
    set.case_dir = title;
    set.op = k->op;
    set.tensors = t;
    set.count = n;
    set.skipped = skipped;
    /* one file, all or nothing, as compare writes its reports */
    if (kvg_outset_begin(&page, o->html_dir, &diag) != KVG_OK ||
        kvg_outset_add_stream(page, r->page, put_page, &set, &diag) !=
            KVG_OK ||
        kvg_outset_commit(page, &diag) != KVG_OK)
        r->page[0] = '\0'; /* the index says the page is missing */
    kvg_outset_end(page);
}

static void not_judged(kvg_scan_result *r, const char *fmt, const char *a,
                       const char *b)
{
    r->verdict = KVG_VERDICT_NOT_JUDGED;
    (void)snprintf(r->reason, sizeof r->reason, fmt, a, b);
}

/* The call's verdict from its tensors': FAIL if one failed, else NOT
 * JUDGED if one was not judged, else PASS; the first failing (else
 * unjudged) tensor's reason says the call's. */
static void call_verdict(const judged *j, kvg_scan_result *r)
{
    int i;

    for (i = 0; i < j->n + j->n_extra; i++) {
        r->n_tensors++;
        if (j->res[i].verdict == KVG_VERDICT_FAIL)
            r->n_failed++;
        else if (j->res[i].verdict == KVG_VERDICT_NOT_JUDGED)
            r->n_not_judged++;
    }
    r->verdict = r->n_failed         ? KVG_VERDICT_FAIL
                 : r->n_not_judged ? KVG_VERDICT_NOT_JUDGED
                                   : KVG_VERDICT_PASS;
    for (i = 0; i < j->n + j->n_extra && r->verdict != KVG_VERDICT_PASS;
         i++)
        if (j->res[i].verdict == r->verdict) {
            (void)snprintf(r->reason, sizeof r->reason, "%s: %s",
                           j->res[i].name, j->res[i].reason);
            break;
        }
}

/* Release what judging the call held, the case and j itself. */
static void judged_free(judged *j, kvg_case *k)
{
    int i;

    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++) {
        kvg_case_runs_free(j->runs[i], j->run_count[i]);
        if (j->loaded[i])
            kvg_scan_close(&j->npu[i], &j->npu_map[i]);
    }
    kvg_case_set_free(&j->gold);
    kvg_case_free(k);
    kvg_scan_files_close(&j->files);
    free(j);
}

/* The bound call run as a case by the golden and each output compared
 * with its post-call dump. */
static void judge_bound(const kvg_scan_call *c, size_t index,
                        const kvg_scan_opts *o, const kvg_scan_opmap *m,
                        const kvg_scan_sig *sig, const kvg_scan_bound *b,
                        kvg_scan_result *r)
{
    judged *j;
    kvg_case k;
    kvg_diag diag;
    kvg_status st;
    int i;

    if ((j = (judged *)calloc(1, sizeof *j)) == NULL) {
        not_judged(r, "out of memory%s%s", "", "");
        return;
    }
    kvg_scan_files_plan(&j->files, c);
    kvg_diag_clear(&diag);
    if (build_case(c, &j->files, m, b, &k, &diag) != KVG_OK) {
        not_judged(r, "%s%s", diag.message, "");
        judged_free(j, &k);
        return;
    }
    kvg_diag_clear(&diag);
    if ((st = kvg_case_run(&k, &j->gold, &diag)) != KVG_OK) {
        r->verdict = KVG_VERDICT_NOT_JUDGED;
        (void)snprintf(r->reason, sizeof r->reason,
                       "the golden refused the call (status %d, %s): %s",
                       (int)st, diag.tensor[0] ? diag.tensor : "-",
                       diag.message);
        judged_free(j, &k);
        return;
    }
    j->n = j->gold.count;
    for (i = 0; i < j->n; i++)
        judge_output(c, &k, b, o, j, i);
    unjudged_outputs(c, sig, b, j);
    /* last: a call's reason is its first unjudged tensor's, and an
     * output to give with --attr says more than this */
    untouched_unjudged(c, &k, j);
    call_verdict(j, r);
    if (o->want_text)
        r->text = render(j->res, (size_t)(j->n + j->n_extra), 0);
    if (o->want_json)
        r->json = render(j->res, (size_t)(j->n + j->n_extra), 1);
    if (o->html_dir != NULL)
        write_page(c, &k, j, index, o, r);
    judged_free(j, &k);
}

void kvg_scan_judge(const kvg_scan_call *c, size_t index,
                    const kvg_scan_opts *o, kvg_scan_result *r)
{
    kvg_scan_sig sig;
    const kvg_scan_opmap *m = kvg_scan_find(c->api, c->format, &sig);
    kvg_scan_bound b;
    kvg_diag diag;

    memset(r, 0, sizeof *r);
    if (m != NULL)
        (void)snprintf(r->op, sizeof r->op, "%s", kvg_scan_op(m));
    if (c->unreadable[0] != '\0') {
        not_judged(r, "%s%s", c->unreadable, "");
        return;
    }
    if (m == NULL) {
        not_judged(r, "%s is no kvgold operator%s", c->api, "");
        return;
    }
    kvg_diag_clear(&diag);
    if (kvg_scan_bind(c, m, &sig, &b, &diag) != KVG_OK ||
        user_attrs(m, o, &b, &diag) != KVG_OK ||
        valueless_left(&sig, &b, &diag) != KVG_OK) {
        not_judged(r, "cannot map the call onto %s: %s", kvg_scan_op(m),
                   diag.message);
        return;
    }
    judge_bound(c, index, o, m, &sig, &b, r);
}

void kvg_scan_result_free(kvg_scan_result *r)
{
    free(r->text);
    free(r->json);
    r->text = r->json = NULL;
}
