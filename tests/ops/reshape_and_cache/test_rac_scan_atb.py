"""kvgold scan over ATB dumps of ReshapeAndCache (written by its writer,
scan_writer.py beside this file): tensor files that carry the irName of
each tensor, as ATB names them since 2026-05; its modes, layouts and
faults in one step (the format's other tests are
tests/python/scan/test_scan_atb.py and test_scan_routes.py)."""
import os

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py
from scan_dumps import reconciles

rac = sd.op("rac")


def test_atb_irname_files(cli, tmp_path):
    """ATB names tensor files intensor{i}_{irName}.bin since 2026-05
    (store_util.cpp); both calls are judged, the faulty one fails."""
    root = str(tmp_path / "atb")
    rac.atb(rac.case("nd_fp16"), root, "0_ReshapeAndCacheOperation")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.atb(off, root, "1_ReshapeAndCacheOperation")
    irnames = ["key", "value", "keyCache", "valueCache", "slotMapping"]
    for op in os.listdir(root):
        for side, stem in (("before", "intensor"), ("after", "outtensor")):
            d = os.path.join(root, op, side)
            for n in os.listdir(d):
                i = int(n[len(stem):-4])
                os.rename(os.path.join(d, n), os.path.join(
                    d, "%s%d_%s.bin" % (stem, i, irnames[i % 5])))
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    assert [c["verdict"] for c in doc["calls"]] == ["PASS", "FAIL"]
    reconciles(doc, 2)


def test_atb_modes_layouts_and_faults(cli, tmp_path):
    """Calls of the operator in one ATB step (from tests/python/scan/
    test_scan_atb.py's step): NZ caches judged with the NZ layout, a token
    one slot off fails in key_cache (its own slot kept the old row, the
    next slot got the token), 3 ulps in value_cache of a call whose key
    and value dims differ fail, a KVHEAD call without its post-call
    value_cache is NOT JUDGED naming the file, and a KVHEAD_ROPE call is
    mapped as such (its mean token computed)."""
    root = str(tmp_path / "atb_dump" / "1234" / "0")
    rac.atb(rac.case("nz_fp16"), root, "2_ReshapeAndCacheOperation")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.atb(off, root, "3_ReshapeAndCacheOperation")
    ulp = rac.case("nd_bf16_dk_ne_dv")
    sd.plant_ulps(ulp, "value_cache", 3)
    rac.atb(ulp, root, "5_ReshapeAndCacheOperation")
    rac.atb(rac.case("kvhead_fp16"), root, "6_ReshapeAndCacheOperation",
            drop_out=1)
    rac.atb(rac.case("kvhead_rope_random_fp16"), root,
            "10_ReshapeAndCacheOperation")
    rc, doc, err = sd.scan(cli, str(tmp_path / "atb_dump"), "--jobs", "1")
    assert rc == 1, err
    want = [("1234/0/2_ReshapeAndCacheOperation", "PASS", None),
            ("1234/0/3_ReshapeAndCacheOperation", "FAIL", "key_cache"),
            ("1234/0/5_ReshapeAndCacheOperation", "FAIL", "value_cache"),
            ("1234/0/6_ReshapeAndCacheOperation", "NOT_JUDGED",
             "value_cache: missing: the dump has no post-call value_cache "
             "(after/outtensor1.bin)"),
            ("1234/0/10_ReshapeAndCacheOperation", "PASS", None)]
    got = [(c["id"], c["verdict"], c["reason"]) for c in doc["calls"]]
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want):
        if w[2] is not None:
            assert g[2].startswith(w[2]), g
    assert {c["op"] for c in doc["calls"]} == {rac.OP}
    nz = doc["calls"][0]["report"]["results"][0]["layout"]
    assert nz["kind"] == "nz"
    off = doc["calls"][1]["report"]["results"][0]
    assert off["verdict"] == "FAIL" and off["name"] == "key_cache"
    assert off["bits_differ"] > 0 and off["untouched_changed"] > 0
    rope = doc["calls"][4]["report"]["results"]
    assert {t["name"]: t["role"] for t in rope} == {
        "key_cache": "compute", "value_cache": "compute"}
