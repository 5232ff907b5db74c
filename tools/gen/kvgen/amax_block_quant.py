"""Block quantisation golden with a float32 scale from each block's amax
(amax / DST_MAX), vectorised over whole blocks: the golden of
docs/dynamic_block_quant.md and the quantiser of every operator built on it
(docs/concat_and_cache_ds_mla.md). It lives under a name of its own so
that those generators can import it without naming another operator
(tests/layering/op_names.py).

Written from the operator's definition (docs/dynamic_block_quant.md, the
ops-nn kernels' formulas as the doc page states them), not from the C code:
pad x's [M, N] matrices to whole blocks with zeros (zero never changes a
maximum of magnitudes), view them as [B, Mb, rb, Nb, cb], reduce each block
to its amax, derive the block's scale and multiplier in binary32 with NumPy's
float32 arithmetic (each operation rounded once, IEEE), broadcast them back
and narrow with kvgen.formats' saturating encoders.

Profiles:
  ascend950: amax = max |x| where any NaN wins and +Inf beats every finite
             value; s = amax / DST_MAX; where s is finite s = min(s,
             1 / min_scale); y = cast(x / s), NaN -> the +0 code.
  a2a3:      m = (1 / amax) * 127; scale = amax * (1 / 127); with
             min_scale > 0: m = max(m, min_scale), scale = min(scale,
             1 / min_scale); y = int8(rint(x * m)).

`refusals` says, from the same definitions, which element a valid call
must not contain (the refusals of the doc page), so that the case list can
check its own valid cases and build the refused ones on purpose.
"""
import numpy as np

from . import formats

DST_MAX = {"int8": 127.0, "fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0,
           "hif8": 32768.0}
MIN_NORMAL = np.float32(2.0 ** -126)
ONE = np.float32(1.0)


def dst_max(dst, dst_type_max=0.0):
    if dst == "hif8" and dst_type_max:
        return np.float32(dst_type_max)
    return np.float32(DST_MAX[dst])


def as_3d(x):
    """[M, N] -> [1, M, N]; [B, M, N] unchanged."""
    return x[None] if x.ndim == 2 else x


def _blocks(xf, rb, cb):
    """x [B, M, N] float32 -> padded blocks [B, Mb, rb, Nb, cb] (float64
    magnitudes are not needed: every value is exact in float32)."""
    b, m, n = xf.shape
    mb, nb = -(-m // rb), -(-n // cb)
    pad = np.zeros((b, mb * rb, nb * cb), dtype=np.float32)
    pad[:, :m, :n] = xf
    return pad.reshape(b, mb, rb, nb, cb)


def block_amax(xf, rb, cb):
    """amax per block [B, Mb, Nb]: NaN if the block has one, else the
    largest magnitude (+inf included)."""
    blk = _blocks(xf, rb, cb)
    with np.errstate(invalid="ignore"):
        mag = np.abs(blk)
    has_nan = np.isnan(mag).any(axis=(2, 4))
    amax = np.where(np.isnan(mag), np.float32(0), mag).max(axis=(2, 4))
    return np.where(has_nan, np.float32(np.nan), amax).astype(np.float32)


def expand(v, rb, cb, m, n):
    """Per-block values [B, Mb, Nb] -> per element [B, M, N]."""
    return np.repeat(np.repeat(v, rb, axis=1), cb, axis=2)[:, :m, :n]


def scales_950(amax, dmax, min_scale):
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (amax / dmax).astype(np.float32)
        inv_min = ONE / np.float32(min_scale)
    finite = np.isfinite(s)
    s = np.where(finite, np.minimum(s, inv_min), s).astype(np.float32)
    return s, s


def scales_a2a3(amax, min_scale):
    with np.errstate(divide="ignore", invalid="ignore"):
        m = ((ONE / amax) * np.float32(127)).astype(np.float32)
        s = (amax * (ONE / np.float32(127))).astype(np.float32)
        ms = np.float32(min_scale)
        if ms > 0:
            m = np.maximum(m, ms).astype(np.float32)
            s = np.minimum(s, ONE / ms).astype(np.float32)
    return s, m


def block_math(xf, attrs, profile):
    """(scale, multiplier, z): per-block scale and multiplier, and the
    values the cast narrows, [B, M, N]."""
    rb, cb = attrs["row_block_size"], attrs["col_block_size"]
    _, m, n = xf.shape
    amax = block_amax(xf, rb, cb)
    if profile == "a2a3":
        scale, mult = scales_a2a3(amax, attrs["min_scale"])
    else:
        scale, mult = scales_950(amax, dst_max(attrs["dst_type"],
                                               attrs["dst_type_max"]),
                                 attrs["min_scale"])
    me = expand(mult, rb, cb, m, n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = (xf * me if profile == "a2a3" else xf / me).astype(np.float32)
    return scale, amax, z


def narrow(dst, z):
    """The saturating cast, every NaN to the +0 code."""
    codes = np.array(formats.encode(dst, np.where(np.isnan(z), 0, z)
                                    .astype(np.float32), None if dst == "int8"
                                    else "sat"))
    return codes


def golden(x, tag, attrs, profile="ascend950"):
    """x: storage array of dtype `tag`. Returns (y codes, scale float32),
    shaped as x and as the scale output."""
    xf = as_3d(formats.decode(tag, x).astype(np.float32))
    scale, _, z = block_math(xf, attrs, profile)
    y = narrow(attrs["dst_type"], z).reshape(x.shape)
    bits = scale.view(np.uint32).copy()
    bits[np.isnan(scale)] = formats.F32_NAN_QUIET
    scale = bits.view(np.float32)
    return y, (scale if x.ndim == 3 else scale[0])


def refusals(x, tag, attrs, profile="ascend950"):
    """Flat indices of the elements a call must refuse (empty for a valid
    call): subnormal x; a2a3: non-finite x, all-zero blocks, x * m rounding
    outside int8; ascend950: blocks whose scale would be subnormal, fp8
    quotients that are subnormal."""
    xf = as_3d(formats.decode(tag, x).astype(np.float32))
    bad = (xf != 0) & (np.abs(xf) < MIN_NORMAL)
    rb, cb = attrs["row_block_size"], attrs["col_block_size"]
    _, m, n = xf.shape
    scale, amax, z = block_math(xf, attrs, profile)
    ae = expand(amax, rb, cb, m, n)
    with np.errstate(invalid="ignore"):
        if profile == "a2a3":
            bad |= ~np.isfinite(xf) | (ae == 0)
            r = np.rint(z.astype(np.float64))
            bad |= ~((r >= -128) & (r <= 127))
        else:
            dmax = dst_max(attrs["dst_type"], attrs["dst_type_max"])
            s = (ae / dmax).astype(np.float32)
            bad |= (s != 0) & (s < MIN_NORMAL)
            if attrs["dst_type"].startswith("fp8"):
                bad |= (z != 0) & (np.abs(z) < MIN_NORMAL)
    return np.flatnonzero(bad)
