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
