"""kvgold scan over CANN dump files of ReshapeAndCache (written by its
writer, scan_writer.py beside this file): a launch on FRACTAL_NZ caches is
judged with the NZ layout, a token written one slot off fails naming
key_cache (the format's other tests are tests/python/scan/
test_scan_cann.py and test_scan_routes.py)."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

rac = sd.op("rac")


def test_cann_nz_layout_and_slot_off(cli, tmp_path):
    root = str(tmp_path / "dump" / "20260101" / "0" / "model" / "1" / "0")
    rac.cann(rac.case("nz_fp16"), root, "rac_3", 3)
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.cann(off, root, "rac_5", 5)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    got = [(c["api"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [("ReshapeAndCache", rac.OP, "PASS"),
                   ("ReshapeAndCache", rac.OP, "FAIL")]
    c = doc["calls"]
    assert c[0]["report"]["results"][0]["layout"]["kind"] == "nz"
    assert c[1]["reason"].startswith("key_cache:")
