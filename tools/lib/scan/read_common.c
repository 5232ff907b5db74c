/*
 * tools/lib/scan/read_common.c - see read_common.h. POSIX.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "read_common.h"
#include "kvgold/npy.h"

int kvg_scan_natcmp(const char *a, const char *b)
{
    while (*a != '\0' && *b != '\0') {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *ea = a, *eb = b;
            size_t la, lb;
            int c;
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            for (ea = a; isdigit((unsigned char)*ea); ea++)
                ;
            for (eb = b; isdigit((unsigned char)*eb); eb++)
                ;
            la = (size_t)(ea - a);
            lb = (size_t)(eb - b);
            if (la != lb)
                return la < lb ? -1 : 1;
            if ((c = strncmp(a, b, la)) != 0)
                return c;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int cmp_names(const void *x, const void *y)
{
    int c = kvg_scan_natcmp(*(char *const *)x, *(char *const *)y);
    return c ? c : strcmp(*(char *const *)x, *(char *const *)y);
}

void kvg_scan_names_free(char **names, size_t n)
{
    size_t i;
    for (i = 0; names != NULL && i < n; i++)
        free(names[i]);
    free(names);
}

kvg_status kvg_scan_names(const char *dir, char ***names, size_t *n,
                          kvg_diag *diag)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t cap = 0;

    *names = NULL;
    *n = 0;
    if (d == NULL)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1, "%s: %s", dir,
                            strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (*n == cap) {
            char **p;
            cap = cap ? cap * 2 : 32;
            if ((p = (char **)realloc(v, cap * sizeof *v)) == NULL)
                break;
            v = p;
        }
        if ((v[*n] = (char *)malloc(strlen(e->d_name) + 1)) == NULL)
            break;
        strcpy(v[(*n)++], e->d_name);
    }
    if (e != NULL) {
        closedir(d);
        kvg_scan_names_free(v, *n);
        *n = 0;
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                            "%s: out of memory listing it", dir);
    }
    closedir(d);
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_names);
    *names = v;
    return KVG_OK;
}

int kvg_scan_kind(const char *path, int nofollow)
{
    struct stat sb;
    if ((nofollow ? lstat(path, &sb) : stat(path, &sb)) != 0)
        return 0;
    return S_ISDIR(sb.st_mode) ? 1 : S_ISREG(sb.st_mode) ? 2 : 0;
}

kvg_status kvg_scan_no_link(const char *dir, const char *rel, kvg_diag *diag)
{
    char *path = kvg_path_join(dir, rel, NULL, NULL);
    char why[KVG_SCAN_REASON_MAX];
    char *end, *slash;
    struct stat sb;
    int link = 0;

    if (path == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                            "out of memory");
    /* each prefix dir/a, dir/a/b, ... of the path in turn, cut in place */
    end = path + strlen(path) - strlen(rel);
    for (;;) {
        slash = strchr(end, '/');
        if (slash != NULL)
            *slash = '\0';
        link = lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode);
        if (link)
            kvg_scan_odd_entry(path, NULL, why, sizeof why);
        if (link || slash == NULL)
            break;
        *slash = '/';
        end = slash + 1;
    }
    free(path);
    if (link)
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1, "%s", why);
    return KVG_OK;
}

void kvg_scan_odd_entry(const char *path, const char *needs, char *why,
                        size_t cap)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        (void)snprintf(why, cap, "%s: %s", path, strerror(errno));
    else if (S_ISLNK(sb.st_mode))
        (void)snprintf(why, cap, "%s: is a symbolic link; kvgold does not "
                                 "follow links inside a dump (scan its "
                                 "target, or copy it in)",
                       path);
    else
        (void)snprintf(why, cap, "%s: is %s, where %s belongs", path,
                       kvg_file_kind((unsigned long)sb.st_mode),
                       needs != NULL ? needs : "a regular file");
}

kvg_status kvg_scan_list_unreadable(kvg_scan_list *l, kvg_scan_format f,
                                    const char *api, const char *rel,
                                    const char *dir, const char *why,
                                    kvg_diag *diag)
{
    kvg_scan_call *c = kvg_scan_list_push(l, diag);
    if (c == NULL)
        return KVG_ERR_NOMEM;
    c->format = f;
    /* a name that says no kvgold operator says nothing here */
    (void)snprintf(c->api, sizeof c->api, "%s",
                   kvg_scan_find(api, f, NULL) != NULL ? api
                                                       : KVG_SCAN_API_UNKNOWN);
    (void)snprintf(c->id, sizeof c->id, "%s", rel[0] ? rel : ".");
    (void)snprintf(c->dir, sizeof c->dir, "%s", dir);
    (void)snprintf(c->unreadable, sizeof c->unreadable, "unreadable: %s",
                   why);
    return KVG_OK;
}

/* A link below the root that leads to a directory or nowhere. */
static int dir_like_link(const char *path)
{
    struct stat lsb, sb;
    if (lstat(path, &lsb) != 0 || !S_ISLNK(lsb.st_mode))
        return 0;
    return stat(path, &sb) != 0 || S_ISDIR(sb.st_mode);
}

static kvg_status walk(const char *dir, const char *rel, int depth,
                       kvg_scan_visit visit, kvg_scan_visit link,
                       void *user, kvg_diag *diag)
{
    char **names;
    size_t n, i;
    kvg_status st;
    int r = visit(dir, rel, user, diag);

    if (r < 0)
        return diag->status != KVG_OK ? diag->status : KVG_ERR_IO;
    if (r > 0)
        return KVG_OK;
    if (depth >= 32)
        return link == NULL
                   ? KVG_OK
                   : kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "scan", -1, -1,
                                  "%s: more than 32 levels of directories "
                                  "below the dump's root; kvgold does not "
                                  "read deeper (scan a subdirectory)", dir);
    if ((st = kvg_scan_names(dir, &names, &n, diag)) != KVG_OK)
        return st;
    for (i = 0; i < n && st == KVG_OK; i++) {
        char *sub = kvg_path_join(dir, names[i], NULL, diag);
        char *subrel = kvg_path_join(rel, names[i], NULL, diag);
        if (sub == NULL || subrel == NULL)
            st = KVG_ERR_NOMEM;
        else if (kvg_scan_kind(sub, 1) == 1)
            st = walk(sub, subrel, depth + 1, visit, link, user, diag);
        else if (link != NULL && dir_like_link(sub) &&
                 link(sub, subrel, user, diag) < 0)
            st = diag->status != KVG_OK ? diag->status : KVG_ERR_IO;
        free(sub);
        free(subrel);
    }
    kvg_scan_names_free(names, n);
    return st;
}

kvg_status kvg_scan_walk(const char *root, kvg_scan_visit visit, void *user,
                         kvg_diag *diag)
{
    return walk(root, "", 0, visit, NULL, user, diag);
}

kvg_status kvg_scan_walk_links(const char *root, kvg_scan_visit visit,
                               kvg_scan_visit link, void *user,
                               kvg_diag *diag)
{
    return walk(root, "", 0, visit, link, user, diag);
}

kvg_dtype kvg_scan_acl_dtype(long code)
{
    switch (code) {
    case 0: return KVG_FP32;
    case 1: return KVG_FP16;
    case 2: return KVG_INT8;
    case 3: return KVG_INT32;
    case 9: return KVG_INT64;
    case 27: return KVG_BF16;
    case 34: return KVG_HIF8;
    case 35: return KVG_FP8_E5M2;
    case 36: return KVG_FP8_E4M3FN;
    default: return KVG_DTYPE_INVALID;
    }
}

kvg_status kvg_scan_head(const char *path, unsigned char *buf, size_t cap,
                         size_t *len, uint64_t *size, kvg_diag *diag)
{
    struct stat sb;
    size_t got;
    kvg_status st;
    int fd;

    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char why[KVG_SCAN_REASON_MAX];
        kvg_scan_odd_entry(path, NULL, why, sizeof why);
        return kvg_diag_set(diag, KVG_ERR_IO, "scan", -1, -1, "%s", why);
    }
    KVG_TRY(kvg_open_regular(path, "scan", &fd, &sb, diag));
    st = kvg_pread_full(fd, buf, cap, 0, &got, path, "scan", diag);
    close(fd);
    if (st != KVG_OK)
        return st;
    *len = got;
    *size = (uint64_t)sb.st_size;
    return KVG_OK;
}

int kvg_scan_fp4_pairs(int rank, int64_t *shape)
{
    if (rank < 1 || shape[rank - 1] % 2 != 0)
        return 0;
    shape[rank - 1] /= 2;
    return 1;
}

kvg_status kvg_scan_fp4_pack_codes(const unsigned char *codes, size_t n,
                                   unsigned char *out, const char *file,
                                   kvg_diag *diag)
{
    size_t i;

    if (n % 2 != 0)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, file, -1, -1,
                            "%s: %lu fp4 codes, an odd count: kvgold reads "
                            "fp4 in pairs",
                            file, (unsigned long)n);
    for (i = 0; i < n; i++)
        if (codes[i] > 0x0F)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, file, -1, -1,
                                "%s: code %lu is 0x%02X: one fp4 code a "
                                "byte holds 0x00..0x0F (its high nibble "
                                "is never masked off)",
                                file, (unsigned long)i, codes[i]);
    for (i = 0; i < n / 2; i++)
        out[i] = (unsigned char)(codes[2 * i] | (codes[2 * i + 1] << 4));
    return KVG_OK;
}

int kvg_scan_nbytes(kvg_dtype dtype, int rank, const int64_t *shape,
                    uint64_t *nbytes)
{
    uint64_t b = kvg_dtype_size(dtype);
    int i;
    if (b == 0 || rank < 0 || rank > KVG_MAX_RANK)
        return 0;
    for (i = 0; i < rank; i++) {
        if (shape[i] < 0 ||
            (shape[i] != 0 && b > UINT64_MAX / (uint64_t)shape[i]))
            return 0;
        b *= (uint64_t)shape[i];
    }
    *nbytes = b;
    return 1;
}

/* ---- names ----------------------------------------------------------- */

int kvg_scan_dots(const char *s)
{
    int n = 0;
    for (; *s != '\0'; s++)
        n += *s == '.';
    return n;
}

int kvg_scan_cann_name(const char *base, char *type, size_t cap)
{
    const char *dot = strchr(base, '.');
    if (dot == NULL || kvg_scan_dots(base) < 4 || dot == base ||
        (size_t)(dot - base) >= cap)
        return 0;
    memcpy(type, base, (size_t)(dot - base));
    type[dot - base] = '\0';
    return 1;
}

kvg_status kvg_scan_npy_arg(const char *dir, const char *file,
                            kvg_dtype dtype, kvg_scan_arg *a, kvg_diag *diag)
{
    static const struct {
        const char *descr;
        kvg_dtype dtype;
    } k_plain[] = {{"<f2", KVG_FP16}, {"<f4", KVG_FP32}, {"|i1", KVG_INT8},
                   {"<i4", KVG_INT32}, {"<i8", KVG_INT64}};
    unsigned char *head;
    size_t len = 0, need = 0, i;
    uint64_t size = 0;
    kvg_npy_info info;
    kvg_status st;
    char *path;

    KVG_TRY(kvg_scan_no_link(dir, file, diag));
    if ((path = kvg_path_join(dir, file, NULL, diag)) == NULL)
        return KVG_ERR_NOMEM;
    if ((head = (unsigned char *)malloc(KVG_NPY_MAX_HEADER + 16)) == NULL) {
        free(path);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                            "out of memory");
    }
    st = kvg_scan_head(path, head, 16, &len, &size, diag);
    if (st == KVG_OK && kvg_npy_header_size(head, len, &need, diag) != KVG_OK)
        st = KVG_ERR_FILE_FORMAT;
    if (st == KVG_OK && need > KVG_NPY_MAX_HEADER + 16)
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "header", -1, -1,
                          "header too long");
    if (st == KVG_OK)
        st = kvg_scan_head(path, head, need, &len, &size, diag);
    if (st == KVG_OK &&
        (kvg_npy_parse_header(head, len, &info, diag) != KVG_OK ||
         kvg_npy_check_data_size(&info, size, diag) != KVG_OK))
        st = KVG_ERR_FILE_FORMAT;
    if (st == KVG_OK && dtype == KVG_DTYPE_INVALID) {
        for (i = 0; i < sizeof k_plain / sizeof k_plain[0]; i++)
            if (strcmp(info.descr, k_plain[i].descr) == 0)
                dtype = k_plain[i].dtype;
        if (dtype == KVG_DTYPE_INVALID)
            st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "descr", -1, -1,
                              "descr '%s' is no dtype kvgold reads",
                              info.descr);
    } else if (st == KVG_OK && !kvg_npy_descr_accepts(dtype, info.descr)) {
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, "descr", -1, -1,
                          "descr '%s' cannot hold %s", info.descr,
                          kvg_dtype_name(dtype));
    }
    if (st == KVG_OK) {
        a->kind = KVG_SCAN_TENSOR;
        a->dtype = dtype;
        a->rank = info.rank;
        memcpy(a->shape, info.shape, sizeof a->shape);
        a->offset = info.data_offset;
        a->nbytes = info.data_bytes;
        if (file != a->file)
            (void)snprintf(a->file, sizeof a->file, "%s", file);
    } else if (st == KVG_ERR_FILE_FORMAT) {
        char msg[KVG_DIAG_MESSAGE_MAX];
        (void)snprintf(msg, sizeof msg, "%s", diag->message);
        (void)kvg_diag_set(diag, st, "npy", -1, -1, "%s: %s", path, msg);
    }
    free(head);
    free(path);
    return st;
}
