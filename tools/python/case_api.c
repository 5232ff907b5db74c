/*
 * tools/python/case_api.c - case directories for the Python package
 * through the command's own code (see case_api.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "fileio.h"
#include "json.h"
#include "outset.h"

struct kvg_py_case {
    kvg_case c;
    char *doc; /* the document, compact JSON */
};

/* Write value `v` (a tree the strict reader built, so at most
 * KVG_JSON_MAX_DEPTH deep) as JSON. */
static void write_value(FILE *out, const kvg_json *v)
{
    const kvg_json *it;

    switch (v->type) {
    case KVG_JSON_NULL: fputs("null", out); return;
    case KVG_JSON_FALSE: fputs("false", out); return;
    case KVG_JSON_TRUE: fputs("true", out); return;
    case KVG_JSON_NUMBER:
    case KVG_JSON_NONFINITE: /* never in a case.json: the reader is strict */
        fputs(v->text, out);
        return;
    case KVG_JSON_STRING: kvg_json_write_string(out, v->text); return;
    case KVG_JSON_ARRAY:
    case KVG_JSON_OBJECT:
        fputc(v->type == KVG_JSON_ARRAY ? '[' : '{', out);
        for (it = v->child; it != NULL; it = it->next) {
            if (it != v->child)
                fputc(',', out);
            if (v->type == KVG_JSON_OBJECT) {
                kvg_json_write_string(out, it->key);
                fputc(':', out);
            }
            write_value(out, it);
        }
        fputc(v->type == KVG_JSON_ARRAY ? ']' : '}', out);
        return;
    }
}

static char *document_text(const kvg_json *root)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        return NULL;
    write_value(out, root);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

kvg_status kvg_py_case_load(const char *dir, kvg_py_case **out,
                            kvg_diag *diag)
{
    kvg_py_case *pc;
    kvg_status st;

    if (out == NULL || dir == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "case", -1, -1,
                            "NULL case directory or result");
    *out = NULL;
    if ((pc = (kvg_py_case *)calloc(1, sizeof *pc)) == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "case", -1, -1,
                            "%s: out of memory", dir);
    if ((st = kvg_case_load(dir, &pc->c, diag)) != KVG_OK) {
        free(pc);
        return st;
    }
    /* What `check` refuses as an invalid case before running the
     * operator: attributes, options and names by the operator's tables.
     * A case with "expect_error" has those refusals compared with the
     * status it expects instead, so they do not make it invalid. */
    if (!pc->c.expect_error) {
        kvg_case_call *cc = (kvg_case_call *)malloc(sizeof *cc);
        if (cc == NULL)
            st = kvg_diag_set(diag, KVG_ERR_NOMEM, "case", -1, -1,
                              "%s: out of memory", dir);
        else
            st = kvg_case_call_build(&pc->c, cc, diag);
        free(cc);
    }
    if (st == KVG_OK && (pc->doc = document_text(pc->c.json)) == NULL)
        st = kvg_diag_set(diag, KVG_ERR_NOMEM, "case", -1, -1,
                          "%s: out of memory", dir);
    if (st != KVG_OK) {
        kvg_py_case_free(pc);
        return st;
    }
    *out = pc;
    return KVG_OK;
}

const char *kvg_py_case_doc(const kvg_py_case *c)
{
    return c != NULL ? c->doc : NULL;
}

static const kvg_case_set *set_of(const kvg_py_case *c, int expected)
{
    if (c == NULL)
        return NULL;
    return expected ? &c->c.expected : &c->c.inputs;
}

int kvg_py_case_count(const kvg_py_case *c, int expected)
{
    const kvg_case_set *s = set_of(c, expected);
    return s != NULL ? s->count : 0;
}

const char *kvg_py_case_name(const kvg_py_case *c, int expected, int i)
{
    const kvg_case_set *s = set_of(c, expected);
    return s != NULL && i >= 0 && i < s->count ? s->items[i].name : NULL;
}

const kvg_tensor *kvg_py_case_tensor(const kvg_py_case *c, int expected,
                                     int i)
{
    const kvg_case_set *s = set_of(c, expected);
    return s != NULL && i >= 0 && i < s->count ? &s->items[i].t : NULL;
}

void kvg_py_case_free(kvg_py_case *c)
{
    if (c == NULL)
        return;
    kvg_case_free(&c->c);
    free(c->doc);
    free(c);
}

kvg_status kvg_py_case_save(const char *dir, const char *json,
                            size_t json_len, const char *const *names,
                            const kvg_tensor *tensors, int count,
                            kvg_diag *diag)
{
    kvg_diag jd;
    kvg_outset *set = NULL;
    kvg_json *doc;
    kvg_status st;
    int i, is_object;

    if (dir == NULL || (count > 0 && (names == NULL || tensors == NULL)))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "case", -1, -1,
                            "NULL directory or tensors");
    /* A case.json the loader would refuse (a lone surrogate or \u0000 in
     * a comment, too deep, too long) is not written at all. */
    if (json != NULL) {
        if (kvg_json_parse(json, json_len, "case.json", &doc, &jd) != KVG_OK)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "case.json", -1,
                                -1,
                                "%s/%s (the case would not load; nothing was "
                                "written)", dir, jd.message);
        is_object = kvg_json_is(doc, KVG_JSON_OBJECT);
        kvg_json_free(doc);
        if (!is_object)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "case.json", -1,
                                -1,
                                "%s/case.json: the document must be a JSON "
                                "object", dir);
    }
    if ((st = kvg_outset_begin(&set, dir, diag)) != KVG_OK)
        return st;
    for (i = 0; st == KVG_OK && i < count; i++)
        st = kvg_outset_check(set, names[i], NULL, 0, diag);
    if (st == KVG_OK && json != NULL)
        st = kvg_outset_check(set, "case.json", NULL, 0, diag);
    for (i = 0; st == KVG_OK && i < count; i++)
        st = kvg_outset_add_npy(set, names[i], &tensors[i], diag);
    if (st == KVG_OK && json != NULL)
        st = kvg_outset_add_bytes(set, "case.json", json, json_len, diag);
    if (st == KVG_OK)
        st = kvg_outset_commit(set, diag);
    kvg_outset_end(set);
    return st;
}
