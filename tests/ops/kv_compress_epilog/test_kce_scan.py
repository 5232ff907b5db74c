"""KvCompressEpilog in `kvgold scan`: each implementation's call as an
ops-test-kit e2e case of its own torch API (the cache kept as a golden)
passes when honest; a planted fault fails in its own field of the packed
row, the slot and group named; an msprobe record of the call with no
record reading its cache after it (no post-call cache) is NOT JUDGED.
Expected caches: the vectors' (the NumPy generator's); the fault offsets:
the ot mode 1 row of docs/kv_compress_epilog.md, [rope bf16 0..128 | nope
e4m3 128..640 | 8 e8m0 640..648], 648-byte rows, the last slot (7)
written."""
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


def test_msprobe_records_without_a_reader_are_not_judged(cli, tmp_path):
    """Each form is picked by its namespace, but with no record reading
    the cache after the write there is no post-call cache: NOT JUDGED
    naming it and what to dump (read-back: test_kce_scan_presets.py)."""
    step = sd.MsprobeStep(str(tmp_path))
    for name in ONE.values():
        W.msprobe_call(step, W.case(name))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc != 0 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [c["verdict"] for c in doc["calls"]] == \
        ["NOT_JUDGED"] * len(ONE)
    assert all(c["op"] == "kv_compress_epilog" for c in doc["calls"])
    assert all(c["reason"].startswith("cache: missing: the dump has no "
                                      "post-call cache") and
               "add the call that reads it" in c["reason"]
               for c in doc["calls"]), [c["reason"] for c in doc["calls"]]


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


CANN_IN = ("cache", "x", "slot_mapping")  # the kernel's inputs


def _cann(root, name, call, attrs, op_type="KvCompressEpilog"):
    ins = [call.inputs[n] for n in CANN_IN]
    sd.write_cann(root, op_type, name, ins, [call.post["cache"]],
                  attrs=attrs, task=1)


# ot's kernel attributes (kv_compress_epilog_def.cpp:45-48) of the ot
# vector case: quant_mode 1, group 64, round_scale true, x_scale 1
OT_ATTRS = [("quant_group_size", "64"), ("quant_mode", "1"),
            ("round_scale", "true"), ("x_scale", "1.0")]


def test_a_cann_dump_of_ots_kernel_is_judged(cli, tmp_path):
    """Op type KvCompressEpilog with ot's attributes (x_scale; none of
    cr's scale, sgk / va's layout or block_stride): judged as ot, the
    post-call cache being the dump's output (written slots pass; the
    untouched bytes NOT JUDGED, as CANN records the inputs after the
    kernel ran: sd.cann_honest); a planted scale byte FAILs in the scales
    field of the last slot."""
    c = W.case(ONE["ot"])
    _cann(str(tmp_path / "ok"), "kce0", c, OT_ATTRS)
    rc, doc, err = sd.scan(cli, str(tmp_path / "ok"))
    assert rc == 1, err
    sd.cann_honest(doc["calls"][0], W.case(ONE["ot"]), CANN_IN)
    assert doc["calls"][0]["op"] == W.OP
    c.post["cache"][1].reshape(-1)[LAST * ROW + 640] ^= 0x01
    _cann(str(tmp_path / "bad"), "kce1", c, OT_ATTRS)
    rc, doc, err = sd.scan(cli, str(tmp_path / "bad"))
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL", err
    fields = _fields(doc["calls"][0])
    assert [k for k, f in fields.items() if f["verdict"] != "PASS"] == \
        ["scales"]
    assert fields["scales"]["places"][0]["slot"] == LAST


def test_a_cann_dump_of_the_v2_kernel_is_judged(cli, tmp_path):
    """Op type KvCompressEpilogV2 (cann-recipes-infer's, the only one of
    that name): cr_v2, quant_mode 4 as the kernel's int; honest: written
    slots PASS, untouched bytes NOT JUDGED (sd.cann_honest); the generic
    fault FAIL."""
    c = W.case(ONE["cr_v2"])
    a = c.attrs
    attrs = [("quant_group_size", str(a["quant_group_size"])),
             ("quant_mode", str(a["quant_mode"])),
             ("round_scale", "true"), ("x_scale", "1.0")]
    _cann(str(tmp_path / "ok"), "v2", c, attrs, "KvCompressEpilogV2")
    rc, doc, err = sd.scan(cli, str(tmp_path / "ok"))
    assert rc == 1, err
    sd.cann_honest(doc["calls"][0], W.case(ONE["cr_v2"]), CANN_IN)
    sd.plant_fault(c)
    _cann(str(tmp_path / "bad"), "v2", c, attrs, "KvCompressEpilogV2")
    rc, doc, err = sd.scan(cli, str(tmp_path / "bad"))
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL", err


def test_a_kernel_dump_that_does_not_say_whose_is_not_judged(cli, tmp_path):
    """The op type KvCompressEpilog is ot's, cr's, sgk's and va's: a dump
    with no attributes, or with another implementation's (cr's scale), is
    NOT JUDGED saying so - never judged as ot, never another operator's;
    --attr impl="ot" judges the first as ot (its written slots pass, its
    untouched bytes NOT JUDGED: sd.cann_honest)."""
    c = W.case(ONE["ot"])
    _cann(str(tmp_path / "none"), "kce0", c, [])
    _cann(str(tmp_path / "cr"), "kce0", c, [("scale", "1.0")])
    for sub, words in (("none", '"ot, cr, sgk or va? --attr impl"'),
                       ("cr", '"cr/sgk/va, not ot? --attr impl"')):
        rc, doc, err = sd.scan(cli, str(tmp_path / sub))
        assert rc == 1 and doc["summary"]["other_calls"] == 0, err
        assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"]
        assert words in doc["calls"][0]["reason"], doc["calls"][0]
        assert "--attr impl" in doc["calls"][0]["reason"]
    rc, doc, err = sd.scan(cli, str(tmp_path / "none"), "--attr",
                           'impl="ot"')
    assert rc == 1 and doc["calls"][0]["op"] == W.OP, err
    sd.cann_honest(doc["calls"][0], c, CANN_IN)


def test_atb_dumps_are_not_judged(cli, tmp_path):
    """An ATB operation directory named KvCompressEpilogOperation: kvgold
    has no ATB form of the operator (no ATB operation of it is known), so
    it is listed NOT JUDGED naming it, never counted as another
    operator's call."""
    c = W.case(ONE["sgk"])
    ins = [c.inputs[n] for n in ("cache", "x", "slot_mapping")]
    sd.write_atb_op(str(tmp_path / "atb"), "0_KvCompressEpilogOperation",
                    ins, [c.post["cache"]])
    rc, doc, err = sd.scan(cli, str(tmp_path / "atb"))
    assert rc != 0 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"]
    assert "kv_compress_epilog" in doc["calls"][0]["reason"]


def test_the_torch_ops_spelling_is_judged(cli, tmp_path):
    """ops-test-kit's CSVs (and DeepSeek-V4) spell ot's API
    torch.ops.cann_ops_transformer.kv_compress_epilog, which ops-test-kit
    resolves through its TorchOpsPackageLoader: the same form as
    cann_ops_transformer.kv_compress_epilog, judged field by field."""
    root = str(tmp_path)
    c = W.case(ONE["ot"])
    rows = [W.e2e(c, root, "c0")]
    c = W.case(ONE["ot"])
    c.post["cache"][1].reshape(-1)[LAST * ROW + 133] ^= 0x01
    rows.append(W.e2e(c, root, "c1"))
    for row in rows:
        row["api_name"] = "torch.ops.cann_ops_transformer.kv_compress_epilog"
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 1 and doc["summary"]["other_calls"] == 0, err
    assert [c["verdict"] for c in doc["calls"]] == ["PASS", "FAIL"]
    fields = _fields(doc["calls"][1])
    assert [k for k, f in fields.items() if f["verdict"] != "PASS"] == \
        ["payload"]
