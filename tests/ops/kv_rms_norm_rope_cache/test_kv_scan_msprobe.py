"""kvgold scan over an msprobe dump of KvRmsNormRopeCache calls (written by
its writer, scan_writer.py beside this file; the format's generic tests
are tests/python/scan/test_scan_msprobe.py): 64 ulps in k_cache fail, a
token written one slot off in ckv_cache fails, a call dumped without its
fourth output is NOT JUDGED naming it."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

kv = sd.op("kv")
HONEST = "m_pa_bf16_kt_ct_sym_out"


def test_msprobe_faults_found(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    kv.msprobe(step, kv.case(HONEST))
    ulp = kv.case("m_norm_fp16_kt_ct_sym_noout")
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.msprobe(step, ulp)
    off = kv.case(HONEST)
    sd.plant_slot_off(off, cache="ckv_cache", slots="index")
    kv.msprobe(step, off)
    kv.msprobe(step, kv.case(HONEST), drop=3)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    got = [(c["id"].split(":")[-1], c["verdict"], c["reason"])
           for c in doc["calls"]]
    want = [("NPU.%s.0.forward" % kv.TORCH, "PASS", ""),
            ("NPU.%s.1.forward" % kv.TORCH, "FAIL", "k_cache:"),
            ("NPU.%s.2.forward" % kv.TORCH, "FAIL", "ckv_cache:"),
            ("NPU.%s.3.forward" % kv.TORCH, "NOT_JUDGED",
             "c_kv: missing: the dump has no post-call c_kv (output[3])")]
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want):
        assert g[2].startswith(w[2]), g
