"""The kvgold command reads PyTorch .pt files itself (tools/lib/scan/
read_pt.c, issue 33): no torch, no conversion. The files here are written
by Debian's torch 1.13 (`torch.save`), or, for what that torch cannot
write (torch 2's float8 form, zip64, a byteorder entry, damaged and
hostile files), assembled here from the zip specification and the pickle
opcodes torch.save emits. Honest calls pass and their bytes are judged
bit for bit (the copy-only dtypes of ScatterPaKvCache), each planted
fault fails in its call, and every file the command must not read ends
its call NOT JUDGED naming the file and what is wrong, with nothing in a
hostile pickle run."""
import os
import struct
import sys
import zipfile
import zlib

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

torch = pytest.importorskip("torch")
np = sd.np

kv = sd.op("kv")
qkv = sd.op("qkv")
rac = sd.op("rac")
spkc = sd.op("spkc")

ATTRS = ["--standard", "single", "--attr", "epsilon=1e-05",
         "--attr", 'cache_mode="Norm"']


# ---- writing .pt files without torch.save -----------------------------------

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


# ---- ops-test-kit: every dtype, bit for bit ---------------------------------

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


def e2e_root(tmp_path):
    """e2e .pt cases (torch_npu order, the CSV giving shapes and
    attributes): ScatterPaKvCache's copy-only caches of fp16, fp32,
    int16, uint8, int64 slots, QkvRmsNormRopeCache's bf16 and int8, and
    two planted faults."""
    root = str(tmp_path / "manual_pt")
    rows = []
    for name, op, case in (("spkc_fp16", spkc, "norm_fp16"),
                           ("spkc_fp32", spkc, "norm_fp32"),
                           ("spkc_int16", spkc, "norm_int16"),
                           ("spkc_uint8", spkc, "norm_uint8"),
                           ("spkc_int64_slots", spkc, "norm_fp16_int64_slots"),
                           ("qkv_bf16_int8", qkv, "bf16_k_int8_sym_v_plain")):
        rows.append(sd.write_ttk_e2e(op, op.case(case), root, name,
                                     fmt="npy"))
    # one uint8 cache byte the kernel did not write: copy-only dtypes are
    # judged bit for bit
    bad = spkc.case("norm_uint8")
    post = bad.post["key_cache"][1].reshape(-1)
    post[np.nonzero(post != bad.inputs["key_cache"][1].reshape(-1))[0][0]] ^= 1
    rows.append(sd.write_ttk_e2e(spkc, bad, root, "spkc_uint8_bad",
                                 fmt="npy"))
    bad = spkc.case("norm_fp32")
    sd.plant_slot_off(bad)
    rows.append(sd.write_ttk_e2e(spkc, bad, root, "spkc_fp32_off",
                                 fmt="npy"))
    for r in rows:
        to_pt(os.path.join(root, r["testcase_name"]))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    return root, csv


def test_ttk_pt_dtypes_bit_for_bit(cli, tmp_path):
    root, csv = e2e_root(tmp_path)
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = verdicts(doc)
    assert {k: v[0] for k, v in got.items()} == {
        "qkv_bf16_int8": "PASS", "spkc_fp16": "PASS", "spkc_fp32": "PASS",
        "spkc_fp32_off": "FAIL", "spkc_int16": "PASS",
        "spkc_int64_slots": "PASS", "spkc_uint8": "PASS",
        "spkc_uint8_bad": "FAIL"}, got
    assert got["spkc_uint8_bad"][1].startswith("key_cache:")
    assert got["spkc_fp32_off"][1].startswith("key_cache:")
    # the dtypes the files were read as
    for case, dt in (("spkc_fp16", "fp16"), ("spkc_fp32", "fp32"),
                     ("spkc_int16", "int16"), ("spkc_uint8", "uint8"),
                     ("spkc_int64_slots", "fp16")):
        assert judged(doc, case) == {"key_cache": (dt, "PASS"),
                                     "value_cache": (dt, "PASS")}, case
    assert {v[0] for v in judged(doc, "qkv_bf16_int8").values()} >= \
        {"bf16", "int8"}
    assert tree(root) == before  # nothing written, nothing converted


def test_ttk_pt_same_verdicts_as_python(cli, tmp_path):
    # the command's own reading and the Python side's conversion agree
    import kvgold
    root, csv = e2e_root(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    py = kvgold.scan(root, "--csv", csv, "--standard", "single", cli=cli)
    assert [(c["id"], c["verdict"]) for c in doc["calls"]] == \
        [(c["id"], c["verdict"]) for c in py["calls"]]


def test_ttk_pt_raw_payload_of_a_two_byte_dtype(cli, tmp_path):
    # torch 1.13 has no uint16: ops-test-kit saves its raw-byte payload,
    # read as the file name's dtype
    root = str(tmp_path / "manual_pt")
    call = spkc.case("norm_uint16")
    row = sd.write_ttk_e2e(spkc, call, root, "spkc_uint16", fmt="npy")
    d = os.path.join(root, "spkc_uint16")
    to_pt(d)
    assert isinstance(torch.load(os.path.join(d, "input_0_uint16.pt"),
                                 weights_only=True), dict)
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), [row])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 0, (err, doc and doc["calls"])
    assert judged(doc, "spkc_uint16") == {
        "key_cache": ("uint16", "PASS"), "value_cache": ("uint16", "PASS")}


# ---- what torch.save writes besides a plain tensor --------------------------

NAMED = "ReshapeAndCache_layer0"


def named_root(tmp_path):
    """Cases whose directory names say the operator: KvRmsNormRopeCache
    with an fp8 cache (ops-test-kit's raw-byte payload), and
    ReshapeAndCache, whose files the tests below replace."""
    root = str(tmp_path / "manual_data")
    kv.ttk(kv.case("m_norm_fp16_kt_ce4m3_sym_noout"), root,
           "KvRmsNormRopeCache_fp8", fmt="pt")
    rac.ttk(rac.case("nd_fp16"), root, NAMED, fmt="pt")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_layer1", fmt="pt")
    return root


def scan_named(cli, root):
    rc, doc, err = sd.scan(cli, root, *ATTRS)
    assert doc is not None, err
    return verdicts(doc)


def test_pt_views_of_a_shared_storage(cli, tmp_path):
    # each tensor a view into a bigger storage at an offset, the bytes
    # around it junk: read from where the view starts
    root = named_root(tmp_path)
    d = os.path.join(root, NAMED)
    key = torch.load(os.path.join(d, "input_0_float16.pt"),
                     weights_only=True)
    for p in pt_files(d):
        t = torch.load(p, weights_only=True).contiguous()
        flat = t.reshape(-1)
        big = torch.full((flat.numel() + 200,), 7, dtype=t.dtype)
        big[37:37 + flat.numel()] = flat
        torch.save(big[37:37 + flat.numel()].view(t.shape), p)
    # the storage holds all 200 more elements, and the view starts at 37
    z = dict(entries_of(os.path.join(d, "input_0_float16.pt")))
    data = [v for k, v in z.items() if "/data/" in k]
    assert len(data) == 1 and len(data[0]) == 2 * (200 + key.numel())
    got = scan_named(cli, root)
    assert got[NAMED] == ("PASS", ""), got[NAMED]
    # a fault in the view is found
    p = os.path.join(d, "golden_0_float16.pt")
    t = torch.load(p, weights_only=True)
    base = torch.zeros(t.numel() + 64, dtype=t.dtype)
    base[64:] = t.reshape(-1)
    base[64 + 5] += 1
    torch.save(base[64:].view(t.shape), p)
    assert scan_named(cli, root)[NAMED][0] == "FAIL"


def test_pt_torch2_float8_form(cli, tmp_path):
    # torch 2 saves float8 as _rebuild_tensor_v3 of an UntypedStorage, a
    # byteorder entry beside: read as the file name's fp8
    root = named_root(tmp_path)
    d = os.path.join(root, "KvRmsNormRopeCache_fp8")
    fp8 = pt_files(d, "float8_e4m3fn")
    assert fp8
    for p in fp8:
        raw, shape = raw_payload(p)  # this torch has no float8
        stride = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            stride[i] = stride[i + 1] * shape[i + 1]
        torch2_archive(p, tensor_pickle("torch\nUntypedStorage", len(raw) + 3,
                                        3, shape, stride, "float8_e4m3fn"),
                       b"\xff\xfe\xfd" + raw)
    got = scan_named(cli, root)
    assert got["KvRmsNormRopeCache_fp8"] == ("PASS", ""), got


def test_pt_fp8_as_uint8_tensor_and_int8_refused(cli, tmp_path):
    # a one-byte type is the declared one, whatever unsigned tensor holds
    # its codes; int8 is a number, never raw codes
    root = named_root(tmp_path)
    d = os.path.join(root, "KvRmsNormRopeCache_fp8")
    files = {p: raw_payload(p) for p in pt_files(d, "float8_e4m3fn")}
    for p, (raw, shape) in files.items():
        torch.save(u8(raw, shape), p)
    assert scan_named(cli, root)["KvRmsNormRopeCache_fp8"] == ("PASS", "")
    p = sorted(files)[0]
    torch.save(u8(files[p][0], files[p][1], np.int8), p)
    got = scan_named(cli, root)["KvRmsNormRopeCache_fp8"]
    assert got == ("NOT_JUDGED", "unreadable: %s: holds a tensor of int8 "
                   "(CharStorage), where fp8_e4m3fn is declared" % p), got


@pytest.mark.parametrize("form", ["zip64", "torch2", "python_zipfile",
                                  "protocol4", "protocol5",
                                  "requires_grad"])
def test_pt_other_writers(cli, tmp_path, form):
    # the same tensors in archives other writers lay out: read the same
    root = named_root(tmp_path)
    d = os.path.join(root, NAMED)
    for p in pt_files(d):
        if form in ("zip64", "torch2", "python_zipfile"):
            ents = entries_of(p)
            if form == "zip64":
                write_zip(p, ents, zip64=True)
            elif form == "torch2":
                pre = ents[0][0].split("/")[0]
                write_zip(p, ents[:1] + [(pre + "/byteorder", b"little")] +
                          ents[1:] + [(pre + "/.data/version", b"3\n")])
            else:
                with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
                    for n, b in ents:
                        z.writestr(n, b)
        else:
            t = torch.load(p, weights_only=True)
            if form == "requires_grad":  # NEWTRUE where NEWFALSE was
                if t.is_floating_point():
                    torch.save(t.clone().requires_grad_(), p)
            else:
                torch.save(t, p, pickle_protocol=int(form[-1]))
    assert scan_named(cli, root)[NAMED] == ("PASS", "")


# ---- refused, naming the file and what is wrong -----------------------------

def evil_pickle(marker):
    """A pickle that, if run, would create `marker` (os.system)."""
    cmd = "touch %s" % marker
    return b"\x80\x02cos\nsystem\n(" + p_str(cmd) + b"tR."


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, ("touch %s" % self.marker,))


def bad_file(kind, p, marker):
    """Replace .pt file p (a float16 tensor) by a `kind` of bad file."""
    t = torch.load(p, weights_only=True)
    if kind == "noncontiguous":
        torch.save(t.reshape(t.shape[0], -1).t(), p)
    elif kind == "dict":
        torch.save({"key_cache": t}, p)
    elif kind == "list":
        torch.save([t], p)
    elif kind == "evil_global":
        write_zip(p, [("archive/data.pkl", evil_pickle(marker)),
                      ("archive/version", b"3\n")])
    elif kind == "evil_object":
        torch.save(Evil(marker), p)
    elif kind == "truncated":
        data = open(p, "rb").read()
        open(p, "wb").write(data[:len(data) // 2])
    elif kind == "compressed":
        ents = entries_of(p)
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
            for n, b in ents:
                z.writestr(n, b)
    elif kind == "legacy":
        torch.save(t, p, _use_new_zipfile_serialization=False)
    elif kind == "big_endian":
        ents = entries_of(p)
        write_zip(p, ents[:1] + [(ents[0][0].split("/")[0] + "/byteorder",
                                  b"big")] + ents[1:])
    elif kind == "wrong_dtype":
        torch.save(t.int(), p)
    elif kind == "storage_short":
        # the view's 12 elements from offset 4 of a 10-element storage
        write_zip(p, [("archive/data.pkl", tensor_pickle(
            "torch\nHalfStorage", 10, 4, (12,), (1,))),
            ("archive/data/0", bytes(20))])
    elif kind == "storage_entry_size":
        write_zip(p, [("archive/data.pkl", tensor_pickle(
            "torch\nHalfStorage", 10, 0, (10,), (1,))),
            ("archive/data/0", bytes(22))])
    elif kind == "npy":
        with open(p, "wb") as f:
            np.save(f, np.zeros(3, np.float16))
    elif kind == "empty":
        open(p, "wb").close()
    elif kind == "double":
        torch.save(t.double(), p)
    else:
        raise AssertionError(kind)


# the prefix of the entries torch.save writes is the file's base name
REFUSED = {
    "noncontiguous": "the tensor is a non-contiguous view (size (",
    "dict": "holds a dict (keys 'key_cache'), not a tensor",
    "list": "golden_0_float16/data.pkl: byte 2: opcode 0x5d (EMPTY_LIST): "
            "not one torch.save writes for a tensor",
    "evil_global": "archive/data.pkl: byte 2: GLOBAL os.system: not part of "
                   "a tensor's pickle; kvgold runs nothing from a pickle",
    "evil_object": "golden_0_float16/data.pkl: byte 2: GLOBAL posix.system: "
                   "not part of a tensor's pickle",
    "truncated": "a zip archive without its end record",
    "compressed": "zip entry golden_0_float16/data.pkl is compressed "
                  "(method 8, deflate); kvgold reads only stored entries",
    "legacy": "a Python pickle, not torch.save's zip archive",
    "big_endian": "saved on a big-endian machine",
    "wrong_dtype": "holds a tensor of int32 (IntStorage), where fp16 is "
                   "declared",
    "storage_short": "the tensor: its view (storage_offset 4, 12 elements "
                     "of fp16) runs past its storage of 10",
    "storage_entry_size": "archive/data/0 holds 22 bytes; its storage of 10 "
                          "HalfStorage needs 20",
    "npy": "an .npy file, not a torch.save file",
    "empty": "empty; a torch.save file is a zip archive",
    "double": "GLOBAL torch.DoubleStorage: a storage of a dtype kvgold does "
              "not read",
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_pt_refused(cli, tmp_path, kind):
    root = named_root(tmp_path)
    marker = str(tmp_path / "pwned")
    p = os.path.join(root, NAMED, "golden_0_float16.pt")
    bad_file(kind, p, marker)
    got = scan_named(cli, root)
    verdict, reason = got[NAMED]
    assert verdict == "NOT_JUDGED", got[NAMED]
    assert reason.startswith("unreadable: %s: " % p), reason
    assert REFUSED[kind] in reason, reason
    # the other calls are judged; nothing in the pickle ran
    assert got["ReshapeAndCache_layer1"] == ("PASS", "")
    assert got["KvRmsNormRopeCache_fp8"] == ("PASS", "")
    assert not os.path.exists(marker)


def test_pt_link_not_followed(cli, tmp_path):
    root = named_root(tmp_path)
    p = os.path.join(root, NAMED, "input_0_float16.pt")
    os.rename(p, str(tmp_path / "kept.pt"))
    os.symlink(str(tmp_path / "kept.pt"), p)
    verdict, reason = scan_named(cli, root)[NAMED]
    assert verdict == "NOT_JUDGED"
    assert reason == "unreadable: %s: is a symbolic link; kvgold does not " \
        "follow links inside a dump (scan its target, or copy it in)" % p


# ---- msprobe ------------------------------------------------------------------

def msprobe_root(tmp_path):
    step = sd.MsprobeStep(tmp_path / "dump", "pt")
    kv.msprobe(step, kv.case("m_pa_bf16_kt_ct_sym_out"))
    ulp = kv.case("m_norm_fp16_kt_ct_sym_noout")
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.msprobe(step, ulp)
    qkv.msprobe(step, qkv.case("bf16_k_int8_sym_v_plain"))
    spkc.msprobe(step, spkc.case("norm_fp16"))
    step.save()
    return str(tmp_path / "dump"), step.data_dir


MS = ["NPU.npu_kv_rmsnorm_rope_cache.0.forward",
      "NPU.npu_kv_rmsnorm_rope_cache.1.forward",
      "NPU.%s.0.forward" % qkv.TORCH, "NPU.%s.0.forward" % spkc.TORCH]


def test_msprobe_pt_in_c(cli, tmp_path):
    root, data = msprobe_root(tmp_path)
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    got = [(c["id"].split(":")[-1], c["verdict"]) for c in doc["calls"]]
    assert got == [(MS[0], "PASS"), (MS[1], "FAIL"), (MS[2], "PASS"),
                   (MS[3], "PASS")], doc["calls"]
    assert doc["calls"][1]["reason"].startswith("k_cache:")
    assert tree(root) == before


def test_msprobe_pt_refused(cli, tmp_path):
    # a dict (ops-test-kit's raw-byte payload too: msprobe never writes
    # it) and a non-contiguous view end their call NOT JUDGED
    root, data = msprobe_root(tmp_path)
    first = os.path.join(data, "%s.input.0.pt" % MS[0])
    t = torch.load(first, weights_only=True)
    torch.save({"ttk_raw_bytes": torch.zeros(2 * t.numel(),
                                             dtype=torch.uint8),
                "ttk_shape": tuple(t.shape)}, first)
    spk = os.path.join(data, "%s.output.0.pt" % MS[3])
    t = torch.load(spk, weights_only=True)
    torch.save(t.reshape(t.shape[0], -1).t(), spk)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    calls = {c["id"].split(":")[-1]: c for c in doc["calls"]}
    assert calls[MS[0]]["verdict"] == "NOT_JUDGED"
    assert calls[MS[0]]["reason"] == (
        "unreadable: %s: holds a dict (keys 'ttk_raw_bytes', 'ttk_shape'), "
        "not a tensor: kvgold reads a torch.save of one tensor" % first)
    assert calls[MS[3]]["verdict"] == "NOT_JUDGED"
    assert calls[MS[3]]["reason"].startswith(
        "unreadable: %s: the tensor is a non-contiguous view" % spk)
    assert calls[MS[2]]["verdict"] == "PASS"
