"""save_case with ReshapeAndCache's fp8 / HiFloat8 caches: uint8 storage
needs a dtype tag, checked before anything is written."""
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
    back = kvgold.load_case(str(target))
    assert back.dtypes["key_cache"] == "hif8"
    assert np.asarray(back.inputs["key_cache"]).tobytes() == codes.tobytes()
    assert torch.equal(kvgold.to_torch(back.inputs["key_cache"]),
                       torch.arange(8, dtype=torch.uint8))
