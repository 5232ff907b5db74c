/*
 * kvgold/npy.h - reading and writing NumPy .npy files (format 1.0 and 2.0).
 *
 * Only what the case format needs (spec section 5): little-endian or
 * single-byte dtypes, C order, shapes up to KVG_MAX_RANK. The logical dtype
 * comes from the caller (from case.json), because bf16 and the 8-bit float
 * formats have no NumPy dtype and are stored as raw codes:
 *
 *   fp16 '<f2'  bf16 '<u2'  fp32 '<f4'  int8 '|i1'  int32 '<i4'  int64 '<i8'
 *   fp8_e4m3fn, fp8_e5m2, hif8 '|u1'
 *
 * The parser never reads outside the buffer it is given and refuses, with a
 * KVG_ERR_FILE_FORMAT and a message: a bad magic, a truncated preamble, an
 * unsupported version (3.0 included), a header longer than the file or than
 * KVG_NPY_MAX_HEADER, a header that does not end in a newline or is not the
 * dict NumPy writes (missing, repeated or unknown keys, bad literals,
 * leading zeros), Fortran order, a descr outside the table (big-endian ones
 * are named as such), a shape whose element count or byte size overflows,
 * and data shorter ("short data") or longer ("trailing data") than the
 * shape says. For errors inside the header text, diag->position is the byte
 * offset within that text (the message says it too); otherwise -1.
 *
 * The writer reproduces NumPy 1.24's bytes exactly (sorted keys, the
 * growth-axis spaces, padding to 64 bytes), so a file written by kvgold and
 * one written by np.save of the same array compare equal.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_NPY_H
#define KVGOLD_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVG_NPY_MAX_HEADER 65536u

/* What a parsed header says. `descr` is NUL-terminated ("<f4"). */
typedef struct kvg_npy_info {
    char descr[8];
    int major, minor;
    int rank;
    int64_t shape[KVG_MAX_RANK];
    size_t data_offset; /* bytes from the start of the file to the data */
    size_t data_bytes;  /* numel * itemsize */
} kvg_npy_info;

/* The .npy descr that stores `dtype` ("<u2" for bf16); NULL if none. */
KVG_API const char *kvg_npy_descr_of(kvg_dtype dtype);

/*
 * Parse a whole .npy image held in memory. On success *info describes it and
 * the data are the `info->data_bytes` bytes at buf + info->data_offset.
 * No allocation.
 */
KVG_API kvg_status kvg_npy_parse(const void *buf, size_t size,
                                 kvg_npy_info *info, kvg_diag *diag);

/*
 * Load a file as a tensor of logical dtype `dtype`, whose storage descr must
 * match (see the table above). Messages start with the path. On success
 * `out` owns a malloc'ed buffer (non-NULL even for 0 elements):
 * out->data, out->nbytes, out->rank and out->shape are set; release it with
 * kvg_npy_free. On failure `out` is left with data NULL.
 */
KVG_API kvg_status kvg_npy_load(const char *path, kvg_dtype dtype,
                                kvg_tensor *out, kvg_diag *diag);

/* Free what kvg_npy_load allocated and clear the view (NULL-safe). */
KVG_API void kvg_npy_free(kvg_tensor *t);

/*
 * Serialise a tensor into `buf` (capacity `size`) as a version 1.0 file.
 * Empty tensors (a dimension of 0) are accepted; `t->data` may be NULL only
 * when t->nbytes is 0. *written receives the byte count; when buf is NULL or
 * too small nothing is written, *written still receives the size needed and
 * KVG_ERR_PARAM_INVALID is returned (for buf NULL: KVG_OK, so it doubles as
 * a size query).
 */
KVG_API kvg_status kvg_npy_encode(const kvg_tensor *t, void *buf, size_t size,
                                  size_t *written, kvg_diag *diag);

/* Write a tensor to a file (created or truncated). If writing fails the
 * partial file is removed. */
KVG_API kvg_status kvg_npy_save(const char *path, const kvg_tensor *t,
                                kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_NPY_H */
