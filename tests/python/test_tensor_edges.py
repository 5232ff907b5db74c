"""Tensors at the edges of what kvgold takes: an empty kvgold.Tensor seen
by NumPy."""
import os

import numpy as np
import pytest

import kvgold
from conftest import VECTORS

EMPTY_CASE = os.path.join(VECTORS, "kv_rms_norm_rope_cache",
                          "v2_err_block_size_0")


def test_empty_case_tensors_are_empty_arrays():
    # block_size 0: both caches hold no element; NumPy's own reader says
    # what their arrays must be
    c = kvgold.load_case(EMPTY_CASE)
    for name in ("k_cache", "ckv_cache"):
        want = np.load(os.path.join(EMPTY_CASE, name + ".npy"))
        assert want.size == 0 and want.dtype == np.uint16
        got = np.asarray(c.inputs[name])
        assert got.dtype == want.dtype and got.shape == want.shape, name
    # the others are still their storage, shared and not copied
    kv = c.inputs["kv"]
    a = np.asarray(kv)
    assert a.tobytes() == np.load(os.path.join(EMPTY_CASE,
                                               "kv.npy")).tobytes()
    assert a.any()
    a.reshape(-1)[0] ^= 1
    assert kv.tobytes()[:2] == a.reshape(-1)[:1].tobytes()


@pytest.mark.parametrize("tag", ["fp16", "bf16", "fp32", "int8", "int32",
                                 "int64", "fp8_e4m3fn", "hif8"])
def test_empty_tensor_of_every_storage(tag):
    storage = {"fp16": np.float16, "bf16": np.uint16, "fp32": np.float32,
               "int8": np.int8, "int32": np.int32, "int64": np.int64,
               "fp8_e4m3fn": np.uint8, "hif8": np.uint8}[tag]
    for shape in ((0,), (3, 0), (2, 0, 5)):
        a = np.asarray(kvgold.Tensor(b"", tag, shape))
        assert a.dtype == storage and a.shape == shape
    # and back: an empty array is an empty kvgold.Tensor of its tag
    t = kvgold.tensor(np.zeros((4, 0), storage), tag)
    assert t.shape == (4, 0) and t.nbytes == 0 and t.dtype == tag
