"""kvgold.ttk's golden for QkvRmsNormRopeCache, called as ops-test-kit's e2e path
calls it; expected values are the cases' "expected" tensors (the NumPy
generator's)."""

import kvgold
import kvgold.ttk as kt
from conftest import example, expected_bits
from ttk_support import META, bits, torch_inputs


def test_qkv_in_torch_npu_positional_order():
    c = kvgold.load_case(example("qwen3_qkv_decode"))
    t = torch_inputs(c)
    a = c.attrs
    args = [t.get(n) for n in ("qkv", "q_gamma", "k_gamma", "cos", "sin",
                               "index", "q_out", "k_cache", "v_cache")]
    kw = dict(k_scale=t.get("k_scale"), v_scale=t.get("v_scale"),
              k_offset=t.get("k_offset"), v_offset=t.get("v_offset"),
              epsilon=a["epsilon"], cache_mode=a["cache_mode"],
              is_output_qkv=a.get("is_output_qkv", False))
    # positional qkv_size / head_nums as torch_npu takes them, and as
    # keywords (ops-test-kit's convention for attributes)
    r1 = kt.qkv_rms_norm_rope_cache_golden(
        *args, a["qkv_size"], a["head_nums"], **kw, **META)
    r2 = kt.qkv_rms_norm_rope_cache_golden(
        *args, qkv_size=a["qkv_size"], head_nums=a["head_nums"], **kw)
    for r in (r1, r2):
        assert len(r) == 6
        for i, n in enumerate(("q_out", "k_cache", "v_cache")):
            assert bits(r[3 + i], c.dtypes[n]) == expected_bits(c, n), n
