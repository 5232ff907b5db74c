"""kvgold scan over ops-test-kit manual case directories of
ReshapeAndCache (its writer, scan_writer.py beside this file; the format's
generic tests are tests/python/scan/test_scan_ttk.py): a token one slot
off fails naming key_cache; .bin cases pass, their shapes following from
the goldens and the files' sizes (ND and the per-head mode); a missing
input slot is named."""
import os

import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

rac = sd.op("rac")


@pytest.fixture
def data(tmp_path):
    root = str(tmp_path / "manual_data")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_layer0")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.ttk(off, root, "ReshapeAndCache_layer1")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_bin", fmt="bin")
    rac.ttk(rac.case("kvhead_bf16"), root, "ReshapeAndCache_kvhead_bin",
            fmt="bin")
    return root


def test_ttk_cases(cli, data):
    rc, doc, err = sd.scan(cli, data, "--standard", "single")
    assert rc == 1, err
    got = [(c["id"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [
        ("ReshapeAndCache_bin", rac.OP, "PASS"),
        ("ReshapeAndCache_kvhead_bin", rac.OP, "PASS"),
        ("ReshapeAndCache_layer0", rac.OP, "PASS"),
        ("ReshapeAndCache_layer1", rac.OP, "FAIL")]
    calls = {c["id"]: c for c in doc["calls"]}
    assert calls["ReshapeAndCache_layer1"]["reason"].startswith("key_cache:")


def test_ttk_malformed_names_the_file(cli, data):
    d = os.path.join(data, "ReshapeAndCache_layer0")
    os.rename(os.path.join(d, "input_1_float16.npy"),
              os.path.join(d, "input_7_float16.npy"))
    rc, doc, _ = sd.scan(cli, data, "--standard", "single")
    c = [c for c in doc["calls"] if c["id"] == "ReshapeAndCache_layer0"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "input slot 1 is missing" in c["reason"]


def test_ttk_pt_cases_beside_a_bin_one(cli, tmp_path):
    """The same cases with --dump-format pt (torch.save), read by the
    command itself: a .bin case beside them is scanned as it is."""
    pytest.importorskip("torch")
    root = str(tmp_path / "manual_data")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_layer0", fmt="pt")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.ttk(off, root, "ReshapeAndCache_layer1", fmt="pt")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_bin", fmt="bin")
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    got = [(c["id"], c["verdict"]) for c in doc["calls"]]
    assert got == [("ReshapeAndCache_bin", "PASS"),
                   ("ReshapeAndCache_layer0", "PASS"),
                   ("ReshapeAndCache_layer1", "FAIL")]
    assert doc["calls"][2]["reason"].startswith("key_cache:")
