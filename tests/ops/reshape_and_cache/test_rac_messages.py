"""A tensor of a type kvgold has not, given to ReshapeAndCache through
kvgold.run and through kvgold.reshape_and_cache, is refused as such, as
the CLI refuses it (not with advice about fp8 tags); a uint8 one still
asks for a dtype tag (the generic messages are
tests/python/test_messages.py)."""
import os

import numpy as np
import pytest
import torch

import kvgold
from conftest import VECTORS

RAC = os.path.join(VECTORS, "reshape_and_cache", "nd_fp16")


def _refusal(fn):
    with pytest.raises(kvgold.Error) as e:
        fn()
    return e.value


@pytest.mark.parametrize("flavor", ["numpy", "torch"])
def test_float64_is_not_a_tensor_type_of_the_operator(flavor):
    c = kvgold.load_case(RAC)
    x = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    key = x["key"].astype(np.float64)
    if flavor == "torch":
        x = {n: torch.from_numpy(a) for n, a in x.items()}
        key = torch.from_numpy(key)
    described = "numpy float64" if flavor == "numpy" else "torch.float64"
    for err in (
            _refusal(lambda: kvgold.run(c.op, dict(x, key=key), c.attrs)),
            _refusal(lambda: kvgold.reshape_and_cache(
                key, x["value"], x["key_cache"], x["value_cache"],
                x["slot_mapping"], inplace=False))):
        assert err.tensor == "key" and err.status == 161002, err
        assert ("%s is not a tensor type of reshape_and_cache" % described
                in err.message), err
        # which types there are, and no advice about 8-bit tags
        for tag in ("fp16", "bf16", "fp32", "int8", "int32", "int64",
                    "hif8"):
            assert tag in err.message, (tag, err)
        assert "give a dtype tag" not in err.message, err
        assert "does not say which format" not in err.message, err


def test_uint8_still_asks_for_a_tag():
    c = kvgold.load_case(RAC)
    x = {n: np.asarray(t) for n, t in c.inputs.items()}
    err = _refusal(lambda: kvgold.run(c.op, dict(
        x, key=np.zeros(x["key"].shape, np.uint8) + 7), c.attrs))
    assert err.tensor == "key" and "give a dtype tag" in err.message, err
