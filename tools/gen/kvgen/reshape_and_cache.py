"""Golden ReshapeAndCache: ND / NZ token writes and the KVHEAD / KVHEAD_ROPE
head-compression modes, vectorised over whole tensors.

Written from the operator's definition (docs/reshape_and_cache.md), not from
the C code. Token writes are one fancy-indexed assignment per cache; the
head modes build flat (destination slot, source row) arrays for every kept
token of every head (as kvgen/reshape_and_cache_omni.py) and compute all
compensation tokens of KVHEAD_ROPE together.
"""
import numpy as np

from . import formats
from .reshape_and_cache_omni import bits, check_runs, head_params, ragged
from .reshape_and_cache_omni import scatter_rows

F32 = np.float32


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


# ---- KVHEAD ---------------------------------------------------------------

def kvhead(key, value, key_cache, value_cache, slot_mapping, wins, seq_len):
    """Head i keeps the last wins[i] tokens of its batch."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads)
    w = np.asarray(wins, dtype=np.int64)
    slot = np.asarray(slot_mapping, dtype=np.int64)
    check_runs(slot, w, key_cache.shape[0] * key_cache.shape[1])
    owner, k = ragged(w)
    src = (base[owner] + L[owner] - w[owner] + k) * heads + owner % heads
    dst = slot[owner] + k
    keep = slot[owner] >= 0
    kc, vc = key_cache.copy(), value_cache.copy()
    scatter_rows(kc, key, dst[keep], src[keep])
    scatter_rows(vc, value, dst[keep], src[keep])
    return kc, vc


# ---- KVHEAD_ROPE ----------------------------------------------------------

def window_means(x, tag, heads, head_ids, base, first, length):
    """Per head i in head_ids (h = i % heads, batch rows from base), the
    binary32 mean of rows [first, first+length) of x[:, h]:
    acc = +0, acc = acc + row in token order, acc / float(length); then RNE
    into `tag` (overflow to inf, NaN canonical). Heads are processed together; positions past a head's window
    add +0, which leaves an accumulator that started at +0 unchanged."""
    dim = x.shape[2]
    vals = formats.decode(tag, x).reshape(-1, dim)
    acc = np.zeros((length.size, dim), dtype=F32)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, max + max
        for m in range(int(length.max())):
            live = m < length
            rows = (base + first + np.minimum(m, length - 1)) * heads + \
                head_ids % heads
            step = np.where(live[:, None], vals[rows], F32(0.0))
            acc = acc + step
        mean = acc / length.astype(F32)[:, None]
    # the mean is arithmetic: a NaN is stored as the canonical NaN
    return bits(formats.encode_output(tag, mean))


def kvhead_rope(key, value, key_cache, value_cache, slot_mapping, wins,
                seq_len, offset_index, tag):
    """[0, o), one mean token of [o, o+w), [o+w, L); all L when o == -1 or
    w == 0. `tag` is the dtype ("fp16" / "bf16")."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads)
    w = np.asarray(wins, dtype=np.int64)
    o = np.asarray(offset_index, dtype=np.int64)
    slot = np.asarray(slot_mapping, dtype=np.int64)
    active = (o != -1) & (w != 0)
    counts = np.where(active, L - w + 1, L)
    check_runs(slot, counts, key_cache.shape[0] * key_cache.shape[1])
    owner, k = ragged(counts)
    cut = np.where(active, o, L)[owner]
    j = np.where(k < cut, k, k - 1 + w[owner])   # past the mean token
    is_copy = (k != cut) & (slot[owner] >= 0)
    src = (base[owner] + j) * heads + owner % heads
    dst = slot[owner] + k
    mean_heads = np.nonzero(active & (slot >= 0))[0]
    out = []
    for x, cache in ((key, key_cache), (value, value_cache)):
        c = cache.copy()
        scatter_rows(c, x, dst[is_copy], src[is_copy])
        if mean_heads.size:
            m = window_means(x, tag, heads, mean_heads, base[mean_heads],
                             o[mean_heads], w[mean_heads])
            flat = bits(c.reshape(-1, c.shape[-1]))
            flat[slot[mean_heads] + o[mean_heads]] = m
        out.append(c)
    return out[0], out[1]
