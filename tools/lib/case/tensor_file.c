/*
 * tools/lib/case/tensor_file.c - see tensor_file.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "tensor_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "npy_file.h"
#include "npy_map.h"

int kvg_tensor_file_is_raw(const char *file)
{
    size_t n = strlen(file);
    return n >= 4 && strcmp(file + n - 4, ".bin") == 0;
}

static void shape_text(int rank, const int64_t *shape, char *buf, size_t cap)
{
    size_t used = 0;
    int i;
    used += (size_t)snprintf(buf, cap, "(");
    for (i = 0; i < rank && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld",
                                 i ? ", " : "", (long long)shape[i]);
    if (used < cap)
        (void)snprintf(buf + used, cap - used, "%s)", rank == 1 ? "," : "");
}

static kvg_status check_shape(const char *path, const kvg_tensor *t,
                              int rank, const int64_t *shape, kvg_diag *diag)
{
    char want[200], got[200];
    int i, same = t->rank == rank;
    for (i = 0; same && i < rank; i++)
        same = t->shape[i] == shape[i];
    if (same)
        return KVG_OK;
    shape_text(rank, shape, want, sizeof want);
    shape_text(t->rank, t->shape, got, sizeof got);
    return kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, path, -1, -1,
                        "%s: shape is %s but the case says %s", path, got,
                        want);
}

/* 1 when `path` is a regular file of at least map_min bytes: worth
 * mapping. (Anything else goes to the reader, which says what is wrong.) */
static int worth_mapping(const char *path, size_t map_min)
{
    struct stat sb;
    return map_min != (size_t)-1 && stat(path, &sb) == 0 &&
           S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= (uint64_t)map_min;
}

/* Map a .npy or .bin at `path`, or read it when it is small or cannot be
 * mapped (empty or unaligned data). */
static kvg_status open_path(const char *path, int raw, kvg_dtype dtype,
                            int rank, const int64_t *shape,
                            kvg_map_mode mode, size_t map_min,
                            kvg_tensor *out, kvg_file_map *map,
                            kvg_diag *diag)
{
    kvg_status st = KVG_ERR_PARAM_INVALID;

    memset(map, 0, sizeof *map);
    if (worth_mapping(path, map_min))
        st = raw ? kvg_raw_map(path, dtype, rank, shape, mode, out, map, diag)
                 : kvg_npy_map(path, dtype, mode, out, map, diag);
    if (st != KVG_ERR_PARAM_INVALID)
        return st;
    return raw ? kvg_raw_load(path, dtype, rank, shape, out, diag)
               : kvg_npy_load(path, dtype, out, diag);
}

void kvg_tensor_file_close(kvg_tensor *t, kvg_file_map *map)
{
    if (map != NULL && map->base != NULL) {
        kvg_file_unmap(map);
        memset(t, 0, sizeof *t);
    } else {
        kvg_npy_free(t);
    }
}

kvg_status kvg_tensor_file_open(const char *dir, const char *file,
                                kvg_dtype dtype, int rank,
                                const int64_t *shape, kvg_map_mode mode,
                                size_t map_min, kvg_tensor *out,
                                kvg_file_map *map, kvg_diag *diag)
{
    char *path = kvg_path_join(dir, file, NULL, diag);
    kvg_status st;

    memset(out, 0, sizeof *out);
    memset(map, 0, sizeof *map);
    if (path == NULL)
        return KVG_ERR_NOMEM;
    if (kvg_tensor_file_is_raw(file)) {
        st = rank < 0 ? kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, file, -1, -1,
                                     "%s: a headerless .bin file needs "
                                     "\"shape\" (and \"dtype\") in its entry",
                                     path)
                      : open_path(path, 1, dtype, rank, shape, mode, map_min,
                                  out, map, diag);
    } else {
        st = open_path(path, 0, dtype, rank, shape, mode, map_min, out, map,
                       diag);
        if (st == KVG_OK && rank >= 0 &&
            (st = check_shape(path, out, rank, shape, diag)) != KVG_OK)
            kvg_tensor_file_close(out, map);
    }
    free(path);
    return st;
}

kvg_status kvg_tensor_file_load(const char *dir, const char *file,
                                kvg_dtype dtype, int rank,
                                const int64_t *shape, kvg_tensor *out,
                                kvg_diag *diag)
{
    kvg_file_map never;
    return kvg_tensor_file_open(dir, file, dtype, rank, shape, KVG_MAP_READ,
                                (size_t)-1, out, &never, diag);
}

/* 1 if `path` exists (as anything, even a dangling symlink). */
static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

kvg_status kvg_tensor_file_load_dump(const char *dir, const char *name,
                                     const kvg_tensor *golden,
                                     kvg_tensor *out, int *found,
                                     kvg_diag *diag)
{
    kvg_file_map never;
    return kvg_tensor_file_open_dump(dir, name, golden, (size_t)-1, out,
                                     &never, found, diag);
}

/* A raw dump has no entry in case.json: its dtype and shape are the golden
 * output's, so a size that does not match is said in those terms (file,
 * bytes and elements expected from the golden, bytes got). A file that is
 * not a regular file is left to the reader, which names what it is. */
static kvg_status check_raw_dump_size(const char *path, const char *name,
                                      const kvg_tensor *golden,
                                      kvg_diag *diag)
{
    struct stat sb;
    size_t es = kvg_dtype_size(golden->dtype);
    char dims[160];
    size_t used = 0;
    int i;

    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size == (uint64_t)golden->nbytes)
        return KVG_OK;
    dims[0] = '\0';
    for (i = 0; i < golden->rank && used < sizeof dims - 24; i++)
        used += (size_t)snprintf(dims + used, sizeof dims - used, "%s%lld",
                                 i ? ", " : "", (long long)golden->shape[i]);
    if ((uint64_t)sb.st_size % es == 0)
        return kvg_diag_set(
            diag, KVG_ERR_FILE_FORMAT, name, -1, -1,
            "%s: raw NPU dump of %s is %llu bytes (%llu %s elements); the "
            "golden output %s is %s of shape [%s]: %llu elements, %llu "
            "bytes expected",
            path, name, (unsigned long long)sb.st_size,
            (unsigned long long)sb.st_size / es, kvg_dtype_name(golden->dtype),
            name, kvg_dtype_name(golden->dtype), dims,
            (unsigned long long)(golden->nbytes / es),
            (unsigned long long)golden->nbytes);
    return kvg_diag_set(
        diag, KVG_ERR_FILE_FORMAT, name, -1, -1,
        "%s: raw NPU dump of %s is %llu bytes, not a whole number of %s "
        "elements (%u bytes each); the golden output %s is %s of shape "
        "[%s]: %llu elements, %llu bytes expected",
        path, name, (unsigned long long)sb.st_size,
        kvg_dtype_name(golden->dtype), (unsigned)es, name,
        kvg_dtype_name(golden->dtype), dims,
        (unsigned long long)(golden->nbytes / es),
        (unsigned long long)golden->nbytes);
}

kvg_status kvg_tensor_file_open_dump(const char *dir, const char *name,
                                     const kvg_tensor *golden, size_t map_min,
                                     kvg_tensor *out, kvg_file_map *map,
                                     int *found, kvg_diag *diag)
{
    char *npy = kvg_path_join(dir, name, ".npy", diag);
    char *bin = npy ? kvg_path_join(dir, name, ".bin", diag) : NULL;
    int has_npy, has_bin;
    kvg_status st = KVG_OK;

    *found = 0;
    memset(out, 0, sizeof *out);
    memset(map, 0, sizeof *map);
    if (npy == NULL || bin == NULL) {
        free(npy);
        return KVG_ERR_NOMEM;
    }
    has_npy = exists(npy);
    has_bin = exists(bin);
    if (has_npy && has_bin)
        st = kvg_diag_set(diag, KVG_ERR_FILE_FORMAT, name, -1, -1,
                          "%s and %s both exist; keep one dump of %s", npy,
                          bin, name);
    else if (has_npy)
        st = open_path(npy, 0, golden->dtype, 0, NULL, KVG_MAP_READ, map_min,
                       out, map, diag);
    else if (has_bin && (st = check_raw_dump_size(bin, name, golden,
                                                  diag)) == KVG_OK)
        st = open_path(bin, 1, golden->dtype, golden->rank, golden->shape,
                       KVG_MAP_READ, map_min, out, map, diag);
    *found = st == KVG_OK && (has_npy || has_bin);
    free(npy);
    free(bin);
    return st;
}
