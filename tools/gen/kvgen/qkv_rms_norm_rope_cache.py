"""QkvRmsNormRopeCache golden, vectorised over whole tensors.

Follows the spec (section 1) and docs/qkv_rms_norm_rope_cache.md, written
from the operator's definition, not from the C code: split qkv by heads,
RmsNorm + half RoPE on q and k over all (token, head) rows at once, quantise
or narrow, then scatter every kept token into the PA_NZ caches with one
fancy-indexed assignment on the [BlockNum, N*D/C0, BlockSize, C0] view.
"""
import numpy as np

from . import arith, formats
from .casefile import T

HEAD_DIM = 128


def c0_of(tag):
    """Elements per 32 bytes of a cache dtype."""
    return 32 if tag == "int8" else 16


def _overflow(options):
    return "sat" if (options or {}).get("overflow") == "saturate" else "nonsat"


def _narrow(tag, x, ovf):
    """Narrow an output to `tag` as the operator stores it: RNE with the
    overflow mode, every NaN written as the format's canonical NaN. IEEE 754
    leaves the sign and payload of a NaN made by arithmetic to the platform
    (NumPy's SIMD and scalar loops differ, so would the C compiler's operand
    order); canonical NaNs make such outputs reproducible bit for bit."""
    return formats.encode_output(tag, x, ovf)


def _quantise(x, cache_tag, scale, offset, tag, ovf):
    """Values for a cache: int8 codes of x / scale (+ offset), NaN -> 0, or
    T codes."""
    if cache_tag != "int8":
        return _narrow(tag, x, ovf)
    z = arith.scale_offset(x, scale[None], None if offset is None
                           else offset[None], op="div")
    return formats.int8_encode(z)


def nz_scatter(cache, vals, index):
    """Scatter vals [tokens, heads, D] (storage dtype of cache) into a copy
    of the PA_NZ cache [BN, heads*D/C0, BS, C0] at slots index >= 0."""
    out = cache.copy()
    bn, c1, bs, c0 = out.shape
    keep = index >= 0
    slot = index[keep]
    if np.unique(slot).size != slot.size or (slot.size and
                                             slot.max() >= bn * bs):
        raise ValueError("golden: slots must be unique and in range")
    rows = vals[keep].reshape(slot.size, c1, c0)
    blk = (slot // bs)[:, None]
    off = (slot % bs)[:, None]
    out[blk, np.arange(c1)[None, :], off, :] = rows
    return out


def golden(inputs, attrs, options=None):
    """Expected outputs {name: T} of one valid case given its inputs."""
    b, s, n, d = attrs["qkv_size"]
    nq, nk, nv = attrs["head_nums"]
    eps = attrs.get("epsilon", 1e-6)
    before = attrs.get("is_output_qkv", False)
    order = (options or {}).get("reduce_order", "pairwise")
    ovf = _overflow(options)
    assert d == HEAD_DIM and n == nq + nk + nv and nk == nv
    tag = inputs["qkv"].dtype
    tokens = b * s

    def f32(name):
        return formats.decode(inputs[name].dtype, inputs[name].array)

    x = f32("qkv").reshape(tokens, n, d)
    cos = f32("cos")
    sin = f32("sin")
    assert cos.shape[0] == tokens, "cos [B, D] is only valid with S == 1"
    cos = cos[:, None, :]
    sin = sin[:, None, :]
    q, k, v = x[:, :nq], x[:, nq:nq + nk], x[:, nq + nk:]
    qr = arith.rope_half(arith.rms_norm(q, f32("q_gamma"), eps, order),
                         cos, sin)
    kr = arith.rope_half(arith.rms_norm(k, f32("k_gamma"), eps, order),
                         cos, sin)
    index = inputs["index"].array
    out = {}
    q_codes = _narrow(tag, qr, ovf).reshape(tokens, nq * d)
    out["q_out"] = T(q_codes, tag)

    def opt(name):
        return f32(name) if name in inputs else None

    for name, val, scale, offset in (
            ("k_cache", kr, opt("k_scale"), opt("k_offset")),
            ("v_cache", v, opt("v_scale"), opt("v_offset"))):
        cache = inputs[name]
        codes = _quantise(val, cache.dtype, scale, offset, tag, ovf)
        out[name] = T(nz_scatter(cache.array, codes, index), cache.dtype)
    if before:
        out["q_out_before_quant"] = T(q_codes.copy(), tag)
        out["k_out_before_quant"] = T(
            _narrow(tag, kr, ovf).reshape(tokens, nk * d), tag)
        out["v_out_before_quant"] = T(
            _narrow(tag, v, ovf).reshape(tokens, nv * d), tag)
    return out
