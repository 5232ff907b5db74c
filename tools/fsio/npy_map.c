/*
 * tools/fsio/npy_map.c - tensor files mapped (see npy_map.h).
 * SPDX-License-Identifier: Apache-2.0
 */
/* madvise and MADV_DONTNEED are not in POSIX (posix_madvise's
 * POSIX_MADV_DONTNEED is a no-op on Linux). */
#define _DEFAULT_SOURCE
#include "npy_map.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileio.h"
#include "npy_file.h"

/* Data offsets the mapping accepts: element loads of every dtype stay
 * aligned (NumPy pads headers to 64 bytes; 16 in old files). */
#define MAP_ALIGN 16u

static kvg_status map_fd(int fd, const char *path, uint64_t offset,
                         uint64_t bytes, kvg_map_mode mode, kvg_file_map *m,
                         kvg_diag *diag)
{
    uint64_t len = offset + bytes;
    void *base;

    if (bytes == 0 || offset % MAP_ALIGN != 0 || len > (uint64_t)SIZE_MAX)
        return kvg_fs_fail(diag, KVG_ERR_PARAM_INVALID, path,
                           "%s: data at offset %llu (%llu bytes) cannot be "
                           "mapped; read it instead", path,
                           (unsigned long long)offset,
                           (unsigned long long)bytes);
    base = mmap(NULL, (size_t)len,
                mode == KVG_MAP_PRIVATE ? PROT_READ | PROT_WRITE : PROT_READ,
                mode == KVG_MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return kvg_fs_fail(diag, errno == ENOMEM ? KVG_ERR_NOMEM : KVG_ERR_IO,
                           path, "%s: cannot map %llu bytes: %s", path,
                           (unsigned long long)len, strerror(errno));
    m->base = base;
    m->len = (size_t)len;
    m->mode = mode;
    return KVG_OK;
}

static void set_view(kvg_tensor *out, const kvg_file_map *m, uint64_t offset,
                     kvg_dtype dtype, int rank, const int64_t *shape)
{
    int i;
    out->data = (unsigned char *)m->base + offset;
    out->nbytes = m->len - (size_t)offset;
    out->dtype = dtype;
    out->rank = rank;
    for (i = 0; i < rank; i++)
        out->shape[i] = shape[i];
}

kvg_status kvg_npy_map(const char *path, kvg_dtype dtype, kvg_map_mode mode,
                       kvg_tensor *out, kvg_file_map *m, kvg_diag *diag)
{
    kvg_npy_info info;
    kvg_status st;
    int fd;

    memset(out, 0, sizeof *out);
    memset(m, 0, sizeof *m);
    if ((st = kvg_npy_open_checked(path, dtype, &fd, &info, diag)) != KVG_OK)
        return st;
    st = map_fd(fd, path, info.data_offset, info.data_bytes, mode, m, diag);
    close(fd); /* the mapping keeps the file */
    if (st == KVG_OK)
        set_view(out, m, info.data_offset, dtype, info.rank, info.shape);
    return st;
}

kvg_status kvg_raw_map(const char *path, kvg_dtype dtype, int rank,
                       const int64_t *shape, kvg_map_mode mode,
                       kvg_tensor *out, kvg_file_map *m, kvg_diag *diag)
{
    uint64_t need = kvg_dtype_size(dtype);
    kvg_status st;
    int fd, i;

    memset(out, 0, sizeof *out);
    memset(m, 0, sizeof *m);
    if (need == 0 || rank < 0 || rank > KVG_MAX_RANK)
        return kvg_fs_fail(diag, KVG_ERR_PARAM_INVALID, path,
                           "%s: bad dtype or rank %d for a raw file", path,
                           rank);
    for (i = 0; i < rank; i++) {
        if (shape[i] < 0 ||
            (shape[i] != 0 && need > UINT64_MAX / (uint64_t)shape[i]))
            return kvg_fs_fail(diag, KVG_ERR_FILE_FORMAT, path,
                               "%s: the shape's byte size overflows or "
                               "dimension %d is negative", path, i);
        need *= (uint64_t)shape[i];
    }
    if ((st = kvg_raw_open_checked(path, need, &fd, diag)) != KVG_OK)
        return st;
    st = map_fd(fd, path, 0, need, mode, m, diag);
    close(fd);
    if (st == KVG_OK)
        set_view(out, m, 0, dtype, rank, shape);
    return st;
}

void kvg_file_unmap(kvg_file_map *m)
{
    if (m == NULL || m->base == NULL)
        return;
    (void)munmap(m->base, m->len);
    memset(m, 0, sizeof *m);
}

/* MADV_DONTNEED on the whole pages inside [p, p + bytes) of m. */
static void drop_pages(const kvg_file_map *m, const void *p, size_t bytes)
{
    uintptr_t page, lo, hi;
    long ps = sysconf(_SC_PAGESIZE);

    if (m == NULL || m->base == NULL || ps <= 0)
        return;
    page = (uintptr_t)ps;
    lo = ((uintptr_t)p + page - 1) / page * page;
    hi = ((uintptr_t)p + bytes) / page * page;
    if (lo < (uintptr_t)m->base)
        lo = ((uintptr_t)m->base + page - 1) / page * page;
    if (hi > (uintptr_t)m->base + m->len)
        hi = ((uintptr_t)m->base + m->len) / page * page;
    if (hi > lo)
        (void)madvise((void *)lo, (size_t)(hi - lo), MADV_DONTNEED);
}

void kvg_file_map_drop(const kvg_file_map *m, const void *p, size_t bytes)
{
    if (m != NULL && m->mode == KVG_MAP_READ)
        drop_pages(m, p, bytes);
}

void kvg_file_map_drop_unchanged(const kvg_file_map *m, const void *p,
                                 size_t bytes)
{
    drop_pages(m, p, bytes);
}
