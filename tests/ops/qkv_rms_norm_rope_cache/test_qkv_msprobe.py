"""kvgold.msprobe's bench function for QkvRmsNormRopeCache, called as msprobe's
accuracy checker calls it (docs/msprobe.md); expected values are the cases'
"expected" tensors (the NumPy generator's)."""

import kvgold
from conftest import example, expected_bits
from msprobe_support import (check_copied_bits, check_inplace_returns,
                              installed, torch_inputs)


def test_registered_under_its_npu_names():
    # the names msprobe's hook list dumps (support_wrap_ops.yaml)
    reg, _ = installed()
    assert {"npu_qkv_rms_norm_rope_cache"} <= set(reg)


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
    # torch_npu's three results, then the in-place tensors by name (msprobe
    # compares return values only: docs/msprobe.md)
    assert list(out) == ["output.0", "output.1", "output.2", "q_out",
                         "k_cache", "v_cache"]
    assert out["k_cache"] is t["k_cache"]
    for n in ("q_out", "k_cache", "v_cache"):
        assert kvgold.tensor(t[n], c.dtypes[n]).tobytes() == \
            expected_bits(c, n), n


def _qkv():
    c = kvgold.load_case(example("qwen3_qkv_decode"))
    t = torch_inputs(c)
    a = c.attrs
    kw = {k: t[k] for k in ("k_scale", "v_scale", "k_offset", "v_offset")
          if k in t}
    kw.update(epsilon=a["epsilon"], cache_mode=a["cache_mode"])
    return c, t, (t["qkv"], t["q_gamma"], t["k_gamma"], t["cos"], t["sin"],
                  t["index"], t["q_out"], t["k_cache"], t["v_cache"],
                  a["qkv_size"], a["head_nums"]), kw


def test_inplace_api_returns_everything_it_changed():
    # torch_npu returns three tensors, and writes the caches in place
    c, t, args, kw = _qkv()
    check_inplace_returns("npu_qkv_rms_norm_rope_cache", c, t, args, kw, 3)


def test_copied_caches_reach_msprobe_as_their_bits():
    # its caches are computed and quantised: none is only copied into
    c, t, args, kw = _qkv()
    check_copied_bits("npu_qkv_rms_norm_rope_cache", c, t, args, kw, 3, ())
