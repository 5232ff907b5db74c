/*
 * tools/cli/compare_targets.c - see compare_targets.h. POSIX: lstat, stat
 * and readdir tell what is at a path and whether two paths are one file.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "compare_targets.h"
#include "fileio.h"
#include "outset.h"

#define MAX_TARGETS 8

/* "kvgold: compare: FLAG PATH: <why>"; returns 0. */
static int refuse(const kvg_cli_target *t, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "kvgold: compare: %s %s: ", t->flag, t->path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("; nothing was computed or written\n", stderr);
    return 0;
}

static int same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
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

/* 1 (message printed) if the file `ft` is one of the files in directory
 * `dir`, found by reading the directory. */
static int in_dir(const kvg_cli_target *t, const struct stat *ft,
                  const char *dir, const char *role)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    int hit = 0;

    if (d == NULL)
        return 0; /* the comparison says what is wrong with the directory */
    while (!hit && (e = readdir(d)) != NULL) {
        char *p;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if ((p = kvg_path_join(dir, e->d_name, NULL, NULL)) == NULL)
            break;
        if (stat(p, &st) == 0 && same(&st, ft)) {
            refuse(t, "is the same file as %s in %s %s (same device and "
                      "inode); a report never replaces a dump being judged",
                   p, role, dir);
            hit = 1;
        }
        free(p);
    }
    closedir(d);
    return hit;
}

/* What the target is now: 0 refused, 1 fine; *exists and *ft (the file a
 * symlink leads to, or the file) are set when there is a file. */
static int check_kind(const kvg_cli_target *t, int *exists, struct stat *ft)
{
    struct stat lt;

    *exists = 0;
    if (lstat(t->path, &lt) != 0) {
        if (errno == ENOENT)
            return 1;
        return refuse(t, "cannot stat it: %s", strerror(errno));
    }
    if (S_ISLNK(lt.st_mode)) {
        if (stat(t->path, ft) != 0)
            return 1; /* a dangling link is replaced, not followed */
        if (!S_ISREG(ft->st_mode))
            return refuse(t, "is a symbolic link to %s; a report replaces "
                             "only a regular file",
                          kvg_file_kind((unsigned long)ft->st_mode));
    } else if (!S_ISREG(lt.st_mode)) {
        return refuse(t, "is %s; a report replaces only a regular file "
                         "(remove it or give another path)",
                      kvg_file_kind((unsigned long)lt.st_mode));
    } else {
        *ft = lt;
        if ((lt.st_mode & 0222) == 0)
            return refuse(t, "is read-only; kvgold does not replace a file "
                             "someone protected");
    }
    *exists = 1;
    return 1;
}

int kvg_cli_targets_check(const kvg_cli_target *t, int n, const kvg_case *c,
                          const char *const *dirs, const char *const *roles,
                          int n_dirs)
{
    struct stat dst[MAX_TARGETS], fst[MAX_TARGETS], st;
    const char *leaf[MAX_TARGETS];
    int exists[MAX_TARGETS];
    char **cf = NULL;
    int n_cf = 0, i, j, ok = 1;

    memset(dst, 0, sizeof dst);
    memset(fst, 0, sizeof fst);
    memset(exists, 0, sizeof exists);
    if (n > MAX_TARGETS)
        return refuse(&t[MAX_TARGETS], "too many report files");
    if (n > 0 && (cf = kvg_cli_case_files(c, &n_cf)) == NULL) {
        fprintf(stderr, "kvgold: compare: out of memory\n");
        return 0;
    }
    for (i = 0; ok && i < n; i++) {
        char *dir;
        if (t[i].path[0] == '\0') {
            ok = refuse(&t[i], "is an empty path; give a file");
            break;
        }
        if ((dir = dir_of(t[i].path, &leaf[i])) == NULL) {
            fprintf(stderr, "kvgold: compare: out of memory\n");
            ok = 0;
            break;
        }
        if (leaf[i][0] == '\0' || strcmp(leaf[i], ".") == 0 ||
            strcmp(leaf[i], "..") == 0)
            ok = refuse(&t[i], "names a directory, not a file");
        else if (stat(dir, &dst[i]) != 0)
            ok = refuse(&t[i], "its directory %s: %s", dir, strerror(errno));
        else if (!S_ISDIR(dst[i].st_mode))
            ok = refuse(&t[i], "%s is %s, not a directory", dir,
                        kvg_file_kind((unsigned long)dst[i].st_mode));
        for (j = 0; ok && j < n_dirs; j++)
            if (stat(dirs[j], &st) == 0 && same(&st, &dst[i]))
                ok = refuse(&t[i], "is in %s %s, the directory being judged; "
                                   "a report is never written among the "
                                   "dumps: give another path",
                            roles[j], dirs[j]);
        free(dir);
        if (ok)
            ok = check_kind(&t[i], &exists[i], &fst[i]);
        for (j = 0; ok && exists[i] && j < n_cf; j++)
            if (stat(cf[j], &st) == 0 && same(&st, &fst[i]))
                ok = refuse(&t[i], "is the case's file %s (same device and "
                                   "inode); a report never replaces a case's "
                                   "files", cf[j]);
        for (j = 0; ok && exists[i] && j < n_dirs; j++)
            ok = !in_dir(&t[i], &fst[i], dirs[j], roles[j]);
        for (j = 0; ok && j < i; j++)
            if ((same(&dst[i], &dst[j]) && strcmp(leaf[i], leaf[j]) == 0) ||
                (exists[i] && exists[j] && same(&fst[i], &fst[j])))
                ok = refuse(&t[i], "is the same file as %s %s; each report "
                                   "needs a file of its own",
                            t[j].flag, t[j].path);
    }
    kvg_cli_free_paths(cf, n_cf);
    return ok;
}

typedef struct render_job {
    kvg_report_renderer render;
    const kvg_report_set *set;
} render_job;

static kvg_status render_one(FILE *out, void *user, kvg_diag *diag)
{
    const render_job *j = (const render_job *)user;
    return j->render(out, j->set, diag);
}

int kvg_cli_targets_write(const kvg_cli_target *t, int n,
                          const kvg_report_set *set)
{
    kvg_outset *sets[MAX_TARGETS] = {NULL};
    struct stat ids[MAX_TARGETS], st;
    render_job jobs[MAX_TARGETS];
    int n_sets = 0, i, s, ok = 1;
    kvg_diag diag;

    kvg_diag_clear(&diag);
    for (i = 0; ok && i < n && i < MAX_TARGETS; i++) {
        const char *leaf;
        char *dir = dir_of(t[i].path, &leaf);
        if (dir == NULL || stat(dir, &st) != 0) {
            fprintf(stderr, "kvgold: cannot write report %s: %s\n", t[i].path,
                    dir == NULL ? "out of memory" : strerror(errno));
            free(dir);
            ok = 0;
            break;
        }
        for (s = 0; s < n_sets && !same(&ids[s], &st); s++)
            ;
        if (s == n_sets) { /* a directory of its own: a set of its own */
            if (kvg_outset_begin(&sets[s], dir, &diag) != KVG_OK) {
                fprintf(stderr, "kvgold: cannot write report %s: %s\n",
                        t[i].path, diag.message);
                free(dir);
                ok = 0;
                break;
            }
            ids[s] = st;
            n_sets++;
        }
        free(dir);
        jobs[i].render = t[i].render;
        jobs[i].set = set;
        if (kvg_outset_add_stream(sets[s], leaf, render_one, &jobs[i],
                                  &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: cannot write report %s: %s\n",
                    t[i].path, diag.message);
            ok = 0;
        }
    }
    if (ok && kvg_outset_commit_many(sets, n_sets, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: cannot write the reports: %s\n",
                diag.message);
        ok = 0;
    }
    for (s = 0; s < n_sets; s++)
        kvg_outset_end(sets[s]);
    return ok;
}
