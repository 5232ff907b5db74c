"""kvgold scan --csv over .bin ops-test-kit e2e cases of ReshapeAndCache
(its writer, scan_writer.py beside this file; the format's generic tests
are tests/python/scan/test_scan_ttk_csv.py): an honest case passes, a
token one slot off fails naming key_cache; kvgold prepare's row of it is
read back, and a golden byte changed in its key_cache (golden_1, after
the None the API returns) fails."""
import os

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py
from prepared import check_prepared

rac = sd.op("rac")


def test_e2e_csv_cases(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rows = [sd.write_ttk_e2e(rac, rac.case("nd_fp16"), root, "rac_0"),
            sd.write_ttk_e2e(rac, off, root, "rac_off_1")]
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: c for c in doc["calls"]}
    assert {k: (c["op"], c["verdict"]) for k, c in got.items()} == {
        "rac_0": (rac.OP, "PASS"), "rac_off_1": (rac.OP, "FAIL")}
    assert got["rac_off_1"]["reason"].startswith("key_cache:")
    assert got["rac_0"]["api"] == rac.E2E_API


def test_prepare_csv_key_cache_golden(cli, tmp_path):
    out, csv, rows = check_prepared(cli, tmp_path, [(rac, "nd_fp16")])
    # (golden_1 of _npu_reshape_and_cache: key_cache after its None)
    d = os.path.join(out, "nd_fp16")
    g = os.path.join(d, [n for n in os.listdir(d)
                         if n.startswith("golden_1_")][0])
    data = bytearray(open(g, "rb").read())
    data[-1] ^= 0x40
    open(g, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    got = {c["id"]: c for c in doc["calls"]}
    assert got["nd_fp16"]["verdict"] == "FAIL"
    assert got["nd_fp16"]["reason"].startswith("key_cache:")
    assert rc == 1
