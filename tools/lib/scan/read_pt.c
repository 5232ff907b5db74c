/*
 * tools/lib/scan/read_pt.c - see read_pt.h. POSIX (pread).
 *
 * What torch.save writes (torch 1.13, checked byte for byte; torch 2.x
 * from its serialization.py): a zip archive whose entries all sit under
 * one directory, the prefix (the file's base name, or "archive"):
 *
 *   <prefix>/data.pkl      the pickle, protocol 2 by default
 *   <prefix>/data/<key>    each storage's raw bytes, 64-byte aligned (a
 *                          local-header extra field "FB" pads them)
 *   <prefix>/version       "3\n"
 *   <prefix>/byteorder     "little" (torch >= 2.1; absent before: little)
 *   <prefix>/.data/...     torch 2.x bookkeeping
 *
 * all stored (method 0), written with data descriptors (general-purpose
 * bit 3: the local header's sizes are 0, the central directory's are the
 * real ones) and always with a zip64 end record and locator before the
 * end-of-central-directory record. For a tensor t, data.pkl is
 *
 *   PROTO 2
 *   GLOBAL 'torch._utils _rebuild_tensor_v2'   BINPUT
 *   MARK
 *     MARK 'storage' GLOBAL 'torch HalfStorage' '0' 'cpu' numel TUPLE
 *     BINPERSID                                (the storage)
 *     storage_offset  (size...) TUPLE1-3 / MARK..TUPLE   (stride...)
 *     NEWFALSE        GLOBAL 'collections OrderedDict' EMPTY_TUPLE REDUCE
 *   TUPLE REDUCE STOP
 *
 * with a BINPUT after nearly every value; ints as BININT1, BININT2,
 * BININT or LONG1 by size. pickle_protocol=4 or 5 gives FRAME, MEMOIZE,
 * SHORT_BINUNICODE and STACK_GLOBAL instead. torch 2.x saves float8 and
 * the unsigned types through _rebuild_tensor_v3, with an UntypedStorage
 * (numel counted in bytes) and the dtype as a seventh argument.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "read_common.h"
#include "read_pt.h"

#if defined(__GNUC__)
#define PT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PT_PRINTF(f, a)
#endif

/* ---- the file's bytes ------------------------------------------------- */

/* Where the bytes come from: memory (the first `len` of them) or a file
 * read at offsets. */
typedef struct src {
    const unsigned char *buf;
    size_t len;
    int fd;
    uint64_t size;
    const char *path;
    kvg_diag *diag;
} src;

static kvg_status fail(src *s, const char *fmt, ...) PT_PRINTF(2, 3);
static kvg_status fail(src *s, const char *fmt, ...)
{
    char msg[KVG_DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kvg_diag_set(s->diag, KVG_ERR_FILE_FORMAT, "pt", -1, -1, "%s: %s",
                        s->path, msg);
}

/* n bytes at off into dst; `what` names them in a refusal. */
static kvg_status rd(src *s, uint64_t off, size_t n, void *dst,
                     const char *what)
{
    size_t got;
    if (off > s->size || (uint64_t)n > s->size - off)
        return fail(s, "truncated: %s (%lu bytes at byte %llu) lies past "
                       "the end of the file (%llu bytes)",
                    what, (unsigned long)n, (unsigned long long)off,
                    (unsigned long long)s->size);
    if (n == 0)
        return KVG_OK;
    if (s->buf != NULL) {
        if (off > (uint64_t)s->len || (uint64_t)n > (uint64_t)s->len - off)
            return fail(s, "%s lies beyond the %lu bytes given", what,
                        (unsigned long)s->len);
        memcpy(dst, s->buf + (size_t)off, n);
        return KVG_OK;
    }
    KVG_TRY(kvg_pread_full(s->fd, dst, n, off, &got, s->path, "pt", s->diag));
    if (got != n)
        return fail(s, "the file shrank while %s was read", what);
    return KVG_OK;
}

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

uint32_t kvg_scan_pt_crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

/* A name from the file, printable and bounded, for a message. */
static void shown(char *out, size_t cap, const unsigned char *p, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n && k + 4 < cap; i++)
        out[k++] = p[i] >= 0x20 && p[i] < 0x7F ? (char)p[i] : '?';
    if (i < n && k + 3 < cap) {
        out[k++] = '.';
        out[k++] = '.';
        out[k++] = '.';
    }
    out[k] = '\0';
}

/* ---- the zip archive -------------------------------------------------- */

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u

typedef struct zentry {
    uint64_t csize, usize, local;
    unsigned method, flags;
    uint32_t crc;
    const unsigned char *name;
    size_t name_len;
} zentry;

typedef struct zip {
    unsigned char *cd; /* the central directory */
    size_t cd_len;
    uint64_t cd_off;   /* every entry's data lies before it */
    uint64_t entries;
    const unsigned char *prefix; /* in cd: the first entry's directory */
    size_t prefix_len;
} zip;

/* What a file that has no zip end record is, from its first bytes. */
static kvg_status not_zip(src *s, const unsigned char *head, size_t n)
{
    if (n >= 6 && memcmp(head, "\x93NUMPY", 6) == 0)
        return fail(s, "an .npy file, not a torch.save file");
    if (n >= 1 && head[0] == 0x80)
        return fail(s, "a Python pickle, not torch.save's zip archive "
                       "(torch.save's legacy format, before torch 1.6 or "
                       "with _use_new_zipfile_serialization=False, or not "
                       "torch's at all): kvgold reads the zip format "
                       "torch.save writes; load and save it again with a "
                       "current torch");
    if (n >= 4 && le32(head) == SIG_LOCAL)
        return fail(s, "a zip archive without its end record (truncated "
                       "or damaged)");
    return fail(s, "not a torch.save file: no zip end record (it starts "
                   "with %02x %02x %02x %02x)",
                n > 0 ? head[0] : 0, n > 1 ? head[1] : 0,
                n > 2 ? head[2] : 0, n > 3 ? head[3] : 0);
}

/* The central directory entry at *pos of z->cd (checked), *pos moved
 * past it. */
/* The zip64 extra field (id 0x0001) of a central entry whose 32-bit
 * fields saturated: it holds, in this order, those of usize, csize, local
 * offset and disk that are saturated. 1 when it has them all. */
static int zip64_fields(const unsigned char *xp, size_t xlen, uint32_t u32,
                        uint32_t c32, uint32_t o32, zentry *e,
                        unsigned *disk)
{
    size_t x;

    for (x = 0; x + 4 <= xlen;) {
        unsigned id = le16(xp + x), sz = le16(xp + x + 2);
        size_t at = x + 4, end = x + 4 + sz;
        if (end > xlen)
            return 0;
        if (id != 1) {
            x = end;
            continue;
        }
        if (u32 == 0xFFFFFFFFu) {
            if (at + 8 > end)
                return 0;
            e->usize = le64(xp + at);
            at += 8;
        }
        if (c32 == 0xFFFFFFFFu) {
            if (at + 8 > end)
                return 0;
            e->csize = le64(xp + at);
            at += 8;
        }
        if (o32 == 0xFFFFFFFFu) {
            if (at + 8 > end)
                return 0;
            e->local = le64(xp + at);
            at += 8;
        }
        if (*disk == 0xFFFFu) {
            if (at + 4 > end)
                return 0;
            *disk = (unsigned)le32(xp + at);
        }
        return 1;
    }
    return 0;
}

static kvg_status entry_at(src *s, const zip *z, size_t *pos, zentry *e)
{
    const unsigned char *p = z->cd + *pos;
    size_t left = z->cd_len - *pos, nlen, xlen, clen;
    unsigned disk;
    uint32_t c32, u32, o32;
    char nm[96];

    if (left < 46 || le32(p) != SIG_CENTRAL)
        return fail(s, "the zip central directory is damaged at its byte "
                       "%lu (no entry header)",
                    (unsigned long)*pos);
    nlen = le16(p + 28);
    xlen = le16(p + 30);
    clen = le16(p + 32);
    if (46 + nlen + xlen + clen > left)
        return fail(s, "the zip central directory is damaged at its byte "
                       "%lu (an entry runs past its end)",
                    (unsigned long)*pos);
    memset(e, 0, sizeof *e);
    e->flags = le16(p + 8);
    e->method = le16(p + 10);
    e->crc = le32(p + 16);
    c32 = le32(p + 20);
    u32 = le32(p + 24);
    disk = le16(p + 34);
    o32 = le32(p + 42);
    e->csize = c32;
    e->usize = u32;
    e->local = o32;
    e->name = p + 46;
    e->name_len = nlen;
    shown(nm, sizeof nm, e->name, nlen);
    if ((u32 == 0xFFFFFFFFu || c32 == 0xFFFFFFFFu || o32 == 0xFFFFFFFFu ||
         disk == 0xFFFFu) &&
        !zip64_fields(p + 46 + nlen, xlen, u32, c32, o32, e, &disk))
        return fail(s, "zip entry %s: its zip64 sizes are missing", nm);
    if (disk != 0)
        return fail(s, "zip entry %s: on disk %u of a multi-part archive, "
                       "which torch.save never writes",
                    nm, disk);
    *pos += 46 + nlen + xlen + clen;
    return KVG_OK;
}

/* What the zip end records say (the zip64 one's values when there is
 * one): the disks, the entry counts, where the central directory lies and
 * where it must end. */
typedef struct zip_end {
    unsigned disk, cd_disk;
    uint64_t n_disk, n_total, cd_size, cd_off, cd_end;
} zip_end;

/* The zip64 end record, when its locator precedes the end record at
 * end_off: each 32-bit field of *r must be the zip64 one, or saturated,
 * and is replaced by it. */
static kvg_status read_zip64(src *s, uint64_t end_off, zip_end *r)
{
    unsigned char loc[20], r64[56];
    uint64_t off64;

    if (end_off < 20)
        return KVG_OK;
    KVG_TRY(rd(s, end_off - 20, 20, loc, "the zip64 end locator"));
    if (le32(loc) != SIG_LOC64)
        return KVG_OK;
    off64 = le64(loc + 8);
    if (le32(loc + 4) != 0 || le32(loc + 16) != 1)
        return fail(s, "a multi-part zip archive, which "
                       "torch.save never writes");
    if (off64 > end_off - 20 || end_off - 20 - off64 < 56)
        return fail(s, "the zip64 end record is not where its "
                       "locator says (byte %llu)",
                    (unsigned long long)off64);
    KVG_TRY(rd(s, off64, 56, r64, "the zip64 end record"));
    if (le32(r64) != SIG_END64 || le64(r64 + 4) < 44)
        return fail(s, "the zip64 end record at byte %llu is "
                       "damaged",
                    (unsigned long long)off64);
    if ((r->disk != 0xFFFFu && r->disk != le32(r64 + 16)) ||
        (r->cd_disk != 0xFFFFu && r->cd_disk != le32(r64 + 20)) ||
        (r->n_disk != 0xFFFFu && r->n_disk != le64(r64 + 24)) ||
        (r->n_total != 0xFFFFu && r->n_total != le64(r64 + 32)) ||
        (r->cd_size != 0xFFFFFFFFu && r->cd_size != le64(r64 + 40)) ||
        (r->cd_off != 0xFFFFFFFFu && r->cd_off != le64(r64 + 48)))
        return fail(s, "the zip end record and the zip64 one "
                       "disagree");
    r->disk = (unsigned)le32(r64 + 16);
    r->cd_disk = (unsigned)le32(r64 + 20);
    r->n_disk = le64(r64 + 24);
    r->n_total = le64(r64 + 32);
    r->cd_size = le64(r64 + 40);
    r->cd_off = le64(r64 + 48);
    r->cd_end = off64;
    return KVG_OK;
}

/* The end record, searched in the file's last 22 + 65535 bytes (its
 * signature, and a comment that ends the file), into *r, the zip64 one
 * applied; `head` (hl bytes) words the refusal of a file without one. */
static kvg_status find_end(src *s, const unsigned char *head, size_t hl,
                           zip_end *r)
{
    size_t tail_len = s->size < 22 + 65535 ? (size_t)s->size : 22 + 65535;
    unsigned char *tail, *e;
    uint64_t end_off;
    size_t i;
    int found = 0;
    kvg_status st;

    if ((tail = (unsigned char *)malloc(tail_len)) == NULL)
        return kvg_diag_set(s->diag, KVG_ERR_NOMEM, "pt", -1, -1,
                            "out of memory");
    if ((st = rd(s, s->size - tail_len, tail_len, tail,
                 "the zip end record")) != KVG_OK) {
        free(tail);
        return st;
    }
    for (i = tail_len >= 22 ? tail_len - 22 : 0; tail_len >= 22; i--) {
        if (le32(tail + i) == SIG_END &&
            i + 22 + le16(tail + i + 20) == tail_len) {
            found = 1;
            break;
        }
        if (i == 0)
            break;
    }
    if (!found) {
        free(tail);
        return not_zip(s, head, hl);
    }
    e = tail + i;
    end_off = s->size - tail_len + i;
    r->disk = le16(e + 4);
    r->cd_disk = le16(e + 6);
    r->n_disk = le16(e + 8);
    r->n_total = le16(e + 10);
    r->cd_size = le32(e + 12);
    r->cd_off = le32(e + 16);
    r->cd_end = end_off;
    free(tail);
    return read_zip64(s, end_off, r);
}

/* The central directory the end records place, read into z->cd and
 * checked whole (exactly n_total well-formed entries, ending where the
 * directory does), and the records' prefix (the first entry's
 * directory). */
static kvg_status read_cd(src *s, const zip_end *r, zip *z)
{
    size_t pos;
    uint64_t k;

    if (r->disk != 0 || r->cd_disk != 0 || r->n_disk != r->n_total)
        return fail(s, "a multi-part zip archive, which torch.save never "
                       "writes");
    if (r->cd_off > r->cd_end || r->cd_size != r->cd_end - r->cd_off)
        return fail(s, "the zip central directory (%llu bytes at byte %llu) "
                       "is not where the end record says",
                    (unsigned long long)r->cd_size,
                    (unsigned long long)r->cd_off);
    if (r->cd_size > KVG_SCAN_PT_META_MAX)
        return fail(s, "a zip central directory of %llu bytes: more than a "
                       "torch.save of one tensor writes (kvgold reads up to "
                       "%u)",
                    (unsigned long long)r->cd_size, KVG_SCAN_PT_META_MAX);
    if (r->n_total == 0)
        return fail(s, "an empty zip archive, not a torch.save file");
    if ((z->cd = (unsigned char *)malloc(r->cd_size ? (size_t)r->cd_size
                                                    : 1)) == NULL)
        return kvg_diag_set(s->diag, KVG_ERR_NOMEM, "pt", -1, -1,
                            "out of memory");
    z->cd_len = (size_t)r->cd_size;
    z->cd_off = r->cd_off;
    z->entries = r->n_total;
    KVG_TRY(rd(s, r->cd_off, z->cd_len, z->cd, "the zip central directory"));
    for (pos = 0, k = 0; k < r->n_total; k++) {
        zentry ze;
        KVG_TRY(entry_at(s, z, &pos, &ze));
        if (k == 0) {
            const unsigned char *slash =
                (const unsigned char *)memchr(ze.name, '/', ze.name_len);
            if (slash == NULL || slash == ze.name) {
                char nm[96];
                shown(nm, sizeof nm, ze.name, ze.name_len);
                return fail(s, "its first zip entry, '%s', is not in a "
                               "directory, as torch.save's records are",
                            nm);
            }
            z->prefix = ze.name;
            z->prefix_len = (size_t)(slash - ze.name);
        }
    }
    if (pos != z->cd_len)
        return fail(s, "the zip central directory holds more than its %llu "
                       "entries",
                    (unsigned long long)r->n_total);
    return KVG_OK;
}

/* The end records, the central directory (read into z->cd, checked
 * whole) and the prefix. */
static kvg_status zip_open(src *s, zip *z)
{
    unsigned char head[8];
    size_t hl;
    zip_end r;

    memset(z, 0, sizeof *z);
    if (s->size == 0)
        return fail(s, "empty; a torch.save file is a zip archive");
    hl = s->size < sizeof head ? (size_t)s->size : sizeof head;
    KVG_TRY(rd(s, 0, hl, head, "its first bytes"));
    KVG_TRY(find_end(s, head, hl, &r));
    return read_cd(s, &r, z);
}

/* The entry named <prefix>/<name>: 1 found (*e), 0 none, -1 refused
 * (two of that name). */
static int zip_find(src *s, const zip *z, const char *name, zentry *e)
{
    size_t pos = 0, nl = strlen(name);
    uint64_t k;
    int found = 0;
    for (k = 0; k < z->entries; k++) {
        zentry ze;
        if (entry_at(s, z, &pos, &ze) != KVG_OK)
            return -1; /* checked by zip_open: not reached */
        if (ze.name_len == z->prefix_len + 1 + nl &&
            memcmp(ze.name, z->prefix, z->prefix_len) == 0 &&
            ze.name[z->prefix_len] == '/' &&
            memcmp(ze.name + z->prefix_len + 1, name, nl) == 0) {
            if (found) {
                char pf[96];
                shown(pf, sizeof pf, z->prefix, z->prefix_len);
                (void)fail(s, "two zip entries named %s/%s", pf, name);
                return -1;
            }
            *e = ze;
            found = 1;
        }
    }
    return found;
}

static const char *method_name(unsigned m)
{
    switch (m) {
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 93: return "zstandard";
    case 95: return "xz";
    default: return "compressed";
    }
}

/* The first byte of entry e's data in the file: a stored entry, whose
 * local header agrees with the central directory. */
static kvg_status zip_data(src *s, const zip *z, const zentry *e,
                           uint64_t *data)
{
    unsigned char lh[30], *nm;
    char shown_name[160];
    uint64_t off;
    size_t nlen, xlen;
    kvg_status st;

    shown(shown_name, sizeof shown_name, e->name, e->name_len);
    if (e->flags & 1u)
        return fail(s, "zip entry %s is encrypted", shown_name);
    if (e->method != 0)
        return fail(s, "zip entry %s is compressed (method %u, %s); "
                       "kvgold reads only stored entries, as torch.save "
                       "writes them (it runs no decompressor)",
                    shown_name, e->method, method_name(e->method));
    if (e->csize != e->usize)
        return fail(s, "zip entry %s is stored, but its sizes differ (%llu "
                       "and %llu)",
                    shown_name, (unsigned long long)e->csize,
                    (unsigned long long)e->usize);
    if (e->local > z->cd_off || z->cd_off - e->local < 30)
        return fail(s, "zip entry %s: its local header (byte %llu) is not "
                       "before the central directory",
                    shown_name, (unsigned long long)e->local);
    if ((st = rd(s, e->local, sizeof lh, lh, "a zip local header")) !=
        KVG_OK)
        return st;
    nlen = le16(lh + 26);
    xlen = le16(lh + 28);
    if (le32(lh) != SIG_LOCAL || le16(lh + 8) != e->method ||
        nlen != e->name_len)
        return fail(s, "zip entry %s: its local header at byte %llu does "
                       "not match the central directory",
                    shown_name, (unsigned long long)e->local);
    if ((nm = (unsigned char *)malloc(nlen ? nlen : 1)) == NULL)
        return kvg_diag_set(s->diag, KVG_ERR_NOMEM, "pt", -1, -1,
                            "out of memory");
    st = rd(s, e->local + 30, nlen, nm, "a zip entry's name");
    if (st == KVG_OK && memcmp(nm, e->name, nlen) != 0)
        st = fail(s, "zip entry %s: its local header names another file",
                  shown_name);
    free(nm);
    if (st != KVG_OK)
        return st;
    off = e->local + 30 + nlen + xlen;
    if (off > z->cd_off || e->csize > z->cd_off - off)
        return fail(s, "zip entry %s: its %llu bytes at byte %llu run into "
                       "the central directory",
                    shown_name, (unsigned long long)e->csize,
                    (unsigned long long)off);
    *data = off;
    return KVG_OK;
}

/* ---- the pickle ------------------------------------------------------- */

#define PV_MAX 512   /* values */
#define PK_MAX 1024  /* the items of tuples and dicts */
#define PS_MAX 64    /* stack */
#define PM_MAX 32    /* open MARKs */
#define PMEMO_MAX 256
#define PST_MAX 8    /* storages */
#define PTN_MAX 8    /* tensors */

enum { V_INT, V_BOOL, V_STR, V_TUPLE, V_DICT, V_GLOBAL, V_STORAGE, V_ODICT,
       V_TENSOR };
enum { G_V2, G_V3, G_ODICT, G_STORAGE, G_UNTYPED, G_DTYPE };

typedef struct pglobal {
    const char *mod, *name;
    int g;
    kvg_dtype dtype;
} pglobal;

/* Every global kvgold accepts: nothing here runs anything. */
static const pglobal k_globals[] = {
    {"torch._utils", "_rebuild_tensor_v2", G_V2, KVG_DTYPE_INVALID},
    {"torch._utils", "_rebuild_tensor_v3", G_V3, KVG_DTYPE_INVALID},
    {"collections", "OrderedDict", G_ODICT, KVG_DTYPE_INVALID},
    {"torch", "HalfStorage", G_STORAGE, KVG_FP16},
    {"torch", "BFloat16Storage", G_STORAGE, KVG_BF16},
    {"torch", "FloatStorage", G_STORAGE, KVG_FP32},
    {"torch", "CharStorage", G_STORAGE, KVG_INT8},
    {"torch", "ByteStorage", G_STORAGE, KVG_UINT8},
    {"torch", "ShortStorage", G_STORAGE, KVG_INT16},
    {"torch", "IntStorage", G_STORAGE, KVG_INT32},
    {"torch", "LongStorage", G_STORAGE, KVG_INT64},
    {"torch", "UntypedStorage", G_UNTYPED, KVG_UINT8},
    {"torch.storage", "UntypedStorage", G_UNTYPED, KVG_UINT8},
    {"torch", "float16", G_DTYPE, KVG_FP16},
    {"torch", "bfloat16", G_DTYPE, KVG_BF16},
    {"torch", "float32", G_DTYPE, KVG_FP32},
    {"torch", "int8", G_DTYPE, KVG_INT8},
    {"torch", "uint8", G_DTYPE, KVG_UINT8},
    {"torch", "int16", G_DTYPE, KVG_INT16},
    {"torch", "uint16", G_DTYPE, KVG_UINT16},
    {"torch", "int32", G_DTYPE, KVG_INT32},
    {"torch", "uint32", G_DTYPE, KVG_UINT32},
    {"torch", "int64", G_DTYPE, KVG_INT64},
    {"torch", "float8_e4m3fn", G_DTYPE, KVG_FP8_E4M3FN},
    {"torch", "float8_e5m2", G_DTYPE, KVG_FP8_E5M2},
    {"torch", "float8_e8m0fnu", G_DTYPE, KVG_E8M0},
    /* packed, two codes a byte and a shape of bytes: kvgold's fp4 */
    {"torch", "float4_e2m1fn_x2", G_DTYPE, KVG_FP4_E2M1},
};
#define N_GLOBALS (sizeof k_globals / sizeof k_globals[0])

/* torch's other dtypes, named as such when refused */
static const char *const k_other_dtypes[] = {
    "float64", "bool", "uint64", "complex32", "complex64", "complex128",
    "float8_e5m2fnuz", "float8_e4m3fnuz", "bits8",
    "bits16", "bits1x8", "bits2x4", "bits4x2", "qint8", "quint8", "qint32",
    "quint4x2", "quint2x4", NULL};

typedef struct pv {
    int type;
    const pglobal *g; /* GLOBAL */
    int64_t i;        /* INT, BOOL; STORAGE, TENSOR: its record */
    size_t at, len;   /* STR: in the pickle */
    int first, n;     /* TUPLE, DICT (key, value, key, value...) */
} pv;

typedef struct pstorage {
    const pglobal *type;
    size_t key_at, key_len; /* in the pickle */
    int64_t numel;          /* elements, or bytes of an UntypedStorage */
} pstorage;

typedef struct ptensor {
    int storage;
    kvg_dtype dtype;
    const char *dtype_from; /* the storage type or dtype that says so */
    int64_t offset;
    int rank;
    int64_t size[KVG_MAX_RANK], stride[KVG_MAX_RANK];
} ptensor;

typedef struct vm {
    src *s;
    const char *pkl;        /* "<prefix>/data.pkl", for messages */
    const unsigned char *p; /* the pickle */
    size_t len, pc, op_at;
    pv v[PV_MAX];
    int nv;
    int kids[PK_MAX];
    int nk;
    int stack[PS_MAX];
    int sp;
    int marks[PM_MAX];
    int nm;
    int memo[PMEMO_MAX];
    int memo_count;
    pstorage st[PST_MAX];
    int nst;
    ptensor t[PTN_MAX];
    int nt;
} vm;

static kvg_status vfail(vm *m, const char *fmt, ...) PT_PRINTF(2, 3);
static kvg_status vfail(vm *m, const char *fmt, ...)
{
    char msg[KVG_DIAG_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(m->s, "%s: byte %lu: %s", m->pkl, (unsigned long)m->op_at,
                msg);
}

static const char *k_runs_nothing =
    "kvgold runs nothing from a pickle and reads only what torch.save "
    "writes for one tensor";

static const char *op_name(unsigned op)
{
    static const struct {
        unsigned char op;
        const char *name;
    } k[] = {
        {'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"},
        {'2', "DUP"}, {'F', "FLOAT"}, {'I', "INT"}, {'J', "BININT"},
        {'K', "BININT1"}, {'L', "LONG"}, {'M', "BININT2"}, {'N', "NONE"},
        {'P', "PERSID"}, {'Q', "BINPERSID"}, {'R', "REDUCE"},
        {'S', "STRING"}, {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"},
        {'V', "UNICODE"}, {'X', "BINUNICODE"}, {'a', "APPEND"},
        {'b', "BUILD"}, {'c', "GLOBAL"}, {'d', "DICT"}, {'}', "EMPTY_DICT"},
        {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"}, {'i', "INST"},
        {'j', "LONG_BINGET"}, {'l', "LIST"}, {']', "EMPTY_LIST"},
        {'o', "OBJ"}, {'p', "PUT"}, {'q', "BINPUT"}, {'r', "LONG_BINPUT"},
        {'s', "SETITEM"}, {'t', "TUPLE"}, {')', "EMPTY_TUPLE"},
        {'u', "SETITEMS"}, {'G', "BINFLOAT"}, {0x80, "PROTO"},
        {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"},
        {0x85, "TUPLE1"}, {0x86, "TUPLE2"}, {0x87, "TUPLE3"},
        {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"}, {0x8a, "LONG1"},
        {0x8b, "LONG4"}, {'B', "BINBYTES"}, {'C', "SHORT_BINBYTES"},
        {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"},
        {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"},
        {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"}, {0x93, "STACK_GLOBAL"},
        {0x94, "MEMOIZE"}, {0x95, "FRAME"}, {0x96, "BYTEARRAY8"},
        {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"}};
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; i++)
        if (k[i].op == op)
            return k[i].name;
    return "no pickle opcode";
}

static const char *type_name(int type)
{
    switch (type) {
    case V_INT: return "an int";
    case V_BOOL: return "a bool";
    case V_STR: return "a str";
    case V_TUPLE: return "a tuple";
    case V_DICT: return "a dict";
    case V_GLOBAL: return "a class or function";
    case V_STORAGE: return "a bare storage";
    case V_ODICT: return "an OrderedDict";
    default: return "a tensor";
    }
}

/* n bytes of operand at the pc, moved past. */
static kvg_status operand(vm *m, size_t n, const unsigned char **at)
{
    *at = m->p + m->pc;
    if (n > m->len - m->pc)
        return vfail(m, "the pickle ends inside an opcode's operand "
                        "(truncated)");
    *at = m->p + m->pc;
    m->pc += n;
    return KVG_OK;
}

static kvg_status newv(vm *m, int type, int *idx)
{
    *idx = 0;
    if (m->nv == PV_MAX)
        return vfail(m, "more than %d values: more than torch.save writes "
                        "for one tensor",
                     PV_MAX);
    memset(&m->v[m->nv], 0, sizeof m->v[0]);
    m->v[m->nv].type = type;
    *idx = m->nv++;
    return KVG_OK;
}

static kvg_status push(vm *m, int idx)
{
    if (m->sp == PS_MAX)
        return vfail(m, "a stack deeper than %d: more than torch.save "
                        "writes for one tensor",
                     PS_MAX);
    m->stack[m->sp++] = idx;
    return KVG_OK;
}

static kvg_status push_new(vm *m, int type, int *idx)
{
    kvg_status st = newv(m, type, idx);
    return st != KVG_OK ? st : push(m, *idx);
}

/* The base of the stack above the innermost MARK. */
static int base_of(const vm *m)
{
    return m->nm > 0 ? m->marks[m->nm - 1] : 0;
}

static kvg_status pop(vm *m, int *idx)
{
    *idx = 0;
    if (m->sp <= base_of(m))
        return vfail(m, "pops an empty stack (or past a MARK)");
    *idx = m->stack[--m->sp];
    return KVG_OK;
}

/* A tuple of the n values on top of the stack. */
static kvg_status make_tuple(vm *m, int n)
{
    int idx, i;
    if (m->sp - base_of(m) < n)
        return vfail(m, "pops an empty stack (or past a MARK)");
    if (n > PK_MAX - m->nk)
        return vfail(m, "more tuple items than torch.save writes for one "
                        "tensor");
    KVG_TRY(newv(m, V_TUPLE, &idx));
    m->v[idx].first = m->nk;
    m->v[idx].n = n;
    for (i = 0; i < n; i++)
        m->kids[m->nk++] = m->stack[m->sp - n + i];
    m->sp -= n;
    return push(m, idx);
}

static kvg_status pop_mark(vm *m, int *n)
{
    *n = 0;
    if (m->nm == 0)
        return vfail(m, "no MARK to end");
    *n = m->sp - m->marks[m->nm - 1];
    m->nm--;
    /* the items stay on the stack for the caller, now above the outer
     * mark's base */
    return KVG_OK;
}

static int str_is(const vm *m, int idx, const char *text)
{
    size_t n = strlen(text);
    return m->v[idx].type == V_STR && m->v[idx].len == n &&
           memcmp(m->p + m->v[idx].at, text, n) == 0;
}

/* GLOBAL module name: one of k_globals, or refused naming it. */
static kvg_status global(vm *m, const unsigned char *mod, size_t ml,
                         const unsigned char *name, size_t nl)
{
    char sm[80], sn[80];
    size_t i;
    int idx;
    for (i = 0; i < N_GLOBALS; i++)
        if (strlen(k_globals[i].mod) == ml &&
            memcmp(k_globals[i].mod, mod, ml) == 0 &&
            strlen(k_globals[i].name) == nl &&
            memcmp(k_globals[i].name, name, nl) == 0) {
            KVG_TRY(push_new(m, V_GLOBAL, &idx));
            m->v[idx].g = &k_globals[i];
            return KVG_OK;
        }
    shown(sm, sizeof sm, mod, ml);
    shown(sn, sizeof sn, name, nl);
    if (strcmp(sm, "torch") == 0 && nl > 7 &&
        memcmp(name + nl - 7, "Storage", 7) == 0)
        return vfail(m, "GLOBAL torch.%s: a storage of a dtype kvgold does "
                        "not read",
                     sn);
    for (i = 0; strcmp(sm, "torch") == 0 && k_other_dtypes[i] != NULL; i++)
        if (strcmp(sn, k_other_dtypes[i]) == 0)
            return vfail(m, "GLOBAL torch.%s: a dtype kvgold does not read",
                         sn);
    return vfail(m, "GLOBAL %s.%s: not part of a tensor's pickle; %s", sm,
                 sn, k_runs_nothing);
}

/* A line of a GLOBAL's operand (up to '\n'). */
static kvg_status line(vm *m, const unsigned char **at, size_t *n)
{
    const unsigned char *nl;
    size_t left = m->len - m->pc, cap = left < 256 ? left : 256;
    *at = m->p + m->pc;
    *n = 0;
    nl = (const unsigned char *)memchr(m->p + m->pc, '\n', cap);
    if (nl == NULL)
        return vfail(m, "a GLOBAL whose name does not end within 256 "
                        "bytes");
    *at = m->p + m->pc;
    *n = (size_t)(nl - *at);
    m->pc += *n + 1;
    return KVG_OK;
}

/* BINPERSID: ('storage', type, key, location, numel). */
static kvg_status persid(vm *m)
{
    int pid, idx;
    const pv *t;
    const int *k;
    pstorage *ps;
    size_t i;
    kvg_status st;
    if ((st = pop(m, &pid)) != KVG_OK)
        return st;
    t = &m->v[pid];
    k = m->kids + t->first;
    if (t->type != V_TUPLE || t->n != 5 || !str_is(m, k[0], "storage") ||
        m->v[k[1]].type != V_GLOBAL ||
        (m->v[k[1]].g->g != G_STORAGE && m->v[k[1]].g->g != G_UNTYPED) ||
        m->v[k[2]].type != V_STR || m->v[k[3]].type != V_STR ||
        m->v[k[4]].type != V_INT || m->v[k[4]].i < 0)
        return vfail(m, "BINPERSID of %s that is not ('storage', "
                        "<storage type>, key, location, numel)",
                     type_name(t->type));
    if (m->v[k[2]].len == 0 || m->v[k[2]].len > 64)
        return vfail(m, "a storage key of %lu bytes",
                     (unsigned long)m->v[k[2]].len);
    for (i = 0; i < m->v[k[2]].len; i++) {
        unsigned char c = m->p[m->v[k[2]].at + i];
        if (c <= 0x20 || c >= 0x7F || c == '/')
            return vfail(m, "a storage key that is no plain name");
    }
    if (m->nst == PST_MAX)
        return vfail(m, "more than %d storages: more than torch.save writes "
                        "for one tensor",
                     PST_MAX);
    ps = &m->st[m->nst];
    ps->type = m->v[k[1]].g;
    ps->key_at = m->v[k[2]].at;
    ps->key_len = m->v[k[2]].len;
    ps->numel = m->v[k[4]].i;
    KVG_TRY(push_new(m, V_STORAGE, &idx));
    m->v[idx].i = m->nst++;
    return KVG_OK;
}

/* A tuple of non-negative ints (stride: any int) into out; its length. */
static int int_tuple(const vm *m, int idx, int64_t *out, int cap,
                     int nonneg)
{
    const pv *t = &m->v[idx];
    int i;
    if (t->type != V_TUPLE || t->n > cap)
        return -1;
    for (i = 0; i < t->n; i++) {
        const pv *e = &m->v[m->kids[t->first + i]];
        if (e->type != V_INT || (nonneg && e->i < 0))
            return -1;
        out[i] = e->i;
    }
    return t->n;
}

/* REDUCE of _rebuild_tensor_v2(storage, storage_offset, size, stride,
 * requires_grad, backward_hooks) or _v3(..., dtype). */
static kvg_status rebuild(vm *m, int v3, int args)
{
    const pv *a = &m->v[args];
    const int *k = m->kids + a->first;
    const pstorage *ps;
    ptensor *t;
    int64_t stride[KVG_MAX_RANK];
    int rank, srank, idx;
    const char *fn = v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2";

    if (a->type != V_TUPLE || a->n != (v3 ? 7 : 6))
        return vfail(m, "%s called with %s of %d items, not the %d "
                        "torch.save passes for a plain tensor",
                     fn, type_name(a->type), a->type == V_TUPLE ? a->n : 1,
                     v3 ? 7 : 6);
    if (m->v[k[0]].type != V_STORAGE)
        return vfail(m, "%s: its storage is %s", fn,
                     type_name(m->v[k[0]].type));
    if (m->v[k[1]].type != V_INT || m->v[k[1]].i < 0)
        return vfail(m, "%s: its storage_offset is not a non-negative int",
                     fn);
    if (m->nt == PTN_MAX)
        return vfail(m, "more than %d tensors: more than torch.save writes "
                        "for one",
                     PTN_MAX);
    t = &m->t[m->nt];
    memset(t, 0, sizeof *t);
    if ((rank = int_tuple(m, k[2], t->size, KVG_MAX_RANK, 1)) < 0)
        return vfail(m, "%s: its size is not a tuple of at most %d "
                        "non-negative ints",
                     fn, KVG_MAX_RANK);
    if ((srank = int_tuple(m, k[3], stride, KVG_MAX_RANK, 0)) != rank)
        return vfail(m, "%s: its stride is not a tuple of %d ints", fn,
                     rank);
    if (m->v[k[4]].type != V_BOOL)
        return vfail(m, "%s: its requires_grad is %s, not a bool", fn,
                     type_name(m->v[k[4]].type));
    if (m->v[k[5]].type != V_ODICT)
        return vfail(m, "%s: its backward_hooks are %s, not the empty "
                        "OrderedDict torch.save writes",
                     fn, type_name(m->v[k[5]].type));
    ps = &m->st[m->v[k[0]].i];
    if (v3) {
        if (m->v[k[6]].type != V_GLOBAL || m->v[k[6]].g->g != G_DTYPE)
            return vfail(m, "%s: its dtype is %s, not a torch dtype", fn,
                         type_name(m->v[k[6]].type));
        if (ps->type->g != G_UNTYPED)
            return vfail(m, "%s with a %s: torch.save pairs it only with an "
                            "UntypedStorage",
                         fn, ps->type->name);
        t->dtype = m->v[k[6]].g->dtype;
        t->dtype_from = m->v[k[6]].g->name;
    } else {
        t->dtype = ps->type->dtype;
        t->dtype_from = ps->type->name;
    }
    t->storage = (int)m->v[k[0]].i;
    t->offset = m->v[k[1]].i;
    t->rank = rank;
    memcpy(t->stride, stride, sizeof stride);
    KVG_TRY(push_new(m, V_TENSOR, &idx));
    m->v[idx].i = m->nt++;
    return KVG_OK;
}

static kvg_status reduce(vm *m)
{
    int args, fn, idx;
    const pv *f;
    kvg_status st;
    if ((st = pop(m, &args)) != KVG_OK || (st = pop(m, &fn)) != KVG_OK)
        return st;
    f = &m->v[fn];
    if (f->type == V_GLOBAL && f->g->g == G_V2)
        return rebuild(m, 0, args);
    if (f->type == V_GLOBAL && f->g->g == G_V3)
        return rebuild(m, 1, args);
    if (f->type == V_GLOBAL && f->g->g == G_ODICT) {
        if (m->v[args].type != V_TUPLE || m->v[args].n != 0)
            return vfail(m, "OrderedDict called with arguments, which "
                            "torch.save never writes for a tensor");
        return push_new(m, V_ODICT, &idx);
    }
    if (f->type == V_GLOBAL)
        return vfail(m, "REDUCE calls %s.%s, which torch.save never does "
                        "for a tensor; %s",
                     f->g->mod, f->g->name, k_runs_nothing);
    return vfail(m, "REDUCE calls %s", type_name(f->type));
}

/* SETITEM / SETITEMS: n key, value pairs on top of the stack into the
 * dict below them. */
static kvg_status set_items(vm *m, int n)
{
    int d, i, j;
    pv *dict;
    if (n % 2 != 0)
        return vfail(m, "SETITEMS with a key and no value");
    if (m->sp - n - 1 < base_of(m) || m->sp - n - 1 < 0)
        return vfail(m, "pops an empty stack (or past a MARK)");
    d = m->stack[m->sp - n - 1];
    dict = &m->v[d];
    if (dict->type != V_DICT)
        return vfail(m, "sets items of %s", type_name(dict->type));
    if (dict->n + n > PK_MAX - m->nk)
        return vfail(m, "more dict items than torch.save writes for one "
                        "tensor");
    if (dict->first + dict->n != m->nk) {
        /* not the last items stored: move them to the end */
        memmove(m->kids + m->nk, m->kids + dict->first,
                (size_t)dict->n * sizeof m->kids[0]);
        dict->first = m->nk;
        m->nk += dict->n;
    }
    for (i = 0; i < n; i += 2) {
        int key = m->stack[m->sp - n + i];
        if (m->v[key].type != V_STR)
            return vfail(m, "a dict key that is %s, not a str",
                         type_name(m->v[key].type));
        for (j = 0; j < dict->n; j += 2) {
            const pv *o = &m->v[m->kids[dict->first + j]];
            if (o->len == m->v[key].len &&
                memcmp(m->p + o->at, m->p + m->v[key].at, o->len) == 0)
                return vfail(m, "a dict key given twice");
        }
        m->kids[m->nk++] = key;
        m->kids[m->nk++] = m->stack[m->sp - n + i + 1];
        dict->n += 2;
    }
    m->sp -= n;
    return KVG_OK;
}

static kvg_status memo_put(vm *m, uint64_t at)
{
    if (m->sp <= base_of(m))
        return vfail(m, "memoizes an empty stack");
    if (at >= PMEMO_MAX)
        return vfail(m, "memo slot %llu: more than torch.save uses for one "
                        "tensor",
                     (unsigned long long)at);
    if (m->memo[at] < 0)
        m->memo_count++;
    m->memo[at] = m->stack[m->sp - 1];
    return KVG_OK;
}

static kvg_status memo_get(vm *m, uint64_t at)
{
    if (at >= PMEMO_MAX || m->memo[at] < 0)
        return vfail(m, "gets memo slot %llu, which holds nothing",
                     (unsigned long long)at);
    return push(m, m->memo[at]);
}

/* Run the pickle: *result the value STOP leaves. */
/* PROTO, FRAME, STOP (*stop set, *result the pickled value) and MARK. */
static kvg_status op_frame(vm *m, unsigned op, int *result, int *stop)
{
    const unsigned char *o;
    kvg_status st = KVG_OK;

    switch (op) {
    case 0x80: /* PROTO */
        if ((st = operand(m, 1, &o)) != KVG_OK)
            return st;
        if (m->op_at != 0 || o[0] < 2 || o[0] > 5)
            return vfail(m, "PROTO %u%s: torch.save writes one PROTO "
                            "2 (or 3 to 5) first",
                         o[0], m->op_at != 0 ? " again" : "");
        break;
    case 0x95: { /* FRAME: a length, nothing to do */
        uint64_t fl;
        KVG_TRY(operand(m, 8, &o));
        fl = le64(o);
        if (fl > m->len - m->pc)
            return vfail(m, "a FRAME of %llu bytes runs past the "
                            "pickle's end",
                         (unsigned long long)fl);
        break;
    }
    case '.': /* STOP */
        if (m->nm != 0 || m->sp != 1)
            return vfail(m, "STOP with %d values on the stack and %d "
                            "MARKs open",
                         m->sp, m->nm);
        if (m->pc != m->len)
            return vfail(m, "%lu bytes after STOP",
                         (unsigned long)(m->len - m->pc));
        *result = m->stack[0];
        *stop = 1;
        return KVG_OK;
    case '(': /* MARK */
        if (m->nm == PM_MAX)
            return vfail(m, "more than %d open MARKs", PM_MAX);
        m->marks[m->nm++] = m->sp;
        break;
    }
    return st;
}

/* Tuples, dicts and the objects torch.save builds (BINPERSID, REDUCE). */
static kvg_status op_build(vm *m, unsigned op)
{
    int idx, n;
    kvg_status st = KVG_OK;

    switch (op) {
    case ')': /* EMPTY_TUPLE */
        st = make_tuple(m, 0);
        break;
    case 't': /* TUPLE */
        if ((st = pop_mark(m, &n)) == KVG_OK)
            st = make_tuple(m, n);
        break;
    case 0x85: case 0x86: case 0x87: /* TUPLE1-3 */
        st = make_tuple(m, (int)(op - 0x84));
        break;
    case 'Q': /* BINPERSID */
        st = persid(m);
        break;
    case 'R': /* REDUCE */
        st = reduce(m);
        break;
    case '}': /* EMPTY_DICT */
        if ((st = push_new(m, V_DICT, &idx)) == KVG_OK)
            m->v[idx].first = m->nk;
        break;
    case 's': /* SETITEM */
        st = set_items(m, 2);
        break;
    case 'u': /* SETITEMS */
        if ((st = pop_mark(m, &n)) == KVG_OK)
            st = set_items(m, n);
        break;
    }
    return st;
}

/* Ints and bools. */
static kvg_status op_number(vm *m, unsigned op)
{
    const unsigned char *o;
    int idx, n;
    kvg_status st = KVG_OK;

    switch (op) {
    case 'J': /* BININT */
        if ((st = operand(m, 4, &o)) == KVG_OK &&
            (st = push_new(m, V_INT, &idx)) == KVG_OK) {
            uint32_t u = le32(o);
            m->v[idx].i = u & 0x80000000u ? (int64_t)u - 4294967296LL
                                          : (int64_t)u;
        }
        break;
    case 'K': /* BININT1 */
        if ((st = operand(m, 1, &o)) == KVG_OK &&
            (st = push_new(m, V_INT, &idx)) == KVG_OK)
            m->v[idx].i = o[0];
        break;
    case 'M': /* BININT2 */
        if ((st = operand(m, 2, &o)) == KVG_OK &&
            (st = push_new(m, V_INT, &idx)) == KVG_OK)
            m->v[idx].i = le16(o);
        break;
    case 0x8a: { /* LONG1: n bytes, two's complement, little-endian */
        uint64_t u = 0;
        int b;
        if ((st = operand(m, 1, &o)) != KVG_OK)
            return st;
        n = o[0];
        if (n > 8)
            return vfail(m, "LONG1 of %d bytes: an int wider than 64 "
                            "bits",
                         n);
        if ((st = operand(m, (size_t)n, &o)) != KVG_OK ||
            (st = push_new(m, V_INT, &idx)) != KVG_OK)
            return st;
        for (b = 0; b < n; b++)
            u |= (uint64_t)o[b] << (8 * b);
        if (n > 0 && n < 8 && (o[n - 1] & 0x80u))
            u |= ~(uint64_t)0 << (8 * n); /* sign-extend */
        /* two's complement to int64 without an implementation-defined
         * conversion */
        m->v[idx].i = u <= (uint64_t)INT64_MAX
                          ? (int64_t)u
                          : -(int64_t)(~u) - 1;
        break;
    }
    case 0x88: case 0x89: /* NEWTRUE, NEWFALSE */
        if ((st = push_new(m, V_BOOL, &idx)) == KVG_OK)
            m->v[idx].i = op == 0x88;
        break;
    }
    return st;
}

/* Strings and the globals named by them. */
static kvg_status op_text(vm *m, unsigned op)
{
    const unsigned char *o;
    int idx;
    kvg_status st = KVG_OK;

    switch (op) {
    case 'X': case 0x8c: { /* BINUNICODE, SHORT_BINUNICODE */
        size_t sl;
        if ((st = operand(m, op == 'X' ? 4 : 1, &o)) != KVG_OK)
            return st;
        sl = op == 'X' ? (size_t)le32(o) : (size_t)o[0];
        if ((st = operand(m, sl, &o)) != KVG_OK ||
            (st = push_new(m, V_STR, &idx)) != KVG_OK)
            return st;
        m->v[idx].at = (size_t)(o - m->p);
        m->v[idx].len = sl;
        break;
    }
    case 'c': { /* GLOBAL module\nname\n */
        const unsigned char *mod, *name;
        size_t ml, nl;
        if ((st = line(m, &mod, &ml)) != KVG_OK ||
            (st = line(m, &name, &nl)) != KVG_OK)
            return st;
        st = global(m, mod, ml, name, nl);
        break;
    }
    case 0x93: { /* STACK_GLOBAL: module, name from the stack */
        int mi, ni;
        if ((st = pop(m, &ni)) != KVG_OK || (st = pop(m, &mi)) != KVG_OK)
            return st;
        if (m->v[mi].type != V_STR || m->v[ni].type != V_STR)
            return vfail(m, "STACK_GLOBAL of %s and %s, not two str",
                         type_name(m->v[mi].type),
                         type_name(m->v[ni].type));
        st = global(m, m->p + m->v[mi].at, m->v[mi].len,
                    m->p + m->v[ni].at, m->v[ni].len);
        break;
    }
    }
    return st;
}

/* The memo: BINPUT, LONG_BINPUT, MEMOIZE, BINGET, LONG_BINGET. */
static kvg_status op_memo(vm *m, unsigned op)
{
    const unsigned char *o;
    kvg_status st = KVG_OK;

    switch (op) {
    case 'q': /* BINPUT */
        if ((st = operand(m, 1, &o)) == KVG_OK)
            st = memo_put(m, o[0]);
        break;
    case 'r': /* LONG_BINPUT */
        if ((st = operand(m, 4, &o)) == KVG_OK)
            st = memo_put(m, le32(o));
        break;
    case 0x94: /* MEMOIZE */
        st = memo_put(m, (uint64_t)m->memo_count);
        break;
    case 'h': /* BINGET */
        if ((st = operand(m, 1, &o)) == KVG_OK)
            st = memo_get(m, o[0]);
        break;
    case 'j': /* LONG_BINGET */
        if ((st = operand(m, 4, &o)) == KVG_OK)
            st = memo_get(m, le32(o));
        break;
    }
    return st;
}

/* One opcode of the pickle, by its group. */
static kvg_status step(vm *m, unsigned op, int *result, int *stop)
{
    switch (op) {
    case 0x80: case 0x95: case '.': case '(':
        return op_frame(m, op, result, stop);
    case ')': case 't': case 0x85: case 0x86: case 0x87:
    case 'Q': case 'R': case '}': case 's': case 'u':
        return op_build(m, op);
    case 'J': case 'K': case 'M': case 0x8a: case 0x88: case 0x89:
        return op_number(m, op);
    case 'X': case 0x8c: case 'c': case 0x93:
        return op_text(m, op);
    case 'q': case 'r': case 0x94: case 'h': case 'j':
        return op_memo(m, op);
    default:
        break;
    }
    return vfail(m, "opcode 0x%02x (%s): not one torch.save writes for a "
                    "tensor; %s",
                 op, op_name(op), k_runs_nothing);
}

static kvg_status run(vm *m, int *result)
{
    int i, stop = 0;
    for (i = 0; i < PMEMO_MAX; i++)
        m->memo[i] = -1;
    while (m->pc < m->len) {
        unsigned op;
        m->op_at = m->pc;
        op = m->p[m->pc++];
        if (op != 0x80 && m->op_at == 0)
            return vfail(m, "no PROTO opcode first: not a pickle torch.save "
                            "writes (protocol 2 or later)");
        KVG_TRY(step(m, op, result, &stop));
        if (stop)
            return KVG_OK;
    }
    return vfail(m, "the pickle ends without STOP (truncated)");
}

/* ---- the tensor ------------------------------------------------------- */

static void dims_text(char *out, size_t cap, int rank, const int64_t *d)
{
    size_t used = (size_t)snprintf(out, cap, "(");
    int i;
    for (i = 0; i < rank && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%lld",
                                 i ? ", " : "", (long long)d[i]);
    if (used < cap)
        (void)snprintf(out + used, cap - used, "%s)", rank == 1 ? "," : "");
}

/* A one-byte type read as raw codes: any but int8 (a signed integer). */
static int raw_byte(kvg_dtype d)
{
    return kvg_dtype_size(d) == 1 && d != KVG_INT8;
}

/* Where tensor t's bytes lie in the file, checked against its storage
 * entry: *off, *nbytes, *numel. */
static kvg_status place(src *s, const zip *z, const vm *m, const ptensor *t,
                        const char *what, uint64_t *off, uint64_t *nbytes)
{
    const pstorage *ps = &m->st[t->storage];
    char key[80], name[96], sz[128], sd[128], pf[96];
    uint64_t item = kvg_dtype_size(t->dtype), sitem, sbytes, numel = 1,
             expect = 1, data;
    zentry e;
    int d, contiguous = 1, r;

    shown(key, sizeof key, m->p + ps->key_at, ps->key_len);
    shown(pf, sizeof pf, z->prefix, z->prefix_len);
    (void)snprintf(name, sizeof name, "data/%s", key);
    for (d = 0; d < t->rank; d++) {
        uint64_t sd1 = (uint64_t)t->size[d];
        if (sd1 != 0 && numel > (uint64_t)INT64_MAX / sd1)
            return fail(s, "%s: its size has more elements than fit in 64 "
                           "bits",
                        what);
        numel *= sd1;
    }
    /* contiguous as torch's is_contiguous says: row-major strides, a
     * dimension of size 1 having any; an empty tensor is */
    for (d = t->rank - 1; d >= 0 && numel != 0; d--) {
        if (t->size[d] != 1 && (uint64_t)t->stride[d] != expect) {
            contiguous = 0;
            break;
        }
        expect *= (uint64_t)t->size[d];
    }
    if (!contiguous) {
        dims_text(sz, sizeof sz, t->rank, t->size);
        dims_text(sd, sizeof sd, t->rank, t->stride);
        return fail(s, "%s is a non-contiguous view (size %s, stride %s): "
                       "kvgold reads a tensor's elements in row-major "
                       "order; save t.contiguous()",
                    what, sz, sd);
    }
    /* the storage: its entry holds exactly its bytes */
    sitem = ps->type->g == G_UNTYPED ? 1 : kvg_dtype_size(ps->type->dtype);
    if ((uint64_t)ps->numel > UINT64_MAX / sitem)
        return fail(s, "%s: its storage's size overflows", what);
    sbytes = (uint64_t)ps->numel * sitem;
    if ((r = zip_find(s, z, name, &e)) < 0)
        return s->diag != NULL ? s->diag->status : KVG_ERR_FILE_FORMAT;
    if (r == 0)
        return fail(s, "%s: its storage %s/%s is not in the archive", what,
                    pf, name);
    KVG_TRY(zip_data(s, z, &e, &data));
    if (e.usize != sbytes)
        return fail(s, "%s/%s holds %llu bytes; its storage of %lld %s "
                       "needs %llu",
                    pf, name, (unsigned long long)e.usize,
                    (long long)ps->numel,
                    ps->type->g == G_UNTYPED ? "bytes (UntypedStorage)"
                                             : ps->type->name,
                    (unsigned long long)sbytes);
    /* the view inside it */
    if ((uint64_t)t->offset > sbytes / item ||
        numel > sbytes / item - (uint64_t)t->offset)
        return fail(s, "%s: its view (storage_offset %lld, %llu elements "
                       "of %s) runs past its storage of %llu",
                    what, (long long)t->offset, (unsigned long long)numel,
                    kvg_dtype_name(t->dtype),
                    (unsigned long long)(sbytes / item));
    *off = data + (uint64_t)t->offset * item;
    *nbytes = numel * item;
    return KVG_OK;
}

/* The parse, on either source. */
/* The archive's byteorder entry: little or, before torch 2.1, none. */
static kvg_status check_byteorder(src *s, const zip *z, const char *pf)
{
    unsigned char bo[16];
    uint64_t data;
    zentry e;
    int found;

    if ((found = zip_find(s, z, "byteorder", &e)) < 0)
        return s->diag != NULL ? s->diag->status : KVG_ERR_FILE_FORMAT;
    if (!found)
        return KVG_OK;
    KVG_TRY(zip_data(s, z, &e, &data));
    if (e.usize > sizeof bo)
        return fail(s, "%s/byteorder: %llu bytes, not a byte order", pf,
                    (unsigned long long)e.usize);
    KVG_TRY(rd(s, data, (size_t)e.usize, bo, "the byteorder entry"));
    if (e.usize == 3 && memcmp(bo, "big", 3) == 0)
        return fail(s, "saved on a big-endian machine (%s/byteorder is "
                       "'big'); kvgold reads little-endian tensors",
                    pf);
    if (e.usize != 6 || memcmp(bo, "little", 6) != 0) {
        char b[40];
        shown(b, sizeof b, bo, (size_t)e.usize);
        return fail(s, "%s/byteorder is '%s', no byte order torch writes",
                    pf, b);
    }
    return KVG_OK;
}

/* The archive's data.pkl, read and checked against its CRC-32, in *pkl
 * (malloc'ed) and a machine *m (malloc'ed) ready to run it. */
static kvg_status load_pickle(src *s, const zip *z, const char *pkl_name,
                              unsigned char **pkl, vm **m)
{
    uint64_t data;
    zentry e;
    int found;

    if ((found = zip_find(s, z, "data.pkl", &e)) <= 0)
        return found < 0 ? (s->diag != NULL ? s->diag->status
                                            : KVG_ERR_FILE_FORMAT)
                         : fail(s, "no %s in the archive: not a torch.save "
                                   "file",
                                pkl_name);
    KVG_TRY(zip_data(s, z, &e, &data));
    if (e.usize > KVG_SCAN_PT_META_MAX || e.usize == 0)
        return fail(s, "%s: %llu bytes; a torch.save of one tensor writes a "
                       "few hundred (kvgold reads up to %u)",
                    pkl_name, (unsigned long long)e.usize,
                    KVG_SCAN_PT_META_MAX);
    if ((*pkl = (unsigned char *)malloc((size_t)e.usize)) == NULL ||
        (*m = (vm *)malloc(sizeof **m)) == NULL)
        return kvg_diag_set(s->diag, KVG_ERR_NOMEM, "pt", -1, -1,
                            "out of memory");
    KVG_TRY(rd(s, data, (size_t)e.usize, *pkl, "the pickle"));
    if (kvg_scan_pt_crc32(*pkl, (size_t)e.usize) != e.crc)
        return fail(s, "%s: its CRC-32 is not the one the archive records "
                       "(damaged)",
                    pkl_name);
    memset(*m, 0, sizeof **m);
    (*m)->s = s;
    (*m)->pkl = pkl_name;
    (*m)->p = *pkl;
    (*m)->len = (size_t)e.usize;
    return KVG_OK;
}

/* The pickled tensor t: its bytes placed in the archive, its dtype the
 * declared one (decl, unless KVG_DTYPE_INVALID) or a raw byte type. */
static kvg_status take_tensor(src *s, const zip *z, const vm *m,
                              const ptensor *t, kvg_dtype decl,
                              kvg_scan_arg *r, uint64_t *off,
                              uint64_t *nbytes)
{
    KVG_TRY(place(s, z, m, t, "the tensor", off, nbytes));
    if (decl != KVG_DTYPE_INVALID && decl != t->dtype &&
        !(raw_byte(decl) && raw_byte(t->dtype)))
        return fail(s, "holds a tensor of %s (%s), where %s is declared",
                    kvg_dtype_name(t->dtype), t->dtype_from,
                    kvg_dtype_name(decl));
    r->dtype = decl != KVG_DTYPE_INVALID ? decl : t->dtype;
    r->rank = t->rank;
    memset(r->shape, 0, sizeof r->shape);
    memcpy(r->shape, t->size, (size_t)t->rank * sizeof t->size[0]);
    return KVG_OK;
}

/* ops-test-kit's raw-byte payload {'ttk_raw_bytes': <uint8 tensor>,
 * 'ttk_shape': <tuple>}, a dict `res` of 4 kids, of the declared dtype. */
static kvg_status take_ttk_raw(src *s, const zip *z, const vm *m,
                               const pv *res, kvg_dtype decl,
                               kvg_scan_arg *r, uint64_t *off,
                               uint64_t *nbytes)
{
    const ptensor *raw = NULL;
    int64_t shape[KVG_MAX_RANK];
    int rank = -1, i;
    char dims[160];
    uint64_t need;

    for (i = 0; i < res->n; i += 2) {
        int key = m->kids[res->first + i], val = m->kids[res->first + i + 1];
        if (str_is(m, key, "ttk_raw_bytes") && m->v[val].type == V_TENSOR)
            raw = &m->t[m->v[val].i];
        else if (str_is(m, key, "ttk_shape"))
            rank = int_tuple(m, val, shape, KVG_MAX_RANK, 1);
    }
    if (raw == NULL || rank < 0)
        return fail(s, "holds a dict that is not ops-test-kit's raw-byte "
                       "payload {'ttk_raw_bytes': <uint8 tensor>, "
                       "'ttk_shape': <tuple of at most %d ints>}",
                    KVG_MAX_RANK);
    if (raw->dtype != KVG_UINT8)
        return fail(s, "ttk_raw_bytes is a tensor of %s (%s), not of uint8",
                    kvg_dtype_name(raw->dtype), raw->dtype_from);
    KVG_TRY(place(s, z, m, raw, "ttk_raw_bytes", off, nbytes));
    if (decl == KVG_DTYPE_INVALID)
        return fail(s, "ops-test-kit's raw-byte payload, whose dtype only "
                       "the file name says, and none is declared");
    if (!kvg_scan_nbytes(decl, rank, shape, &need) || need != *nbytes) {
        dims_text(dims, sizeof dims, rank, shape);
        return fail(s, "ttk_raw_bytes holds %llu bytes; ttk_shape %s of %s "
                       "needs %llu",
                    (unsigned long long)*nbytes, dims, kvg_dtype_name(decl),
                    (unsigned long long)need);
    }
    r->dtype = decl;
    r->rank = rank;
    memset(r->shape, 0, sizeof r->shape);
    memcpy(r->shape, shape, (size_t)rank * sizeof shape[0]);
    return KVG_OK;
}

/* A pickled value that is no tensor kvgold reads, refused by what it
 * is (a dict by its first keys). */
static kvg_status refuse_value(src *s, const vm *m, const pv *res)
{
    char keys[160];
    size_t used = 0;
    int i;

    if (res->type != V_DICT)
        return fail(s, "holds %s, not a tensor: kvgold reads a torch.save of "
                       "one tensor",
                    type_name(res->type));
    keys[0] = '\0';
    for (i = 0; i < res->n && i < 8 && used + 4 < sizeof keys; i += 2) {
        const pv *k = &m->v[m->kids[res->first + i]];
        char one[40];
        shown(one, sizeof one, m->p + k->at, k->len);
        used += (size_t)snprintf(keys + used, sizeof keys - used, "%s'%s'",
                                 i ? ", " : "", one);
    }
    if (res->n > 8 && used + 6 < sizeof keys)
        (void)snprintf(keys + used, sizeof keys - used, ", ...");
    return fail(s, "holds a dict (keys %s), not a tensor: kvgold reads a "
                   "torch.save of one tensor",
                res->n ? keys : "none");
}

static kvg_status parse(src *s, unsigned flags, kvg_scan_arg *a)
{
    zip z;
    vm *m = NULL;
    unsigned char *pkl = NULL;
    char pf[96], pkl_name[128];
    uint64_t off = 0, nbytes = 0;
    kvg_scan_arg r = *a;
    const pv *res;
    int result = -1;
    kvg_status st;

    if ((st = zip_open(s, &z)) != KVG_OK)
        goto done;
    shown(pf, sizeof pf, z.prefix, z.prefix_len);
    (void)snprintf(pkl_name, sizeof pkl_name, "%s/data.pkl", pf);
    if ((st = check_byteorder(s, &z, pf)) != KVG_OK ||
        (st = load_pickle(s, &z, pkl_name, &pkl, &m)) != KVG_OK ||
        (st = run(m, &result)) != KVG_OK)
        goto done;
    res = &m->v[result];
    if (res->type == V_TENSOR && (flags & KVG_SCAN_PT_TTK_RAW_ONLY))
        st = fail(s, "holds a tensor of %s (%s), not ops-test-kit's "
                     "raw-byte payload of one code a byte: a torch 4-bit "
                     "tensor holds the packed bytes flattened to 1-D, its "
                     "shape not recorded",
                  kvg_dtype_name(m->t[res->i].dtype),
                  m->t[res->i].dtype_from);
    else if (res->type == V_TENSOR)
        st = take_tensor(s, &z, m, &m->t[res->i], a->dtype, &r, &off,
                         &nbytes);
    else if (res->type == V_DICT && (flags & KVG_SCAN_PT_TTK_RAW) &&
             res->n == 4)
        st = take_ttk_raw(s, &z, m, res, a->dtype, &r, &off, &nbytes);
    else
        st = refuse_value(s, m, res);
    if (st != KVG_OK)
        goto done;
    r.kind = KVG_SCAN_TENSOR;
    r.layout = KVG_SCAN_LAYOUT_ND;
    r.offset = off;
    r.nbytes = nbytes;
    r.converted = 0;
    *a = r;
done:
    free(m);
    free(pkl);
    free(z.cd);
    return st;
}

kvg_status kvg_scan_pt_parse(const unsigned char *buf, size_t len,
                             uint64_t size, const char *file,
                             unsigned flags, kvg_scan_arg *a,
                             kvg_diag *diag)
{
    src s;
    static const unsigned char none[1] = {0};
    s.buf = buf != NULL ? buf : none;
    s.len = buf != NULL ? (len <= size ? len : (size_t)size) : 0;
    s.fd = -1;
    s.size = size;
    s.path = file;
    s.diag = diag;
    return parse(&s, flags, a);
}

kvg_status kvg_scan_pt_tensor(const char *dir, const char *file,
                              unsigned flags, kvg_scan_arg *a,
                              kvg_diag *diag)
{
    struct stat sb;
    kvg_status st;
    src s;
    char *path;
    int fd;

    KVG_TRY(kvg_scan_no_link(dir, file, diag));
    if ((path = kvg_path_join(dir, file, NULL, diag)) == NULL)
        return KVG_ERR_NOMEM;
    if ((st = kvg_open_regular(path, "pt", &fd, &sb, diag)) != KVG_OK) {
        free(path);
        return st;
    }
    s.buf = NULL;
    s.len = 0;
    s.fd = fd;
    s.size = (uint64_t)sb.st_size;
    s.path = path;
    s.diag = diag;
    st = parse(&s, flags, a);
    if (st == KVG_OK && file != a->file)
        (void)snprintf(a->file, sizeof a->file, "%s", file);
    close(fd);
    free(path);
    return st;
}
