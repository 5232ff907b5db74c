/*
 * tools/lib/scan/read_atb.c - ATB tensor dumps.
 *
 * ATB dumps an operation as a directory (named after it, e.g.
 * "3_<Name>Operation") holding before/intensorN.bin (its inputs
 * before the launch) and after/outtensorN.bin (its outputs after it); for
 * an in-place cache operator the two are the pre-call cache and the NPU's
 * post-call cache. Each .bin is a text header of "key=value" lines -
 * format (aclFormat: 2 ND, 29 FRACTAL_NZ), dtype (aclDataType), dims
 * (comma-separated), "$"-prefixed bookkeeping - ending with the line
 * "$End=1", then the raw elements. Only the header is read while listing
 * (at most 4 KiB of each file).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "read_common.h"

#define ATB_HEAD_MAX 4096

static kvg_status bad(kvg_diag *diag, const char *file, const char *field,
                      const char *what)
{
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, field, -1, -1, "%s: %s: %s",
                        file,
                        field, what);
}

/* A decimal integer filling [p, end) exactly; 0 if it is not one. */
static int parse_long(const char *p, const char *end, long long *out)
{
    long long v = 0;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p == end)
        return 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9' || v > (LLONG_MAX - 9) / 10)
            return 0;
        v = v * 10 + (*p - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

kvg_status kvg_scan_atb_header(const unsigned char *buf, size_t len,
                               uint64_t size, const char *file,
                               kvg_scan_arg *a, kvg_diag *diag)
{
    const char *p = (const char *)buf, *end = p + len;
    int have_dtype = 0, have_dims = 0;
    long long v;

    a->kind = KVG_SCAN_TENSOR;
    a->layout = KVG_SCAN_LAYOUT_ND;
    a->rank = 0;
    while (p < end) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *eq;
        if (nl == NULL)
            break;
        eq = (const char *)memchr(p, '=', (size_t)(nl - p));
        if (eq == NULL)
            return bad(diag, file, "header", "a line without '='");
        if ((size_t)(eq - p) == 4 && memcmp(p, "$End", 4) == 0) {
            uint64_t need;
            a->offset = (uint64_t)(nl + 1 - (const char *)buf);
            if (!have_dtype)
                return bad(diag, file, "dtype", "missing");
            if (!have_dims)
                return bad(diag, file, "dims", "missing");
            if (!kvg_scan_nbytes(a->dtype, a->rank, a->shape, &need))
                return bad(diag, file, "dims", "no valid byte size");
            if (size - a->offset != need) {
                char msg[160];
                (void)snprintf(msg, sizeof msg,
                               "%llu bytes of data after the header, the "
                               "dtype and dims say %llu",
                               (unsigned long long)(size - a->offset),
                               (unsigned long long)need);
                return bad(diag, file, "dims", msg);
            }
            a->nbytes = need;
            return KVG_OK;
        }
        if ((size_t)(eq - p) == 6 && memcmp(p, "format", 6) == 0) {
            if (!parse_long(eq + 1, nl, &v))
                return bad(diag, file, "format", "not an integer");
            a->layout = v == 29 ? KVG_SCAN_LAYOUT_NZ : KVG_SCAN_LAYOUT_ND;
        } else if ((size_t)(eq - p) == 5 && memcmp(p, "dtype", 5) == 0) {
            if (!parse_long(eq + 1, nl, &v))
                return bad(diag, file, "dtype", "not an integer");
            a->dtype = kvg_scan_acl_dtype((long)v);
            if (a->dtype == KVG_DTYPE_INVALID) {
                char msg[96];
                (void)snprintf(msg, sizeof msg, "code %lld is no dtype "
                                                "kvgold reads", v);
                return bad(diag, file, "dtype", msg);
            }
            have_dtype = 1;
        } else if ((size_t)(eq - p) == 4 && memcmp(p, "dims", 4) == 0) {
            const char *q = eq + 1;
            a->rank = 0;
            while (q < nl) {
                const char *c = (const char *)memchr(q, ',',
                                                     (size_t)(nl - q));
                if (c == NULL)
                    c = nl;
                if (a->rank == KVG_MAX_RANK)
                    return bad(diag, file, "dims", "more dims than kvgold's "
                                                   "maximum rank");
                if (!parse_long(q, c, &v) || v < 0)
                    return bad(diag, file, "dims", "not a list of "
                                                   "non-negative integers");
                a->shape[a->rank++] = v;
                q = c == nl ? nl : c + 1;
            }
            have_dims = 1;
        }
        p = nl + 1;
    }
    return bad(diag, file, "header", "no \"$End=1\" line in its first "
                                     "4096 bytes (not an ATB tensor file?)");
}

/* "3_<Name>Operation" or "<Name>Operation_3" -> "<Name>Operation". */
static void op_name(const char *base, char *out, size_t cap)
{
    size_t n;
    while (*base >= '0' && *base <= '9')
        base++;
    while (*base == '_')
        base++;
    (void)snprintf(out, cap, "%s", base);
    n = strlen(out);
    while (n > 0 && out[n - 1] >= '0' && out[n - 1] <= '9')
        n--;
    if (n > 0 && n < strlen(out) && out[n - 1] == '_')
        out[n - 1] = '\0';
}

/* The index N of "<stem>N.bin" or "<stem>N_<irName>.bin" (ATB names its
 * tensor files the second way since 2026-05, hicann/ascend-transformer-
 * boost src/atb/utils/store_util.cpp), or -1. */
static int tensor_index(const char *name, const char *stem)
{
    size_t k = strlen(stem), n = strlen(name);
    const char *p = name + k;
    long v = 0;

    if (strncmp(name, stem, k) != 0 || n < k + 5 ||
        strcmp(name + n - 4, ".bin") != 0 || *p < '0' || *p > '9' ||
        (*p == '0' && p[1] >= '0' && p[1] <= '9'))
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (*p - '0')) > 1000000)
            return -1;
    return (*p == '.' && p == name + n - 4) || *p == '_' ? (int)v : -1;
}

/* Read the headers of DIR/SUB's tensor files <stem>N[_irName].bin, N = 0,
 * 1, ... into args (SUB a directory, visit's side_kind). Every file of the form is read or the call is
 * unreadable: one left out would be an output nobody judged. */
static kvg_status read_side(kvg_scan_call *c, const char *sub,
                            const char *stem, kvg_scan_arg *args, int *n,
                            kvg_diag *diag)
{
    unsigned char head[ATB_HEAD_MAX];
    char **names;
    size_t count, i;
    char *dir = kvg_path_join(c->dir, sub, NULL, diag);
    kvg_status st;
    int k;

    *n = 0;
    if (dir == NULL)
        return KVG_ERR_NOMEM;
    st = kvg_scan_names(dir, &names, &count, diag);
    free(dir);
    if (st != KVG_OK)
        return st;
    for (i = 0; i < count && st == KVG_OK; i++) {
        kvg_scan_arg *a;
        char *path;
        size_t len;
        uint64_t size;
        int idx = tensor_index(names[i], stem);

        if (idx < 0)
            continue;
        if (idx >= KVG_SCAN_MAX_ARGS) {
            st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "scan", -1, -1,
                              "%s/%s/%s: tensor %d; kvgold reads %d of a "
                              "side", c->dir, sub, names[i], idx,
                              KVG_SCAN_MAX_ARGS);
            break;
        }
        a = &args[idx];
        if (a->file[0] != '\0') {
            st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "scan", -1, -1,
                              "%s/%s: %s and %s are both %s%d", c->dir, sub,
                              a->file + strlen(sub) + 1, names[i], stem, idx);
            break;
        }
        memset(a, 0, sizeof *a);
        (void)snprintf(a->file, sizeof a->file, "%s/%s", sub, names[i]);
        (void)snprintf(a->name, sizeof a->name, "%s%d", stem, idx);
        if ((path = kvg_path_join(c->dir, a->file, NULL, diag)) == NULL)
            return KVG_ERR_NOMEM;
        st = kvg_scan_head(path, head, sizeof head, &len, &size, diag);
        if (st == KVG_OK)
            st = kvg_scan_atb_header(head, len, size, path, a, diag);
        free(path);
        /* an empty tensor is how ATB passes an optional input left out */
        if (st == KVG_OK && a->nbytes == 0)
            a->kind = KVG_SCAN_NONE;
        if (idx + 1 > *n)
            *n = idx + 1;
    }
    kvg_scan_names_free(names, count);
    for (k = 0; st == KVG_OK && k < *n; k++)
        if (args[k].file[0] == '\0')
            st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "scan", -1, -1,
                              "%s/%s: has %s%d but no %s%d.bin (the tensor "
                              "files must run from 0 without a gap)",
                              c->dir, sub, stem, *n - 1, stem, k);
    return st;
}

typedef struct atb_walk {
    kvg_scan_list *l;
} atb_walk;

/* What side `name` of an operation directory is: 0 absent, 1 a real
 * directory, -1 something else (a file, a link, a FIFO: why said). */
static int side_kind(const char *dir, const char *name, char *why,
                     size_t cap)
{
    char *path = kvg_path_join(dir, name, NULL, NULL);
    struct stat sb;
    int k;
    if (path == NULL || lstat(path, &sb) != 0) {
        free(path);
        return 0;
    }
    k = S_ISDIR(sb.st_mode) ? 1 : -1;
    if (k < 0)
        kvg_scan_odd_entry(path, "a directory", why, cap);
    free(path);
    return k;
}

static int visit(const char *dir, const char *rel, void *user,
                 kvg_diag *diag)
{
    atb_walk *w = (atb_walk *)user;
    const char *base = strrchr(dir, '/');
    char why[KVG_SCAN_REASON_MAX] = "";
    char api[KVG_SCAN_NAME_MAX];
    kvg_scan_call *c;
    /* an operation directory has a before or an after, whatever they are:
     * one that is not a directory makes the call unreadable, not absent */
    int before = side_kind(dir, "before", why, sizeof why);
    int after = side_kind(dir, "after", why, sizeof why);

    if (before == 0 && after == 0)
        return 0;
    op_name(base != NULL ? base + 1 : dir, api, sizeof api);
    if (kvg_scan_find(api, KVG_SCAN_ATB, NULL) == NULL) {
        const char *op = kvg_scan_op_of_name(api);
        if (op == NULL) {
            w->l->others++; /* another operation: counted, not read */
            return 1;
        }
        /* a kvgold operator without an ATB form: listed NOT JUDGED,
         * never counted as another operator's */
        (void)snprintf(why, sizeof why, "operation %s is operator %s, "
                       "which kvgold reads no ATB call form of", api, op);
        return kvg_scan_list_unreadable(w->l, KVG_SCAN_ATB, api, rel, dir,
                                        why, diag) == KVG_OK
                   ? 1
                   : -1;
    }
    if ((c = kvg_scan_list_push(w->l, diag)) == NULL)
        return -1;
    c->format = KVG_SCAN_ATB;
    (void)snprintf(c->out_pattern, sizeof c->out_pattern,
                   "after/outtensor%%d.bin");
    (void)snprintf(c->dir, sizeof c->dir, "%s", dir);
    (void)snprintf(c->id, sizeof c->id, "%s", rel[0] ? rel : ".");
    (void)snprintf(c->api, sizeof c->api, "%s", api);
    if (before < 0 || after < 0) {
        (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                       why);
        return 1;
    }
    /* a side that is absent has no tensors: they are missing */
    if ((before &&
         read_side(c, "before", "intensor", c->in, &c->n_in, diag) !=
             KVG_OK) ||
        (after &&
         read_side(c, "after", "outtensor", c->out, &c->n_out, diag) !=
             KVG_OK)) {
        /* a call whose files are malformed: not judged, the reason said */
        (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                       diag->message);
        kvg_diag_clear(diag);
    }
    return 1;
}

/* A link to a directory below the root: it might be an operation. */
static int link_entry(const char *path, const char *rel, void *user,
                      kvg_diag *diag)
{
    char why[KVG_SCAN_REASON_MAX], api[KVG_SCAN_NAME_MAX];
    const char *base = strrchr(path, '/');
    op_name(base != NULL ? base + 1 : path, api, sizeof api);
    kvg_scan_odd_entry(path, NULL, why, sizeof why);
    return kvg_scan_list_unreadable(((atb_walk *)user)->l, KVG_SCAN_ATB, api,
                                    rel, path, why, diag) == KVG_OK
               ? 0
               : -1;
}

kvg_status kvg_scan_read_atb(const char *path, kvg_scan_list *l,
                             kvg_diag *diag)
{
    atb_walk w;
    w.l = l;
    if (kvg_scan_kind(path, 0) != 1)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1,
                            "%s: not a directory (an ATB dump is a tree of "
                            "operation directories with before/ and after/)",
                            path);
    return kvg_scan_walk_links(path, visit, link_entry, &w, diag);
}
