"""save_case with ReshapeAndCache's fp8 / HiFloat8 caches: uint8 storage
needs a dtype tag, checked before anything is written."""
import json

import numpy as np
import pytest
import torch

import kvgold


def test_fp8_storage_needs_a_tag_to_save(tmp_path):
    codes = np.arange(8, dtype=np.uint8)
    target = tmp_path / "c"
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(str(target), "reshape_and_cache",
                         {"key_cache": codes})
    assert e.value.tensor == "key_cache"
    assert not target.exists()     # nothing written before the check
    kvgold.save_case(str(target), "reshape_and_cache",
                     {"key_cache": codes}, dtypes={"key_cache": "hif8"})
    doc = json.loads((target / "case.json").read_text())
    assert doc["inputs"]["key_cache"]["dtype"] == "hif8"
    saved = np.load(str(target / "key_cache.npy"))
    assert saved.dtype == np.uint8 and saved.tobytes() == codes.tobytes()
    assert torch.equal(kvgold.to_torch(saved, "hif8"),
                       torch.arange(8, dtype=torch.uint8))
    # a case without the operator's required inputs is one `kvgold check`
    # refuses, and so does load_case
    with pytest.raises(kvgold.Error) as e:
        kvgold.load_case(str(target))
    assert e.value.tensor == "key" and "required" in e.value.message
