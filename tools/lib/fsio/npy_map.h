/*
 * tools/lib/fsio/npy_map.h - .npy and raw .bin tensor data mapped, not read
 * (multi-GiB caches and dumps). The file is checked exactly as
 * kvg_npy_load / kvg_raw_load check it (npy_file.h), then its data is
 * mapped:
 *
 *   KVG_MAP_READ     PROT_READ, MAP_SHARED: dumps, initial caches; the
 *                    pages are the page cache's, nothing is copied, and
 *                    kvg_file_map_drop can give resident pages back
 *   KVG_MAP_PRIVATE  PROT_READ | PROT_WRITE, MAP_PRIVATE: a cache the
 *                    golden updates in place; only the pages it writes are
 *                    copied (copy-on-write), the file never changes
 *
 * Mapped bytes are not reserved in the memory ledger (membudget.h): they
 * are file pages the kernel can drop and re-read, not allocations. A
 * private mapping's written (copied) pages are allocations: the case
 * harness reserves them, counted from the runs the operator writes
 * (kvg_case_run). Data that is empty or not 16-byte aligned in the file is
 * refused with KVG_ERR_PARAM_INVALID, so the caller reads it instead.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_NPY_MAP_H
#define KVGOLD_TOOLS_NPY_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/npy.h"

typedef enum kvg_map_mode { KVG_MAP_READ = 0, KVG_MAP_PRIVATE = 1 } kvg_map_mode;

/* A mapping; base NULL = none. `offset` is the file offset base maps
 * (a multiple of the page size): a view can be mapped again, privately,
 * from the file offset of its data (kvg_file_map_private). `borrowed`: a
 * copy of a mapping that another holder owns and unmaps (several tensors
 * of one file viewing its one mapping); kvg_file_unmap only forgets it. */
typedef struct kvg_file_map {
    void *base;
    size_t len;
    kvg_map_mode mode;
    uint64_t offset;
    int borrowed;
} kvg_file_map;

/* Map a .npy file's data as a tensor of logical dtype `dtype`. On success
 * out->data points into *m (release with kvg_file_unmap); on failure *m
 * and *out are zero. */
kvg_status kvg_npy_map(const char *path, kvg_dtype dtype, kvg_map_mode mode,
                       kvg_tensor *out, kvg_file_map *m, kvg_diag *diag);

/* The same for a headerless .bin of `rank`-dimensional `shape`. */
kvg_status kvg_raw_map(const char *path, kvg_dtype dtype, int rank,
                       const int64_t *shape, kvg_map_mode mode,
                       kvg_tensor *out, kvg_file_map *m, kvg_diag *diag);

/*
 * Map `bytes` bytes at file offset `offset` of regular file `path` (a
 * tensor inside a dump file that holds several, after a header: ATB
 * .bin, CANN dump files, msprobe's dump.json), `what` naming it in
 * messages. The file is opened with kvg_open_regular and its size checked
 * against offset + bytes first (KVG_ERR_FILE_FORMAT "truncated" naming
 * the path). The mapping starts at the page holding `offset`; *data points
 * at the first byte. Unlike kvg_npy_map the data may have any alignment
 * (kvgold reads tensor bytes alignment-free: kvgold/format.h); only
 * bytes == 0 is refused with KVG_ERR_PARAM_INVALID (nothing to map).
 */
kvg_status kvg_region_map(const char *path, const char *what,
                          uint64_t offset, uint64_t bytes, kvg_map_mode mode,
                          kvg_file_map *m, void **data, kvg_diag *diag);

/* Map again, privately (copy-on-write), the bytes view `t` shows of its
 * mapping `m` of file `path`: a cache the golden updates in place, whose
 * input stays as it is. *out is `t` with data pointing into *copy. */
kvg_status kvg_file_map_private(const char *path, const kvg_file_map *m,
                                const kvg_tensor *t, kvg_tensor *out,
                                kvg_file_map *copy, kvg_diag *diag);

/* Unmap (NULL-safe, base NULL allowed; a borrowed copy is not unmapped)
 * and zero *m. */
void kvg_file_unmap(kvg_file_map *m);

/* Give back the resident pages wholly inside [p, p + bytes) of a READ
 * mapping (madvise MADV_DONTNEED: the next access reads the file again),
 * so a pass over a multi-GiB file does not keep it in the process's RSS.
 * Does nothing on a PRIVATE mapping, whose written pages it would
 * discard. */
void kvg_file_map_drop(const kvg_file_map *m, const void *p, size_t bytes);

/* The same on any mapping, PRIVATE included, for bytes the caller has
 * just checked to equal the file's (a copy-on-write page there is the
 * file's content again, so re-reading the file loses nothing): the gaps
 * the golden did not write, once compared with the initial cache. */
void kvg_file_map_drop_unchanged(const kvg_file_map *m, const void *p,
                                 size_t bytes);

/* A mapped file another process truncates: map_guard.h. */

/* For tests only (NULL otherwise): called right after each file is mapped,
 * with its path and still open descriptor, to truncate it on purpose. */
extern void (*kvg_map_test_hook)(const char *path, int fd);

#endif /* KVGOLD_TOOLS_NPY_MAP_H */
