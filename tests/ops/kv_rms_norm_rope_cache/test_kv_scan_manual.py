"""kvgold scan over ops-test-kit manual case directories of
KvRmsNormRopeCache (its writer, scan_writer.py beside this file; the
format's generic tests are tests/python/scan/test_scan_ttk.py): 64 ulps in
k_cache fail, a case without its second golden is NOT JUDGED naming
ckv_cache, a .bin case is NOT JUDGED (its inputs record no shape, and
unlike a copy's they do not follow from the goldens), and the attributes
given by --attr matter."""
import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

kv = sd.op("kv")
NORM = "m_norm_fp16_kt_ct_sym_noout"
ATTRS = ["--standard", "single", "--attr", "epsilon=1e-05",
         "--attr", 'cache_mode="Norm"']


@pytest.fixture
def data(tmp_path):
    root = str(tmp_path / "manual_data")
    kv.ttk(kv.case(NORM), root, "KvRmsNormRopeCache_decode_0")
    ulp = kv.case(NORM)
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.ttk(ulp, root, "KvRmsNormRopeCache_decode_1")
    kv.ttk(kv.case("m_norm_fp16_kt_ce4m3_sym_noout"),
           root, "KvRmsNormRopeCache_decode_2", drop=1)
    kv.ttk(kv.case(NORM), root, "KvRmsNormRopeCache_bin", fmt="bin")
    return root


def test_ttk_cases(cli, data):
    rc, doc, err = sd.scan(cli, data, *ATTRS)
    assert rc == 1, err
    got = [(c["id"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [
        ("KvRmsNormRopeCache_bin", kv.OP, "NOT_JUDGED"),
        ("KvRmsNormRopeCache_decode_0", kv.OP, "PASS"),
        ("KvRmsNormRopeCache_decode_1", kv.OP, "FAIL"),
        ("KvRmsNormRopeCache_decode_2", kv.OP, "NOT_JUDGED")]
    calls = {c["id"]: c for c in doc["calls"]}
    assert calls["KvRmsNormRopeCache_decode_1"]["reason"].startswith(
        "k_cache:")
    assert calls["KvRmsNormRopeCache_decode_2"]["reason"].startswith(
        "ckv_cache: missing: the dump has no post-call ckv_cache (golden_1)")
    assert "input_0_float16.bin: a .bin input records no shape" in \
        calls["KvRmsNormRopeCache_bin"]["reason"]


def test_ttk_attributes_matter(cli, data):
    # without the CSV's epsilon (1e-05) the golden uses another, and the
    # honest case is judged against another computation
    rc, doc, _ = sd.scan(cli, data, "--standard", "single",
                         "--attr", "epsilon=0.5", "--op", kv.OP)
    first = [c for c in doc["calls"]
             if c["id"] == "KvRmsNormRopeCache_decode_0"][0]
    assert first["verdict"] == "FAIL"
