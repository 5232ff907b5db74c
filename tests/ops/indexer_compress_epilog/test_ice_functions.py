"""The indexer compress epilogs from Python: the torch-named functions of
kvgold.ops.indexer_compress_epilog on every valid vector case, the caches
written in place as on the NPU (torch tensors; a uint8 tensor with its
case's tag where torch has no such dtype), expected bytes the cases'
"expected" caches (the NumPy generator's,
tools/gen/kvgen/indexer_compress_epilog.py); refusals name the tensor or
attribute and leave the caches as they were."""
import os

import pytest
import torch

import kvgold
from kvgold.ops.indexer_compress_epilog import (
    indexer_compress_epilog, indexer_compress_epilog_impl,
    indexer_compress_epilog_v2)
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "indexer_compress_epilog")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _tag(c, name, t):
    return c.dtypes[name] if t.dtype == torch.uint8 else None


def _bytes(t):
    return t.contiguous().view(torch.uint8).numpy().tobytes()


def _call(c):
    """The case through its impl's torch-named function; the caches."""
    a = c.attrs
    x = kvgold.to_torch(c.inputs["x"])
    slots = kvgold.to_torch(c.inputs["slot_mapping"])
    cache = kvgold.to_torch(c.inputs["cache"])
    if a.get("impl", "cr") == "va_v2":
        assert indexer_compress_epilog_v2(cache, x, slots,
                                          a.get("layout", 2)) is None
        return {"cache": cache}
    scale = kvgold.to_torch(c.inputs["cache_scale"])
    assert indexer_compress_epilog(
        cache, scale, x, slots, quant_mode=a.get("quant_mode", 1),
        round_scale=a.get("round_scale", True), scale=a.get("scale", 1.0),
        cache_dtype=_tag(c, "cache", cache),
        cache_scale_dtype=_tag(c, "cache_scale", scale)) is None
    return {"cache": cache, "cache_scale": scale}


def test_every_vector_case_in_place():
    """Both torch forms write the generator's bytes in place; every cr
    mode and va_v2 are covered."""
    seen = set()
    for name in CASES:
        c = _load(name)
        for tensor, t in _call(c).items():
            assert _bytes(t) == expected_bits(c, tensor), (name, tensor)
        seen.add((c.attrs.get("impl", "cr"), c.attrs.get("quant_mode", 1)))
    assert seen == {("cr", 0), ("cr", 1), ("cr", 2), ("va_v2", 1)}


def test_impl_returns_copies():
    """inplace=False leaves the caches and returns updated copies."""
    c = _load("va_v2_bf16")
    cache = kvgold.to_torch(c.inputs["cache"])
    before = _bytes(cache)
    (out,) = indexer_compress_epilog_impl(
        kvgold.to_torch(c.inputs["x"]),
        kvgold.to_torch(c.inputs["slot_mapping"]), cache, impl="va_v2",
        dtypes={"cache": "uint8"}, inplace=False)
    assert _bytes(cache) == before
    assert _bytes(out) == expected_bits(c, "cache")


def test_refusals_leave_caches():
    """A slot -2 and an unknown impl are refused by name; the caches keep
    their bytes."""
    c = _load("va_v2_bf16")
    cache = kvgold.to_torch(c.inputs["cache"])
    slots = kvgold.to_torch(c.inputs["slot_mapping"]).clone()
    slots.view(-1)[0] = -2
    before = _bytes(cache)
    with pytest.raises(kvgold.Error) as e:
        indexer_compress_epilog_v2(cache, kvgold.to_torch(c.inputs["x"]),
                                   slots)
    assert e.value.tensor == "slot_mapping"
    assert _bytes(cache) == before
    with pytest.raises(kvgold.Error) as e:
        indexer_compress_epilog_impl(kvgold.to_torch(c.inputs["x"]), slots,
                                     cache, impl="ot")
    assert e.value.tensor == "impl"
