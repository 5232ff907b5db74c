"""Tensors in and out: NumPy in, NumPy out; torch in, torch out;
kvgold.Tensor and tagged buffers; caches copied unless inplace=True; the
per-operator functions agree with kvgold.run and the vectors."""
import array
import os

import numpy as np
import pytest
import torch

import kvgold
from conftest import example

MLA = example("deepseek_mla_decode")   # kv_rms_norm_rope_cache, bf16 / int8
QWEN = example("qwen3_qkv_decode")     # qkv_rms_norm_rope_cache


def expected_bits(c, name):
    return np.asarray(c.expected[name]).tobytes()


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


def test_buffer_protocol_with_a_tag():
    idx = array.array("i", [3, 0, 1])           # int32 by its format
    key = np.arange(3 * 2 * 16, dtype=np.float16).reshape(3, 2, 16) + 1
    kc = np.full((2, 4, 2, 16), 7, np.float16)  # blocks, block size, heads, d
    out = kvgold.run("reshape_and_cache",
                     {"key": key, "value": key * 2, "key_cache": kc,
                      "value_cache": kc.copy(), "slot_mapping": idx})
    want = kc.copy().reshape(8, 2, 16)
    want[[3, 0, 1]] = key
    assert out["key_cache"].tobytes() == want.tobytes()


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


def test_npu_kv_rmsnorm_rope_cache_matches_torch_npu_semantics():
    c = kvgold.load_case(MLA)
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    k_cache, ckv_cache = t["k_cache"], t["ckv_cache"]
    r = kvgold.npu_kv_rmsnorm_rope_cache(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], k_cache,
        ckv_cache, c_kv_scale=t["c_kv_scale"], epsilon=c.attrs["epsilon"],
        cache_mode=c.attrs["cache_mode"], profile=c.options["profile"])
    assert len(r) == 4 and r[0] is k_cache and r[1] is ckv_cache
    assert r[2] is None and r[3] is None
    assert kvgold.tensor(k_cache, "bf16").tobytes() == \
        expected_bits(c, "k_cache")
    assert ckv_cache.numpy().tobytes() == expected_bits(c, "ckv_cache")


def test_npu_qkv_rms_norm_rope_cache_inplace_and_functional():
    c = kvgold.load_case(QWEN)
    a = c.attrs
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    args = [t[n] for n in ("qkv", "q_gamma", "k_gamma", "cos", "sin",
                           "index")]
    q_out = t.get("q_out")
    if q_out is None:
        q_out = torch.empty(t["qkv"].shape[0],
                            a["head_nums"][0] * a["qkv_size"][3],
                            dtype=t["qkv"].dtype)
    kw = {n: t[n] for n in ("k_scale", "v_scale", "k_offset", "v_offset")
          if n in t}
    kw.update({k: a[k] for k in ("epsilon", "cache_mode") if k in a})
    functional = kvgold.npu_qkv_rms_norm_rope_cache(
        *args, q_out, t["k_cache"], t["v_cache"], a["qkv_size"],
        a["head_nums"], inplace=False, **kw)
    assert len(functional) == 6 and functional[:3] == (None, None, None)
    for name, got in zip(("q_out", "k_cache", "v_cache"), functional[3:]):
        assert kvgold.tensor(got, c.dtypes[name]).tobytes() == \
            expected_bits(c, name), name
    assert kvgold.tensor(t["k_cache"], c.dtypes["k_cache"]).tobytes() != \
        expected_bits(c, "k_cache")  # inplace=False left it alone
    before = kvgold.npu_qkv_rms_norm_rope_cache(
        *args, q_out, t["k_cache"], t["v_cache"], a["qkv_size"],
        a["head_nums"], is_output_qkv=True, **kw)
    assert len(before) == 3 and all(isinstance(x, torch.Tensor)
                                    for x in before)
    for name, got in (("q_out", q_out), ("k_cache", t["k_cache"]),
                      ("v_cache", t["v_cache"])):
        assert kvgold.tensor(got, c.dtypes[name]).tobytes() == \
            expected_bits(c, name), name


def test_reshape_and_cache_atb_names():
    key = np.arange(2 * 1 * 16, dtype=np.float16).reshape(2, 1, 16) - 9
    kc = np.full((1, 4, 1, 16), 3, np.float16)
    vc = kc.copy()
    slots = np.array([2, 0], np.int32)
    assert kvgold._npu_reshape_and_cache(key, key + 1, kc, vc, slots) is None
    assert np.array_equal(kc[0, 2], key[0]) and np.array_equal(kc[0, 0],
                                                               key[1])
    assert np.array_equal(vc[0, 2], key[0] + 1)
    assert np.all(kc[0, [1, 3]] == 3)  # untouched slots
    k2, v2 = kvgold.reshape_and_cache(key, key, kc, vc, slots,
                                      inplace=False)
    assert k2 is not kc


def test_torch_uint8_codes_with_tags():
    c = kvgold.load_case(
        "%s/kv_rms_norm_rope_cache/ds_950_pa_fp16_both_hif8_asym"
        % os.environ["KVG_VECTORS_DIR"])
    inputs = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    assert inputs["k_cache"].dtype == torch.uint8
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    assert e.value.tensor in ("k_cache", "ckv_cache")
    out = kvgold.run(c.op, inputs, c.attrs, c.options, dtypes=c.dtypes)
    for n in ("k_cache", "ckv_cache"):
        assert out[n].dtype == torch.uint8
        assert out[n].numpy().tobytes() == expected_bits(c, n), n
    assert out.dtypes["k_cache"] == "hif8"
