"""kvgold scan over an ATB dump of ReshapeAndCache (written by its writer,
scan_writer.py beside this file) whose tensor files carry the irName of
each tensor, as ATB names them since 2026-05 (the format's other tests
are tests/python/scan/test_scan_atb.py and test_scan_routes.py)."""
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
