"""DynamicBlockQuant from Python: kvgold's dynamic_block_quant and
torch_npu's npu_dynamic_block_quant on every valid vector case, expected
values the cases' "expected" tensors (the NumPy generator's,
tools/gen/kvgen/amax_block_quant.py); torch in, torch out, as
torch_npu allocates y; dst_type as torch_npu's numbers."""
import os

import numpy as np
import pytest
import torch

import kvgold
import kvgold.ttk as kt
from kvgold.ops.dynamic_block_quant import (dynamic_block_quant,
                                            npu_dynamic_block_quant)
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "dynamic_block_quant")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))
# torch_npu's dst_type for each tag: 256 + aclDataType (c10_npu::DType)
NUMBER = {"int8": 258, "hif8": 290, "fp8_e5m2": 291, "fp8_e4m3fn": 292}
ATTRS = ("min_scale", "round_mode", "row_block_size", "col_block_size",
         "dst_type_max")


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _attrs(c):
    return {k: c.attrs[k] for k in ATTRS if k in c.attrs}


def _x(c):
    """x as a NumPy array (bf16 as its uint16 bits: dtypes says bf16)."""
    return np.array(c.inputs["x"], copy=True)


def _bits(t, tag):
    return kvgold.tensor(t, tag).tobytes()


def test_every_vector_case_both_names():
    """Both functions give the generator's y and scale, byte for byte, on
    every valid case (dst_type as the case's tag and as torch_npu's
    number), and leave x as it was."""
    assert len(CASES) >= 30
    for name in CASES:
        c = _load(name)
        tag = c.attrs.get("dst_type", "int8")
        profile = (c.options or {}).get("profile")
        x = _x(c)
        before = x.tobytes()
        y, s = dynamic_block_quant((x, c.dtypes["x"]), dst_type=tag,
                                   profile=profile, **_attrs(c))
        assert _bits(y, tag) == expected_bits(c, "y"), name
        assert _bits(s, "fp32") == expected_bits(c, "scale"), name
        y2, s2 = npu_dynamic_block_quant((x, c.dtypes["x"]),
                                         dst_type=NUMBER[tag],
                                         profile=profile, **_attrs(c))
        assert _bits(y2, tag) == expected_bits(c, "y"), name
        assert _bits(s2, "fp32") == expected_bits(c, "scale"), name
        assert x.tobytes() == before, name


def test_torch_in_torch_out():
    """torch x: y as torch_npu allocates it (int8; hifloat8 as uint8
    codes), scale float32, shapes [.., ceil(M/rb), ceil(N/cb)]."""
    for name, dtype in (("int8_bf16_3d_256x128", torch.int8),
                        ("hif8_fp16_3d_1x64", torch.uint8),
                        ("a2a3_bf16_3d_vllm_c8", torch.int8)):
        c = _load(name)
        x = kvgold.to_torch(c.inputs["x"])
        before = x.clone()
        y, s = npu_dynamic_block_quant(
            x, dst_type=NUMBER[c.attrs.get("dst_type", "int8")],
            profile=(c.options or {}).get("profile"), **_attrs(c))
        assert isinstance(y, torch.Tensor) and y.dtype == dtype, name
        assert s.dtype == torch.float32, name
        assert tuple(s.shape) == np.asarray(c.expected["scale"]).shape
        assert y.numpy().tobytes() == expected_bits(c, "y"), name
        assert s.numpy().tobytes() == expected_bits(c, "scale"), name
        assert torch.equal(x.view(torch.int16), before.view(torch.int16))


def test_fp8_y_as_torch_npu_gives_it():
    """torch_npu returns fp8 y as torch.float8_*: given where this torch
    has the dtype, else refused saying why; NumPy x gives the codes."""
    c = _load("e4m3_bf16_2d_128x256_partial_both")
    x = kvgold.to_torch(c.inputs["x"])
    if hasattr(torch, "float8_e4m3fn"):
        y, _ = npu_dynamic_block_quant(x, dst_type=292, **_attrs(c))
        assert y.dtype == torch.float8_e4m3fn
        assert y.view(torch.uint8).numpy().tobytes() == expected_bits(c, "y")
    else:
        with pytest.raises(kvgold.Error) as e:
            npu_dynamic_block_quant(x, dst_type=292, **_attrs(c))
        assert "torch.float8_e4m3fn" in str(e.value)
        assert e.value.tensor == "dst_type"
    y, _ = npu_dynamic_block_quant((_x(c), "bf16"), dst_type=292,
                                   **_attrs(c))
    assert y.dtype == np.uint8 and y.tobytes() == expected_bits(c, "y")


def test_dst_type_numbers():
    """1 (at::ScalarType Char) and 258 are int8; the float8 ScalarTypes 23
    / 24 are 291 / 292, as today's torch_npu maps them (Ascend/pytorch
    @9e73e708 torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73), each
    fp8 case giving the generator's y and scale; anything else is refused
    naming dst_type."""
    x = np.linspace(-3, 5, 256, dtype=np.float16).reshape(2, 128)
    y1, s1 = npu_dynamic_block_quant(x, dst_type=1)
    y2, s2 = npu_dynamic_block_quant(x, dst_type=258)
    assert y1.dtype == np.int8 and y1.tobytes() == y2.tobytes()
    # first principles: amax 5 in row 1, scale 5/127, 5 -> code 127
    assert s1[1, 0] == np.float32(5) / np.float32(127)
    assert y1[1, -1] == 127 and y1[0, 0] == -127
    scalar = {"fp8_e5m2": 23, "fp8_e4m3fn": 24}
    seen = set()
    for name in CASES:
        c = _load(name)
        tag = c.attrs.get("dst_type")
        if tag not in scalar:
            continue
        seen.add(tag)
        y, s = npu_dynamic_block_quant(
            (_x(c), c.dtypes["x"]), dst_type=scalar[tag],
            profile=(c.options or {}).get("profile"), **_attrs(c))
        assert y.tobytes() == expected_bits(c, "y"), name
        assert s.tobytes() == expected_bits(c, "scale"), name
    assert seen == set(scalar)
    for bad, words in ((25, "dst_type"), (7, "dst_type"),
                       ("float8", "dst_type"), (True, "dst_type")):
        with pytest.raises(kvgold.Error) as e:
            npu_dynamic_block_quant(x, dst_type=bad)
        assert words in str(e.value), bad


def test_dst_type_as_a_torch_dtype():
    """vllm-ascend passes dst_type=torch.int8 (sfa_v1.py:1725-1729): the
    same y and scale as torch_npu's number 1; a torch dtype that is no
    dst_type (torch.float16) is refused naming dst_type."""
    x = torch.linspace(-3, 5, 256, dtype=torch.float16).reshape(2, 128)
    y1, s1 = npu_dynamic_block_quant(x, dst_type=1)
    y2, s2 = npu_dynamic_block_quant(x, dst_type=torch.int8)
    assert y2.dtype == torch.int8 and torch.equal(y1, y2)
    assert torch.equal(s1, s2)
    with pytest.raises(kvgold.Error) as e:
        npu_dynamic_block_quant(x, dst_type=torch.float16)
    assert "dst_type" in str(e.value) and "torch.int8" in str(e.value)


def test_refused_case_says_why():
    """What the NPU refuses is refused with the operator's reason."""
    c = _load("int8_fp16_2d_1x128_partial_cols")
    with pytest.raises(kvgold.Error) as e:
        npu_dynamic_block_quant((_x(c), "fp16"), dst_type=290,
                                round_mode="rint")
    assert "round_mode" in str(e.value) and "hif8" in str(e.value)


def test_ttk_golden_follows_the_chip():
    """The plug-in's golden: [y, scale], the profile from ops-test-kit's
    short_soc_version; an A2/A3 case judged as A2/A3 computes it."""
    c = _load("a2a3_bf16_3d_vllm_c8")
    x = kvgold.to_torch(c.inputs["x"])
    y, s = kt.dynamic_block_quant_golden(
        x, short_soc_version="Ascend910B", **_attrs(c))
    assert y.numpy().tobytes() == expected_bits(c, "y")
    assert s.numpy().tobytes() == expected_bits(c, "scale")
    y9, s9 = kt.dynamic_block_quant_golden(
        x, short_soc_version="Ascend950", **_attrs(c))
    # the 950 divides where A2/A3 multiplies by fl(1/127): this case's
    # scales differ in the last bit, and so do some codes
    assert s9.numpy().tobytes() != s.numpy().tobytes()
    assert y9.numpy().tobytes() != y.numpy().tobytes()
