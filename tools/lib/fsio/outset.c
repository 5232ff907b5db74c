/*
 * tools/lib/fsio/outset.c - all-or-nothing output sets (see outset.h).
 * SPDX-License-Identifier: Apache-2.0
 */
/* flock is not in POSIX (fcntl locks need a file open for writing, and a
 * directory cannot be). */
#define _DEFAULT_SOURCE
#include "outset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "npy_file.h"

typedef struct out_file {
    char *final;  /* dir/name */
    char *temp;   /* the new content until the commit */
    char *backup; /* the old target during the commit */
    int backup_kind; /* 0 none, 1 hard link, 2 the target renamed */
    int renamed;     /* temp is now final */
} out_file;

struct kvg_outset {
    char *dir;
    out_file *files;
    int count, cap;
};

uint64_t (*kvg_outset_random_hook)(void);
void (*kvg_outset_commit_hook)(const char *final_path);

/* The temporary files this process has created and not yet renamed or
 * removed, for kvg_outset_discard_temps (a fatal signal's last act): a
 * fixed table, so that the signal handler walks no list being changed. */
#define LIVE_TEMPS 128
static const char *volatile g_live[LIVE_TEMPS];

static void live_add(const char *temp)
{
    int i;
    for (i = 0; i < LIVE_TEMPS; i++)
        if (g_live[i] == NULL) {
            g_live[i] = temp;
            return;
        }
}

static void live_remove(const char *temp)
{
    int i;
    for (i = 0; i < LIVE_TEMPS; i++)
        if (g_live[i] == temp)
            g_live[i] = NULL;
}

void kvg_outset_track_temp(const char *path) { live_add(path); }

void kvg_outset_untrack_temp(const char *path) { live_remove(path); }

void kvg_outset_discard_temps(void)
{
    int i;
    for (i = 0; i < LIVE_TEMPS; i++) {
        const char *t = g_live[i];
        if (t != NULL)
            (void)unlink(t);
    }
}

/* mkdir -p: create each missing component of `dir`. */
static kvg_status make_dirs(const char *dir, kvg_diag *diag)
{
    size_t n = strlen(dir);
    char *p = (char *)malloc(n + 1), *s;
    kvg_status st = KVG_OK;

    if (p == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "--out", -1, -1,
                            "out of memory creating %s", dir);
    memcpy(p, dir, n + 1);
    for (s = p + 1; st == KVG_OK; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            st = kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                              "cannot create the output directory %s: %s", p,
                              strerror(errno));
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    return st;
}

kvg_status kvg_outset_begin(kvg_outset **set, const char *dir,
                            kvg_diag *diag)
{
    struct stat sb;
    kvg_outset *o;

    *set = NULL;
    if (dir == NULL || dir[0] == '\0')
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--out", -1, -1,
                            "the output directory is an empty path; give a "
                            "directory (--out DIR)");
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT)
            return kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                                "output directory %s: %s", dir,
                                strerror(errno));
        KVG_TRY(make_dirs(dir, diag));
        if (stat(dir, &sb) != 0)
            return kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                                "output directory %s: %s", dir,
                                strerror(errno));
    }
    if (!S_ISDIR(sb.st_mode))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--out", -1, -1,
                            "output directory %s is %s, not a directory", dir,
                            kvg_file_kind((unsigned long)sb.st_mode));
    o = (kvg_outset *)calloc(1, sizeof *o);
    if (o == NULL || (o->dir = (char *)malloc(strlen(dir) + 1)) == NULL) {
        free(o);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "--out", -1, -1,
                            "out of memory");
    }
    memcpy(o->dir, dir, strlen(dir) + 1);
    *set = o;
    return KVG_OK;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

kvg_status kvg_outset_forbid_dir(const kvg_outset *set, const char *other,
                                 const char *role, kvg_diag *diag)
{
    struct stat a, b;
    if (stat(set->dir, &a) != 0 || stat(other, &b) != 0)
        return KVG_OK;
    if (same_file(&a, &b))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--out", -1, -1,
                            "output directory %s is %s (%s); kvgold does not "
                            "write its outputs over a case's files: give "
                            "another --out", set->dir, role, other);
    return KVG_OK;
}

kvg_status kvg_outset_check(const kvg_outset *set, const char *name,
                            const char *const *protected_paths,
                            int n_protected, kvg_diag *diag)
{
    struct stat lt, ft, pt;
    kvg_status st = KVG_OK;
    char *path;
    int i;

    if (strchr(name, '/') != NULL || name[0] == '\0')
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "output name \"%s\" is not a plain file name",
                            name);
    if ((path = kvg_path_join(set->dir, name, NULL, diag)) == NULL)
        return KVG_ERR_NOMEM;
    if (lstat(path, &lt) != 0) {
        if (errno != ENOENT)
            st = kvg_diag_set(diag, KVG_ERR_IO, name, -1, -1,
                              "%s: cannot stat: %s", path, strerror(errno));
        free(path);
        return st;
    }
    if (!S_ISREG(lt.st_mode) && !S_ISLNK(lt.st_mode))
        st = kvg_diag_set(diag, KVG_ERR_IO, name, -1, -1,
                          "%s: is %s; kvgold replaces only files (remove it "
                          "or give another --out)", path,
                          kvg_file_kind((unsigned long)lt.st_mode));
    else if (S_ISREG(lt.st_mode) && (lt.st_mode & 0222) == 0)
        st = kvg_diag_set(diag, KVG_ERR_IO, name, -1, -1,
                          "%s: is read-only; kvgold does not replace a file "
                          "someone protected (chmod u+w it or give another "
                          "--out)", path);
    for (i = 0; st == KVG_OK && i < n_protected; i++)
        if (stat(path, &ft) == 0 && stat(protected_paths[i], &pt) == 0 &&
            same_file(&ft, &pt))
            st = kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                              "%s: is the case's file %s (same file); kvgold "
                              "does not overwrite a case's files: give "
                              "another --out", path, protected_paths[i]);
    free(path);
    return st;
}

/* 64 unpredictable bits for a temporary name: from the kernel when it
 * can, else mixed from the clock, the PID and a counter (a collision is
 * then still caught by O_EXCL and retried). */
static uint64_t name_bits(void)
{
    static uint64_t counter;
    uint64_t x = 0;
    struct timespec ts;
    int fd;

    if (kvg_outset_random_hook != NULL)
        return kvg_outset_random_hook();
    fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        size_t got = 0;
        /* no diag: a failed read only means the fallback below */
        kvg_status st = kvg_pread_full(fd, &x, sizeof x, 0, &got,
                                       "/dev/urandom", "/dev/urandom", NULL);
        close(fd);
        if (st == KVG_OK && got == sizeof x)
            return x;
    }
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
        (uint64_t)getpid() << 32 ^ ++counter * 0x9E3779B97F4A7C15u;
    x ^= x >> 31; /* splitmix64's finaliser */
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    return x;
}

/* dir/.name.kvgold-<pid>-<16 random hex digits>.<ext>: a new name each
 * call, so neither an earlier run's leftover (a killed run, the same PID
 * in a new container) nor a concurrent run can hold it for long. */
static char *side_name(kvg_outset *o, const char *name, const char *ext,
                       kvg_diag *diag)
{
    size_t n = strlen(name) + strlen(ext) + 64;
    char *leaf = (char *)malloc(n), *path;
    if (leaf == NULL) {
        (void)kvg_diag_set(diag, KVG_ERR_NOMEM, name, -1, -1, "out of memory");
        return NULL;
    }
    (void)snprintf(leaf, n, ".%s.kvgold-%ld-%016llx.%s", name,
                   (long)getpid(), (unsigned long long)name_bits(), ext);
    path = kvg_path_join(o->dir, leaf, NULL, diag);
    free(leaf);
    return path;
}

/* Tries at a fresh side name before giving up: each collides only when
 * its 64 random bits hit an existing name. */
#define NAME_TRIES 64

/* Create f->temp (a fresh name, O_EXCL, never through a symlink), open
 * for writing in *fd, and track it for kvg_outset_discard_temps. */
static kvg_status create_temp(kvg_outset *set, out_file *f, const char *name,
                              int *fd, kvg_diag *diag)
{
    int tries;

    *fd = -1;
    for (tries = 0; *fd < 0 && tries < NAME_TRIES; tries++) {
        free(f->temp);
        if ((f->temp = side_name(set, name, "tmp", diag)) == NULL)
            return KVG_ERR_NOMEM;
        *fd = open(f->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
        if (*fd < 0 && errno != EEXIST)
            break;
    }
    if (*fd < 0)
        return kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                            "%s: cannot create a temporary file (%s): %s%s",
                            f->final, f->temp, strerror(errno),
                            errno == EEXIST ? " (every name tried is taken)"
                                            : "");
    live_add(f->temp);
    return KVG_OK;
}

/* Create f->temp and write t to it as .npy, or (t NULL) the `size` bytes
 * of `data`. */
static kvg_status write_temp(kvg_outset *set, out_file *f, const char *name,
                             const kvg_tensor *t, const void *data,
                             size_t size, kvg_diag *diag)
{
    kvg_status st;
    int fd;

    if ((st = create_temp(set, f, name, &fd, diag)) != KVG_OK)
        return st;
    if (t != NULL)
        st = kvg_npy_write_fd(fd, f->final, t, diag);
    else
        st = kvg_write_full(fd, data, size, f->final, f->final, diag);
    if (st == KVG_OK && fsync(fd) != 0)
        st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1, "%s: fsync: %s",
                          f->final, strerror(errno));
    if (close(fd) != 0 && st == KVG_OK)
        st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                          "%s: write error on close: %s", f->final,
                          strerror(errno));
    if (st != KVG_OK) {
        (void)unlink(f->temp);
        live_remove(f->temp);
    }
    return st;
}

static void free_file(out_file *f)
{
    free(f->final);
    free(f->temp);
    free(f->backup);
    memset(f, 0, sizeof *f);
}

/* The next file of the set, for target `name` (checked, its final path
 * set), in *out; it counts once its temporary is written (set->count++). */
static kvg_status next_file(kvg_outset *set, const char *name,
                            out_file **out, kvg_diag *diag)
{
    out_file *f;

    KVG_TRY(kvg_outset_check(set, name, NULL, 0, diag));
    if (set->count == set->cap) {
        int ncap = set->cap ? set->cap * 2 : 8;
        out_file *nf =
            (out_file *)realloc(set->files, (size_t)ncap * sizeof *nf);
        if (nf == NULL)
            return kvg_diag_set(diag, KVG_ERR_NOMEM, name, -1, -1,
                                "out of memory");
        set->files = nf;
        set->cap = ncap;
    }
    f = &set->files[set->count];
    memset(f, 0, sizeof *f);
    if ((f->final = kvg_path_join(set->dir, name, NULL, diag)) == NULL) {
        free_file(f);
        return KVG_ERR_NOMEM;
    }
    *out = f;
    return KVG_OK;
}

/* Add file `name`: t as .npy, or (t NULL) `size` bytes of `data`. */
static kvg_status add_file(kvg_outset *set, const char *name,
                           const kvg_tensor *t, const void *data,
                           size_t size, kvg_diag *diag)
{
    out_file *f = NULL;
    kvg_status st;

    if ((st = next_file(set, name, &f, diag)) != KVG_OK)
        return st;
    if ((st = write_temp(set, f, name, t, data, size, diag)) != KVG_OK) {
        free_file(f);
        return st;
    }
    set->count++;
    return KVG_OK;
}

kvg_status kvg_outset_add_npy(kvg_outset *set, const char *name,
                              const kvg_tensor *t, kvg_diag *diag)
{
    return add_file(set, name, t, NULL, 0, diag);
}

kvg_status kvg_outset_add_bytes(kvg_outset *set, const char *name,
                                const void *data, size_t size,
                                kvg_diag *diag)
{
    return add_file(set, name, NULL, data, size, diag);
}

/* Keep the old target under a backup name, without ever removing it when
 * the filesystem can hard-link. */
static kvg_status back_up(kvg_outset *set, out_file *f, kvg_diag *diag)
{
    struct stat sb, bb;
    int tries;
    const char *leaf = strrchr(f->final, '/');

    if (lstat(f->final, &sb) != 0)
        return KVG_OK; /* nothing to keep */
    if (!S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
        return kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                            "%s: is %s (it appeared while the outputs were "
                            "written); nothing was replaced", f->final,
                            kvg_file_kind((unsigned long)sb.st_mode));
    leaf = leaf != NULL ? leaf + 1 : f->final;
    for (tries = 0; tries < NAME_TRIES; tries++) {
        free(f->backup);
        if ((f->backup = side_name(set, leaf, "old", diag)) == NULL)
            return KVG_ERR_NOMEM;
        if (link(f->final, f->backup) == 0) {
            f->backup_kind = 1;
            return KVG_OK;
        }
        if (errno == EEXIST)
            continue; /* a name someone holds: another one */
        /* no hard links here: move the target aside, but never over an
         * existing name (rename would replace it) */
        if (lstat(f->backup, &bb) == 0)
            continue;
        if (rename(f->final, f->backup) == 0) {
            f->backup_kind = 2;
            return KVG_OK;
        }
        break;
    }
    return kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                        "%s: cannot keep the old file aside while "
                        "replacing it: %s", f->final, strerror(errno));
}

/* Undo a failed commit: old targets back, new files removed. */
static void roll_back(kvg_outset *set)
{
    int i;
    for (i = 0; i < set->count; i++) {
        out_file *f = &set->files[i];
        if (f->renamed && f->backup_kind == 0)
            (void)unlink(f->final);
        else if (f->renamed || f->backup_kind == 2)
            (void)rename(f->backup, f->final);
        else if (f->backup_kind == 1)
            (void)unlink(f->backup);
        f->renamed = 0;
        f->backup_kind = 0;
    }
}

static kvg_status sync_dir(int fd, const char *dir, kvg_diag *diag)
{
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        return kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                            "%s: the files are in place but syncing the "
                            "directory failed: %s", dir, strerror(errno));
    return KVG_OK;
}

/* Take the directory's exclusive lock (flock), waiting for another
 * kvgold's commit to finish, so that two sets committed into one directory
 * at once never mix: each commit's renames happen as one block. A
 * filesystem without flock (some network filesystems) gives no lock and
 * no error: the commit still is all or nothing for this process. */
static kvg_status lock_dir(const char *dir, int *fd, kvg_diag *diag)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (*fd < 0)
        return kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                            "%s: cannot open the output directory: %s", dir,
                            strerror(errno));
    while (flock(*fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL ||
            errno == EBADF)
            break; /* no locks on this filesystem */
        {
            int err = errno;
            close(*fd);
            *fd = -1;
            return kvg_diag_set(diag, KVG_ERR_IO, "--out", -1, -1,
                                "%s: cannot lock the output directory: %s",
                                dir, strerror(err));
        }
    }
    return KVG_OK;
}

kvg_status kvg_outset_commit(kvg_outset *set, kvg_diag *diag)
{
    kvg_status st;
    int i, dfd;

    if ((st = lock_dir(set->dir, &dfd, diag)) != KVG_OK)
        return st;
    for (i = 0; st == KVG_OK && i < set->count; i++)
        st = back_up(set, &set->files[i], diag);
    for (i = 0; st == KVG_OK && i < set->count; i++) {
        out_file *f = &set->files[i];
        if (rename(f->temp, f->final) != 0) {
            st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                              "%s: cannot move the new file into place: %s; "
                              "nothing was replaced", f->final,
                              strerror(errno));
        } else {
            f->renamed = 1;
            live_remove(f->temp);
            if (kvg_outset_commit_hook != NULL)
                kvg_outset_commit_hook(f->final);
        }
    }
    if (st != KVG_OK) {
        roll_back(set);
        close(dfd); /* releases the lock */
        return st;
    }
    for (i = 0; i < set->count; i++)
        if (set->files[i].backup_kind != 0)
            (void)unlink(set->files[i].backup);
    st = sync_dir(dfd, set->dir, diag);
    close(dfd);
    return st;
}

int kvg_outset_count(const kvg_outset *set) { return set->count; }

const char *kvg_outset_path(const kvg_outset *set, int i)
{
    return i >= 0 && i < set->count ? set->files[i].final : NULL;
}

void kvg_outset_end(kvg_outset *set)
{
    int i;
    if (set == NULL)
        return;
    for (i = 0; i < set->count; i++) {
        if (!set->files[i].renamed) {
            (void)unlink(set->files[i].temp);
            live_remove(set->files[i].temp);
        }
        free_file(&set->files[i]);
    }
    free(set->files);
    free(set->dir);
    free(set);
}

/* ---- files rendered through a stream, and sets committed together ---- */

kvg_status kvg_outset_add_stream(kvg_outset *set, const char *name,
                                 kvg_outset_writer render, void *user,
                                 kvg_diag *diag)
{
    out_file *f = NULL;
    kvg_status st;
    kvg_diag why;
    FILE *fp;
    int fd;

    if ((st = next_file(set, name, &f, diag)) != KVG_OK)
        return st;
    if ((st = create_temp(set, f, name, &fd, diag)) != KVG_OK) {
        free_file(f);
        return st;
    }
    if ((fp = fdopen(fd, "w")) == NULL) {
        st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1, "%s: %s",
                          f->final,
                          strerror(errno));
        (void)close(fd);
    } else {
        kvg_diag_clear(&why);
        errno = 0;
        if ((st = render(fp, user, &why)) != KVG_OK)
            (void)kvg_diag_set(diag, st, f->final, -1, -1, "%s: %s", f->final,
                               why.message[0] ? why.message
                                              : "cannot render it");
        else if (fflush(fp) != 0 || ferror(fp))
            st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                              "%s: write error: %s", f->final,
                              strerror(errno ? errno : EIO));
        else if (fsync(fileno(fp)) != 0)
            st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                              "%s: fsync: %s", f->final, strerror(errno));
        if (fclose(fp) != 0 && st == KVG_OK)
            st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                              "%s: write error on close: %s", f->final,
                              strerror(errno));
    }
    if (st != KVG_OK) {
        (void)unlink(f->temp);
        live_remove(f->temp);
        free_file(f);
        return st;
    }
    set->count++;
    return KVG_OK;
}

/* Sets whose directories are locked in one order by every process (by
 * device and inode), so two commits over the same directories cannot
 * each hold one lock and wait for the other. */
static void lock_order(kvg_outset *const *sets, int n, int *order)
{
    struct stat a, b;
    int i, j;

    for (i = 0; i < n; i++)
        order[i] = i;
    for (i = 1; i < n; i++)
        for (j = i; j > 0; j--) {
            int x = order[j - 1], y = order[j];
            if (stat(sets[x]->dir, &a) != 0 || stat(sets[y]->dir, &b) != 0 ||
                a.st_dev < b.st_dev ||
                (a.st_dev == b.st_dev && a.st_ino <= b.st_ino))
                break;
            order[j - 1] = y;
            order[j] = x;
        }
}

#define COMMIT_MANY_MAX 16

kvg_status kvg_outset_commit_many(kvg_outset *const *sets, int n,
                                  kvg_diag *diag)
{
    int order[COMMIT_MANY_MAX], dfd[COMMIT_MANY_MAX];
    kvg_status st = KVG_OK;
    int s, i, locked = 0;

    if (n < 0 || n > COMMIT_MANY_MAX)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "--out", -1, -1,
                            "at most %d output directories in one set",
                            COMMIT_MANY_MAX);
    lock_order(sets, n, order);
    for (s = 0; st == KVG_OK && s < n; s++)
        if ((st = lock_dir(sets[order[s]]->dir, &dfd[s], diag)) == KVG_OK)
            locked++;
    for (s = 0; st == KVG_OK && s < n; s++)
        for (i = 0; st == KVG_OK && i < sets[s]->count; i++)
            st = back_up(sets[s], &sets[s]->files[i], diag);
    for (s = 0; st == KVG_OK && s < n; s++)
        for (i = 0; st == KVG_OK && i < sets[s]->count; i++) {
            out_file *f = &sets[s]->files[i];
            if (rename(f->temp, f->final) != 0) {
                st = kvg_diag_set(diag, KVG_ERR_IO, f->final, -1, -1,
                                  "%s: cannot move the new file into place: "
                                  "%s; nothing was replaced", f->final,
                                  strerror(errno));
            } else {
                f->renamed = 1;
                live_remove(f->temp);
            }
        }
    if (st != KVG_OK) {
        for (s = 0; s < n; s++)
            roll_back(sets[s]);
    } else {
        for (s = 0; s < n; s++)
            for (i = 0; i < sets[s]->count; i++)
                if (sets[s]->files[i].backup_kind != 0)
                    (void)unlink(sets[s]->files[i].backup);
        for (s = 0; st == KVG_OK && s < n; s++)
            st = sync_dir(dfd[s], sets[order[s]]->dir, diag);
    }
    for (s = 0; s < locked; s++)
        close(dfd[s]); /* releases the lock */
    return st;
}
