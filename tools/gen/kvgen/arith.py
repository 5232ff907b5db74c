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
    raise ValueError("unknown reduction order %r" % order)


def rms_norm(x, gamma, eps, order="pairwise"):
    """y = (x / sqrt(sum * (1/n) + eps)) * gamma over the last axis."""
    x = np.asarray(x, dtype=F32)
    n = x.shape[-1]
    inv_n = F32(1.0) / F32(n)
    mean = sum_squares(x, order) * inv_n
    rms = np.sqrt(mean + F32(eps))
    return (x / rms[..., None]) * np.asarray(gamma, dtype=F32)


def rope_half(y, cos, sin):
    """Rotate-half RoPE over the last axis (QkvRmsNormRopeCache)."""
    y = np.asarray(y, dtype=F32)
    h = y.shape[-1] // 2
    rot = np.concatenate([-y[..., h:], y[..., :h]], axis=-1)
    return y * cos + rot * sin


def rope_interleave(x, cos, sin):
    """Interleaved-in, half-split-out RoPE (KvRmsNormRopeCache)."""
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
