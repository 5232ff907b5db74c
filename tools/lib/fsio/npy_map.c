/*
 * tools/lib/fsio/npy_map.c - tensor files mapped (see npy_map.h).
 * SPDX-License-Identifier: Apache-2.0
 */
/* madvise and MADV_DONTNEED are not in POSIX (posix_madvise's
 * POSIX_MADV_DONTNEED is a no-op on Linux). */
#define _DEFAULT_SOURCE
#include "npy_map.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "fileio.h"
#include "npy_file.h"
#include "map_guard.h"

void (*kvg_map_test_hook)(const char *path, int fd);

/* Data offsets kvg_npy_map / kvg_raw_map accept: NumPy pads headers to
 * 64 bytes (16 in old files), so any other offset is a hand-made file,
 * read instead. kvg_region_map takes any offset: dump formats put tensors
 * after text headers and at arbitrary offsets, and kvgold reads tensor
 * bytes alignment-free (kvgold/format.h). */
#define MAP_ALIGN 16u

/* Map [offset, offset + bytes) of open file fd, from the page holding
 * `offset`; *data (may be NULL) the first byte. any_align 0: data not
 * MAP_ALIGN-aligned in the file is refused (the caller reads it). */
static kvg_status map_fd(int fd, const char *path, uint64_t offset,
                         uint64_t bytes, kvg_map_mode mode, int any_align,
                         kvg_file_map *m, void **data, kvg_diag *diag)
{
    long ps = sysconf(_SC_PAGESIZE);
    const uint64_t page = ps > 0 ? (uint64_t)ps : 4096u;
    const uint64_t start = offset / page * page;
    uint64_t len;
    void *base;

    if (bytes == 0 || (!any_align && offset % MAP_ALIGN != 0) ||
        offset > UINT64_MAX - bytes ||
        (len = offset - start + bytes) > (uint64_t)SIZE_MAX ||
        (uint64_t)(off_t)start != start)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, path, -1, -1,
                            "%s: data at offset %llu (%llu bytes) cannot be "
                            "mapped; read it instead", path,
                            (unsigned long long)offset,
                            (unsigned long long)bytes);
    base = mmap(NULL, (size_t)len,
                mode == KVG_MAP_PRIVATE ? PROT_READ | PROT_WRITE : PROT_READ,
                mode == KVG_MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED, fd,
                (off_t)start);
    if (base == MAP_FAILED)
        return kvg_diag_set(diag, errno == ENOMEM ? KVG_ERR_NOMEM : KVG_ERR_IO,
                            path, -1, -1, "%s: cannot map %llu bytes: %s", path,
                            (unsigned long long)len, strerror(errno));
    m->base = base;
    m->len = (size_t)len;
    m->mode = mode;
    m->offset = start;
    if (data != NULL)
        *data = (unsigned char *)base + (size_t)(offset - start);
    kvg_map_remember(base, (size_t)len, path);
    if (kvg_map_test_hook != NULL)
        kvg_map_test_hook(path, fd);
    return KVG_OK;
}

static void set_view(kvg_tensor *out, const kvg_file_map *m, uint64_t offset,
                     kvg_dtype dtype, int rank, const int64_t *shape)
{
    int i;
    out->data = (unsigned char *)m->base + (size_t)(offset - m->offset);
    out->nbytes = m->len - (size_t)(offset - m->offset);
    out->dtype = dtype;
    out->rank = rank;
    for (i = 0; i < rank; i++)
        out->shape[i] = shape[i];
}

kvg_status kvg_region_map(const char *path, const char *what,
                          uint64_t offset, uint64_t bytes, kvg_map_mode mode,
                          kvg_file_map *m, void **data, kvg_diag *diag)
{
    struct stat sb;
    kvg_status st;
    int fd;

    memset(m, 0, sizeof *m);
    *data = NULL;
    KVG_TRY(kvg_open_regular(path, what, &fd, &sb, diag));
    if ((uint64_t)sb.st_size < offset ||
        (uint64_t)sb.st_size - offset < bytes) {
        close(fd);
        return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, what, -1, -1,
                            "%s: truncated: %llu bytes of data at offset "
                            "%llu, the file has %llu", path,
                            (unsigned long long)bytes,
                            (unsigned long long)offset,
                            (unsigned long long)sb.st_size);
    }
    st = map_fd(fd, path, offset, bytes, mode, 1, m, data, diag);
    close(fd); /* the mapping keeps the file */
    return st;
}

kvg_status kvg_file_map_private(const char *path, const kvg_file_map *m,
                                const kvg_tensor *t, kvg_tensor *out,
                                kvg_file_map *copy, kvg_diag *diag)
{
    const uint64_t at = m->offset +
                        (uint64_t)((const unsigned char *)t->data -
                                   (const unsigned char *)m->base);
    void *data;
    kvg_status st = kvg_region_map(path, path, at, t->nbytes,
                                   KVG_MAP_PRIVATE, copy, &data, diag);
    if (st != KVG_OK)
        return st;
    *out = *t;
    out->data = data;
    return KVG_OK;
}

kvg_status kvg_npy_map(const char *path, kvg_dtype dtype, kvg_map_mode mode,
                       kvg_tensor *out, kvg_file_map *m, kvg_diag *diag)
{
    kvg_npy_info info;
    kvg_status st;
    int fd;

    memset(out, 0, sizeof *out);
    memset(m, 0, sizeof *m);
    KVG_TRY(kvg_npy_open_checked(path, dtype, &fd, &info, diag));
    st = map_fd(fd, path, info.data_offset, info.data_bytes, mode, 0, m,
                NULL, diag);
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
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, path, -1, -1,
                            "%s: bad dtype or rank %d for a raw file", path,
                            rank);
    for (i = 0; i < rank; i++) {
        if (shape[i] < 0 ||
            (shape[i] != 0 && need > UINT64_MAX / (uint64_t)shape[i]))
            return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                                "%s: the shape's byte size overflows or "
                                "dimension %d is negative", path, i);
        need *= (uint64_t)shape[i];
    }
    KVG_TRY(kvg_raw_open_checked(path, need, &fd, diag));
    st = map_fd(fd, path, 0, need, mode, 0, m, NULL, diag);
    close(fd);
    if (st == KVG_OK)
        set_view(out, m, 0, dtype, rank, shape);
    return st;
}

void kvg_file_unmap(kvg_file_map *m)
{
    if (m == NULL || m->base == NULL)
        return;
    if (!m->borrowed) {
        kvg_map_forget(m->base);
        (void)munmap(m->base, m->len);
    }
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
