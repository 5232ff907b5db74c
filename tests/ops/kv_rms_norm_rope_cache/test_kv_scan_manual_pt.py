"""ops-test-kit case directories of KvRmsNormRopeCache prepared with
--dump-format pt (its writer, scan_writer.py beside this file; the
format's generic tests are tests/python/scan/test_scan_ttk_pt.py): an fp8
e4m3 cache, which this torch cannot hold, saved as ops-test-kit's
raw-byte payload is judged from it by the command and through Python; a
case without its second golden is NOT JUDGED naming ckv_cache; 64 ulps in
k_cache fail; an e2e case with a token one slot off in ckv_cache fails."""
import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

pytest.importorskip("torch")
import kvgold  # noqa: E402

kv = sd.op("kv")
NORM = "m_norm_fp16_kt_ct_sym_noout"
FP8 = "m_norm_fp16_kt_ce4m3_sym_noout"
ATTRS = ["--standard", "single", "--attr", "epsilon=1e-05",
         "--attr", 'cache_mode="Norm"']
WANT = [("KvRmsNormRopeCache_decode_0", "PASS", ""),
        ("KvRmsNormRopeCache_decode_1", "FAIL", "k_cache:"),
        ("KvRmsNormRopeCache_decode_2", "NOT_JUDGED",
         "ckv_cache: missing: the dump has no post-call ckv_cache "
         "(golden_1)"),
        ("KvRmsNormRopeCache_decode_3", "PASS", "")]


def named_cases(root):
    kv.ttk(kv.case(NORM), root, "KvRmsNormRopeCache_decode_0", fmt="pt")
    ulp = kv.case(NORM)
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.ttk(ulp, root, "KvRmsNormRopeCache_decode_1", fmt="pt")
    # an fp8 e4m3 cache: this torch has no float8, so ops-test-kit's
    # raw-byte payload; one output missing
    kv.ttk(kv.case(FP8), root, "KvRmsNormRopeCache_decode_2", fmt="pt",
           drop=1)
    # the same, whole: the fp8 cache is judged from the raw payload
    kv.ttk(kv.case(FP8), root, "KvRmsNormRopeCache_decode_3", fmt="pt")


def check(doc):
    got = [(c["id"], c["verdict"], c["reason"]) for c in doc["calls"]]
    assert [g[:2] for g in got] == [w[:2] for w in WANT], got
    for g, w in zip(got, WANT):
        assert g[2].startswith(w[2]), g
    assert {c["op"] for c in doc["calls"]} == {kv.OP}


def test_pt_in_c_and_through_python(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    named_cases(root)
    rc, doc, err = sd.scan(cli, root, *ATTRS)
    assert rc == 1, err
    check(doc)
    doc = kvgold.scan(root, *ATTRS, cli=cli)
    check(doc)
    fp8 = [c for c in doc["calls"]
           if c["id"] == "KvRmsNormRopeCache_decode_3"][0]["report"]
    judged = {r["name"]: (r["dtype"], r["verdict"]) for r in fp8["results"]}
    assert judged["ckv_cache"] == ("fp8_e4m3fn", "PASS")


def test_pt_e2e_token_off(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    bad = kv.case("m_pa_bf16_kt_ct_sym_out")
    sd.plant_slot_off(bad, cache="ckv_cache", slots="index")
    rows = [sd.write_ttk_e2e(kv, bad, root, "kv_off_2", fmt="pt")]
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    doc = kvgold.scan(root, "--csv", csv, "--standard", "single", cli=cli)
    assert [(c["id"], c["verdict"]) for c in doc["calls"]] == [
        ("kv_off_2", "FAIL")]
    assert doc["calls"][0]["reason"].startswith("ckv_cache:")
