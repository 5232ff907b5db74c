"""ReshapeAndCacheOmni as ATB's ReshapeAndCacheOmniOperation."""
from typing import Tuple

from .._types import DTypes, TensorLike
from ._common import call

__all__ = ["reshape_and_cache_omni"]


def reshape_and_cache_omni(key: TensorLike, value: TensorLike,
                           key_cache: TensorLike, value_cache: TensorLike,
                           slot_mapping: TensorLike, wins: TensorLike,
                           seq_len: TensorLike, offset_index: TensorLike, *,
                           dtypes: DTypes = None, inplace: bool = True
                           ) -> Tuple[TensorLike, TensorLike]:
    """ATB ReshapeAndCacheOmni (8 inputs, no parameters). Returns
    (key_cache, value_cache)."""
    out = call("reshape_and_cache_omni", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index), None, None, dtypes, inplace)
    return out["key_cache"], out["value_cache"]
