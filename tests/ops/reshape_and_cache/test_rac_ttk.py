"""kvgold.ttk's golden for ReshapeAndCache, called as ops-test-kit's e2e path
calls it; expected values are the cases' "expected" tensors (the NumPy
generator's)."""
import pytest

import kvgold
import kvgold.ops
import kvgold.ttk as kt
from conftest import VECTORS, expected_bits
from ttk_support import META, bits, torch_inputs


def test_reshape_and_cache_goldens_are_the_caches():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_int8")
    t = torch_inputs(c)
    r = kt.reshape_and_cache_golden(t["key"], t["value"], t["key_cache"],
                                    t["value_cache"], t["slot_mapping"],
                                    **META)
    # the API returns None, which ops-test-kit lists as [None], then the
    # caches it writes in place (inplace_input_indexes (2, 3))
    assert len(r) == 3 and r[0] is None
    assert bits(r[1], c.dtypes["key_cache"]) == expected_bits(c, "key_cache")
    assert bits(r[2], c.dtypes["value_cache"]) == \
        expected_bits(c, "value_cache")


def test_siso_golden_is_the_key_cache():
    """_npu_reshape_and_cache_siso(key, key_cache, slot_indices): [None]
    then key_cache, its one in-place slot (1), never written in the
    arguments given."""
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/siso_fp16")
    t = torch_inputs(c)
    before = bits(t["key_cache"], c.dtypes["key_cache"])
    r = kt.reshape_and_cache_siso_golden(t["key"], t["key_cache"],
                                         slot_indices=t["slot_mapping"],
                                         **META)
    assert len(r) == 2 and r[0] is None
    assert bits(r[1], c.dtypes["key_cache"]) == expected_bits(c, "key_cache")
    assert bits(t["key_cache"], c.dtypes["key_cache"]) == before
    assert before != expected_bits(c, "key_cache")  # the test would see it
    assert kt.inplace_slots(next(
        f for f in kvgold.ops.TORCH_NPU_CALLS["reshape_and_cache"]
        if f["api"] == "torch_npu._npu_reshape_and_cache_siso")) == (0, (1,))


def test_argument_mistakes_are_refused():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_int8")
    t = torch_inputs(c)
    args = (t["key"], t["value"], t["key_cache"], t["value_cache"],
            t["slot_mapping"])
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args, t["key"])        # one too many
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args[:4], slot_indices=args[4],
                                    key=args[0])          # given twice
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args, 3)             # no such attr
