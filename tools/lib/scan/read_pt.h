/*
 * tools/lib/scan/read_pt.h - PyTorch .pt files (torch.save) read without
 * torch: the zip archive torch.save writes (by default since torch 1.6)
 * and, in it, exactly the pickle torch.save writes for one tensor.
 *
 * The archive: its end record (and the zip64 one), the central
 * directory, `<prefix>/data.pkl` (the pickle), `<prefix>/data/<key>` (the
 * storage's raw bytes) and an optional `<prefix>/byteorder` ("little";
 * "big" is refused). Only stored (uncompressed) entries are read - what
 * torch.save writes; a compressed one is refused, saying so. Nothing is
 * decompressed and no tensor byte is read: the result says where the
 * tensor's first element lies in the file, so the scan engine maps or
 * reads it there, as it does an .npy's data.
 *
 * The pickle is not run: a small interpreter over the opcodes torch.save
 * emits for a tensor (PROTO, FRAME, GLOBAL / STACK_GLOBAL of
 * torch._utils._rebuild_tensor_v2 / _v3, torch.<Type>Storage,
 * torch.UntypedStorage, a torch dtype and collections.OrderedDict;
 * BINPERSID of ('storage', type, key, location, numel); REDUCE; MARK,
 * EMPTY_TUPLE, TUPLE, TUPLE1-3; BININT, BININT1, BININT2, LONG1; NEWTRUE,
 * NEWFALSE; BINUNICODE, SHORT_BINUNICODE; EMPTY_DICT, SETITEM(S); the memo
 * opcodes; STOP) builds values, and the one it ends with must be a tensor
 * rebuilt exactly as torch's _rebuild_tensor_v2(storage, storage_offset,
 * size, stride, requires_grad, OrderedDict()) builds it (or _v3, with a
 * dtype, torch 2's form for float8). Any other opcode or global is
 * refused naming it and its byte, never executed or guessed; so is a
 * non-contiguous view, a dict or list of tensors, and a storage too
 * small for the view.
 *
 * The element type: a tensor's own (HalfStorage fp16, BFloat16Storage
 * bf16, FloatStorage fp32, CharStorage int8, ShortStorage int16,
 * IntStorage int32, LongStorage int64, ByteStorage / UntypedStorage
 * uint8; _v3's dtype: float8_e4m3fn, float8_e5m2, uint16, uint32...).
 * The caller gives the dtype its dump declares in a->dtype
 * (KVG_DTYPE_INVALID: none, take the tensor's): it must be the tensor's,
 * except that a declared one-byte type other than int8 (fp8, hif8,
 * uint8, fp4) is read from any one-byte tensor but int8 as its raw codes
 * - how ops-test-kit and msprobe store the dtypes torch lacks - so the
 * declared dtype wins there.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_READ_PT_H
#define KVGOLD_TOOLS_SCAN_READ_PT_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/* flags: also accept ops-test-kit's raw-byte payload, the dict
 * {"ttk_raw_bytes": <uint8 tensor>, "ttk_shape": <tuple of ints>} its
 * manual_data.py saves for a dtype the writing torch lacks (hifloat8;
 * fp8 before torch 2.1): the bytes as the declared dtype (a->dtype, which
 * must be given) in that shape. */
#define KVG_SCAN_PT_TTK_RAW 1u
/* flags: only that raw-byte payload (with KVG_SCAN_PT_TTK_RAW): a tensor
 * is refused - ops-test-kit's 4-bit array, whose payload holds its codes
 * one a byte while a torch 4-bit tensor holds pack_4bits' bytes
 * flattened to 1-D, the shape lost (dtypes.py numpy_to_torch_tensor). */
#define KVG_SCAN_PT_TTK_RAW_ONLY 2u

/* The largest pickle and central directory read (a torch.save of one
 * tensor writes a few hundred bytes of each). */
#define KVG_SCAN_PT_META_MAX (1u << 20)

/*
 * The tensor in .pt file dir/file (`file` relative to `dir`; no component
 * may be a symbolic link, kvg_scan_no_link): fills a's kind (TENSOR),
 * dtype, rank, shape, offset (of its first byte in the file), nbytes and
 * file. Reads only the archive's end, its central directory, the pickle
 * and a few local headers. KVG_OK; KVG_ERR_IO (a link, not a regular
 * file, unreadable) or KVG_ERR_FILE_FORMAT (anything that is not what
 * torch.save writes for one tensor) naming dir/file and what is wrong; a
 * is unchanged then.
 */
kvg_status kvg_scan_pt_tensor(const char *dir, const char *file,
                              unsigned flags, kvg_scan_arg *a,
                              kvg_diag *diag);

/*
 * The same on a .pt file held in memory: buf holds its first `len`
 * bytes, `size` is the whole file's (len <= size; a read past len is
 * refused as lying beyond the bytes given). `file` names it in messages.
 * For the fuzz target and the tests.
 */
kvg_status kvg_scan_pt_parse(const unsigned char *buf, size_t len,
                             uint64_t size, const char *file,
                             unsigned flags, kvg_scan_arg *a,
                             kvg_diag *diag);

/* The zip CRC-32 (IEEE, reflected, 0xEDB88320) of n bytes at p: what a
 * .pt's data.pkl entry records (and the fuzz target writes). */
uint32_t kvg_scan_pt_crc32(const unsigned char *p, size_t n);

#endif /* KVGOLD_TOOLS_SCAN_READ_PT_H */
