/*
 * tools/lib/scan/ttk_csv.c - see ttk_csv.h. The table's reading follows
 * ops-test-kit's ttk/utilities/table_reader.py (read_csv_rows) and its
 * cells' meaning ttk/core_modules/testcase_manager/testcase_e2e.py (e2e
 * rows), testcase_op.py with testcase_base.py (kernel-mode rows) and
 * field_parser.py (hicann/ops-test-kit; docs/ttk.md and docs/scan.md name
 * the commits).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding.h"
#include "case.h"
#include "fileio.h"
#include "json.h"
#include "kvgold/op.h"
#include "ttk_csv.h"

enum {
    C_NAME,
    C_API,
    C_SHAPES,
    C_DTYPES,
    C_STORAGE,
    C_ATTRS,
    C_OUTIDX,
    C_INPLACE,
    C_N
};
/* the e2e CSV's columns (ttk's TestcaseE2e) */
static const char *const k_cols[C_N] = {
    "testcase_name",         "api_name",
    "tensor_view_shapes",    "tensor_dtypes",
    "tensor_storage_shapes", "attributes",
    "output_tensor_indexes", "inplace_input_indexes"};
/* the kernel-mode CSV's (ttk's TestcaseOp): op_name names the kernel and
 * the slots are its inputs; NULL: no such column there */
static const char *const k_kernel_cols[C_N] = {
    "testcase_name", "op_name",    "input_shapes", "input_dtypes",
    NULL,            "attributes", NULL,           NULL};

#define CSV_MAX_BYTES ((size_t)256 << 20)
#define LIT_MAX_NODES 4096
#define LIT_MAX_DEPTH 32

typedef struct cell {
    const char *text; /* NUL-terminated, unescaped, stripped; "" if absent */
    long line, col;   /* of the text's first character */
} cell;

typedef struct rowrec {
    long line;
    cell c[C_N];
} rowrec;

typedef struct byname {
    const char *name;
    size_t row;
} byname;

struct kvg_ttk_csv {
    const char *file;
    int kernel;                /* a kernel-mode CSV */
    const char *const *cols;   /* its column names by C_* */
    char *arena;
    rowrec *rows;
    size_t n;
    byname *order; /* rows sorted by name, then line */
};

static kvg_status fail_at(kvg_diag *diag, const char *file, long line, long col,
                          const char *field, const char *fmt, const char *a,
                          const char *b)
{
    char what[256];
    (void)snprintf(what, sizeof what, fmt, a, b);
    if (col > 0)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, field, -1, -1,
                            "%s: line %ld, column %ld (%s): %s", file, line,
                            col,
                            field, what);
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, field, -1, -1,
                        "%s: line %ld (%s): %s", file, line, field, what);
}

/* ---- the CSV layer ------------------------------------------------------ */

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' ||
           ch == '\f';
}

typedef struct field {
    char *text;
    long line, col;
} field;

/* The records of `text`: fields unescaped into the arena. */
typedef struct reader {
    const char *p, *end, *file;
    long line, col; /* of *p */
    char *out;      /* arena cursor */
} reader;

static void advance(reader *r)
{
    if (*r->p == '\n' ||
        (*r->p == '\r' && (r->p + 1 >= r->end || r->p[1] != '\n'))) {
        r->line++;
        r->col = 1;
    } else {
        r->col++;
    }
    r->p++;
}

/* A quoted field's text (r->p at its opening quote) into the arena, ""
 * unescaped, up to the delimiter after the closing quote; *line, *col
 * where its text starts. Returns 0, or -1 with diag. */
static int read_quoted(reader *r, long *line, long *col, kvg_diag *diag)
{
    const long qline = r->line, qcol = r->col;

    advance(r);
    *line = r->line;
    *col = r->col;
    for (;;) {
        if (r->p >= r->end) {
            fail_at(diag, r->file, qline, qcol, "csv",
                    "a quoted field is not closed (the quote opened "
                    "here)%s%s",
                    "", "");
            return -1;
        }
        if (*r->p == '\0') {
            fail_at(diag, r->file, r->line, r->col, "csv", "a NUL byte%s%s",
                    "", "");
            return -1;
        }
        if (*r->p == '"') {
            if (r->p + 1 < r->end && r->p[1] == '"') {
                *r->out++ = '"';
                advance(r);
                advance(r);
                continue;
            }
            advance(r);
            break;
        }
        *r->out++ = *r->p;
        advance(r);
    }
    /* after the closing quote: blanks, then a delimiter */
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
        advance(r);
    if (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r') {
        fail_at(diag, r->file, r->line, r->col, "csv",
                "text after a closing quote (a quote inside a quoted "
                "field is written \"\")%s%s",
                "", "");
        return -1;
    }
    return 0;
}

/* An unquoted field's text into the arena, up to the delimiter. Returns
 * 0, or -1 with diag. */
static int read_plain(reader *r, kvg_diag *diag)
{
    while (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r') {
        if (*r->p == '\0') {
            fail_at(diag, r->file, r->line, r->col, "csv", "a NUL byte%s%s",
                    "", "");
            return -1;
        }
        *r->out++ = *r->p;
        advance(r);
    }
    return 0;
}

/* Past the delimiter that ends a field: 1 when it ended the record. */
static int end_field(reader *r)
{
    if (r->p >= r->end)
        return 1;
    if (*r->p == ',') {
        advance(r);
        return 0;
    }
    if (*r->p == '\r' && r->p + 1 < r->end && r->p[1] == '\n')
        advance(r);
    advance(r);
    return 1;
}

/* The field text at `start`, stripped as ops-test-kit strips every cell;
 * (line, col) moved past the leading blanks. */
static void strip_field(char *start, long line, long col, field *f)
{
    char *s = start, *e;

    while (*s != '\0' && is_space(*s)) {
        if (*s == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        s++;
    }
    e = s + strlen(s);
    while (e > s && is_space(e[-1]))
        *--e = '\0';
    f->text = s;
    f->line = line;
    f->col = col;
}

/* One field at r->p into the arena; *eor set at the end of a record.
 * Returns 0, or -1 with diag. */
static int read_field(reader *r, field *f, int *eor, kvg_diag *diag)
{
    char *start = r->out;
    long line = r->line, col = r->col;
    const int quoted = r->p < r->end && *r->p == '"';

    *eor = 0;
    if (quoted ? read_quoted(r, &line, &col, diag) != 0
               : read_plain(r, diag) != 0)
        return -1;
    *r->out++ = '\0';
    *eor = end_field(r);
    strip_field(start, line, col, f);
    return 0;
}

/* ---- Python literals -------------------------------------------------- */

typedef enum vtype {
    V_NONE,
    V_BOOL,
    V_INT,
    V_FLOAT,
    V_STR,
    V_TUPLE,
    V_LIST,
    V_DICT
} vtype;

typedef struct val {
    vtype t;
    int b;
    const char *s; /* numbers: their text; strings: decoded */
    size_t len;
    int child, next, count; /* dict: children alternate key, value */
} val;

typedef struct lit {
    val v[LIT_MAX_NODES];
    int n;
    char *sbuf;
    size_t sused;
    const char *p, *start;
    const char *err; /* NULL, or what is wrong at err_at */
    const char *err_at;
} lit;

static void lws(lit *L)
{
    while (*L->p != '\0' && is_space(*L->p))
        L->p++;
}

static int lerr(lit *L, const char *what)
{
    if (L->err == NULL) {
        L->err = what;
        L->err_at = L->p;
    }
    return -1;
}

static int node(lit *L, vtype t)
{
    if (L->n == LIT_MAX_NODES)
        return lerr(L, "too many elements for kvgold");
    memset(&L->v[L->n], 0, sizeof L->v[0]);
    L->v[L->n].t = t;
    L->v[L->n].child = L->v[L->n].next = -1;
    return L->n++;
}

static int parse_value(lit *L, int depth);

/* Elements up to `close`; *commas counts the separators. */
static int parse_seq(lit *L, int k, char close, int depth, int *commas)
{
    int last = -1;
    *commas = 0;
    lws(L);
    while (*L->p != close) {
        int e;
        if (*L->p == '\0')
            return lerr(L, close == ')' ? "no closing ')'" : "no closing ']'");
        if ((e = parse_value(L, depth + 1)) < 0)
            return -1;
        if (last < 0)
            L->v[k].child = e;
        else
            L->v[last].next = e;
        last = e;
        L->v[k].count++;
        lws(L);
        if (*L->p == ',') {
            (*commas)++;
            L->p++;
            lws(L);
        } else if (*L->p != close) {
            return lerr(L, close == ')' ? "expected ',' or ')'"
                                        : "expected ',' or ']'");
        }
    }
    L->p++;
    return k;
}

static int parse_string(lit *L)
{
    char q = *L->p++;
    int k = node(L, V_STR);
    char *out = L->sbuf + L->sused;
    size_t n = 0;
    if (k < 0)
        return -1;
    for (;;) {
        char ch = *L->p;
        if (ch == '\0' || ch == '\n')
            return lerr(L, "a string is not closed");
        L->p++;
        if (ch == q)
            break;
        if (ch == '\\') {
            ch = *L->p++;
            switch (ch) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case '\\':
            case '\'':
            case '"': break;
            default: L->p--; return lerr(L, "an escape kvgold does not read");
            }
        }
        out[n++] = ch;
    }
    out[n] = '\0';
    L->sused += n + 1;
    L->v[k].s = out;
    L->v[k].len = n;
    return k;
}

static int parse_number(lit *L)
{
    const char *s = L->p;
    int digits = 0, k, is_float = 0;
    if (*L->p == '-' || *L->p == '+')
        L->p++;
    while (*L->p >= '0' && *L->p <= '9') {
        L->p++;
        digits++;
    }
    if (*L->p == '.') {
        is_float = 1;
        L->p++;
        while (*L->p >= '0' && *L->p <= '9') {
            L->p++;
            digits++;
        }
    }
    if (digits == 0) {
        L->p = s;
        return lerr(L, "not a value");
    }
    {
        /* Python refuses 007 (but takes 0, 00 and 0.5) */
        const char *d = s + (*s == '-' || *s == '+');
        const char *q = d;
        while (*q == '0')
            q++;
        if (!is_float && *L->p != 'e' && *L->p != 'E' && q > d && *q >= '1' &&
            *q <= '9') {
            L->p = s;
            return lerr(L, "an integer with a leading zero");
        }
    }
    if (*L->p == 'e' || *L->p == 'E') {
        const char *e = L->p++;
        is_float = 1;
        if (*L->p == '-' || *L->p == '+')
            L->p++;
        if (*L->p < '0' || *L->p > '9') {
            L->p = e;
            return lerr(L, "an exponent without digits");
        }
        while (*L->p >= '0' && *L->p <= '9')
            L->p++;
    }
    if ((k = node(L, is_float ? V_FLOAT : V_INT)) < 0)
        return -1;
    L->v[k].s = s;
    L->v[k].len = (size_t)(L->p - s);
    return k;
}

/* {key: value, ...} after its '{'. */
static int parse_dict(lit *L, int depth)
{
    int k, last = -1;

    if ((k = node(L, V_DICT)) < 0)
        return -1;
    lws(L);
    while (*L->p != '}') {
        int key, v;
        if (*L->p == '\0')
            return lerr(L, "no closing '}'");
        if ((key = parse_value(L, depth + 1)) < 0)
            return -1;
        lws(L);
        if (*L->p != ':')
            return lerr(L, "expected ':'");
        L->p++;
        if ((v = parse_value(L, depth + 1)) < 0)
            return -1;
        if (last < 0)
            L->v[k].child = key;
        else
            L->v[last].next = key;
        L->v[key].next = v;
        last = v;
        L->v[k].count++;
        lws(L);
        if (*L->p == ',') {
            L->p++;
            lws(L);
        } else if (*L->p != '}') {
            return lerr(L, "expected ',' or '}'");
        }
    }
    L->p++;
    return k;
}

/* None, True or False at L->p; -2 when it is none of them. */
static int parse_word(lit *L)
{
    static const struct {
        const char *w;
        vtype t;
        int b;
    } k_words[] = {
        {"None", V_NONE, 0}, {"True", V_BOOL, 1}, {"False", V_BOOL, 0}};
    size_t i, n = 0;
    int k;

    while ((L->p[n] >= 'a' && L->p[n] <= 'z') ||
           (L->p[n] >= 'A' && L->p[n] <= 'Z') || L->p[n] == '_' ||
           (n > 0 && L->p[n] >= '0' && L->p[n] <= '9'))
        n++;
    for (i = 0; i < sizeof k_words / sizeof k_words[0]; i++)
        if (n == strlen(k_words[i].w) && strncmp(L->p, k_words[i].w, n) == 0) {
            if ((k = node(L, k_words[i].t)) < 0)
                return -1;
            L->v[k].b = k_words[i].b;
            L->p += n;
            return k;
        }
    return -2;
}

static int parse_value(lit *L, int depth)
{
    int k, commas;
    lws(L);
    if (depth > LIT_MAX_DEPTH)
        return lerr(L, "nested too deeply");
    switch (*L->p) {
    case '(':
        L->p++;
        if ((k = node(L, V_TUPLE)) < 0 ||
            parse_seq(L, k, ')', depth, &commas) < 0)
            return -1;
        /* (x) is x; (x,) and () are tuples */
        if (L->v[k].count == 1 && commas == 0)
            return L->v[k].child;
        return k;
    case '[':
        L->p++;
        if ((k = node(L, V_LIST)) < 0)
            return -1;
        return parse_seq(L, k, ']', depth, &commas);
    case '{':
        L->p++;
        return parse_dict(L, depth);
    case '\'':
    case '"': return parse_string(L);
    default: break;
    }
    if ((*L->p >= '0' && *L->p <= '9') || *L->p == '-' || *L->p == '+' ||
        *L->p == '.')
        return parse_number(L);
    if ((k = parse_word(L)) != -2)
        return k;
    return lerr(L, "not a value kvgold reads (a tuple, list, dict, "
                   "string, number, True, False or None)");
}

/* Parse cell c of row r as one literal; -1 with diag when malformed. */
static int parse_cell(lit *L, const char *file, const cell *c,
                      const char *colname, kvg_diag *diag)
{
    int k;
    L->n = 0;
    L->sused = 0;
    L->err = NULL;
    L->p = L->start = c->text;
    k = parse_value(L, 0);
    if (k >= 0) {
        lws(L);
        if (*L->p != '\0') {
            lerr(L, "text after the value");
            k = -1;
        }
    }
    if (k < 0) {
        long col = c->col + (long)(L->err_at - L->start);
        const char *nl;
        long line = c->line;
        /* a cell spanning lines: count them */
        for (nl = L->start; nl < L->err_at; nl++)
            if (*nl == '\n') {
                line++;
                col = (long)(L->err_at - nl);
            }
        fail_at(diag, file, line, col, colname, "%s (in \"%.60s\")", L->err,
                c->text);
        return -1;
    }
    return k;
}

/* ---- a row's meaning ---------------------------------------------------- */

static void problem(kvg_ttk_row *row, const char *fmt, const char *a,
                    const char *b)
{
    if (row->problem[0] == '\0')
        (void)snprintf(row->problem, sizeof row->problem, fmt, a, b);
}

static int is_seq(const val *v)
{
    return v->t == V_TUPLE || v->t == V_LIST;
}

/* A shape of ints into rank / shape; 0 if it is not one. */
static int shape_of(const lit *L, const val *v, kvg_ttk_row *row,
                    const char *col, int *rank, int64_t *shape)
{
    int e;
    *rank = 0;
    for (e = v->child; e >= 0; e = L->v[e].next) {
        char *end;
        long long d;
        if (L->v[e].t != V_INT)
            return 0;
        errno = 0;
        d = strtoll(L->v[e].s, &end, 10);
        if (errno != 0 || d < 0) {
            problem(row, "%s: a dimension kvgold cannot take (%s)", col,
                    L->v[e].s);
            return 1;
        }
        if (*rank == KVG_MAX_RANK) {
            problem(row,
                    "%s: a shape of more dimensions than kvgold "
                    "takes%s",
                    col, "");
            return 1;
        }
        shape[(*rank)++] = (int64_t)d;
    }
    return 1;
}

/* The flat slots of a shapes column (view: into rank/shape; storage: into
 * srank/sshape), and per top-level element its group size (0: a single
 * tensor) in dist. Returns the flat count, or -1 with diag. */
static int flat_shapes(const lit *L, int top, kvg_ttk_row *row, int storage,
                       const char *col, int *dist, int *n_top,
                       const char *file, const cell *c, kvg_diag *diag)
{
    const val *t = &L->v[top];
    int e, n = 0, all_int = 1;
    kvg_ttk_slot scratch;

    *n_top = 0;
    if (!is_seq(t)) {
        fail_at(diag, file, c->line, c->col, col, "not a tuple of shapes%s%s",
                "", "");
        return -1;
    }
    for (e = t->child; e >= 0; e = L->v[e].next)
        all_int &= L->v[e].t == V_INT;
    if (all_int && t->count > 0) {
        /* (2,3): one tensor */
        kvg_ttk_slot *s = n < KVG_SCAN_MAX_ARGS ? &row->slot[n] : &scratch;
        (void)shape_of(L, t, row, col, storage ? &s->srank : &s->rank,
                       storage ? s->sshape : s->shape);
        dist[0] = 0;
        *n_top = 1;
        return 1;
    }
    for (e = t->child; e >= 0; e = L->v[e].next) {
        const val *x = &L->v[e];
        int members = 0, m;
        if (*n_top < KVG_SCAN_MAX_ARGS)
            dist[*n_top] = 0;
        (*n_top)++;
        if (x->t == V_NONE) {
            if (n < KVG_SCAN_MAX_ARGS && !storage)
                row->slot[n].none = 1;
            n++;
            continue;
        }
        if (!is_seq(x)) {
            fail_at(diag, file, c->line, c->col, col,
                    "an element is neither a shape nor None%s%s", "", "");
            return -1;
        }
        if (x->count > 0 && is_seq(&L->v[x->child])) {
            /* a TensorList: its members are flat slots */
            for (m = x->child; m >= 0; m = L->v[m].next, members++) {
                kvg_ttk_slot *s =
                    n < KVG_SCAN_MAX_ARGS ? &row->slot[n] : &scratch;
                if (L->v[m].t == V_NONE) {
                    if (!storage)
                        s->none = 1;
                } else if (!is_seq(&L->v[m]) ||
                           !shape_of(L, &L->v[m], row, col,
                                     storage ? &s->srank : &s->rank,
                                     storage ? s->sshape : s->shape)) {
                    fail_at(diag, file, c->line, c->col, col,
                            "a TensorList member is not a shape of "
                            "integers%s%s",
                            "", "");
                    return -1;
                }
                n++;
            }
            if (*n_top <= KVG_SCAN_MAX_ARGS)
                dist[*n_top - 1] = members;
            continue;
        }
        {
            kvg_ttk_slot *s = n < KVG_SCAN_MAX_ARGS ? &row->slot[n] : &scratch;
            if (!shape_of(L, x, row, col, storage ? &s->srank : &s->rank,
                          storage ? s->sshape : s->shape)) {
                fail_at(diag, file, c->line, c->col, col,
                        "a shape is not a tuple of integers%s%s", "", "");
                return -1;
            }
        }
        n++;
    }
    return n;
}

static void set_dtype(kvg_ttk_row *row, int i, const val *v)
{
    char a[16];
    if (i >= KVG_SCAN_MAX_ARGS || i >= row->n)
        return;
    if (v->t == V_STR && v->len < sizeof row->slot[i].dtype) {
        memcpy(row->slot[i].dtype, v->s, v->len + 1);
        return;
    }
    (void)snprintf(a, sizeof a, "%d", i);
    if (v->t != V_NONE)
        problem(row,
                "tensor_dtypes: the dtype of tensor %s is no dtype "
                "name%s",
                a, "");
}

/* tensor_dtypes onto the flat slots, as ops-test-kit's flat_tensor_dtypes
 * spreads them: one per slot, one per top-level element (a TensorList's
 * shared or its own), or one for all. */
static void flat_dtypes(const lit *L, int top, kvg_ttk_row *row,
                        const int *dist, int n_top)
{
    const val *t = &L->v[top];
    int e, i = 0, k = 0, grouped = 0;

    for (k = 0; k < n_top && k < KVG_SCAN_MAX_ARGS; k++)
        grouped |= dist[k] > 0;
    if (!is_seq(t)) {
        /* 'float16': one for all */
        for (i = 0; i < row->n; i++)
            set_dtype(row, i, t);
        return;
    }
    if (t->count == row->n) {
        for (e = t->child; e >= 0; e = L->v[e].next, i++)
            if (is_seq(&L->v[e]))
                problem(row,
                        "tensor_dtypes: a group where one dtype per "
                        "tensor was expected%s%s",
                        "", "");
            else
                set_dtype(row, i, &L->v[e]);
        return;
    }
    if (grouped && t->count == n_top) {
        for (e = t->child, k = 0; e >= 0; e = L->v[e].next, k++) {
            int members = k < KVG_SCAN_MAX_ARGS ? dist[k] : 0, m;
            if (members == 0) {
                set_dtype(row, i++, &L->v[e]);
            } else if (is_seq(&L->v[e])) {
                if (L->v[e].count != members)
                    problem(row,
                            "tensor_dtypes: a TensorList's dtypes do "
                            "not match its shapes%s%s",
                            "", "");
                for (m = L->v[e].child; m >= 0; m = L->v[m].next)
                    set_dtype(row, i++, &L->v[m]);
            } else {
                for (m = 0; m < members; m++)
                    set_dtype(row, i++, &L->v[e]);
            }
        }
        return;
    }
    if (t->count == 1) {
        const val *one = &L->v[t->child];
        if (is_seq(one) && one->count == 1)
            one = &L->v[one->child];
        for (i = 0; i < row->n; i++)
            set_dtype(row, i, one);
        return;
    }
    {
        char a[16], b[16];
        (void)snprintf(a, sizeof a, "%d", t->count);
        (void)snprintf(b, sizeof b, "%d", row->n);
        problem(row, "tensor_dtypes: %s dtypes for %s tensors", a, b);
    }
}

/* input_dtypes of a kernel-mode row onto the flat slots, as ops-test-kit's
 * kernel testcase normalises it (TestcaseOp.validate ->
 * _normalize_compressed_fields -> TestcaseBase._normalize_field_by_dist;
 * the column's default () gives no pad value): one dtype for every input
 * (a bare name, or a tuple of one), or one per top-level input - a
 * TensorList's its own tuple of one per member or of one for all, or a
 * bare name for all. Any other count makes ops-test-kit mark the testcase
 * invalid (CASE_FIELD_AMBIGUOUS); here it is the row's problem. An
 * optional input left out is None in input_shapes; its dtype may be None
 * or a name (ops-test-kit's examples write both). */
static void kernel_dtypes(const lit *L, int top, kvg_ttk_row *row,
                          const int *dist, int n_top)
{
    const val *t = &L->v[top];
    const val *one = NULL;
    int e, i = 0, k, m;
    char a[16], b[16];

    if (!is_seq(t)) {
        one = t;
    } else if (t->count == 1) {
        one = &L->v[t->child];
        if (is_seq(one) && one->count == 1)
            one = &L->v[one->child]; /* (('float16',),) */
        else if (is_seq(one) && n_top > 1)
            one = NULL; /* (('a','b'),) for several inputs */
    }
    if (one != NULL && !is_seq(one)) {
        for (i = 0; i < row->n; i++)
            set_dtype(row, i, one);
        return;
    }
    if (!is_seq(t) || t->count != n_top) {
        (void)snprintf(a, sizeof a, "%d", is_seq(t) ? t->count : 1);
        (void)snprintf(b, sizeof b, "%d", n_top);
        problem(row,
                "input_dtypes: %s dtypes for %s inputs (ops-test-kit takes "
                "one for all or one per input, and marks this testcase "
                "invalid: CASE_FIELD_AMBIGUOUS)",
                a, b);
        return;
    }
    for (e = t->child, k = 0; e >= 0; e = L->v[e].next, k++) {
        const val *x = &L->v[e];
        int members = k < KVG_SCAN_MAX_ARGS ? dist[k] : 0;
        if (members == 0) {
            if (is_seq(x))
                problem(row,
                        "input_dtypes: a tuple of dtypes for an input "
                        "that is no TensorList%s%s",
                        "", "");
            else
                set_dtype(row, i, x);
            i++;
        } else if (!is_seq(x)) {
            for (m = 0; m < members; m++)
                set_dtype(row, i++, x);
        } else if (x->count == members || x->count == 1) {
            int c = x->child;
            for (m = 0; m < members; m++) {
                set_dtype(row, i++, &L->v[c]);
                if (x->count > 1)
                    c = L->v[c].next;
            }
        } else {
            problem(row,
                    "input_dtypes: a TensorList's dtypes do not match its "
                    "shapes (ops-test-kit: CASE_FIELD_AMBIGUOUS)%s%s",
                    "", "");
            i += members;
        }
    }
}

/* inplace_input_indexes (ops-test-kit's int_container: empty (), an
 * integer or a tuple / list of them) into row->inplace, sorted, as
 * ops-test-kit appends those slots; what it cannot use is the row's
 * problem. */
static void inplace_of(const lit *L, int top, kvg_ttk_row *row)
{
    const val *t = &L->v[top];
    int e, i, j;

    row->n_inplace = 0;
    if (t->t == V_NONE)
        return;
    for (e = is_seq(t) ? t->child : top; e >= 0;
         e = is_seq(t) ? L->v[e].next : -1) {
        char *end;
        long long d;
        if (L->v[e].t != V_INT) {
            problem(row,
                    "inplace_input_indexes: an element that is no slot "
                    "index (ops-test-kit compares it with the argument "
                    "count)%s%s",
                    "", "");
            return;
        }
        errno = 0;
        d = strtoll(L->v[e].s, &end, 10);
        if (errno != 0 || d < 0 || d >= KVG_SCAN_MAX_ARGS) {
            char a[32];
            (void)snprintf(a, sizeof a, "%.*s", (int)L->v[e].len, L->v[e].s);
            problem(row, "inplace_input_indexes: %s is no input slot%s", a,
                    "");
            return;
        }
        /* sorted(), as ops-test-kit iterates it: a slot given twice is
         * appended twice */
        for (i = 0; i < row->n_inplace && row->inplace[i] <= (int)d; i++)
            ;
        if (row->n_inplace == KVG_SCAN_MAX_ARGS)
            return;
        for (j = row->n_inplace; j > i; j--)
            row->inplace[j] = row->inplace[j - 1];
        row->inplace[i] = (int)d;
        row->n_inplace++;
    }
}

/* A Python value as JSON text; 0 if it has no JSON form kvgold takes. */
static int to_json(const lit *L, const val *v, char *out, size_t cap,
                   size_t *used)
{
    int e;
#define PUT(...)                                                               \
    do {                                                                       \
        int w_ = snprintf(out + *used, cap - *used, __VA_ARGS__);              \
        if (w_ < 0 || (size_t)w_ >= cap - *used)                               \
            return 0;                                                          \
        *used += (size_t)w_;                                                   \
    } while (0)
    switch (v->t) {
    case V_NONE: PUT("null"); return 1;
    case V_BOOL: PUT("%s", v->b ? "true" : "false"); return 1;
    case V_INT: {
        const char *s = v->s;
        size_t len = v->len;
        if (*s == '+') {
            s++;
            len--;
        }
        PUT("%.*s", (int)len, s);
        return 1;
    }
    case V_FLOAT: {
        char tmp[64];
        double d;
        if (v->len >= sizeof tmp)
            return 0;
        memcpy(tmp, v->s, v->len);
        tmp[v->len] = '\0';
        d = strtod(tmp, NULL);
        /* the shortest text that reads back as the same double */
        {
            int prec;
            char best[40];
            for (prec = 1; prec <= 17; prec++) {
                (void)snprintf(best, sizeof best, "%.*g", prec, d);
                if (strtod(best, NULL) == d)
                    break;
            }
            if (strchr(best, 'n') != NULL || strchr(best, 'i') != NULL)
                return 0; /* inf, nan */
            PUT("%s%s", best, strpbrk(best, ".e") == NULL ? ".0" : "");
        }
        return 1;
    }
    case V_STR: {
        size_t i;
        PUT("\"");
        for (i = 0; i < v->len; i++) {
            unsigned char ch = (unsigned char)v->s[i];
            if (ch == '"' || ch == '\\')
                PUT("\\%c", ch);
            else if (ch < 0x20)
                PUT("\\u%04x", ch);
            else
                PUT("%c", ch);
        }
        PUT("\"");
        return 1;
    }
    case V_TUPLE:
    case V_LIST:
        PUT("[");
        for (e = v->child; e >= 0; e = L->v[e].next) {
            if (e != v->child)
                PUT(",");
            if (!to_json(L, &L->v[e], out, cap, used))
                return 0;
        }
        PUT("]");
        return 1;
    default: return 0;
    }
#undef PUT
}

static void attrs_of(const lit *L, int top, kvg_ttk_row *row)
{
    const val *d = &L->v[top];
    int e;
    for (e = d->child; e >= 0; e = L->v[L->v[e].next].next) {
        const val *key = &L->v[e], *v = &L->v[L->v[e].next];
        size_t used = 0;
        if (key->t != V_STR || key->len >= KVG_SCAN_NAME_MAX) {
            problem(row, "attributes: a key that is no argument name%s%s", "",
                    "");
            continue;
        }
        if (v->t == V_NONE)
            continue; /* None: the argument's default */
        if (row->n_attrs == KVG_SCAN_MAX_ARGS) {
            problem(row, "attributes: more than kvgold takes%s%s", "", "");
            return;
        }
        if (!to_json(L, v, row->value[row->n_attrs], KVG_SCAN_VALUE_MAX,
                     &used)) {
            problem(row, "attributes: %s: a value kvgold cannot take%s", key->s,
                    "");
            continue;
        }
        memcpy(row->key[row->n_attrs], key->s, key->len + 1);
        row->n_attrs++;
    }
}

/* Row r of t into *row: the literals parsed, the slots flattened.
 * -1 with diag when a cell is malformed. */
/* The row's name, api and empty slots. */
static void row_head(const kvg_ttk_csv *t, const rowrec *r, kvg_ttk_row *row)
{
    int i;

    memset(row, 0, sizeof *row);
    row->file = t->file;
    row->line = r->line;
    row->kernel = t->kernel;
    row->n_inplace = -1;
    (void)snprintf(row->name, sizeof row->name, "%s", r->c[C_NAME].text);
    if (strlen(r->c[C_API].text) >= sizeof row->api)
        problem(row, "%s: longer than kvgold reads%s", t->cols[C_API], "");
    (void)snprintf(row->api, sizeof row->api, "%s", r->c[C_API].text);
    for (i = 0; i < KVG_SCAN_MAX_ARGS; i++)
        row->slot[i].srank = -1;
}

/* The shapes cell: row->n tensors; dist / *n_top how they sit in the
 * cell's nesting (for the dtypes). */
static int row_shapes(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                      kvg_ttk_row *row, int *dist, int *n_top,
                      kvg_diag *diag)
{
    const char *const *cols = t->cols;
    int k, n;

    if (r->c[C_SHAPES].text[0] == '\0') {
        problem(row, "%s is empty%s", cols[C_SHAPES], "");
        return 0;
    }
    if ((k = parse_cell(L, t->file, &r->c[C_SHAPES], cols[C_SHAPES],
                        diag)) < 0 ||
        (n = flat_shapes(L, k, row, 0, cols[C_SHAPES], dist, n_top,
                         t->file, &r->c[C_SHAPES], diag)) < 0)
        return -1;
    row->n = n;
    if (n > KVG_SCAN_MAX_ARGS) {
        char a[16];
        (void)snprintf(a, sizeof a, "%d", n);
        problem(row, "%s: %s tensors, more than kvgold takes",
                cols[C_SHAPES], a);
        row->n = KVG_SCAN_MAX_ARGS;
    }
    return 0;
}

static int row_dtypes(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                      kvg_ttk_row *row, const int *dist, int n_top,
                      kvg_diag *diag)
{
    int k;

    if (r->c[C_DTYPES].text[0] == '\0')
        return 0;
    if ((k = parse_cell(L, t->file, &r->c[C_DTYPES], t->cols[C_DTYPES],
                        diag)) < 0)
        return -1;
    if (t->kernel)
        kernel_dtypes(L, k, row, dist, n_top);
    else
        flat_dtypes(L, k, row, dist, n_top);
    return 0;
}

/* tensor_storage_shapes: one per tensor, or the row says why not. */
static int row_storage(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                       kvg_ttk_row *row, kvg_diag *diag)
{
    int sdist[KVG_SCAN_MAX_ARGS], s_top = 0, k, i, n;
    kvg_ttk_row tmp;

    if (r->c[C_STORAGE].text[0] == '\0')
        return 0;
    if ((k = parse_cell(L, t->file, &r->c[C_STORAGE], t->cols[C_STORAGE],
                        diag)) < 0)
        return -1;
    if (L->v[k].t == V_TUPLE && L->v[k].count == 0)
        return 0;
    memcpy(&tmp, row, sizeof tmp);
    if ((n = flat_shapes(L, k, &tmp, 1, t->cols[C_STORAGE], sdist, &s_top,
                         t->file, &r->c[C_STORAGE], diag)) < 0)
        return -1;
    if (n == row->n) {
        for (i = 0; i < row->n; i++) {
            row->slot[i].srank = tmp.slot[i].srank;
            memcpy(row->slot[i].sshape, tmp.slot[i].sshape,
                   sizeof row->slot[i].sshape);
        }
    } else {
        problem(row,
                "tensor_storage_shapes: not one per "
                "tensor%s%s",
                "", "");
    }
    if (tmp.problem[0] != '\0')
        problem(row, "%s%s", tmp.problem, "");
    return 0;
}

static int row_attrs_cell(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                          kvg_ttk_row *row, kvg_diag *diag)
{
    int k;

    if (r->c[C_ATTRS].text[0] == '\0')
        return 0;
    if ((k = parse_cell(L, t->file, &r->c[C_ATTRS], t->cols[C_ATTRS],
                        diag)) < 0)
        return -1;
    if (L->v[k].t == V_DICT) {
        attrs_of(L, k, row);
    } else if (L->v[k].t != V_NONE) {
        fail_at(diag, t->file, r->c[C_ATTRS].line, r->c[C_ATTRS].col,
                t->cols[C_ATTRS], "not a dict%s%s", "", "");
        return -1;
    }
    return 0;
}

/* output_tensor_indexes (out= tensors: none) and inplace_input_indexes. */
static int row_indexes(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                       kvg_ttk_row *row, kvg_diag *diag)
{
    const char *const *cols = t->cols;
    int k;

    if (r->c[C_OUTIDX].text[0] != '\0') {
        if ((k = parse_cell(L, t->file, &r->c[C_OUTIDX], cols[C_OUTIDX],
                            diag)) < 0)
            return -1;
        if (!(is_seq(&L->v[k]) && L->v[k].count == 0) && L->v[k].t != V_NONE)
            problem(row,
                    "output_tensor_indexes names out= tensors, which "
                    "kvgold's operators do not take%s%s",
                    "", "");
    }
    if (r->c[C_INPLACE].text[0] != '\0') {
        if ((k = parse_cell(L, t->file, &r->c[C_INPLACE], cols[C_INPLACE],
                            diag)) < 0)
            return -1;
        if (!is_seq(&L->v[k]) && L->v[k].t != V_INT && L->v[k].t != V_NONE) {
            fail_at(diag, t->file, r->c[C_INPLACE].line, r->c[C_INPLACE].col,
                    cols[C_INPLACE], "not a tuple of slot indexes%s%s", "",
                    "");
            return -1;
        }
        inplace_of(L, k, row);
    }
    return 0;
}

static int fill_row(const kvg_ttk_csv *t, const rowrec *r, lit *L,
                    kvg_ttk_row *row, kvg_diag *diag)
{
    int dist[KVG_SCAN_MAX_ARGS], n_top = 0;

    row_head(t, r, row);
    if (row_shapes(t, r, L, row, dist, &n_top, diag) < 0 ||
        row_dtypes(t, r, L, row, dist, n_top, diag) < 0 ||
        row_storage(t, r, L, row, diag) < 0 ||
        row_attrs_cell(t, r, L, row, diag) < 0 ||
        row_indexes(t, r, L, row, diag) < 0)
        return -1;
    return 0;
}

/* ---- the table ---------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    const byname *x = (const byname *)a, *y = (const byname *)b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : x->row < y->row ? -1 : x->row > y->row;
}

void kvg_ttk_csv_free(kvg_ttk_csv *t)
{
    if (t == NULL)
        return;
    free(t->arena);
    free(t->rows);
    free(t->order);
    free(t);
}

/* What kvg_ttk_csv_parse carries from record to record. */
#define CSV_MAX_COLS (KVG_SCAN_MAX_ARGS * 8)
typedef struct csv_parse {
    kvg_ttk_csv *t;
    reader r;
    const char *file;
    int map[CSV_MAX_COLS];         /* header column -> C_* or -1 */
    const char *hdr[CSV_MAX_COLS]; /* the header's names */
    long hcol[CSV_MAX_COLS];
    int n_header, header_done;
    size_t cap; /* of t->rows */
} csv_parse;

/* One record: the header's names into p->hdr, or a row's cells into rec;
 * *nf the fields read, *blank whether all were empty. */
static kvg_status read_record(csv_parse *p, rowrec *rec, int *nf, int *blank,
                              kvg_diag *diag)
{
    static const char empty[] = "";
    long line = p->r.line;
    int eor = 0, i;
    field f;

    memset(rec, 0, sizeof *rec);
    rec->line = line;
    for (i = 0; i < C_N; i++) {
        rec->c[i].text = empty;
        rec->c[i].line = line;
    }
    *nf = 0;
    *blank = 1;
    while (!eor) {
        if (read_field(&p->r, &f, &eor, diag) != 0)
            return KVG_ERR_FILE_FORMAT;
        *blank &= f.text[0] == '\0';
        if (!p->header_done) {
            if (*nf == CSV_MAX_COLS)
                return fail_at(diag, p->file, line, f.col, "header",
                               "more columns than kvgold reads%s%s", "", "");
            p->hdr[*nf] = f.text;
            p->hcol[*nf] = f.col;
            (*nf)++;
            continue;
        }
        if (*nf >= p->n_header) {
            if (f.text[0] != '\0') {
                char a[16];
                (void)snprintf(a, sizeof a, "%d", p->n_header);
                return fail_at(diag, p->file, f.line, f.col, "csv",
                               "more fields than the header's %s columns%s",
                               a, "");
            }
        } else if (p->map[*nf] >= 0) {
            rec->c[p->map[*nf]].text = f.text;
            rec->c[p->map[*nf]].line = f.line;
            rec->c[p->map[*nf]].col = f.col;
        }
        (*nf)++;
    }
    return KVG_OK;
}

/* Which of ops-test-kit's two CSVs the header's nf names are: ttk e2e
 * reads tensor_view_shapes and api_name, ttk kernel input_shapes and
 * op_name. */
static kvg_status header_kind(csv_parse *p, int nf, long line, kvg_diag *diag)
{
    int e2e = 0, kernel = 0, op_name = 0, api_name = 0, i;

    for (i = 0; i < nf; i++) {
        e2e |= strcmp(p->hdr[i], k_cols[C_SHAPES]) == 0;
        kernel |= strcmp(p->hdr[i], k_kernel_cols[C_SHAPES]) == 0;
        api_name |= strcmp(p->hdr[i], k_cols[C_API]) == 0;
        op_name |= strcmp(p->hdr[i], k_kernel_cols[C_API]) == 0;
    }
    if (!e2e && !kernel)
        kernel = op_name && !api_name;
    if (e2e && kernel)
        return fail_at(diag, p->file, line, 0, "header",
                       "both tensor_view_shapes (ops-test-kit's e2e CSV) and "
                       "input_shapes (its kernel-mode CSV): which of `ttk "
                       "e2e` and `ttk kernel` reads the file is not in it%s%s",
                       "", "");
    p->t->kernel = kernel;
    p->t->cols = kernel ? k_kernel_cols : k_cols;
    return KVG_OK;
}

/* The header record of nf names: the CSV's kind, and each column's
 * meaning, none twice, the name and the shapes present. */
static kvg_status take_header(csv_parse *p, int nf, long line, kvg_diag *diag)
{
    const char *const *cols;
    int has_name = 0, has_shapes = 0, i, j;

    p->n_header = nf;
    KVG_TRY(header_kind(p, nf, line, diag));
    cols = p->t->cols;
    for (j = 0; j < nf; j++) {
        p->map[j] = -1;
        for (i = 0; i < C_N; i++)
            if (cols[i] != NULL && strcmp(p->hdr[j], cols[i]) == 0)
                p->map[j] = i;
        for (i = 0; i < j && p->map[j] >= 0; i++)
            if (p->map[i] == p->map[j])
                return fail_at(diag, p->file, line, p->hcol[j], "header",
                               "column %s given twice%s", p->hdr[j], "");
        has_name |= p->map[j] == C_NAME;
        has_shapes |= p->map[j] == C_SHAPES;
    }
    if (!has_name || !has_shapes)
        return fail_at(diag, p->file, line, 0, "header",
                       "no %s column (ops-test-kit's e2e testcase CSV has "
                       "testcase_name, api_name, tensor_view_shapes, ...; "
                       "its kernel-mode CSV testcase_name, op_name, "
                       "input_shapes, ...)%s",
                       has_name ? cols[C_SHAPES] : "testcase_name", "");
    p->header_done = 1;
    return KVG_OK;
}

/* A row record, kept when it names its testcase. */
static kvg_status add_row(csv_parse *p, const rowrec *rec, kvg_diag *diag)
{
    kvg_ttk_csv *t = p->t;

    if (t->n == p->cap) {
        rowrec *q;
        p->cap = p->cap ? p->cap * 2 : 64;
        if ((q = (rowrec *)realloc(t->rows, p->cap * sizeof *q)) == NULL)
            return kvg_diag_set(diag, KVG_ERR_NOMEM, "csv", -1, -1,
                                "%s: out of memory", p->file);
        t->rows = q;
    }
    if (rec->c[C_NAME].text[0] == '\0')
        return fail_at(diag, p->file, rec->line, 0, "testcase_name",
                       "empty (scan matches rows to case directories by "
                       "it)%s%s",
                       "", "");
    t->rows[t->n++] = *rec;
    return KVG_OK;
}

/* Every record of the text: the header, then the rows. */
static kvg_status read_records(csv_parse *p, kvg_diag *diag)
{
    while (p->r.p < p->r.end) {
        long line = p->r.line;
        int nf, blank;
        rowrec rec;
        KVG_TRY(read_record(p, &rec, &nf, &blank, diag));
        if (blank)
            continue; /* a blank line */
        if (!p->header_done)
            KVG_TRY(take_header(p, nf, line, diag));
        else
            KVG_TRY(add_row(p, &rec, diag));
    }
    if (!p->header_done)
        return fail_at(diag, p->file, 1, 0, "header",
                       "no header: the file is empty%s%s", "", "");
    return KVG_OK;
}

/* Every row's cells, checked now: a malformed one is named at once; then
 * the rows by name, for kvg_ttk_csv_find. */
static kvg_status check_rows(kvg_ttk_csv *t, size_t len, kvg_diag *diag)
{
    lit *L = (lit *)malloc(sizeof *L);
    kvg_ttk_row *row = (kvg_ttk_row *)malloc(sizeof *row);
    kvg_status st = KVG_OK;
    size_t i;

    t->order = (byname *)malloc((t->n + 1) * sizeof *t->order);
    if (L == NULL || row == NULL || t->order == NULL ||
        (L->sbuf = (char *)malloc(len + 1)) == NULL) {
        free(L);
        free(row);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "csv", -1, -1,
                            "%s: out of memory", t->file);
    }
    for (i = 0; i < t->n && st == KVG_OK; i++)
        if (fill_row(t, &t->rows[i], L, row, diag) != 0)
            st = KVG_ERR_FILE_FORMAT;
    free(L->sbuf);
    free(L);
    free(row);
    if (st != KVG_OK)
        return st;
    for (i = 0; i < t->n; i++) {
        t->order[i].name = t->rows[i].c[C_NAME].text;
        t->order[i].row = i;
    }
    if (t->n > 1)
        qsort(t->order, t->n, sizeof *t->order, by_name);
    return KVG_OK;
}

kvg_status kvg_ttk_csv_parse(const char *text, size_t len, const char *file,
                             kvg_ttk_csv **out, kvg_diag *diag)
{
    csv_parse p;
    kvg_status st;

    *out = NULL;
    memset(&p, 0, sizeof p);
    if ((p.t = (kvg_ttk_csv *)calloc(1, sizeof *p.t)) == NULL ||
        (p.t->arena = (char *)malloc(2 * len + 2)) == NULL) {
        kvg_ttk_csv_free(p.t);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "csv", -1, -1,
                            "%s: out of memory", file);
    }
    p.t->file = file;
    p.t->cols = k_cols;
    p.file = file;
    p.r.p = text;
    p.r.end = text + len;
    p.r.file = file;
    p.r.line = 1;
    p.r.col = 1;
    p.r.out = p.t->arena;
    /* on a refusal the message is made before the arena its fields quote
     * is freed */
    if (len >= 3 && (unsigned char)text[0] == 0xEF &&
        (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        st = fail_at(diag, file, 1, 1, "csv",
                     "starts with a UTF-8 byte-order mark, which "
                     "ops-test-kit reads as part of the first column's "
                     "name (save it as UTF-8 without BOM)%s%s",
                     "", "");
    else
        st = read_records(&p, diag);
    if (st == KVG_OK)
        st = check_rows(p.t, len, diag);
    if (st != KVG_OK) {
        kvg_ttk_csv_free(p.t);
        return st;
    }
    *out = p.t;
    return KVG_OK;
}

kvg_status kvg_ttk_csv_load(const char *path, kvg_ttk_csv **out, kvg_diag *diag)
{
    struct stat sb;
    char *buf;
    size_t got;
    int fd;
    kvg_status st;

    *out = NULL;
    KVG_TRY(kvg_open_regular(path, "csv", &fd, &sb, diag));
    if ((uint64_t)sb.st_size > CSV_MAX_BYTES) {
        close(fd);
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "csv", -1, -1,
                            "%s: %llu bytes, more than the 256 MiB kvgold "
                            "reads of a testcase CSV",
                            path, (unsigned long long)sb.st_size);
    }
    if ((buf = (char *)malloc((size_t)sb.st_size + 1)) == NULL) {
        close(fd);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "csv", -1, -1,
                            "%s: out of memory", path);
    }
    st = kvg_pread_full(fd, buf, (size_t)sb.st_size, 0, &got, path, "csv",
                        diag);
    if (st == KVG_OK && (uint64_t)got != (uint64_t)sb.st_size)
        st = kvg_diag_set(diag, KVG_ERR_IO, "csv", -1, -1,
                          "%s: cannot read: it shrank", path);
    if (st != KVG_OK) {
        close(fd);
        free(buf);
        return st;
    }
    close(fd);
    buf[got] = '\0';
    st = kvg_ttk_csv_parse(buf, (size_t)got, path, out, diag);
    free(buf);
    return st;
}

size_t kvg_ttk_csv_count(const kvg_ttk_csv *t)
{
    return t != NULL ? t->n : 0;
}

void kvg_ttk_csv_row(const kvg_ttk_csv *t, size_t i, kvg_ttk_row *row)
{
    lit *L = (lit *)malloc(sizeof *L);
    kvg_diag diag;
    memset(row, 0, sizeof *row);
    if (L == NULL || i >= t->n ||
        (L->sbuf = (char *)malloc(strlen(t->rows[i].c[C_SHAPES].text) +
                                  strlen(t->rows[i].c[C_DTYPES].text) +
                                  strlen(t->rows[i].c[C_STORAGE].text) +
                                  strlen(t->rows[i].c[C_ATTRS].text) +
                                  strlen(t->rows[i].c[C_OUTIDX].text) +
                                  strlen(t->rows[i].c[C_INPLACE].text) + 8)) ==
            NULL) {
        free(L);
        (void)snprintf(row->problem, sizeof row->problem,
                       "out of memory reading its CSV row");
        return;
    }
    kvg_diag_clear(&diag);
    if (fill_row(t, &t->rows[i], L, row, &diag) != 0)
        (void)snprintf(row->problem, sizeof row->problem, "%s",
                       diag.message); /* checked at load: not reached */
    free(L->sbuf);
    free(L);
}

int kvg_ttk_csv_find(const kvg_ttk_csv *t, const char *name, kvg_ttk_row *row)
{
    size_t lo = 0, hi = t != NULL ? t->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(t->order[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (t == NULL || lo == t->n || strcmp(t->order[lo].name, name) != 0)
        return 0;
    kvg_ttk_csv_row(t, t->order[lo].row, row);
    if (lo + 1 < t->n && strcmp(t->order[lo + 1].name, name) == 0)
        row->dup_line = t->rows[t->order[lo + 1].row].line;
    return 1;
}

/* ---- writing ------------------------------------------------------------ */

const char kvg_ttk_csv_header[] =
    "testcase_name,api_name,tensor_view_shapes,tensor_dtypes,"
    "tensor_formats,attributes,output_tensor_indexes,"
    "inplace_input_indexes,golden_api\n";

kvg_status kvg_ttk_form_inplace(const kvg_binding_call *api, int *slot,
                                int cap, int *count, int *returned,
                                kvg_diag *diag)
{
    int n_out = 0, k, i, j, n = 0;

    *count = 0;
    while (api->outputs[n_out] != NULL)
        n_out++;
    for (k = n_out; k > 0 && kvg_binding_has(api->tensors, api->outputs[k - 1]);
         k--)
        ;
    *returned = k;
    for (i = k; i < n_out; i++) {
        for (j = 0; strcmp(api->tensors[j], api->outputs[i]) != 0; j++)
            ;
        if (n == cap || (n > 0 && j <= slot[n - 1]))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, api->api, -1, -1,
                                "%s: its in-place outputs are not in the "
                                "order of their arguments", api->api);
        slot[n++] = j;
    }
    *count = n;
    return KVG_OK;
}

typedef struct sbuf_t {
    char *p;
    size_t len, cap;
    int bad;
} sbuf_t;

static void put(sbuf_t *b, const char *s, size_t n)
{
    if (b->bad)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *p = (char *)realloc(b->p, cap);
        if (p == NULL) {
            b->bad = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(sbuf_t *b, const char *s)
{
    put(b, s, strlen(s));
}

/* A cell: quoted as Python's csv module quotes one holding ',' or '"'. */
static void cell_out(sbuf_t *b, const char *s)
{
    const char *q;
    if (strpbrk(s, ",\"\r\n") == NULL) {
        puts_(b, s);
        return;
    }
    put(b, "\"", 1);
    for (q = s; *q != '\0'; q++) {
        if (*q == '"')
            put(b, "\"", 1); /* "" inside a quoted cell */
        put(b, q, 1);
    }
    put(b, "\"", 1);
}

/* ops-test-kit's dtype names (NumPy's, and its own for bf16, fp8 and
 * HiFloat8). fp4 has none: kvgold's element is a byte of two codes where
 * ops-test-kit's shapes count codes. */
static const struct {
    const char *name;
    kvg_dtype dtype;
} k_ttk_dtypes[] = {
    {"float16", KVG_FP16},         {"bfloat16", KVG_BF16},
    {"float32", KVG_FP32},         {"int8", KVG_INT8},
    {"int32", KVG_INT32},          {"int64", KVG_INT64},
    {"float8_e4m3fn", KVG_FP8_E4M3FN},
    {"float8_e5m2", KVG_FP8_E5M2}, {"hifloat8", KVG_HIF8},
    {"uint8", KVG_UINT8},          {"int16", KVG_INT16},
    {"uint16", KVG_UINT16},        {"uint32", KVG_UINT32},
    {"float8_e8m0", KVG_E8M0}}; /* utilities/dtypes.py's name for it */
#define N_TTK_DTYPES (sizeof k_ttk_dtypes / sizeof k_ttk_dtypes[0])

const char *kvg_ttk_dtype_name(kvg_dtype dt)
{
    size_t i;
    for (i = 0; i < N_TTK_DTYPES; i++)
        if (k_ttk_dtypes[i].dtype == dt)
            return k_ttk_dtypes[i].name;
    return NULL;
}

kvg_dtype kvg_ttk_dtype_from_name(const char *name)
{
    size_t i;
    for (i = 0; i < N_TTK_DTYPES; i++)
        if (strcmp(name, k_ttk_dtypes[i].name) == 0)
            return k_ttk_dtypes[i].dtype;
    return KVG_DTYPE_INVALID;
}

/* A JSON value as the Python literal ops-test-kit evals; 0 if none. */
static int py_literal(sbuf_t *b, const kvg_json *v)
{
    const kvg_json *e;
    size_t i;
    switch (v->type) {
    case KVG_JSON_NULL: puts_(b, "None"); return 1;
    case KVG_JSON_TRUE: puts_(b, "True"); return 1;
    case KVG_JSON_FALSE: puts_(b, "False"); return 1;
    case KVG_JSON_NUMBER: puts_(b, v->text); return 1;
    case KVG_JSON_STRING:
        put(b, "'", 1);
        for (i = 0; i < v->len; i++) {
            char ch = v->text[i];
            if ((unsigned char)ch < 0x20)
                return 0;
            if (ch == '\'' || ch == '\\')
                put(b, "\\", 1);
            put(b, &ch, 1);
        }
        put(b, "'", 1);
        return 1;
    case KVG_JSON_ARRAY:
        put(b, "[", 1);
        for (e = v->child; e != NULL; e = e->next) {
            if (e != v->child)
                puts_(b, ", ");
            if (!py_literal(b, e))
                return 0;
        }
        put(b, "]", 1);
        return 1;
    default:
        return 0;
    }
}

/* The keyword form `api` passes kvgold attribute `attr` as. */
static const char *keyword_of(const kvg_binding_call *api, const char *attr)
{
    size_t j;
    for (j = 0; api->keywords != NULL && api->keywords[j] != NULL &&
                api->keywords[j + 1] != NULL;
         j += 2)
        if (api->keywords[j + 1][0] == '=' &&
            strcmp(api->keywords[j + 1] + 1, attr) == 0)
            return api->keywords[j];
    return attr;
}

/* The row's tensor_view_shapes and tensor_dtypes: one entry per tensor
 * of the form, None for one the case leaves out. */
static kvg_status row_tensors(const kvg_case *c, const kvg_binding_call *api,
                              sbuf_t *shapes, sbuf_t *dtypes, kvg_diag *diag)
{
    char num[32];
    int i, k, n = 0, ok = 1;

    puts_(shapes, "(");
    puts_(dtypes, "(");
    for (i = 0; api->tensors[i] != NULL; i++) {
        const kvg_tensor *t = kvg_case_find(&c->inputs, api->tensors[i]);
        if (i > 0) {
            puts_(shapes, ", ");
            puts_(dtypes, ", ");
        }
        n++;
        if (t == NULL || kvg_ttk_dtype_name(t->dtype) == NULL) {
            puts_(shapes, "None");
            puts_(dtypes, "None");
            ok &= t == NULL;
            continue;
        }
        puts_(shapes, "(");
        for (k = 0; k < t->rank; k++) {
            (void)snprintf(num, sizeof num, "%s%lld", k ? ", " : "",
                           (long long)t->shape[k]);
            puts_(shapes, num);
        }
        puts_(shapes, t->rank == 1 ? ",)" : ")");
        puts_(dtypes, "'");
        puts_(dtypes, kvg_ttk_dtype_name(t->dtype));
        puts_(dtypes, "'");
    }
    puts_(shapes, n == 1 ? ",)" : ")");
    puts_(dtypes, n == 1 ? ",)" : ")");
    if (!ok)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "", -1, -1,
                            "an input's dtype has no ops-test-kit name");
    return KVG_OK;
}

/* Attribute `name` of case c, else kvgold's default parsed into *doc
 * (the caller frees it); NULL when neither. */
static const kvg_json *attr_or_default(const kvg_case *c, const kvg_op *op,
                                       const char *name, kvg_json **doc)
{
    const kvg_json *v = c->attrs != NULL ? kvg_json_get(c->attrs, name) : NULL;
    kvg_diag diag;
    size_t a;

    *doc = NULL;
    for (a = 0; v == NULL && op != NULL && a < kvg_op_attr_count(op); a++) {
        const kvg_op_attr_info *info = kvg_op_attr_at(op, a);
        if (strcmp(info->name, name) == 0 && info->dflt != NULL &&
            kvg_json_parse(info->dflt, strlen(info->dflt), "default", doc,
                           &diag) == KVG_OK)
            v = *doc;
    }
    return v;
}

/* Value v of attribute `attr` as a Python literal, in the framework's
 * spelling where the form has its own (binding.h, `values`: a string or
 * number of case.json the framework writes otherwise). */
static int framework_literal(sbuf_t *out, const kvg_binding_call *api,
                             const char *attr, const kvg_json *v)
{
    char json[KVG_SCAN_VALUE_MAX];
    const char *fw = NULL;
    kvg_json *doc = NULL;
    kvg_diag diag;
    int literal;

    if (kvg_json_is(v, KVG_JSON_STRING) && v->len + 3 <= sizeof json) {
        (void)snprintf(json, sizeof json, "\"%s\"", v->text);
        fw = kvg_binding_to_framework(api, attr, json);
    } else if (kvg_json_is(v, KVG_JSON_NUMBER)) {
        fw = kvg_binding_to_framework(api, attr, v->text);
    }
    if (fw == NULL ||
        kvg_json_parse(fw, strlen(fw), attr, &doc, &diag) != KVG_OK)
        return py_literal(out, v);
    literal = py_literal(out, doc);
    kvg_json_free(doc);
    return literal;
}

/* The row's attributes: every attribute of the form, the case's value,
 * else kvgold's default (the API's own default may differ: it is written
 * out), as a Python dict literal. */
static kvg_status row_attrs(const kvg_case *c, const kvg_binding_call *api,
                            sbuf_t *attrs, kvg_diag *diag)
{
    const kvg_op *op = kvg_op_find(c->op);
    int i, first = 1;

    puts_(attrs, "{");
    for (i = 0; api->attrs != NULL && api->attrs[i] != NULL; i++) {
        kvg_json *doc;
        const kvg_json *v = attr_or_default(c, op, api->attrs[i], &doc);
        int literal;
        if (v == NULL)
            continue; /* required and absent: the case was refused */
        puts_(attrs, first ? "'" : ", '");
        puts_(attrs, keyword_of(api, api->attrs[i]));
        puts_(attrs, "': ");
        first = 0;
        literal = framework_literal(attrs, api, api->attrs[i], v);
        kvg_json_free(doc);
        if (!literal)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, api->attrs[i],
                                -1, -1, "attribute %s: no Python literal "
                                "for its value", api->attrs[i]);
    }
    puts_(attrs, "}");
    return KVG_OK;
}

/* The row's inplace_input_indexes: the tensors the API writes in place,
 * which ops-test-kit appends to the outputs it compares with the
 * goldens. */
static kvg_status row_inplace(const kvg_binding_call *api, sbuf_t *inplace,
                              kvg_diag *diag)
{
    int slot[KVG_SCAN_MAX_ARGS], i, returned, n_in;
    char num[32];

    KVG_TRY(kvg_ttk_form_inplace(api, slot, KVG_SCAN_MAX_ARGS, &n_in,
                                 &returned, diag));
    puts_(inplace, n_in > 0 ? "(" : "");
    for (i = 0; i < n_in; i++) {
        (void)snprintf(num, sizeof num, "%s%d", i ? ", " : "", slot[i]);
        puts_(inplace, num);
    }
    puts_(inplace, n_in == 1 ? ",)" : n_in > 1 ? ")" : "");
    return KVG_OK;
}

/* The CSV line of testcase `name` from its cells. */
static void row_line(sbuf_t *line, const char *name,
                     const kvg_binding_call *api, const sbuf_t *shapes,
                     const sbuf_t *dtypes, const sbuf_t *attrs,
                     const sbuf_t *inplace)
{
    cell_out(line, name);
    puts_(line, ",");
    cell_out(line, api->api);
    puts_(line, ",");
    if (!shapes->bad)
        cell_out(line, shapes->p);
    puts_(line, ",");
    if (!dtypes->bad)
        cell_out(line, dtypes->p);
    puts_(line, ",,");
    if (!attrs->bad)
        cell_out(line, attrs->p);
    puts_(line, ",,");
    if (!inplace->bad && inplace->p != NULL)
        cell_out(line, inplace->p);
    puts_(line, ",\n");
}

kvg_status kvg_ttk_csv_format_row(const kvg_case *c,
                                  const kvg_binding_call *api,
                                  const char *name, char **out,
                                  kvg_diag *diag)
{
    sbuf_t shapes = {NULL, 0, 0, 0}, dtypes = {NULL, 0, 0, 0};
    sbuf_t attrs = {NULL, 0, 0, 0}, line = {NULL, 0, 0, 0};
    sbuf_t inplace = {NULL, 0, 0, 0};
    kvg_status st;

    *out = NULL;
    st = row_tensors(c, api, &shapes, &dtypes, diag);
    if (st == KVG_OK)
        st = row_attrs(c, api, &attrs, diag);
    if (st == KVG_OK)
        st = row_inplace(api, &inplace, diag);
    if (st == KVG_OK) {
        row_line(&line, name, api, &shapes, &dtypes, &attrs, &inplace);
        if (shapes.bad || dtypes.bad || attrs.bad || inplace.bad || line.bad)
            st = kvg_diag_set(diag, KVG_ERR_NOMEM, "", -1, -1,
                              "out of memory");
    }
    free(shapes.p);
    free(dtypes.p);
    free(attrs.p);
    free(inplace.p);
    if (st != KVG_OK) {
        free(line.p);
        return st;
    }
    *out = line.p;
    return KVG_OK;
}
