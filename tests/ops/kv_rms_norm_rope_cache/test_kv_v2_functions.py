"""KvRmsNormRopeCache V2 from Python under torch_npu's names: the v=
keyword, npu_kv_rmsnorm_rope_cache_v2 and its _functional variant, their
argument forms, return arity and order, in-place behaviour and dtypes
(op-plugin op_plugin_functions.yaml and KvRmsNormRopeCacheNpuOpApi.cpp at
517f2e7d). Expected values are the NumPy generator's (the v2_* vectors)."""
import math
import os

import pytest
import torch

import kvgold
from conftest import expected_bits

VEC = os.path.join(os.environ.get("KVG_VECTORS_DIR", ""),
                   "kv_rms_norm_rope_cache")
# Dk 192, R 64, Dv 128 (the shapes torch_npu dispatches to V2): N 2, PA_NZ,
# int8 caches with offsets, outputs on / Norm, cos broadcast, outputs off
OUT = os.path.join(VEC, "v2_a2a3_pa_nz_bf16_int8_asym_n2")
NOOUT = os.path.join(VEC, "v2_a2a3_norm_bcast_noout")
V1 = os.path.join(VEC, "ds_a2a3_pa_bf16_ckv_int8_out")

POS = ("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache")
KW = ("k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset", "v")


def load(path):
    c = kvgold.load_case(path)
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    return c, t


def args(c, t):
    """The positional tensors, then the keywords, as a torch_npu test
    writes them."""
    kw = {n: t[n] for n in KW if n in t}
    kw.update(epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"],
              is_output_kv=c.attrs.get("is_output_kv", False),
              profile=c.options.get("profile"))
    return [t[n] for n in POS], kw


def raw(x):
    """The bytes of a CPU tensor (NumPy has no bfloat16)."""
    x = x.contiguous()
    if x.dtype == torch.bfloat16:
        x = x.view(torch.int16)
    return x.numpy().tobytes()


def test_v_keyword_returns_caches_in_place_and_outputs():
    c, t = load(OUT)
    pos, kw = args(c, t)
    r = kvgold.npu_kv_rmsnorm_rope_cache(*pos, **kw)
    assert len(r) == 4
    assert r[0] is t["k_cache"] and r[1] is t["ckv_cache"]
    b, n, s = t["kv"].shape[:3]
    assert r[2].shape == (b, n, s, 192) and r[3].shape == (b, n, s, 128)
    assert r[2].dtype == r[3].dtype == torch.bfloat16
    for i, name in enumerate(("k_cache", "ckv_cache", "k_rope", "c_kv")):
        assert raw(r[i]) == expected_bits(c, name), name
    # c_kv is v, bit for bit
    assert raw(r[3]) == raw(t["v"])


def test_outputs_off_are_allocated_and_poisoned():
    c, t = load(NOOUT)
    pos, kw = args(c, t)
    assert kw["is_output_kv"] is False
    kc, cc, k_rope, c_kv = kvgold.npu_kv_rmsnorm_rope_cache(*pos, **kw)
    b, n, s = t["kv"].shape[:3]
    # the shapes torch_npu's eager code allocates for V2, whatever the mode
    assert k_rope.shape == (b, n, s, 192) and c_kv.shape == (b, n, s, 128)
    assert k_rope.dtype == c_kv.dtype == t["kv"].dtype
    assert bool(k_rope.isnan().all()) and bool(c_kv.isnan().all())
    assert math.isnan(kvgold.ops.kv_rms_norm_rope_cache.UNWRITTEN_POISON)
    assert raw(kc) == expected_bits(c, "k_cache")
    assert raw(cc) == expected_bits(c, "ckv_cache")


def test_unwritten_outputs_are_never_judged():
    c, t = load(NOOUT)
    golden = kvgold.run(c.op, t, c.attrs, c.options)
    assert "k_rope" not in golden and "c_kv" not in golden
    pos, kw = args(c, {n: x.clone() for n, x in t.items()})
    kc, cc, k_rope, _ = kvgold.npu_kv_rmsnorm_rope_cache(*pos, **kw)
    assert kvgold.compare(golden, {"k_cache": kc, "ckv_cache": cc}).passed
    with pytest.raises(kvgold.Error) as e:
        kvgold.compare(golden, {"k_cache": kc, "k_rope": k_rope})
    assert e.value.tensor == "k_rope"


def test_v2_returns_two_and_updates_the_caches_in_place():
    c, t = load(OUT)
    pos, kw = args(c, t)
    r = kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, **kw)
    assert isinstance(r, tuple) and len(r) == 2
    k_rope, c_kv = r
    assert raw(k_rope) == expected_bits(c, "k_rope")
    assert raw(c_kv) == expected_bits(c, "c_kv")
    assert raw(t["k_cache"]) == expected_bits(c, "k_cache")
    assert raw(t["ckv_cache"]) == expected_bits(c, "ckv_cache")


def test_v2_functional_returns_four_and_leaves_the_caches():
    c, t = load(OUT)
    before = {n: t[n].clone() for n in ("k_cache", "ckv_cache")}
    pos, kw = args(c, t)
    r = kvgold.npu_kv_rmsnorm_rope_cache_v2_functional(*pos, **kw)
    assert isinstance(r, tuple) and len(r) == 4
    k_rope, c_kv, kc, cc = r
    assert kc is not t["k_cache"] and cc is not t["ckv_cache"]
    for n in ("k_cache", "ckv_cache"):
        assert torch.equal(t[n], before[n]), n
    assert raw(kc) == expected_bits(c, "k_cache")
    assert raw(cc) == expected_bits(c, "ckv_cache")
    assert raw(k_rope) == expected_bits(c, "k_rope")
    assert raw(c_kv) == expected_bits(c, "c_kv")


def test_v2_without_v_is_v1():
    c, t = load(V1)
    pos, kw = args(c, t)
    k_rope, c_kv = kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, **kw)
    assert k_rope.shape == tuple(t["kv"].shape[:3]) + (64,)
    assert c_kv.shape == tuple(t["kv"].shape[:3]) + (512,)
    assert raw(k_rope) == expected_bits(c, "k_rope")
    assert raw(t["ckv_cache"]) == expected_bits(c, "ckv_cache")


def test_inplace_false_copies():
    c, t = load(OUT)
    before = t["k_cache"].clone()
    pos, kw = args(c, t)
    kc, cc, _, _ = kvgold.npu_kv_rmsnorm_rope_cache(*pos, inplace=False,
                                                    **kw)
    assert kc is not t["k_cache"] and torch.equal(t["k_cache"], before)
    assert raw(kc) == expected_bits(c, "k_cache")


def test_v_of_another_depth_is_refused_not_ignored():
    """torch_npu would run V1 and ignore a v whose dim 3 is not 128."""
    c, t = load(OUT)
    before = t["k_cache"].clone()
    pos, kw = args(c, t)
    kw["v"] = t["v"][..., :64].contiguous()
    with pytest.raises(kvgold.Error) as e:
        kvgold.npu_kv_rmsnorm_rope_cache(*pos, **kw)
    assert e.value.tensor == "v" and "128" in str(e.value)
    assert torch.equal(t["k_cache"], before)


def test_positional_keywords_are_refused():
    c, t = load(OUT)
    pos, kw = args(c, t)
    with pytest.raises(TypeError):
        kvgold.npu_kv_rmsnorm_rope_cache(*pos, t["k_rope_scale"])
    with pytest.raises(TypeError):
        kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, None, **kw)


def test_cache_dtype_ints():
    c, t = load(OUT)
    pos, kw = args(c, t)
    # the int8 caches handed over as uint8 carriers, dtype from the ints:
    # torch_npu's DType INT8 (256 + ACL_INT8) and torch.int8's ScalarType 1
    pos[5] = t["k_cache"].view(torch.uint8).clone()
    pos[6] = t["ckv_cache"].view(torch.uint8).clone()
    kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, k_cache_dtype=258,
                                        ckv_cache_dtype=1, **kw)
    assert raw(pos[5]) == expected_bits(c, "k_cache")
    assert raw(pos[6]) == expected_bits(c, "ckv_cache")
    # 290 is torch_npu.hifloat8: the K cache's codes become hif8 ones
    # (hif8 caches are the general profile's; A2/A3 quantise to int8)
    carrier = t["k_cache"].view(torch.uint8).clone()
    pos[5], pos[6] = carrier, t["ckv_cache"].view(torch.uint8).clone()
    kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, k_cache_dtype=290,
                                        ckv_cache_dtype=290,
                                        **dict(kw, profile=None))
    hif8 = kvgold.run(c.op, dict(t, k_cache=t["k_cache"].view(torch.uint8),
                                 ckv_cache=t["ckv_cache"].view(torch.uint8)),
                      c.attrs, dtypes={"k_cache": "hif8",
                                       "ckv_cache": "hif8"})
    assert raw(carrier) == raw(hif8["k_cache"])
    assert raw(carrier) != expected_bits(c, "k_cache")
    for bad in (999, "int8", True):
        with pytest.raises(kvgold.Error) as e:
            kvgold.npu_kv_rmsnorm_rope_cache_v2(*pos, k_cache_dtype=bad,
                                                **kw)
        assert e.value.tensor == "k_cache_dtype"


def test_fp16_kv_gives_fp16_outputs():
    c, t = load(os.path.join(VEC, "v2_a2a3_norm_fp16_int8_out"))
    pos, kw = args(c, t)
    _, _, k_rope, c_kv = kvgold.npu_kv_rmsnorm_rope_cache(*pos, **kw)
    assert k_rope.dtype == c_kv.dtype == torch.float16
    assert raw(k_rope) == expected_bits(c, "k_rope")
