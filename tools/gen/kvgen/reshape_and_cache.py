"""Golden ReshapeAndCache: ND / NZ token writes and the KVHEAD / KVHEAD_ROPE
head-compression modes, vectorised over whole tensors.

Written from the operator's definition (docs/reshape_and_cache.md), not from
the C code. Token writes are one fancy-indexed assignment per cache; the
head modes are the shared per-head run engine (kvgen/head_runs.py: kvhead,
kvhead_rope).
"""
import numpy as np

from .head_runs import bits, kvhead, kvhead_rope  # noqa: F401
from .head_runs import window_means  # noqa: F401


# ---- compress_type UNDEFINED ----------------------------------------------

def _nd(cache, src, slot):
    """cache [NB, BS, N, D]: token t -> row slot[t] of the [NB*BS, N*D] view."""
    out = cache.copy()
    keep = slot >= 0
    view = bits(out.reshape(-1, src.shape[1] * src.shape[2]))
    view[slot[keep]] = bits(src.reshape(src.shape[0], -1))[keep]
    return out


def _nz(cache, src, slot):
    """cache [NB, G, BS, C0]: token t, chunk g of its N*D channels ->
    cache[slot // BS, g, slot % BS, :]."""
    out = cache.copy()
    keep = slot >= 0
    nb, groups, bs, c0 = cache.shape
    chunks = bits(src.reshape(src.shape[0], groups, c0))[keep]
    s = slot[keep]
    view = bits(out)
    view[(s // bs)[:, None], np.arange(groups)[None, :], (s % bs)[:, None]] = \
        chunks
    return out


def _check_tokens(slot, total):
    s = slot[slot >= 0]
    assert np.all(s < total), "slot out of range"
    assert np.unique(s).size == s.size, "duplicate slots"


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping,
                      layout="ND"):
    slot = np.asarray(slot_mapping, dtype=np.int64)
    if layout == "ND":
        _check_tokens(slot, key_cache.shape[0] * key_cache.shape[1])
        return _nd(key_cache, key, slot), _nd(value_cache, value, slot)
    _check_tokens(slot, key_cache.shape[0] * key_cache.shape[2])
    return _nz(key_cache, key, slot), _nz(value_cache, value, slot)


def reshape_and_cache_siso(key, key_cache, slot_mapping):
    """Key only (kv_cache_cfg K_CACHE_V_BYPASS): the ND token write of key."""
    slot = np.asarray(slot_mapping, dtype=np.int64)
    _check_tokens(slot, key_cache.shape[0] * key_cache.shape[1])
    return _nd(key_cache, key, slot)
