"""KvCompressEpilog from Python: the five torch-named functions of
kvgold.ops.kv_compress_epilog, each on every valid vector case of its
implementation, the cache written in place as on the NPU (torch tensors;
a uint8 cache with its case's tag as cache_dtype: fp8 codes where torch
has no float8, or bytes),
expected bytes the cases' "expected" cache (the NumPy generator's,
tools/gen/kvgen/kv_compress_epilog.py); the frameworks' spellings
(quant_mode strings, round_scale_flag, scale) stated here from their
sources, not read from kvgold's binding; refusals name the tensor or
attribute and leave a poisoned cache as it was."""
import os

import numpy as np
import pytest
import torch

import kvgold
from kvgold.ops.kv_compress_epilog import (
    custom_kv_compress_epilog, kv_compress_epilog, kv_compress_epilog_impl,
    kv_compress_epilog_v2, sgl_kv_compress_epilog, vllm_kv_compress_epilog)
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "kv_compress_epilog")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))
# the torch APIs' own quant_mode strings (ops-transformer 25fb6b928
# torch_extension/cann_ops_transformer/ops/kv_compress_epilog.py:20-25;
# cann-recipes-infer 5fda5b8b custom-npu_kv_compress_epilog_v2.md)
OT_MODES = {0: "fp8_bf16", 1: "fp8_e8m0", 2: "hifloat8_fp4"}
V2_MODES = {2: "mxfp8_bf16", 4: "mxfp4_bf16"}
POISON = 0xA5


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _torch(c):
    """x (bf16), slot_mapping and the cache as torch tensors, and the
    cache's tag when torch holds it as uint8 (codes or bytes)."""
    x = kvgold.to_torch(c.inputs["x"])
    slots = kvgold.to_torch(c.inputs["slot_mapping"])
    cache = kvgold.to_torch(c.inputs["cache"])
    tag = c.dtypes["cache"]
    return x, slots, cache, tag if cache.dtype == torch.uint8 else None


def _bytes(t):
    return t.contiguous().view(torch.uint8).numpy().tobytes()


def _call(c, x, slots, cache, tag):
    """The case through its implementation's torch-named function, in
    that API's spelling."""
    a = c.attrs
    impl = a.get("impl", "ot")
    mode = a.get("quant_mode", 1)
    group = a.get("quant_group_size", 0)
    rs = a.get("round_scale", True)
    if impl == "ot":
        kv_compress_epilog(cache, x, slots, quant_group_size=group or 64,
                           quant_mode=OT_MODES[mode], round_scale=rs,
                           x_scale=a.get("x_scale", 1.0))
    elif impl in ("sgk", "va"):
        fn = sgl_kv_compress_epilog if impl == "sgk" \
            else vllm_kv_compress_epilog
        fn(cache, x, slots, group or 128, mode, rs, a.get("layout", 1),
           cache_dtype=tag)
    elif impl == "cr":
        custom_kv_compress_epilog(cache, x, slots, quant_mode=mode,
                                  round_scale_flag=rs,
                                  scale=a.get("x_scale", 1.0),
                                  cache_dtype=tag)
    else:
        kv_compress_epilog_v2(cache, x, slots, quant_group_size=group or 32,
                              quant_mode=V2_MODES[mode], round_scale=rs,
                              cache_dtype=tag)


def test_every_vector_case_in_place():
    """Each torch-named function writes the generator's cache bytes in
    place, returns None, and leaves x and slot_mapping as they were, on
    every valid case of its implementation (all five are covered)."""
    seen = set()
    for name in CASES:
        c = _load(name)
        x, slots, cache, tag = _torch(c)
        x0, s0 = x.clone(), slots.clone()
        assert _bytes(cache) != expected_bits(c, "cache"), name
        assert _call(c, x, slots, cache, tag) is None
        assert _bytes(cache) == expected_bits(c, "cache"), name
        assert torch.equal(x.view(torch.int16), x0.view(torch.int16))
        assert torch.equal(slots, s0), name
        seen.add(c.attrs.get("impl", "ot"))
    assert seen == {"ot", "sgk", "va", "cr", "cr_v2"}


def test_impl_function_copy_and_numbers():
    """kv_compress_epilog_impl (kvgold's names, the impl's numbers) with
    inplace=False returns the written copy and leaves the cache given as it
    was; ot's string and number for a mode, any case and blanks, agree."""
    c = _load("ot_m0_scale16_d576")
    x, slots, cache, tag = _torch(c)
    before = _bytes(cache)
    (out,) = kv_compress_epilog_impl(x, slots, cache, impl="ot",
                                     quant_mode=0, cache_dtype=tag,
                                     inplace=False)
    assert _bytes(out) == expected_bits(c, "cache")
    assert _bytes(cache) == before
    kv_compress_epilog(cache, x, slots, quant_mode=" FP8_BF16 ")
    assert _bytes(cache) == expected_bits(c, "cache")
    cache2 = kvgold.to_torch(c.inputs["cache"])
    kv_compress_epilog(cache2, x, slots, quant_mode=0)
    assert _bytes(cache2) == expected_bits(c, "cache")


def test_v2_layout_follows_the_cache_rank():
    """cr_v2's torch API has no layout: a 4-D cache is its paged layout 2
    (kvgold's case says layout 2 explicitly; the function is not told)."""
    c = _load("crv2_m4_mxfp4_g32_l2")
    assert c.attrs["layout"] == 2
    x, slots, cache, tag = _torch(c)
    assert cache.dim() == 4
    kv_compress_epilog_v2(cache, x, slots, quant_mode="mxfp4_bf16",
                          cache_dtype=tag)
    assert _bytes(cache) == expected_bits(c, "cache")


def _poisoned(c):
    x, slots, cache, tag = _torch(c)
    cache.view(torch.uint8).fill_(POISON)
    return x, slots, cache, tag


@pytest.mark.parametrize("name", sorted(
    n for n in os.listdir(OP_DIR) if n.startswith("error_")))
def test_refused_vectors_leave_the_cache(name):
    """Every refused vector case, through its implementation's function
    (sgk's x_scale, which its API has not, through
    kv_compress_epilog_impl): kvgold.Error naming the case's tensor or
    attribute, the poisoned cache untouched."""
    c = _load(name)
    x, slots, cache, tag = _poisoned(c)
    with pytest.raises(kvgold.Error) as e:
        if "x_scale" in c.attrs and c.attrs["impl"] == "sgk":
            kv_compress_epilog_impl(x, slots, cache, cache_dtype=tag,
                                    **c.attrs)
        elif c.attrs.get("quant_mode") not in OT_MODES and \
                c.attrs.get("impl") == "ot":
            kv_compress_epilog(cache, x, slots,
                               quant_mode=c.attrs["quant_mode"])
        else:
            _call(c, x, slots, cache, tag)
    assert e.value.status == c.expect_error["status"], e.value.message
    assert e.value.tensor == c.expect_error["tensor"], e.value.message
    assert np.all(cache.view(torch.uint8).numpy() == POISON), name


@pytest.mark.parametrize("call, words", [
    # ot's strings only (cann_ops_transformer's _resolve_quant_mode)
    (lambda x, s, k: kv_compress_epilog(k, x, s, quant_mode="fp8"),
     ["quant_mode", "'fp8'", "fp8_e8m0", "hifloat8_fp4"]),
    # cr_v2's torch API refuses an int quant_mode
    (lambda x, s, k: kv_compress_epilog_v2(k, x, s, quant_mode=2),
     ["quant_mode", "mxfp8_bf16", "mxfp4_bf16"]),
    (lambda x, s, k: kv_compress_epilog_impl(x, s, k, impl="sgl"),
     ["impl", "'sgl'", "cr_v2"]),
])
def test_python_refusals(call, words):
    """What the Python functions refuse before the operator runs, with the
    words of their messages; the poisoned cache untouched."""
    x, slots, cache, _ = _poisoned(_load("ot_m1_e8m0_d576_int32"))
    with pytest.raises(kvgold.Error) as e:
        call(x, slots, cache)
    for w in words:
        assert w in e.value.message, (w, e.value.message)
    assert np.all(cache.view(torch.uint8).numpy() == POISON)


@pytest.mark.parametrize("name", ["cr_m1_fp8_d576", "cr_m3_hif8_row",
                                  "crv2_m4_mxfp4_g16_l1"])
def test_uint8_cache_without_its_tag_is_refused(name):
    """A torch.uint8 cache without cache_dtype (fp8 codes or bytes: the
    storage does not say) is refused naming the cache, not guessed, and
    left as it was; ot's function alone assumes uint8, its API's only
    cache dtype (test_every_vector_case_in_place passes no tag there)."""
    c = _load(name)
    x, slots, cache, _ = _poisoned(c)
    mode = c.attrs["quant_mode"]
    with pytest.raises(kvgold.Error) as e:
        if c.attrs["impl"] == "cr":
            custom_kv_compress_epilog(cache, x, slots, quant_mode=mode)
        else:
            kv_compress_epilog_v2(cache, x, slots, quant_mode=V2_MODES[mode],
                                  quant_group_size=16)
    assert e.value.tensor == "cache"
    assert "dtype tag" in e.value.message
    assert np.all(cache.view(torch.uint8).numpy() == POISON)


def test_ttk_goldens_take_the_apis_keywords():
    """kvgold.ttk's goldens take the attributes by the keywords `kvgold
    prepare` writes in ops-test-kit's CSV - the API's own (cr's
    round_scale_flag and scale) and its values (ot's quant_mode strings)
    -, return [None, cache] (the API returns None) and leave the cache
    given as it was. round_scale_flag=False changes the bytes
    (cr_m2_trunc_e5m2_d320 is the R-TRUNC case), so a dropped keyword
    would fail."""
    import kvgold.ttk as kt
    c = _load("cr_m2_trunc_e5m2_d320")
    assert c.attrs["round_scale"] is False
    cache = c.inputs["cache"]
    before = np.asarray(cache).tobytes()
    none, out = kt.kv_compress_epilog_cr_golden(
        cache, c.inputs["x"], c.inputs["slot_mapping"], quant_mode=2,
        round_scale_flag=False, scale=1.0)
    assert none is None
    assert np.asarray(out).tobytes() == expected_bits(c, "cache")
    assert np.asarray(cache).tobytes() == before
    c = _load("ot_m0_scale16_d576")
    x, slots, cache, _ = _torch(c)
    none, out = kt.kv_compress_epilog_ot_golden(cache, x, slots,
                                                quant_mode="fp8_bf16")
    assert _bytes(out) == expected_bits(c, "cache")


def test_each_api_implies_its_impl():
    """The implementation each torch API is (from its repository), as the
    call forms give it to a dumped call that names only the API (`kvgold
    scan`), and as they select the form for a case (`kvgold prepare`);
    ot, the operator's default, is given by none."""
    import kvgold.ops
    from kvgold.ops._common import framework_value
    want = {"torch.ops.npu.kv_compress_epilog": "sgk",
            "torch.ops._C_ascend.kv_compress_epilog": "va",
            "torch.ops.custom.kv_compress_epilog": "cr",
            "torch.ops.custom.kv_compress_epilog_v2": "cr_v2"}
    forms = kvgold.ops.TORCH_NPU_CALLS["kv_compress_epilog"]
    assert {f["api"] for f in forms} == set(want) | {
        "cann_ops_transformer.kv_compress_epilog",
        "torch.ops.cann_ops_transformer.kv_compress_epilog"}
    for f in forms:
        if f["api"] in want:
            assert framework_value(f["api"], "impl", {}) == want[f["api"]]
            assert f["selector"] == "impl=" + want[f["api"]]
        else:
            assert "selector" not in f
            with pytest.raises(kvgold.Error):
                framework_value(f["api"], "impl", {})
