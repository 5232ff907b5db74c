"""The kvgold command reads PyTorch .pt files itself (tools/lib/scan/
read_pt.c, issue 33): no torch, no conversion. The files here are written
by Debian's torch 1.13 (`torch.save`), or, for what that torch cannot
write (zip64, a byteorder entry, damaged and hostile files), assembled
from the zip specification and the pickle opcodes torch.save emits
(pt_files.py). Every operator's honest call passes, a planted fault fails
in its call, and every file the command must not read ends its call NOT
JUDGED naming the file and what is wrong, with nothing in a hostile
pickle run. What .pt files of one operator show (its dtypes bit for bit,
torch 2's float8 form) is tested in tests/ops/<op>/."""
import json
import os
import sys
import zipfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import scan_dumps as sd  # noqa: E402
from samples import case_doc, sample_case  # noqa: E402

torch = pytest.importorskip("torch")
np = sd.np
from pt_files import (entries_of, p_str, pt_files, tensor_pickle,  # noqa: E402
                      to_pt, tree, verdicts, write_zip)


# ---- ops-test-kit e2e: every operator ---------------------------------------

E2E = sd.every("E2E_API", "SAMPLE")


def e2e_root(tmp_path):
    """e2e .pt cases (torch_npu order, the CSV giving shapes and
    attributes): every operator's SAMPLE call, and the first one's with a
    planted fault. Returns the root, the CSV and the tensor planted in."""
    root = str(tmp_path / "manual_pt")
    rows = [sd.write_ttk_e2e(w, w.case(w.SAMPLE), root, w.ALIAS, fmt="npy")
            for w in E2E]
    bad = E2E[0].case(E2E[0].SAMPLE)
    planted = sd.plant_fault(bad)
    rows.append(sd.write_ttk_e2e(E2E[0], bad, root, E2E[0].ALIAS + "_bad",
                                 fmt="npy"))
    for r in rows:
        to_pt(os.path.join(root, r["testcase_name"]))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    return root, csv, planted


def test_ttk_pt_every_operator(cli, tmp_path):
    root, csv, planted = e2e_root(tmp_path)
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = verdicts(doc)
    want = {w.ALIAS: "PASS" for w in E2E}
    want[E2E[0].ALIAS + "_bad"] = "FAIL"
    assert {k: v[0] for k, v in got.items()} == want, got
    assert got[E2E[0].ALIAS + "_bad"][1].startswith(planted + ":"), got
    assert tree(root) == before  # nothing written, nothing converted


def test_ttk_pt_same_verdicts_as_python(cli, tmp_path):
    # the command's own reading and the Python side's conversion agree
    import kvgold
    root, csv, _ = e2e_root(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    py = kvgold.scan(root, "--csv", csv, "--standard", "single", cli=cli)
    assert [(c["id"], c["verdict"]) for c in doc["calls"]] == \
        [(c["id"], c["verdict"]) for c in py["calls"]]


# ---- what torch.save writes besides a plain tensor --------------------------

# the operators with an ops-test-kit manual form and an op type (a manual
# case's directory is named after its operator)
MANUAL = {w.OP: w for w in sd.every("ttk", "OP_TYPE")}


def _fits_named(doc):
    """an honest case of an operator with an ops-test-kit manual form,
    with fp16 inputs and fp16 expected tensors"""
    return (doc["op"] in MANUAL and "expect_error" not in doc and
            any(e["dtype"] == "fp16" for e in doc["inputs"].values()) and
            any(e["dtype"] == "fp16"
                for e in doc.get("expected", {}).values()))


CASE = sample_case(_fits_named)
W = MANUAL[case_doc(CASE)["op"]]
NAMED = W.OP_TYPE + "_layer0"
OTHER = W.OP_TYPE + "_layer1"
# its attributes, which a manual case does not record
ATTRS = ["--standard", "single"] + [
    a for k, v in case_doc(CASE).get("attrs", {}).items()
    for a in ("--attr", "%s=%s" % (k, json.dumps(v)))]


def named_root(tmp_path):
    """Two cases whose directory names say the operator, both of an fp16
    case of an operator with a manual form (samples.sample_case); the
    tests below replace the first one's files."""
    root = str(tmp_path / "manual_data")
    W.ttk(W.case(os.path.basename(CASE)), root, NAMED, fmt="pt")
    W.ttk(W.case(os.path.basename(CASE)), root, OTHER, fmt="pt")
    return root


def fp16_pt(d, kind):
    """The first .pt file of `kind` (input, golden) in case directory d
    that holds fp16."""
    return [p for p in pt_files(d, kind + "_")
            if p.endswith("_float16.pt")][0]


def scan_named(cli, root):
    rc, doc, err = sd.scan(cli, root, *ATTRS)
    assert doc is not None, err
    return verdicts(doc)


def test_pt_views_of_a_shared_storage(cli, tmp_path):
    # each tensor a view into a bigger storage at an offset, the bytes
    # around it junk: read from where the view starts
    root = named_root(tmp_path)
    d = os.path.join(root, NAMED)
    first = fp16_pt(d, "input")
    key = torch.load(first, weights_only=True)
    for p in pt_files(d):
        t = torch.load(p, weights_only=True).contiguous()
        flat = t.reshape(-1)
        big = torch.full((flat.numel() + 200,), 7, dtype=t.dtype)
        big[37:37 + flat.numel()] = flat
        torch.save(big[37:37 + flat.numel()].view(t.shape), p)
    # the storage holds all 200 more elements, and the view starts at 37
    z = dict(entries_of(first))
    data = [v for k, v in z.items() if "/data/" in k]
    assert len(data) == 1 and len(data[0]) == 2 * (200 + key.numel())
    got = scan_named(cli, root)
    assert got[NAMED] == ("PASS", ""), got[NAMED]
    # a fault in the view is found
    p = fp16_pt(d, "golden")
    t = torch.load(p, weights_only=True)
    base = torch.zeros(t.numel() + 64, dtype=t.dtype)
    base[64:] = t.reshape(-1)
    base[64 + 5] += 1
    torch.save(base[64:].view(t.shape), p)
    assert scan_named(cli, root)[NAMED][0] == "FAIL"


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
        torch.save({"tensor": t}, p)
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
# ({stem}: the victim's, golden_<i>_float16)
REFUSED = {
    "noncontiguous": "the tensor is a non-contiguous view (size (",
    "dict": "holds a dict (keys 'tensor'), not a tensor",
    "list": "{stem}/data.pkl: byte 2: opcode 0x5d (EMPTY_LIST): "
            "not one torch.save writes for a tensor",
    "evil_global": "archive/data.pkl: byte 2: GLOBAL os.system: not part of "
                   "a tensor's pickle; kvgold runs nothing from a pickle",
    "evil_object": "{stem}/data.pkl: byte 2: GLOBAL posix.system: "
                   "not part of a tensor's pickle",
    "truncated": "a zip archive without its end record",
    "compressed": "zip entry {stem}/data.pkl is compressed "
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
    p = fp16_pt(os.path.join(root, NAMED), "golden")
    bad_file(kind, p, marker)
    got = scan_named(cli, root)
    verdict, reason = got[NAMED]
    assert verdict == "NOT_JUDGED", got[NAMED]
    assert reason.startswith("unreadable: %s: " % p), reason
    stem = os.path.basename(p)[:-len(".pt")]
    assert REFUSED[kind].format(stem=stem) in reason, reason
    # the other call is judged; nothing in the pickle ran
    assert got[OTHER] == ("PASS", "")
    assert not os.path.exists(marker)


def test_pt_link_not_followed(cli, tmp_path):
    root = named_root(tmp_path)
    p = fp16_pt(os.path.join(root, NAMED), "input")
    os.rename(p, str(tmp_path / "kept.pt"))
    os.symlink(str(tmp_path / "kept.pt"), p)
    verdict, reason = scan_named(cli, root)[NAMED]
    assert verdict == "NOT_JUDGED"
    assert reason == "unreadable: %s: is a symbolic link; kvgold does not " \
        "follow links inside a dump (scan its target, or copy it in)" % p


# ---- msprobe ------------------------------------------------------------------

# every operator with an msprobe form; the first whose calls msprobe dumps
# with their outputs gets a planted fault
MSPROBE = sd.every("msprobe", "SAMPLE", "TORCH")
JUDGED = [w for w in MSPROBE if getattr(w, "MSPROBE_OUTPUTS", True)]
MS = ["NPU.%s.0.forward" % w.TORCH for w in MSPROBE] + [
    "NPU.%s.1.forward" % JUDGED[0].TORCH]
WANT_MS = ["PASS" if w in JUDGED else "NOT_JUDGED" for w in MSPROBE] + [
    "FAIL"]


def msprobe_root(tmp_path):
    step = sd.MsprobeStep(tmp_path / "dump", "pt")
    for w in MSPROBE:
        w.msprobe(step, w.case(w.SAMPLE))
    bad = JUDGED[0].case(JUDGED[0].SAMPLE)
    planted = sd.plant_fault(bad)
    JUDGED[0].msprobe(step, bad)
    step.save()
    return str(tmp_path / "dump"), step.data_dir, planted


def test_msprobe_pt_in_c(cli, tmp_path):
    root, data, planted = msprobe_root(tmp_path)
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    got = [(c["id"].split(":")[-1], c["verdict"]) for c in doc["calls"]]
    assert got == list(zip(MS, WANT_MS)), doc["calls"]
    assert doc["calls"][-1]["reason"].startswith(planted + ":")
    assert tree(root) == before


def test_msprobe_pt_refused(cli, tmp_path):
    # a dict (ops-test-kit's raw-byte payload too: msprobe never writes
    # it) and a non-contiguous view end their call NOT JUDGED; the other
    # calls keep their verdicts
    root, data, _ = msprobe_root(tmp_path)
    first = os.path.join(data, "%s.input.0.pt" % MS[0])
    t = torch.load(first, weights_only=True)
    torch.save({"ttk_raw_bytes": torch.zeros(2 * t.numel(),
                                             dtype=torch.uint8),
                "ttk_shape": tuple(t.shape)}, first)
    last = MSPROBE.index(JUDGED[-1])
    assert last != 0
    out = os.path.join(data, "%s.output.0.pt" % MS[last])
    t = torch.load(out, weights_only=True)
    assert t.dim() >= 2 and t.shape[0] > 1
    torch.save(t.reshape(t.shape[0], -1).t(), out)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    calls = {c["id"].split(":")[-1]: c for c in doc["calls"]}
    assert calls[MS[0]]["verdict"] == "NOT_JUDGED"
    assert calls[MS[0]]["reason"] == (
        "unreadable: %s: holds a dict (keys 'ttk_raw_bytes', 'ttk_shape'), "
        "not a tensor: kvgold reads a torch.save of one tensor" % first)
    assert calls[MS[last]]["verdict"] == "NOT_JUDGED"
    assert calls[MS[last]]["reason"].startswith(
        "unreadable: %s: the tensor is a non-contiguous view" % out)
    for i, (key, want) in enumerate(zip(MS, WANT_MS)):
        if i not in (0, last):
            assert calls[key]["verdict"] == want, calls[key]
