"""The inputs of kv_rms_norm_rope_cache's cases, V1 and V2 alike: seeded
values rounded to the input dtype, caches poisoned with random bytes,
quantisation parameters over each dtype's range, legal indices. Shared by
cases_kv_rms_norm_rope_cache.py and kv_rms_norm_rope_cache_v2_cases.py,
which then need not import each other.
"""
import numpy as np

from . import formats

OP = "kv_rms_norm_rope_cache"
F32 = np.float32
Q8 = ("int8", "hif8", "fp8_e5m2", "fp8_e4m3fn")
# log10 ranges of per-channel scales and the offset spans, per quant dtype:
# wide enough to reach saturation and values that round to zero
# (|y| and |r| are about 0.05 .. 6): from below the smallest subnormal code
# to about twice the largest finite value
SCALE_LOG10 = {"int8": (-1.3, 1.8), "fp8_e4m3fn": (-3.0, 2.9),
               "fp8_e5m2": (-5.0, 5.0), "hif8": (-7.0, 4.8)}
OFFSET_SPAN = {"int8": 20.0, "fp8_e4m3fn": 50.0, "fp8_e5m2": 1000.0,
               "hif8": 500.0}


def storage(codes, tag):
    """Raw codes (uint8 / uint16) to the case storage dtype of `tag`."""
    codes = np.ascontiguousarray(codes)
    if tag == "fp16":
        return codes.view(np.uint16).view(np.float16)
    if tag == "int8":
        return codes.view(np.uint8).view(np.int8)
    return codes


def t_values(rng, tag, shape, lo, hi, signed=True):
    """Random values, never 0, rounded to T, as T storage."""
    mag = rng.uniform(lo, hi, size=shape)
    if signed:
        mag = mag * np.where(rng.randint(0, 2, size=shape) == 0, -1.0, 1.0)
    return storage(formats.encode(tag, mag.astype(F32)), tag)


def poison(rng, tag, shape):
    """A cache's initial content: seeded random bytes (never all zero)."""
    size = int(np.prod(shape)) * (2 if tag in ("fp16", "bf16") else 1)
    raw = rng.randint(1, 256, size=size).astype(np.uint8)
    view = raw.view(np.uint16) if tag in ("fp16", "bf16") else raw
    return storage(view.reshape(shape), tag)


def qparam_values(rng, dt, n, offset):
    """n scales (log-uniform over the dtype's range) or offsets (uniform
    over its span), as float32."""
    if offset:
        v = rng.uniform(-OFFSET_SPAN[dt], OFFSET_SPAN[dt], size=n)
    else:
        lo, hi = SCALE_LOG10[dt]
        v = 10.0 ** rng.uniform(lo, hi, size=n)
    return v.astype(F32)


def qparam(rng, dt, d, form, offset):
    """A scale (or offset) of shape form 'D' [d], '1D' [1, d] or '1' [1]."""
    v = qparam_values(rng, dt, 1 if form == "1" else d, offset)
    return v.reshape(1, d) if form == "1D" else v


def make_index(rng, mode, b, s, bs, nblocks, scache):
    """A legal index: unique targets, about one in five negative."""
    if mode == "Norm":
        idx = np.stack([rng.permutation(scache)[:s] for _ in range(b)])
    elif mode.startswith("PA_BLK"):
        nb = -(-s // bs)
        pages = rng.permutation(nblocks)[:b * nb]
        # any remainder: only value // BlockSize is used
        idx = pages * bs + rng.randint(0, bs, size=b * nb)
    else:
        idx = rng.permutation(nblocks * bs)[:b * s]
    idx = idx.astype(np.int64)
    neg = rng.uniform(size=idx.shape) < 0.2
    idx[neg] = np.where(rng.uniform(size=idx.shape) < 0.7, -1, -7)[neg]
    return idx


def golden_mode(mode):
    return "PA_BNSD" if mode == "PA" else mode
