/*
 * tools/lib/scan/read_common.h - what the dump readers share: directory walks
 * in a fixed (natural) order, the dtype codes of the CANN stack, header
 * reads of bounded size.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_READ_COMMON_H
#define KVGOLD_TOOLS_SCAN_READ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/* strcmp with digit runs compared as numbers ("2_x" before "10_x"). */
int kvg_scan_natcmp(const char *a, const char *b);

/* The entries of `dir` (without . and ..), sorted by kvg_scan_natcmp:
 * a malloc'd array of malloc'd names, freed by kvg_scan_names_free.
 * KVG_ERR_IO naming the directory and the OS reason on failure. */
kvg_status kvg_scan_names(const char *dir, char ***names, size_t *n,
                          kvg_diag *diag);
void kvg_scan_names_free(char **names, size_t n);

/* The number of '.' in s (a CANN dump file's name has at least 4). */
int kvg_scan_dots(const char *s);

/* "<op type>.<op name>.<task>.<stream>.<timestamp>", a CANN dump file's
 * name: 1 and its op type in `type`, else 0. */
int kvg_scan_cann_name(const char *base, char *type, size_t cap);

/* 1 if path is a directory (not following a final symlink when
 * nofollow), 2 a regular file, 0 otherwise. */
int kvg_scan_kind(const char *path, int nofollow);

/*
 * The one rule for symbolic links in a dump (docs/scan.md): the PATH the
 * user names is followed; below it, no link is ever followed, by any
 * reader. An entry that is a link (a call's directory, a dump file, a
 * dump.json, a tensor file or a directory on the way to one) is not read,
 * and what depended on it ends NOT JUDGED with the reason.
 *
 * kvg_scan_no_link: KVG_OK if no component of `rel` (a path relative to
 * `dir`, '/'-separated) is a symbolic link; else KVG_ERR_IO, diag tensor
 * "scan", message "DIR/REL: before is a symbolic link; ..." (NOMEM when
 * the path cannot be built). A missing component is not its business (the
 * open that follows says so).
 */
kvg_status kvg_scan_no_link(const char *dir, const char *rel, kvg_diag *diag);
/* The reason an entry that is not what the format needs is not read:
 * "PATH: is a symbolic link; kvgold does not follow links inside a dump
 * (...)", "PATH: is a FIFO (named pipe), where a dump file belongs", or
 * the OS reason when it cannot be examined. */
void kvg_scan_odd_entry(const char *path, const char *needs, char *why,
                        size_t cap);

/* Call visit(dir, rel, user) on root and every directory under it, depth
 * first in natural order, at most 32 levels. visit returns 1 (a call: do
 * not descend), 0 (descend) or -1 (stop; diag filled). A symbolic link
 * found below root that leads to a directory, or leads nowhere (it might
 * have been a call), is never followed: kvg_scan_walk_links hands it to
 * `link` (its full path and its path relative to root; 0 to go on, -1 to
 * stop), which lists it NOT JUDGED; kvg_scan_walk passes it over (format
 * detection only looks). */
typedef int (*kvg_scan_visit)(const char *dir, const char *rel, void *user,
                              kvg_diag *diag);
kvg_status kvg_scan_walk(const char *root, kvg_scan_visit visit,
                         void *user, kvg_diag *diag);
kvg_status kvg_scan_walk_links(const char *root, kvg_scan_visit visit,
                               kvg_scan_visit link, void *user,
                               kvg_diag *diag);

/* List an entry that might be a call but cannot be read: a call of
 * format f named `api` when that names a kvgold operator, else
 * KVG_SCAN_API_UNKNOWN, id `rel`, in `dir`, NOT JUDGED for `why`. KVG_OK,
 * or KVG_ERR_NOMEM. */
kvg_status kvg_scan_list_unreadable(kvg_scan_list *l, kvg_scan_format f,
                                    const char *api, const char *rel,
                                    const char *dir, const char *why,
                                    kvg_diag *diag);

/* The kvgold dtype of an aclDataType / ge::DataType code (ATB's "dtype="),
 * KVG_DTYPE_INVALID for one kvgold has no use for. */
kvg_dtype kvg_scan_acl_dtype(long code);

/* Read at most `cap` bytes from the start of regular file `path` into
 * buf: *len the bytes read, *size the file's. KVG_ERR_IO naming it. */
kvg_status kvg_scan_head(const char *path, unsigned char *buf, size_t cap,
                         size_t *len, uint64_t *size, kvg_diag *diag);

/* An fp4 shape a dump counts in codes (a CANN aclnn dump's storage
 * shape, ops-test-kit's files and CSV) as kvgold's fp4 elements, a byte
 * of two codes: the last dim halved, 1. 0, shape unchanged, for rank 0
 * or an odd last dim (a pair would straddle two rows). */
int kvg_scan_fp4_pairs(int rank, int64_t *shape);

/* n fp4 codes held one a byte (ops-test-kit's .npy / .pt of a 4-bit
 * array) packed into n / 2 bytes of out, code 2k in the low nibble of
 * byte k - pack_4bits' order, kvgold's fp4 pairs. Every code is checked
 * before a byte is written: one above 0x0F (no 4-bit code), or an odd
 * n, is KVG_ERR_FILE_FORMAT naming `file` and the code's index. */
kvg_status kvg_scan_fp4_pack_codes(const unsigned char *codes, size_t n,
                                   unsigned char *out, const char *file,
                                   kvg_diag *diag);

/* Bytes of `rank` dims of `dtype` into *nbytes; 0 on overflow or a
 * negative dim. */
int kvg_scan_nbytes(kvg_dtype dtype, int rank, const int64_t *shape,
                    uint64_t *nbytes);

#endif /* KVGOLD_TOOLS_SCAN_READ_COMMON_H */

/* The header of .npy file dir/file (read header-first, at most its
 * header's size) into a: dtype (`dtype`, or from the descr when
 * KVG_DTYPE_INVALID: <f2 fp16, <f4 fp32, |i1 int8, <i4 int32, <i8 int64),
 * rank, shape, offset, nbytes; the file's size checked. */
kvg_status kvg_scan_npy_arg(const char *dir, const char *file,
                            kvg_dtype dtype, kvg_scan_arg *a,
                            kvg_diag *diag);
