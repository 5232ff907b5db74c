"""ops-test-kit case directories prepared with --dump-format pt, written by
our own writer (scan_dumps.ttk_pt: torch.save of the tensor, or
ops-test-kit's raw-byte payload for a dtype this torch lacks), read by
the C command itself (read_pt.c) and by the Python kvgold.scan, which
converts them. Honest cases pass, each planted fault is found in its
case and named, and the dump is left as it was."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

torch = pytest.importorskip("torch")
import kvgold  # noqa: E402

kv = sd.op("kv")
qkv = sd.op("qkv")
rac = sd.op("rac")
spkc = sd.op("spkc")

NORM = "m_norm_fp16_kt_ct_sym_noout"
ATTRS = ["--standard", "single", "--attr", "epsilon=1e-05",
         "--attr", 'cache_mode="Norm"']


def named_cases(root):
    """Cases whose directory names say the operator (attributes from
    --attr): kv and ReshapeAndCache, in pt, with faults."""
    kv.ttk(kv.case(NORM), root, "KvRmsNormRopeCache_decode_0", fmt="pt")
    ulp = kv.case(NORM)
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.ttk(ulp, root, "KvRmsNormRopeCache_decode_1", fmt="pt")
    # an fp8 e4m3 cache: this torch has no float8, so ops-test-kit's
    # raw-byte payload; one output missing
    kv.ttk(kv.case("m_norm_fp16_kt_ce4m3_sym_noout"), root,
           "KvRmsNormRopeCache_decode_2", fmt="pt", drop=1)
    # the same, whole: the fp8 cache is judged from the raw payload
    kv.ttk(kv.case("m_norm_fp16_kt_ce4m3_sym_noout"), root,
           "KvRmsNormRopeCache_decode_3", fmt="pt")
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_layer0", fmt="pt")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.ttk(off, root, "ReshapeAndCache_layer1", fmt="pt")
    # a .bin case beside them is scanned as it is
    rac.ttk(rac.case("nd_fp16"), root, "ReshapeAndCache_bin", fmt="bin")


WANT = [
    ("KvRmsNormRopeCache_decode_0", kv.OP, "PASS", None),
    ("KvRmsNormRopeCache_decode_1", kv.OP, "FAIL", "k_cache:"),
    ("KvRmsNormRopeCache_decode_2", kv.OP, "NOT_JUDGED",
     "ckv_cache: missing: the dump has no post-call ckv_cache (golden_1)"),
    ("KvRmsNormRopeCache_decode_3", kv.OP, "PASS", None),
    ("ReshapeAndCache_bin", rac.OP, "PASS", None),
    ("ReshapeAndCache_layer0", rac.OP, "PASS", None),
    ("ReshapeAndCache_layer1", rac.OP, "FAIL", "key_cache:"),
]


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


def test_pt_in_c(cli, tmp_path):
    # the command alone judges them as the Python side does (read_pt.c;
    # the fp8 cache from ops-test-kit's raw-byte payload)
    root = str(tmp_path / "manual_data")
    named_cases(root)
    before = files(root)
    rc, doc, err = sd.scan(cli, root, *ATTRS)
    assert rc == 1, err
    check(doc, WANT)
    assert files(root) == before


def test_pt_through_python(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    named_cases(root)
    before = files(root)
    doc = kvgold.scan(root, *ATTRS, cli=cli)
    assert doc["format"] == "ttk"
    check(doc, WANT)
    fp8 = [c for c in doc["calls"]
           if c["id"] == "KvRmsNormRopeCache_decode_3"][0]["report"]
    judged = {r["name"]: (r["dtype"], r["verdict"]) for r in fp8["results"]}
    assert judged["ckv_cache"] == ("fp8_e4m3fn", "PASS")
    # the caller's paths, and the dump left as it was
    assert doc["path"] == root
    for c in doc["calls"]:
        assert c["where"] == os.path.join(root, c["id"])
    assert files(root) == before


def test_pt_across_file_systems(cli, tmp_path, monkeypatch):
    # no hard link possible (another file system): the .bin case's files
    # are copied, never linked symbolically (the command would refuse a
    # link inside the dump it is given), and read the same
    root = str(tmp_path / "manual_data")
    named_cases(root)

    def no_link(src, dst, **kwargs):
        raise OSError(18, "Invalid cross-device link")

    def no_symlink(src, dst, **kwargs):
        raise AssertionError("a symbolic link in the copy: %s" % dst)
    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(os, "symlink", no_symlink)
    doc = kvgold.scan(root, *ATTRS, cli=cli)
    check(doc, WANT)


def test_pt_one_case_directory(cli, tmp_path):
    # PATH a case directory itself: its name still says its operator
    root = str(tmp_path / "manual_data")
    named_cases(root)
    doc = kvgold.scan(os.path.join(root, "KvRmsNormRopeCache_decode_1"),
                      *ATTRS, cli=cli)
    assert [(c["op"], c["verdict"]) for c in doc["calls"]] == \
        [(kv.OP, "FAIL")]
    assert doc["calls"][0]["reason"].startswith("k_cache:")


def test_pt_e2e_with_csv(cli, tmp_path):
    # e2e cases (torch_npu slot order) in pt, shapes and attributes from
    # the CSV, bf16 and int8 tensors through torch's own dtypes
    root = str(tmp_path / "manual_data")
    rows = [sd.write_ttk_e2e(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                             "qkv_0", fmt="pt"),
            sd.write_ttk_e2e(spkc, spkc.case("norm_fp16"), root, "spkc_1",
                             fmt="pt")]
    bad = kv.case("m_pa_bf16_kt_ct_sym_out")
    sd.plant_slot_off(bad, cache="ckv_cache", slots="index")
    rows.append(sd.write_ttk_e2e(kv, bad, root, "kv_off_2", fmt="pt"))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    doc = kvgold.scan(root, "--csv", csv, "--standard", "single", cli=cli)
    check(doc, [("kv_off_2", kv.OP, "FAIL", "ckv_cache:"),
                ("qkv_0", qkv.OP, "PASS", None),
                ("spkc_1", spkc.OP, "PASS", None)])


def test_pt_not_a_tensor_names_the_file(cli, tmp_path):
    # an unreadable tensor file ends its call NOT JUDGED, as the command
    # treats one (docs/scan.md); the other calls are judged
    root = str(tmp_path / "manual_data")
    named_cases(root)
    bad = os.path.join(root, "ReshapeAndCache_layer0", "input_1_float16.pt")
    torch.save({"something": torch.ones(2)}, bad)
    doc = kvgold.scan(root, *ATTRS, cli=cli)
    want = [w if w[0] != "ReshapeAndCache_layer0" else
            (w[0], w[1], "NOT_JUDGED",
             "unreadable: %s: neither a tensor nor ops-test-kit's raw-byte "
             "payload" % bad) for w in WANT]
    check(doc, want)
    assert [c["reason"] for c in doc["calls"]
            if c["id"] == "ReshapeAndCache_layer0"] == [want[5][3]]
