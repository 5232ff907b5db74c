"""Per-(batch, head) runs of consecutive flat cache slots, vectorised over
all heads at once: the golden engine of the compressed per-head copy
modes (docs/architecture.md lists the operators on src/engines/head_runs),
which share shapes, index tensors and the "run of slots from slot_mapping[i]"
addressing and differ only in which tokens of a head they keep.

Written from the operators' definitions (their pages in docs/), not from
the C code: every kept token of
every head becomes one entry of flat index arrays (destination slot, source
row), built with repeat/cumsum, and the whole cache is updated with a
single fancy-indexed assignment. Copies move raw bit patterns
(unsigned-integer views), so they are bit-exact for any value and dtype.

Head i = b*N + h; batch b's rows start at cum[b] = sum(seq_len[:b]), or,
for a key given per batch ([B, S, N, D] viewed as [B*S, N, D]: the 950's
form), at b*S (`batch_rows` = S).
"""
import numpy as np

from . import formats

F32 = np.float32


def head_params(seq_len, heads, batch_rows=None):
    """Per-head L and the first source row of its batch: the batches'
    rows consecutive, or `batch_rows` rows per batch (L <= batch_rows)."""
    seq_len = np.asarray(seq_len, dtype=np.int64)
    if batch_rows is None:
        cum = np.concatenate([[0], np.cumsum(seq_len)[:-1]])
    else:
        assert np.all(seq_len <= batch_rows), "seq_len past its batch"
        cum = np.arange(seq_len.size, dtype=np.int64) * batch_rows
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



# ---- Omni ------------------------------------------------------------------

def omni(key, value, key_cache, value_cache, slot_mapping, wins, seq_len,
         offset_index, batch_rows=None):
    """Return the updated (key_cache, value_cache); inputs are not changed."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads, batch_rows)
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


# ---- KVHEAD ---------------------------------------------------------------

def kvhead(key, value, key_cache, value_cache, slot_mapping, wins, seq_len,
           batch_rows=None):
    """Head i keeps the wins[i] tokens that end where its batch ends (ATB's
    kernel reads rows end - w .. end - 1 of key): w > L reaches into the
    earlier batches' tokens; it must not reach before row 0."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads, batch_rows)
    w = np.asarray(wins, dtype=np.int64)
    slot = np.asarray(slot_mapping, dtype=np.int64)
    check_runs(slot, w, key_cache.shape[0] * key_cache.shape[1])
    assert np.all((w >= 0) & (w <= base + L)), "wins reads before key"
    if batch_rows is not None:  # a batch's own rows only
        assert np.all(w <= L), "wins past seq_len"
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
                seq_len, offset_index, tag, batch_rows=None):
    """[0, o), one mean token of [o, o+w), [o+w, L); all L when o == -1 or
    w == 0. `tag` is the dtype ("fp16" / "bf16")."""
    heads = key.shape[1]
    L, base = head_params(seq_len, heads, batch_rows)
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
