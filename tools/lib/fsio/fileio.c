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

ssize_t kvg_pread_full(int fd, void *buf, size_t size, uint64_t offset)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < KVG_IO_CHUNK ? size - done : KVG_IO_CHUNK;
        ssize_t got = pread(fd, (unsigned char *)buf + done, want,
                            (off_t)(offset + done));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (ssize_t)done;
}

int kvg_write_full(int fd, const void *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < KVG_IO_CHUNK ? size - done : KVG_IO_CHUNK;
        ssize_t put = write(fd, (const unsigned char *)buf + done, want);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (put == 0) {
            errno = EIO;
            return -1;
        }
        done += (size_t)put;
    }
    return 0;
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
