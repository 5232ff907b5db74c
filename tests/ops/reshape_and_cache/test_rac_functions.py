"""ReshapeAndCache from Python: a buffer-protocol index with its format's
dtype, and the ATB / torch_npu names (reshape_and_cache,
_npu_reshape_and_cache)."""
import array

import numpy as np

import kvgold


def test_buffer_protocol_with_a_tag():
    idx = array.array("i", [3, 0, 1])           # int32 by its format
    key = np.arange(3 * 2 * 16, dtype=np.float16).reshape(3, 2, 16) + 1
    kc = np.full((2, 4, 2, 16), 7, np.float16)  # blocks, block size, heads, d
    out = kvgold.run("reshape_and_cache",
                     {"key": key, "value": key * 2, "key_cache": kc,
                      "value_cache": kc.copy(), "slot_mapping": idx})
    want = kc.copy().reshape(8, 2, 16)
    want[[3, 0, 1]] = key
    assert out["key_cache"].tobytes() == want.tobytes()


def test_reshape_and_cache_atb_names():
    key = np.arange(2 * 1 * 16, dtype=np.float16).reshape(2, 1, 16) - 9
    kc = np.full((1, 4, 1, 16), 3, np.float16)
    vc = kc.copy()
    slots = np.array([2, 0], np.int32)
    assert kvgold._npu_reshape_and_cache(key, key + 1, kc, vc, slots) is None
    assert np.array_equal(kc[0, 2], key[0]) and np.array_equal(kc[0, 0],
                                                               key[1])
    assert np.array_equal(vc[0, 2], key[0] + 1)
    assert np.all(kc[0, [1, 3]] == 3)  # untouched slots
    k2, v2 = kvgold.reshape_and_cache(key, key, kc, vc, slots,
                                      inplace=False)
    assert k2 is not kc
