"""kvgold scan over ops-test-kit e2e cases of ScatterPaKvCache saved as
.pt (its writer, scan_writer.py beside this file; the CSV gives shapes and
attributes): its copy-only caches of fp16, fp32, int16, uint8 and uint16
(torch 1.13 has no uint16: ops-test-kit's raw-byte payload) and int64
slots are read as their files say and judged bit for bit; a cache byte
the kernel did not write and a token one slot off fail (the reader's
other tests: tests/python/scan/test_scan_pt_c.py)."""
import os

import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

torch = pytest.importorskip("torch")
np = sd.np
from pt_files import judged, to_pt, tree, verdicts  # noqa: E402

spkc = sd.op("spkc")


def e2e_root(tmp_path):
    """e2e .pt cases of every copy-only dtype, and two planted faults."""
    root = str(tmp_path / "manual_pt")
    rows = []
    for name, case in (("spkc_fp16", "norm_fp16"),
                       ("spkc_fp32", "norm_fp32"),
                       ("spkc_int16", "norm_int16"),
                       ("spkc_uint8", "norm_uint8"),
                       ("spkc_int64_slots", "norm_fp16_int64_slots")):
        rows.append(sd.write_ttk_e2e(spkc, spkc.case(case), root, name,
                                     fmt="npy"))
    # one uint8 cache byte the kernel did not write: copy-only dtypes are
    # judged bit for bit
    bad = spkc.case("norm_uint8")
    post = bad.post["key_cache"][1].reshape(-1)
    post[np.nonzero(post != bad.inputs["key_cache"][1].reshape(-1))[0][0]] ^= 1
    rows.append(sd.write_ttk_e2e(spkc, bad, root, "spkc_uint8_bad",
                                 fmt="npy"))
    bad = spkc.case("norm_fp32")
    sd.plant_slot_off(bad)
    rows.append(sd.write_ttk_e2e(spkc, bad, root, "spkc_fp32_off",
                                 fmt="npy"))
    for r in rows:
        to_pt(os.path.join(root, r["testcase_name"]))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    return root, csv


def test_ttk_pt_dtypes_bit_for_bit(cli, tmp_path):
    root, csv = e2e_root(tmp_path)
    before = tree(root)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = verdicts(doc)
    assert {k: v[0] for k, v in got.items()} == {
        "spkc_fp16": "PASS", "spkc_fp32": "PASS",
        "spkc_fp32_off": "FAIL", "spkc_int16": "PASS",
        "spkc_int64_slots": "PASS", "spkc_uint8": "PASS",
        "spkc_uint8_bad": "FAIL"}, got
    assert got["spkc_uint8_bad"][1].startswith("key_cache:")
    assert got["spkc_fp32_off"][1].startswith("key_cache:")
    # the dtypes the files were read as
    for case, dt in (("spkc_fp16", "fp16"), ("spkc_fp32", "fp32"),
                     ("spkc_int16", "int16"), ("spkc_uint8", "uint8"),
                     ("spkc_int64_slots", "fp16")):
        assert judged(doc, case) == {"key_cache": (dt, "PASS"),
                                     "value_cache": (dt, "PASS")}, case
    assert tree(root) == before  # nothing written, nothing converted


def test_ttk_pt_raw_payload_of_a_two_byte_dtype(cli, tmp_path):
    # torch 1.13 has no uint16: ops-test-kit saves its raw-byte payload,
    # read as the file name's dtype
    root = str(tmp_path / "manual_pt")
    call = spkc.case("norm_uint16")
    row = sd.write_ttk_e2e(spkc, call, root, "spkc_uint16", fmt="npy")
    d = os.path.join(root, "spkc_uint16")
    to_pt(d)
    assert isinstance(torch.load(os.path.join(d, "input_0_uint16.pt"),
                                 weights_only=True), dict)
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), [row])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 0, (err, doc and doc["calls"])
    assert judged(doc, "spkc_uint16") == {
        "key_cache": ("uint16", "PASS"), "value_cache": ("uint16", "PASS")}
