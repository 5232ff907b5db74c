"""A KvRmsNormRopeCache case whose caches hold no element (block_size 0),
seen by NumPy through kvgold.load_case (the other tensor edges are
tests/python/test_tensor_edges.py)."""
import os

import numpy as np

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
