/*
 * tools/case/case.c - case.json loading with strict checks.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kvgold/npy.h"
#include "kvgold/options.h"

static const char *const k_top_keys[] = {"op",      "comment", "flags",
                                         "attrs",   "options", "inputs",
                                         "expected", "expect_error", NULL};

static kvg_status failf(kvg_diag *diag, kvg_status st, const char *field,
                        const char *fmt, ...)
{
    va_list ap;
    if (diag == NULL)
        return st;
    kvg_diag_clear(diag);
    diag->status = st;
    if (field != NULL) {
        strncpy(diag->tensor, field, sizeof diag->tensor - 1);
        diag->tensor[sizeof diag->tensor - 1] = '\0';
    }
    va_start(ap, fmt);
    (void)vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return st;
}

static int in_list(const char *name, const char *const *list)
{
    for (; list != NULL && *list != NULL; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

static char *read_text(const char *path, kvg_diag *diag, kvg_status *st)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, got;

    if (f == NULL) {
        *st = failf(diag, KVG_ERR_IO, "case.json", "%s: cannot open", path);
        return NULL;
    }
    do {
        if (len + 4096 + 1 > cap) {
            char *nb;
            cap = cap ? cap * 2 : 8192;
            nb = (char *)realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                *st = failf(diag, KVG_ERR_NOMEM, "case.json",
                            "%s: out of memory", path);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got != 0);
    fclose(f);
    buf[len] = '\0';
    *st = KVG_OK;
    return buf;
}

void kvg_case_set_free(kvg_case_set *set)
{
    int i;
    for (i = 0; i < set->count; i++)
        free(set->items[i].t.data);
    set->count = 0;
}

const kvg_tensor *kvg_case_find(const kvg_case_set *set, const char *name)
{
    int i;
    for (i = 0; i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i].t;
    return NULL;
}

kvg_tensor *kvg_case_set_add(kvg_case_set *set, const char *name,
                             kvg_dtype dtype, int rank, const int64_t *shape,
                             const kvg_tensor *src, kvg_diag *diag)
{
    kvg_case_tensor *item;
    size_t bytes;
    int i;

    if (set->count == KVG_CASE_MAX_TENSORS) {
        failf(diag, KVG_ERR_PARAM_INVALID, name, "too many tensors (max %d)",
              KVG_CASE_MAX_TENSORS);
        return NULL;
    }
    item = &set->items[set->count];
    memset(item, 0, sizeof *item);
    strncpy(item->name, name, sizeof item->name - 1);
    if (src != NULL) {
        item->t = *src;
        bytes = src->nbytes;
    } else {
        bytes = kvg_dtype_size(dtype);
        for (i = 0; i < rank; i++)
            bytes *= (size_t)shape[i];
        item->t = kvg_tensor_make(NULL, bytes, dtype, rank, shape);
    }
    item->t.data = calloc(bytes ? bytes : 1, 1);
    if (item->t.data == NULL) {
        failf(diag, KVG_ERR_NOMEM, name, "%s: out of memory (%lu bytes)", name,
              (unsigned long)bytes);
        return NULL;
    }
    if (src != NULL && bytes != 0)
        memcpy(item->t.data, src->data, bytes);
    set->count++;
    return &item->t;
}

static kvg_status load_tensors(kvg_case *c, const char *section,
                               kvg_case_set *set, kvg_diag *diag)
{
    static const char *const entry_keys[] = {"file", "dtype", NULL};
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(c->json, section);
    const cJSON *it;

    if (obj == NULL)
        return KVG_OK;
    if (!cJSON_IsObject(obj))
        return failf(diag, KVG_ERR_FILE_FORMAT, section,
                     "%s/case.json: \"%s\" must be an object", c->dir,
                     section);
    cJSON_ArrayForEach(it, obj)
    {
        const cJSON *file, *dt, *k;
        char path[2 * KVG_CASE_PATH_MAX + 2];
        kvg_case_tensor *item;
        kvg_dtype dtype;
        kvg_status st;

        if (!cJSON_IsObject(it))
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: %s.%s must be {\"file\", \"dtype\"}",
                         c->dir, section, it->string);
        cJSON_ArrayForEach(k, it)
        {
            if (!in_list(k->string, entry_keys))
                return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                             "%s/case.json: %s.%s: unknown key \"%s\"",
                             c->dir, section, it->string, k->string);
        }
        file = cJSON_GetObjectItemCaseSensitive(it, "file");
        dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
        if (!cJSON_IsString(file) || !cJSON_IsString(dt))
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: %s.%s needs string \"file\" and "
                         "\"dtype\"", c->dir, section, it->string);
        dtype = kvg_dtype_from_name(dt->valuestring);
        if (dtype == KVG_DTYPE_INVALID)
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: %s.%s: unknown dtype tag \"%s\"",
                         c->dir, section, it->string, dt->valuestring);
        if (kvg_case_find(set, it->string) != NULL)
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: %s.%s appears twice", c->dir, section,
                         it->string);
        if (strlen(it->string) >= KVG_CASE_NAME_MAX ||
            strlen(file->valuestring) >= KVG_CASE_PATH_MAX ||
            strchr(file->valuestring, '/') != NULL)
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: %s.%s: name or file too long, or the "
                         "file is not in the case directory", c->dir, section,
                         it->string);
        if (set->count == KVG_CASE_MAX_TENSORS)
            return failf(diag, KVG_ERR_FILE_FORMAT, it->string,
                         "%s/case.json: more than %d tensors in %s", c->dir,
                         KVG_CASE_MAX_TENSORS, section);
        item = &set->items[set->count];
        memset(item, 0, sizeof *item);
        strcpy(item->name, it->string);
        strcpy(item->file, file->valuestring);
        (void)snprintf(path, sizeof path, "%s/%s", c->dir, file->valuestring);
        st = kvg_npy_load(path, dtype, &item->t, diag);
        if (st != KVG_OK) {
            if (diag != NULL) {
                char msg[KVG_DIAG_MESSAGE_MAX];
                (void)snprintf(msg, sizeof msg, "%s.%s: %s", section,
                               it->string, diag->message);
                memcpy(diag->message, msg, sizeof msg);
                strncpy(diag->tensor, it->string, sizeof diag->tensor - 1);
            }
            return st;
        }
        set->count++;
    }
    return KVG_OK;
}

static kvg_status load_expect_error(kvg_case *c, kvg_diag *diag)
{
    static const char *const keys[] = {"status", "tensor", NULL};
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(c->json, "expect_error");
    const cJSON *st, *t, *k;

    if (e == NULL)
        return KVG_OK;
    if (!cJSON_IsObject(e))
        return failf(diag, KVG_ERR_FILE_FORMAT, "expect_error",
                     "%s/case.json: \"expect_error\" must be an object",
                     c->dir);
    cJSON_ArrayForEach(k, e)
    {
        if (!in_list(k->string, keys))
            return failf(diag, KVG_ERR_FILE_FORMAT, "expect_error",
                         "%s/case.json: expect_error: unknown key \"%s\"",
                         c->dir, k->string);
    }
    st = cJSON_GetObjectItemCaseSensitive(e, "status");
    t = cJSON_GetObjectItemCaseSensitive(e, "tensor");
    if (!cJSON_IsNumber(st) || (t != NULL && !cJSON_IsString(t)))
        return failf(diag, KVG_ERR_FILE_FORMAT, "expect_error",
                     "%s/case.json: expect_error needs a numeric \"status\" "
                     "and an optional string \"tensor\"", c->dir);
    c->expect_error = 1;
    c->expect_status = (kvg_status)st->valueint;
    if (t != NULL)
        strncpy(c->expect_tensor, t->valuestring, sizeof c->expect_tensor - 1);
    return KVG_OK;
}

void kvg_case_free(kvg_case *c)
{
    kvg_case_set_free(&c->inputs);
    kvg_case_set_free(&c->expected);
    cJSON_Delete(c->json);
    c->json = NULL;
    c->attrs = NULL;
    c->options = NULL;
}

/* "a, b, c": the registry's operator names. */
static void op_names(char *buf, size_t cap)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < kvg_op_count() && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s",
                                 i ? ", " : "", kvg_op_name(kvg_op_at(i)));
}

kvg_status kvg_case_load(const char *dir, kvg_case *c, kvg_diag *diag)
{
    char path[KVG_CASE_PATH_MAX + 16];
    const cJSON *op, *k;
    char *text;
    kvg_status st;

    memset(c, 0, sizeof *c);
    if (strlen(dir) >= sizeof c->dir)
        return failf(diag, KVG_ERR_PARAM_INVALID, "case", "case path too long");
    strcpy(c->dir, dir);
    (void)snprintf(path, sizeof path, "%s/case.json", dir);
    text = read_text(path, diag, &st);
    if (text == NULL)
        return st;
    c->json = cJSON_Parse(text);
    free(text);
    if (c->json == NULL || !cJSON_IsObject(c->json)) {
        kvg_case_free(c);
        return failf(diag, KVG_ERR_FILE_FORMAT, "case.json",
                     "%s: not a valid JSON object", path);
    }
    cJSON_ArrayForEach(k, c->json)
    {
        if (!in_list(k->string, k_top_keys)) {
            st = failf(diag, KVG_ERR_FILE_FORMAT, k->string,
                       "%s: unknown key \"%s\"", path, k->string);
            kvg_case_free(c);
            return st;
        }
    }
    op = cJSON_GetObjectItemCaseSensitive(c->json, "op");
    if (!cJSON_IsString(op) || kvg_op_find(op->valuestring) == NULL) {
        char ops[256];
        op_names(ops, sizeof ops);
        st = failf(diag, KVG_ERR_FILE_FORMAT, "op",
                   "%s: \"op\" must be one of %s", path, ops);
        kvg_case_free(c);
        return st;
    }
    strncpy(c->op, op->valuestring, sizeof c->op - 1);
    c->attrs = cJSON_GetObjectItemCaseSensitive(c->json, "attrs");
    c->options = cJSON_GetObjectItemCaseSensitive(c->json, "options");
    if ((c->attrs != NULL && !cJSON_IsObject(c->attrs)) ||
        (c->options != NULL && !cJSON_IsObject(c->options))) {
        st = failf(diag, KVG_ERR_FILE_FORMAT, "attrs",
                   "%s: \"attrs\" and \"options\" must be objects", path);
        kvg_case_free(c);
        return st;
    }
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c->json, "inputs"))) {
        st = failf(diag, KVG_ERR_FILE_FORMAT, "inputs",
                   "%s: \"inputs\" (an object) is required", path);
        kvg_case_free(c);
        return st;
    }
    st = load_tensors(c, "inputs", &c->inputs, diag);
    if (st == KVG_OK)
        st = load_tensors(c, "expected", &c->expected, diag);
    if (st == KVG_OK)
        st = load_expect_error(c, diag);
    if (st != KVG_OK)
        kvg_case_free(c);
    return st;
}

/* ---- attribute readers ------------------------------------------------ */

kvg_status kvg_case_check_keys(const kvg_case *c, const cJSON *obj,
                               const char *where, const char *const *allowed,
                               kvg_diag *diag)
{
    const cJSON *k;
    if (obj == NULL)
        return KVG_OK;
    cJSON_ArrayForEach(k, obj)
    {
        if (!in_list(k->string, allowed))
            return failf(diag, KVG_ERR_FILE_FORMAT, k->string,
                         "%s/case.json: %s: unknown key \"%s\" for op %s",
                         c->dir, where, k->string, c->op);
    }
    return KVG_OK;
}

/* A JSON number that is an integer in int64_t's range. The range test
 * comes first: converting a double outside it to int64_t is undefined. */
static int is_int64(double d)
{
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
           d == (double)(int64_t)d;
}

kvg_status kvg_case_get_ints(const kvg_case *c, const cJSON *obj,
                             const char *key, int required, int64_t *out,
                             int max, int *count, kvg_diag *diag)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    const cJSON *it;
    int n = 0;

    *count = 0;
    if (v == NULL) {
        if (required)
            return failf(diag, KVG_ERR_FILE_FORMAT, key,
                         "%s/case.json: attribute \"%s\" is required for %s",
                         c->dir, key, c->op);
        return KVG_OK;
    }
    if (cJSON_IsNumber(v)) {
        if (max < 1 || !is_int64(v->valuedouble))
            return failf(diag, KVG_ERR_FILE_FORMAT, key,
                         "%s/case.json: \"%s\" must be an integer", c->dir,
                         key);
        out[0] = (int64_t)v->valuedouble;
        *count = 1;
        return KVG_OK;
    }
    if (!cJSON_IsArray(v))
        return failf(diag, KVG_ERR_FILE_FORMAT, key,
                     "%s/case.json: \"%s\" must be an integer list", c->dir,
                     key);
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsNumber(it) || !is_int64(it->valuedouble))
            return failf(diag, KVG_ERR_FILE_FORMAT, key,
                         "%s/case.json: \"%s\" must hold integers", c->dir,
                         key);
        if (n == max)
            return failf(diag, KVG_ERR_FILE_FORMAT, key,
                         "%s/case.json: \"%s\" has more than %d entries",
                         c->dir, key, max);
        out[n++] = (int64_t)it->valuedouble;
    }
    *count = n;
    return KVG_OK;
}

kvg_status kvg_case_get_double(const kvg_case *c, const cJSON *obj,
                               const char *key, double dflt, double *out,
                               kvg_diag *diag)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (v == NULL) {
        *out = dflt;
        return KVG_OK;
    }
    if (!cJSON_IsNumber(v))
        return failf(diag, KVG_ERR_FILE_FORMAT, key,
                     "%s/case.json: \"%s\" must be a number", c->dir, key);
    *out = v->valuedouble;
    return KVG_OK;
}

kvg_status kvg_case_get_bool(const kvg_case *c, const cJSON *obj,
                             const char *key, int dflt, int *out,
                             kvg_diag *diag)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (v == NULL) {
        *out = dflt;
        return KVG_OK;
    }
    if (!cJSON_IsBool(v))
        return failf(diag, KVG_ERR_FILE_FORMAT, key,
                     "%s/case.json: \"%s\" must be true or false", c->dir, key);
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return KVG_OK;
}

kvg_status kvg_case_get_string(const kvg_case *c, const cJSON *obj,
                               const char *key, const char *dflt, char *out,
                               size_t cap, kvg_diag *diag)
{
    const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    const char *s = dflt;
    if (v != NULL) {
        if (!cJSON_IsString(v))
            return failf(diag, KVG_ERR_FILE_FORMAT, key,
                         "%s/case.json: \"%s\" must be a string", c->dir, key);
        s = v->valuestring;
    }
    if (s == NULL) {
        out[0] = '\0';
        return KVG_OK;
    }
    if (strlen(s) >= cap)
        return failf(diag, KVG_ERR_FILE_FORMAT, key,
                     "%s/case.json: \"%s\" is too long", c->dir, key);
    strcpy(out, s);
    return KVG_OK;
}

kvg_status kvg_case_get_reduce_order(const kvg_case *c, int *order,
                                     kvg_diag *diag)
{
    char name[32];
    kvg_reduce_order o = KVG_REDUCE_PAIRWISE;
    kvg_status st = kvg_case_get_string(c, c->options, "reduce_order",
                                        "pairwise", name, sizeof name, diag);
    if (st != KVG_OK)
        return st;
    if (!kvg_reduce_order_from_name(name, &o))
        return failf(diag, KVG_ERR_FILE_FORMAT, "reduce_order",
                     "%s/case.json: options.reduce_order \"%s\" is not "
                     "pairwise, sequential, double, a2 or npu950", c->dir,
                     name);
    *order = (int)o;
    return KVG_OK;
}

kvg_status kvg_case_check_names(const kvg_case *c, const char *const *inputs,
                                const char *const *required,
                                const char *const *outputs, kvg_diag *diag)
{
    int i;
    for (i = 0; i < c->inputs.count; i++)
        if (!in_list(c->inputs.items[i].name, inputs))
            return failf(diag, KVG_ERR_FILE_FORMAT, c->inputs.items[i].name,
                         "%s/case.json: inputs: \"%s\" is not an input of %s",
                         c->dir, c->inputs.items[i].name, c->op);
    for (i = 0; i < c->expected.count; i++)
        if (!in_list(c->expected.items[i].name, outputs))
            return failf(diag, KVG_ERR_FILE_FORMAT, c->expected.items[i].name,
                         "%s/case.json: expected: \"%s\" is not an output of "
                         "%s", c->dir, c->expected.items[i].name, c->op);
    for (; required != NULL && *required != NULL; required++)
        if (kvg_case_find(&c->inputs, *required) == NULL)
            return failf(diag, KVG_ERR_FILE_FORMAT, *required,
                         "%s/case.json: inputs: \"%s\" is required by %s",
                         c->dir, *required, c->op);
    return KVG_OK;
}

void *kvg_case_workspace(size_t size) { return malloc(size ? size : 1); }
