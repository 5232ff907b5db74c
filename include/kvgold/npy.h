/*
 * kvgold/npy.h - parsing and encoding NumPy .npy images in memory (format 1.0
 * and 2.0). The core library does no file I/O: the file functions
 * kvg_npy_load / kvg_npy_save live in the tools layer (tools/lib/fsio/npy_file.h,
 * library kvgold_case), see docs/architecture.md.
 *
 * Only what the case format needs (spec section 5): little-endian or
 * single-byte dtypes, C order, shapes up to KVG_MAX_RANK. The logical dtype
 * comes from the caller (from case.json), because bf16 and the 8-bit float
 * formats have no NumPy dtype and are stored as raw codes:
 *
 *   fp16 '<f2'  bf16 '<u2'  fp32 '<f4'  int8 '|i1'  int32 '<i4'  int64 '<i8'
 *   fp8_e4m3fn, fp8_e5m2, hif8 '|u1'
 *
 * On reading, the descrs engineers' dumps carry for the formats NumPy lacks
 * are accepted too: a void of the right size ('|V2', '<V2' for bf16; '|V1',
 * '<V1' for the 8-bit floats) and ml_dtypes' names ('bfloat16',
 * 'float8_e4m3fn', 'float8_e5m2', and '<f1' that older ml_dtypes wrote for
 * float8_e5m2). The writer always writes the first table.
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
    char descr[16];
    int major, minor;
    int rank;
    int64_t shape[KVG_MAX_RANK];
    size_t data_offset; /* bytes from the start of the file to the data */
    size_t data_bytes;  /* numel * itemsize */
} kvg_npy_info;

/* The .npy descr that stores `dtype` ("<u2" for bf16); NULL if none. */
KVG_API const char *kvg_npy_descr_of(kvg_dtype dtype);

/* 1 if a file whose descr is `descr` may hold logical dtype `dtype`
 * (the storage table or one of the aliases above). */
KVG_API int kvg_npy_descr_accepts(kvg_dtype dtype, const char *descr);

/*
 * Parse a whole .npy image held in memory. On success *info describes it and
 * the data are the `info->data_bytes` bytes at buf + info->data_offset.
 * No allocation.
 */
KVG_API kvg_status kvg_npy_parse(const void *buf, size_t size,
                                 kvg_npy_info *info, kvg_diag *diag);

/*
 * For readers that must not read more than the header before checking it:
 * given the first bytes of a file (12 are always enough; fewer when the
 * file is shorter), *bytes receives the size of preamble + header text,
 * i.e. the data offset. Fails on a bad magic, version or header length.
 */
KVG_API kvg_status kvg_npy_header_size(const void *buf, size_t size,
                                       size_t *bytes, kvg_diag *diag);

/*
 * Parse preamble + header only (`size` >= the header size; the data need
 * not follow). Sets every field of *info; does not check the data size:
 * call kvg_npy_check_data_size with the file's size for that.
 */
KVG_API kvg_status kvg_npy_parse_header(const void *buf, size_t size,
                                        kvg_npy_info *info, kvg_diag *diag);

/* A file of `file_size` bytes must be exactly header + data: "short data"
 * or "trailing data" otherwise (KVG_ERR_FILE_FORMAT). */
KVG_API kvg_status kvg_npy_check_data_size(const kvg_npy_info *info,
                                           uint64_t file_size,
                                           kvg_diag *diag);

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

/*
 * Only the preamble and header of that file (at most 10 + 512 + 64 bytes),
 * so a writer can send the data straight from the tensor. Same contract as
 * kvg_npy_encode; the data follow at offset *written.
 */
KVG_API kvg_status kvg_npy_encode_header(const kvg_tensor *t, void *buf,
                                         size_t size, size_t *written,
                                         kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_NPY_H */
