"""PyTorch .pt files for the scan tests, written without torch.save where
the installed torch (Debian's 1.13) cannot write them (torch 2's float8
form, zip64, a byteorder entry, damaged and hostile files): assembled from
the zip specification and the pickle opcodes torch.save emits; and the
helpers the .pt tests read verdicts with (tests/python/scan/
test_scan_pt_c.py and each operator's .pt tests in tests/ops/<op>/).
Import it after pytest.importorskip("torch")."""
import os
import struct
import zipfile
import zlib

import numpy as np
import torch


def entries_of(path):
    """The (name, bytes) entries of a zip archive, in its order."""
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def write_zip(path, entries, zip64=False, align=64):
    """A stored zip archive laid out as torch.save's writer lays one out:
    each entry's data `align`-aligned by a local extra field "FB" of
    padding. With zip64, every size and offset of the central directory is
    in a zip64 extra field (0x0001) and the end records are zip64's
    (PKWARE APPNOTE 4.3.14-4.3.16, 4.5.3)."""
    out, central = bytearray(), bytearray()
    for name, data in entries:
        nb = name.encode()
        off = len(out)
        extra = b""
        if align:
            pad = (-(off + 30 + len(nb) + 4)) % align
            extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
        crc = zlib.crc32(data)
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0, crc,
                           len(data), len(data), len(nb), len(extra))
        out += nb + extra + data
        if zip64:
            cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), off)
            size32 = off32 = 0xFFFFFFFF
        else:
            cextra, size32, off32 = b"", len(data), off
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0,
                               0, 0, 0, crc, size32, size32, len(nb),
                               len(cextra), 0, 0, 0, 0, off32)
        central += nb + cextra
    cd_off, n = len(out), len(entries)
    out += central
    if zip64:
        end64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, n, n,
                           len(central), cd_off)
        out += struct.pack("<IIQI", 0x07064b50, 0, end64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054b50, 0xFFFF, 0xFFFF, 0xFFFF,
                           0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, n, n, len(central),
                           cd_off, 0)
    with open(path, "wb") as f:
        f.write(out)


def p_str(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def p_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -2 ** 31 <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def p_tuple(values):
    return b"(" + b"".join(p_int(v) for v in values) + b"t"


def tensor_pickle(storage, numel, offset, size, stride, dtype=None):
    """The pickle torch.save writes for one tensor (pickletools of torch
    1.13's, without the memo): _rebuild_tensor_v2 of a typed storage, or,
    with `dtype`, torch 2's _rebuild_tensor_v3 of an UntypedStorage."""
    fn = b"_rebuild_tensor_v3" if dtype else b"_rebuild_tensor_v2"
    return (b"\x80\x02ctorch._utils\n" + fn + b"\n((" + p_str("storage") +
            b"c" + storage.encode() + b"\n" + p_str("0") + p_str("cpu") +
            p_int(numel) + b"tQ" + p_int(offset) + p_tuple(size) +
            p_tuple(stride) + b"\x89ccollections\nOrderedDict\n)R" +
            (b"ctorch\n" + dtype.encode() + b"\n" if dtype else b"") +
            b"tR.")


def torch2_archive(path, pkl, data, byteorder="little"):
    """An archive as torch 2.x saves it: a byteorder entry and its
    .data/ bookkeeping beside data.pkl and the storage."""
    ents = [("archive/data.pkl", pkl)]
    if byteorder is not None:
        ents.append(("archive/byteorder", byteorder.encode()))
    ents += [("archive/data/0", data), ("archive/version", b"3\n"),
             ("archive/.data/version", b"3\n"),
             ("archive/.data/serialization_id", b"1234567890")]
    write_zip(path, ents)


def raw_payload(path):
    """(bytes, shape) of ops-test-kit's raw-byte payload in .pt `path`
    (what the ttk writer saves for fp8, which this torch lacks)."""
    obj = torch.load(path, map_location="cpu", weights_only=True)
    assert isinstance(obj, dict), path
    return (obj["ttk_raw_bytes"].numpy().tobytes(),
            tuple(int(d) for d in obj["ttk_shape"]))


def u8(raw, shape, dtype=np.uint8):
    return torch.from_numpy(np.frombuffer(raw, dtype).copy().reshape(shape))


def pt_files(d, word=""):
    return sorted(os.path.join(d, n) for n in os.listdir(d)
                  if n.endswith(".pt") and word in n and "_none" not in n)


def verdicts(doc):
    return {c["id"]: (c["verdict"], c["reason"]) for c in doc["calls"]}


def judged(doc, case):
    """{tensor: (dtype, verdict)} of a call's report."""
    c = [c for c in doc["calls"] if c["id"] == case][0]
    return {r["name"]: (r["dtype"], r["verdict"])
            for r in c["report"]["results"]}


def tree(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out



def to_pt(d):
    """Case directory d's .npy files (scan_dumps' ops-test-kit npy) as
    ops-test-kit's pt format holds them (manual_data.py _write_array):
    torch.save of the tensor, bf16 through torch's own, and for a dtype
    this torch lacks (fp8, hifloat8, uint16, uint32) its raw-byte
    payload."""
    for n in sorted(os.listdir(d)):
        src = os.path.join(d, n)
        dst = src[:-4] + ".pt"
        assert n.endswith(".npy"), n
        if "_none" in n:
            open(dst, "wb").close()
        else:
            arr = np.load(src)
            if arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
                obj = torch.from_numpy(arr.view(np.int16).copy()).view(
                    torch.bfloat16)
            else:
                try:
                    obj = torch.from_numpy(arr.copy())
                    assert arr.dtype.kind != "V"
                except (TypeError, AssertionError):
                    obj = {"ttk_raw_bytes": torch.from_numpy(
                        arr.view(np.uint8).reshape(-1).copy()),
                        "ttk_shape": tuple(arr.shape)}
            torch.save(obj, dst)
        os.remove(src)
