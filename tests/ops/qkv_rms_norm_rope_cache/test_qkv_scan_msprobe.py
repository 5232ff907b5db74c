"""kvgold scan over an msprobe dump of QkvRmsNormRopeCache calls (written
by its writer, scan_writer.py beside this file; the format's generic
tests are tests/python/scan/test_scan_msprobe.py): an honest call passes,
64 ulps in q_out fail naming it."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

qkv = sd.op("qkv")


def test_msprobe_q_out_fault_found(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    qkv.msprobe(step, qkv.case("bf16_k_int8_sym_v_plain"))
    bad = qkv.case("fp16_kv_int8_asym")
    sd.plant_ulps(bad, "q_out", 64)
    qkv.msprobe(step, bad)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    got = [(c["id"].split(":")[-1], c["verdict"]) for c in doc["calls"]]
    assert got == [("NPU.%s.0.forward" % qkv.TORCH, "PASS"),
                   ("NPU.%s.1.forward" % qkv.TORCH, "FAIL")]
    assert doc["calls"][1]["reason"].startswith("q_out:")
