/*
 * tests/test_case_json.c - the case loader's JSON readers (tools/lib/case,
 * kvg_case_*) on top of the strict reader: integers exact over the whole
 * int64 range, a fraction / exponent / out-of-range / wrongly typed value
 * refused naming the key and its DIR/case.json:LINE:COL, and
 * kvg_case_load refusing an invalid case.json with the
 * reader's position, or an unreadable one with the OS's reason.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "json.h"
#include "kvgold/op.h"

/* A case whose messages name directory "d" and op "qkv"; obj parsed from
 * text (one line, so positions are columns of line 1). */
static kvg_json *doc_of(kvg_case *c, const char *text)
{
    kvg_diag jd;
    kvg_json *v = NULL;
    memset(c, 0, sizeof *c);
    strcpy(c->dir, "d");
    strcpy(c->op, "qkv");
    if (kvg_json_parse(text, strlen(text), "case.json", &v, &jd) != KVG_OK)
        fail_msg("%s", jd.message);
    return v;
}

static void expect_fail(kvg_status st, const kvg_diag *d, const char *key,
                        const char *msg)
{
    assert_int_equal(st, KVG_ERR_FILE_FORMAT);
    assert_string_equal(d->tensor, key);
    assert_string_equal(d->message, msg);
}

static void test_get_ints(void **state)
{
    kvg_case c;
    kvg_json *o = doc_of(&c,
        "{\"a\": [9007199254740993, -9223372036854775808, "
        "9223372036854775807], \"b\": 7, \"c\": [1, 2.5], \"d\": [1e2], "
        "\"e\": [9223372036854775808], \"f\": [1, \"2\"], \"g\": \"x\", "
        "\"h\": [1, 2, 3], \"i\": 161002.9}");
    int64_t out[4];
    kvg_diag d;
    int n = -1;
    (void)state;
    kvgt_poison(out, sizeof out, 7);
    assert_int_equal(kvg_case_get_ints(&c, o, "a", 1, out, 3, &n, &d), KVG_OK);
    assert_int_equal(n, 3);
    assert_true(out[0] == (int64_t)9007199254740992 + 1);
    assert_true(out[1] == INT64_MIN);
    assert_true(out[2] == INT64_MAX);
    assert_int_equal(kvg_case_get_ints(&c, o, "b", 1, out, 3, &n, &d), KVG_OK);
    assert_int_equal(n, 1);
    assert_true(out[0] == 7);
    expect_fail(kvg_case_get_ints(&c, o, "c", 1, out, 3, &n, &d), &d, "c",
                "d/case.json:1:87: \"c\" must hold integers: 2.5 has a "
                "fraction");
    expect_fail(kvg_case_get_ints(&c, o, "d", 1, out, 3, &n, &d), &d, "d",
                "d/case.json:1:99: \"d\" must hold integers: 1e2 has an "
                "exponent");
    expect_fail(kvg_case_get_ints(&c, o, "e", 1, out, 3, &n, &d), &d, "e",
                "d/case.json:1:111: \"e\" must hold integers: "
                "9223372036854775808 is out of int64 range");
    expect_fail(kvg_case_get_ints(&c, o, "f", 1, out, 3, &n, &d), &d, "f",
                "d/case.json:1:142: \"f\" must hold integers, not a string");
    expect_fail(kvg_case_get_ints(&c, o, "g", 1, out, 3, &n, &d), &d, "g",
                "d/case.json:1:153: \"g\" must be an integer list");
    expect_fail(kvg_case_get_ints(&c, o, "h", 1, out, 2, &n, &d), &d, "h",
                "d/case.json:1:163: \"h\" has more than 2 entries");
    expect_fail(kvg_case_get_ints(&c, o, "i", 1, out, 2, &n, &d), &d, "i",
                "d/case.json:1:179: \"i\" must hold integers: 161002.9 has a "
                "fraction");
    expect_fail(kvg_case_get_ints(&c, o, "z", 1, out, 2, &n, &d), &d, "z",
                "d/case.json: attribute \"z\" is required for qkv");
    n = -1;
    assert_int_equal(kvg_case_get_ints(&c, o, "z", 0, out, 2, &n, &d), KVG_OK);
    assert_int_equal(n, 0);
    assert_int_equal(kvg_case_get_ints(&c, NULL, "z", 0, out, 2, &n, &d),
                     KVG_OK);
    kvg_json_free(o);
}

static void test_other_readers(void **state)
{
    kvg_case c;
    kvg_json *o = doc_of(&c, "{\"eps\": 9.999999974752427e-07, \"s\": \"x\", "
                             "\"t\": true, \"big\": 1e999, \"n\": 1}");
    static const char *const allowed[] = {"eps", "s", "t", "big", NULL};
    double x = 0;
    int b = -1;
    char buf[4];
    kvg_diag d;
    (void)state;
    assert_int_equal(kvg_case_get_double(&c, o, "eps", 0.5, &x, &d), KVG_OK);
    assert_true(x == 9.999999974752427e-07);
    assert_int_equal(kvg_case_get_double(&c, o, "none", 0.5, &x, &d), KVG_OK);
    assert_true(x == 0.5);
    expect_fail(kvg_case_get_double(&c, o, "s", 0.5, &x, &d), &d, "s",
                "d/case.json:1:37: \"s\" must be a number, not a string");
    expect_fail(kvg_case_get_double(&c, o, "big", 0.5, &x, &d), &d, "big",
                "d/case.json:1:60: \"big\": 1e999 is out of double range");
    {
        kvg_json *u = doc_of(&c, "{\"tiny\": 1e-400,\n \"t2\": -2.0e-324}");
        expect_fail(kvg_case_get_double(&c, u, "tiny", 0.5, &x, &d), &d,
                    "tiny", "d/case.json:1:10: \"tiny\": 1e-400 is out of "
                            "double range (it underflows to 0)");
        expect_fail(kvg_case_get_double(&c, u, "t2", 0.5, &x, &d), &d, "t2",
                    "d/case.json:2:8: \"t2\": -2.0e-324 is out of double "
                    "range (it underflows to 0)");
        kvg_json_free(u);
    }
    assert_int_equal(kvg_case_get_bool(&c, o, "t", 0, &b, &d), KVG_OK);
    assert_int_equal(b, 1);
    expect_fail(kvg_case_get_bool(&c, o, "n", 0, &b, &d), &d, "n",
                "d/case.json:1:72: \"n\" must be true or false");
    assert_int_equal(kvg_case_get_string(&c, o, "s", "dflt", buf, sizeof buf,
                                         &d), KVG_OK);
    assert_string_equal(buf, "x");
    expect_fail(kvg_case_get_string(&c, o, "t", "d", buf, sizeof buf, &d), &d,
                "t", "d/case.json:1:47: \"t\" must be a string");
    expect_fail(kvg_case_check_keys(&c, o, "attrs", allowed, &d), &d, "n",
                "d/case.json:1:67: attrs: unknown key \"n\" for op qkv");
    kvg_json_free(o);
}

/* ---- kvg_case_load on files ------------------------------------------- */

static char g_dir[64];

static void write_case_json(const char *text)
{
    char path[128];
    FILE *f;
    (void)snprintf(path, sizeof path, "%s/case.json", g_dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

static void load_refused(const char *text, kvg_status want, const char *msg)
{
    kvg_case c;
    kvg_diag d;
    char full[512];
    if (text != NULL)
        write_case_json(text);
    kvgt_poison(&c, sizeof c, 11);
    assert_int_equal(kvg_case_load(g_dir, &c, &d), want);
    (void)snprintf(full, sizeof full, "%s/%s", g_dir, msg);
    assert_string_equal(d.message, full);
    assert_null(c.json); /* freed */
    assert_int_equal(c.inputs.count, 0);
}

/* Every operator's case.json name in the registry's order, ", "-separated:
 * what a case with a bad "op" is told it must be. The list comes from the
 * registry so that adding an operator does not touch this file. */
static void registry_names(char *out, size_t size)
{
    size_t i, used = 0;
    assert_true(kvg_op_count() > 1); /* the separator is exercised */
    out[0] = '\0';
    for (i = 0; i < kvg_op_count(); i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "",
                         kvg_op_name(kvg_op_at(i)));
        assert_true(n > 0 && (size_t)n < size - used);
        used += (size_t)n;
    }
}

#define NOT_ERR                                                               \
    "is not an error status an operator returns (161001 "                     \
    "KVG_ERR_PARAM_NULLPTR, 161002 KVG_ERR_PARAM_INVALID or 170001 "          \
    "KVG_ERR_WORKSPACE); a case that must succeed lists \"expected\" instead"

/* `before`, the first registered operator's name, then `after`: a case.json
 * naming some operator (the loader checks that it is one) without this file
 * naming one. One static buffer: use the text before the next call. */
static const char *with_op(const char *before, const char *after)
{
    static char text[512];
    int n = snprintf(text, sizeof text, "%s%s%s", before,
                     kvg_op_name(kvg_op_at(0)), after);
    assert_true(n > 0 && (size_t)n < sizeof text);
    return text;
}

/* The column just past the operator's name in with_op("{\"op\": \"", ...),
 * plus `k`: the positions the messages give grow with the name. */
static size_t op_col(size_t k)
{
    return strlen("{\"op\": \"") + strlen(kvg_op_name(kvg_op_at(0))) + k;
}

static void test_load(void **state)
{
    char path[128], msg[512];
    (void)state;
    strcpy(g_dir, "/tmp/kvg_case_json_XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    load_refused(NULL, KVG_ERR_IO,
                 "case.json: cannot open: No such file or directory");
    load_refused(with_op("{\"op\": \"", "\",\n \"op\": \"x\"}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:2: duplicate key \"op\" (first at 1:2)");
    (void)snprintf(msg, sizeof msg, "case.json:1:%zu: text after the end of "
                   "the JSON value (character 'x')", op_col(18));
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {}} x"),
                 KVG_ERR_FILE_FORMAT, msg);
    (void)snprintf(msg, sizeof msg, "case.json:1:%zu: \\u0000 (NUL) is not "
                   "allowed in a string", op_col(1));
    load_refused(with_op("{\"op\": \"", "\\u0000\", \"inputs\": {}}"),
                 KVG_ERR_FILE_FORMAT, msg);
    load_refused("[1]", KVG_ERR_FILE_FORMAT,
                 "case.json:1:1: the document must be a JSON object, not an "
                 "array");
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": 161002.9}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status 161002.9 has a "
                 "fraction");
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": 4294967457}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status 4294967457 " NOT_ERR);
    /* success, or a status no operator call returns, would judge nothing
     * and pass */
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": 0}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status 0 " NOT_ERR);
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": 170005}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status 170005 " NOT_ERR);
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": -161002}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status -161002 " NOT_ERR);
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                         " \"expect_error\": {\"status\": \"161002\"}}"),
                 KVG_ERR_FILE_FORMAT,
                 "case.json:2:29: expect_error.status must be an integer, "
                 "not a string");
    {
        char names[400];
        registry_names(names, sizeof names);
        (void)snprintf(msg, sizeof msg,
                       "case.json:1:8: \"op\" must be one of %s", names);
        load_refused("{\"op\": 1, \"inputs\": {}}", KVG_ERR_FILE_FORMAT,
                     msg);
    }
    (void)snprintf(msg, sizeof msg, "case.json:1:%zu: \"options\" must be "
                   "an object", op_col(29));
    load_refused(with_op("{\"op\": \"", "\", \"inputs\": {},"
                         " \"options\": []}"), KVG_ERR_FILE_FORMAT, msg);
    {
        kvg_case c;
        kvg_diag d;
        write_case_json(with_op("{\"op\": \"", "\", \"inputs\": {},\n"
                                " \"expect_error\": {\"status\": 161002, "
                                "\"tensor\": \"slot_mapping\"}}"));
        assert_int_equal(kvg_case_load(g_dir, &c, &d), KVG_OK);
        assert_int_equal(c.expect_error, 1);
        assert_int_equal(c.expect_status, 161002);
        assert_string_equal(c.expect_tensor, "slot_mapping");
        kvg_case_free(&c);
    }
    (void)snprintf(path, sizeof path, "%s/case.json", g_dir);
    (void)unlink(path);
    (void)rmdir(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_ints),
        cmocka_unit_test(test_other_readers),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
