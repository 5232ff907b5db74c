/*
 * tools/lib/case/tensor_file.h - one tensor's file, as case.json names it or as
 * an NPU dump directory holds it: a .npy, or a headerless .bin whose dtype
 * and shape come from elsewhere (the case.json entry, or the golden output
 * it is compared with). Reading goes through tools/lib/fsio/npy_file.h, so the
 * same limits apply: regular files only, sizes checked against the header
 * (or the shape) before any data is read, memory reserved first.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_TENSOR_FILE_H
#define KVGOLD_TOOLS_TENSOR_FILE_H

#include "kvgold/status.h"
#include "kvgold/tensor.h"
#include "npy_map.h"

/* 1 if `file` names a headerless raw dump (ends in ".bin"). */
int kvg_tensor_file_is_raw(const char *file);

/*
 * Load dir/file as logical dtype `dtype`. `rank` < 0 means no shape was
 * given: then a .bin file is refused (its shape is unknown). With a shape,
 * a .npy file's own shape must equal it. Messages name the path.
 */
kvg_status kvg_tensor_file_load(const char *dir, const char *file,
                                kvg_dtype dtype, int rank,
                                const int64_t *shape, kvg_tensor *out,
                                kvg_diag *diag);

/*
 * An NPU dump of output `name` in `dir`: dir/<name>.npy, or dir/<name>.bin
 * read with the golden's dtype and shape. *found is 0 (and KVG_OK
 * returned) when neither exists; both at once is refused as ambiguous.
 */
kvg_status kvg_tensor_file_load_dump(const char *dir, const char *name,
                                     const kvg_tensor *golden,
                                     kvg_tensor *out, int *found,
                                     kvg_diag *diag);

/*
 * Big files are mapped, not read. The same as the two loaders
 * above, except that a file of at least `map_min` bytes is mapped
 * (npy_map.h, `mode`) instead of read into memory: *map receives the
 * mapping (base NULL when the file was read, or could not be mapped and
 * was read instead). Release with kvg_tensor_file_close.
 */
#define KVG_TENSOR_MAP_MIN ((size_t)1 << 20) /* the command's threshold */
kvg_status kvg_tensor_file_open(const char *dir, const char *file,
                                kvg_dtype dtype, int rank,
                                const int64_t *shape, kvg_map_mode mode,
                                size_t map_min, kvg_tensor *out,
                                kvg_file_map *map, kvg_diag *diag);
kvg_status kvg_tensor_file_open_dump(const char *dir, const char *name,
                                     const kvg_tensor *golden, size_t map_min,
                                     kvg_tensor *out, kvg_file_map *map,
                                     int *found, kvg_diag *diag);
/* Unmap or free (and release the reservation of) what an open gave. */
void kvg_tensor_file_close(kvg_tensor *t, kvg_file_map *map);

#endif /* KVGOLD_TOOLS_TENSOR_FILE_H */
