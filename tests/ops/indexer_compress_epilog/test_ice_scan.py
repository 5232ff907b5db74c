"""The indexer compress epilogs in `kvgold scan`: calls as ops-test-kit
e2e cases of their torch APIs (the caches kept as goldens) pass when
honest, and a planted fault fails in its own field of its own tensor: a
scale of a written slot, a code, a byte of a slot no token writes, and
(va_v2) a byte of a block's tail that no slot owns. Expected caches: the
vectors' (the NumPy generator's); the offsets from the cases' comments:
cr_m1_e4m3_bf16 cache [12, 512] e4m3, cache_scale [12, 4] fp32, slots 7,
1, 3, 11, 0, 4, 5 written (2 is not); va_v2_wide_fp16 cache uint8 [4, 2,
1, 280], a block 560 bytes (2 x 256 codes, then 2 x 8 scale bytes at 512,
bytes 528..559 never written), slots 5, 1, 7, 0, 2 written."""
import numpy as np

import scan_dumps as sd

W = sd.op("ice")
HONEST = ["cr_m0_ebump_e4m3", "cr_m0_trunc", "cr_m1_e4m3_bf16",
          "cr_m1_e5m2_fp16", "cr_m2_hif8", "va_v2_bf16", "va_v2_wide_fp16"]


def _scan(cli, tmp_path, calls, fmt="bin"):
    root = str(tmp_path)
    rows = [W.e2e(c, root, "c%d" % i, fmt) for i, c in enumerate(calls)]
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert doc is not None, err
    return rc, doc


def _fields(call, tensor):
    for r in call["report"]["results"]:
        if r["name"] == tensor:
            return {f["kind"]: f for f in r["rows"]["fields"]}
    raise AssertionError("no result for %s" % tensor)


def test_honest_calls_pass(cli, tmp_path):
    calls = [W.case(n) for n in HONEST]
    rc, doc = _scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]]
    assert all(c["op"] == W.OP for c in doc["calls"])
    assert doc["summary"]["passed"] == len(HONEST)


def _planted(cli, tmp_path, case, tensor, flat, xor):
    call = W.case(case)
    tag, arr = call.post[tensor]
    bad = np.array(arr, copy=True)
    bad.reshape(-1).view(np.uint8)[flat] ^= xor
    call.post[tensor] = (tag, bad)
    rc, doc = _scan(cli, tmp_path, [call])
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
    return doc["calls"][0]


def test_cr_scale_fails_as_a_scale(cli, tmp_path):
    """slot 11's fp32 scale of group 0: cache_scale byte 11 * 16."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache_scale", 176, 1)
    f = _fields(c, "cache_scale")
    assert f["scales"]["verdict"] == "FAIL"
    assert f["untouched"]["verdict"] == "PASS"
    assert _fields(c, "cache")["payload"]["verdict"] == "PASS"


def test_cr_code_fails_as_payload(cli, tmp_path):
    """slot 11's code 0: cache byte 11 * 512."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache", 5632, 4)
    assert _fields(c, "cache")["payload"]["verdict"] == "FAIL"
    assert _fields(c, "cache_scale")["scales"]["verdict"] == "PASS"


def test_cr_unwritten_slot_fails_as_untouched(cli, tmp_path):
    """slot 2 is not written: its scale bytes keep their contents."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache_scale", 32, 1)
    f = _fields(c, "cache_scale")
    assert f["untouched"]["verdict"] == "FAIL"
    assert f["scales"]["verdict"] == "PASS"


def test_va_v2_fields(cli, tmp_path):
    """slot 7 = block 3, position 1: scale of group 1 at 3 * 560 + 512 + 8
    + 4, code 3 at 3 * 560 + 256 + 3; block 3's tail byte 3 * 560 + 528."""
    for flat, kind in ((2204, "scales"), (1939, "payload"),
                       (2208, "untouched")):
        c = _planted(cli, tmp_path / str(flat), "va_v2_wide_fp16", "cache",
                     flat, 1)
        f = _fields(c, "cache")
        assert f[kind]["verdict"] == "FAIL", (kind, f)
        assert all(v["verdict"] == "PASS" for k, v in f.items()
                   if k != kind and "verdict" in v), (kind, f)
