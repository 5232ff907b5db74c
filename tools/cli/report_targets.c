/*
 * tools/cli/report_targets.c - see report_targets.h. POSIX: lstat, stat,
 * realpath and readdir tell what is at a path, where it really is, and
 * whether two paths are one file.
 * SPDX-License-Identifier: Apache-2.0
 */
/* realpath is XSI in glibc's headers (POSIX.1-2008 with XSI) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "report_targets.h"

/* How deep a protected tree is searched for another name of a target. */
#define MAX_DEPTH 64

/* "kvgold: CMD: FLAG PATH: <why>; <stopped>"; returns 0. */
static int refuse(const char *cmd, const char *stopped,
                  const kvg_cli_target *t, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "kvgold: %s: %s %s: ", cmd, t->flag, t->path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; %s\n", stopped);
    return 0;
}

static int same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* 1 if real path `a` is `top` or below it. */
static int at_or_below(const char *a, const char *top)
{
    size_t n = strlen(top);
    if (strncmp(a, top, n) != 0)
        return 0;
    return a[n] == '\0' || a[n] == '/' || (n > 0 && top[n - 1] == '/');
}

/* The directory part of `path` (malloc'd; "." when there is none) and
 * where its last component starts. NULL when out of memory. */
static char *dir_of(const char *path, const char **leaf)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *d = (char *)malloc(n + 1);

    if (d == NULL)
        return NULL;
    if (slash == NULL)
        memcpy(d, ".", 2);
    else if (slash == path)
        memcpy(d, "/", 2);
    else {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    *leaf = slash == NULL ? path : slash + 1;
    return d;
}

/* A file of the tree below `dir` (not following links to directories)
 * that is the file `ft`: a hard link, or a symbolic link that leads to
 * it. Its path (malloc'd), or NULL when there is none. */
static char *find_in_tree(const char *dir, const struct stat *ft, int depth)
{
    DIR *d;
    struct dirent *e;
    char *hit = NULL;

    if (depth > MAX_DEPTH || (d = opendir(dir)) == NULL)
        return NULL; /* the command says what is wrong with it */
    while (hit == NULL && (e = readdir(d)) != NULL) {
        struct stat lt, st;
        char *p;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if ((p = kvg_path_join(dir, e->d_name, NULL, NULL)) == NULL)
            break;
        if (lstat(p, &lt) == 0) {
            if (S_ISDIR(lt.st_mode))
                hit = find_in_tree(p, ft, depth + 1);
            else if (same(&lt, ft) ||
                     (S_ISLNK(lt.st_mode) && stat(p, &st) == 0 &&
                      same(&st, ft))) {
                hit = p;
                p = NULL;
            }
        }
        free(p);
    }
    closedir(d);
    return hit;
}

/* What is known of a protected path before the targets are checked. */
typedef struct guard {
    int exists;
    struct stat st; /* stat, following links */
    char *real;     /* realpath, NULL when it has none */
} guard;

/* What a target is now: 0 refused, 1 fine; *exists and *ft (the file a
 * symlink leads to, or the file) are set when there is something. */
static int check_kind(const char *cmd, const char *stopped,
                      const kvg_cli_target *t, int *exists, struct stat *ft)
{
    struct stat lt;

    *exists = 0;
    if (lstat(t->path, &lt) != 0) {
        if (errno == ENOENT)
            return 1;
        return refuse(cmd, stopped, t, "cannot stat it: %s",
                      strerror(errno));
    }
    if (t->dir) {
        if (stat(t->path, ft) != 0)
            return refuse(cmd, stopped, t, "is a symbolic link that leads "
                          "nowhere (%s); the pages need a directory",
                          strerror(errno));
        if (!S_ISDIR(ft->st_mode))
            return refuse(cmd, stopped, t, "is %s, not a directory; the "
                          "pages need one (remove it or give another path)",
                          kvg_file_kind((unsigned long)ft->st_mode));
        *exists = 1;
        return 1;
    }
    if (S_ISLNK(lt.st_mode)) {
        if (stat(t->path, ft) != 0)
            return 1; /* a dangling link is replaced, not followed */
        if (!S_ISREG(ft->st_mode))
            return refuse(cmd, stopped, t, "is a symbolic link to %s; a "
                          "report replaces only a regular file",
                          kvg_file_kind((unsigned long)ft->st_mode));
    } else if (!S_ISREG(lt.st_mode)) {
        return refuse(cmd, stopped, t, "is %s; a report replaces only a "
                      "regular file (remove it or give another path)",
                      kvg_file_kind((unsigned long)lt.st_mode));
    } else {
        *ft = lt;
        if ((lt.st_mode & 0222) == 0)
            return refuse(cmd, stopped, t, "is read-only; kvgold does not "
                          "replace a file someone protected");
    }
    *exists = 1;
    return 1;
}

/* The rules against the protected paths, for target t whose directory
 * resolves to `rdir`; *ft is what is at the target when *exists. */
static int check_protected(const char *cmd, const char *stopped,
                           const kvg_cli_target *t, const char *rdir,
                           int exists, const struct stat *ft,
                           const kvg_cli_protect *p, const guard *g, int n_p)
{
    char *real = exists ? realpath(t->path, NULL) : NULL;
    int j, ok = 1;

    for (j = 0; ok && j < n_p; j++) {
        if (!g[j].exists)
            continue;
        if (p[j].tree && g[j].real != NULL &&
            (at_or_below(rdir, g[j].real) ||
             (real != NULL && t->dir && at_or_below(real, g[j].real))))
            ok = refuse(cmd, stopped, t, "is in %s %s%s%s; a report is "
                        "never written among %s: give another path",
                        p[j].role, p[j].path, p[j].note ? ", " : "",
                        p[j].note ? p[j].note : "", p[j].what);
        else if (exists && t->dir && !p[j].tree && g[j].real != NULL &&
                 real != NULL && at_or_below(g[j].real, real))
            ok = refuse(cmd, stopped, t, "holds %s %s; a report is never "
                        "written among %s: give another path", p[j].role,
                        p[j].path, p[j].what);
        else if (exists && !t->dir && !p[j].tree && same(ft, &g[j].st))
            ok = refuse(cmd, stopped, t, "is %s %s (same device and "
                        "inode); a report never replaces %s", p[j].role,
                        p[j].path, p[j].what);
        else if (exists && !t->dir && p[j].tree) {
            char *hit = real != NULL && g[j].real != NULL &&
                                at_or_below(real, g[j].real)
                            ? realpath(t->path, NULL)
                            : find_in_tree(p[j].path, ft, 0);
            if (hit != NULL)
                ok = refuse(cmd, stopped, t, "is the same file as %s in %s "
                            "%s (same device and inode); a report never "
                            "replaces %s", hit, p[j].role, p[j].path,
                            p[j].what);
            free(hit);
        }
    }
    free(real);
    return ok;
}

int kvg_cli_targets_check(const char *cmd, const char *stopped,
                          const kvg_cli_target *t, int n,
                          const kvg_cli_protect *p, int n_p)
{
    struct stat dst[KVG_CLI_MAX_TARGETS], fst[KVG_CLI_MAX_TARGETS];
    const char *leaf[KVG_CLI_MAX_TARGETS];
    int exists[KVG_CLI_MAX_TARGETS];
    guard *g = NULL;
    int i, j, ok = 1;

    if (n > KVG_CLI_MAX_TARGETS)
        return refuse(cmd, stopped, &t[KVG_CLI_MAX_TARGETS],
                      "too many report files");
    if (n == 0)
        return 1;
    memset(dst, 0, sizeof dst);
    memset(fst, 0, sizeof fst);
    memset(exists, 0, sizeof exists);
    if (n_p > 0 && (g = (guard *)calloc((size_t)n_p, sizeof *g)) == NULL) {
        fprintf(stderr, "kvgold: %s: out of memory; %s\n", cmd, stopped);
        return 0;
    }
    for (j = 0; j < n_p; j++)
        if (stat(p[j].path, &g[j].st) == 0) {
            g[j].exists = 1;
            g[j].real = realpath(p[j].path, NULL);
        }
    for (i = 0; ok && i < n; i++) {
        char *dir, *rdir = NULL;
        if (t[i].path[0] == '\0') {
            ok = refuse(cmd, stopped, &t[i], "is an empty path; give a "
                        "file");
            break;
        }
        if ((dir = dir_of(t[i].path, &leaf[i])) == NULL) {
            fprintf(stderr, "kvgold: %s: out of memory; %s\n", cmd, stopped);
            ok = 0;
            break;
        }
        if (leaf[i][0] == '\0' || strcmp(leaf[i], ".") == 0 ||
            strcmp(leaf[i], "..") == 0)
            ok = refuse(cmd, stopped, &t[i], "names a directory, not a "
                        "file");
        else if (stat(dir, &dst[i]) != 0)
            ok = refuse(cmd, stopped, &t[i], "its directory %s: %s", dir,
                        strerror(errno));
        else if (!S_ISDIR(dst[i].st_mode))
            ok = refuse(cmd, stopped, &t[i], "%s is %s, not a directory",
                        dir, kvg_file_kind((unsigned long)dst[i].st_mode));
        else if ((rdir = realpath(dir, NULL)) == NULL)
            ok = refuse(cmd, stopped, &t[i], "its directory %s: %s", dir,
                        strerror(errno));
        free(dir);
        if (ok)
            ok = check_kind(cmd, stopped, &t[i], &exists[i], &fst[i]);
        if (ok)
            ok = check_protected(cmd, stopped, &t[i], rdir, exists[i],
                                 &fst[i], p, g, n_p);
        free(rdir);
        for (j = 0; ok && j < i; j++)
            if ((same(&dst[i], &dst[j]) && strcmp(leaf[i], leaf[j]) == 0) ||
                (exists[i] && exists[j] && same(&fst[i], &fst[j])))
                ok = refuse(cmd, stopped, &t[i], "is the same file as %s "
                            "%s; each report needs a file of its own",
                            t[j].flag, t[j].path);
    }
    for (j = 0; j < n_p; j++)
        free(g[j].real);
    free(g);
    return ok;
}

int kvg_cli_targets_make_dirs(const char *cmd, const kvg_cli_target *t,
                              int n)
{
    struct stat st;
    int i;

    for (i = 0; i < n; i++)
        if (t[i].dir && mkdir(t[i].path, 0777) != 0 &&
            !(errno == EEXIST && stat(t[i].path, &st) == 0 &&
              S_ISDIR(st.st_mode))) {
            fprintf(stderr, "kvgold: %s: %s %s: cannot create the "
                            "directory: %s\n",
                    cmd, t[i].flag, t[i].path, strerror(errno));
            return 0;
        }
    return 1;
}

struct kvg_cli_staged {
    kvg_outset *sets[KVG_CLI_MAX_TARGETS];
    int n_sets;
};

int kvg_cli_targets_stage(const char *cmd, const kvg_cli_target *t, int n,
                          kvg_cli_staged **staged)
{
    struct stat ids[KVG_CLI_MAX_TARGETS], st;
    kvg_cli_staged *s;
    int i, k, ok = 1;
    kvg_diag diag;

    *staged = NULL;
    for (i = 0; i < n && t[i].dir; i++)
        ;
    if (i == n)
        return 1; /* nothing to write */
    if (n > KVG_CLI_MAX_TARGETS ||
        (s = (kvg_cli_staged *)calloc(1, sizeof *s)) == NULL) {
        fprintf(stderr, "kvgold: %s: cannot write the reports: %s\n", cmd,
                n > KVG_CLI_MAX_TARGETS ? "too many" : "out of memory");
        return 0;
    }
    kvg_diag_clear(&diag);
    for (i = 0; ok && i < n; i++) {
        const char *leaf;
        char *dir;
        if (t[i].dir)
            continue;
        if ((dir = dir_of(t[i].path, &leaf)) == NULL || stat(dir, &st) != 0) {
            fprintf(stderr, "kvgold: %s: %s %s: not written: %s; no report "
                            "was replaced\n", cmd, t[i].flag, t[i].path,
                    dir == NULL ? "out of memory" : strerror(errno));
            free(dir);
            ok = 0;
            break;
        }
        for (k = 0; k < s->n_sets && !same(&ids[k], &st); k++)
            ;
        if (k == s->n_sets) { /* a directory of its own: a set of its own */
            if (kvg_outset_begin(&s->sets[k], dir, &diag) != KVG_OK) {
                fprintf(stderr, "kvgold: %s: %s %s: not written: %s; no "
                                "report was replaced\n",
                        cmd, t[i].flag, t[i].path, diag.message);
                free(dir);
                ok = 0;
                break;
            }
            ids[k] = st;
            s->n_sets++;
        }
        free(dir);
        if (kvg_outset_add_stream(s->sets[k], leaf, t[i].render, t[i].user,
                                  &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: %s: %s %s: not written: %s; no report "
                            "was replaced\n",
                    cmd, t[i].flag, t[i].path, diag.message);
            ok = 0;
        }
    }
    if (!ok) {
        kvg_cli_targets_discard(s);
        return 0;
    }
    *staged = s;
    return 1;
}

int kvg_cli_targets_commit(const char *cmd, kvg_cli_staged *staged)
{
    kvg_diag diag;

    if (staged == NULL)
        return 1;
    kvg_diag_clear(&diag);
    if (kvg_outset_commit_many(staged->sets, staged->n_sets, &diag) !=
        KVG_OK) {
        fprintf(stderr, "kvgold: %s: cannot write the reports: %s\n", cmd,
                diag.message);
        return 0;
    }
    return 1;
}

void kvg_cli_targets_discard(kvg_cli_staged *staged)
{
    int k;
    if (staged == NULL)
        return;
    for (k = 0; k < staged->n_sets; k++)
        kvg_outset_end(staged->sets[k]);
    free(staged);
}

int kvg_cli_targets_write(const char *cmd, const kvg_cli_target *t, int n)
{
    kvg_cli_staged *s;
    int ok = kvg_cli_targets_stage(cmd, t, n, &s) &&
             kvg_cli_targets_commit(cmd, s);
    kvg_cli_targets_discard(s);
    return ok;
}
