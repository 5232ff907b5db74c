"""kvgold.msprobe's bench function for ReshapeAndCache, called as msprobe's
accuracy checker calls it (docs/msprobe.md); expected values are the cases'
"expected" tensors (the NumPy generator's)."""
import pytest
import torch

import kvgold
import kvgold.msprobe as kvm
from conftest import VECTORS, expected_bits
from msprobe_support import (check_copied_bits, check_inplace_returns,
                              installed, torch_inputs)


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


def _rac():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16")
    t = torch_inputs(c)
    return c, t, (t["key"], t["value"], t["key_cache"], t["value_cache"],
                  t["slot_mapping"])


def test_inplace_api_returns_everything_it_changed():
    # torch_npu returns None; msprobe_support says why the bench does not
    c, t, args = _rac()
    check_inplace_returns("_npu_reshape_and_cache", c, t, args, {}, 0)


def test_copied_caches_reach_msprobe_as_their_bits():
    # the call moves the tokens' bits into both caches
    c, t, args = _rac()
    check_copied_bits("_npu_reshape_and_cache", c, t, args, {}, 0,
                      ("key_cache", "value_cache"))


def test_a_none_nobody_compares_is_refused(monkeypatch):
    """An API kvgold does not list in INPLACE_ARGS that returns None
    (a new operator's in-place form): refused, so msprobe records the
    call as not run (SKIP) instead of writing "pass" for a None."""
    monkeypatch.delitem(kvm.INPLACE_ARGS, "_npu_reshape_and_cache")
    reg, _ = installed()
    _, _, args = _rac()
    with pytest.raises(kvgold.Error) as e:
        reg["_npu_reshape_and_cache"](*args)
    assert "nothing to compare" in str(e.value)
