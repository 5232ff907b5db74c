/*
 * tools/lib/json/json.h - a strict JSON (RFC 8259) reader for case.json.
 *
 * Tools layer only (it allocates); no dependencies beyond the C library.
 * Strict where lenient readers guess:
 *   - the RFC 8259 grammar exactly: no comments, no trailing commas, no
 *     NaN/Infinity (unless kvg_json_parse_with allows them), no leading
 *     zeros, no single quotes, no byte order mark;
 *   - valid UTF-8 only (no overlong forms, no surrogates, nothing above
 *     U+10FFFF); escapes \" \\ \/ \b \f \n \r \t \uXXXX, surrogate pairs
 *     paired; a control character must be escaped, and \u0000 is refused
 *     (strings are handed out NUL-terminated, so it would cut them);
 *   - a key twice in one object is an error naming the key and both
 *     positions (Python's json keeps the last, cJSON the first: neither
 *     may silently decide what a case means);
 *   - anything but whitespace after the top-level value is an error;
 *   - nesting deeper than KVG_JSON_MAX_DEPTH and input longer than
 *     KVG_JSON_MAX_BYTES are errors.
 * Numbers keep their source text: kvg_json_int64 reads it exactly (never
 * through a double) and kvg_json_double converts it whatever the locale.
 *
 * Errors follow the tools' idiom: a kvg_status returned, a kvg_diag
 * (kvgold/status.h; NULL allowed) filled with it, the name of what failed
 * and a message. A parse error's message is "NAME:LINE:COL: what", NAME
 * being the name passed to kvg_json_parse (the caller prefixes the
 * directory). Lines and columns count from 1; a column counts characters
 * (UTF-8 sequences), not bytes, as Python's json does. The reader needs
 * only kvgold's headers, not the library.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_JSON_H
#define KVGOLD_TOOLS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kvgold/status.h"

#define KVG_JSON_MAX_DEPTH 64
#define KVG_JSON_MAX_BYTES (4u * 1024u * 1024u)

typedef enum kvg_json_type {
    KVG_JSON_NULL,
    KVG_JSON_FALSE,
    KVG_JSON_TRUE,
    KVG_JSON_NUMBER,
    KVG_JSON_STRING,
    KVG_JSON_ARRAY,
    KVG_JSON_OBJECT,
    KVG_JSON_NONFINITE /* NaN / Infinity / -Infinity, only when parsed with
                          KVG_JSON_ALLOW_NONFINITE; `text` is the word. Not
                          a NUMBER: code that wants a number refuses it */
} kvg_json_type;

/* One value. Arrays and objects chain their elements / members through
 * `child` and `next`, in document order. Read the fields; do not write
 * them (kvg_json_set_string is the one mutator). */
typedef struct kvg_json {
    kvg_json_type type;
    int line, col;          /* where the value starts */
    char *key;              /* member name (NUL-free, NUL-terminated), or
                               NULL for array elements and the root */
    size_t key_len;
    int key_line, key_col;  /* where the member's key starts */
    char *text;             /* STRING: the decoded bytes; NUMBER: the
                               source text; NULL otherwise. NUL-terminated */
    size_t len;             /* strlen(text) */
    size_t count;           /* ARRAY / OBJECT: number of children */
    struct kvg_json *child; /* first element / member */
    struct kvg_json *next;  /* next sibling */
} kvg_json;

/*
 * Parse `len` bytes of `text` (which need not be NUL-terminated) into *out
 * (NULL on failure). KVG_ERR_FILE_FORMAT with diag->message
 * "NAME:LINE:COL: what" (diag->tensor NAME) for a document the rules above
 * refuse; KVG_ERR_NOMEM, the same way, "...: out of memory";
 * KVG_ERR_PARAM_NULLPTR for a NULL `out` (or NULL text with a length).
 */
kvg_status kvg_json_parse(const char *text, size_t len, const char *name,
                          kvg_json **out, kvg_diag *diag);

/*
 * kvg_json_parse with options. KVG_JSON_ALLOW_NONFINITE: the bare words
 * NaN, Infinity and -Infinity, which Python's json.dump writes for
 * non-finite floats (msprobe's dump.json statistics "Max", "Norm", ...),
 * are read as KVG_JSON_NONFINITE values instead of refused. Everything
 * else stays as strict as above; case.json is never read this way.
 */
#define KVG_JSON_ALLOW_NONFINITE 1u
kvg_status kvg_json_parse_with(const char *text, size_t len,
                               const char *name, unsigned flags,
                               kvg_json **out, kvg_diag *diag);
void kvg_json_free(kvg_json *v);

/* The member `key` of an object, or NULL (also when `obj` is NULL or not an
 * object). Keys are unique, so there is at most one. */
const kvg_json *kvg_json_get(const kvg_json *obj, const char *key);
/* Element `i` of an array, or NULL. */
const kvg_json *kvg_json_at(const kvg_json *arr, size_t i);

int kvg_json_is(const kvg_json *v, kvg_json_type type); /* NULL: 0 */
/* "null", "false", "true", "number", "string", "array", "object",
 * "NaN or Infinity" */
const char *kvg_json_type_name(kvg_json_type type);

/*
 * A number as an exact int64_t: KVG_OK and *out, or KVG_ERR_FILE_FORMAT
 * without touching *out, diag->message the reason (to follow the value in
 * the caller's sentence): "is not a number", "has a fraction", "has an
 * exponent", "is out of int64 range"; diag->tensor the member's key.
 */
kvg_status kvg_json_int64(const kvg_json *v, int64_t *out, kvg_diag *diag);

/*
 * A number as the nearest double (strtod's rounding), read the same in
 * every locale: KVG_OK and *out, or KVG_ERR_FILE_FORMAT with the reason
 * "is not a number" / "is out of double range" (it would overflow to
 * infinity, or a nonzero number would underflow to 0, as 1e-400 does; a
 * subnormal result is kept); KVG_ERR_NOMEM when its buffer cannot be had.
 */
kvg_status kvg_json_double(const kvg_json *v, double *out, kvg_diag *diag);

/* A deep copy, or NULL when memory runs out. */
kvg_json *kvg_json_clone(const kvg_json *v);

/*
 * Set member `key` of object `obj` to the string `s` (replacing an existing
 * member in place, else appending one): KVG_OK, or KVG_ERR_PARAM_INVALID
 * when `obj` is not an object, KVG_ERR_NOMEM when memory runs out (then
 * `obj` is unchanged). For building a variant of a parsed document (e.g.
 * another options.reduce_order).
 */
kvg_status kvg_json_set_string(kvg_json *obj, const char *key, const char *s,
                               kvg_diag *diag);

/* Write `s` to `out` as a JSON string literal: quotes added, '"', '\\' and
 * every control character escaped (the reader reads it back as `s`). */
void kvg_json_write_string(FILE *out, const char *s);

#endif /* KVGOLD_TOOLS_JSON_H */
