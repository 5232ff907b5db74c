/*
 * tools/lib/fsio/npy_file.h - .npy and raw .bin files on disk (library
 * kvgold_case; the core library kvgold only parses and encodes images in
 * memory, kvgold/npy.h).
 *
 * Reading is bounded by what the header says, never by what the file
 * holds: only regular files are read (a FIFO, a device such as /dev/zero,
 * a directory are refused with a message; the open uses O_NONBLOCK so a
 * FIFO cannot hang it), the header is read and checked first, the file's
 * size (fstat) must be exactly header + data, the data bytes are reserved
 * against the memory limit (membudget.h), and then read into one buffer of
 * exactly that size. Messages start with the path and carry the OS reason
 * for I/O errors.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_NPY_FILE_H
#define KVGOLD_TOOLS_NPY_FILE_H

#include "kvgold/npy.h"

/*
 * Load a .npy file as a tensor of logical dtype `dtype`; its descr must be
 * one kvg_npy_descr_accepts takes for that dtype. On success `out` owns a
 * malloc'ed buffer (non-NULL even for 0 elements) reserved in the memory
 * ledger: out->data, nbytes, dtype, rank and shape are set; release it
 * with kvg_npy_free. On failure `out` has data NULL.
 */
kvg_status kvg_npy_load(const char *path, kvg_dtype dtype, kvg_tensor *out,
                        kvg_diag *diag);

/*
 * Load a headerless dump (a .bin file of raw little-endian elements, as
 * engineers' tools write them): `dtype` and the `rank`-dimensional `shape`
 * come from the caller (case.json), and the file's size must be exactly
 * their product. Same ownership as kvg_npy_load.
 */
kvg_status kvg_raw_load(const char *path, kvg_dtype dtype, int rank,
                        const int64_t *shape, kvg_tensor *out,
                        kvg_diag *diag);

/* For other readers of the same files (npy_map.c): open `path` as
 * kvg_npy_load does (a regular file, header checked, the size exactly
 * header + data, the descr one `dtype` accepts) and leave *fd open on
 * success; kvg_raw_open_checked insists on `need` bytes. */
kvg_status kvg_npy_open_checked(const char *path, kvg_dtype dtype, int *fd,
                                kvg_npy_info *info, kvg_diag *diag);
kvg_status kvg_raw_open_checked(const char *path, uint64_t need, int *fd,
                                kvg_diag *diag);

/* Free what the loaders allocated, release its reservation and clear the
 * view (NULL-safe). */
void kvg_npy_free(kvg_tensor *t);

/* Write header then data straight from the tensor to an open descriptor
 * (no copy of the whole file in memory). `path` is for messages. */
kvg_status kvg_npy_write_fd(int fd, const char *path, const kvg_tensor *t,
                            kvg_diag *diag);

/*
 * Write a tensor to `path`, created or truncated in place (never through a
 * symbolic link); a partial file is removed on failure. For tests and
 * scratch files: the kvgold command writes through kvg_outset (outset.h),
 * which never exposes a partial file.
 */
kvg_status kvg_npy_save(const char *path, const kvg_tensor *t,
                        kvg_diag *diag);

#endif /* KVGOLD_TOOLS_NPY_FILE_H */
