"""kvgold scan over ops-test-kit case directories written by our own
writer (scan_dumps.py) from the protocol of its
docs/Offline_Data_Prepare_and_Import.md, for every operator whose writer
has such a form (a case directory is named after its operator, OP_TYPE):
an honest case passes, a planted fault is found in its case and named; the
attributes ops-test-kit keeps in its CSV come from --attr; a missing input
slot is named. Each operator's own manual-data tests are in
tests/ops/<op>/."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

MANUAL = sd.every("ttk", "OP_TYPE", "SAMPLE")


def manual_data(root, w):
    """Writer w's SAMPLE case, honest and with a planted fault; returns
    the tensor planted in and the --attr arguments of the case."""
    call = w.case(w.SAMPLE)
    w.ttk(call, root, w.OP_TYPE + "_0")
    bad = w.case(w.SAMPLE)
    planted = sd.plant_fault(bad)
    w.ttk(bad, root, w.OP_TYPE + "_1")
    return planted, ["--standard", "single"] + sd.attr_args(call)


@pytest.mark.parametrize("w", MANUAL, ids=[w.ALIAS for w in MANUAL])
def test_ttk_cases(cli, tmp_path, w):
    root = str(tmp_path / "manual_data")
    planted, attrs = manual_data(root, w)
    rc, doc, err = sd.scan(cli, root, *attrs)
    assert rc == 1, err
    assert doc["format"] == "ttk"
    got = [(c["id"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [(w.OP_TYPE + "_0", w.OP, "PASS"),
                   (w.OP_TYPE + "_1", w.OP, "FAIL")]
    assert doc["calls"][1]["reason"].startswith(planted + ":")


def test_ttk_malformed_names_the_file(cli, tmp_path):
    w = MANUAL[0]
    root = str(tmp_path / "manual_data")
    _, attrs = manual_data(root, w)
    d = os.path.join(root, w.OP_TYPE + "_0")
    one = [n for n in os.listdir(d) if n.startswith("input_0_")]
    assert len(one) == 1
    os.rename(os.path.join(d, one[0]),
              os.path.join(d, "input_7_" + one[0][len("input_0_"):]))
    rc, doc, _ = sd.scan(cli, root, *attrs)
    c = [c for c in doc["calls"] if c["id"] == w.OP_TYPE + "_0"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "input slot 0 is missing" in c["reason"]
