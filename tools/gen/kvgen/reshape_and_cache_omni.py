"""Golden ReshapeAndCacheOmni, vectorised over all heads at once.

Written from the operator's definition (docs/reshape_and_cache.md), not from
the C code: every kept token of every head becomes one entry of flat index
arrays (destination slot, source row), built with repeat/cumsum, and the
whole cache is updated with a single fancy-indexed assignment. The copy is
of raw bit patterns (unsigned-integer views), so it is bit-exact for any value.

Head i = b*N + h; batch b's rows start at cum[b] = sum(seq_len[:b]).
"""
import numpy as np


def head_params(seq_len, heads):
    """Per-head L and the first source row of its batch."""
    seq_len = np.asarray(seq_len, dtype=np.int64)
    cum = np.concatenate([[0], np.cumsum(seq_len)[:-1]])
    return np.repeat(seq_len, heads), np.repeat(cum, heads)


def ragged(counts):
    """(owner, k): for every head i, k = 0 .. counts[i]-1, flattened."""
    counts = np.asarray(counts, dtype=np.int64)
    owner = np.repeat(np.arange(counts.size), counts)
    first = np.cumsum(counts) - counts
    return owner, np.arange(owner.size, dtype=np.int64) - first[owner]


def check_runs(slot, counts, total_slots):
    """Contract of a valid case: written runs inside the cache, disjoint."""
    owner, k = ragged(counts)
    s = np.asarray(slot, dtype=np.int64)[owner]
    dst = (s + k)[s >= 0]
    assert np.all(dst < total_slots), "run past the end of the cache"
    assert np.unique(dst).size == dst.size, "overlapping runs"


def omni_counts(L, wins, offset_index):
    w = np.asarray(wins, dtype=np.int64)
    o = np.asarray(offset_index, dtype=np.int64)
    active = (o != -1) & (w != 0)
    return np.where(active, L - w, L), active


def bits(a):
    """The raw bit patterns of an array (uint of the same item size)."""
    return a.view(np.dtype("u%d" % a.dtype.itemsize))


def scatter_rows(cache, rows, dst, src):
    """cache viewed as [slots, D] rows: cache[dst] = rows[src] (bit copy)."""
    flat = bits(cache.reshape(-1, cache.shape[-1]))
    flat[dst] = bits(rows.reshape(-1, rows.shape[-1]))[src]


def reshape_and_cache_omni(key, value, key_cache, value_cache, slot_mapping,
                           wins, seq_len, offset_index):
    """Return the updated (key_cache, value_cache); inputs are not changed."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads)
    counts, active = omni_counts(L, wins, offset_index)
    slot = np.asarray(slot_mapping, dtype=np.int64)
    check_runs(slot, counts, key_cache.shape[0] * key_cache.shape[1])
    owner, k = ragged(counts)
    w = np.asarray(wins, dtype=np.int64)
    # inactive heads keep everything: cut point L, nothing skipped
    cut = np.where(active, np.asarray(offset_index, dtype=np.int64), L)
    skip = np.where(active, w, 0)
    j = np.where(k < cut[owner], k, k + skip[owner])
    src = (base[owner] + j) * heads + owner % heads
    dst = slot[owner] + k
    keep = slot[owner] >= 0
    kc = key_cache.copy()
    vc = value_cache.copy()
    scatter_rows(kc, key, dst[keep], src[keep])
    scatter_rows(vc, value, dst[keep], src[keep])
    return kc, vc
