"""QkvRmsNormRopeCache from Python: npu_qkv_rms_norm_rope_cache in place
and functional, as torch_npu / op-plugin's."""
import torch

import kvgold
from conftest import example, expected_bits

QWEN = example("qwen3_qkv_decode")     # qkv_rms_norm_rope_cache


def test_npu_qkv_rms_norm_rope_cache_inplace_and_functional():
    c = kvgold.load_case(QWEN)
    a = c.attrs
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    args = [t[n] for n in ("qkv", "q_gamma", "k_gamma", "cos", "sin",
                           "index")]
    q_out = t.get("q_out")
    if q_out is None:
        q_out = torch.empty(t["qkv"].shape[0],
                            a["head_nums"][0] * a["qkv_size"][3],
                            dtype=t["qkv"].dtype)
    kw = {n: t[n] for n in ("k_scale", "v_scale", "k_offset", "v_offset")
          if n in t}
    kw.update({k: a[k] for k in ("epsilon", "cache_mode") if k in a})
    functional = kvgold.npu_qkv_rms_norm_rope_cache(
        *args, q_out, t["k_cache"], t["v_cache"], a["qkv_size"],
        a["head_nums"], inplace=False, **kw)
    assert len(functional) == 6 and functional[:3] == (None, None, None)
    for name, got in zip(("q_out", "k_cache", "v_cache"), functional[3:]):
        assert kvgold.tensor(got, c.dtypes[name]).tobytes() == \
            expected_bits(c, name), name
    assert kvgold.tensor(t["k_cache"], c.dtypes["k_cache"]).tobytes() != \
        expected_bits(c, "k_cache")  # inplace=False left it alone
    before = kvgold.npu_qkv_rms_norm_rope_cache(
        *args, q_out, t["k_cache"], t["v_cache"], a["qkv_size"],
        a["head_nums"], is_output_qkv=True, **kw)
    assert len(before) == 3 and all(isinstance(x, torch.Tensor)
                                    for x in before)
    for name, got in (("q_out", q_out), ("k_cache", t["k_cache"]),
                      ("v_cache", t["v_cache"])):
        assert kvgold.tensor(got, c.dtypes[name]).tobytes() == \
            expected_bits(c, name), name


def test_qkv_size_and_head_nums_as_keywords():
    """op-plugin's test_npu_qkv_rms_norm_rope_cache.py passes qkv_size= and
    head_nums= by keyword and unpacks three outputs with is_output_qkv."""
    c = kvgold.load_case(QWEN)
    a = c.attrs
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    q_out = t.get("q_out")
    if q_out is None:
        q_out = torch.empty(t["qkv"].shape[0],
                            a["head_nums"][0] * a["qkv_size"][3],
                            dtype=t["qkv"].dtype)
    kw = {n: t[n] for n in ("k_scale", "v_scale", "k_offset", "v_offset")
          if n in t}
    kw.update({k: a[k] for k in ("epsilon", "cache_mode") if k in a})
    q_b, k_b, v_b = kvgold.npu_qkv_rms_norm_rope_cache(
        t["qkv"], t["q_gamma"], t["k_gamma"], t["cos"], t["sin"],
        t["index"], q_out, t["k_cache"], t["v_cache"],
        qkv_size=a["qkv_size"], head_nums=a["head_nums"],
        is_output_qkv=True, **kw)
    tokens = t["qkv"].shape[0]
    assert q_b.shape == (tokens, a["head_nums"][0] * a["qkv_size"][3])
    assert k_b.shape == (tokens, a["head_nums"][1] * a["qkv_size"][3])
    assert v_b.shape == (tokens, a["head_nums"][2] * a["qkv_size"][3])
    for name, got in (("q_out", q_out), ("k_cache", t["k_cache"]),
                      ("v_cache", t["v_cache"])):
        assert kvgold.tensor(got, c.dtypes[name]).tobytes() == \
            expected_bits(c, name), name
