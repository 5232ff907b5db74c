"""IndexerQuantCache from Python: the torch-named function of
kvgold.ops.indexer_quant_cache on every valid vector case, both caches
written in place as on the NPU (torch tensors; a uint8 tensor with its
case's tag where torch has no such dtype), expected bytes the cases'
"expected" caches (the NumPy generator's,
tools/gen/kvgen/indexer_quant_cache.py); the torch API's quant_mode
strings stated here from its source, not read from kvgold's binding;
refusals name the tensor or attribute and leave both poisoned caches as
they were."""
import os

import numpy as np
import pytest
import torch

import kvgold
from kvgold.ops.indexer_quant_cache import (indexer_quant_cache,
                                            indexer_quant_cache_impl)
from conftest import VECTORS, expected_bits

OP_DIR = os.path.join(VECTORS, "indexer_quant_cache")
CASES = sorted(n for n in os.listdir(OP_DIR) if not n.startswith("error_"))
# error_x_empty: an empty torch tensor has no storage, which kvgold refuses
# as a NULL data pointer (161001) before the emptiness rule the case
# states (161002; the case file path gives a non-NULL pointer)
ERRORS = sorted(n for n in os.listdir(OP_DIR)
                if n.startswith("error_") and n != "error_x_empty")
# the torch API's own quant_mode strings (ops-transformer 25fb6b928
# torch_extension/cann_ops_transformer/ops/indexer_quant_cache.py:18-24)
MODES = {0: "mxfp8", 1: "fp8", 2: "hifloat8", 3: "mxfp4"}
POISON = 0xA5


def _load(name):
    return kvgold.load_case(os.path.join(OP_DIR, name))


def _tag(c, name, t):
    return c.dtypes[name] if t.dtype == torch.uint8 else None


def _torch(c):
    """x, slot_mapping and the two caches as torch tensors, and the caches'
    tags where torch holds them as uint8."""
    x = kvgold.to_torch(c.inputs["x"])
    slots = kvgold.to_torch(c.inputs["slot_mapping"])
    cache = kvgold.to_torch(c.inputs["cache"])
    scale = kvgold.to_torch(c.inputs["cache_scale"])
    return x, slots, cache, scale, _tag(c, "cache", cache), \
        _tag(c, "cache_scale", scale)


def _bytes(t):
    return t.contiguous().view(torch.uint8).numpy().tobytes()


def _call(c, x, slots, cache, scale, ctag, stag):
    a = c.attrs
    mode = a.get("quant_mode", 1)
    return indexer_quant_cache(
        cache, scale, x, slots,
        quant_mode=MODES.get(mode, mode), round_scale=a.get("round_scale",
                                                            True),
        x_scale=a.get("x_scale", 1.0), cache_dtype=ctag,
        cache_scale_dtype=stag)


def test_every_vector_case_in_place():
    """The torch-named function writes the generator's bytes of both
    caches in place and returns None, leaving x and slot_mapping; every
    mode is covered."""
    seen = set()
    for name in CASES:
        c = _load(name)
        x, slots, cache, scale, ctag, stag = _torch(c)
        x0, s0 = x.clone(), slots.clone()
        assert _call(c, x, slots, cache, scale, ctag, stag) is None
        assert _bytes(cache) == expected_bits(c, "cache"), name
        assert _bytes(scale) == expected_bits(c, "cache_scale"), name
        assert torch.equal(x.view(torch.int16), x0.view(torch.int16))
        assert torch.equal(slots, s0), name
        seen.add(c.attrs.get("quant_mode", 1))
    assert seen == {0, 1, 2, 3}


def test_impl_copy_and_mode_spellings():
    """indexer_quant_cache_impl with inplace=False returns written copies
    and leaves the caches given; the API's string (any case, blanks) and
    the number agree."""
    c = _load("m2_hif8_bf16_xscale")
    x, slots, cache, scale, ctag, stag = _torch(c)
    before = (_bytes(cache), _bytes(scale))
    out, out_s = indexer_quant_cache_impl(
        x, slots, cache, scale, quant_mode=2, x_scale=c.attrs["x_scale"],
        cache_dtype=ctag, cache_scale_dtype=stag, inplace=False)
    assert _bytes(out) == expected_bits(c, "cache")
    assert _bytes(out_s) == expected_bits(c, "cache_scale")
    assert (_bytes(cache), _bytes(scale)) == before
    indexer_quant_cache(cache, scale, x, slots, quant_mode=" HiFloat8 ",
                        x_scale=c.attrs["x_scale"], cache_dtype=ctag)
    assert _bytes(cache) == expected_bits(c, "cache")


def _poisoned(c):
    x, slots, cache, scale, ctag, stag = _torch(c)
    cache.view(torch.uint8).fill_(POISON)
    scale.view(torch.uint8).fill_(POISON)
    return x, slots, cache, scale, ctag, stag


@pytest.mark.parametrize("name", ERRORS)
def test_refused_vectors_leave_both_caches(name):
    """Every refused vector case: kvgold.Error naming the case's tensor or
    attribute, both poisoned caches untouched."""
    c = _load(name)
    x, slots, cache, scale, ctag, stag = _poisoned(c)
    with pytest.raises(kvgold.Error) as e:
        indexer_quant_cache_impl(x, slots, cache, scale, cache_dtype=ctag,
                                 cache_scale_dtype=stag, **c.attrs)
    assert e.value.status == c.expect_error["status"], e.value.message
    assert e.value.tensor == c.expect_error["tensor"], e.value.message
    assert np.all(cache.view(torch.uint8).numpy() == POISON), name
    assert np.all(scale.view(torch.uint8).numpy() == POISON), name


def test_python_refusal_of_a_mode_string():
    """A string the torch API does not know is refused naming quant_mode
    and the four it knows, before the operator runs."""
    x, slots, cache, scale, ctag, stag = _poisoned(
        _load("m2_hif8_bf16_xscale"))
    with pytest.raises(kvgold.Error) as e:
        indexer_quant_cache(cache, scale, x, slots, quant_mode="fp4")
    for w in ["quant_mode", "'fp4'", "mxfp8", "hifloat8", "mxfp4"]:
        assert w in e.value.message, (w, e.value.message)
    assert np.all(cache.view(torch.uint8).numpy() == POISON)
