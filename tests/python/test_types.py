"""Tensors in and out: NumPy in, NumPy out; torch in, torch out;
kvgold.Tensor and tagged buffers; caches copied unless inplace=True; the
per-operator functions are tested in ops/<op>/."""

import numpy as np
import pytest
import torch

import kvgold
from conftest import example, expected_bits

MLA = example("deepseek_mla_decode")   # bf16 / int8 caches
QWEN = example("qwen3_qkv_decode")


def numpy_inputs(c):
    return {n: np.asarray(t).copy() for n, t in c.inputs.items()}


def test_numpy_in_numpy_out():
    c = kvgold.load_case(MLA)
    inputs = numpy_inputs(c)
    out = kvgold.run(c.op, inputs, c.attrs, c.options)
    assert set(out) == set(c.expected)
    for n in c.expected:
        assert isinstance(out[n], np.ndarray), n
        assert out[n].dtype == np.asarray(c.expected[n]).dtype  # storage
        assert out[n].tobytes() == expected_bits(c, n), n
    # the default leaves the caller's caches alone and returns copies
    for n in ("k_cache", "ckv_cache"):
        assert out[n] is not inputs[n]
        assert inputs[n].tobytes() == np.asarray(c.inputs[n]).tobytes()
        assert inputs[n].tobytes() != expected_bits(c, n)  # would show it


def test_inplace_updates_the_callers_caches():
    c = kvgold.load_case(MLA)
    inputs = numpy_inputs(c)
    out = kvgold.run(c.op, inputs, c.attrs, c.options, inplace=True)
    for n in ("k_cache", "ckv_cache"):
        assert out[n] is inputs[n]
        assert inputs[n].tobytes() == expected_bits(c, n)
    assert inputs["kv"].tobytes() == np.asarray(c.inputs["kv"]).tobytes()


def test_inplace_refuses_what_it_cannot_write():
    c = kvgold.load_case(MLA)
    inputs = numpy_inputs(c)
    ro = inputs["k_cache"].copy()
    ro.flags.writeable = False
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, dict(inputs, k_cache=ro), c.attrs, c.options,
                   inplace=True)
    assert e.value.tensor == "k_cache" and "read-only" in e.value.message
    strided = np.asarray(c.inputs["ckv_cache"]).repeat(2, axis=-1)[..., ::2]
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, dict(inputs, ckv_cache=strided), c.attrs,
                   c.options, inplace=True)
    assert e.value.tensor == "ckv_cache"
    # not in place, a non-contiguous input is simply made contiguous
    out = kvgold.run(c.op, dict(inputs, ckv_cache=strided), c.attrs,
                     c.options)
    assert out["ckv_cache"].tobytes() == expected_bits(c, "ckv_cache")


def test_torch_in_torch_out():
    c = kvgold.load_case(MLA)
    inputs = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    assert inputs["kv"].dtype == torch.bfloat16
    kept = {n: t.clone() for n, t in inputs.items()}
    out = kvgold.run(c.op, inputs, c.attrs, c.options)
    assert out["k_cache"].dtype == torch.bfloat16
    assert out["ckv_cache"].dtype == torch.int8
    for n in c.expected:
        assert kvgold.tensor(out[n], c.dtypes[n]).tobytes() == \
            expected_bits(c, n), n
    for n, t in inputs.items():  # inputs and caches untouched
        assert kvgold.tensor(t, c.dtypes[n]).tobytes() == \
            kvgold.tensor(kept[n], c.dtypes[n]).tobytes(), n


def test_outputs_produced_by_attributes_come_back_as_torch():
    c = kvgold.load_case(QWEN)
    inputs = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    attrs = dict(c.attrs, is_output_qkv=True)
    out = kvgold.run(c.op, inputs, attrs, c.options)
    q = out["q_out_before_quant"]
    assert isinstance(q, torch.Tensor) and q.dtype == inputs["qkv"].dtype
    # q_out_before_quant is a copy of q_out (include/kvgold/qkv_...h)
    assert kvgold.tensor(q, c.dtypes["qkv"]).tobytes() == \
        kvgold.tensor(out["q_out"], c.dtypes["qkv"]).tobytes()
    assert kvgold.tensor(out["q_out"], c.dtypes["qkv"]).tobytes() == \
        expected_bits(c, "q_out")


def test_kvgold_tensors_and_tagged_buffers():
    c = kvgold.load_case(MLA)
    tagged = {n: (bytearray(t.tobytes()), t.dtype) for n, t in
              c.inputs.items()}
    # a bytearray has no shape: give kvgold.Tensor, or a shaped memoryview
    shaped = {n: kvgold.Tensor(b, tag, c.inputs[n].shape)
              for n, (b, tag) in tagged.items()}
    out = kvgold.run(c.op, shaped, c.attrs, c.options)
    assert all(isinstance(v, kvgold.Tensor) for v in out.values())
    for n in c.expected:
        assert out[n] == c.expected[n], n
    mv = {n: (memoryview(bytearray(t.tobytes())).cast(
        "B", c.inputs[n].shape if c.inputs[n].dtype in ("int8",) else
        [len(t.tobytes())]), t.dtype) for n, t in c.inputs.items()}
    with pytest.raises(kvgold.Error):  # a flat buffer is not the right shape
        kvgold.run(c.op, mv, c.attrs, c.options)


def test_uint8_needs_a_tag():
    c = kvgold.load_case(example("deepseek_mla_decode"))
    inputs = numpy_inputs(c)
    inputs["ckv_cache"] = inputs["ckv_cache"].view(np.uint8)
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    assert e.value.tensor == "ckv_cache" and "tag" in e.value.message
    with pytest.raises(kvgold.Error) as e:  # a tag the storage contradicts
        kvgold.run(c.op, dict(inputs, kv=(inputs["kv"], "fp16")), c.attrs,
                   c.options)
    assert e.value.tensor == "kv"
