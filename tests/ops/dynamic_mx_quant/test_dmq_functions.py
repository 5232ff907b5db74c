"""DynamicMxQuant from Python: kvgold's dynamic_mx_quant and torch_npu's
npu_dynamic_mx_quant on every valid vector case, expected values the
cases' "expected" tensors (the NumPy generator's,
tools/gen/kvgen/mx_block_quant.py); torch in, torch out, as torch_npu
allocates y and mxscale (uint8); dst_type as torch_npu's numbers."""
import os

import numpy as np
import pytest
import torch

import kvgold
import kvgold.ttk as kt
from kvgold.ops.dynamic_mx_quant import dynamic_mx_quant, npu_dynamic_mx_quant
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "dynamic_mx_quant")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))
# torch_npu's dst_type for each tag: 256 + aclDataType (c10_npu::DType)
NUMBER = {"fp4_e2m1": 296, "fp8_e5m2": 291, "fp8_e4m3fn": 292}
ATTRS = ("axis", "round_mode", "block_size", "scale_alg")


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _attrs(c):
    return {k: c.attrs[k] for k in ATTRS if k in c.attrs}


def _x(c):
    """x as a NumPy array (bf16 as its uint16 bits: dtypes says bf16)."""
    return np.array(c.inputs["x"], copy=True)


def _bytes(t):
    return np.asarray(t).tobytes() if not isinstance(t, torch.Tensor) \
        else t.numpy().tobytes()


def test_every_vector_case_both_names():
    """Both functions give the generator's y and mxscale, byte for byte,
    on every valid case (dst_type as the case's tag and as torch_npu's
    number), and leave x as it was."""
    assert len(CASES) >= 30
    for name in CASES:
        c = _load(name)
        tag = c.attrs["dst_type"]
        x = _x(c)
        before = x.tobytes()
        y, s = dynamic_mx_quant((x, c.dtypes["x"]), dst_type=tag,
                                **_attrs(c))
        assert _bytes(y) == expected_bits(c, "y"), name
        assert _bytes(s) == expected_bits(c, "mxscale"), name
        y2, s2 = npu_dynamic_mx_quant((x, c.dtypes["x"]),
                                      dst_type=NUMBER[tag], **_attrs(c))
        assert _bytes(y2) == expected_bits(c, "y"), name
        assert _bytes(s2) == expected_bits(c, "mxscale"), name
        assert x.tobytes() == before, name


def test_torch_in_torch_out():
    """torch x: y as torch_npu allocates it (fp4 pairs uint8 [..., n/2]),
    mxscale uint8 with the trailing pair dim, x untouched."""
    for name in ("fp4_rint_bf16_axis0_interleave", "fp4_round_fp32_partial",
                 "fp4_floor_fp16_axis1_rank3"):
        c = _load(name)
        x = kvgold.to_torch(c.inputs["x"])
        before = x.clone()
        y, s = npu_dynamic_mx_quant(x, **_attrs(c))  # 296: the default
        assert isinstance(y, torch.Tensor) and y.dtype == torch.uint8
        assert s.dtype == torch.uint8, name
        assert tuple(y.shape) == tuple(x.shape[:-1]) + (x.shape[-1] // 2,)
        assert tuple(s.shape) == np.asarray(c.expected["mxscale"]).shape
        assert s.shape[-1] == 2, name
        assert _bytes(y) == expected_bits(c, "y"), name
        assert _bytes(s) == expected_bits(c, "mxscale"), name
        assert torch.equal(x.view(torch.uint8), before.view(torch.uint8))


def test_fp8_y_as_torch_npu_gives_it():
    """torch_npu returns fp8 y as torch.float8_*: given where this torch
    has the dtype, else refused saying why; NumPy x gives the codes."""
    c = _load("e4m3_ocp_bf16_vllm_k")
    x = kvgold.to_torch(c.inputs["x"])
    if hasattr(torch, "float8_e4m3fn"):
        y, _ = npu_dynamic_mx_quant(x, dst_type=292, **_attrs(c))
        assert y.dtype == torch.float8_e4m3fn
        assert y.view(torch.uint8).numpy().tobytes() == expected_bits(c, "y")
    else:
        with pytest.raises(kvgold.Error) as e:
            npu_dynamic_mx_quant(x, dst_type=292, **_attrs(c))
        assert "torch.float8_e4m3fn" in str(e.value)
        assert e.value.tensor == "dst_type"
    y, _ = npu_dynamic_mx_quant((_x(c), "bf16"), dst_type=292, **_attrs(c))
    assert y.dtype == np.uint8 and y.tobytes() == expected_bits(c, "y")


def test_float8_scalar_types_are_the_acl_types():
    """Today's torch_npu maps at::ScalarType Float8_e5m2 (23) /
    Float8_e4m3fn (24) to ACL_FLOAT8_E5M2 / E4M3FN (Ascend/pytorch@9e73e708
    torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73): every fp8 case
    gives the generator's y and mxscale under its ScalarType number."""
    scalar = {"fp8_e5m2": 23, "fp8_e4m3fn": 24}
    seen = set()
    for name in CASES:
        c = _load(name)
        tag = c.attrs.get("dst_type")
        if tag not in scalar:
            continue
        seen.add(tag)
        y, s = npu_dynamic_mx_quant((_x(c), c.dtypes["x"]),
                                    dst_type=scalar[tag], **_attrs(c))
        assert y.tobytes() == expected_bits(c, "y"), name
        assert s.tobytes() == expected_bits(c, "mxscale"), name
    assert seen == set(scalar)


def test_first_principles_and_numbers():
    """x [1, 64] fp16: block 0 amax 6 (code 127, multiplier 1), block 1
    amax 1 (code 125, multiplier 4). 297 (fp4 e1m2) is refused as not
    modelled, as are 40 (aclnn's number, not torch_npu's) and 45
    (Float4_e2m1fn_x2: not in kvgold's table, see the page);
    scale_alg None is torch_npu's 0."""
    x = np.zeros((1, 64), dtype=np.float16)
    x[0, :4] = [6.0, -0.75, 2.5, 0.25]
    x[0, 32:34] = [1.0, -0.3]
    y, s = npu_dynamic_mx_quant(x, scale_alg=None)
    assert y.dtype == np.uint8 and s.dtype == np.uint8
    assert s.tolist() == [[[127, 125]]]
    # 6 -> 0x7, -0.75 -> tie to -1.0 (0xA); 2.5 -> tie to 2 (0x4), 0.25 -> 0
    assert y[0, :2].tolist() == [0xA7, 0x04]
    # 4 -> 0x6, -1.2 -> -1.0 (0xA)
    assert y[0, 16] == 0xA6
    for bad, words in ((297, "fp4_e1m2"), (45, "dst_type"),
                       (40, "dst_type"), ("float4", "dst_type")):
        with pytest.raises(kvgold.Error) as e:
            npu_dynamic_mx_quant(x, dst_type=bad)
        assert words in str(e.value), bad


def test_refused_call_says_why():
    """What kvgold does not model is refused with the reason."""
    x = np.ones((2, 64), dtype=np.float16)
    for kw, words in ((dict(scale_alg=2), "not modelled"),
                      (dict(dst_type_max=6.0), "dst_type_max"),
                      (dict(max_low_bound=1e-4), "max_low_bound"),
                      (dict(dst_type=291, round_mode="floor"), "rint")):
        with pytest.raises(kvgold.Error) as e:
            npu_dynamic_mx_quant(x, **kw)
        assert words in str(e.value), kw


def test_ttk_golden():
    """The plug-in's golden gives [y, mxscale] as the NPU's uint8
    tensors."""
    c = _load("fp4_rint_bf16_last_odd")
    x = kvgold.to_torch(c.inputs["x"])
    y, s = kt.dynamic_mx_quant_golden(x, short_soc_version="Ascend950",
                                      **_attrs(c))
    assert y.numpy().tobytes() == expected_bits(c, "y")
    assert s.numpy().tobytes() == expected_bits(c, "mxscale")
