/*
 * tools/cli/compare_dumps.c - see compare_dumps.h. POSIX: stat, lstat and
 * readdir tell a missing file from a dangling link or a directory.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_dumps.h"
#include "fileio.h"
#include "npy_file.h"
#include "tensor_file.h"

int kvg_cli_dumps_dir_ok(const char *what, const char *dir)
{
    struct stat st;

    if (stat(dir, &st) != 0) {
        fprintf(stderr, "kvgold: %s %s: %s\n", what, dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "kvgold: %s %s: not a directory\n", what, dir);
        return 0;
    }
    return 1;
}

static int is_output_name(const kvg_case_set *gold, const char *file)
{
    size_t n = strlen(file);
    int i;

    for (i = 0; i < gold->count; i++) {
        size_t k = strlen(gold->items[i].name);
        if (n == k + 4 && strncmp(file, gold->items[i].name, k) == 0)
            return 1;
    }
    return 0;
}

/* The .npy files of DIR that match no output, comma-separated. */
static void find_stray(kvg_cli_dumps *d, const kvg_case_set *gold)
{
    DIR *dir = opendir(d->dir);
    struct dirent *e;
    size_t used = 0;

    d->stray[0] = '\0';
    if (dir == NULL)
        return;
    while ((e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".npy") != 0 ||
            is_output_name(gold, e->d_name))
            continue;
        if (used + n + 3 >= sizeof d->stray)
            break;
        used += (size_t)snprintf(d->stray + used, sizeof d->stray - used,
                                 "%s%s", used ? ", " : "", e->d_name);
    }
    closedir(dir);
}

/* A near miss of output `name` in DIR: a file named `name` plus some
 * other suffix (k_cache.bin.bin, k_cache.npy.npy, k_cache.NPY) or none,
 * the likeliest rename of the dump that is missing; its name in `out`
 * (empty when there is none), and added to d->near. */
static void find_near(kvg_cli_dumps *d, const char *name, char *out,
                      size_t cap)
{
    DIR *dir = opendir(d->dir);
    struct dirent *e;
    size_t k = strlen(name), used = strlen(d->near);

    out[0] = '\0';
    if (dir == NULL)
        return;
    while ((e = readdir(dir)) != NULL) {
        const char *rest = e->d_name + k;
        if (strncmp(e->d_name, name, k) != 0 ||
            (*rest != '\0' && *rest != '.') || strcmp(rest, ".npy") == 0 ||
            strcmp(rest, ".bin") == 0)
            continue;
        (void)snprintf(out, cap, "%s", e->d_name);
        if (used + strlen(e->d_name) + 3 < sizeof d->near)
            used += (size_t)snprintf(d->near + used, sizeof d->near - used,
                                     "%s%s", used ? ", " : "", e->d_name);
        break;
    }
    closedir(dir);
}

static int raw_dump_exists(const char *dir, const char *name);

/* Why DIR/<name>.npy cannot be opened; 0 if it can. */
static int why_not(kvg_cli_dumps *d, const char *name, const char *path,
                   char *out, size_t cap)
{
    char near[KVG_CLI_REASON_MAX];
    struct stat st;
    int fd, err;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        (void)snprintf(out, cap, "unreadable: %s is a directory", path);
        return 1;
    }
    /* not fopen: opening a FIFO with no writer would block forever; the
     * loader then refuses anything but a regular file */
    if ((fd = open(path, O_RDONLY | O_NONBLOCK)) >= 0) {
        close(fd);
        return 0;
    }
    err = errno;
    if (err == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        (void)snprintf(out, cap, "dangling link: %s points to a missing file",
                       path);
        return 1;
    }
    if (err != ENOENT) {
        (void)snprintf(out, cap, "unreadable: %s: %s", path, strerror(err));
        return 1;
    }
    near[0] = '\0';
    if (!raw_dump_exists(d->dir, name)) /* else it is read instead */
        find_near(d, name, near, sizeof near);
    if (near[0] != '\0')
        (void)snprintf(out, cap, "missing: no %s or %s.bin; %s has %s: "
                                 "renamed?",
                       path, name, d->dir, near);
    else if (d->stray[0] != '\0')
        (void)snprintf(out, cap, "missing: no %s (the directory has %s, "
                                 "which matches no output: misnamed?)",
                       path, d->stray);
    else
        (void)snprintf(out, cap, "missing: no %s", path);
    return 1;
}

/* 1 if DIR/<name>.bin is there (a raw dump, read with the golden's dtype
 * and shape): then a missing .npy is not a reason. */
static int raw_dump_exists(const char *dir, const char *name)
{
    struct stat st;
    char *path = kvg_path_join(dir, name, ".bin", NULL);
    int there = path != NULL && lstat(path, &st) == 0;
    free(path);
    return there;
}

/* Keep the name and the identity of the file dump i was read from: the
 * .npy when there is one, else the .bin. 0 (message printed) when out of
 * memory or when the file is gone already. */
static int remember_file(kvg_cli_dumps *d, const char *name, int i,
                         const char *npy)
{
    struct stat st;
    char *bin = NULL;
    const char *p = npy;

    if (stat(npy, &st) != 0) {
        if ((bin = kvg_path_join(d->dir, name, ".bin", NULL)) == NULL) {
            fprintf(stderr, "kvgold: %s: out of memory for a path\n",
                    d->dir);
            return 0;
        }
        p = bin;
        if (stat(bin, &st) != 0) {
            fprintf(stderr, "kvgold: NPU output %s: %s: %s\n", name, bin,
                    strerror(errno));
            free(bin);
            return 0;
        }
    }
    d->path[i] = bin != NULL ? bin : kvg_path_join("", p, NULL, NULL);
    if (d->path[i] == NULL) {
        fprintf(stderr, "kvgold: %s: out of memory for a path\n", d->dir);
        return 0;
    }
    d->dev[i] = (unsigned long long)st.st_dev;
    d->ino[i] = (unsigned long long)st.st_ino;
    return 1;
}

int kvg_cli_dumps_same_file(const kvg_cli_dumps *a, int i,
                            const kvg_cli_dumps *b, int j)
{
    return a->loaded[i] && b->loaded[j] && a->dev[i] == b->dev[j] &&
           a->ino[i] == b->ino[j];
}

int kvg_cli_path_is(const char *path, unsigned long long dev,
                    unsigned long long ino)
{
    struct stat st;
    return stat(path, &st) == 0 && (unsigned long long)st.st_dev == dev &&
           (unsigned long long)st.st_ino == ino;
}

/* Load output i's dump into d; 0 (message printed) on a file that is there
 * but is not a valid dump of the output. */
static int load_one(kvg_cli_dumps *d, const kvg_case_tensor *g, int i)
{
    kvg_diag diag;
    int found = 0;
    char *path = kvg_path_join(d->dir, g->name, ".npy", NULL);

    if (path == NULL) {
        fprintf(stderr, "kvgold: %s: out of memory for a path\n", d->dir);
        return 0;
    }
    if (why_not(d, g->name, path, d->reason[i], sizeof d->reason[i]) &&
        !raw_dump_exists(d->dir, g->name)) {
        free(path);
        return 1; /* not judged, d->reason[i] says why */
    }
    kvg_diag_clear(&diag);
    if (kvg_tensor_file_open_dump(d->dir, g->name, &g->t, KVG_TENSOR_MAP_MIN,
                                  &d->t[i], &d->map[i], &found,
                                  &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: NPU output %s: %s\n", g->name, diag.message);
        free(path);
        return 0;
    }
    if (found && !remember_file(d, g->name, i, path)) {
        kvg_tensor_file_close(&d->t[i], &d->map[i]);
        free(path);
        return 0;
    }
    free(path);
    if (found) {
        d->reason[i][0] = '\0';
        d->loaded[i] = 1;
        d->found++;
    }
    return 1;
}

int kvg_cli_dumps_load(kvg_cli_dumps *d, const char *dir,
                       const kvg_case_set *gold, const int *selected)
{
    int i;

    memset(d, 0, sizeof *d);
    d->dir = dir;
    find_stray(d, gold);
    for (i = 0; i < gold->count; i++)
        if (selected[i] && !load_one(d, &gold->items[i], i))
            return 0;
    return 1;
}

void kvg_cli_dumps_free(kvg_cli_dumps *d)
{
    int i;
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++) {
        free(d->path[i]);
        d->path[i] = NULL;
    }
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++)
        if (d->loaded[i]) {
            kvg_tensor_file_close(&d->t[i], &d->map[i]);
            d->loaded[i] = 0;
        }
}
