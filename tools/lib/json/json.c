/*
 * tools/lib/json/json.c - the strict JSON reader (see json.h for the rules).
 *
 * A recursive-descent parser over a byte range that tracks line and column
 * as it steps, so every error can say where. Values are individually
 * allocated nodes; kvg_json_free releases a tree.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const unsigned char *p, *end;
    int line, col;
    const char *name;
    kvg_diag *diag;
    kvg_status status; /* of the failure: FILE_FORMAT unless out of memory */
    unsigned flags;    /* KVG_JSON_ALLOW_NONFINITE */
} parser;

/* ---- errors and positions --------------------------------------------- */

/* The diag of a failure: status, `what` as its name, the message. Filled
 * here rather than through kvg_diag_clear so that the reader links nothing
 * (it needs only the header). */
static kvg_status fill_diag(kvg_diag *diag, kvg_status st, const char *what,
                            const char *fmt, va_list ap)
{
    if (diag == NULL)
        return st;
    memset(diag, 0, sizeof *diag);
    diag->status = st;
    diag->dim = -1;
    diag->position = -1;
    (void)snprintf(diag->tensor, sizeof diag->tensor, "%s",
                   what != NULL ? what : "");
    (void)vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    return st;
}

static kvg_status fail(kvg_diag *diag, kvg_status st, const char *what,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    st = fill_diag(diag, st, what, fmt, ap);
    va_end(ap);
    return st;
}

static void fail_at(parser *ps, int line, int col, const char *fmt, ...)
{
    char text[KVG_DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    (void)fail(ps->diag, ps->status, ps->name, "%s:%d:%d: %s", ps->name, line,
               col, text);
}

static void fail_nomem(parser *ps, int line, int col)
{
    ps->status = KVG_ERR_NOMEM;
    fail_at(ps, line, col, "out of memory");
}

static int at_end(const parser *ps) { return ps->p == ps->end; }

/* Consume one byte. A column counts characters: the bytes after the first
 * of a UTF-8 sequence (10xxxxxx) do not advance it. */
static void step(parser *ps)
{
    if (*ps->p == '\n') {
        ps->line++;
        ps->col = 1;
    } else if ((*ps->p & 0xC0) != 0x80) {
        ps->col++;
    }
    ps->p++;
}

static void skip_space(parser *ps)
{
    while (!at_end(ps) && (*ps->p == ' ' || *ps->p == '\t' ||
                           *ps->p == '\n' || *ps->p == '\r'))
        step(ps);
}

static int starts_with(const parser *ps, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0;
}

/* Say what the byte at the cursor is, for "unexpected ..." messages. */
static void describe_here(const parser *ps, char *buf, size_t cap)
{
    unsigned c;
    if (at_end(ps)) {
        (void)snprintf(buf, cap, "end of input");
        return;
    }
    c = *ps->p;
    if (c > 0x20 && c < 0x7F)
        (void)snprintf(buf, cap, "character '%c'", (char)c);
    else
        (void)snprintf(buf, cap, "byte 0x%02X", c);
}

static void fail_unexpected(parser *ps, const char *expected)
{
    char what[32];
    describe_here(ps, what, sizeof what);
    fail_at(ps, ps->line, ps->col, "unexpected %s, expected %s", what,
            expected);
}

/* A key for a message: at most 60 bytes, control characters as '?'. */
static void printable_key(const char *key, size_t len, char *buf, size_t cap)
{
    size_t i, n = len < 60 ? len : 60;
    if (n > cap - 1)
        n = cap - 1;
    for (i = 0; i < n; i++)
        buf[i] = (unsigned char)key[i] < 0x20 ? '?' : key[i];
    buf[n] = '\0';
}

/* ---- nodes ------------------------------------------------------------ */

static kvg_json *new_node(parser *ps, kvg_json_type type, int line, int col)
{
    kvg_json *v = (kvg_json *)calloc(1, sizeof *v);
    if (v == NULL) {
        fail_nomem(ps, line, col);
        return NULL;
    }
    v->type = type;
    v->line = line;
    v->col = col;
    return v;
}

void kvg_json_free(kvg_json *v)
{
    while (v != NULL) {
        kvg_json *next = v->next;
        kvg_json_free(v->child);
        free(v->key);
        free(v->text);
        free(v);
        v = next;
    }
}

/* ---- strings ---------------------------------------------------------- */

/* The length of the UTF-8 sequence at s (n bytes available), or 0 when it
 * is not a valid one (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF). */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    unsigned lo = 0x80, hi = 0xBF;
    size_t len, i;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4;
    else
        return 0;
    if (s[0] == 0xE0)
        lo = 0xA0; /* overlong below U+0800 */
    else if (s[0] == 0xED)
        hi = 0x9F; /* U+D800..DFFF are surrogates */
    else if (s[0] == 0xF0)
        lo = 0x90; /* overlong below U+10000 */
    else if (s[0] == 0xF4)
        hi = 0x8F; /* above U+10FFFF */
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

static size_t put_utf8(unsigned long cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Four hex digits after "\u" at s (n bytes available); -1 if not. */
static long hex4(const unsigned char *s, size_t n)
{
    long v = 0;
    size_t i;
    if (n < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        unsigned c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (long)(c - 'A' + 10);
        else
            return -1;
    }
    return v;
}

/* The code point of the escape \uXXXX (or a surrogate pair of two) at the
 * cursor, which sits on the backslash; consumes it. -1 on error. */
static long unicode_escape(parser *ps)
{
    const int line = ps->line, col = ps->col;
    long hi = hex4(ps->p + 2, (size_t)(ps->end - ps->p) - 2), lo;
    int i;

    if (hi < 0) {
        fail_at(ps, line, col, "\\u must be followed by 4 hex digits");
        return -1;
    }
    if (hi == 0) {
        fail_at(ps, line, col, "\\u0000 (NUL) is not allowed in a string");
        return -1;
    }
    if (hi >= 0xDC00 && hi <= 0xDFFF) {
        fail_at(ps, line, col, "unpaired low surrogate \\u%04lX", hi);
        return -1;
    }
    for (i = 0; i < 6; i++)
        step(ps);
    if (hi < 0xD800 || hi > 0xDBFF)
        return hi;
    lo = starts_with(ps, "\\u")
             ? hex4(ps->p + 2, (size_t)(ps->end - ps->p) - 2)
             : -1;
    if (lo < 0xDC00 || lo > 0xDFFF) {
        fail_at(ps, line, col,
                "high surrogate \\u%04lX is not followed by a low surrogate "
                "\\uDC00..\\uDFFF", hi);
        return -1;
    }
    for (i = 0; i < 6; i++)
        step(ps);
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* The byte an escape \b \f \n \r \t \" \\ \/ stands for, or -1. */
static int simple_escape(unsigned c)
{
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return -1;
    }
}

/* An upper bound of the decoded length of the string whose opening quote
 * is at the cursor: the raw bytes up to the closing quote (no escape
 * decodes longer than it is written). (size_t)-1 if it is unterminated. */
static size_t raw_string_length(const parser *ps)
{
    const unsigned char *q = ps->p + 1;
    while (q < ps->end && *q != '"')
        q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
    return q < ps->end ? (size_t)(q - ps->p - 1) : (size_t)-1;
}

/* One character of a string body at the cursor into out; returns the bytes
 * written, or -1 on error (reported). */
static int string_char(parser *ps, char *out)
{
    unsigned c = *ps->p;
    size_t n, i;

    if (c == '\\') {
        int e;
        if (ps->end - ps->p >= 2 && ps->p[1] == 'u') {
            long cp = unicode_escape(ps);
            return cp < 0 ? -1 : (int)put_utf8((unsigned long)cp, out);
        }
        e = ps->end - ps->p >= 2 ? simple_escape(ps->p[1]) : -1;
        if (e < 0) {
            step(ps);
            fail_unexpected(ps, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r "
                                "\\t \\uXXXX) after '\\'");
            return -1;
        }
        step(ps);
        step(ps);
        out[0] = (char)e;
        return 1;
    }
    if (c < 0x20) {
        fail_at(ps, ps->line, ps->col,
                "control character 0x%02X in a string must be escaped", c);
        return -1;
    }
    n = utf8_length(ps->p, (size_t)(ps->end - ps->p));
    if (n == 0) {
        fail_at(ps, ps->line, ps->col, "invalid UTF-8 (byte 0x%02X)", c);
        return -1;
    }
    for (i = 0; i < n; i++) {
        out[i] = (char)ps->p[0];
        step(ps);
    }
    return (int)n;
}

/* The string whose opening quote is at the cursor: a fresh NUL-terminated
 * buffer (*len bytes before the NUL), or NULL on error. */
static char *parse_string(parser *ps, size_t *len)
{
    const int line = ps->line, col = ps->col;
    size_t bound = raw_string_length(ps), n = 0;
    char *buf;

    if (bound == (size_t)-1) {
        fail_at(ps, line, col, "unterminated string");
        return NULL;
    }
    buf = (char *)malloc(bound + 1);
    if (buf == NULL) {
        fail_nomem(ps, line, col);
        return NULL;
    }
    step(ps); /* the opening quote */
    while (*ps->p != '"') {
        int got = string_char(ps, buf + n);
        if (got < 0) {
            free(buf);
            return NULL;
        }
        n += (size_t)got;
    }
    step(ps); /* the closing quote */
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* ---- numbers and literals --------------------------------------------- */

static int is_digit(const parser *ps)
{
    return !at_end(ps) && *ps->p >= '0' && *ps->p <= '9';
}

static void skip_digits(parser *ps)
{
    while (is_digit(ps))
        step(ps);
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; keeps the source text. */
static kvg_json *parse_number(parser *ps)
{
    const unsigned char *start = ps->p;
    const int line = ps->line, col = ps->col;
    kvg_json *v;

    if (*ps->p == '-')
        step(ps);
    if (starts_with(ps, "Infinity")) {
        fail_at(ps, line, col, "-Infinity is not JSON");
        return NULL;
    }
    if (!is_digit(ps)) {
        fail_unexpected(ps, "a digit after '-'");
        return NULL;
    }
    if (*ps->p == '0') {
        step(ps);
        if (is_digit(ps)) {
            fail_at(ps, line, col, "number with a leading zero");
            return NULL;
        }
    } else {
        skip_digits(ps);
    }
    if (!at_end(ps) && *ps->p == '.') {
        step(ps);
        if (!is_digit(ps)) {
            fail_unexpected(ps, "a digit after '.'");
            return NULL;
        }
        skip_digits(ps);
    }
    if (!at_end(ps) && (*ps->p == 'e' || *ps->p == 'E')) {
        step(ps);
        if (!at_end(ps) && (*ps->p == '+' || *ps->p == '-'))
            step(ps);
        if (!is_digit(ps)) {
            fail_unexpected(ps, "a digit in the exponent");
            return NULL;
        }
        skip_digits(ps);
    }
    v = new_node(ps, KVG_JSON_NUMBER, line, col);
    if (v == NULL)
        return NULL;
    v->len = (size_t)(ps->p - start);
    v->text = (char *)malloc(v->len + 1);
    if (v->text == NULL) {
        free(v);
        fail_nomem(ps, line, col);
        return NULL;
    }
    memcpy(v->text, start, v->len);
    v->text[v->len] = '\0';
    return v;
}

static char *dup_bytes(const char *s, size_t n);

/* NaN, Infinity or -Infinity, where the caller allows them (Python's
 * json.dump writes them): a KVG_JSON_NONFINITE node keeping the word. 0
 * when the text at the cursor is none of them. */
static int parse_nonfinite(parser *ps, kvg_json **out)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    const int line = ps->line, col = ps->col;
    size_t i, j, n;

    *out = NULL;
    if (!(ps->flags & KVG_JSON_ALLOW_NONFINITE))
        return 0;
    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (!starts_with(ps, words[i]))
            continue;
        n = strlen(words[i]);
        for (j = 0; j < n; j++)
            step(ps);
        *out = new_node(ps, KVG_JSON_NONFINITE, line, col);
        if (*out == NULL)
            return 1; /* new_node said so */
        (*out)->text = dup_bytes(words[i], n);
        (*out)->len = n;
        if ((*out)->text == NULL) {
            free(*out);
            *out = NULL;
            fail_nomem(ps, line, col);
        }
        return 1;
    }
    return 0;
}

static kvg_json *parse_literal(parser *ps)
{
    static const struct {
        const char *word;
        kvg_json_type type;
    } lits[] = {{"true", KVG_JSON_TRUE},
                {"false", KVG_JSON_FALSE},
                {"null", KVG_JSON_NULL}};
    const int line = ps->line, col = ps->col;
    size_t i, j;

    for (i = 0; i < sizeof lits / sizeof lits[0]; i++)
        if (starts_with(ps, lits[i].word)) {
            for (j = 0; lits[i].word[j] != '\0'; j++)
                step(ps);
            return new_node(ps, lits[i].type, line, col);
        }
    if (starts_with(ps, "NaN") || starts_with(ps, "Infinity"))
        fail_at(ps, line, col, "NaN and Infinity are not JSON");
    else if (*ps->p == '\'')
        fail_at(ps, line, col, "single quotes are not JSON (use \")");
    else if (*ps->p == '/')
        fail_at(ps, line, col, "comments are not JSON");
    else
        fail_unexpected(ps, "a value");
    return NULL;
}

/* ---- containers ------------------------------------------------------- */

static kvg_json *parse_value(parser *ps, int depth);

/* Order members by key, then by position, so that equal keys sit next to
 * each other with the first occurrence first. */
static int member_order(const void *a, const void *b)
{
    const kvg_json *x = *(const kvg_json *const *)a;
    const kvg_json *y = *(const kvg_json *const *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    if (x->key_line != y->key_line)
        return x->key_line < y->key_line ? -1 : 1;
    return x->key_col < y->key_col ? -1 : (x->key_col > y->key_col);
}

static int before(const kvg_json *a, const kvg_json *b)
{
    return a->key_line < b->key_line ||
           (a->key_line == b->key_line && a->key_col < b->key_col);
}

/* Refuse a key that appears twice, naming the earliest repeat in the
 * document and where the key first appeared. Sorting keeps a large object
 * O(n log n). Returns 0, or -1 (reported). */
static int check_duplicates(parser *ps, const kvg_json *obj)
{
    const kvg_json **m, *c, *first = NULL, *again = NULL;
    size_t i = 0;
    char key[64];

    if (obj->count < 2)
        return 0;
    m = (const kvg_json **)malloc(obj->count * sizeof *m);
    if (m == NULL) {
        fail_nomem(ps, obj->line, obj->col);
        return -1;
    }
    for (c = obj->child; c != NULL; c = c->next)
        m[i++] = c;
    qsort(m, obj->count, sizeof *m, member_order);
    for (i = 1; i < obj->count; i++)
        if (m[i]->key_len == m[i - 1]->key_len &&
            memcmp(m[i]->key, m[i - 1]->key, m[i]->key_len) == 0 &&
            (again == NULL || before(m[i], again))) {
            first = m[i - 1];
            again = m[i];
        }
    free(m);
    if (again == NULL)
        return 0;
    /* `first` may be a second repeat of a key seen three times: find its
     * earliest occurrence for the message */
    for (c = obj->child; c != NULL; c = c->next)
        if (c->key_len == again->key_len &&
            memcmp(c->key, again->key, c->key_len) == 0) {
            first = c;
            break;
        }
    printable_key(again->key, again->key_len, key, sizeof key);
    fail_at(ps, again->key_line, again->key_col,
            "duplicate key \"%s\" (first at %d:%d)", key, first->key_line,
            first->key_col);
    return -1;
}

static void append(kvg_json *parent, kvg_json **tail, kvg_json *v)
{
    if (*tail == NULL)
        parent->child = v;
    else
        (*tail)->next = v;
    *tail = v;
    parent->count++;
}

/* After an element: ',' (then not the closer: no trailing comma) or the
 * closer. Returns 1 to go on, 0 at the closer, -1 on error. */
static int after_element(parser *ps, char closer, const char *expected)
{
    skip_space(ps);
    if (!at_end(ps) && *ps->p == (unsigned char)closer) {
        step(ps);
        return 0;
    }
    if (at_end(ps) || *ps->p != ',') {
        fail_unexpected(ps, expected);
        return -1;
    }
    step(ps);
    skip_space(ps);
    if (!at_end(ps) && *ps->p == (unsigned char)closer) {
        fail_at(ps, ps->line, ps->col, "trailing comma before '%c'", closer);
        return -1;
    }
    return 1;
}

static kvg_json *parse_array(parser *ps, kvg_json *arr, int depth)
{
    kvg_json *tail = NULL, *v;
    int more;

    skip_space(ps);
    if (!at_end(ps) && *ps->p == ']') {
        step(ps);
        return arr;
    }
    do {
        v = parse_value(ps, depth);
        if (v == NULL) {
            kvg_json_free(arr);
            return NULL;
        }
        append(arr, &tail, v);
        more = after_element(ps, ']', "',' or ']'");
    } while (more == 1);
    if (more < 0) {
        kvg_json_free(arr);
        return NULL;
    }
    return arr;
}

/* One "key": value member at the cursor (after any space); NULL on error. */
static kvg_json *parse_member(parser *ps, int depth)
{
    const int line = ps->line, col = ps->col;
    size_t key_len;
    char *key;
    kvg_json *v;

    if (at_end(ps) || *ps->p != '"') {
        if (!at_end(ps) && *ps->p == '\'')
            fail_at(ps, line, col, "single quotes are not JSON (use \")");
        else
            fail_unexpected(ps, "a string key");
        return NULL;
    }
    key = parse_string(ps, &key_len);
    if (key == NULL)
        return NULL;
    skip_space(ps);
    if (at_end(ps) || *ps->p != ':') {
        fail_unexpected(ps, "':' after the key");
        free(key);
        return NULL;
    }
    step(ps);
    v = parse_value(ps, depth);
    if (v == NULL) {
        free(key);
        return NULL;
    }
    v->key = key;
    v->key_len = key_len;
    v->key_line = line;
    v->key_col = col;
    return v;
}

static kvg_json *parse_object(parser *ps, kvg_json *obj, int depth)
{
    kvg_json *tail = NULL, *v;
    int more;

    skip_space(ps);
    if (!at_end(ps) && *ps->p == '}') {
        step(ps);
        return obj;
    }
    do {
        v = parse_member(ps, depth);
        if (v == NULL) {
            kvg_json_free(obj);
            return NULL;
        }
        append(obj, &tail, v);
        more = after_element(ps, '}', "',' or '}'");
        if (more == 1)
            skip_space(ps);
    } while (more == 1);
    if (more < 0 || check_duplicates(ps, obj) != 0) {
        kvg_json_free(obj);
        return NULL;
    }
    return obj;
}

static kvg_json *parse_container(parser *ps, int depth)
{
    const int line = ps->line, col = ps->col;
    const int is_object = *ps->p == '{';
    kvg_json *v;

    if (depth >= KVG_JSON_MAX_DEPTH) {
        fail_at(ps, line, col, "nested deeper than %d levels",
                KVG_JSON_MAX_DEPTH);
        return NULL;
    }
    v = new_node(ps, is_object ? KVG_JSON_OBJECT : KVG_JSON_ARRAY, line, col);
    if (v == NULL)
        return NULL;
    step(ps);
    return is_object ? parse_object(ps, v, depth + 1)
                     : parse_array(ps, v, depth + 1);
}

/* A value at the cursor (after any space). `depth` counts the containers
 * around it. */
static kvg_json *parse_value(parser *ps, int depth)
{
    kvg_json *v;

    skip_space(ps);
    if (at_end(ps)) {
        fail_unexpected(ps, "a value");
        return NULL;
    }
    switch (*ps->p) {
    case '{':
    case '[':
        return parse_container(ps, depth);
    case '"':
        v = new_node(ps, KVG_JSON_STRING, ps->line, ps->col);
        if (v == NULL)
            return NULL;
        v->text = parse_string(ps, &v->len);
        if (v->text == NULL) {
            free(v);
            return NULL;
        }
        return v;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if (parse_nonfinite(ps, &v))
            return v;
        return parse_number(ps);
    default:
        if (parse_nonfinite(ps, &v))
            return v;
        return parse_literal(ps);
    }
}

kvg_status kvg_json_parse(const char *text, size_t len, const char *name,
                          kvg_json **out, kvg_diag *diag)
{
    return kvg_json_parse_with(text, len, name, 0u, out, diag);
}

kvg_status kvg_json_parse_with(const char *text, size_t len,
                               const char *name, unsigned flags,
                               kvg_json **out, kvg_diag *diag)
{
    parser ps;
    kvg_json *root;

    ps.p = (const unsigned char *)text;
    ps.end = ps.p + len;
    ps.line = 1;
    ps.col = 1;
    ps.name = name != NULL ? name : "json";
    ps.diag = diag;
    ps.status = KVG_ERR_FILE_FORMAT;
    ps.flags = flags;
    if (out == NULL || (text == NULL && len != 0))
        return fail(diag, KVG_ERR_PARAM_NULLPTR, ps.name,
                    "%s: NULL text or result pointer", ps.name);
    *out = NULL;
    if (len > KVG_JSON_MAX_BYTES) {
        fail_at(&ps, 1, 1, "%lu bytes, more than the limit of %lu",
                (unsigned long)len, (unsigned long)KVG_JSON_MAX_BYTES);
        return ps.status;
    }
    if (starts_with(&ps, "\xEF\xBB\xBF")) {
        fail_at(&ps, 1, 1, "a byte order mark (U+FEFF) is not allowed");
        return ps.status;
    }
    skip_space(&ps);
    if (at_end(&ps)) {
        fail_at(&ps, ps.line, ps.col, "no JSON value (empty document)");
        return ps.status;
    }
    root = parse_value(&ps, 0);
    if (root == NULL)
        return ps.status;
    skip_space(&ps);
    if (!at_end(&ps)) {
        char what[32];
        describe_here(&ps, what, sizeof what);
        fail_at(&ps, ps.line, ps.col,
                "text after the end of the JSON value (%s)", what);
        kvg_json_free(root);
        return ps.status;
    }
    *out = root;
    return KVG_OK;
}

/* ---- access ----------------------------------------------------------- */

int kvg_json_is(const kvg_json *v, kvg_json_type type)
{
    return v != NULL && v->type == type;
}

const char *kvg_json_type_name(kvg_json_type type)
{
    switch (type) {
    case KVG_JSON_NULL: return "null";
    case KVG_JSON_FALSE: return "false";
    case KVG_JSON_TRUE: return "true";
    case KVG_JSON_NUMBER: return "number";
    case KVG_JSON_NONFINITE: return "NaN or Infinity";
    case KVG_JSON_STRING: return "string";
    case KVG_JSON_ARRAY: return "array";
    case KVG_JSON_OBJECT: return "object";
    }
    return "?";
}

const kvg_json *kvg_json_get(const kvg_json *obj, const char *key)
{
    const kvg_json *c;
    if (!kvg_json_is(obj, KVG_JSON_OBJECT))
        return NULL;
    for (c = obj->child; c != NULL; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

const kvg_json *kvg_json_at(const kvg_json *arr, size_t i)
{
    const kvg_json *c;
    if (!kvg_json_is(arr, KVG_JSON_ARRAY))
        return NULL;
    for (c = arr->child; c != NULL && i != 0; c = c->next)
        i--;
    return c;
}

/* A number the caller cannot have: KVG_ERR_FILE_FORMAT, the member's key
 * as the name, the reason ("has a fraction") as the message. */
static kvg_status not_a(kvg_diag *diag, const kvg_json *v, const char *why)
{
    return fail(diag, KVG_ERR_FILE_FORMAT, v != NULL ? v->key : NULL, "%s",
                why);
}

kvg_status kvg_json_int64(const kvg_json *v, int64_t *out, kvg_diag *diag)
{
    const char *s;
    uint64_t mag = 0, limit = (uint64_t)INT64_MAX;
    int neg;

    if (!kvg_json_is(v, KVG_JSON_NUMBER))
        return not_a(diag, v, "is not a number");
    if (strchr(v->text, '.') != NULL)
        return not_a(diag, v, "has a fraction");
    if (strpbrk(v->text, "eE") != NULL)
        return not_a(diag, v, "has an exponent");
    s = v->text;
    neg = *s == '-';
    s += neg;
    limit += (uint64_t)neg; /* |INT64_MIN| = INT64_MAX + 1 */
    for (; *s != '\0'; s++) {
        const uint64_t d = (uint64_t)(*s - '0');
        if (mag > (limit - d) / 10)
            return not_a(diag, v, "is out of int64 range");
        mag = mag * 10 + d;
    }
    /* -mag without overflow: INT64_MIN's magnitude has no positive twin */
    *out = neg ? (mag == 0 ? 0 : -(int64_t)(mag - 1) - 1) : (int64_t)mag;
    return KVG_OK;
}

/* 1 if a JSON number's digits before the exponent are not all zero. */
static int nonzero_mantissa(const char *text)
{
    for (; *text != '\0' && *text != 'e' && *text != 'E'; text++)
        if (*text >= '1' && *text <= '9')
            return 1;
    return 0;
}

kvg_status kvg_json_double(const kvg_json *v, double *out, kvg_diag *diag)
{
    const char *point = localeconv()->decimal_point;
    size_t plen = strlen(point), i, n = 0;
    char *buf, *endp;
    double d;

    if (!kvg_json_is(v, KVG_JSON_NUMBER))
        return not_a(diag, v, "is not a number");
    /* strtod reads the locale's decimal point: write that one instead of
     * '.', so "0.5" is 0.5 under a locale whose point is ',' */
    buf = (char *)malloc(v->len + plen + 1);
    if (buf == NULL)
        return fail(diag, KVG_ERR_NOMEM, v->key,
                    "could not be converted (out of memory)");
    for (i = 0; i < v->len; i++) {
        if (v->text[i] == '.') {
            memcpy(buf + n, point, plen);
            n += plen;
        } else {
            buf[n++] = v->text[i];
        }
    }
    buf[n] = '\0';
    d = strtod(buf, &endp);
    i = (size_t)(endp - buf);
    free(buf);
    if (i != n)
        return not_a(diag, v, "could not be converted");
    if (isinf(d))
        return not_a(diag, v, "is out of double range");
    /* A nonzero number that strtod rounds to 0 (1e-400) is not the value
     * the file wrote: refuse it like an overflow. */
    if (d == 0.0 && nonzero_mantissa(v->text))
        return not_a(diag, v,
                     "is out of double range (it underflows to 0)");
    *out = d;
    return KVG_OK;
}

/* ---- building --------------------------------------------------------- */

static char *dup_bytes(const char *s, size_t n)
{
    char *d = (char *)malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

kvg_json *kvg_json_clone(const kvg_json *v)
{
    kvg_json *c, *tail = NULL;
    const kvg_json *k;

    if (v == NULL)
        return NULL;
    c = (kvg_json *)malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    *c = *v;
    c->key = c->text = NULL;
    c->child = c->next = NULL;
    c->count = 0;
    if ((v->key != NULL && (c->key = dup_bytes(v->key, v->key_len)) == NULL) ||
        (v->text != NULL && (c->text = dup_bytes(v->text, v->len)) == NULL)) {
        kvg_json_free(c);
        return NULL;
    }
    for (k = v->child; k != NULL; k = k->next) {
        kvg_json *kc = kvg_json_clone(k);
        if (kc == NULL) {
            kvg_json_free(c);
            return NULL;
        }
        append(c, &tail, kc);
    }
    return c;
}

kvg_status kvg_json_set_string(kvg_json *obj, const char *key, const char *s,
                               kvg_diag *diag)
{
    kvg_json *m, *last = NULL;
    char *text;

    if (!kvg_json_is(obj, KVG_JSON_OBJECT))
        return fail(diag, KVG_ERR_PARAM_INVALID, key,
                    "%s: cannot be set on %s, only on an object", key,
                    obj != NULL ? kvg_json_type_name(obj->type) : "NULL");
    text = dup_bytes(s, strlen(s));
    if (text == NULL)
        return fail(diag, KVG_ERR_NOMEM, key, "%s: out of memory", key);
    for (m = obj->child; m != NULL; last = m, m = m->next)
        if (strcmp(m->key, key) == 0)
            break;
    if (m == NULL) {
        m = (kvg_json *)calloc(1, sizeof *m);
        if (m == NULL || (m->key = dup_bytes(key, strlen(key))) == NULL) {
            free(m);
            free(text);
            return fail(diag, KVG_ERR_NOMEM, key, "%s: out of memory", key);
        }
        m->key_len = strlen(key);
        m->line = m->col = m->key_line = m->key_col = 0;
        append(obj, &last, m);
    } else {
        kvg_json_free(m->child);
        m->child = NULL;
        m->count = 0;
        free(m->text);
    }
    m->type = KVG_JSON_STRING;
    m->text = text;
    m->len = strlen(s);
    return KVG_OK;
}

void kvg_json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", (unsigned)ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}
