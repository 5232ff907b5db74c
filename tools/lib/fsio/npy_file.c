/*
 * tools/lib/fsio/npy_file.c - .npy and .bin files on disk (see npy_file.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "npy_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "membudget.h"
#include "map_guard.h"

/* Open for reading and insist on a regular file. O_NONBLOCK: opening a
 * FIFO with no writer would otherwise block forever. */
static kvg_status open_regular(const char *path, int *fd, struct stat *st,
                               kvg_diag *diag)
{
    *fd = open(path, O_RDONLY | O_NONBLOCK);
    if (*fd < 0)
        return kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                            "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, st) != 0) {
        int err = errno;
        close(*fd);
        return kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                            "%s: cannot stat: %s", path, strerror(err));
    }
    if (!S_ISREG(st->st_mode)) {
        close(*fd);
        return kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                            "%s: is %s, not a regular file; kvgold reads "
                            "tensors only from regular files",
                            path, kvg_file_kind((unsigned long)st->st_mode));
    }
    return KVG_OK;
}

/* Put "path: " in front of a parser message, which cannot know the path. */
static kvg_status with_path(kvg_status st, const char *path, kvg_diag *diag)
{
    if (diag != NULL && strncmp(diag->message, path, strlen(path)) != 0) {
        char msg[KVG_DIAG_MESSAGE_MAX];
        (void)snprintf(msg, sizeof msg, "%s: %s", path, diag->message);
        memcpy(diag->message, msg, sizeof msg);
    }
    return st;
}

/* Read and parse preamble + header; nothing past it. */
static kvg_status read_header(int fd, const char *path, uint64_t file_size,
                              kvg_npy_info *info, kvg_diag *diag)
{
    unsigned char pre[12];
    size_t want = file_size < sizeof pre ? (size_t)file_size : sizeof pre;
    size_t head = 0;
    unsigned char *buf;
    size_t got;
    kvg_status st;

    KVG_TRY(kvg_pread_full(fd, pre, want, 0, &got, path, path, diag));
    if ((st = kvg_npy_header_size(pre, got, &head, diag)) != KVG_OK)
        return with_path(st, path, diag);
    if (head > file_size)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                            "%s: npy: the header needs %lu bytes but the file "
                            "has %llu (truncated header)", path,
                            (unsigned long)head, (unsigned long long)file_size);
    if ((buf = (unsigned char *)malloc(head)) == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, path, -1, -1,
                            "%s: out of memory for the header", path);
    st = kvg_pread_full(fd, buf, head, 0, &got, path, path, diag);
    if (st == KVG_OK && got != head)
        st = kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                          "%s: read error: the file shrank", path);
    if (st != KVG_OK) {
        free(buf);
        return st;
    }
    st = kvg_npy_parse_header(buf, head, info, diag);
    free(buf);
    if (st == KVG_OK)
        st = kvg_npy_check_data_size(info, file_size, diag);
    return st == KVG_OK ? KVG_OK : with_path(st, path, diag);
}

/* Reserve, allocate exactly `bytes` and read them from `offset`. */
static kvg_status read_data(int fd, const char *path, uint64_t offset,
                            size_t bytes, kvg_tensor *out, kvg_diag *diag)
{
    char what[160];
    size_t got;
    kvg_status st;

    (void)snprintf(what, sizeof what, "%s", path);
    KVG_TRY(kvg_mem_reserve(bytes, what, diag));
    out->data = malloc(bytes ? bytes : 1);
    if (out->data == NULL) {
        kvg_mem_release(bytes);
        return kvg_diag_set(diag, KVG_ERR_NOMEM, path, -1, -1,
                            "%s: out of memory (%lu bytes of data)", path,
                            (unsigned long)bytes);
    }
    st = kvg_pread_full(fd, out->data, bytes, offset, &got, path, path, diag);
    if (st == KVG_OK && got != bytes)
        st = kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                          "%s: read error: the file shrank", path);
    if (st != KVG_OK) {
        free(out->data);
        out->data = NULL;
        kvg_mem_release(bytes);
        return st;
    }
    out->nbytes = bytes;
    return KVG_OK;
}

static void set_view(kvg_tensor *out, kvg_dtype dtype, int rank,
                     const int64_t *shape)
{
    int i;
    out->dtype = dtype;
    out->rank = rank;
    for (i = 0; i < rank; i++)
        out->shape[i] = shape[i];
}

kvg_status kvg_npy_load(const char *path, kvg_dtype dtype, kvg_tensor *out,
                        kvg_diag *diag)
{
    kvg_npy_info info;
    struct stat sb;
    kvg_status st;
    int fd;

    if (path == NULL || out == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL path or output tensor");
    memset(out, 0, sizeof *out);
    if (kvg_npy_descr_of(dtype) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, path, -1, -1,
                            "%s: no .npy storage for dtype %s", path,
                            kvg_dtype_name(dtype));
    KVG_TRY(open_regular(path, &fd, &sb, diag));
    st = read_header(fd, path, (uint64_t)sb.st_size, &info, diag);
    if (st == KVG_OK && !kvg_npy_descr_accepts(dtype, info.descr))
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                          "%s: descr is '%s' but dtype %s is stored as '%s'",
                          path, info.descr, kvg_dtype_name(dtype),
                          kvg_npy_descr_of(dtype));
    if (st == KVG_OK)
        st = read_data(fd, path, info.data_offset, info.data_bytes, out, diag);
    close(fd);
    if (st == KVG_OK)
        set_view(out, dtype, info.rank, info.shape);
    return st;
}

kvg_status kvg_npy_open_checked(const char *path, kvg_dtype dtype, int *fd,
                                kvg_npy_info *info, kvg_diag *diag)
{
    struct stat sb;
    kvg_status st;

    if (kvg_npy_descr_of(dtype) == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, path, -1, -1,
                            "%s: no .npy storage for dtype %s", path,
                            kvg_dtype_name(dtype));
    KVG_TRY(open_regular(path, fd, &sb, diag));
    st = read_header(*fd, path, (uint64_t)sb.st_size, info, diag);
    if (st == KVG_OK && !kvg_npy_descr_accepts(dtype, info->descr))
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                          "%s: descr is '%s' but dtype %s is stored as '%s'",
                          path, info->descr, kvg_dtype_name(dtype),
                          kvg_npy_descr_of(dtype));
    if (st != KVG_OK)
        close(*fd);
    return st;
}

kvg_status kvg_raw_open_checked(const char *path, uint64_t need, int *fd,
                                kvg_diag *diag)
{
    struct stat sb;

    KVG_TRY(open_regular(path, fd, &sb, diag));
    if ((uint64_t)sb.st_size == need)
        return KVG_OK;
    close(*fd);
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                        "%s: raw file is %llu bytes, but the dtype and the "
                        "shape need %llu", path,
                        (unsigned long long)sb.st_size,
                        (unsigned long long)need);
}

kvg_status kvg_raw_load(const char *path, kvg_dtype dtype, int rank,
                        const int64_t *shape, kvg_tensor *out, kvg_diag *diag)
{
    uint64_t need = kvg_dtype_size(dtype);
    struct stat sb;
    kvg_status st;
    int fd, i;

    if (path == NULL || out == NULL || (shape == NULL && rank != 0))
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "bin", -1, -1,
                            "bin: NULL path, shape or output tensor");
    memset(out, 0, sizeof *out);
    if (need == 0 || rank < 0 || rank > KVG_MAX_RANK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, path, -1, -1,
                            "%s: bad dtype or rank %d for a raw file", path,
                            rank);
    for (i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                                "%s: shape dimension %d is negative", path, i);
        if (shape[i] != 0 && need > UINT64_MAX / (uint64_t)shape[i])
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                                "%s: the shape's byte size overflows", path);
        need *= (uint64_t)shape[i];
    }
    if (need > (uint64_t)SIZE_MAX)
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                            "%s: the shape's byte size overflows", path);
    if ((st = open_regular(path, &fd, &sb, diag)) != KVG_OK)
        return st;
    if ((uint64_t)sb.st_size != need)
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                          "%s: raw file is %llu bytes, but dtype %s and the "
                          "shape in case.json need %llu", path,
                          (unsigned long long)sb.st_size,
                          kvg_dtype_name(dtype), (unsigned long long)need);
    else
        st = read_data(fd, path, 0, (size_t)need, out, diag);
    close(fd);
    if (st == KVG_OK)
        set_view(out, dtype, rank, shape);
    return st;
}

void kvg_npy_free(kvg_tensor *t)
{
    if (t == NULL)
        return;
    if (t->data != NULL)
        kvg_mem_release(t->nbytes);
    free(t->data);
    memset(t, 0, sizeof *t);
}

kvg_status kvg_npy_write_fd(int fd, const char *path, const kvg_tensor *t,
                            kvg_diag *diag)
{
    unsigned char header[640];
    size_t head = 0;

    kvg_status st;

    KVG_TRY(kvg_npy_encode_header(t, header, sizeof header, &head, diag));
    KVG_TRY(kvg_write_full(fd, header, head, path, path, diag));
    st = kvg_write_full(fd, t->data, t->nbytes, path, path, diag);
    /* the kernel's copy from a mapped file truncated under us fails with
     * EFAULT (where a load would raise SIGBUS): name that file instead */
    if (st != KVG_OK && errno == EFAULT && kvg_map_owner(t->data) != NULL)
        return kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                            "%s: the file shrank while it was being read "
                            "(another process truncated it); %s not "
                            "written", kvg_map_owner(t->data), path);
    return st;
}

kvg_status kvg_npy_save(const char *path, const kvg_tensor *t, kvg_diag *diag)
{
    size_t need = 0;
    kvg_status st;
    int fd;

    if (path == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "npy", -1, -1,
                            "npy: NULL path");
    KVG_TRY(kvg_npy_encode_header(t, NULL, 0, &need, diag));
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                            "%s: cannot create: %s", path, strerror(errno));
    st = kvg_npy_write_fd(fd, path, t, diag);
    if (close(fd) != 0 && st == KVG_OK)
        st = kvg_diag_set(diag, KVG_ERR_IO, path, -1, -1,
                          "%s: write error on close: %s", path,
                          strerror(errno));
    /* A half-written file would load as "short data" later and hide the
     * real cause; remove it. */
    if (st != KVG_OK)
        (void)remove(path);
    return st;
}
