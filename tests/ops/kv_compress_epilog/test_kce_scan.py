"""KvCompressEpilog in `kvgold scan`: each implementation's call as an
ops-test-kit e2e case of its own torch API (the cache kept as a golden)
passes when honest; a planted fault fails in its own field of the packed
row, the slot and group named; an msprobe record of the call (no
post-call cache, a name four forms share) is listed NOT JUDGED. Expected
caches: the vectors' (the NumPy generator's); the fault offsets: the ot
mode 1 row of docs/kv_compress_epilog.md, [rope bf16 0..128 | nope e4m3
128..640 | 8 e8m0 640..648], 648-byte rows, the last slot (7) written."""
import os

import numpy as np

import scan_dumps as sd

W = sd.op("kce")
ONE = {"ot": "ot_m1_e8m0_d576_int32", "sgk": "sgk_m2_mxfp8_g64_l1",
       "va": "va_m2_mxfp8_g64_l1", "cr": "cr_m2_mxfp8_d576",
       "cr_v2": "crv2_m4_mxfp4_g16_l1"}
ROW, LAST = 648, 7
VA_WIDE = "va_m1_fp8_e5m2_d256_wide_int64"


def _scan(cli, tmp_path, calls, fmt="bin"):
    root = str(tmp_path)
    rows = [W.e2e(c, root, "c%d" % i, fmt) for i, c in enumerate(calls)]
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert doc is not None, err
    return rc, doc


def _fields(call):
    rows = call["report"]["results"][0]["rows"]
    return {f["kind"]: f for f in rows["fields"]}


def test_each_implementation_passes_honest(cli, tmp_path):
    calls = [W.case(n) for n in ONE.values()]
    assert all(np.any(c.post["cache"][1] != 0) for c in calls)
    rc, doc = _scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS"
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"] * len(ONE)
    assert all(c["op"] == W.OP for c in doc["calls"])


def test_every_case_passes_in_every_file_format(cli, tmp_path):
    """Every vector case (va's block_stride 512 one aside: its API passes
    no block stride) as .bin, .npy and .pt e2e cases."""
    names = sorted(n for n in os.listdir(os.path.join(sd.VECTORS, W.OP))
                   if not n.startswith("error") and n != VA_WIDE)
    for fmt in ("bin", "npy", "pt"):
        rc, doc = _scan(cli, tmp_path / fmt, [W.case(n) for n in names],
                        fmt)
        assert rc == 0, [(c["id"], c["reason"]) for c in doc["calls"]
                         if c["verdict"] != "PASS"]
        assert doc["summary"]["passed"] == len(names)


def test_a_form_without_block_stride_is_not_judged(cli, tmp_path):
    """va's case names block_stride 512, which
    torch.ops._C_ascend.kv_compress_epilog has no argument for: the row
    of 512 B is refused for the 384 B va row, NOT JUDGED (not FAIL)."""
    rc, doc = _scan(cli, tmp_path, [W.case(VA_WIDE)])
    assert rc != 0 and doc["calls"][0]["verdict"] == "NOT_JUDGED"
    assert "384" in doc["calls"][0]["reason"]


def test_each_planted_fault_fails_its_own_field(cli, tmp_path):
    base = LAST * ROW
    for i, (byte, kind, words) in enumerate((
            (base + 640, "scales", "slot 7: scale of group 0 of nope"),
            (base + 133, "payload", "slot 7: nope code 5 of group 0"),
            (base + 3, "pass-through", "slot 7: rope element 1"))):
        c = W.case(ONE["ot"])
        c.post["cache"][1].reshape(-1)[byte] ^= 0x01
        rc, doc = _scan(cli, tmp_path / str(i), [c])
        assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL", kind
        fields = _fields(doc["calls"][0])
        assert [k for k, f in fields.items() if f["verdict"] != "PASS"] \
            == [kind]
        assert fields[kind]["places"][0]["slot"] == LAST
        assert words in doc["calls"][0]["report"]["results"][0]["reason"]


def test_a_fault_in_any_implementation_fails(cli, tmp_path):
    """The generic fault (second-highest bit of the first written byte)
    in each implementation's cache: FAIL, in a named slot's field."""
    for impl, name in ONE.items():
        c = W.case(name)
        sd.plant_fault(c)
        rc, doc = _scan(cli, tmp_path / impl, [c])
        assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL", impl
        bad = [f for f in _fields(doc["calls"][0]).values()
               if f["verdict"] != "PASS"]
        assert len(bad) == 1 and bad[0]["places"], impl
        assert "slot" in bad[0]["places"][0], impl


def test_msprobe_records_are_not_judged(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path))
    for name in ONE.values():
        W.msprobe_call(step, W.case(name))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc != 0 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [c["verdict"] for c in doc["calls"]] == \
        ["NOT_JUDGED"] * len(ONE)
    assert all("kv_compress_epilog" in c["reason"] for c in doc["calls"])


def test_a_pad_byte_fails_on_pad(cli, tmp_path):
    """sgk mode 2 layout 1, g 64 (docs/kv_compress_epilog.md): [rope 128 |
    e4m3 512 | 8 E8M0 | pad 0 to 768 B]; a byte of the last slot's pad."""
    c = W.case(ONE["sgk"])
    flat = c.post["cache"][1].reshape(-1)
    last = flat.size // 768 - 1
    assert flat[last * 768 + 700] == 0  # the pad is written as zero
    flat[last * 768 + 700] = 0x5A
    rc, doc = _scan(cli, tmp_path, [c])
    assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL"
    fields = _fields(doc["calls"][0])
    assert [k for k, f in fields.items() if f["verdict"] != "PASS"] == \
        ["pad"]
    assert fields["pad"]["places"][0]["slot"] == last


def test_kernel_dumps_are_not_judged(cli, tmp_path):
    """A CANN dump file of op type KvCompressEpilog (ops-transformer's
    aclnn kernel) and an ATB operation directory of that name: kvgold has
    no kernel or ATB form of the operator, so each is listed NOT JUDGED
    naming it, never counted as another operator's call."""
    c = W.case(ONE["sgk"])
    ins = [c.inputs[n] for n in ("cache", "x", "slot_mapping")]
    sd.write_cann(str(tmp_path / "cann"), "KvCompressEpilog", "kce0", ins,
                  [c.post["cache"]], task=1)
    sd.write_atb_op(str(tmp_path / "atb"), "0_KvCompressEpilogOperation",
                    ins, [c.post["cache"]])
    for fmt in ("cann", "atb"):
        rc, doc, err = sd.scan(cli, str(tmp_path / fmt))
        assert rc != 0 and doc["verdict"] != "PASS", err
        assert doc["summary"]["other_calls"] == 0, fmt
        assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"]
        assert "kv_compress_epilog" in doc["calls"][0]["reason"]


def test_an_api_name_kvgold_has_no_form_of_is_not_judged(cli, tmp_path):
    """ops-test-kit resolves torch.ops.cann_ops_transformer.<op> too (its
    TorchOpsPackageLoader imports that package first); kvgold binds the
    ot form as cann_ops_transformer.kv_compress_epilog only, so a row of
    the other spelling is NOT JUDGED, not another operator's call."""
    root = str(tmp_path)
    row = W.e2e(W.case(ONE["ot"]), root, "c0")
    row["api_name"] = "torch.ops.cann_ops_transformer.kv_compress_epilog"
    csv = W.write_csv(str(tmp_path / "cases.csv"), [row])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc != 0 and doc["summary"]["other_calls"] == 0, err
    assert [c["verdict"] for c in doc["calls"]] == ["NOT_JUDGED"]
    assert "names operator kv_compress_epilog" in doc["calls"][0]["reason"]
