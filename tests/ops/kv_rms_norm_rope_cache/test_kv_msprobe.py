"""kvgold.msprobe's bench function for KvRmsNormRopeCache, called as msprobe's
accuracy checker calls it (docs/msprobe.md); expected values are the cases'
"expected" tensors (the NumPy generator's)."""
import pytest
import torch

import kvgold
from conftest import example, expected_bits
from msprobe_support import installed, torch_inputs


def test_registered_under_its_npu_names():
    # the names msprobe's hook list dumps (support_wrap_ops.yaml)
    reg, _ = installed()
    assert {"npu_kv_rmsnorm_rope_cache"} <= set(reg)


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


@pytest.mark.parametrize("widen", ["kv", "gamma"])
def test_widened_inputs_are_refused_not_computed(widen):
    """What msprobe's generate_cpu_params does to a bench function's
    arguments unless the API is in not_raise_dtype_set."""
    reg, _ = installed()
    c = kvgold.load_case(example("deepseek_mla_decode"))
    t = torch_inputs(c)
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


@pytest.mark.parametrize("is_output_kv", [False, True])
def test_unwritten_outputs_are_not_compared(is_output_kv):
    """npu_kv_rmsnorm_rope_cache returns k_rope and c_kv whatever
    is_output_kv says; without it the NPU never writes them (torch_npu
    returns what it allocated). msprobe's output handler gives None for
    them on both sides - msprobe lists those outputs SKIP - and the caches
    as they are; with is_output_kv all four are compared."""
    import kvgold.msprobe as kvm
    reg, _ = installed({"profile": "a2a3"})
    c = kvgold.load_case(example("deepseek_mla_decode"))
    t = torch_inputs(c)
    args = (t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
            t["k_cache"], t["ckv_cache"])
    kwargs = {"c_kv_scale": t["c_kv_scale"], "epsilon": c.attrs["epsilon"],
              "cache_mode": c.attrs["cache_mode"],
              "is_output_kv": is_output_kv}
    api = "npu_kv_rmsnorm_rope_cache"
    out = reg[api](*args, **kwargs)
    assert "npu_kv_rmsnorm_rope_cache" in kvm.POSTPROCESS_CONFIG
    device = tuple(o.clone() for o in out)   # what the NPU returned
    for side in (out, device):
        handled = kvm.outputs_after_call(api, side, args, kwargs)
        assert len(handled) == 4
        assert handled[0] is side[0] and handled[1] is side[1]
        if is_output_kv:
            assert handled[2] is side[2] and handled[3] is side[3]
        else:
            assert handled[2] is None and handled[3] is None
    # the default is is_output_kv False, as torch_npu's
    del kwargs["is_output_kv"]
    handled = kvm.outputs_after_call(api, out, args, kwargs)
    assert handled[2:] == (None, None)
