"""ReshapeAndCache as ATB's ReshapeAndCacheOperation and as
torch_npu._npu_reshape_and_cache (torch_npu's binding of it)."""
from ._common import call

__all__ = ["reshape_and_cache", "_npu_reshape_and_cache"]


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, *,
                      wins=None, seq_len=None, offset_index=None,
                      compress_type="UNDEFINED", cache_layout="ND",
                      dtypes=None, inplace=True):
    """ATB ReshapeAndCache: compress_type is its CompressType without the
    COMPRESS_TYPE_ prefix; cache_layout "NZ" is kvCacheCfg
    K_CACHE_V_CACHE_NZ. Returns (key_cache, value_cache)."""
    out = call("reshape_and_cache", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index),
        dict(compress_type=compress_type, cache_layout=cache_layout), None,
        dtypes, inplace)
    return out["key_cache"], out["value_cache"]


def _npu_reshape_and_cache(key, value, key_cache, value_cache, slot_indices):
    """torch_npu._npu_reshape_and_cache: ATB ReshapeAndCache with its
    default parameters, key_cache and value_cache updated in place;
    returns None as torch_npu does."""
    reshape_and_cache(key, value, key_cache, value_cache, slot_indices)
