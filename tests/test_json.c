/*
 * tests/test_json.c - the strict JSON reader (tools/lib/json/json.h).
 *
 * From first principles (RFC 8259, RFC 3629, two's-complement int64): what
 * is accepted decodes to the bytes and numbers the RFCs say; what is
 * refused is refused with the exact "NAME:LINE:COL: what" message. Among
 * them every case.json defect found so far: duplicate keys, text after the
 * value, \u0000, integers read through doubles (9007199254740993),
 * fractions taken as integers (161002.9), INT64_MAX refused, syntax errors
 * without a position.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- helpers ---------------------------------------------------------- */

/* Parse n bytes from an exactly-sized heap copy, so that ASan catches any
 * read past the end (the text is not NUL-terminated there). */
static kvg_json *parse_n(const char *text, size_t n, kvg_diag *d)
{
    char *copy = (char *)malloc(n ? n : 1);
    kvg_json *v = (kvg_json *)&v; /* poison: must be set either way */
    kvg_status st;
    assert_non_null(copy);
    memcpy(copy, text, n);
    kvgt_poison(d, sizeof *d, 3);
    st = kvg_json_parse(copy, n, "case.json", &v, d);
    free(copy);
    /* a document or a refusal, never both, the diag saying which */
    if (st == KVG_OK) {
        assert_non_null(v);
    } else {
        assert_null(v);
        assert_int_equal(d->status, st);
        assert_string_equal(d->tensor, "case.json");
    }
    return v;
}

static kvg_json *ok_n(const char *text, size_t n)
{
    kvg_diag d;
    kvg_json *v = parse_n(text, n, &d);
    if (v == NULL)
        fail_msg("refused %.80s: %s", text, d.message);
    return v;
}

static kvg_json *ok(const char *text) { return ok_n(text, strlen(text)); }

/* Refused, with exactly `want` as the message. */
static void refused_n(const char *text, size_t n, const char *want)
{
    kvg_diag d;
    kvg_json *v = parse_n(text, n, &d);
    if (v != NULL) {
        kvg_json_free(v);
        fail_msg("accepted %.80s, want \"%s\"", text, want);
    }
    assert_int_equal(d.status, KVG_ERR_FILE_FORMAT);
    if (strcmp(d.message, want) != 0)
        fail_msg("for %.80s:\n got  \"%s\"\n want \"%s\"", text,
                 d.message, want);
}

static void refused(const char *text, const char *want)
{
    refused_n(text, strlen(text), want);
}

/* The root of `text` must be a string whose bytes are want[0..want_len). */
static void string_is(const char *text, const char *want, size_t want_len)
{
    kvg_json *v = ok(text);
    assert_int_equal(v->type, KVG_JSON_STRING);
    assert_int_equal(v->len, want_len);
    kvgt_assert_bytes_equal(v->text, want, want_len, text);
    assert_int_equal(v->text[want_len], '\0');
    kvg_json_free(v);
}

/* ---- values ----------------------------------------------------------- */

static void test_scalars(void **state)
{
    static const struct {
        const char *text;
        kvg_json_type type;
    } cases[] = {{"null", KVG_JSON_NULL},     {"true", KVG_JSON_TRUE},
                 {"false", KVG_JSON_FALSE},   {"0", KVG_JSON_NUMBER},
                 {"-0", KVG_JSON_NUMBER},     {"\"\"", KVG_JSON_STRING},
                 {"[]", KVG_JSON_ARRAY},      {"{}", KVG_JSON_OBJECT},
                 {" \t\r\n7 \n", KVG_JSON_NUMBER}};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kvg_json *v = ok(cases[i].text);
        assert_int_equal(v->type, cases[i].type);
        assert_int_equal(v->count, 0);
        assert_null(v->child);
        assert_null(v->key);
        kvg_json_free(v);
    }
    assert_string_equal(kvg_json_type_name(KVG_JSON_OBJECT), "object");
    assert_string_equal(kvg_json_type_name(KVG_JSON_FALSE), "false");
}

static void test_numbers_keep_source_text(void **state)
{
    static const char *const texts[] = {
        "0", "-0", "1", "-1", "10", "0.5", "-0.25", "1e5", "1E+5", "1e-05",
        "123.456e789", "9007199254740993", "161002.9",
        "100000000000000000000000000000000000000000000000001"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        kvg_json *v = ok(texts[i]);
        assert_int_equal(v->type, KVG_JSON_NUMBER);
        assert_string_equal(v->text, texts[i]);
        assert_int_equal(v->len, strlen(texts[i]));
        kvg_json_free(v);
    }
}

static void test_objects_keep_order_and_positions(void **state)
{
    const char *text = "{\n  \"b\": 1,\n  \"a\": [true, null, \"x\"],\n"
                       "  \"c\": {\"d\": {}}\n}";
    kvg_json *root;
    const kvg_json *b, *a, *c, *d;
    (void)state;
    root = ok(text);
    assert_int_equal(root->type, KVG_JSON_OBJECT);
    assert_int_equal(root->count, 3);
    b = root->child;
    a = b->next;
    c = a->next;
    assert_null(c->next);
    assert_string_equal(b->key, "b");
    assert_string_equal(a->key, "a");
    assert_string_equal(c->key, "c");
    /* key positions: line 2 col 3, value at col 8 */
    assert_int_equal(b->key_line, 2);
    assert_int_equal(b->key_col, 3);
    assert_int_equal(b->line, 2);
    assert_int_equal(b->col, 8);
    assert_int_equal(a->key_line, 3);
    assert_ptr_equal(kvg_json_get(root, "a"), a);
    assert_ptr_equal(kvg_json_get(root, "c"), c);
    assert_null(kvg_json_get(root, "z"));
    assert_null(kvg_json_get(a, "b")); /* not an object */
    assert_null(kvg_json_get(NULL, "b"));
    assert_int_equal(a->type, KVG_JSON_ARRAY);
    assert_int_equal(a->count, 3);
    assert_int_equal(kvg_json_at(a, 0)->type, KVG_JSON_TRUE);
    assert_int_equal(kvg_json_at(a, 1)->type, KVG_JSON_NULL);
    assert_string_equal(kvg_json_at(a, 2)->text, "x");
    assert_null(kvg_json_at(a, 2)->key);
    assert_int_equal(kvg_json_at(a, 2)->col, 21);
    assert_null(kvg_json_at(a, 3));
    assert_null(kvg_json_at(root, 0)); /* not an array */
    d = kvg_json_get(c, "d");
    assert_true(kvg_json_is(d, KVG_JSON_OBJECT));
    assert_int_equal(d->count, 0);
    assert_false(kvg_json_is(NULL, KVG_JSON_NULL));
    kvg_json_free(root);
}

/* ---- grammar ---------------------------------------------------------- */

static void test_syntax_errors_have_line_and_column(void **state)
{
    (void)state;
    refused("", "case.json:1:1: no JSON value (empty document)");
    refused(" \n\t", "case.json:2:2: no JSON value (empty document)");
    refused("{\"a\": 1,\n \"b\" 2}",
            "case.json:2:6: unexpected character '2', expected ':' after the "
            "key");
    refused("{\"a\": 1\n  \"b\": 2}",
            "case.json:2:3: unexpected character '\"', expected ',' or '}'");
    refused("[1 2]", "case.json:1:4: unexpected character '2', expected ',' "
                     "or ']'");
    refused("{\"a\": }", "case.json:1:7: unexpected character '}', expected "
                         "a value");
    refused("{\"a\": 1", "case.json:1:8: unexpected end of input, expected "
                         "',' or '}'");
    refused("[", "case.json:1:2: unexpected end of input, expected a value");
    refused("{a: 1}", "case.json:1:2: unexpected character 'a', expected a "
                      "string key");
    refused("{1: 1}", "case.json:1:2: unexpected character '1', expected a "
                      "string key");
    refused("tru", "case.json:1:1: unexpected character 't', expected a "
                   "value");
    refused("True", "case.json:1:1: unexpected character 'T', expected a "
                    "value");
    refused("\"abc", "case.json:1:1: unterminated string");
    refused("{\"a\": \"b\\\"}", "case.json:1:7: unterminated string");
}

static void test_no_extensions(void **state)
{
    (void)state;
    refused("[1, 2,]", "case.json:1:7: trailing comma before ']'");
    refused("{\"a\": 1,\n}", "case.json:2:1: trailing comma before '}'");
    refused("[,1]", "case.json:1:2: unexpected character ',', expected a "
                    "value");
    refused("{\"a\": 1 // c\n}", "case.json:1:9: unexpected character '/', "
                                 "expected ',' or '}'");
    refused("// c\n{}", "case.json:1:1: comments are not JSON");
    refused("/* c */ {}", "case.json:1:1: comments are not JSON");
    refused("[NaN]", "case.json:1:2: NaN and Infinity are not JSON");
    refused("Infinity", "case.json:1:1: NaN and Infinity are not JSON");
    refused("[-Infinity]", "case.json:1:2: -Infinity is not JSON");
    refused("{'a': 1}", "case.json:1:2: single quotes are not JSON (use \")");
    refused("'a'", "case.json:1:1: single quotes are not JSON (use \")");
    refused("\xEF\xBB\xBF{}",
            "case.json:1:1: a byte order mark (U+FEFF) is not allowed");
    /* only space, tab, LF and CR are whitespace */
    refused("[1,\f2]", "case.json:1:4: unexpected byte 0x0C, expected a "
                       "value");
    refused("[1,\xC2\xA0" "2]", "case.json:1:4: unexpected byte 0xC2, "
                                "expected a value");
}

/* kvg_json_parse_with(KVG_JSON_ALLOW_NONFINITE): exactly the three words
 * Python's json.dump writes for non-finite floats, as NONFINITE values
 * that no number reader takes; every other rule as strict as before. */
static kvg_json *parse_stats(const char *text, kvg_diag *d)
{
    kvg_json *v = NULL;
    memset(d, 0, sizeof *d);
    if (kvg_json_parse_with(text, strlen(text), "dump.json",
                            KVG_JSON_ALLOW_NONFINITE, &v, d) != KVG_OK)
        return NULL;
    return v;
}

static void test_nonfinite_option(void **state)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    const char *bad[] = {"[nan]", "[-NaN]", "[Inf]", "[-Inf]", "[+Infinity]",
                         "[Infinityx]", "[NaN1]", "{\"Max\": NaN,}"};
    kvg_json *v, *e;
    kvg_diag d;
    double x = 7.0;
    int64_t i = 7;
    size_t k;
    (void)state;

    v = parse_stats("{\"Max\": NaN, \"Norm\": Infinity, \"Min\": "
                    "-Infinity, \"Mean\": -1.5e3}", &d);
    assert_non_null(v);
    e = v->child;
    for (k = 0; k < 3; k++, e = e->next) {
        assert_int_equal(e->type, KVG_JSON_NONFINITE);
        assert_string_equal(e->text, words[k]);
        assert_int_equal(e->len, strlen(words[k]));
        assert_int_not_equal(kvg_json_double(e, &x, &d), KVG_OK);
        assert_int_not_equal(kvg_json_int64(e, &i, &d), KVG_OK);
        assert_false(kvg_json_is(e, KVG_JSON_NUMBER));
    }
    assert_true(x == 7.0 && i == 7); /* untouched */
    assert_int_equal(e->type, KVG_JSON_NUMBER);
    assert_string_equal(kvg_json_type_name(KVG_JSON_NONFINITE),
                        "NaN or Infinity");
    kvg_json_free(v);
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        v = parse_stats(bad[k], &d);
        if (v != NULL)
            fail_msg("accepted %s", bad[k]);
        assert_int_equal(d.status, KVG_ERR_FILE_FORMAT);
    }
    /* the plain reader still refuses them */
    refused("[NaN]", "case.json:1:2: NaN and Infinity are not JSON");
}

static void test_number_grammar(void **state)
{
    (void)state;
    refused("01", "case.json:1:1: number with a leading zero");
    refused("[-012]", "case.json:1:2: number with a leading zero");
    refused("00", "case.json:1:1: number with a leading zero");
    refused("+1", "case.json:1:1: unexpected character '+', expected a "
                  "value");
    refused(".5", "case.json:1:1: unexpected character '.', expected a "
                  "value");
    refused("1.", "case.json:1:3: unexpected end of input, expected a digit "
                  "after '.'");
    refused("1.e5", "case.json:1:3: unexpected character 'e', expected a "
                    "digit after '.'");
    refused("1e", "case.json:1:3: unexpected end of input, expected a digit "
                  "in the exponent");
    refused("1e+", "case.json:1:4: unexpected end of input, expected a digit "
                   "in the exponent");
    refused("-", "case.json:1:2: unexpected end of input, expected a digit "
                 "after '-'");
    refused("- 1", "case.json:1:2: unexpected byte 0x20, expected a digit "
                   "after '-'");
    refused("0x10", "case.json:1:2: text after the end of the JSON value "
                    "(character 'x')");
    refused("1_000", "case.json:1:2: text after the end of the JSON value "
                     "(character '_')");
}

/* "{} x" used to load as {}. */
static void test_text_after_the_value(void **state)
{
    kvg_json *v;
    (void)state;
    refused("{} x", "case.json:1:4: text after the end of the JSON value "
                    "(character 'x')");
    refused("{}{}", "case.json:1:3: text after the end of the JSON value "
                    "(character '{')");
    refused("{\"op\": 1}\n\n  ]", "case.json:3:3: text after the end of the "
                                  "JSON value (character ']')");
    refused("1 2", "case.json:1:3: text after the end of the JSON value "
                   "(character '2')");
    refused_n("{}\0", 3, "case.json:1:3: text after the end of the JSON "
                         "value (byte 0x00)");
    v = ok("{} \r\n\t ");
    kvg_json_free(v);
}

static void test_depth_limit(void **state)
{
    char text[2 * KVG_JSON_MAX_DEPTH + 8], want[96];
    kvg_json *v;
    int i;
    (void)state;
    for (i = 0; i < KVG_JSON_MAX_DEPTH; i++) {
        text[i] = '[';
        text[KVG_JSON_MAX_DEPTH + i] = ']';
    }
    v = ok_n(text, 2 * KVG_JSON_MAX_DEPTH); /* exactly the limit */
    kvg_json_free(v);
    for (i = 0; i <= KVG_JSON_MAX_DEPTH; i++)
        text[i] = '[';
    (void)snprintf(want, sizeof want,
                   "case.json:1:%d: nested deeper than %d levels",
                   KVG_JSON_MAX_DEPTH + 1, KVG_JSON_MAX_DEPTH);
    refused_n(text, KVG_JSON_MAX_DEPTH + 1, want);
    /* objects count the same */
    {
        char obj[8 * (KVG_JSON_MAX_DEPTH + 1) + 8];
        size_t n = 0;
        for (i = 0; i <= KVG_JSON_MAX_DEPTH; i++) {
            memcpy(obj + n, "{\"a\":", 5);
            n += 5;
        }
        (void)snprintf(want, sizeof want,
                       "case.json:1:%d: nested deeper than %d levels",
                       5 * KVG_JSON_MAX_DEPTH + 1, KVG_JSON_MAX_DEPTH);
        refused_n(obj, n, want);
    }
}

static void test_size_limit(void **state)
{
    const size_t n = KVG_JSON_MAX_BYTES + 1;
    char *big = (char *)malloc(n), want[128];
    kvg_json *v;
    (void)state;
    assert_non_null(big);
    memset(big, ' ', n);
    big[0] = '1';
    v = ok_n(big, n - 1); /* at the limit: fine */
    assert_string_equal(v->text, "1");
    kvg_json_free(v);
    (void)snprintf(want, sizeof want,
                   "case.json:1:1: %lu bytes, more than the limit of %lu",
                   (unsigned long)n, (unsigned long)KVG_JSON_MAX_BYTES);
    refused_n(big, n, want);
    free(big);
}

/* ---- strings ---------------------------------------------------------- */

static void test_escapes_decode(void **state)
{
    (void)state;
    string_is("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
              "\" \\ / \b \f \n \r \t", 15);
    string_is("\"\\u0041\\u00e9\\u00E9\"", "A\xC3\xA9\xC3\xA9", 5);
    string_is("\"\\u20AC\"", "\xE2\x82\xAC", 3);         /* euro sign */
    string_is("\"\\u0001\\u001f\"", "\x01\x1F", 2);      /* escaped controls */
    string_is("\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80", 4); /* U+1F600 */
    string_is("\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF", 4); /* U+10FFFF */
    string_is("\"\\uFFFF\"", "\xEF\xBF\xBF", 3);
    string_is("\"\\u07FF\\u0800\"", "\xDF\xBF\xE0\xA0\x80", 5);
}

/* "\u0000" used to cut the string there. */
static void test_nul_is_refused(void **state)
{
    (void)state;
    refused("{\"op\": \"kv\\u0000x\"}",
            "case.json:1:11: \\u0000 (NUL) is not allowed in a string");
    refused("{\"a\\u0000\": 1}",
            "case.json:1:4: \\u0000 (NUL) is not allowed in a string");
    refused_n("\"a\0b\"", 5, "case.json:1:3: control character 0x00 in a "
                             "string must be escaped");
}

static void test_escape_errors(void **state)
{
    (void)state;
    refused("\"\\x\"", "case.json:1:3: unexpected character 'x', expected an "
                       "escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) "
                       "after '\\'");
    refused("\"\\'\"", "case.json:1:3: unexpected character ''', expected an "
                       "escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) "
                       "after '\\'");
    refused("\"\\u12\"", "case.json:1:2: \\u must be followed by 4 hex "
                         "digits");
    refused("\"\\u12G4\"", "case.json:1:2: \\u must be followed by 4 hex "
                           "digits");
    refused("\"ab\\uD83D\"",
            "case.json:1:4: high surrogate \\uD83D is not followed by a low "
            "surrogate \\uDC00..\\uDFFF");
    refused("\"\\uD83Dx\"",
            "case.json:1:2: high surrogate \\uD83D is not followed by a low "
            "surrogate \\uDC00..\\uDFFF");
    refused("\"\\uD83D\\uD83D\"",
            "case.json:1:2: high surrogate \\uD83D is not followed by a low "
            "surrogate \\uDC00..\\uDFFF");
    refused("\"\\uDE00\"", "case.json:1:2: unpaired low surrogate \\uDE00");
    refused("\"a\nb\"", "case.json:1:3: control character 0x0A in a string "
                        "must be escaped");
    refused("\"\t\"", "case.json:1:2: control character 0x09 in a string "
                      "must be escaped");
}

static void test_utf8(void **state)
{
    (void)state;
    string_is("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
              "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 9);
    string_is("\"\x7F\xC2\x80\xF4\x8F\xBF\xBF\"",
              "\x7F\xC2\x80\xF4\x8F\xBF\xBF", 7);
    refused("\"\xC0\x80\"", "case.json:1:2: invalid UTF-8 (byte 0xC0)");
    refused("\"\xC1\xBF\"", "case.json:1:2: invalid UTF-8 (byte 0xC1)");
    refused("\"\xE0\x80\x80\"", "case.json:1:2: invalid UTF-8 (byte 0xE0)");
    refused("\"\xE0\x9F\xBF\"", "case.json:1:2: invalid UTF-8 (byte 0xE0)");
    refused("\"\xED\xA0\x80\"", "case.json:1:2: invalid UTF-8 (byte 0xED)");
    refused("\"\xED\xBF\xBF\"", "case.json:1:2: invalid UTF-8 (byte 0xED)");
    refused("\"\xF0\x8F\xBF\xBF\"", "case.json:1:2: invalid UTF-8 (byte "
                                    "0xF0)");
    refused("\"\xF4\x90\x80\x80\"", "case.json:1:2: invalid UTF-8 (byte "
                                    "0xF4)");
    refused("\"\xF5\x80\x80\x80\"", "case.json:1:2: invalid UTF-8 (byte "
                                    "0xF5)");
    refused("\"\xFF\"", "case.json:1:2: invalid UTF-8 (byte 0xFF)");
    refused("\"a\x80\"", "case.json:1:3: invalid UTF-8 (byte 0x80)");
    refused("\"\xE2\x82\"", "case.json:1:2: invalid UTF-8 (byte 0xE2)");
    refused("\"\xE2\x82x\"", "case.json:1:2: invalid UTF-8 (byte 0xE2)");
    /* columns count characters: é is one */
    refused("\"\xC3\xA9\xC3\xA9\n\"", "case.json:1:4: control character "
                                      "0x0A in a string must be escaped");
    /* bytes >= 0x80 outside strings */
    refused("[\xC3\xA9]", "case.json:1:2: unexpected byte 0xC3, expected a "
                          "value");
}

/* ---- duplicate keys (the first used to win silently) ------------------ */

static void test_duplicate_keys(void **state)
{
    (void)state;
    refused("{\"op\": \"a\",\n \"op\": \"b\"}",
            "case.json:2:2: duplicate key \"op\" (first at 1:2)");
    refused("{\"attrs\": {\"x\": 1, \"y\": 2, \"x\": 3}}",
            "case.json:1:28: duplicate key \"x\" (first at 1:12)");
    /* the same key after escapes is the same key */
    refused("{\"ab\": 1, \"\\u0061b\": 2}",
            "case.json:1:11: duplicate key \"ab\" (first at 1:2)");
    /* three times: the first repeat, and the very first occurrence */
    refused("{\"k\": 1, \"z\": 0, \"k\": 2, \"k\": 3}",
            "case.json:1:18: duplicate key \"k\" (first at 1:2)");
    /* two keys repeated: the one repeated first in the document */
    refused("{\"b\": 1, \"a\": 1, \"b\": 2, \"a\": 2}",
            "case.json:1:18: duplicate key \"b\" (first at 1:2)");
    /* columns in characters */
    refused("{\"\xC3\xA9\": 1, \"\xC3\xA9\": 2}",
            "case.json:1:10: duplicate key \"\xC3\xA9\" (first at 1:2)");
    /* empty key twice; a key that only prefixes another is not a repeat */
    refused("{\"\": 1, \"\": 2}",
            "case.json:1:9: duplicate key \"\" (first at 1:2)");
    kvg_json_free(ok("{\"a\": 1, \"ab\": 2, \"b\": {\"a\": 3}, \"c\": [{\"a\": 1},"
                     " {\"a\": 2}]}"));
}

static void test_many_distinct_keys(void **state)
{
    /* 5000 distinct keys, then the same with the first one repeated last */
    const int n = 5000;
    char *text = (char *)malloc((size_t)n * 16 + 32), want[96];
    size_t len = 0;
    kvg_json *v;
    int i;
    (void)state;
    assert_non_null(text);
    text[len++] = '{';
    for (i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\"k%d\":%d", i ? "," : "",
                               (n - i) * 7919 % 100003, i);
    text[len++] = '}';
    v = ok_n(text, len);
    assert_int_equal(v->count, (size_t)n);
    kvg_json_free(v);
    len--; /* drop the '}' and repeat the first key */
    /* one line of ASCII: the column is the offset of the key's quote + 1 */
    (void)snprintf(want, sizeof want,
                   "case.json:1:%lu: duplicate key \"k%d\" (first at 1:2)",
                   (unsigned long)(len + 2), n * 7919 % 100003);
    len += (size_t)sprintf(text + len, ",\"k%d\":0}", n * 7919 % 100003);
    refused_n(text, len, want);
    free(text);
}

/* ---- getters ---------------------------------------------------------- */

static void int64_is(const char *text, int64_t want)
{
    kvg_json *v = ok(text);
    int64_t got = 0x5A5A5A5A5A5A5A5A;
    kvg_diag d;
    if (kvg_json_int64(v, &got, &d) != KVG_OK)
        fail_msg("%s: %s", text, d.message);
    if (got != want)
        fail_msg("%s read as %lld", text, (long long)got);
    kvg_json_free(v);
}

static void int64_refused(const char *text, const char *reason)
{
    kvg_json *v = ok(text);
    int64_t got = 0x5A5A5A5A5A5A5A5A;
    kvg_diag d;
    kvgt_poison(&d, sizeof d, 4);
    if (kvg_json_int64(v, &got, &d) == KVG_OK)
        fail_msg("%s accepted as %lld", text, (long long)got);
    assert_int_equal(d.status, KVG_ERR_FILE_FORMAT);
    assert_string_equal(d.message, reason);
    assert_string_equal(d.tensor, ""); /* the root has no key */
    assert_true(got == 0x5A5A5A5A5A5A5A5A); /* untouched */
    kvg_json_free(v);
}

static void test_int64_exact(void **state)
{
    (void)state;
    int64_is("0", 0);
    int64_is("-0", 0);
    int64_is("161002", 161002);
    int64_is("-7", -7);
    /* 2^53 + 1: a double would make it 2^53 */
    int64_is("9007199254740993", (int64_t)9007199254740992 + 1);
    int64_is("-9007199254740993", -(int64_t)9007199254740992 - 1);
    int64_is("9223372036854775807", INT64_MAX);
    int64_is("-9223372036854775808", INT64_MIN);
    int64_is("9223372036854775806", INT64_MAX - 1);
    int64_refused("9223372036854775808", "is out of int64 range");
    int64_refused("-9223372036854775809", "is out of int64 range");
    int64_refused("18446744073709551616", "is out of int64 range");
    int64_refused("99999999999999999999999999999999", "is out of int64 range");
    int64_refused("161002.9", "has a fraction");
    int64_refused("1.0", "has a fraction");
    int64_refused("1.5e3", "has a fraction");
    int64_refused("1e3", "has an exponent");
    int64_refused("1E0", "has an exponent");
    int64_refused("\"1\"", "is not a number");
    int64_refused("true", "is not a number");
    int64_refused("[1]", "is not a number");
}

static void double_is(const char *text, double want)
{
    kvg_json *v = ok(text);
    double got = -12345.0;
    kvg_diag d;
    if (kvg_json_double(v, &got, &d) != KVG_OK)
        fail_msg("%s: %s", text, d.message);
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("%s read as %.17g, want %.17g", text, got, want);
    kvg_json_free(v);
}

static void double_refused(const char *text, const char *reason)
{
    kvg_json *v = ok(text);
    double got = -12345.0;
    kvg_diag d;
    kvgt_poison(&d, sizeof d, 4);
    if (kvg_json_double(v, &got, &d) == KVG_OK)
        fail_msg("%s accepted as %.17g", text, got);
    assert_int_equal(d.status, KVG_ERR_FILE_FORMAT);
    assert_string_equal(d.message, reason);
    assert_true(got == -12345.0);
    kvg_json_free(v);
}

/* Expected values are C literals, which the compiler rounds to nearest as
 * strtod must: 0.1 is the double nearest 1/10 whatever reads it. */
static void check_doubles(void)
{
    double_is("0", 0.0);
    double_is("-0", -0.0);
    double_is("-0.0", -0.0);
    double_is("0.1", 0.1);
    double_is("1e-6", 1e-6);
    double_is("9.999999974752427e-07", 9.999999974752427e-07);
    double_is("1E+2", 100.0);
    double_is("161002.9", 161002.9);
    double_is("9007199254740993", 9007199254740992.0); /* ties to even */
    double_is("1.7976931348623157e308", 1.7976931348623157e308);
    double_is("4.9406564584124654e-324", 4.9406564584124654e-324);
    double_is("0e-400", 0.0);
    double_is("-0.000e-999", -0.0);
    double_is("3e-324", 4.9406564584124654e-324); /* subnormal: kept */
    /* a nonzero number strtod rounds to 0 is not what the file says */
    double_refused("1e-400", "is out of double range (it underflows to 0)");
    double_refused("-1e-400", "is out of double range (it underflows to 0)");
    double_refused("2e-324", "is out of double range (it underflows to 0)");
    double_refused("0.00001e-320",
                   "is out of double range (it underflows to 0)");
    double_refused("1e309", "is out of double range");
    double_refused("-1e400", "is out of double range");
    double_refused("\"0.5\"", "is not a number");
}

static void test_double(void **state)
{
    (void)state;
    check_doubles();
}

/* strtod reads the locale's decimal point; the reader must not care. */
static void test_double_any_locale(void **state)
{
    static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8",
                                        "fr_FR.UTF-8", "fr_FR.utf8",
                                        "de_DE", "fr_FR", NULL};
    const char *const *l;
    (void)state;
    for (l = comma; *l != NULL; l++)
        if (setlocale(LC_NUMERIC, *l) != NULL)
            break;
    if (*l == NULL || strcmp(localeconv()->decimal_point, ",") != 0) {
        (void)setlocale(LC_NUMERIC, "C");
        skip(); /* no locale with a decimal comma on this machine */
    }
    check_doubles();
    (void)setlocale(LC_NUMERIC, "C");
}

/* ---- building and the error buffer ------------------------------------ */

static void test_clone_and_set_string(void **state)
{
    kvg_json *orig = ok("{\"profile\": \"a2a3\", \"reduce_order\": [1, {}]}");
    kvg_json *c = kvg_json_clone(orig), *e;
    (void)state;
    assert_non_null(c);
    assert_int_equal(kvg_json_set_string(c, "reduce_order", "double", NULL),
                     KVG_OK);
    assert_string_equal(kvg_json_get(c, "reduce_order")->text, "double");
    assert_int_equal(kvg_json_get(c, "reduce_order")->type, KVG_JSON_STRING);
    assert_int_equal(kvg_json_get(c, "reduce_order")->count, 0);
    assert_int_equal(kvg_json_set_string(c, "new", "x\xC3\xA9", NULL), KVG_OK);
    assert_int_equal(c->count, 3);
    assert_string_equal(c->child->next->next->key, "new");
    assert_string_equal(kvg_json_get(c, "new")->text, "x\xC3\xA9");
    assert_int_equal(kvg_json_get(c, "new")->len, 3);
    assert_string_equal(kvg_json_get(c, "profile")->text, "a2a3");
    /* the original is untouched */
    assert_int_equal(orig->count, 2);
    assert_int_equal(kvg_json_get(orig, "reduce_order")->type,
                     KVG_JSON_ARRAY);
    assert_int_equal(kvg_json_get(orig, "reduce_order")->count, 2);
    /* a string is not an object */
    {
        kvg_diag d;
        assert_int_equal(kvg_json_set_string(
                             (kvg_json *)kvg_json_get(c, "new"), "k", "v", &d),
                         KVG_ERR_PARAM_INVALID);
        assert_string_equal(d.tensor, "k");
        assert_string_equal(d.message,
                            "k: cannot be set on string, only on an object");
    }
    e = ok("{}");
    assert_int_equal(kvg_json_set_string(e, "reduce_order", "a2", NULL),
                     KVG_OK);
    assert_int_equal(e->count, 1);
    assert_string_equal(kvg_json_get(e, "reduce_order")->text, "a2");
    assert_null(kvg_json_clone(NULL));
    kvg_json_free(e);
    kvg_json_free(c);
    kvg_json_free(orig);
}

static void test_error_diag(void **state)
{
    kvg_json *v = (kvg_json *)&v;
    kvg_diag d;
    (void)state;
    kvgt_poison(&d, sizeof d, 5);
    assert_int_equal(kvg_json_parse("{} x", 4, "case.json", &v, &d),
                     KVG_ERR_FILE_FORMAT);
    assert_null(v);
    assert_int_equal(d.status, KVG_ERR_FILE_FORMAT);
    assert_int_equal(d.dim, -1);
    assert_true(d.position == -1);
    assert_string_equal(d.tensor, "case.json");
    assert_string_equal(d.message, "case.json:1:4: text after the end of the "
                                   "JSON value (character 'x')");
    /* no diag: the status alone */
    assert_int_equal(kvg_json_parse("{} x", 4, "case.json", &v, NULL),
                     KVG_ERR_FILE_FORMAT);
    kvgt_poison(&d, sizeof d, 5);
    assert_int_equal(kvg_json_parse("[", 1, NULL, &v, &d),
                     KVG_ERR_FILE_FORMAT);
    assert_string_equal(d.tensor, "json"); /* default name */
    assert_int_equal(strncmp(d.message, "json:1:2: u", 11), 0);
    /* nowhere to put the document */
    assert_int_equal(kvg_json_parse("{}", 2, "case.json", NULL, &d),
                     KVG_ERR_PARAM_NULLPTR);
    assert_string_equal(d.tensor, "case.json");
}

static void test_crlf_lines(void **state)
{
    (void)state;
    refused("{\r\n\"a\": 1,\r\n\"a\": 2\r\n}",
            "case.json:3:1: duplicate key \"a\" (first at 2:1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_numbers_keep_source_text),
        cmocka_unit_test(test_objects_keep_order_and_positions),
        cmocka_unit_test(test_syntax_errors_have_line_and_column),
        cmocka_unit_test(test_no_extensions),
        cmocka_unit_test(test_number_grammar),
        cmocka_unit_test(test_text_after_the_value),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_escapes_decode),
        cmocka_unit_test(test_nul_is_refused),
        cmocka_unit_test(test_escape_errors),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_many_distinct_keys),
        cmocka_unit_test(test_int64_exact),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_double_any_locale),
        cmocka_unit_test(test_clone_and_set_string),
        cmocka_unit_test(test_error_diag),
        cmocka_unit_test(test_crlf_lines),
        cmocka_unit_test(test_nonfinite_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
