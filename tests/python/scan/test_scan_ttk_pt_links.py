"""ops-test-kit .pt cases whose device outputs (output_<i>_*.pt) cannot be
read - a symbolic link, a file torch cannot load, a FIFO - through the
Python kvgold.scan. The rule of docs/scan.md: no link inside a dump is
followed, an unreadable tensor file ends its call NOT JUDGED naming it,
and a device output that could not be converted is never replaced by
ops-test-kit's golden. Each damaged case holds honest goldens, so a
converter that dropped its outputs would make the scan judge the goldens
and PASS; the same faulty outputs as plain files FAIL."""
import os
import pickle
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

torch = pytest.importorskip("torch")
import kvgold  # noqa: E402

# some operator's manual case (the first writer with that form), its
# directories named after the operator, its attributes given as --attr
W = sd.first("ttk", "OP_TYPE", "SAMPLE")
ARGS = ["--standard", "single"] + sd.attr_args(W.case(W.SAMPLE))
LINK = ("%s: is a symbolic link; kvgold does not follow links inside a "
        "dump (scan its target, or copy it in)")
PLANTED = sd.plant_fault(W.case(W.SAMPLE))  # the tensor faulty() changes


def honest():
    return W.case(W.SAMPLE)


def faulty():
    """The SAMPLE call with a fault planted (sd.plant_fault)."""
    c = W.case(W.SAMPLE)
    sd.plant_fault(c)
    return c


def n(tag):
    """The case directory named `tag`, after the operator."""
    return "%s_%s" % (W.OP_TYPE, tag)


def case(root, name, outputs=None):
    """A .pt case: the honest goldens ops-test-kit prepared, and the
    device's outputs of `outputs` (a call) as output_<i>_<dtype>.pt (the
    goldens the writer makes of that call)."""
    d = W.ttk(honest(), root, name, fmt="pt")
    if outputs is not None:
        side = W.ttk(outputs, root + ".outputs", name, fmt="pt")
        for g in sorted(os.listdir(side)):
            if g.startswith("golden_"):
                os.rename(os.path.join(side, g),
                          os.path.join(d, "output_" + g[len("golden_"):]))
    return d


def out_file(d, i):
    """The device output i of case d (named as its golden i)."""
    g = [x for x in os.listdir(d) if x.startswith("golden_%d_" % i)]
    assert len(g) == 1, (d, i)
    return os.path.join(d, "output_" + g[0][len("golden_"):])


def scan(root, cli):
    doc = kvgold.scan(root, *ARGS, cli=cli)
    return {c["id"]: (c["verdict"], c["reason"]) for c in doc["calls"]}, doc


def snapshot(root):
    """Every entry of the dump: a link's target, a file's bytes."""
    out = {}
    for d, dirs, names in os.walk(root):
        for n in names + dirs:
            p = os.path.join(d, n)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[p] = ("file", f.read())
    return out


def test_linked_outputs_are_not_judged(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    device = str(tmp_path / "device")
    case(root, n("honest"), honest())
    case(root, n("plain"), faulty())
    # the same faulty outputs, kept elsewhere and linked into the case
    case(device, n("kept"), faulty())
    linked = case(root, n("linked"))
    for i in range(2):
        os.symlink(out_file(os.path.join(device, n("kept")), i),
                   out_file(linked, i))
    # only the second output a link, to an honest file: still not read
    one = case(root, n("one_linked"), honest())
    os.rename(out_file(one, 1), str(tmp_path / "honest_1.pt"))
    os.symlink(str(tmp_path / "honest_1.pt"), out_file(one, 1))
    # a link leading nowhere
    gone = case(root, n("dangling"))
    honest_out = case(str(tmp_path / "side"), n("dangling"), honest())
    os.rename(out_file(honest_out, 0), out_file(gone, 0))
    os.symlink(str(tmp_path / "nothing.pt"), out_file(gone, 1))
    before = snapshot(root)

    got, doc = scan(root, cli)
    assert got[n("honest")] == ("PASS", "")
    assert got[n("plain")][0] == "FAIL"
    assert got[n("plain")][1].startswith(PLANTED + ":")
    assert got[n("linked")] == (
        "NOT_JUDGED", "unreadable: " + LINK % out_file(linked, 0))
    assert got[n("one_linked")] == (
        "NOT_JUDGED", "unreadable: " + LINK % out_file(one, 1))
    assert got[n("dangling")] == (
        "NOT_JUDGED", "unreadable: " + LINK % out_file(gone, 1))
    assert doc["summary"]["calls"] == 5
    assert doc["summary"]["not_judged"] == 3
    assert doc["verdict"] == "FAIL"
    assert snapshot(root) == before


@pytest.mark.parametrize("kind,words", [
    ("junk", "not a file torch.save writes (it starts with b'not a te'"),
    ("empty", "an empty file (only a *_none marker is empty)"),
    ("pickle", "a Python pickle, not a torch.save of tensors "
               "(UnpicklingError: "),
    ("npy", "an .npy file, not one torch.save writes"),
    ("set", "a torch.save file of something other than tensors, or "
            "damaged (UnpicklingError: Unsupported class __builtin__.set)"),
    ("truncated", "a torch.save file of something other than tensors, or "
                  "damaged (RuntimeError: PytorchStreamReader failed"),
    ("dict", "neither a tensor nor ops-test-kit's raw-byte payload"),
])
def test_unloadable_output_is_not_judged(cli, tmp_path, kind, words):
    root = str(tmp_path / "manual_data")
    case(root, n("honest"), honest())
    d = case(root, n("bad"), faulty())
    bad = out_file(d, 0)
    good = torch.load(bad)
    assert good.count_nonzero() > 0
    if kind == "junk":
        data = b"not a tensor at all\n"
    elif kind == "empty":
        data = b""
    elif kind == "pickle":
        data = pickle.dumps({"t": [1.0, 2.0]})
    elif kind == "npy":
        sd.np.save(bad, good.float().numpy())
        os.rename(bad + ".npy", bad)
    elif kind in ("set", "dict"):
        torch.save({1, 2} if kind == "set" else {"t": good}, bad)
    else:
        with open(bad, "rb") as f:
            data = f.read()[:100]
    if kind in ("junk", "empty", "pickle", "truncated"):
        with open(bad, "wb") as f:
            f.write(data)
    got, doc = scan(root, cli)
    assert got[n("honest")] == ("PASS", "")
    verdict, reason = got[n("bad")]
    assert verdict == "NOT_JUDGED"
    assert reason.startswith("unreadable: %s: %s" % (bad, words)), reason
    assert doc["verdict"] == "INCOMPLETE"


def test_fifo_output_is_not_opened(cli, tmp_path):
    # a FIFO is not read (reading it would wait for a writer forever)
    root = str(tmp_path / "manual_data")
    d = case(root, n("fifo"), faulty())
    os.unlink(out_file(d, 1))
    os.mkfifo(out_file(d, 1))
    got, _ = scan(root, cli)
    assert got[n("fifo")] == (
        "NOT_JUDGED", "unreadable: %s: is not a regular file"
        % out_file(d, 1))


def test_linked_input_is_not_judged(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    d = case(root, n("0"), honest())
    key = [os.path.join(d, x) for x in sorted(os.listdir(d))
           if x.startswith("input_0_")][0]
    os.rename(key, str(tmp_path / "key.pt"))
    os.symlink(str(tmp_path / "key.pt"), key)
    got, _ = scan(root, cli)
    assert got[n("0")] == ("NOT_JUDGED",
                                        "unreadable: " + LINK % key)


def test_linked_case_directory_is_listed(cli, tmp_path):
    # a case directory that is a link is not followed either: the scan
    # lists it, as the command does for the same dump in npy
    got = {}
    for fmt in ("npy", "pt"):
        root = str(tmp_path / fmt / "manual_data")
        case_dir = W.ttk(honest(), root, n("0"), fmt=fmt)
        moved = str(tmp_path / fmt / n("1"))
        os.rename(W.ttk(faulty(), root, n("1"), fmt=fmt), moved)
        os.symlink(moved, os.path.join(root, n("1")))
        assert os.path.isdir(case_dir)
        doc = kvgold.scan(root, *ARGS, cli=cli)
        got[fmt] = [(c["id"], c["verdict"],
                     c["reason"].replace(root, "ROOT"))
                    for c in doc["calls"]]
    assert got["pt"] == got["npy"]
    assert [g[1] for g in got["pt"]] == ["PASS", "NOT_JUDGED"]
    assert got["pt"][1][2] == "unreadable: " + LINK % ("ROOT/" + n("1"))


def test_path_named_may_be_a_link(cli, tmp_path):
    # the PATH given is followed (only links below it are not); the
    # document names it as given
    root = str(tmp_path / "manual_data")
    case(root, n("honest"), honest())
    case(root, n("plain"), faulty())
    named = str(tmp_path / "named")
    os.symlink(root, named)
    got, doc = scan(named, cli)
    assert {k: v[0] for k, v in got.items()} == {
        n("honest"): "PASS", n("plain"): "FAIL"}
    assert doc["path"] == named
    assert {c["where"] for c in doc["calls"]} == {
        os.path.join(named, n("honest")),
        os.path.join(named, n("plain"))}
