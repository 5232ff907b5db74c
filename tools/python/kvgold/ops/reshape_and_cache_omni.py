"""ReshapeAndCacheOmni as ATB's ReshapeAndCacheOmniOperation."""
from ._common import call

__all__ = ["reshape_and_cache_omni"]


def reshape_and_cache_omni(key, value, key_cache, value_cache, slot_mapping,
                           wins, seq_len, offset_index, *, dtypes=None,
                           inplace=True):
    """ATB ReshapeAndCacheOmni (8 inputs, no parameters). Returns
    (key_cache, value_cache)."""
    out = call("reshape_and_cache_omni", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index), None, None, dtypes, inplace)
    return out["key_cache"], out["value_cache"]
