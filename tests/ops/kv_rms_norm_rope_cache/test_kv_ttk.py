"""kvgold.ttk's golden for KvRmsNormRopeCache, called as ops-test-kit's e2e path
calls it; expected values are the cases' "expected" tensors (the NumPy
generator's)."""
import os

import pytest
import torch

import kvgold
import kvgold.ttk as kt
from conftest import VECTORS, example, expected_bits
from ttk_support import (META, bits, call_form, case_name, exec_standalone,
                         torch_inputs)


@pytest.mark.parametrize("attr", ["golden", "third_party"])
def test_kv_as_ttk_calls_it(attr):
    fn = getattr(exec_standalone(), "KvgoldKvRmsNormRopeCacheTestSpec")
    fn = getattr(fn, attr)
    if attr == "third_party":
        fn = fn["torch"]  # ops-test-kit's provider-keyed form
    c = kvgold.load_case(example("deepseek_mla_decode"))   # an a2a3 case
    t = torch_inputs(c)
    before = {n: bits(v, c.dtypes[n]) for n, v in t.items()}
    out = fn(t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
             t["k_cache"], t["ckv_cache"], None, t["c_kv_scale"], None, None,
             epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"],
             **META)
    assert isinstance(out, list) and len(out) == 4
    assert bits(out[0], "bf16") == expected_bits(c, "k_cache")
    assert bits(out[1], "int8") == expected_bits(c, "ckv_cache")
    assert out[2] is None and out[3] is None
    # golden and third party never write the NPU's inputs
    assert {n: bits(v, c.dtypes[n]) for n, v in t.items()} == before
    assert before["k_cache"] != expected_bits(c, "k_cache")


def test_kv_v2_goldens():
    c = kvgold.load_case(
        VECTORS + "/kv_rms_norm_rope_cache/v2_a2a3_pa_nz_bf16_int8_asym_n2")
    t = torch_inputs(c)
    a = c.attrs
    before = bits(t["k_cache"], c.dtypes["k_cache"])
    names = ("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
             "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset")
    out = kt.kv_rmsnorm_rope_cache_v2_golden(
        *[t.get(n) for n in names], v=t["v"], epsilon=a["epsilon"],
        cache_mode=a["cache_mode"], is_output_kv=a["is_output_kv"],
        **dict(META, soc_version="Ascend910_9391"))
    assert len(out) == 4
    for i, n in enumerate(("k_rope", "c_kv", "k_cache", "ckv_cache")):
        assert bits(out[i], c.dtypes.get(n, "bf16")) == expected_bits(c, n), n
    assert bits(t["k_cache"], c.dtypes["k_cache"]) == before   # untouched


def test_kv_v1_unwritten_outputs_are_not_judged():
    """Without is_output_kv torch_npu leaves k_rope / c_kv unwritten:
    their goldens are None, which ops-test-kit leaves uncompared."""
    c = kvgold.load_case(example("deepseek_mla_decode"))
    assert not c.attrs.get("is_output_kv")
    t = torch_inputs(c)
    out = kt.kv_rmsnorm_rope_cache_golden(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], t["k_cache"],
        t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
        epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])
    assert out[2] is None and out[3] is None


def test_short_soc_version_reaches_the_operator():
    """An A2/A3 case that only the a2a3 profile accepts (kvgold's default
    refuses it) is judged when ops-test-kit says short_soc_version
    Ascend910B, and refused without it."""
    name = "ds_a2a3_pa_bnsd_bs9"
    c = kvgold.load_case(os.path.join(VECTORS, "kv_rms_norm_rope_cache",
                                      name))
    assert c.options["profile"] == "a2a3"
    form = call_form("kv_rms_norm_rope_cache", c.inputs)
    t = torch_inputs(c)
    args = [t.get(case_name(form, n)) for n in form["tensors"]]
    attrs = {n: c.attrs[n] for n in form["attrs"] if n in c.attrs}
    golden = getattr(kt, form["ttk_golden"])
    out = golden(*args, **attrs, short_soc_version="Ascend910B")
    for got, n in zip(out, form["outputs"]):
        if n in c.expected:
            assert got.contiguous().view(torch.uint8).numpy().tobytes() \
                == kvgold.tensor(c.expected[n], c.dtypes.get(n)).tobytes()
    with pytest.raises(kvgold.Error):
        golden(*args, **attrs)
