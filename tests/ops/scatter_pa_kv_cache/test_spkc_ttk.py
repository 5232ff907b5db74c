"""kvgold.ttk's golden for ScatterPaKvCache, called as ops-test-kit's e2e path
calls it; expected values are the cases' "expected" tensors (the NumPy
generator's)."""

import kvgold
import kvgold.ttk as kt
from conftest import VECTORS, expected_bits
from ttk_support import META, bits, torch_inputs


def test_scatter_goldens_are_the_caches():
    c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/norm_bf16")
    t = torch_inputs(c)
    r = kt.scatter_pa_kv_cache_golden(
        t["key"], t["value"], t["key_cache"], t["value_cache"],
        t["slot_mapping"], cache_mode=c.attrs.get("cache_mode", "Norm"),
        **META)
    # the API returns None, which ops-test-kit lists as [None], then the
    # caches it writes in place (inplace_input_indexes (2, 3))
    assert len(r) == 3 and r[0] is None
    assert bits(r[1], "bf16") == expected_bits(c, "key_cache")
    assert bits(r[2], "bf16") == expected_bits(c, "value_cache")
