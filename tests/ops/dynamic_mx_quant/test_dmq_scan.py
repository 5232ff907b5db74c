"""DynamicMxQuant in `kvgold scan`: a torch_npu call as msprobe dumps it -
y (fp4 pairs) and mxscale (E8M0) as torch.uint8 tensors of their bytes,
dst_type as torch_npu's number - judged as the golden's dtypes: an honest
NPU passes, one scale code off fails on mxscale alone, one fp4 code off on
y alone. Expected: the vectors' outputs (the NumPy generator's)."""
import numpy as np

import scan_dumps as sd

W = sd.op("dmq")
FP4 = ["fp4_rint_bf16_last_odd", "fp4_rint_bf16_axis0_interleave",
       "fp4_floor_fp16_axis1_rank3"]


def _dump(root, calls, ext="npy"):
    step = sd.MsprobeStep(str(root), ext)
    for c in calls:
        W.msprobe(step, c)
    step.save()


def _verdicts(doc):
    return [c["verdict"] for c in doc["calls"]]


def _tensors(doc):
    """{output: (dtype judged as, verdict)} of the one call."""
    return {r["name"]: (r["dtype"], r["verdict"])
            for r in doc["calls"][0]["report"]["results"]}


def test_uint8_outputs_are_judged_as_fp4_and_e8m0(cli, tmp_path):
    for ext in ("npy", "pt"):
        root = tmp_path / ext
        _dump(root, [W.case(n) for n in FP4], ext)
        rc, doc, err = sd.scan(cli, str(root))
        assert rc == 0, err
        assert _verdicts(doc) == ["PASS"] * len(FP4)


def _faulty(name, tensor, flip):
    c = W.case(name)
    tag, arr = c.post[tensor]
    arr = arr.copy()
    arr.reshape(-1)[0] ^= flip
    c.post[tensor] = (tag, arr)
    return c


def test_a_scale_one_code_off_fails_on_mxscale(cli, tmp_path):
    _dump(tmp_path, [_faulty(FP4[0], "mxscale", 0x01)])
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc != 0 and _verdicts(doc) == ["FAIL"], err
    got = _tensors(doc)
    assert got == {"mxscale": ("e8m0", "FAIL"), "y": ("fp4_e2m1", "PASS")}


def test_one_fp4_code_off_fails_on_y(cli, tmp_path):
    _dump(tmp_path, [_faulty(FP4[0], "y", 0x10)])  # the high nibble
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc != 0 and _verdicts(doc) == ["FAIL"], err
    got = _tensors(doc)
    assert got == {"y": ("fp4_e2m1", "FAIL"), "mxscale": ("e8m0", "PASS")}
    assert np.any(W.case(FP4[0]).post["y"][1] != 0)  # not all-zero data


def test_outputs_are_dumped_as_uint8():
    """The writer dumps what torch_npu returns, not the case's tags."""
    c = W.case(FP4[0])
    assert {n: t[0] for n, t in c.post.items()} == {"y": "uint8",
                                                    "mxscale": "uint8"}


def _dtype_call(root, call, dst_type):
    """The call as msprobe records it with dst_type as the JSON given
    (a torch.dtype: msprobe's {} or str(dtype)'s spelling)."""
    step = sd.MsprobeStep(str(root))
    key = W.msprobe(step, call)
    step.data[key]["input_kwargs"]["dst_type"] = dst_type
    step.save()


def test_dst_type_as_a_torch_dtype(cli, tmp_path):
    """vllm-ascend passes dst_type=torch.float8_e4m3fn (vllm-ascend
    @182b75ea vllm_ascend/attention/dsa_v1.py:1084). msprobe records a
    torch.dtype under that keyword as {} (Ascend-mstt@99c2e0f9
    msprobe/core/data_dump/data_processor/pytorch_processor.py:390-409):
    dst_type is then y's dumped dtype, float8_e4m3fn, and the call is
    judged (PASS honest, one mxscale code off FAILs on mxscale);
    {"type": "torch.dtype", "value": "torch.float8_e4m3fn"} likewise. An
    fp4 call recorded as {} has a uint8 y, fp4_e2m1 or fp4_e1m2 codes:
    NOT JUDGED naming dst_type, never judged as a guess."""
    name = "saturate_fp8_e4m3fn_fp32"
    assert W.case(name).post["y"][0] == "fp8_e4m3fn"
    spellings = {"msprobe": {},
                 "str": {"type": "torch.dtype",
                         "value": "torch.float8_e4m3fn"}}
    for sp, dst in spellings.items():
        _dtype_call(tmp_path / sp / "ok", W.case(name), dst)
        rc, doc, err = sd.scan(cli, str(tmp_path / sp / "ok"))
        assert rc == 0 and _verdicts(doc) == ["PASS"], (sp, err, doc)
        _dtype_call(tmp_path / sp / "bad", _faulty(name, "mxscale", 0x01),
                    dst)
        rc, doc, err = sd.scan(cli, str(tmp_path / sp / "bad"))
        assert rc == 1 and _verdicts(doc) == ["FAIL"], (sp, err)
        assert _tensors(doc)["mxscale"] == ("e8m0", "FAIL")
        assert _tensors(doc)["y"] == ("fp8_e4m3fn", "PASS")
    _dtype_call(tmp_path / "fp4", W.case(FP4[0]), {})
    rc, doc, err = sd.scan(cli, str(tmp_path / "fp4"))
    assert rc == 1 and _verdicts(doc) == ["NOT_JUDGED"], err
    assert "--attr dst_type" in doc["calls"][0]["reason"]


def test_dst_type_as_a_float8_scalar_type(cli, tmp_path):
    """Today's torch_npu maps at::ScalarType Float8_e5m2 (23) /
    Float8_e4m3fn (24) to ACL_FLOAT8_E5M2 / E4M3FN (Ascend/pytorch
    @9e73e708 torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73): a
    call recorded with 23 / 24 is judged as 291 / 292 (PASS honest, one
    mxscale code off FAILs on mxscale); Float8_e4m3fnuz (26), which
    torch_npu maps to no ACL type, is NOT JUDGED naming dst_type."""
    for name, number, tag in (("saturate_fp8_e5m2_bf16", 23, "fp8_e5m2"),
                              ("saturate_fp8_e4m3fn_fp32", 24,
                               "fp8_e4m3fn")):
        assert W.case(name).post["y"][0] == tag
        number = {"type": "int", "value": number}  # as msprobe writes it
        _dtype_call(tmp_path / name / "ok", W.case(name), number)
        rc, doc, err = sd.scan(cli, str(tmp_path / name / "ok"))
        assert rc == 0 and _verdicts(doc) == ["PASS"], (name, err)
        _dtype_call(tmp_path / name / "bad",
                    _faulty(name, "mxscale", 0x01), number)
        rc, doc, err = sd.scan(cli, str(tmp_path / name / "bad"))
        assert rc == 1 and _verdicts(doc) == ["FAIL"], (name, err)
        assert _tensors(doc) == {"mxscale": ("e8m0", "FAIL"),
                                 "y": (tag, "PASS")}
    _dtype_call(tmp_path / "fnuz", W.case("saturate_fp8_e4m3fn_fp32"),
                {"type": "int", "value": 26})
    rc, doc, err = sd.scan(cli, str(tmp_path / "fnuz"))
    assert rc == 1 and _verdicts(doc) == ["NOT_JUDGED"], err
    assert "dst_type" in doc["calls"][0]["reason"]


def test_dst_type_as_a_bare_number_is_refused(cli, tmp_path):
    """msprobe writes every argument as {"type", "value"} (or {} for what
    it does not encode; Ascend-mstt@99c2e0f9 msprobe/core/data_dump/
    data_processor/base.py:198-218): a bare 999 is no record of its. It
    must not be read as "recorded without a value" - dst_type would then
    be taken from y's dumped dtype and the call PASS - but refused, the
    argument named."""
    _dtype_call(tmp_path / "bare", W.case("saturate_fp8_e4m3fn_fp32"), 999)
    rc, doc, err = sd.scan(cli, str(tmp_path / "bare"))
    assert rc != 0 and "PASS" not in _verdicts(doc), (err, doc)
    assert "a bare JSON value" in err + str(doc), (err, doc)


def _ttk_fp4(root, calls, fmt="bin"):
    """The calls as ops-test-kit e2e cases whose y golden is a
    float4_e2m1 array, as ops-test-kit saves one (scan_dumps.write_ttk_fp4:
    .bin the pack_4bits bytes, its name's shape in codes, x's; .npy the
    codes one a byte, a void of width 1; .pt the raw-byte payload of the
    codes flattened, ttk_shape in codes), and their CSV."""
    rows = [sd.write_ttk_e2e(W, c, str(root), "dmq%d" % i, fmt)
            for i, c in enumerate(calls)]
    return sd.write_ttk_csv(str(root / "cases.csv"), rows)


def test_a_float4_e2m1_golden_of_ops_test_kit_is_judged(cli, tmp_path):
    """y saved as ops-test-kit's float4_e2m1 (codes, x's shape [.., n]) in
    .bin, .npy and .pt is read as kvgold's pairs [.., n/2] (the .npy /
    .pt codes packed in a copy, code 2k in the low nibble): honest PASS;
    the high nibble of y's first byte (code 1) changed FAILs on y alone;
    an .npy / .pt code byte above 0x0F is refused naming the file and the
    code's index, NOT JUDGED."""
    for fmt in ("bin", "npy", "pt"):
        calls = [sd.Call(W.OP, n) for n in FP4]
        assert all(c.post["y"][0] == "fp4_e2m1" for c in calls)
        ok = tmp_path / fmt / "ok"
        csv = _ttk_fp4(ok, calls, fmt)
        rc, doc, err = sd.scan(cli, str(ok), "--csv", csv)
        assert rc == 0 and _verdicts(doc) == ["PASS"] * len(FP4), (err, [
            c["reason"] for c in doc["calls"]])
        assert all(r["dtype"] == "fp4_e2m1" for c in doc["calls"]
                   for r in c["report"]["results"] if r["name"] == "y")
        bad = sd.Call(W.OP, FP4[0])
        tag, y = bad.post["y"]
        y = y.copy()
        y.reshape(-1)[0] ^= 0x10
        bad.post["y"] = (tag, y)
        csv = _ttk_fp4(tmp_path / fmt / "bad", [bad], fmt)
        rc, doc, err = sd.scan(cli, str(tmp_path / fmt / "bad"), "--csv",
                               csv)
        assert rc == 1 and _verdicts(doc) == ["FAIL"], err
        assert _tensors(doc) == {"y": ("fp4_e2m1", "FAIL"),
                                 "mxscale": ("e8m0", "PASS")}
    for fmt in ("npy", "pt"):
        root = tmp_path / fmt / "high"
        csv = _ttk_fp4(root, [sd.Call(W.OP, FP4[0])], fmt)
        path = root / "dmq0" / ("golden_0_float4_e2m1." + fmt)
        if fmt == "npy":
            codes = np.load(str(path)).view(np.uint8)
            assert codes.reshape(-1)[5] <= 0x0F
            codes.reshape(-1)[5] |= 0x80
            np.save(str(path), codes.view(np.dtype("V1")))
        else:
            import torch
            payload = torch.load(str(path))
            payload["ttk_raw_bytes"][5] |= 0x80
            torch.save(payload, str(path))
        rc, doc, err = sd.scan(cli, str(root), "--csv", csv)
        assert rc == 1 and _verdicts(doc) == ["NOT_JUDGED"], err
        reason = doc["calls"][0]["reason"]
        assert "golden_0_float4_e2m1.%s: code 5 is 0x8" % fmt in reason, \
            reason
    # a torch 4-bit tensor (what a torch with float4_e2m1fn_x2 saves:
    # pack_4bits' bytes flattened to 1-D, here as uint8) has lost its
    # shape: NOT JUDGED, saying so
    import torch
    root = tmp_path / "pt" / "tensor"
    csv = _ttk_fp4(root, [sd.Call(W.OP, FP4[0])], "pt")
    y = sd.Call(W.OP, FP4[0]).post["y"][1]
    torch.save(torch.from_numpy(np.ascontiguousarray(y).reshape(-1)),
               str(root / "dmq0" / "golden_0_float4_e2m1.pt"))
    rc, doc, err = sd.scan(cli, str(root), "--csv", csv)
    assert rc == 1 and _verdicts(doc) == ["NOT_JUDGED"], err
    assert "not ops-test-kit's raw-byte payload" in \
        doc["calls"][0]["reason"], doc["calls"][0]["reason"]


# the kernel's attribute names as the op definition gives them (ops-nn
# op_host/dynamic_mx_quant_def.cpp:61-67), dst_type as the ACL number
# (tools/lib/bindings/dynamic_mx_quant.c)
ACL_DST = {"fp4_e2m1": 40, "fp4_e1m2": 41, "fp8_e5m2": 35, "fp8_e4m3fn": 36}


def _cann(root, calls):
    for task, c in enumerate(calls, 1):
        attrs = [(k, sd.attr_text(ACL_DST[v] if k == "dst_type" else v))
                 for k, v in c.attrs.items()]
        sd.write_cann(str(root), "DynamicMxQuant", "dmq%d" % task,
                      [c.inputs["x"]], [c.post["y"], c.post["mxscale"]],
                      attrs, task)


def test_an_fp4_y_in_a_cann_dump_is_judged(cli, tmp_path):
    """aclnnDynamicMxQuant's launch as an aclnn operator dump records it:
    y data_type 39 (fp4 e2m1), its shape in codes (x's), its size and data
    the packed bytes (hicann/opbase@aa3cd74b op_dfx.cpp:721-738;
    scan_dumps.pb_tensor). Honest: PASS, y judged as fp4_e2m1; y's first
    byte's high nibble changed FAILs on y alone."""
    calls = [sd.Call(W.OP, n) for n in FP4]
    _cann(tmp_path / "ok", calls)
    rc, doc, err = sd.scan(cli, str(tmp_path / "ok"))
    assert rc == 0 and _verdicts(doc) == ["PASS"] * len(FP4), (err, [
        c["reason"] for c in doc["calls"]])
    bad = sd.Call(W.OP, FP4[0])
    tag, y = bad.post["y"]
    y = y.copy()
    y.reshape(-1)[0] ^= 0x10
    bad.post["y"] = (tag, y)
    _cann(tmp_path / "bad", [bad])
    rc, doc, err = sd.scan(cli, str(tmp_path / "bad"))
    assert rc == 1 and _verdicts(doc) == ["FAIL"], err
    assert _tensors(doc) == {"y": ("fp4_e2m1", "FAIL"),
                             "mxscale": ("e8m0", "PASS")}
