"""Golden ScatterPaKvCache: per-token byte copies into Norm, NHSD and PA_NZ
caches, from contiguous or strided (Nct) sources, vectorised over whole
tensors.

Written from the operator's definition (docs/scatter_pa_kv_cache.md and the
ops-transformer kernels it cites), not from the C code. Every tensor is
handled as raw bytes (a uint8 view of its last axis), so every dtype, the
packed fp4 pairs included, is the same code: a copy moves whole bytes.
The compressed modes are the shared per-head run golden (kvgen/head_runs.py):
Alibi = KVHEAD, Rope = KVHEAD_ROPE (its mean token: binary32 from +0 in token
order, one division by float(w), RNE), Omni = Omni.
"""
import numpy as np

from . import head_runs


def _bytes(a):
    """A C-order array as [..., last*itemsize] uint8 (a view)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(a.shape[:-1] + (-1,)) if a.ndim else \
        a.reshape(1).view(np.uint8)


def _bits(a):
    """The raw bit patterns of an array (uint of the same item size), so no
    NaN is ever touched by a float conversion."""
    return a.view(np.dtype("u%d" % a.dtype.itemsize))


def check_slots(slot, total, negative_ok=True):
    """The oracle's refusals: a slot past the cache, two tokens on one slot,
    and (NHSD) any negative slot. Raises ValueError naming the token."""
    for t, s in enumerate(slot):
        if s < 0 and not negative_ok:
            raise ValueError("token %d: negative slot %d" % (t, s))
        if s >= total:
            raise ValueError("token %d: slot %d outside [0, %d)"
                             % (t, s, total))
    s = slot[slot >= 0]
    if np.unique(s).size != s.size:
        raise ValueError("duplicate slots")


def token_rows(src, tokens, width, stride=None, offset=0):
    """[tokens, width] elements of src: contiguous rows, or (Nct) the width
    elements from t*stride + offset of src's flat storage."""
    flat = np.ascontiguousarray(src).reshape(-1)
    if stride is None:
        return flat.reshape(tokens, width)
    idx = (np.arange(tokens)[:, None] * stride + offset +
           np.arange(width)[None, :])
    return flat[idx]


def norm(cache, rows, slot):
    """cache [NB, BS, N, D]: token t's N*D elements -> flat slot slot[t]."""
    out = cache.copy()
    keep = slot >= 0
    view = _bytes(out.reshape(-1, rows.shape[1]))
    view[slot[keep]] = _bytes(rows)[keep]
    return out


def nhsd(cache, rows, slot):
    """cache [NB, N, BS, D]: head h of token t -> cache[s//BS, h, s%BS]."""
    out = cache.copy()
    nb, n, bs, d = cache.shape
    keep = slot >= 0
    s = slot[keep]
    heads = _bits(rows).reshape(rows.shape[0], n, d)[keep]
    v = _bits(out).reshape(nb, n, bs, d)
    v[(s // bs)[:, None], np.arange(n)[None, :], (s % bs)[:, None]] = heads
    return out


def pa_nz(cache, rows, slot):
    """cache [NB, N*D/C0, BS, C0] or [NB, N, D/C0, BS, C0] (the same bytes):
    chunk g of C0 elements of token t -> [s//BS, g, s%BS, :]."""
    out = cache.copy()
    c0 = cache.shape[-1]
    bs = cache.shape[-2]
    nb = cache.shape[0]
    groups = rows.shape[1] // c0
    keep = slot >= 0
    s = slot[keep]
    v = _bits(out).reshape(nb, groups, bs, c0)
    chunks = _bits(rows).reshape(rows.shape[0], groups, c0)[keep]
    v[(s // bs)[:, None], np.arange(groups)[None, :], (s % bs)[:, None]] = \
        chunks
    return out


def scatter_pa_kv_cache(key, key_cache, slot_mapping, value=None,
                        value_cache=None, cache_mode="Norm",
                        scatter_mode="None", strides=(1, 1), offsets=(0, 0)):
    """(key_cache', value_cache') after the call (value_cache' None when
    key-only). Refused calls raise ValueError."""
    slot = np.asarray(slot_mapping, dtype=np.int64)
    tokens = slot.shape[0]
    nz = cache_mode == "PA_NZ"
    if nz:
        nb, bs = key_cache.shape[0], key_cache.shape[-2]
    elif scatter_mode == "NHSD":
        nb, bs = key_cache.shape[0], key_cache.shape[2]
    else:
        nb, bs = key_cache.shape[0], key_cache.shape[1]
    check_slots(slot, nb * bs, negative_ok=scatter_mode != "NHSD")
    out = []
    sides = [(key, key_cache, 0)]
    if value_cache is not None:
        sides.append((value, value_cache, 1))
    for src, cache, i in sides:
        if scatter_mode == "Nct":
            width = cache.shape[2] * cache.shape[3]
            rows = token_rows(src, tokens, width, strides[i], offsets[i])
        else:
            rows = token_rows(src, tokens, src.shape[1] * src.shape[2])
        if nz:
            out.append(pa_nz(cache, rows, slot))
        elif scatter_mode == "NHSD":
            out.append(nhsd(cache, rows, slot))
        else:
            out.append(norm(cache, rows, slot))
    return out[0], (out[1] if len(out) > 1 else None)


def compressed(key, value, key_cache, value_cache, slot_mapping,
               scatter_mode, compress_lens, seq_lens,
               compress_seq_offset=None, tag=None):
    """Alibi / Rope / Omni: (key_cache', value_cache'). `tag` (fp16 / bf16)
    is Rope's dtype, for its mean token. A 4-D key [B, S, N, D] (the 950's
    form, with slot_mapping / compress_lens [B, N]) holds batch b's tokens
    at key[b, :seq_lens[b]]: its rows start at b*S, the rest is padding
    nobody reads."""
    rows = None
    if key.ndim == 4:
        rows = key.shape[1]
        key = key.reshape((-1,) + key.shape[2:])
        value = value.reshape((-1,) + value.shape[2:])
        slot_mapping = np.asarray(slot_mapping).reshape(-1)
        compress_lens = np.asarray(compress_lens).reshape(-1)
    args = (key, value, key_cache, value_cache, slot_mapping, compress_lens,
            seq_lens)
    if scatter_mode == "Alibi":
        return head_runs.kvhead(*args, batch_rows=rows)
    if scatter_mode == "Rope":
        return head_runs.kvhead_rope(*args, compress_seq_offset, tag,
                                     batch_rows=rows)
    return head_runs.omni(*args, compress_seq_offset, batch_rows=rows)
