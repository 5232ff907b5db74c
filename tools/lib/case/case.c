/*
 * tools/lib/case/case.c - case.json loading with strict checks.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"

#include "kvgold/options.h"
#include "membudget.h"
#include "tensor_file.h"

static const char *const k_top_keys[] = {"op",      "comment", "flags",
                                         "attrs",   "options", "inputs",
                                         "expected", "expect_error", NULL};

/* A JSON value's kind for a message: "an array", "a string", "null"... */
static const char *a_kind(const kvg_json *v)
{
    switch (v->type) {
    case KVG_JSON_ARRAY: return "an array";
    case KVG_JSON_OBJECT: return "an object";
    case KVG_JSON_STRING: return "a string";
    case KVG_JSON_NUMBER: return "a number";
    default: return kvg_json_type_name(v->type); /* null, true, false */
    }
}

static int in_list(const char *name, const char *const *list)
{
    for (; list != NULL && *list != NULL; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

/* The whole file (at most KVG_JSON_MAX_BYTES + 1 bytes: one more is enough
 * for the parser to refuse it) into a fresh buffer. Only a regular file is
 * read (a FIFO would block, a device never end), and no more than its size
 * is allocated. */
static char *read_text(const char *path, size_t *len, kvg_diag *diag,
                       kvg_status *st)
{
    const uint64_t cap = (uint64_t)KVG_JSON_MAX_BYTES + 1;
    struct stat sb;
    uint64_t want;
    char *buf;
    size_t got;
    int fd;

    if ((*st = kvg_open_regular(path, "case.json", &fd, &sb, diag)) !=
        KVG_OK)
        return NULL;
    want = (uint64_t)sb.st_size < cap ? (uint64_t)sb.st_size : cap;
    buf = (char *)malloc((size_t)want + 1);
    if (buf == NULL) {
        close(fd);
        *st = kvg_diag_set(diag, KVG_ERR_NOMEM, "case.json", -1, -1,
                           "%s: out of memory", path);
        return NULL;
    }
    *st = kvg_pread_full(fd, buf, (size_t)want, 0, &got, path, "case.json",
                         diag);
    close(fd);
    if (*st != KVG_OK) {
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

void kvg_case_set_free(kvg_case_set *set)
{
    int i;
    for (i = 0; i < set->count; i++) {
        if (set->items[i].map.base != NULL) {
            /* the mapping itself is not reserved, its copied pages are */
            kvg_file_unmap(&set->items[i].map);
            kvg_mem_release(set->items[i].cow_reserved);
            set->items[i].cow_reserved = 0;
            continue;
        }
        if (set->items[i].t.data != NULL)
            kvg_mem_release(set->items[i].t.nbytes);
        free(set->items[i].t.data);
    }
    set->count = 0;
}

kvg_tensor *kvg_case_set_add_cache(kvg_case_set *set, const kvg_case *c,
                                   const char *name, kvg_diag *diag)
{
    const kvg_case_tensor *in = NULL;
    kvg_case_tensor *item;
    kvg_status st;
    char *path;
    int i;

    for (i = 0; i < c->inputs.count; i++)
        if (strcmp(c->inputs.items[i].name, name) == 0)
            in = &c->inputs.items[i];
    if (in == NULL)
        return NULL;
    /* mapped, and still viewing its mapping (compare's second golden
     * run swaps in inverted copies) */
    if (in->map.base == NULL || set->count == KVG_CASE_MAX_TENSORS ||
        (const unsigned char *)in->t.data < (unsigned char *)in->map.base ||
        (const unsigned char *)in->t.data >=
            (unsigned char *)in->map.base + in->map.len)
        return kvg_case_set_add(set, name, in->t.dtype, in->t.rank,
                                in->t.shape, &in->t, diag);
    item = &set->items[set->count];
    memset(item, 0, sizeof *item);
    strncpy(item->name, name, sizeof item->name - 1);
    strcpy(item->file, in->file);
    /* the same bytes of the same file, wherever in it they are (after a
     * .npy header, or a dump file's) */
    if ((path = kvg_path_join(c->dir, in->file, NULL, diag)) == NULL)
        return NULL;
    st = kvg_file_map_private(path, &in->map, &in->t, &item->t, &item->map,
                              diag);
    free(path);
    if (st != KVG_OK)
        return NULL;
    set->count++;
    return &item->t;
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
        kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                     "too many tensors (max %d)", KVG_CASE_MAX_TENSORS);
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
        for (i = 0; i < rank; i++) {
            if (shape[i] < 0 ||
                (shape[i] != 0 && bytes > SIZE_MAX / (uint64_t)shape[i])) {
                kvg_diag_set(
                    diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                    "%s: the output's shape (dim %d = %lld) has no valid "
                    "byte size",
                    name, i, (long long)shape[i]);
                return NULL;
            }
            bytes *= (size_t)shape[i];
        }
        item->t = kvg_tensor_make(NULL, bytes, dtype, rank, shape);
    }
    /* Outputs are sized by the case's shapes and attributes: reserve first,
     * so a case implying a huge output is refused, not OOM-killed. */
    if (kvg_mem_reserve(bytes, name, diag) != KVG_OK)
        return NULL;
    item->t.data = calloc(bytes ? bytes : 1, 1);
    if (item->t.data == NULL) {
        kvg_mem_release(bytes);
        kvg_diag_set(diag, KVG_ERR_NOMEM, name, -1, -1,
                     "%s: out of memory (%lu bytes)", name,
                     (unsigned long)bytes);
        return NULL;
    }
    if (src != NULL && bytes != 0)
        memcpy(item->t.data, src->data, bytes);
    set->count++;
    return &item->t;
}

/* Entry `it` of `section` checked before anything is kept: an object of
 * only "file", "dtype" and "shape", string file (*file_name) and dtype, a
 * known dtype tag (*dtype), a name and file that fit and stay in the case
 * directory, and room for one more in a set holding `count`. */
static kvg_status check_entry(const kvg_case *c, const char *section,
                              const kvg_json *it, int count,
                              const char **file_name, kvg_dtype *dtype,
                              kvg_diag *diag)
{
    static const char *const entry_keys[] = {"file", "dtype", "shape", NULL};
    const kvg_json *file, *dt, *k;

    if (!kvg_json_is(it, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
                            "%s/case.json:%d:%d: %s.%s must be {\"file\", "
                            "\"dtype\"}",
                            c->dir, it->line, it->col, section, it->key);
    for (k = it->child; k != NULL; k = k->next) {
        if (!in_list(k->key, entry_keys))
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
                "%s/case.json:%d:%d: %s.%s: unknown key \"%s\"", c->dir,
                k->key_line, k->key_col, section, it->key, k->key);
    }
    file = kvg_json_get(it, "file");
    dt = kvg_json_get(it, "dtype");
    if (!kvg_json_is(file, KVG_JSON_STRING) ||
        !kvg_json_is(dt, KVG_JSON_STRING))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
            "%s/case.json:%d:%d: %s.%s needs string \"file\" "
            "and \"dtype\"",
            c->dir, it->line, it->col, section, it->key);
    *dtype = kvg_dtype_from_name(dt->text);
    if (*dtype == KVG_DTYPE_INVALID)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
                            "%s/case.json:%d:%d: %s.%s: unknown dtype tag "
                            "\"%s\"",
                            c->dir, dt->line, dt->col, section, it->key,
                            dt->text);
    if (it->key_len >= KVG_CASE_NAME_MAX || file->len >= KVG_CASE_PATH_MAX ||
        strchr(file->text, '/') != NULL)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
            "%s/case.json:%d:%d: %s.%s: name or file too long, "
            "or the file is not in the case directory",
            c->dir, it->key_line, it->key_col, section, it->key);
    if (count == KVG_CASE_MAX_TENSORS)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, it->key, -1, -1,
            "%s/case.json:%d:%d: more than %d tensors in %s", c->dir,
            it->key_line, it->key_col, KVG_CASE_MAX_TENSORS, section);
    *file_name = file->text;
    return KVG_OK;
}

/* Checked entry `it` of `section` added to set, its file opened when
 * with_data; a file's refusal is prefixed "SECTION.NAME: " and names the
 * entry in diag->tensor. */
static kvg_status add_entry(kvg_case *c, const char *section,
                            const kvg_json *it, const char *file,
                            kvg_dtype dtype, kvg_case_set *set, int with_data,
                            size_t map_min, kvg_diag *diag)
{
    int64_t shape[KVG_MAX_RANK];
    int rank = -1;
    kvg_case_tensor *item;
    kvg_status st;

    if (kvg_json_get(it, "shape") != NULL)
        KVG_TRY(kvg_case_get_ints(c, it, "shape", 1, shape, KVG_MAX_RANK,
                                  &rank, diag));
    item = &set->items[set->count];
    memset(item, 0, sizeof *item);
    strcpy(item->name, it->key);
    strcpy(item->file, file);
    item->t.dtype = dtype;
    st = with_data ? kvg_tensor_file_open(c->dir, file, dtype, rank, shape,
                                          KVG_MAP_READ, map_min, &item->t,
                                          &item->map, diag)
                   : KVG_OK;
    if (st != KVG_OK) {
        if (diag != NULL) {
            char msg[KVG_DIAG_MESSAGE_MAX];
            (void)snprintf(msg, sizeof msg, "%s.%s: %s", section, it->key,
                           diag->message);
            memcpy(diag->message, msg, sizeof msg);
            strncpy(diag->tensor, it->key, sizeof diag->tensor - 1);
        }
        return st;
    }
    set->count++;
    return KVG_OK;
}

/* `with_data` 0: only the entries (name, file, dtype; no data read). */
static kvg_status load_tensors(kvg_case *c, const char *section,
                               kvg_case_set *set, int with_data,
                               size_t map_min, kvg_diag *diag)
{
    const kvg_json *obj = kvg_json_get(c->json, section);
    const kvg_json *it;

    if (obj == NULL)
        return KVG_OK;
    if (!kvg_json_is(obj, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, section, -1, -1,
                            "%s/case.json:%d:%d: \"%s\" must be an object",
                            c->dir, obj->line, obj->col, section);
    for (it = obj->child; it != NULL; it = it->next) {
        const char *file = NULL;
        kvg_dtype dtype = KVG_DTYPE_INVALID;
        KVG_TRY(check_entry(c, section, it, set->count, &file, &dtype, diag));
        KVG_TRY(add_entry(c, section, it, file, dtype, set, with_data,
                          map_min, diag));
    }
    return KVG_OK;
}

static kvg_status load_expect_error(kvg_case *c, kvg_diag *diag)
{
    static const char *const keys[] = {"status", "tensor", NULL};
    const kvg_json *e = kvg_json_get(c->json, "expect_error");
    const kvg_json *st, *t, *k;
    const char *why = NULL;
    kvg_diag jd;
    int64_t status = 0;

    if (e == NULL)
        return KVG_OK;
    if (!kvg_json_is(e, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "expect_error", -1, -1,
                            "%s/case.json:%d:%d: \"expect_error\" must be an "
                            "object",
                            c->dir, e->line, e->col);
    for (k = e->child; k != NULL; k = k->next) {
        if (!in_list(k->key, keys))
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, "expect_error", -1, -1,
                "%s/case.json:%d:%d: expect_error: unknown key "
                "\"%s\"",
                c->dir, k->key_line, k->key_col, k->key);
    }
    st = kvg_json_get(e, "status");
    t = kvg_json_get(e, "tensor");
    if (st == NULL || (t != NULL && !kvg_json_is(t, KVG_JSON_STRING)))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, "expect_error", -1, -1,
            "%s/case.json:%d:%d: expect_error needs an integer "
            "\"status\" and an optional string \"tensor\"",
            c->dir, e->line, e->col);
    if (!kvg_json_is(st, KVG_JSON_NUMBER))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, "expect_error", -1, -1,
            "%s/case.json:%d:%d: expect_error.status must be an "
            "integer, not %s",
            c->dir, st->line, st->col, a_kind(st));
    if (kvg_json_int64(st, &status, &jd) != KVG_OK)
        why = jd.message;
    /* Only a status an operator call returns can be expected: 0 (success)
     * or any other number would make check judge nothing and pass. */
    if (why == NULL && status != KVG_ERR_PARAM_NULLPTR &&
        status != KVG_ERR_PARAM_INVALID && status != KVG_ERR_WORKSPACE)
        why = "is not an error status an operator returns (161001 "
              "KVG_ERR_PARAM_NULLPTR, 161002 KVG_ERR_PARAM_INVALID or 170001 "
              "KVG_ERR_WORKSPACE); a case that must succeed lists "
              "\"expected\" instead";
    if (why != NULL)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, "expect_error", -1, -1,
            "%s/case.json:%d:%d: expect_error.status %.40s%s %s", c->dir,
            st->line, st->col, st->text, st->len > 40 ? "..." : "", why);
    c->expect_error = 1;
    c->expect_status = (kvg_status)status;
    if (t != NULL)
        strncpy(c->expect_tensor, t->text, sizeof c->expect_tensor - 1);
    return KVG_OK;
}

void kvg_case_free(kvg_case *c)
{
    kvg_case_set_free(&c->inputs);
    kvg_case_set_free(&c->expected);
    kvg_json_free(c->json);
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

/* Parse the text into c->json: a JSON object, or an error naming
 * dir/case.json:LINE:COL. */
static kvg_status parse_case_json(kvg_case *c, const char *text, size_t len,
                                  kvg_diag *diag)
{
    kvg_diag jd;
    if (kvg_json_parse(text, len, "case.json", &c->json, &jd) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "case.json", -1, -1,
                            "%s/%s", c->dir, jd.message);
    if (!kvg_json_is(c->json, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "case.json", -1, -1,
                            "%s/case.json:%d:%d: the document must be a JSON "
                            "object, not %s",
                            c->dir, c->json->line, c->json->col,
                            a_kind(c->json));
    return KVG_OK;
}

/* The top level: known keys, "op", "attrs", "options", "inputs". */
static kvg_status check_top(kvg_case *c, kvg_diag *diag)
{
    const kvg_json *op, *k, *inputs;

    for (k = c->json->child; k != NULL; k = k->next)
        if (!in_list(k->key, k_top_keys))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, k->key, -1, -1,
                                "%s/case.json:%d:%d: unknown key \"%s\"",
                                c->dir, k->key_line, k->key_col, k->key);
    op = kvg_json_get(c->json, "op");
    if (op == NULL)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "op", -1, -1,
                            "%s/case.json: \"op\" is required", c->dir);
    if (!kvg_json_is(op, KVG_JSON_STRING) || kvg_op_find(op->text) == NULL) {
        char ops[400]; /* 13 operators take 258 characters */
        op_names(ops, sizeof ops);
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "op", -1, -1,
                            "%s/case.json:%d:%d: \"op\" must be one of %s",
                            c->dir, op->line, op->col, ops);
    }
    strncpy(c->op, op->text, sizeof c->op - 1);
    c->attrs = kvg_json_get(c->json, "attrs");
    c->options = kvg_json_get(c->json, "options");
    if (c->attrs != NULL && !kvg_json_is(c->attrs, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "attrs", -1, -1,
                            "%s/case.json:%d:%d: \"attrs\" must be an object",
                            c->dir, c->attrs->line, c->attrs->col);
    if (c->options != NULL && !kvg_json_is(c->options, KVG_JSON_OBJECT))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, "options", -1, -1,
            "%s/case.json:%d:%d: \"options\" must be an object", c->dir,
            c->options->line, c->options->col);
    inputs = kvg_json_get(c->json, "inputs");
    if (!kvg_json_is(inputs, KVG_JSON_OBJECT))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "inputs", -1, -1,
                            "%s/case.json: \"inputs\" (an object) is required",
                            c->dir);
    return KVG_OK;
}

kvg_status kvg_case_load(const char *dir, kvg_case *c, kvg_diag *diag)
{
    return kvg_case_load_with(dir, c, 0u, diag);
}

kvg_status kvg_case_load_with(const char *dir, kvg_case *c, unsigned flags,
                              kvg_diag *diag)
{
    size_t map_min = (flags & KVG_CASE_MAP_ALL)   ? 0
                     : (flags & KVG_CASE_MAP_BIG) ? KVG_TENSOR_MAP_MIN
                                                  : (size_t)-1;
    char path[KVG_CASE_PATH_MAX + 16];
    size_t len = 0;
    char *text;
    kvg_status st;

    memset(c, 0, sizeof *c);
    if (strlen(dir) >= sizeof c->dir)
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, "case", -1, -1,
            "case directory path too long: %lu characters, at most "
            "%d (use a shorter or relative path)",
            (unsigned long)strlen(dir), KVG_CASE_PATH_MAX - 1);
    strcpy(c->dir, dir);
    (void)snprintf(path, sizeof path, "%s/case.json", dir);
    text = read_text(path, &len, diag, &st);
    if (text == NULL)
        return st;
    st = parse_case_json(c, text, len, diag);
    free(text);
    if (st == KVG_OK)
        st = check_top(c, diag);
    if (st == KVG_OK)
        st = load_tensors(c, "inputs", &c->inputs, 1, map_min, diag);
    if (st == KVG_OK)
        st = load_tensors(c, "expected", &c->expected,
                          (flags & KVG_CASE_NO_EXPECTED_DATA) == 0, map_min,
                          diag);
    if (st == KVG_OK)
        st = load_expect_error(c, diag);
    if (st != KVG_OK)
        kvg_case_free(c);
    return st;
}

/* ---- attribute readers ------------------------------------------------ */

kvg_status kvg_case_check_keys(const kvg_case *c, const kvg_json *obj,
                               const char *where, const char *const *allowed,
                               kvg_diag *diag)
{
    const kvg_json *k;
    if (obj == NULL)
        return KVG_OK;
    for (k = obj->child; k != NULL; k = k->next) {
        if (!in_list(k->key, allowed))
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, k->key, -1, -1,
                "%s/case.json:%d:%d: %s: unknown key \"%s\" for op "
                "%s",
                c->dir, k->key_line, k->key_col, where, k->key, c->op);
    }
    return KVG_OK;
}

/* One integer of an attribute, read exactly from its JSON text. */
static kvg_status read_int(const kvg_case *c, const kvg_json *v,
                           const char *key, int64_t *out, kvg_diag *diag)
{
    kvg_diag jd;
    const char *why = jd.message;
    if (kvg_json_int64(v, out, &jd) == KVG_OK)
        return KVG_OK;
    if (!kvg_json_is(v, KVG_JSON_NUMBER))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
            "%s/case.json:%d:%d: \"%s\" must hold integers, not %s", c->dir,
            v->line, v->col, key, a_kind(v));
    return kvg_diag_set(
        diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
        "%s/case.json:%d:%d: \"%s\" must hold integers: %.40s%s %s", c->dir,
        v->line, v->col, key, v->text, v->len > 40 ? "..." : "", why);
}

kvg_status kvg_case_get_ints(const kvg_case *c, const kvg_json *obj,
                             const char *key, int required, int64_t *out,
                             int max, int *count, kvg_diag *diag)
{
    const kvg_json *v = kvg_json_get(obj, key);
    const kvg_json *it;
    kvg_status st;
    int n = 0;

    *count = 0;
    if (v == NULL) {
        if (required)
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                "%s/case.json: attribute \"%s\" is required for %s", c->dir,
                key, c->op);
        return KVG_OK;
    }
    if (kvg_json_is(v, KVG_JSON_NUMBER)) {
        if (max < 1)
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                "%s/case.json:%d:%d: \"%s\" must be an integer "
                "list",
                c->dir, v->line, v->col, key);
        st = read_int(c, v, key, &out[0], diag);
        if (st == KVG_OK)
            *count = 1;
        return st;
    }
    if (!kvg_json_is(v, KVG_JSON_ARRAY))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
            "%s/case.json:%d:%d: \"%s\" must be an integer list", c->dir,
            v->line, v->col, key);
    for (it = v->child; it != NULL; it = it->next) {
        if (n == max)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                                "%s/case.json:%d:%d: \"%s\" has more than %d "
                                "entries",
                                c->dir, v->line, v->col, key, max);
        KVG_TRY(read_int(c, it, key, &out[n], diag));
        n++;
    }
    *count = n;
    return KVG_OK;
}

kvg_status kvg_case_get_double(const kvg_case *c, const kvg_json *obj,
                               const char *key, double dflt, double *out,
                               kvg_diag *diag)
{
    const kvg_json *v = kvg_json_get(obj, key);
    kvg_diag jd;
    if (v == NULL) {
        *out = dflt;
        return KVG_OK;
    }
    if (!kvg_json_is(v, KVG_JSON_NUMBER))
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
            "%s/case.json:%d:%d: \"%s\" must be a number, not %s", c->dir,
            v->line, v->col, key, a_kind(v));
    if (kvg_json_double(v, out, &jd) != KVG_OK)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                            "%s/case.json:%d:%d: \"%s\": %.40s%s %s", c->dir,
                            v->line, v->col, key, v->text,
                            v->len > 40 ? "..." : "", jd.message);
    return KVG_OK;
}

kvg_status kvg_case_get_bool(const kvg_case *c, const kvg_json *obj,
                             const char *key, int dflt, int *out,
                             kvg_diag *diag)
{
    const kvg_json *v = kvg_json_get(obj, key);
    if (v == NULL) {
        *out = dflt;
        return KVG_OK;
    }
    if (!kvg_json_is(v, KVG_JSON_TRUE) && !kvg_json_is(v, KVG_JSON_FALSE))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                            "%s/case.json:%d:%d: \"%s\" must be true or false",
                            c->dir, v->line, v->col, key);
    *out = kvg_json_is(v, KVG_JSON_TRUE);
    return KVG_OK;
}

kvg_status kvg_case_get_string(const kvg_case *c, const kvg_json *obj,
                               const char *key, const char *dflt, char *out,
                               size_t cap, kvg_diag *diag)
{
    const kvg_json *v = kvg_json_get(obj, key);
    const char *s = dflt;
    if (v != NULL) {
        if (!kvg_json_is(v, KVG_JSON_STRING))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
                                "%s/case.json:%d:%d: \"%s\" must be a string",
                                c->dir, v->line, v->col, key);
        s = v->text;
    }
    if (s == NULL) {
        out[0] = '\0';
        return KVG_OK;
    }
    if (strlen(s) >= cap && v != NULL)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, key, -1, -1,
            "%s/case.json:%d:%d: \"%s\" is too long (at most %lu "
            "bytes)",
            c->dir, v->line, v->col, key, (unsigned long)cap - 1);
    if (strlen(s) >= cap) /* a default longer than the caller's buffer */
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, key, -1, -1,
                            "%s/case.json: the default of \"%s\" is too long",
                            c->dir, key);
    strcpy(out, s);
    return KVG_OK;
}

kvg_status kvg_case_get_reduce_order(const kvg_case *c, int *order,
                                     kvg_diag *diag)
{
    char name[32];
    kvg_reduce_order o = KVG_REDUCE_PAIRWISE;
    KVG_TRY(kvg_case_get_string(c, c->options, "reduce_order", "pairwise",
                                name, sizeof name, diag));
    if (!kvg_reduce_order_from_name(name, &o))
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "reduce_order", -1, -1,
                            "%s/case.json: options.reduce_order \"%s\" is not "
                            "pairwise, sequential, double, a2 or npu950",
                            c->dir, name);
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
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, c->inputs.items[i].name, -1, -1,
                "%s/case.json: inputs: \"%s\" is not an input of %s", c->dir,
                c->inputs.items[i].name, c->op);
    for (i = 0; i < c->expected.count; i++)
        if (!in_list(c->expected.items[i].name, outputs))
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, c->expected.items[i].name, -1, -1,
                "%s/case.json: expected: \"%s\" is not an output of "
                "%s",
                c->dir, c->expected.items[i].name, c->op);
    for (; required != NULL && *required != NULL; required++)
        if (kvg_case_find(&c->inputs, *required) == NULL)
            return kvg_diag_set(
                diag, KVG_ERR_FILE_FORMAT, *required, -1, -1,
                "%s/case.json: inputs: \"%s\" is required by %s", c->dir,
                *required, c->op);
    return KVG_OK;
}

void *kvg_case_workspace(size_t size) { return malloc(size ? size : 1); }
