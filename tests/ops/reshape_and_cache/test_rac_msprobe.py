"""kvgold.msprobe's bench function for ReshapeAndCache, called as msprobe's
accuracy checker calls it (docs/msprobe.md); expected values are the cases'
"expected" tensors (the NumPy generator's)."""
import pytest
import torch

import kvgold
from conftest import VECTORS, example, expected_bits
from msprobe_support import installed, torch_inputs


def test_registered_under_its_npu_names():
    # the names msprobe's hook list dumps (support_wrap_ops.yaml)
    reg, _ = installed()
    assert {"_npu_reshape_and_cache", "_npu_reshape_and_cache_siso"} <= set(reg)


def test_reshape_and_cache_returns_the_caches_it_writes():
    reg, _ = installed()
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16")
    t = torch_inputs(c)
    before = t["key_cache"].clone()
    out = reg["_npu_reshape_and_cache"](
        t["key"], t["value"], t["key_cache"], t["value_cache"],
        t["slot_mapping"])
    # torch_npu returns None; msprobe would pass a None it never compared,
    # so the bench returns the updated caches by name (docs/msprobe.md)
    assert list(out) == ["key_cache", "value_cache"]
    assert out["key_cache"] is t["key_cache"]
    assert out["value_cache"] is t["value_cache"]
    assert not torch.equal(before, t["key_cache"])
    assert t["key_cache"].numpy().tobytes() == expected_bits(c, "key_cache")
    assert t["value_cache"].numpy().tobytes() == \
        expected_bits(c, "value_cache")


def test_widened_cache_is_refused_not_computed():
    """What msprobe's generate_cpu_params does to a bench function's
    arguments unless the API is in not_raise_dtype_set: an fp16 cache
    widened to fp32 is refused, and left as it was."""
    reg, _ = installed()
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16")
    t = torch_inputs(c)
    key_cache = t["key_cache"].to(torch.float32)
    snapshot = key_cache.clone()
    with pytest.raises(kvgold.Error) as e:
        reg["_npu_reshape_and_cache"](t["key"], t["value"], key_cache,
                                      t["value_cache"], t["slot_mapping"])
    assert e.value.tensor == "key_cache"
    assert "not_raise_dtype_set" in str(e.value)
    assert key_cache.numpy().tobytes() == snapshot.numpy().tobytes()
