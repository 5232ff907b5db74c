"""kvgold.msprobe's bench function for ScatterPaKvCache, called as msprobe's
accuracy checker calls it (docs/msprobe.md); expected values are the cases'
"expected" tensors (the NumPy generator's)."""

import kvgold
from conftest import VECTORS, expected_bits
from msprobe_support import (check_copied_bits, check_inplace_returns,
                              installed, torch_inputs)


def test_registered_under_its_npu_names():
    # the names msprobe's hook list dumps (support_wrap_ops.yaml)
    reg, _ = installed()
    assert {"npu_scatter_pa_kv_cache"} <= set(reg)


def test_scatter_as_the_checker_calls_it():
    """npu_scatter_pa_kv_cache, fp32 caches included (a copy-only dtype:
    float32 is not mistaken for a widened input here)."""
    reg, _ = installed()
    for case in ("norm_bf16", "norm_fp32"):
        c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/" + case)
        t = torch_inputs(c)
        out = reg["npu_scatter_pa_kv_cache"](
            t["key"], t["value"], t["key_cache"], t["value_cache"],
            t["slot_mapping"], cache_mode=c.attrs.get("cache_mode", "Norm"))
        # the updated caches by name, not torch_npu's None (msprobe.md)
        assert list(out) == ["key_cache", "value_cache"]
        assert out["key_cache"] is t["key_cache"]
        for n in ("key_cache", "value_cache"):
            assert kvgold.tensor(t[n], c.dtypes[n]).tobytes() == \
                expected_bits(c, n), (case, n)


def _spkc():
    c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/norm_bf16")
    t = torch_inputs(c)
    return c, t, (t["key"], t["value"], t["key_cache"], t["value_cache"],
                  t["slot_mapping"])


def test_inplace_api_returns_everything_it_changed():
    # torch_npu returns None; msprobe_support says why the bench does not
    c, t, args = _spkc()
    check_inplace_returns("npu_scatter_pa_kv_cache", c, t, args,
                          {"cache_mode": "Norm"}, 0)


def test_copied_caches_reach_msprobe_as_their_bits():
    # the Norm mode moves the tokens' bits into both caches
    c, t, args = _spkc()
    check_copied_bits("npu_scatter_pa_kv_cache", c, t, args,
                      {"cache_mode": "Norm"}, 0, ("key_cache", "value_cache"))
