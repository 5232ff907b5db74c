/*
 * tools/lib/fsio/fileio.c - see fileio.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One transfer at most this big: Linux moves at most ~2 GiB per call. */
#define KVG_IO_CHUNK ((size_t)1 << 30)

char *kvg_path_join(const char *dir, const char *name, const char *suffix,
                    kvg_diag *diag)
{
    size_t ld = strlen(dir), ln = strlen(name);
    size_t ls = suffix != NULL ? strlen(suffix) : 0;
    int slash = ld != 0 && dir[ld - 1] != '/';
    char *p;

    if (ld > SIZE_MAX / 2 || ln > SIZE_MAX / 4 || ls > SIZE_MAX / 8 ||
        (p = (char *)malloc(ld + (size_t)slash + ln + ls + 1)) == NULL) {
        (void)kvg_diag_set(diag, KVG_ERR_NOMEM, name, -1, -1,
                           "out of memory building a path for %s", name);
        return NULL;
    }
    memcpy(p, dir, ld);
    if (slash)
        p[ld] = '/';
    memcpy(p + ld + (size_t)slash, name, ln);
    if (ls != 0)
        memcpy(p + ld + (size_t)slash + ln, suffix, ls);
    p[ld + (size_t)slash + ln + ls] = '\0';
    return p;
}

/* KVG_ERR_IO naming path and the OS reason `err`, errno left at `err`
 * for callers that tell causes apart (kvg_diag_set may touch errno). */
static kvg_status os_fail(const char *path, const char *what,
                          const char *doing, int err, kvg_diag *diag)
{
    kvg_status st = kvg_diag_set(diag, KVG_ERR_IO, what, -1, -1, "%s: %s: %s",
                                 path, doing, strerror(err));
    errno = err;
    return st;
}

kvg_status kvg_pread_full(int fd, void *buf, size_t size, uint64_t offset,
                          size_t *got, const char *path, const char *what,
                          kvg_diag *diag)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < KVG_IO_CHUNK ? size - done : KVG_IO_CHUNK;
        ssize_t n = pread(fd, (unsigned char *)buf + done, want,
                          (off_t)(offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *got = done;
            return os_fail(path, what, "cannot read", errno, diag);
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *got = done;
    return KVG_OK;
}

kvg_status kvg_write_full(int fd, const void *buf, size_t size,
                          const char *path, const char *what, kvg_diag *diag)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < KVG_IO_CHUNK ? size - done : KVG_IO_CHUNK;
        ssize_t put = write(fd, (const unsigned char *)buf + done, want);
        if (put < 0 && errno == EINTR)
            continue;
        /* write() answering 0 for a non-empty buffer makes no progress;
         * call it EIO rather than loop forever */
        if (put <= 0)
            return os_fail(path, what, "write error", put < 0 ? errno : EIO,
                           diag);
        done += (size_t)put;
    }
    return KVG_OK;
}

const char *kvg_file_kind(unsigned long mode)
{
    mode_t m = (mode_t)mode;
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISREG(m))
        return "a regular file";
    return "not a regular file";
}

kvg_status kvg_open_regular(const char *path, const char *what, int *fd,
                            struct stat *sb, kvg_diag *diag)
{
    struct stat local;
    if (sb == NULL)
        sb = &local;
    /* O_NONBLOCK: opening a FIFO with no writer would block forever; a
     * regular file ignores the flag. */
    *fd = open(path, O_RDONLY | O_NONBLOCK);
    if (*fd < 0)
        return kvg_diag_set(diag, KVG_ERR_IO, what, -1, -1,
                            "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, sb) != 0) {
        int err = errno;
        close(*fd);
        *fd = -1;
        return kvg_diag_set(diag, KVG_ERR_IO, what, -1, -1,
                            "%s: cannot stat: %s", path, strerror(err));
    }
    if (!S_ISREG(sb->st_mode)) {
        close(*fd);
        *fd = -1;
        return kvg_diag_set(diag, KVG_ERR_IO, what, -1, -1,
                            "%s: is %s, not a regular file; kvgold reads "
                            "only regular files", path,
                            kvg_file_kind((unsigned long)sb->st_mode));
    }
    return KVG_OK;
}
