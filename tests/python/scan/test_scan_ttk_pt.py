"""ops-test-kit case directories prepared with --dump-format pt, written by
our own writer (scan_dumps.ttk_pt: torch.save of the tensor, or
ops-test-kit's raw-byte payload for a dtype this torch lacks), read by
the C command itself (read_pt.c) and by the Python kvgold.scan, which
converts them: for every operator whose writer has a manual form, its
honest SAMPLE case passes, a planted fault is found in its case and
named, and the dump is left as it was. Each operator's own .pt cases
(fp8 payloads, faults of its kind) are in tests/ops/<op>/."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

torch = pytest.importorskip("torch")
import kvgold  # noqa: E402

MANUAL = sd.every("ttk", "OP_TYPE", "SAMPLE")
E2E = sd.every("E2E_API", "SAMPLE")
IDS = [w.ALIAS for w in MANUAL]


def named_cases(root, w):
    """Writer w's SAMPLE case in pt, honest and with a planted fault, in
    directories named after the operator; returns the case's --attr
    arguments (a manual case records none) and the expected calls."""
    call = w.case(w.SAMPLE)
    w.ttk(call, root, w.OP_TYPE + "_0", fmt="pt")
    bad = w.case(w.SAMPLE)
    planted = sd.plant_fault(bad)
    w.ttk(bad, root, w.OP_TYPE + "_1", fmt="pt")
    want = [(w.OP_TYPE + "_0", w.OP, "PASS", None),
            (w.OP_TYPE + "_1", w.OP, "FAIL", planted + ":")]
    return ["--standard", "single"] + sd.attr_args(call), want


def check(doc, want):
    got = [(c["id"], c["op"], c["verdict"], c["reason"])
           for c in doc["calls"]]
    assert [g[:3] for g in got] == [w[:3] for w in want], got
    for g, w in zip(got, want):
        if w[3] is not None:
            assert g[3].startswith(w[3]), g


def files(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


@pytest.mark.parametrize("w", MANUAL, ids=IDS)
def test_pt_in_c(cli, tmp_path, w):
    # the command alone judges them (read_pt.c)
    root = str(tmp_path / "manual_data")
    attrs, want = named_cases(root, w)
    before = files(root)
    rc, doc, err = sd.scan(cli, root, *attrs)
    assert rc == 1, err
    check(doc, want)
    assert files(root) == before


@pytest.mark.parametrize("w", MANUAL, ids=IDS)
def test_pt_through_python(cli, tmp_path, w):
    root = str(tmp_path / "manual_data")
    attrs, want = named_cases(root, w)
    before = files(root)
    doc = kvgold.scan(root, *attrs, cli=cli)
    assert doc["format"] == "ttk"
    check(doc, want)
    # the caller's paths, and the dump left as it was
    assert doc["path"] == root
    for c in doc["calls"]:
        assert c["where"] == os.path.join(root, c["id"])
    assert files(root) == before


def test_pt_across_file_systems(cli, tmp_path, monkeypatch):
    # no hard link possible (another file system): a .bin case's files
    # are copied, never linked symbolically (the command would refuse a
    # link inside the dump it is given), and read the same as the command
    # reads them in place
    w = MANUAL[0]
    root = str(tmp_path / "manual_data")
    attrs, _ = named_cases(root, w)
    w.ttk(w.case(w.SAMPLE), root, w.OP_TYPE + "_bin", fmt="bin")
    rc, in_c, err = sd.scan(cli, root, *attrs)
    assert len(in_c["calls"]) == 3, err

    def no_link(src, dst, **kwargs):
        raise OSError(18, "Invalid cross-device link")

    def no_symlink(src, dst, **kwargs):
        raise AssertionError("a symbolic link in the copy: %s" % dst)
    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "symlink", no_symlink)
    doc = kvgold.scan(root, *attrs, cli=cli)
    assert [(c["id"], c["verdict"], c["reason"]) for c in doc["calls"]] == \
        [(c["id"], c["verdict"], c["reason"]) for c in in_c["calls"]]


def test_pt_one_case_directory(cli, tmp_path):
    # PATH a case directory itself: its name still says its operator
    w = MANUAL[0]
    root = str(tmp_path / "manual_data")
    attrs, want = named_cases(root, w)
    doc = kvgold.scan(os.path.join(root, w.OP_TYPE + "_1"), *attrs,
                      cli=cli)
    assert [(c["op"], c["verdict"]) for c in doc["calls"]] == \
        [(w.OP, "FAIL")]
    assert doc["calls"][0]["reason"].startswith(want[1][3])


def test_pt_e2e_with_csv(cli, tmp_path):
    # e2e cases (torch_npu slot order) in pt, shapes and attributes from
    # the CSV, every operator's SAMPLE and the first one's with a fault
    root = str(tmp_path / "manual_data")
    rows = [sd.write_ttk_e2e(w, w.case(w.SAMPLE), root, w.ALIAS + "_0",
                             fmt="pt") for w in E2E]
    bad = E2E[0].case(E2E[0].SAMPLE)
    planted = sd.plant_fault(bad)
    rows.append(sd.write_ttk_e2e(E2E[0], bad, root, E2E[0].ALIAS + "_1",
                                 fmt="pt"))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    doc = kvgold.scan(root, "--csv", csv, "--standard", "single", cli=cli)
    want = sorted([(w.ALIAS + "_0", w.OP, "PASS", None) for w in E2E] +
                  [(E2E[0].ALIAS + "_1", E2E[0].OP, "FAIL", planted + ":")])
    check(doc, want)


def test_pt_not_a_tensor_names_the_file(cli, tmp_path):
    # an unreadable tensor file ends its call NOT JUDGED, as the command
    # treats one (docs/scan.md); the other calls are judged
    w = MANUAL[0]
    root = str(tmp_path / "manual_data")
    attrs, want = named_cases(root, w)
    d = os.path.join(root, w.OP_TYPE + "_0")
    bad = [os.path.join(d, n) for n in sorted(os.listdir(d))
           if n.startswith("input_0_")][0]
    torch.save({"something": torch.ones(2)}, bad)
    doc = kvgold.scan(root, *attrs, cli=cli)
    reason = ("unreadable: %s: neither a tensor nor ops-test-kit's raw-byte "
              "payload" % bad)
    check(doc, [(want[0][0], w.OP, "NOT_JUDGED", reason)] + want[1:])
    assert doc["calls"][0]["reason"] == reason
