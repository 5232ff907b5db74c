"""kvgold scan over an ops-test-kit e2e case of QkvRmsNormRopeCache saved
as .pt (its writer, scan_writer.py beside this file): its bf16 and int8
tensors are read as their files say and the call passes (the reader's
other tests: tests/python/scan/test_scan_pt_c.py)."""
import os

import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

pytest.importorskip("torch")
from pt_files import judged, to_pt, tree, verdicts  # noqa: E402

qkv = sd.op("qkv")


def test_ttk_pt_bf16_and_int8(cli, tmp_path):
    root = str(tmp_path / "manual_pt")
    row = sd.write_ttk_e2e(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                           "qkv_bf16_int8", fmt="npy")
    to_pt(os.path.join(root, "qkv_bf16_int8"))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), [row])
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 0, err
    assert verdicts(doc) == {"qkv_bf16_int8": ("PASS", "")}
    assert {v[0] for v in judged(doc, "qkv_bf16_int8").values()} >= \
        {"bf16", "int8"}
    assert tree(root) == before
