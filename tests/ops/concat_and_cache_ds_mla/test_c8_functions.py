"""The packed C8 MLA row from Python: kvgold.ops.concat_and_cache_ds_mla's
functions on every valid vector case, the cache written in place (torch
tensors; an fp8 cache, which torch 1.13 cannot hold, as uint8 codes with
cache_dtype), the bytes the cases' "expected" cache (the independent NumPy
generator's, tools/gen/kvgen/concat_and_cache_ds_mla.py); vLLM's call
form and spellings (kv_cache_dtype "fp8_ds_mla", a one-element tensor
scale) stated here from vLLM's schema, not read from kvgold; refusals
name the tensor or argument and leave a poisoned cache as it was."""
import os

import numpy as np
import pytest
import torch

import kvgold
from kvgold.ops.concat_and_cache_ds_mla import (concat_and_cache_ds_mla,
                                                concat_and_cache_mla)
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "concat_and_cache_ds_mla")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))
POISON = 0xA5


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _bytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _tensors(c):
    """The case's inputs as torch tensors, and the cache's tag when torch
    holds it as uint8 codes."""
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    tag = c.dtypes["kv_cache"]
    return t, tag if t["kv_cache"].dtype == torch.uint8 else None


def _run(c, t, tag):
    """The case through its preset's function: vLLM's call form, or the
    kvgold-named one for the Ascend composite."""
    a = c.attrs
    if a.get("preset") == "vllm-fp8_ds_mla":
        return concat_and_cache_mla(
            t["kv_c"], t["k_pe"], t["kv_cache"], t["slot_mapping"],
            "fp8_ds_mla", t.get("scale", torch.tensor(1.0)),
            use_ue8m0=a.get("use_ue8m0", False), cache_dtype=tag or "uint8")
    (out,) = concat_and_cache_ds_mla(
        t["kv_c"], t["k_pe"], t["kv_cache"], t["slot_mapping"],
        preset=a.get("preset", "ascend-sfa-c8"), gamma=t.get("gamma"),
        cos=t.get("cos"), sin=t.get("sin"), epsilon=a.get("epsilon", 1e-5),
        reduce_order=(c.options or {}).get("reduce_order"),
        block_size=a.get("block_size", 0), cache_dtype=tag)
    assert out is t["kv_cache"]
    return None


def test_every_vector_case_in_place():
    """Every preset writes the generator's bytes in place, vLLM's form
    returns None, and the inputs stay as they were."""
    seen = set()
    for name in CASES:
        c = _load(name)
        t, tag = _tensors(c)
        before = {n: _bytes(v) for n, v in t.items() if n != "kv_cache"}
        if bool((t["slot_mapping"] >= 0).any()):  # not all pad slots
            assert _bytes(t["kv_cache"]) != expected_bits(c, "kv_cache")
        assert _run(c, t, tag) is None
        assert _bytes(t["kv_cache"]) == expected_bits(c, "kv_cache"), name
        assert {n: _bytes(v) for n, v in t.items()
                if n != "kv_cache"} == before, name
        seen.add(c.attrs.get("preset", "ascend-sfa-c8"))
    assert seen >= {"ascend-sfa-c8", "vllm-fp8_ds_mla"}


def test_model1_block_layout():
    """flashmla-model1 from first principles: kv_c all 1.0 gives v =
    1/448 in (2^-9, 2^-8], so k = -8 (E8M0 byte 119) and every code
    1 / 2^-8 = 256 (e4m3fn 0x78); k_pe copied. block_size 2: a block of
    ceil(2 * 584 / 576) * 576 = 1728 bytes, token r's [nope | rope] at
    r * 576, its 7 scale bytes at 1152 + r * 8 - the 8th (the pad) and the
    block's tail [1168, 1728) keep the poison. A missing block_size is
    refused naming it."""
    kv_c = torch.full((2, 448), 1.0, dtype=torch.bfloat16)
    k_pe = torch.arange(128, dtype=torch.int16).view(2, 64).view(
        torch.bfloat16)
    slots = torch.tensor([3, -1], dtype=torch.int64)
    cache = torch.full((2, 1728), POISON, dtype=torch.uint8)
    (out,) = concat_and_cache_ds_mla(kv_c, k_pe, cache, slots,
                                     preset="flashmla-model1", block_size=2,
                                     cache_dtype="uint8")
    assert out is cache
    want = np.full((2, 1728), POISON, dtype=np.uint8)
    row = 1 * 576  # slot 3: block 1, row 1
    want[1, row:row + 448] = 0x78
    want[1, row + 448:row + 576] = np.frombuffer(_bytes(k_pe[0]),
                                                 dtype=np.uint8)
    want[1, 2 * 576 + 8:2 * 576 + 15] = 119
    assert cache.numpy().tobytes() == want.tobytes()
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_ds_mla(kv_c, k_pe, cache, slots,
                                preset="flashmla-model1", cache_dtype="uint8")
    assert e.value.tensor == "block_size"
    assert cache.numpy().tobytes() == want.tobytes()


def test_vllm_use_ue8m0():
    """vllm-fp8_ds_mla from first principles: kv_c all 1.0, amax 1, v =
    1/448. use_ue8m0=False stores fmaxf(v, FLT_MIN) = fl(1/448)
    (0x3B124925) and codes 1 / v = 448 (e4m3fn 0x7E); use_ue8m0=True rounds
    v up to 2^-8 (0x3B800000: 2^-9 < 1/448 <= 2^-8) and the codes are
    1 / 2^-8 = 256 (0x78), in both function forms. Another preset refuses
    it, naming it, and leaves the cache."""
    kv_c = torch.full((1, 512), 1.0, dtype=torch.bfloat16)
    k_pe = torch.arange(64, dtype=torch.int16).view(1, 64).view(
        torch.bfloat16)
    slots = torch.tensor([1], dtype=torch.int64)

    def want(scale_bits, code):
        w = np.full((2, 656), POISON, dtype=np.uint8)
        w[1, :512] = code
        w[1, 512:528] = np.frombuffer(
            np.array([scale_bits] * 4, dtype="<u4").tobytes(), np.uint8)
        w[1, 528:] = np.frombuffer(_bytes(k_pe[0]), dtype=np.uint8)
        return w.tobytes()

    for ue8m0, scale_bits, code in ((False, 0x3B124925, 0x7E),
                                    (True, 0x3B800000, 0x78)):
        cache = torch.full((2, 656), POISON, dtype=torch.uint8)
        concat_and_cache_mla(kv_c, k_pe, cache, slots, "fp8_ds_mla", 1.0,
                             use_ue8m0=ue8m0)
        assert cache.numpy().tobytes() == want(scale_bits, code), ue8m0
        cache = torch.full((2, 656), POISON, dtype=torch.uint8)
        concat_and_cache_ds_mla(kv_c, k_pe, cache, slots,
                                preset="vllm-fp8_ds_mla", use_ue8m0=ue8m0,
                                cache_dtype="uint8")
        assert cache.numpy().tobytes() == want(scale_bits, code), ue8m0
    cache = torch.full((2, 1728), POISON, dtype=torch.uint8)
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_ds_mla(kv_c[:, :448], k_pe, cache, slots,
                                preset="flashmla-model1", block_size=2,
                                use_ue8m0=True, cache_dtype="uint8")
    assert e.value.tensor == "use_ue8m0"
    assert "flashmla-model1 has no use_ue8m0" in str(e.value)
    assert cache.numpy().tobytes() == bytes([POISON]) * 2 * 1728


def test_copy_leaves_the_cache():
    """inplace=False returns the written copy; the cache given is as it
    was."""
    c = _load("vllm_rows_skip_negative")
    t, _ = _tensors(c)
    before = _bytes(t["kv_cache"])
    (out,) = concat_and_cache_ds_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                                     t["slot_mapping"],
                                     preset="vllm-fp8_ds_mla",
                                     cache_dtype="uint8", inplace=False)
    assert _bytes(out) == expected_bits(c, "kv_cache")
    assert _bytes(t["kv_cache"]) == before


def test_vllm_form_refusals():
    """Another kv_cache_dtype is another row (refused, naming it); scale
    must be one number; a refused call leaves the poisoned cache."""
    c = _load("vllm_rows_skip_negative")
    t, _ = _tensors(c)
    t["kv_cache"].fill_(POISON)
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                             t["slot_mapping"], "auto", torch.ones(1))
    assert "kv_cache_dtype" in str(e.value)
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                             t["slot_mapping"], "fp8_ds_mla", torch.ones(2))
    assert "scale" in str(e.value)
    bad = t["kv_c"].clone()
    written = int(np.flatnonzero(t["slot_mapping"].reshape(-1).numpy() >= 0)[0])
    bad.view(torch.int16).reshape(-1, 512)[written, 3] = 0x7F80  # +inf
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_mla(bad, t["k_pe"], t["kv_cache"],
                             t["slot_mapping"], "fp8_ds_mla", torch.ones(1))
    assert "kv_c: token %d, column 3: bf16 0x7F80 is not finite" % written \
        in str(e.value), str(e.value)
    assert set(np.unique(t["kv_cache"].numpy())) == {POISON}


def test_ascend_needs_its_front_end_inputs():
    """The Ascend composite without gamma is refused naming it; a pad slot
    -1 is skipped (npu_scatter_nd_update_ changes no cache byte for it)
    while a slot past the cache is refused naming slot_mapping."""
    c = _load("ascend_a2_int8_rows")
    t, tag = _tensors(c)
    t["kv_cache"].fill_(0x5A)
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_ds_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                                t["slot_mapping"], cos=t["cos"],
                                sin=t["sin"], cache_dtype=tag)
    assert "gamma" in str(e.value)
    slots = t["slot_mapping"].clone()
    slots[0] = -1
    slots[1] = t["kv_cache"].shape[0]
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_ds_mla(t["kv_c"], t["k_pe"], t["kv_cache"], slots,
                                gamma=t["gamma"], cos=t["cos"],
                                sin=t["sin"], cache_dtype=tag)
    assert "slot_mapping" in str(e.value) and "outside" in str(e.value)
    assert set(np.unique(t["kv_cache"].numpy())) == {0x5A}
    slots[1] = -1
    (out,) = concat_and_cache_ds_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                                     slots, gamma=t["gamma"], cos=t["cos"],
                                     sin=t["sin"], cache_dtype=tag)
    rows = out.reshape(-1, 656).view(torch.uint8).numpy()
    written = set(int(v) for v in slots.reshape(-1).numpy() if v >= 0)
    for r in range(rows.shape[0]):
        assert (set(np.unique(rows[r])) == {0x5A}) == (r not in written), r


def test_vllm_form_takes_a_number_for_scale():
    """scale given as a Python number (a 0-d float32 to the operator):
    the same bytes as with vLLM's tensor, since the kernel never reads
    it; something that is no number is refused naming scale."""
    c = _load("vllm_rows_skip_negative")
    t, _ = _tensors(c)
    concat_and_cache_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                         t["slot_mapping"], "fp8_ds_mla", 0.25)
    assert _bytes(t["kv_cache"]) == expected_bits(c, "kv_cache")
    with pytest.raises(kvgold.Error) as e:
        concat_and_cache_mla(t["kv_c"], t["k_pe"], t["kv_cache"],
                             t["slot_mapping"], "fp8_ds_mla", "one")
    assert e.value.tensor == "scale"
