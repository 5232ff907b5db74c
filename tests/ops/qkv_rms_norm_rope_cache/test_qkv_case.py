"""load_case on a QkvRmsNormRopeCache example: the operator and every
tensor as the files hold them."""
import os

import numpy as np

import kvgold
from conftest import example

QWEN = example("qwen3_qkv_decode")


def test_loaded_case_has_everything():
    c = kvgold.load_case(QWEN)
    assert c.op == "qkv_rms_norm_rope_cache"
    assert set(c.dtypes) == set(c.inputs) | set(c.expected)
    for n, t in c.inputs.items():
        assert isinstance(t, kvgold.Tensor) and t.dtype == c.dtypes[n]
        raw = np.load(os.path.join(QWEN, n + ".npy"))
        assert np.asarray(t).dtype == raw.dtype and np.array_equal(
            np.asarray(t), raw, equal_nan=False) or \
            np.asarray(t).tobytes() == raw.tobytes()
