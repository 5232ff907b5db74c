"""kvgold.msprobe: the bench functions called as msprobe's accuracy checker
calls them (docs/msprobe.md cites the code at Ascend/msprobe@8ff00da):
found by the NPU API's name in a registry, called with the API's own
arguments on CPU tensors, `registry[name](*args, **kwargs)`, answering
what torch_npu answers with the caches updated in place. Expected values
are the cases' "expected" tensors (the NumPy generator's)."""
import os

import pytest
import torch

import kvgold
import kvgold.msprobe as kvm
from conftest import VECTORS, example, expected_bits


class Registry(dict):
    """The part of msprobe's function_factory.Register the checker uses:
    items by name, looked up with `in` and []."""


def installed(options=None):
    reg, not_raise = Registry(), {"type_as"}
    assert kvm.install(reg, not_raise=not_raise, options=options) is reg
    return reg, not_raise


def torch_inputs(c):
    return {n: kvgold.to_torch(v) for n, v in c.inputs.items()}


def test_install_registers_every_api_under_its_npu_name():
    reg, not_raise = installed()
    # the names msprobe's hook list dumps (support_wrap_ops.yaml) at least,
    # and every torch_npu-named function kvgold has
    assert {"npu_kv_rmsnorm_rope_cache", "_npu_reshape_and_cache",
            "npu_scatter_pa_kv_cache"} <= set(reg)
    assert set(reg) == {n for n in kvgold.ops.FUNCTIONS
                        if n.startswith(("npu_", "_npu_"))}
    for name, fn in reg.items():
        assert fn.__name__ == name       # msprobe's Register keys by it
        assert fn is getattr(kvm, name)
    # msprobe must hand these functions the dtypes the NPU saw
    assert not_raise == {"type_as"} | set(reg)
    for name in reg:
        assert name in kvm.FUSION_OPERATOR_CONFIG


def test_kv_as_the_checker_calls_it():
    reg, _ = installed({"profile": "a2a3"})
    c = kvgold.load_case(example("deepseek_mla_decode"))
    t = torch_inputs(c)
    k_cache = t["k_cache"]
    k_cache.view(torch.int16).fill_(0x7fc1)   # poison: NaN bits
    k_cache.copy_(kvgold.to_torch(c.inputs["k_cache"]))
    out = reg["npu_kv_rmsnorm_rope_cache"](
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], k_cache,
        t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
        epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])
    assert len(out) == 4 and out[0] is k_cache and out[1] is t["ckv_cache"]
    assert out[0].device.type == "cpu"
    assert kvgold.tensor(out[0], "bf16").tobytes() == \
        expected_bits(c, "k_cache")
    assert out[1].numpy().tobytes() == expected_bits(c, "ckv_cache")


def test_install_options_reach_kvgold():
    """kvgold's own options (no torch_npu argument) given to install()
    are passed on: a profile kvgold does not know is refused."""
    reg, _ = installed({"profile": "no_such_chip"})
    c = kvgold.load_case(example("deepseek_mla_decode"))
    t = torch_inputs(c)
    with pytest.raises(kvgold.Error) as e:
        reg["npu_kv_rmsnorm_rope_cache"](
            t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
            t["k_cache"], t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
            epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])
    assert "profile" in str(e.value)


def test_qkv_in_place_and_returned():
    reg, _ = installed()
    c = kvgold.load_case(example("qwen3_qkv_decode"))
    t = torch_inputs(c)
    a = c.attrs
    kw = {k: t[k] for k in ("k_scale", "v_scale", "k_offset", "v_offset")
          if k in t}
    out = reg["npu_qkv_rms_norm_rope_cache"](
        t["qkv"], t["q_gamma"], t["k_gamma"], t["cos"], t["sin"],
        t["index"], t["q_out"], t["k_cache"], t["v_cache"], a["qkv_size"],
        a["head_nums"], epsilon=a["epsilon"], cache_mode=a["cache_mode"],
        is_output_qkv=a.get("is_output_qkv", False), **kw)
    assert len(out) == 3
    for n in ("q_out", "k_cache", "v_cache"):
        assert kvgold.tensor(t[n], c.dtypes[n]).tobytes() == \
            expected_bits(c, n), n


def test_reshape_and_cache_returns_none_and_writes_caches():
    reg, _ = installed()
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16")
    t = torch_inputs(c)
    before = t["key_cache"].clone()
    assert reg["_npu_reshape_and_cache"](
        t["key"], t["value"], t["key_cache"], t["value_cache"],
        t["slot_mapping"]) is None
    assert not torch.equal(before, t["key_cache"])
    assert t["key_cache"].numpy().tobytes() == expected_bits(c, "key_cache")
    assert t["value_cache"].numpy().tobytes() == \
        expected_bits(c, "value_cache")


def test_scatter_as_the_checker_calls_it():
    """npu_scatter_pa_kv_cache, fp32 caches included (a copy-only dtype:
    float32 is not mistaken for a widened input here)."""
    reg, _ = installed()
    for case in ("norm_bf16", "norm_fp32"):
        c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/" + case)
        t = torch_inputs(c)
        assert reg["npu_scatter_pa_kv_cache"](
            t["key"], t["value"], t["key_cache"], t["value_cache"],
            t["slot_mapping"], cache_mode=c.attrs.get("cache_mode", "Norm")) \
            is None
        for n in ("key_cache", "value_cache"):
            assert kvgold.tensor(t[n], c.dtypes[n]).tobytes() == \
                expected_bits(c, n), (case, n)


@pytest.mark.parametrize("widen", ["kv", "gamma", "k_cache"])
def test_widened_inputs_are_refused_not_computed(widen):
    """What msprobe's generate_cpu_params does to a bench function's
    arguments unless the API is in not_raise_dtype_set."""
    reg, _ = installed()
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16"
                         if widen == "k_cache" else
                         example("deepseek_mla_decode"))
    t = torch_inputs(c)
    if widen == "k_cache":
        key_cache = t["key_cache"].to(torch.float32)
        snapshot = key_cache.clone()
        with pytest.raises(kvgold.Error) as e:
            reg["_npu_reshape_and_cache"](t["key"], t["value"], key_cache,
                                          t["value_cache"], t["slot_mapping"])
        assert e.value.tensor == "key_cache"
        assert key_cache.numpy().tobytes() == snapshot.numpy().tobytes()
        return
    t[widen] = t[widen].to(torch.float32)
    with pytest.raises(kvgold.Error) as e:
        reg["npu_kv_rmsnorm_rope_cache"](
            t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
            t["k_cache"], t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
            epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])
    assert e.value.tensor == widen
    assert "not_raise_dtype_set" in str(e.value)


def test_fp32_scales_are_not_mistaken_for_widened():
    reg, _ = installed({"profile": "a2a3"})
    c = kvgold.load_case(example("deepseek_mla_decode"))
    t = torch_inputs(c)
    assert t["c_kv_scale"].dtype == torch.float32
    reg["npu_kv_rmsnorm_rope_cache"](
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], t["k_cache"],
        t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
        epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])


def test_doc_examples_run():
    """Every ```python block of docs/msprobe.md runs from the repository root."""
    import re
    import subprocess
    import sys
    docs = os.environ.get("KVG_DOCS_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "docs"))
    with open(os.path.join(docs, "msprobe.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(),
                            re.S | re.M)
    assert blocks
    for code in blocks:
        p = subprocess.run([sys.executable, "-c", code],
                           cwd=os.path.dirname(os.path.abspath(docs)),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
