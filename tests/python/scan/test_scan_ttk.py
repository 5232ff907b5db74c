"""kvgold scan over ops-test-kit case directories written by our own
writer (scan_dumps.py) from the protocol of its
docs/Offline_Data_Prepare_and_Import.md: honest cases pass, each planted
fault is found in its case and named; the attributes ops-test-kit keeps in
its CSV come from --attr."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

kv = sd.op("kv")
rac = sd.op("rac")


ATTRS = ["--standard", "single", "--attr", "epsilon=1e-05",
         "--attr", 'cache_mode="Norm"']


@pytest.fixture
def data(tmp_path):
    root = str(tmp_path / "manual_data")
    norm = "m_norm_fp16_kt_ct_sym_noout"
    kv.ttk(kv.case(norm), root,
              "KvRmsNormRopeCache_decode_0")
    rac.ttk(rac.case("nd_fp16"), root,
               "ReshapeAndCache_layer0")
    ulp = kv.case(norm)
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.ttk(ulp, root, "KvRmsNormRopeCache_decode_1")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.ttk(off, root, "ReshapeAndCache_layer1")
    kv.ttk(kv.case("m_norm_fp16_kt_ce4m3_sym_noout"),
              root, "KvRmsNormRopeCache_decode_2", drop=1)
    # .bin cases: ReshapeAndCache's shapes follow from its goldens and the
    # files' sizes (ND and the per-head mode); KvRmsNormRopeCache's do not
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_bin", fmt="bin")
    rac.ttk(rac.case("kvhead_bf16"), root, "ReshapeAndCache_kvhead_bin",
            fmt="bin")
    kv.ttk(kv.case(norm), root, "KvRmsNormRopeCache_bin", fmt="bin")
    return root


def test_ttk_cases(cli, data):
    rc, doc, err = sd.scan(cli, data, *ATTRS)
    assert rc == 1, err
    assert doc["format"] == "ttk"
    got = [(c["id"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [
        ("KvRmsNormRopeCache_bin", kv.OP, "NOT_JUDGED"),
        ("KvRmsNormRopeCache_decode_0", kv.OP, "PASS"),
        ("KvRmsNormRopeCache_decode_1", kv.OP, "FAIL"),
        ("KvRmsNormRopeCache_decode_2", kv.OP,
         "NOT_JUDGED"),
        ("ReshapeAndCache_bin", rac.OP, "PASS"),
        ("ReshapeAndCache_kvhead_bin", rac.OP, "PASS"),
        ("ReshapeAndCache_layer0", rac.OP, "PASS"),
        ("ReshapeAndCache_layer1", rac.OP, "FAIL")]
    calls = {c["id"]: c for c in doc["calls"]}
    assert calls["KvRmsNormRopeCache_decode_1"]["reason"].startswith(
        "k_cache:")
    assert calls["ReshapeAndCache_layer1"]["reason"].startswith("key_cache:")
    assert calls["KvRmsNormRopeCache_decode_2"]["reason"].startswith(
        "ckv_cache: missing: the dump has no post-call ckv_cache (golden_1)")
    assert "input_0_float16.bin: a .bin input records no shape" in \
        calls["KvRmsNormRopeCache_bin"]["reason"]


def test_ttk_attributes_matter(cli, data):
    # without the CSV's epsilon (1e-05) the golden uses kvgold's default
    # and the honest case is judged against another computation
    rc, doc, _ = sd.scan(cli, data, "--standard", "single",
                         "--attr", "epsilon=0.5", "--op",
                         kv.OP)
    first = [c for c in doc["calls"]
             if c["id"] == "KvRmsNormRopeCache_decode_0"][0]
    assert first["verdict"] == "FAIL"


def test_ttk_malformed_names_the_file(cli, data):
    d = os.path.join(data, "ReshapeAndCache_layer0")
    os.rename(os.path.join(d, "input_1_float16.npy"),
              os.path.join(d, "input_7_float16.npy"))
    rc, doc, _ = sd.scan(cli, data, *ATTRS)
    c = [c for c in doc["calls"] if c["id"] == "ReshapeAndCache_layer0"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "input slot 1 is missing" in c["reason"]
