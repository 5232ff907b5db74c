"""MX block quantisation golden (E8M0 scale per block, fp4 / fp8 payload),
vectorised over whole blocks: the dynamic MX quant operator's golden, and
the quantiser of every operator built on it (the C8-MXFP K write). It
lives under a name of its own so that those generators can import it
without naming another operator (tests/layering/op_names.py).

Written from the operator's definition (docs/dynamic_mx_quant.md: the
ops-nn 950 kernels' rules as the doc page states them), not from the C
code: move `axis` to the middle of a [outer, n, inner] view, pad n to whole
blocks with zeros (zero never changes a maximum of magnitudes), reduce each
block to its amax, take the E8M0 code with kvgen.formats_mx.e8m0_rule (log2
from np.frexp, not bit fields), the multiplier 2^(127 - code) in float64
(0 for an OCP code 0 and a cuBLAS amax 0, NaN for a non-finite block), and
narrow the exact product x * multiplier once: fp4 with formats_mx.fp4_encode
in the round mode, fp8 with formats' saturating encoders; NaN -> code 0.

Scale layout: the codes [outer, blocks, inner] are padded to an even block
count with code 0, split into pairs [outer, pairs, 2, inner] and the pair
moved last: [outer, pairs, inner, 2], reshaped to x's shape with
dim[axis] = pairs plus a trailing 2.

`refusals` says, from the same definitions, which element a valid call
must not contain (the doc's "Refused"), so that the case list checks its
own valid cases and builds the refused ones on purpose.
"""
import numpy as np

from . import formats, formats_mx

EMAX = {"fp4_e2m1": 2, "fp8_e4m3fn": 8, "fp8_e5m2": 15}
VMAX = {"fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0}
MIN_NORMAL = 2.0 ** -126


def view3(xf, axis):
    """x float32 -> [outer, n, inner] and the normalised axis."""
    axis = axis % xf.ndim
    outer = int(np.prod(xf.shape[:axis], dtype=np.int64))
    inner = int(np.prod(xf.shape[axis + 1:], dtype=np.int64))
    return xf.reshape(outer, xf.shape[axis], inner), axis


def block_codes(x3, attrs):
    """(codes [outer, nb, inner] int16, multipliers [outer, nb, inner]
    float64) of each block."""
    bs = attrs["block_size"]
    outer, n, inner = x3.shape
    nb = -(-n // bs)
    pad = np.zeros((outer, nb * bs, inner), dtype=np.float64)
    with np.errstate(invalid="ignore"):
        pad[:, :n, :] = x3.astype(np.float64)
    blk = np.abs(pad.reshape(outer, nb, bs, inner))
    finite = np.isfinite(blk).all(axis=2)
    amax = np.where(finite, np.where(np.isfinite(blk), blk, 0).max(axis=2),
                    np.inf).astype(np.float32)
    dst = attrs["dst_type"]
    if attrs["scale_alg"] == 1:
        codes = formats_mx.e8m0_rule(amax, "cublas", vmax=VMAX[dst])
        zero = amax == 0
    else:
        codes = formats_mx.e8m0_rule(amax, "ocp", emax=EMAX[dst])
        zero = codes == 0
    mult = np.ldexp(1.0, 127 - codes.astype(np.int64))
    mult = np.where(zero, 0.0, mult)
    mult = np.where(codes == 255, np.nan, mult)
    return codes, mult


def expand(v, bs, n):
    """Per block [outer, nb, inner] -> per element [outer, n, inner]."""
    return np.repeat(v, bs, axis=1)[:, :n, :]


def scaled(x3, mult, bs):
    """x * multiplier per element, float64 (exact: a power of two)."""
    with np.errstate(invalid="ignore"):
        return x3.astype(np.float64) * expand(mult, bs, x3.shape[1])


def narrow(dst, mode, z):
    """One rounding of the exact product; NaN -> code 0."""
    nan = np.isnan(z)
    z32 = np.where(nan, 0.0, z).astype(np.float32)
    if dst == "fp4_e2m1":
        codes = formats_mx.fp4_encode(z32, mode)
    else:
        codes = np.asarray(formats.encode(dst, z32, "sat"), dtype=np.uint8)
    return np.where(nan, 0, codes).astype(np.uint8)


def pack_fp4(codes):
    """Codes [..., n] -> bytes [..., n/2]: element 2j low nibble."""
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def scale_layout(codes, shape, axis):
    """Codes [outer, nb, inner] -> mxscale (x's shape, dim[axis] = pairs,
    trailing 2)."""
    outer, nb, inner = codes.shape
    pairs = -(-nb // 2)
    even = np.zeros((outer, 2 * pairs, inner), dtype=np.uint8)
    even[:, :nb, :] = codes
    out = even.reshape(outer, pairs, 2, inner).transpose(0, 1, 3, 2)
    sshape = list(shape)
    sshape[axis] = pairs
    return np.ascontiguousarray(out).reshape(tuple(sshape) + (2,))


def golden(x, tag, attrs):
    """x: storage array of dtype `tag`. Returns (y bytes, mxscale codes)."""
    xf = formats.decode(tag, x).astype(np.float32)
    x3, axis = view3(xf, attrs["axis"])
    codes, mult = block_codes(x3, attrs)
    z = scaled(x3, mult, attrs["block_size"])
    y = narrow(attrs["dst_type"], attrs["round_mode"], z).reshape(x.shape)
    if attrs["dst_type"] == "fp4_e2m1":
        y = pack_fp4(y)
    return y, scale_layout(codes.astype(np.uint8), x.shape, axis)


def refusals(x, tag, attrs):
    """Flat indices of the elements a call must refuse (empty for a valid
    call): a bf16 / fp32 subnormal element; a negative element whose
    product with its finite multiplier is a nonzero binary32 subnormal."""
    xf = formats.decode(tag, x).astype(np.float32)
    x3, _ = view3(xf, attrs["axis"])
    xd = x3.astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = (tag != "fp16") & (xd != 0) & (np.abs(xd) < MIN_NORMAL)
        _, mult = block_codes(x3, attrs)
        z = scaled(x3, mult, attrs["block_size"])
        bad |= (xd < 0) & (z != 0) & (np.abs(z) < MIN_NORMAL)
    return np.flatnonzero(bad)
