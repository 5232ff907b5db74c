"""kvgold scan over an msprobe dump of torch_npu._npu_reshape_and_cache
(written by its writer, scan_writer.py beside this file; the format's
generic tests are tests/python/scan/test_scan_msprobe.py): the call
returns None, so the dump holds no post-call cache and the call is NOT
JUDGED naming the first one, never passed."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

rac = sd.op("rac")


def test_msprobe_no_outputs_not_judged(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    rac.msprobe(step, rac.case("nd_fp16"))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    c = doc["calls"]
    assert [(x["id"].split(":")[-1], x["verdict"]) for x in c] == [
        ("NPU.%s.0.forward" % rac.TORCH, "NOT_JUDGED")]
    assert c[0]["reason"].startswith(
        "key_cache: missing: the dump has no post-call key_cache "
        "(output[0])"), c[0]["reason"]
