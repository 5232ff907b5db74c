/*
 * tools/lib/scan/read_msprobe.c - msprobe dump directories.
 *
 * msprobe (Ascend/msprobe) writes a model step as step<N>/rank<R>/
 * dump.json plus dump_tensor_data/. dump.json's "data" object has one
 * member per API call, in call order, named "<api type>.<api name>.<n>.
 * forward" (e.g. "NPU.npu_<name>.0.forward"; a registered custom API's
 * prefix may hold dots, "torch.ops.custom.<name>.0.forward": qualified_of
 * and kvg_scan_pick_form tell its form), whose
 * "input_args" (positional), "input_kwargs" (by name) and "output" list
 * the arguments: a tensor is {"type": "torch.Tensor", "dtype":
 * "torch.float16", "shape": [...], "data_name": "<file>"}, a scalar
 * {"type": "float", "value": 1e-05}, a list of scalars an array of them,
 * None null. The tensor files are .pt (PyTorch: torch.save, read without
 * torch by read_pt.c) or .npy (MindSpore, and what the Python
 * kvgold.scan converts .pt files to), both read here header-first.
 *
 * dump.json is not read whole: it is mapped, the members of "data" are
 * found by a scanner that only matches brackets and strings, and each
 * call's member is parsed on its own (tools/lib/json), so a dump.json of any
 * size costs one call's JSON at a time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

#include "fileio.h"
#include "npy_map.h"
#include "binding.h"
#include "read_common.h"
#include "read_pt.h"

typedef struct span {
    const char *p, *end;
} span;

static void ws(span *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' ||
                             *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

/* Past a string starting at s->p ('"'); 0 if unterminated. */
static int skip_string(span *s)
{
    s->p++;
    while (s->p < s->end) {
        if (*s->p == '\\') {
            /* a backslash last in the text escapes nothing: stepping two
             * would put the pointer past one-past-the-end (UB) */
            if (s->end - s->p < 2)
                return 0;
            s->p += 2;
            continue;
        }
        if (*s->p++ == '"')
            return 1;
    }
    return 0;
}

/* Past one value (brackets matched, strings skipped): 1, or 0 if
 * malformed, -1 if nested deeper than KVG_JSON_MAX_DEPTH. */
static int skip_value(span *s)
{
    int depth = 0;
    ws(s);
    do {
        if (s->p >= s->end)
            return 0;
        if (*s->p == '"') {
            if (!skip_string(s))
                return 0;
            continue;
        }
        if (*s->p == '{' || *s->p == '[') {
            if (++depth > KVG_JSON_MAX_DEPTH)
                return -1;
        } else if (*s->p == '}' || *s->p == ']') {
            if (--depth < 0)
                return 0;
        } else if (depth == 0) {
            /* a scalar: up to the next delimiter */
            while (s->p < s->end && *s->p != ',' && *s->p != '}' &&
                   *s->p != ']' && *s->p != ' ' && *s->p != '\n')
                s->p++;
            return 1;
        }
        s->p++;
    } while (depth > 0);
    return 1;
}

static kvg_dtype dtype_of(const char *t)
{
    static const struct {
        const char *name;
        kvg_dtype dtype;
    } k[] = {{"float16", KVG_FP16},      {"half", KVG_FP16},
             {"bfloat16", KVG_BF16},     {"float32", KVG_FP32},
             {"float", KVG_FP32},        {"int8", KVG_INT8},
             {"int32", KVG_INT32},       {"int", KVG_INT32},
             {"int64", KVG_INT64},       {"long", KVG_INT64},
             {"float8_e4m3fn", KVG_FP8_E4M3FN},
             {"float8_e5m2", KVG_FP8_E5M2},
             {"hifloat8", KVG_HIF8},
             /* raw codes of a dtype torch lacks (torch_npu's hifloat8,
              * fp4 pairs, E8M0 scales): judged as the golden's dtype */
             {"uint8", KVG_UINT8},
             /* torch's MX types: the e8m0 scale, and fp4 packed two
              * codes a byte as kvgold's (its shape counts bytes) */
             {"float8_e8m0fnu", KVG_E8M0},
             {"float4_e2m1fn_x2", KVG_FP4_E2M1}};
    const char *dot = strrchr(t, '.');
    char low[32];
    size_t i;
    if (dot != NULL)
        t = dot + 1; /* torch.float16 */
    for (i = 0; i + 1 < sizeof low && t[i] != '\0'; i++)
        low[i] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] + 32 : t[i]);
    low[i] = '\0';
    for (i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(low, k[i].name) == 0)
            return k[i].dtype;
    return KVG_DTYPE_INVALID;
}

/* A scalar (or a list of scalars) as JSON text; 0 if it is not one. */
static int scalar_text(const kvg_json *v, char *out, size_t cap)
{
    const kvg_json *val;
    size_t used = 0;
    if (v->type == KVG_JSON_ARRAY) {
        const kvg_json *e;
        used = (size_t)snprintf(out, cap, "[");
        for (e = v->child; e != NULL && used < cap; e = e->next) {
            char one[KVG_SCAN_VALUE_MAX];
            if (!scalar_text(e, one, sizeof one))
                return 0;
            used += (size_t)snprintf(out + used, cap - used, "%s%s",
                                     e == v->child ? "" : ",", one);
        }
        if (used < cap)
            used += (size_t)snprintf(out + used, cap - used, "]");
        return used < cap;
    }
    if (v->type != KVG_JSON_OBJECT ||
        (val = kvg_json_get(v, "value")) == NULL)
        return 0;
    switch (val->type) {
    case KVG_JSON_NUMBER:
        return (size_t)snprintf(out, cap, "%s", val->text) < cap;
    case KVG_JSON_TRUE:
        return (size_t)snprintf(out, cap, "true") < cap;
    case KVG_JSON_FALSE:
        return (size_t)snprintf(out, cap, "false") < cap;
    case KVG_JSON_STRING: {
        size_t i, k = 0;
        out[k++] = '"';
        for (i = 0; val->text[i] != '\0' && k + 3 < cap; i++) {
            unsigned char c = (unsigned char)val->text[i];
            if (c == '"' || c == '\\')
                out[k++] = '\\';
            out[k++] = c < 0x20 ? '?' : (char)c;
        }
        out[k++] = '"';
        out[k] = '\0';
        return 1;
    }
    default:
        return 0;
    }
}

/* The call's member name in dump.json's "data". */
static const char *key_of(const kvg_scan_call *c)
{
    const char *colon = strrchr(c->id, ':');
    return colon != NULL ? colon + 1 : c->id;
}

/* A scalar argument (or list of them) whose value json.dump wrote as NaN
 * or Infinity. */
static int has_nonfinite(const kvg_json *v)
{
    const kvg_json *e;
    if (v->type == KVG_JSON_NONFINITE)
        return 1;
    if (v->type == KVG_JSON_OBJECT)
        return kvg_json_is(kvg_json_get(v, "value"), KVG_JSON_NONFINITE);
    if (v->type == KVG_JSON_ARRAY)
        for (e = v->child; e != NULL; e = e->next)
            if (has_nonfinite(e))
                return 1;
    return 0;
}

/* msprobe writes every argument as an object ({"type", "value"}, or {}
 * for one it does not encode), a list of such, or null; a bare JSON
 * number, string or boolean is no encoding of its, so it is refused
 * rather than read as "recorded without a value" (which lets the binding
 * derive the attribute from the outputs: a bare 999 would pass). */
static int msprobe_encoded(const kvg_json *v)
{
    const kvg_json *e;
    if (v->type == KVG_JSON_OBJECT || v->type == KVG_JSON_NULL)
        return 1;
    if (v->type != KVG_JSON_ARRAY)
        return 0;
    for (e = v->child; e != NULL; e = e->next)
        if (!msprobe_encoded(e))
            return 0;
    return 1;
}

/* One argument of a call from its JSON. */
static kvg_status arg_of(const char *dir, const char *key, const kvg_json *v,
                         const char *where, kvg_scan_arg *a, kvg_diag *diag)
{
    const kvg_json *type, *dt, *name, *shape, *e;
    memset(a, 0, sizeof *a);
    if (v == NULL || v->type == KVG_JSON_NULL) {
        a->kind = KVG_SCAN_NONE;
        return KVG_OK;
    }
    type = v->type == KVG_JSON_OBJECT ? kvg_json_get(v, "type") : NULL;
    if (type == NULL || type->type != KVG_JSON_STRING ||
        strstr(type->text, "Tensor") == NULL) {
        a->kind = KVG_SCAN_SCALAR;
        if (has_nonfinite(v))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, where, -1, -1,
                                "%s/dump.json: data.%s.%s: a NaN or infinite "
                                "argument (a statistic may be non-finite, an "
                                "argument is data)",
                                dir, key, where);
        if (!msprobe_encoded(v))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, where, -1, -1,
                                "%s/dump.json: data.%s.%s: a bare JSON value, "
                                "not msprobe's {\"type\": ..., \"value\": ...} "
                                "(nor a list of them)",
                                dir, key, where);
        if (!scalar_text(v, a->value, sizeof a->value))
            (void)snprintf(a->value, sizeof a->value, "null");
        return KVG_OK;
    }
    a->kind = KVG_SCAN_TENSOR;
    dt = kvg_json_get(v, "dtype");
    name = kvg_json_get(v, "data_name");
    shape = kvg_json_get(v, "shape");
    if (dt == NULL || dt->type != KVG_JSON_STRING ||
        (a->dtype = dtype_of(dt->text)) == KVG_DTYPE_INVALID)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, "dtype", -1, -1,
            "%s/dump.json: data.%s.%s.dtype: %s", dir, key, where,
            dt && dt->type == KVG_JSON_STRING ? "not a dtype kvgold reads"
                                              : "missing");
    if (shape == NULL || shape->type != KVG_JSON_ARRAY)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                            "%s/dump.json: data.%s.%s.shape: missing", dir,
                            key, where);
    for (e = shape->child; e != NULL; e = e->next) {
        int64_t d;
        if (a->rank == KVG_MAX_RANK || kvg_json_int64(e, &d, NULL) != KVG_OK ||
            d < 0)
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                "%s/dump.json: data.%s.%s.shape: not a list of "
                "at most %d non-negative integers",
                dir, key, where, KVG_MAX_RANK);
        a->shape[a->rank++] = d;
    }
    if (name == NULL || name->type != KVG_JSON_STRING ||
        strchr(name->text, '/') != NULL || name->text[0] == '.')
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data_name", -1, -1,
                            "%s/dump.json: data.%s.%s.data_name: %s", dir,
                            key, where,
                            name ? "not a plain file name"
                                 : "missing (a "
                                   "statistics-only dump has no tensors)");
    (void)snprintf(a->name, sizeof a->name, "%s", where);
    (void)snprintf(a->file, sizeof a->file, "dump_tensor_data/%s",
                   name->text);
    return KVG_OK;
}

/* The files behind the call's tensors: .npy and .pt read header-first
 * (dump.json's dtype wins for one-byte codes in a .pt). */
static kvg_status files_of(const char *dir, kvg_scan_arg *a, int n,
                           kvg_diag *diag)
{
    int i;
    for (i = 0; i < n; i++) {
        size_t len = strlen(a[i].file);
        int64_t want[KVG_MAX_RANK];
        int rank = a[i].rank, k;
        if (a[i].kind != KVG_SCAN_TENSOR)
            continue;
        memcpy(want, a[i].shape, sizeof want);
        KVG_TRY(len > 3 && strcmp(a[i].file + len - 3, ".pt") == 0
                    ? kvg_scan_pt_tensor(dir, a[i].file, 0, &a[i], diag)
                    : kvg_scan_npy_arg(dir, a[i].file, a[i].dtype, &a[i],
                                       diag));
        for (k = 0; k < rank && a[i].rank == rank; k++)
            if (want[k] != a[i].shape[k])
                break;
        if (a[i].rank != rank || k != rank)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "shape", -1, -1,
                                "%s/%s: its shape is not dump.json's for %s",
                                dir, a[i].file, a[i].name);
    }
    return KVG_OK;
}

static kvg_status call_of(kvg_scan_call *c, const kvg_json *v,
                          int read_files, kvg_diag *diag)
{
    const kvg_json *args = kvg_json_get(v, "input_args");
    const kvg_json *kw = kvg_json_get(v, "input_kwargs");
    const kvg_json *out = kvg_json_get(v, "output");
    const kvg_json *e;
    char where[KVG_SCAN_NAME_MAX];
    kvg_status st;

    if (v->type != KVG_JSON_OBJECT || args == NULL ||
        args->type != KVG_JSON_ARRAY)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "input_args", -1, -1,
                            "%s/dump.json: data.%s.input_args: missing",
                            c->dir, key_of(c));
    for (e = args->child; e != NULL; e = e->next) {
        if (c->n_in == KVG_SCAN_MAX_ARGS)
            break;
        (void)snprintf(where, sizeof where, "input_args[%d]", c->n_in);
        KVG_TRY(arg_of(c->dir, key_of(c), e, where, &c->in[c->n_in], diag));
        c->in[c->n_in++].name[0] = '\0'; /* positional */
    }
    for (e = kw != NULL && kw->type == KVG_JSON_OBJECT ? kw->child : NULL;
         e != NULL && c->n_in < KVG_SCAN_MAX_ARGS; e = e->next) {
        (void)snprintf(where, sizeof where, "input_kwargs.%s", e->key);
        KVG_TRY(arg_of(c->dir, key_of(c), e, where, &c->in[c->n_in], diag));
        (void)snprintf(c->in[c->n_in++].name, KVG_SCAN_NAME_MAX, "%s",
                       e->key);
    }
    if (out != NULL && out->type == KVG_JSON_OBJECT) {
        /* a single output */
        KVG_TRY(arg_of(c->dir, key_of(c), out, "output", &c->out[0], diag));
        c->n_out = 1;
    }
    for (e = out != NULL && out->type == KVG_JSON_ARRAY ? out->child : NULL;
         e != NULL && c->n_out < KVG_SCAN_MAX_ARGS; e = e->next) {
        (void)snprintf(where, sizeof where, "output[%d]", c->n_out);
        KVG_TRY(arg_of(c->dir, key_of(c), e, where, &c->out[c->n_out], diag));
        c->n_out++;
    }
    if (!read_files)
        return KVG_OK;
    if ((st = files_of(c->dir, c->in, c->n_in, diag)) != KVG_OK ||
        c->unreadable[0] != '\0')
        return st;
    return files_of(c->dir, c->out, c->n_out, diag);
}

/* ---- other records' inputs, for read-back (readback.c) ---------------- */

/* The dtypes and shapes of the tensor inputs of the calls listed from
 * this dump.json so far: another record's input of one of them may be a
 * cache as the next call reads it, and is kept; the others are not. A
 * growing table: a step's kvgold calls repeat a few shapes layer after
 * layer. */
typedef struct geometry {
    kvg_dtype dtype;
    int rank;
    int64_t shape[KVG_MAX_RANK];
} geometry;

typedef struct wanted {
    geometry *geo;
    size_t n, cap;
} wanted;

static int is_wanted(const wanted *w, const kvg_scan_arg *a)
{
    size_t i;
    for (i = 0; i < w->n; i++)
        if (kvg_scan_same_geometry(w->geo[i].dtype, w->geo[i].rank,
                                   w->geo[i].shape, a))
            return 1;
    return 0;
}

/* The tensor inputs of listed call c, as wanted geometries. */
static kvg_status want_inputs(wanted *w, const kvg_scan_call *c,
                              kvg_diag *diag)
{
    int i;
    for (i = 0; i < c->n_in; i++) {
        const kvg_scan_arg *a = &c->in[i];
        if (a->kind != KVG_SCAN_TENSOR || a->rank == 0 || is_wanted(w, a))
            continue;
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 16;
            geometry *p = (geometry *)realloc(w->geo, cap * sizeof *p);
            if (p == NULL)
                return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                                    "out of memory keeping %lu shapes",
                                    (unsigned long)w->n);
            w->geo = p;
            w->cap = cap;
        }
        w->geo[w->n].dtype = a->dtype;
        w->geo[w->n].rank = a->rank;
        memcpy(w->geo[w->n].shape, a->shape, sizeof a->shape);
        w->n++;
    }
    return KVG_OK;
}

/* Input v of record `id` (where: "input_args[1]") onto l->later when it
 * is a tensor of a wanted geometry; one whose file cannot be had is kept
 * saying why (it may be the cache). */
static kvg_status later_arg(kvg_scan_list *l, const wanted *w,
                            const char *id, const char *dir, const char *key,
                            const kvg_json *v, const char *where,
                            int read_files, kvg_diag *diag)
{
    const kvg_json *type =
        v->type == KVG_JSON_OBJECT ? kvg_json_get(v, "type") : NULL;
    kvg_scan_later *k;
    kvg_scan_arg a;
    kvg_diag ad;
    kvg_status st;

    if (type == NULL || type->type != KVG_JSON_STRING ||
        strstr(type->text, "Tensor") == NULL)
        return KVG_OK;
    kvg_diag_clear(&ad);
    st = arg_of(dir, key, v, where, &a, &ad);
    /* a dtype kvgold reads not, or no shape: no cache of a kvgold call */
    if ((st != KVG_OK && strcmp(ad.tensor, "data_name") != 0) ||
        !is_wanted(w, &a))
        return KVG_OK;
    if ((k = kvg_scan_list_later(l, diag)) == NULL)
        return KVG_ERR_NOMEM;
    (void)snprintf(k->id, sizeof k->id, "%s", id);
    (void)snprintf(k->dir, sizeof k->dir, "%s", dir);
    k->arg = a;
    if (st == KVG_OK && read_files) {
        kvg_diag_clear(&ad);
        st = files_of(dir, &k->arg, 1, &ad);
    }
    if (st != KVG_OK)
        (void)snprintf(k->unreadable, sizeof k->unreadable, "%s", ad.message);
    return KVG_OK;
}

/* The members of list or tensor v: a list's in order, as where[j]. */
static kvg_status later_args(kvg_scan_list *l, const wanted *w,
                             const char *id, const char *dir, const char *key,
                             const kvg_json *v, const char *where,
                             int read_files, kvg_diag *diag)
{
    char in[KVG_SCAN_NAME_MAX];
    const kvg_json *e;
    int j = 0;
    if (v->type != KVG_JSON_ARRAY)
        return later_arg(l, w, id, dir, key, v, where, read_files, diag);
    for (e = v->child; e != NULL; e = e->next, j++) {
        (void)snprintf(in, sizeof in, "%.40s[%d]", where, j);
        KVG_TRY(later_arg(l, w, id, dir, key, e, in, read_files, diag));
    }
    return KVG_OK;
}

/* Record `key` (its value v), no listed call, after a listed one: its
 * inputs of a wanted geometry onto l->later (args, then kwargs, a list's
 * members in order); a record that cannot be parsed is kept as such (it
 * may be the one that reads the cache). */
static kvg_status keep_later(kvg_scan_list *l, const wanted *w,
                             const char *key, span v, const char *dir,
                             const char *rel, int read_files, kvg_diag *diag)
{
    char id[2 * KVG_SCAN_NAME_MAX], where[KVG_SCAN_NAME_MAX];
    const kvg_json *args, *kw, *e;
    kvg_scan_later *k;
    kvg_json *doc;
    kvg_diag jd;
    kvg_status st = KVG_OK;
    int i = 0;

    if (w->n == 0)
        return KVG_OK;
    (void)snprintf(id, sizeof id, "%s%s%s", rel, rel[0] ? ":" : "", key);
    if (kvg_json_parse_with(v.p, (size_t)(v.end - v.p), key,
                            KVG_JSON_ALLOW_NONFINITE, &doc, &jd) != KVG_OK) {
        if ((k = kvg_scan_list_later(l, diag)) == NULL)
            return KVG_ERR_NOMEM;
        (void)snprintf(k->id, sizeof k->id, "%s", id);
        (void)snprintf(k->dir, sizeof k->dir, "%s", dir);
        (void)snprintf(k->unreadable, sizeof k->unreadable,
                       "%s/dump.json: %s", dir, jd.message);
        return KVG_OK;
    }
    args = kvg_json_get(doc, "input_args");
    kw = kvg_json_get(doc, "input_kwargs");
    for (e = kvg_json_is(args, KVG_JSON_ARRAY) ? args->child : NULL;
         e != NULL && st == KVG_OK; e = e->next, i++) {
        (void)snprintf(where, sizeof where, "input_args[%d]", i);
        st = later_args(l, w, id, dir, key, e, where, read_files, diag);
    }
    for (e = kvg_json_is(kw, KVG_JSON_OBJECT) ? kw->child : NULL;
         e != NULL && st == KVG_OK; e = e->next) {
        (void)snprintf(where, sizeof where, "input_kwargs.%.40s", e->key);
        st = later_args(l, w, id, dir, key, e, where, read_files, diag);
    }
    kvg_json_free(doc);
    return st;
}

/* "NPU.npu_<name>.0.forward" -> "npu_<name>" (the second component);
 * "" when it is not a forward call. */
static int api_of(const char *key, char *out, size_t cap)
{
    const char *a = strchr(key, '.'), *b;
    size_t n = strlen(key);
    if (a == NULL || n < 8 || strcmp(key + n - 8, ".forward") != 0)
        return 0;
    b = strchr(a + 1, '.');
    if (b == NULL || (size_t)(b - a - 1) >= cap)
        return 0;
    memcpy(out, a + 1, (size_t)(b - a - 1));
    out[b - a - 1] = '\0';
    return 1;
}

/* The record's API as msprobe names it, prefix included: the key without
 * ".<n>.forward" ("torch.ops.custom.<name>.0.forward" ->
 * "torch.ops.custom.<name>"). msprobe's key is "<api prefix>.<api
 * name>.<n>.forward" and register_custom_api's prefix, by default the
 * module's __name__, keeps its dots (xiaobingling93-pixel/Ascend-mstt
 * @99c2e0f9 debug/accuracy_tools/msprobe/core/debugger/
 * precision_debugger.py:106-108, pytorch/hook_module/api_register.py:187,
 * core/hook_manager.py:174); 0 when it does not fit. */
static int qualified_of(const char *key, char *out, size_t cap)
{
    size_t n = strlen(key);
    const char *count;
    if (n < 8 || strcmp(key + n - 8, ".forward") != 0)
        return 0;
    n -= 8;
    count = key + n;
    while (count > key && count[-1] >= '0' && count[-1] <= '9')
        count--;
    if (count == key + n || count == key || count[-1] != '.' ||
        (size_t)(count - 1 - key) >= cap)
        return 0;
    memcpy(out, key, (size_t)(count - 1 - key));
    out[count - 1 - key] = '\0';
    return 1;
}

/* The top level's members up to "data", the others skipped unparsed (a
 * statistics dump's are large); s is left past the '{' of data's value. */
static kvg_status find_data(span *s, const char *path, kvg_diag *diag)
{
    int found = 0, depth;

    ws(s);
    if (s->p >= s->end || *s->p != '{')
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: not a JSON object", path);
    s->p++;
    while (!found) {
        const char *k;
        ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            ws(s);
        }
        if (s->p >= s->end || *s->p != '"')
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                                "%s: no \"data\" object", path);
        k = s->p;
        if (!skip_string(s))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                                "%s: an unterminated string", path);
        found = s->p - k == 6 && memcmp(k, "\"data\"", 6) == 0;
        ws(s);
        if (s->p >= s->end || *s->p != ':')
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                                "%s: a key without ':'", path);
        s->p++;
        ws(s);
        if (found)
            break;
        if ((depth = skip_value(s)) < 0)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                                "%s: a member nested deeper than %d levels",
                                path, KVG_JSON_MAX_DEPTH);
        if (depth == 0)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                                "%s: malformed JSON", path);
    }
    if (s->p >= s->end || *s->p != '{')
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: \"data\" is not an object", path);
    s->p++;
    return KVG_OK;
}

/* The next member of "data": its key (cut to cap) and the span of its
 * value, s left past it; *more is 0 at data's closing '}'. `text` is the
 * document's start, for the byte offset of a malformed member. */
static kvg_status next_member(span *s, const char *text, const char *path,
                              char *key, size_t cap, span *value, int *more,
                              kvg_diag *diag)
{
    const char *k;
    int depth;

    *more = 0;
    ws(s);
    if (s->p < s->end && *s->p == '}')
        return KVG_OK;
    if (s->p < s->end && *s->p == ',') {
        s->p++;
        ws(s);
    }
    k = s->p;
    if (s->p >= s->end || *s->p != '"' || !skip_string(s))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: malformed \"data\" member at byte %ld", path,
                            (long)(k - text));
    (void)snprintf(key, cap, "%.*s", (int)(s->p - k - 2), k + 1);
    ws(s);
    if (s->p >= s->end || *s->p != ':')
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: data.%s: no ':'", path, key);
    s->p++;
    ws(s);
    value->p = s->p;
    if ((depth = skip_value(s)) < 0)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: data.%s: nested deeper than %d levels", path,
                            key, KVG_JSON_MAX_DEPTH);
    if (depth != 1)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                            "%s: data.%s: malformed JSON", path, key);
    value->end = s->p;
    *more = 1;
    return KVG_OK;
}

/* A record whose name `api` picks no msprobe form: 1 when its namespace
 * or the user's --attr picks one of the forms that share the name (api is
 * then that form's full API, "torch.ops.<ns>.<name>", which
 * kvg_scan_find maps to it); else 0, the record counted as another API's
 * or listed NOT JUDGED with the reason, *st the status. */
static int picked(kvg_scan_list *l, const wanted *w, const char *key, span v,
                  const char *dir, const char *rel, int read_files,
                  char *api, size_t cap, kvg_status *st, kvg_diag *diag)
{
    const char *op = kvg_scan_op_of_name(api);
    char id[2 * KVG_SCAN_NAME_MAX + 8], why[KVG_SCAN_REASON_MAX];
    char qualified[KVG_SCAN_NAME_MAX];
    const kvg_binding_call *form = NULL;
    int r = qualified_of(key, qualified, sizeof qualified)
                ? kvg_scan_pick_form(qualified, l->attrs, l->n_attrs, &form,
                                     why, sizeof why)
                : 0;

    if (r > 0) {
        (void)snprintf(api, cap, "%s", form->api);
        return 1;
    }
    (void)snprintf(id, sizeof id, "%s%s%s", rel, rel[0] ? ":" : "", key);
    if (r == 0 && op == NULL) {
        l->others++; /* another API: counted, read only for read-back */
        *st = keep_later(l, w, key, v, dir, rel, read_files, diag);
        return 0;
    }
    /* a kvgold operator's call whose form neither its name nor anything
     * else tells: listed NOT JUDGED, never counted as another operator's
     * (a verdict is never optimistic) */
    if (r == 0)
        (void)snprintf(why, sizeof why,
                       "%s is operator %s, but no call form of it is "
                       "picked by that name", api, op);
    *st = kvg_scan_list_unreadable(l, KVG_SCAN_MSPROBE, api, id, dir, why,
                                   diag);
    return 0;
}

/* The call `key` of "data" (its value v) onto l when it is the forward
 * call of an API kvgold judges; another API is only counted, a backward
 * call skipped. A value kvgold cannot read makes the call unreadable
 * (NOT JUDGED, with the reason), not the whole dump. */
static kvg_status add_call(kvg_scan_list *l, const wanted *w,
                           const char *key, span v, const char *dir,
                           const char *rel, int read_files, kvg_diag *diag)
{
    char api[KVG_SCAN_NAME_MAX];
    kvg_diag jd, cd; /* the call's own reasons: never the caller's diag */
    kvg_json *doc;
    kvg_scan_call *c;
    kvg_status st;
    int link;

    if (!api_of(key, api, sizeof api))
        return KVG_OK; /* a backward: not read */
    link = kvg_scan_find(api, KVG_SCAN_MSPROBE, NULL) == NULL &&
           kvg_scan_op_of_name(api) == NULL && kvg_scan_is_link(api);
    if (!link && kvg_scan_find(api, KVG_SCAN_MSPROBE, NULL) == NULL &&
        !picked(l, w, key, v, dir, rel, read_files, api, sizeof api, &st,
                diag))
        return st;
    if ((c = kvg_scan_list_push(l, diag)) == NULL)
        return KVG_ERR_NOMEM;
    c->format = KVG_SCAN_MSPROBE;
    (void)snprintf(c->api, sizeof c->api, "%s", api);
    (void)snprintf(c->id, sizeof c->id, "%s%s%s", rel, rel[0] ? ":" : "",
                   key);
    (void)snprintf(c->dir, sizeof c->dir, "%s", dir);
    (void)snprintf(c->out_pattern, sizeof c->out_pattern, "output[%%d]");
    /* json.dump writes NaN / Infinity for non-finite statistics */
    if (kvg_json_parse_with(v.p, (size_t)(v.end - v.p), key,
                            KVG_JSON_ALLOW_NONFINITE, &doc, &jd) != KVG_OK) {
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unreadable: %s/dump.json: %s", dir, jd.message);
        return KVG_OK;
    }
    kvg_diag_clear(&cd);
    if (call_of(c, doc, read_files, &cd) != KVG_OK)
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "unreadable: %s", cd.message);
    kvg_json_free(doc);
    /* a call of a composite's chain (npu_rms_norm of a latent...) stays
     * listed for kvg_scan_compose, and is counted among other operators'
     * calls; one of the same API that is no link is only counted */
    if (link && c->unreadable[0] == '\0' && !kvg_scan_link_keyed(c)) {
        l->count--;
        l->others++;
        return keep_later(l, w, key, v, dir, rel, read_files, diag);
    }
    return KVG_OK;
}

kvg_status kvg_scan_msprobe_text(const char *text, size_t len,
                                 const char *dir, const char *rel,
                                 int read_files, kvg_scan_list *l,
                                 kvg_diag *diag)
{
    const char *path = "dump.json";
    wanted w;
    kvg_status st;
    int more = 1;
    span s;

    s.p = text;
    s.end = text + len;
    memset(&w, 0, sizeof w);
    st = find_data(&s, path, diag);
    /* each call: its key, then its value parsed on its own */
    while (st == KVG_OK && more) {
        char key[2 * KVG_SCAN_NAME_MAX];
        span v;
        size_t listed = l->count;
        st = next_member(&s, text, path, key, sizeof key, &v, &more, diag);
        if (st == KVG_OK && more)
            st = add_call(l, &w, key, v, dir, rel, read_files, diag);
        if (st == KVG_OK && l->count > listed)
            st = want_inputs(&w, &l->calls[l->count - 1], diag);
    }
    free(w.geo);
    return st;
}

static kvg_status read_dump(const char *dir, const char *rel,
                            kvg_scan_list *l, kvg_diag *diag)
{
    char *path = kvg_path_join(dir, "dump.json", NULL, diag);
    struct stat sb;
    kvg_diag td; /* the text's reason, prefixed with the folder below */
    kvg_file_map map;
    void *text;
    kvg_status st;
    int fd;

    if (path == NULL)
        return KVG_ERR_NOMEM;
    if ((st = kvg_open_regular(path, "dump.json", &fd, &sb, diag)) !=
        KVG_OK) {
        free(path);
        return st;
    }
    close(fd);
    if (sb.st_size == 0) {
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "data", -1, -1,
                          "%s: empty", path);
        free(path);
        return st;
    }
    /* mapped as the tensors are: a file truncated meanwhile ends the
     * command naming it (kvg_map_guard_install), never a bare SIGBUS */
    if ((st = kvg_region_map(path, "dump.json", 0,
                             (uint64_t)sb.st_size, KVG_MAP_READ, &map,
                             &text, diag)) != KVG_OK) {
        free(path);
        return st;
    }
    kvg_diag_clear(&td);
    st = kvg_scan_msprobe_text((const char *)text, (size_t)sb.st_size, dir,
                               rel, 1, l, &td);
    if (st != KVG_OK)
        st = kvg_diag_set(diag, st, "dump.json", -1, -1, "%s/%s", dir,
                          td.message);
    kvg_file_unmap(&map);
    free(path);
    return st;
}

typedef struct ms_walk {
    kvg_scan_list *l;
} ms_walk;

static int visit(const char *dir, const char *rel, void *user,
                 kvg_diag *diag)
{
    ms_walk *w = (ms_walk *)user;
    char *json = kvg_path_join(dir, "dump.json", NULL, diag);
    char why[KVG_SCAN_REASON_MAX];
    struct stat sb;
    kvg_status st;

    if (json == NULL)
        return -1;
    if (lstat(json, &sb) != 0) {
        free(json);
        return 0; /* no dump.json here: look further down */
    }
    if (!S_ISREG(sb.st_mode)) {
        /* a rank's record of every call it made, unread: its calls are
         * not judged, and the scan says so */
        kvg_scan_odd_entry(json, "dump.json (a regular file)", why,
                           sizeof why);
        free(json);
        st = kvg_scan_list_unreadable(w->l, KVG_SCAN_MSPROBE, "?", rel, dir,
                                      why, diag);
        return st == KVG_OK ? 1 : -1;
    }
    free(json);
    return read_dump(dir, rel, w->l, diag) == KVG_OK ? 1 : -1;
}

/* A link to a directory below the root: it might be a step or a rank. */
static int link_entry(const char *path, const char *rel, void *user,
                      kvg_diag *diag)
{
    char why[KVG_SCAN_REASON_MAX];
    kvg_scan_odd_entry(path, NULL, why, sizeof why);
    return kvg_scan_list_unreadable(((ms_walk *)user)->l, KVG_SCAN_MSPROBE,
                                    "?", rel, path, why, diag) == KVG_OK
               ? 0
               : -1;
}

kvg_status kvg_scan_read_msprobe(const char *path, kvg_scan_list *l,
                                 kvg_diag *diag)
{
    ms_walk w;
    w.l = l;
    if (kvg_scan_kind(path, 0) != 1)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1,
                            "%s: not a directory (an msprobe dump is "
                            "step*/rank*/dump.json)",
                            path);
    return kvg_scan_walk_links(path, visit, link_entry, &w, diag);
}
