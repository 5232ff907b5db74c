/*
 * tests/fuzz/fuzz_json.c - the strict JSON reader (tools/lib/json) on arbitrary
 * bytes. A refusal must carry a "fuzz:LINE:COL: " message. An accepted
 * document must be what json.h promises: strings and keys NUL-free with
 * their lengths, child counts right, keys unique per object, numbers that
 * strtoll reads to the same int64 (or finds out of range, exactly when the
 * reader does), and a clone equal to the original.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void check_int64(const kvg_json *v)
{
    int64_t got;
    kvg_diag jd;
    const int bad = kvg_json_int64(v, &got, &jd) != KVG_OK;
    double d;
    long long ref;
    char *end;

    if (strpbrk(v->text, ".eE") != NULL) {
        if (!bad)
            abort(); /* a fraction or an exponent read as an integer */
    } else {
        errno = 0;
        ref = strtoll(v->text, &end, 10);
        if (*end != '\0')
            abort();
        if (errno == ERANGE ? !bad : (bad || got != ref))
            abort();
    }
    (void)kvg_json_double(v, &d, NULL);
}

static void check_value(const kvg_json *v);

static void check_object(const kvg_json *obj)
{
    const kvg_json *a, *b;
    for (a = obj->child; a != NULL; a = a->next) {
        if (a->key == NULL || strlen(a->key) != a->key_len)
            abort();
        for (b = a->next; b != NULL; b = b->next)
            if (strcmp(a->key, b->key) == 0)
                abort(); /* a duplicate key got through */
    }
}

static void check_value(const kvg_json *v)
{
    const kvg_json *c;
    size_t n = 0;
    for (c = v->child; c != NULL; c = c->next) {
        check_value(c);
        n++;
    }
    if (n != v->count)
        abort();
    if (v->type == KVG_JSON_OBJECT)
        check_object(v);
    if (v->type == KVG_JSON_STRING || v->type == KVG_JSON_NUMBER) {
        if (v->text == NULL || strlen(v->text) != v->len)
            abort();
    }
    if (v->type == KVG_JSON_NUMBER)
        check_int64(v);
}

static int same(const kvg_json *a, const kvg_json *b)
{
    for (; a != NULL && b != NULL; a = a->next, b = b->next) {
        if (a->type != b->type || a->count != b->count ||
            (a->key == NULL) != (b->key == NULL) ||
            (a->key != NULL && strcmp(a->key, b->key) != 0) ||
            (a->text == NULL) != (b->text == NULL) ||
            (a->text != NULL && strcmp(a->text, b->text) != 0) ||
            !same(a->child, b->child))
            return 0;
    }
    return a == NULL && b == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvg_diag d;
    /* a private copy, so ASan sees the exact extent of the input */
    char *copy = (char *)malloc(size ? size : 1);
    kvg_json *v, *c;
    kvg_status st;
    int line, col;

    if (copy == NULL)
        return 0;
    if (size)
        memcpy(copy, data, size);
    v = NULL;
    st = kvg_json_parse(copy, size, "fuzz", &v, &d);
    free(copy);
    if (st != KVG_OK) {
        if (v != NULL || d.status != st ||
            sscanf(d.message, "fuzz:%d:%d: ", &line, &col) != 2 ||
            line < 1 || col < 1)
            abort();
        return 0;
    }
    check_value(v);
    c = kvg_json_clone(v);
    if (c != NULL && !same(v, c))
        abort();
    kvg_json_free(c);
    kvg_json_free(v);
    return 0;
}
