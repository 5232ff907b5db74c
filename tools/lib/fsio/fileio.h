/*
 * tools/lib/fsio/fileio.h - small POSIX helpers shared by the tools' file code:
 * full reads and writes that retry short transfers and EINTR, paths built
 * with malloc (never cut to a fixed buffer), and messages that carry the
 * OS reason.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_FILEIO_H
#define KVGOLD_TOOLS_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "kvgold/status.h"

/* dir + "/" + name + suffix (suffix may be NULL), malloc'ed; NULL when
 * memory runs out (diag says so). A dir of "" gives "name". */
char *kvg_path_join(const char *dir, const char *name, const char *suffix,
                    kvg_diag *diag);

/* Read `size` bytes at `offset` of `path` (open as fd) into buf, retrying
 * short reads and EINTR; *got receives the bytes read, fewer than `size`
 * only at end of file (what that means is the caller's to say). An OS
 * error is KVG_ERR_IO, "PATH: cannot read: REASON" (diag tensor `what`),
 * with errno left as the OS set it. */
kvg_status kvg_pread_full(int fd, void *buf, size_t size, uint64_t offset,
                          size_t *got, const char *path, const char *what,
                          kvg_diag *diag);

/* Write all `size` bytes of buf to `path` (open as fd), retrying short
 * writes and EINTR. An OS error is KVG_ERR_IO, "PATH: write error: REASON"
 * (diag tensor `what`), with errno left as the OS set it (EFAULT: the
 * source is a mapping whose file shrank). */
kvg_status kvg_write_full(int fd, const void *buf, size_t size,
                          const char *path, const char *what,
                          kvg_diag *diag);

/* What kind of non-regular file a mode is, for messages ("a directory",
 * "a FIFO", "a character device"...). */
const char *kvg_file_kind(unsigned long mode);

/* Open `path` for reading, without blocking (a FIFO with no writer), and
 * insist on a regular file: a FIFO, device, directory or socket is refused
 * (KVG_ERR_IO, "PATH: is a FIFO (named pipe), not a regular file", diag
 * tensor `what`). *fd is open on success, -1 on failure; *sb (may be
 * NULL) receives fstat's answer. */
kvg_status kvg_open_regular(const char *path, const char *what, int *fd,
                            struct stat *sb, kvg_diag *diag);

#endif /* KVGOLD_TOOLS_FILEIO_H */
