"""The row arithmetic of spec section 1, vectorised over leading axes.

Every operation is a separate NumPy ufunc on float32 arrays, so each is one
IEEE binary32 rounding and nothing is fused. Python float scalars are never
mixed in: constants are made np.float32 first.
"""
import numpy as np

F32 = np.float32


def sum_squares(x, order="pairwise"):
    """Sum of x**2 over the last axis, in the given order (spec 1.2)."""
    x = np.asarray(x, dtype=F32)
    n = x.shape[-1]
    if order == "pairwise":
        lanes = 1
        while lanes < n:
            lanes *= 2
        p = np.zeros(x.shape[:-1] + (lanes,), dtype=F32)
        p[..., :n] = x * x
        while lanes > 64:
            lanes //= 2
            p = p[..., :lanes] + p[..., lanes:2 * lanes]
        while lanes > 1:
            p = p[..., 0::2] + p[..., 1::2]
            lanes //= 2
        return p[..., 0]
    if order == "sequential":
        acc = np.zeros(x.shape[:-1], dtype=F32)
        for j in range(n):
            acc = acc + x[..., j] * x[..., j]
        return acc
    if order == "double":
        x64 = x.astype(np.float64)
        acc = np.zeros(x.shape[:-1], dtype=np.float64)
        for j in range(n):
            acc = acc + x64[..., j] * x64[..., j]
        return acc.astype(F32)
    if order == "a2":
        return _sum_a2(x * x)
    if order == "npu950":
        return _sum_npu950(x * x)
    raise ValueError("unknown reduction order %r" % order)


def _tree(v):
    """Adjacent-pair tree over the last axis, zero-padded to 64 lanes."""
    pad = 64 - v.shape[-1]
    if pad:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (pad,), F32)], -1)
    while v.shape[-1] > 1:
        v = v[..., 0::2] + v[..., 1::2]
    return v[..., 0]


def _chunks(sq, count):
    """sq zero-padded to `count` chunks of 64 lanes: shape [..., count, 64]."""
    lead = sq.shape[:-1]
    full = np.zeros(lead + (count * 64,), F32)
    full[..., :sq.shape[-1]] = sq
    return full.reshape(lead + (count, 64))


def _sum_a2(sq):
    """Atlas A2/A3 kernels: add adjacent 64-lane chunks (2r, 2r+1) until
    one is left, then one 64-lane tree (chunk count padded to 2^k)."""
    c = -(-sq.shape[-1] // 64)
    p = 1
    while p < c:
        p *= 2
    ch = _chunks(sq, p)
    while ch.shape[-2] > 1:
        ch = ch[..., 0::2, :] + ch[..., 1::2, :]
    return _tree(ch[..., 0, :])


def _sum_npu950(sq):
    """Ascend 950 full-load kernel: with C chunks and F the largest power of
    two below C, partial k = tree(chunk k + chunk k+F); partials folded in
    halves down to 64, then one tree."""
    c = -(-sq.shape[-1] // 64)
    if c == 1:
        return _tree(sq)
    f = 1
    while 2 * f < c:
        f *= 2
    ch = _chunks(sq, 2 * f)
    w = np.stack([_tree(ch[..., k, :] + ch[..., k + f, :])
                  for k in range(f)], axis=-1)
    while w.shape[-1] > 64:
        h = w.shape[-1] // 2
        w = w[..., :h] + w[..., h:]
    return _tree(w)


def rms_norm(x, gamma, eps, order="pairwise"):
    """y = (x / sqrt(sum * (1/n) + eps)) * gamma over the last axis."""
    x = np.asarray(x, dtype=F32)
    n = x.shape[-1]
    inv_n = F32(1.0) / F32(n)
    mean = sum_squares(x, order) * inv_n
    rms = np.sqrt(mean + F32(eps))
    return (x / rms[..., None]) * np.asarray(gamma, dtype=F32)


def rope_half(y, cos, sin):
    """Rotate-half RoPE over the last axis."""
    y = np.asarray(y, dtype=F32)
    h = y.shape[-1] // 2
    rot = np.concatenate([-y[..., h:], y[..., :h]], axis=-1)
    return y * cos + rot * sin


def rope_interleave(x, cos, sin):
    """Interleaved-in, half-split-out RoPE."""
    x = np.asarray(x, dtype=F32)
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    part1 = np.concatenate([x1, x2], axis=-1)
    part2 = np.concatenate([-x2, x1], axis=-1)
    return part1 * cos + part2 * sin


def scale_offset(x, scale=None, offset=None, op="div"):
    """z = x / scale (or x * scale), then z + offset; broadcast as given."""
    z = np.asarray(x, dtype=F32)
    if scale is not None:
        s = np.asarray(scale, dtype=F32)
        z = z / s if op == "div" else z * s
    if offset is not None:
        z = z + np.asarray(offset, dtype=F32)
    return z
