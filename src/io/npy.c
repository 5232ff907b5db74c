/*
 * src/io/npy.c - .npy parsing and writing (see kvgold/npy.h).
 *
 * The header is a Python dict literal; this parser accepts exactly the
 * grammar NumPy writes and reads, no more:
 *
 *   dict   := '{' ws (item ws ',' ws)* [item ws [',' ws]] '}' ws
 *   item   := string ws ':' ws value
 *   value  := string | 'True' | 'False' | tuple
 *   tuple  := '(' ws [int ws (',' ws int ws)* [',' ws]] ')'
 *   int    := '0' | [1-9][0-9]*      (Python 3 refuses leading zeros)
 *   string := '\'' chars '\'' | '"' chars '"'   (no escapes)
 *
 * Every read goes through a cursor bounded by the header's end, so no input
 * can make the parser look outside the buffer it was given.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kvgold/npy.h"
#include "src/common/internal.h"

typedef struct descr_entry {
    const char *descr;
    kvg_dtype dtype;
    size_t itemsize;
} descr_entry;

/* Storage descr per logical dtype, the one kvgold writes first. Several
 * dtypes share '|u1'. */
static const descr_entry k_descrs[] = {
    {"<f2", KVG_FP16, 2},       {"<u2", KVG_BF16, 2},
    {"<f4", KVG_FP32, 4},       {"|i1", KVG_INT8, 1},
    {"<i4", KVG_INT32, 4},      {"<i8", KVG_INT64, 8},
    {"|u1", KVG_FP8_E4M3FN, 1}, {"|u1", KVG_FP8_E5M2, 1},
    {"|u1", KVG_HIF8, 1},       {"|u1", KVG_UINT8, 1},
    {"<i2", KVG_INT16, 2},      {"<u2", KVG_UINT16, 2},
    {"<u4", KVG_UINT32, 4},     {"|u1", KVG_FP4_E2M1, 1},
    {"|u1", KVG_FP4_E1M2, 1},   {"|u1", KVG_E8M0, 1},
};
#define N_DESCRS (sizeof k_descrs / sizeof k_descrs[0])

/*
 * Other descrs that engineers' dumps carry for the formats NumPy lacks,
 * accepted on reading only. A void of the right size is raw bits; ml_dtypes
 * registers its types with kind 'V' and byteorder '=', so np.save writes
 * '<V2' / '<V1' (jax-ml/ml_dtypes issue #41), except float8_e5m2, whose
 * kind was 'f' ('<f1', issue #216); the type names are what
 * str(array.dtype) gives, which hand-written headers use.
 */
static const descr_entry k_aliases[] = {
    {"|V2", KVG_BF16, 2},       {"<V2", KVG_BF16, 2},
    {"bfloat16", KVG_BF16, 2},  {"|V1", KVG_FP8_E4M3FN, 1},
    {"<V1", KVG_FP8_E4M3FN, 1}, {"float8_e4m3fn", KVG_FP8_E4M3FN, 1},
    {"|V1", KVG_FP8_E5M2, 1},   {"<V1", KVG_FP8_E5M2, 1},
    {"<f1", KVG_FP8_E5M2, 1},   {"float8_e5m2", KVG_FP8_E5M2, 1},
    {"|V1", KVG_HIF8, 1},       {"<V1", KVG_HIF8, 1},
    {"|V1", KVG_E8M0, 1},       {"<V1", KVG_E8M0, 1},
    {"float8_e8m0fnu", KVG_E8M0, 1},
};
#define N_ALIASES (sizeof k_aliases / sizeof k_aliases[0])

static const unsigned char k_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

const char *kvg_npy_descr_of(kvg_dtype dtype)
{
    size_t i;
    for (i = 0; i < N_DESCRS; i++)
        if (k_descrs[i].dtype == dtype)
            return k_descrs[i].descr;
    return NULL;
}

static size_t itemsize_of_descr(const char *descr)
{
    size_t i;
    for (i = 0; i < N_DESCRS; i++)
        if (strcmp(k_descrs[i].descr, descr) == 0)
            return k_descrs[i].itemsize;
    for (i = 0; i < N_ALIASES; i++)
        if (strcmp(k_aliases[i].descr, descr) == 0)
            return k_aliases[i].itemsize;
    return 0;
}

int kvg_npy_descr_accepts(kvg_dtype dtype, const char *descr)
{
    size_t i;
    if (descr == NULL)
        return 0;
    for (i = 0; i < N_DESCRS; i++)
        if (k_descrs[i].dtype == dtype && strcmp(k_descrs[i].descr, descr) == 0)
            return 1;
    for (i = 0; i < N_ALIASES; i++)
        if (k_aliases[i].dtype == dtype &&
            strcmp(k_aliases[i].descr, descr) == 0)
            return 1;
    return 0;
}

static kvg_status fmt_error(kvg_diag *diag, const char *fmt, ...)
    KVG_I_PRINTF(2, 3);
static kvg_status fmt_error(kvg_diag *diag, const char *fmt, ...)
{
    char msg[KVG_DIAG_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "npy", -1, -1, "npy: %s",
                        msg);
}

/* ---- header parser ---------------------------------------------------- */

typedef struct cursor {
    const char *begin; /* first byte of the header text */
    const char *p;
    const char *end;   /* one past the last byte (the newline) */
    kvg_diag *diag;
} cursor;

/* Fail at the cursor. The message gives the byte offset within the header
 * text, so a hand-edited file can be fixed without guessing. */
static kvg_status bad(cursor *c, const char *fmt, ...) KVG_I_PRINTF(2, 3);
static kvg_status bad(cursor *c, const char *fmt, ...)
{
    char what[256];
    long at = (long)(c->p - c->begin);
    va_list ap;

    va_start(ap, fmt);
    (void)vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return kvg_diag_set(c->diag, KVG_ERR_FILE_FORMAT, "npy", -1, at,
                        "npy header byte %ld: %s", at, what);
}

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' ||
                             *c->p == '\r'))
        c->p++;
}

static int accept(cursor *c, char ch)
{
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* Accept a bare word (True/False) only when no identifier character
 * follows, so "Falsey" is not read as False followed by junk. */
static int accept_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
        const char *after = c->p + n;
        if (after < c->end &&
            ((*after >= 'a' && *after <= 'z') ||
             (*after >= 'A' && *after <= 'Z') ||
             (*after >= '0' && *after <= '9') || *after == '_'))
            return 0;
        c->p = after;
        return 1;
    }
    return 0;
}

/* A quoted string into out (capacity cap). Longer strings are an error
 * that says which kind of string (`what`) was too long. */
static kvg_status parse_string(cursor *c, char *out, size_t cap,
                               const char *what)
{
    char quote;
    size_t n = 0;

    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return bad(c, "expected a quoted %s", what);
    quote = *c->p++;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\')
            return bad(c, "escapes in strings are not supported");
        if ((unsigned char)*c->p < 0x20 || (unsigned char)*c->p >= 0x7F)
            return bad(c, "byte 0x%02x in a %s (printable ASCII only)",
                       (unsigned)(unsigned char)*c->p, what);
        if (n + 1 >= cap)
            return bad(c, "%s longer than %lu characters", what,
                       (unsigned long)(cap - 1));
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return bad(c, "unterminated %s", what);
    c->p++;
    out[n] = '\0';
    return KVG_OK;
}

static kvg_status parse_dim(cursor *c, int64_t *out)
{
    int64_t v = 0;
    const char *start = c->p;

    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        int d = *c->p - '0';
        if (c->p > start && *start == '0')
            return bad(c, "shape dimension has a leading zero");
        if (v > (INT64_MAX - d) / 10)
            return bad(c, "shape dimension overflows int64");
        v = v * 10 + d;
        c->p++;
    }
    if (c->p == start)
        return bad(c, "shape dimension must be a non-negative integer");
    *out = v;
    return KVG_OK;
}

static kvg_status parse_shape(cursor *c, kvg_npy_info *info)
{
    int rank = 0;

    if (!accept(c, '('))
        return bad(c, "shape must be a tuple");
    skip_ws(c);
    while (!accept(c, ')')) {
        if (rank == KVG_MAX_RANK)
            return bad(c, "shape has more than %d dimensions", KVG_MAX_RANK);
        KVG_TRY(parse_dim(c, &info->shape[rank]));
        rank++;
        skip_ws(c);
        if (accept(c, ',')) {
            skip_ws(c);
            continue;
        }
        if (!accept(c, ')'))
            return bad(c, "expected ',' or ')' in shape");
        if (rank == 1)
            return bad(c, "a 1-d shape needs a trailing comma: (n,)");
        break;
    }
    info->rank = rank;
    return KVG_OK;
}

static kvg_status parse_descr(cursor *c, kvg_npy_info *info)
{
    char descr[32];

    KVG_TRY(parse_string(c, descr, sizeof descr, "descr"));
    if (descr[0] == '>' && itemsize_of_descr(descr) == 0) {
        char le[32];
        memcpy(le, descr, sizeof le);
        le[0] = '<';
        if (itemsize_of_descr(le) != 0)
            return bad(c, "descr '%s' is big-endian; only little-endian "
                          "data are supported", descr);
    }
    if (strncmp(descr, "float4_", 7) == 0)
        /* ml_dtypes' float4_e2m1fn holds one code per byte; kvgold's fp4
         * is packed (kvgold/dtype.h): reading it as bytes would pair the
         * wrong codes */
        return bad(c, "descr '%s' is ml_dtypes' unpacked fp4, one code per "
                      "byte; kvgold's fp4_e2m1 / fp4_e1m2 are packed, two "
                      "codes per byte (element 2j in the low nibble, as "
                      "torch's float4_e2m1fn_x2): store the packed bytes as "
                      "|u1", descr);
    if (itemsize_of_descr(descr) == 0)
        return bad(c, "descr '%s' is not supported (<f2 <u2 <f4 |i1 |u1 <i4 "
                      "<i8; for bf16 also |V2 <V2 bfloat16; for the 8-bit "
                      "floats |V1 <V1 float8_e4m3fn float8_e5m2 "
                      "float8_e8m0fnu)", descr);
    memcpy(info->descr, descr, strlen(descr) + 1);
    return KVG_OK;
}

static kvg_status parse_dict(cursor *c, kvg_npy_info *info)
{
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32];

    skip_ws(c);
    if (!accept(c, '{'))
        return bad(c, "header must start with '{'");
    for (;;) {
        const char *key_at;
        skip_ws(c);
        if (accept(c, '}'))
            break;
        key_at = c->p;
        KVG_TRY(parse_string(c, key, sizeof key, "key"));
        skip_ws(c);
        if (!accept(c, ':'))
            return bad(c, "expected ':' after key '%s'", key);
        skip_ws(c);
        if (strcmp(key, "descr") == 0) {
            if (have_descr++) {
                c->p = key_at;
                return bad(c, "key 'descr' appears twice");
            }
            KVG_TRY(parse_descr(c, info));
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_order++) {
                c->p = key_at;
                return bad(c, "key 'fortran_order' appears twice");
            }
            if (accept_word(c, "True"))
                return bad(c, "fortran_order True is not supported (C order "
                              "only; save np.ascontiguousarray(a))");
            if (!accept_word(c, "False"))
                return bad(c, "fortran_order must be True or False");
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++) {
                c->p = key_at;
                return bad(c, "key 'shape' appears twice");
            }
            KVG_TRY(parse_shape(c, info));
        } else {
            c->p = key_at;
            return bad(c, "unknown key '%s' (only descr, fortran_order, "
                          "shape)", key);
        }
        skip_ws(c);
        if (accept(c, ','))
            continue;
        if (accept(c, '}'))
            break;
        return bad(c, "expected ',' or '}' after the value of '%s'", key);
    }
    skip_ws(c);
    if (c->p != c->end)
        return bad(c, "text after the closing '}'");
    if (!have_descr || !have_order || !have_shape)
        return bad(c, "missing key '%s' (descr, fortran_order and shape are "
                      "all required)",
                   !have_descr ? "descr"
                               : !have_order ? "fortran_order" : "shape");
    return KVG_OK;
}

/* Magic, version and header length (the first 10 or 12 bytes). */
static kvg_status read_preamble(const unsigned char *b, size_t size,
                                kvg_npy_info *info, size_t *hstart,
                                size_t *hlen, kvg_diag *diag)
{
    size_t cmp = size < sizeof k_magic ? size : sizeof k_magic;

    if (size == 0)
        return fmt_error(diag, "bad magic (empty file)");
    if (memcmp(b, k_magic, cmp) != 0)
        return fmt_error(diag, "bad magic (not a .npy file)");
    if (size < 10)
        return fmt_error(diag, "truncated preamble: %lu bytes, a .npy file "
                               "starts with at least 10",
                         (unsigned long)size);
    info->major = b[6];
    info->minor = b[7];
    if (info->major == 1 && info->minor == 0) {
        *hlen = (size_t)b[8] | (size_t)b[9] << 8;
        *hstart = 10;
    } else if (info->major == 2 && info->minor == 0) {
        if (size < 12)
            return fmt_error(diag, "truncated version 2.0 preamble: %lu "
                                   "bytes, need 12", (unsigned long)size);
        *hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                (size_t)b[11] << 24;
        *hstart = 12;
    } else {
        return fmt_error(diag, "version %d.%d is not supported (1.0 and 2.0 "
                               "are)", info->major, info->minor);
    }
    if (*hlen > KVG_NPY_MAX_HEADER)
        return fmt_error(diag, "header length %lu exceeds the %u-byte limit",
                         (unsigned long)*hlen, KVG_NPY_MAX_HEADER);
    return KVG_OK;
}

/* The preamble, and the header text located inside the buffer. */
static kvg_status parse_preamble(const unsigned char *b, size_t size,
                                 kvg_npy_info *info, size_t *hstart,
                                 size_t *hlen, kvg_diag *diag)
{
    KVG_TRY(read_preamble(b, size, info, hstart, hlen, diag));
    if (*hlen > size - *hstart)
        return fmt_error(diag, "header length %lu runs past the end of the "
                               "%lu-byte file (truncated header)",
                         (unsigned long)*hlen, (unsigned long)size);
    if (*hlen == 0 || b[*hstart + *hlen - 1] != '\n')
        return fmt_error(diag, "header does not end with a newline");
    return KVG_OK;
}

kvg_status kvg_npy_header_size(const void *buf, size_t size, size_t *bytes,
                               kvg_diag *diag)
{
    size_t hlen = 0, hstart = 0;
    kvg_npy_info info;
    kvg_status st;

    if ((buf == NULL && size != 0) || bytes == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL buffer or size pointer");
    *bytes = 0;
    memset(&info, 0, sizeof info);
    st = read_preamble((const unsigned char *)buf, size, &info, &hstart,
                       &hlen, diag);
    if (st == KVG_OK)
        *bytes = hstart + hlen;
    return st;
}

kvg_status kvg_npy_parse_header(const void *buf, size_t size,
                                kvg_npy_info *info, kvg_diag *diag)
{
    const unsigned char *b = (const unsigned char *)buf;
    size_t hlen = 0, hstart = 0, itemsize;
    int64_t numel = 1, bytes;
    cursor c;
    int i;

    if ((buf == NULL && size != 0) || info == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL buffer or info");
    memset(info, 0, sizeof *info);
    if (size == 0)
        return fmt_error(diag, "bad magic (empty file)");
    KVG_TRY(parse_preamble(b, size, info, &hstart, &hlen, diag));
    c.begin = c.p = (const char *)b + hstart;
    c.end = (const char *)b + hstart + hlen;
    c.diag = diag;
    KVG_TRY(parse_dict(&c, info));
    itemsize = itemsize_of_descr(info->descr);
    for (i = 0; i < info->rank; i++)
        if (!kvg_i_mul_i64(numel, info->shape[i], &numel))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "npy", i, -1,
                                "npy: shape element count overflows int64 at "
                                "dim %d", i);
    if (!kvg_i_mul_i64(numel, (int64_t)itemsize, &bytes) ||
        (uint64_t)bytes > (uint64_t)SIZE_MAX)
        return fmt_error(diag, "shape byte size overflows (%lld elements of "
                               "%lu bytes)", (long long)numel,
                         (unsigned long)itemsize);
    info->data_offset = hstart + hlen;
    info->data_bytes = (size_t)bytes;
    return KVG_OK;
}

kvg_status kvg_npy_check_data_size(const kvg_npy_info *info,
                                   uint64_t file_size, kvg_diag *diag)
{
    uint64_t have;

    if (info == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL info");
    if (file_size < (uint64_t)info->data_offset)
        return fmt_error(diag, "header runs past the end of the %llu-byte "
                               "file", (unsigned long long)file_size);
    have = file_size - (uint64_t)info->data_offset;
    if (have < (uint64_t)info->data_bytes)
        return fmt_error(diag, "short data: %llu bytes, but shape and descr "
                               "'%s' need %lu", (unsigned long long)have,
                         info->descr, (unsigned long)info->data_bytes);
    if (have > (uint64_t)info->data_bytes)
        return fmt_error(diag, "trailing data: %llu bytes after the %lu the "
                               "shape and descr '%s' need",
                         (unsigned long long)(have - info->data_bytes),
                         (unsigned long)info->data_bytes, info->descr);
    return KVG_OK;
}

kvg_status kvg_npy_parse(const void *buf, size_t size, kvg_npy_info *info,
                         kvg_diag *diag)
{
    KVG_TRY(kvg_npy_parse_header(buf, size, info, diag));
    return kvg_npy_check_data_size(info, (uint64_t)size, diag);
}

/* ---- writing ---------------------------------------------------------- */

/*
 * Header text exactly as numpy 1.24's _write_array_header builds it: the
 * repr of the dict with sorted keys and ", " after each item, then
 * 21 - len(repr(shape[0])) spaces so axis 0 can grow in place (none for
 * rank 0). Returns its length; `cap` is always enough (see the caller).
 */
static size_t format_header(const kvg_tensor *t, const char *descr, char *h,
                            size_t cap)
{
    size_t n;
    int i, first_digits;
    char dim0[32];

    n = (size_t)snprintf(h, cap, "{'descr': '%s', 'fortran_order': False, "
                                 "'shape': (", descr);
    for (i = 0; i < t->rank; i++)
        n += (size_t)snprintf(h + n, cap - n, "%s%lld", i ? ", " : "",
                              (long long)t->shape[i]);
    n += (size_t)snprintf(h + n, cap - n, "%s), }", t->rank == 1 ? "," : "");
    if (t->rank > 0) {
        first_digits = snprintf(dim0, sizeof dim0, "%lld",
                                (long long)t->shape[0]);
        for (i = first_digits; i < 21; i++)
            h[n++] = ' ';
    }
    h[n] = '\0';
    return n;
}

kvg_status kvg_npy_encode_header(const kvg_tensor *t, void *buf, size_t size,
                                 size_t *written, kvg_diag *diag)
{
    /* 52 fixed + 8 dims * (19 digits + ", ") + "), }" + 21 spaces < 512 */
    char header[512];
    const char *descr;
    size_t hlen, pad, total, pre = 10;
    int64_t numel;
    unsigned char *b = (unsigned char *)buf;

    if (t == NULL || written == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL tensor or size pointer");
    KVG_TRY(kvg_tensor_numel(t, "tensor", &numel, diag));
    descr = kvg_npy_descr_of(t->dtype);
    if (descr == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "tensor", -1, -1,
                            "npy: no .npy storage for dtype %s",
                            kvg_dtype_name(t->dtype));
    if ((uint64_t)t->nbytes != (uint64_t)numel * kvg_dtype_size(t->dtype))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "tensor", -1, -1,
                            "npy: buffer is %lu bytes, shape needs %lu",
                            (unsigned long)t->nbytes,
                            (unsigned long)((uint64_t)numel *
                                            kvg_dtype_size(t->dtype)));
    if (t->data == NULL && t->nbytes != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "tensor", -1, -1,
                            "npy: tensor data pointer is NULL");
    hlen = format_header(t, descr, header, sizeof header);
    /* numpy: padlen = 64 - ((10 + hlen + 1) % 64), so 1..64 spaces; a
     * version 1.0 header is always enough for shapes of rank <= 8. */
    pad = 64 - ((pre + hlen + 1) % 64);
    total = pre + hlen + pad + 1;
    *written = total;
    if (buf == NULL)
        return KVG_OK;
    if (size < total)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "buffer", -1, -1,
                            "npy: buffer holds %lu bytes, %lu needed",
                            (unsigned long)size, (unsigned long)total);
    memcpy(b, k_magic, sizeof k_magic);
    b[6] = 1;
    b[7] = 0;
    b[8] = (unsigned char)((hlen + pad + 1) & 0xFF);
    b[9] = (unsigned char)((hlen + pad + 1) >> 8);
    memcpy(b + pre, header, hlen);
    memset(b + pre + hlen, ' ', pad);
    b[pre + hlen + pad] = '\n';
    return KVG_OK;
}

kvg_status kvg_npy_encode(const kvg_tensor *t, void *buf, size_t size,
                          size_t *written, kvg_diag *diag)
{
    size_t head = 0, total;

    if (t == NULL || written == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL tensor or size pointer");
    KVG_TRY(kvg_npy_encode_header(t, NULL, 0, &head, diag));
    if (t->nbytes > SIZE_MAX - head)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "tensor", -1, -1,
                            "npy: file size overflows size_t");
    total = head + t->nbytes;
    *written = total;
    if (buf == NULL)
        return KVG_OK;
    if (size < total)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "buffer", -1, -1,
                            "npy: buffer holds %lu bytes, %lu needed",
                            (unsigned long)size, (unsigned long)total);
    KVG_TRY(kvg_npy_encode_header(t, buf, size, &head, diag));
    if (t->nbytes != 0)
        memcpy((unsigned char *)buf + head, t->data, t->nbytes);
    return KVG_OK;
}
