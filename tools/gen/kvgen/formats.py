"""Vectorised number-format codecs (spec section 2), independent of the C.

Encoders round in float64, where every binary32 input and every candidate
value is exact: scale |x| by a power of two so the target's quantum is 1,
round with np.rint (half to even) or floor(v + 0.5) (half away), scale back,
then look the exact value up in the format's decoded code table. The C
library instead rounds the binary32 bit pattern with integer shifts.

Overflow modes: "sat" (clamp to +-max, inf inputs too) or "nonsat" (+-inf,
or NaN where the format has none). Defaults: fp16/bf16 nonsat, fp8/hif8 sat.
NaN inputs: fp16/bf16 keep sign and top payload bits with the quiet bit set;
e5m2 gives sign|0x7E; e4m3fn sign|0x7F; hif8 0x80.
"""
import numpy as np

F32_NAN_QUIET = np.uint32(0x7FC00000)


def f32_bits(x):
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


def bits_f32(u):
    return np.ascontiguousarray(u, dtype=np.uint32).view(np.float32)


# ---- decoders -------------------------------------------------------------

def fp16_decode(code):
    """uint16 codes -> float32 (exact; NaN payload widened bit for bit)."""
    code = np.asarray(code, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # signalling NaNs raise "invalid"
        out = code.view(np.float16).astype(np.float32)
    u = f32_bits(out).copy()
    nan = (code & 0x7C00) == 0x7C00
    nan &= (code & 0x03FF) != 0
    sign = (code.astype(np.uint32) >> 15) << 31
    u[nan] = sign[nan] | 0x7F800000 | ((code[nan].astype(np.uint32) & 0x3FF)
                                       << 13)
    return bits_f32(u)


def bf16_decode(code):
    """uint16 codes -> float32: the code is the top half of the binary32."""
    return bits_f32(np.asarray(code, dtype=np.uint32) << 16)


def e5m2_decode(code):
    """fp8 e5m2 is the top byte of fp16."""
    return fp16_decode(np.asarray(code, dtype=np.uint16) << 8)


def e4m3fn_decode(code):
    code = np.asarray(code, dtype=np.uint8).astype(np.int64)
    sign = np.where(code & 0x80, -1.0, 1.0)
    e = (code >> 3) & 0xF
    m = code & 7
    val = np.where(e == 0, np.ldexp(m / 8.0, -6),
                   np.ldexp(1.0 + m / 8.0, e - 7)) * sign
    out = val.astype(np.float32)
    u = f32_bits(out).copy()
    nan = (code & 0x7F) == 0x7F
    u[nan] = ((code[nan].astype(np.uint32) >> 7) << 31) | F32_NAN_QUIET
    return bits_f32(u)


def _hif8_fields(a):
    """(exponent, mantissa, width) of a magnitude code 0x08..0x7F."""
    if a < 0x10:
        return 0, a & 7, 3
    if a < 0x20:
        return (-1 if a & 0x08 else 1), a & 7, 3
    if a < 0x40:
        t = (a >> 3) & 3
        mag = 2 | (t & 1)
        return (-mag if t & 2 else mag), a & 7, 3
    if a < 0x60:
        t = (a >> 2) & 7
        mag = 4 | (t & 3)
        return (-mag if t & 4 else mag), a & 3, 2
    t = (a >> 1) & 15
    mag = 8 | (t & 7)
    return (-mag if t & 8 else mag), a & 1, 1


def _hif8_table():
    vals = np.zeros(256, dtype=np.float64)
    for code in range(256):
        a = code & 0x7F
        s = -1.0 if code & 0x80 else 1.0
        if code == 0x80:
            vals[code] = np.nan
        elif a == 0:
            vals[code] = 0.0
        elif a == 0x6F:
            vals[code] = s * np.inf
        elif a < 8:
            vals[code] = s * 2.0 ** (a - 23)
        else:
            e, m, w = _hif8_fields(a)
            vals[code] = s * (1.0 + m / 2.0 ** w) * 2.0 ** e
    return vals


HIF8_VALUES = _hif8_table()


def hif8_decode(code):
    code = np.asarray(code, dtype=np.uint8)
    out = HIF8_VALUES[code].astype(np.float32)
    u = f32_bits(out).copy()
    u[code == 0x80] = F32_NAN_QUIET
    return bits_f32(u)


# ---- encoders -------------------------------------------------------------

def _lookup(table_codes, table_vals, v):
    """Codes of exact positive values v (all present in the table)."""
    idx = np.searchsorted(table_vals, v)
    idx = np.minimum(idx, len(table_vals) - 1)
    if v.size and not np.all(table_vals[idx] == v):
        raise AssertionError("rounded value missing from the code table")
    return table_codes[idx]


_TABLES = {}


def _positive_table(decode, nbits):
    """Finite non-negative codes sorted by value (cached per decoder)."""
    if decode in _TABLES:
        return _TABLES[decode]
    codes = np.arange(1 << (nbits - 1), dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        vals = decode(codes).astype(np.float64)
    keep = np.isfinite(vals)
    order = np.argsort(vals[keep], kind="stable")
    _TABLES[decode] = (codes[keep][order], vals[keep][order])
    return _TABLES[decode]


def _ieee_encode(x, mant_bits, emin, max_val, nbits, decode, inf_code,
                 nan_fn, overflow):
    x = np.asarray(x, dtype=np.float32)
    u = f32_bits(x)
    sign = ((u >> 31).astype(np.uint32)) << (nbits - 1)
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    isnan = np.isnan(x)
    finite = np.isfinite(x)
    safe = np.where(finite & (a > 0), a, 1.0)
    e = np.frexp(safe)[1] - 1                    # floor(log2 |x|)
    q = np.maximum(e, emin) - mant_bits          # quantum exponent
    v = np.ldexp(np.rint(np.ldexp(safe, -q)), q)  # round half even
    v = np.where(finite & (a > 0), v, 0.0)
    over = (~finite & ~isnan) | (v > max_val)
    codes, vals = _positive_table(decode, nbits)
    inrange = ~over & ~isnan & (v > 0)
    mag = np.zeros(x.shape, dtype=np.uint32)
    mag[inrange] = _lookup(codes, vals, v[inrange])
    max_code = _lookup(codes, vals, np.array([max_val]))[0]
    if overflow == "sat":
        mag[over] = max_code
    else:
        mag[over] = inf_code
    out = sign | mag
    out[isnan] = nan_fn(u[isnan])
    return out


def fp16_encode(x, overflow="nonsat"):
    def nan(u):
        return (((u >> 31) << 15) | 0x7E00 | ((u & 0x7FFFFF) >> 13))
    return _ieee_encode(x, 10, -14, 65504.0, 16, fp16_decode, 0x7C00, nan,
                        overflow).astype(np.uint16)


def bf16_encode(x, overflow="nonsat"):
    def nan(u):
        return (u >> 16) | 0x0040
    return _ieee_encode(x, 7, -126, float(bf16_decode(np.uint16(0x7F7F))),
                        16, bf16_decode, 0x7F80, nan,
                        overflow).astype(np.uint16)


def e5m2_encode(x, overflow="sat"):
    def nan(u):
        return ((u >> 31) << 7) | 0x7E
    return _ieee_encode(x, 2, -14, 57344.0, 8, e5m2_decode, 0x7C, nan,
                        overflow).astype(np.uint8)


def e4m3fn_encode(x, overflow="sat"):
    def nan(u):
        return ((u >> 31) << 7) | 0x7F
    return _ieee_encode(x, 3, -6, 448.0, 8, e4m3fn_decode, 0x7F, nan,
                        overflow).astype(np.uint8)


def hif8_encode(x, overflow="sat"):
    """Round half away from zero in the input's binade (spec section 2)."""
    x = np.asarray(x, dtype=np.float32)
    sign = np.where(np.signbit(x), 0x80, 0).astype(np.uint32)
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    isnan = np.isnan(x)
    finite = np.isfinite(x)
    safe = np.where(finite & (a > 0), a, 1.0)
    e = np.frexp(safe)[1] - 1
    m = np.abs(e)
    w = np.where(m <= 3, 3, np.where(m <= 7, 2, np.where(m <= 15, 1, 0)))
    v = np.ldexp(np.floor(np.ldexp(safe, w - e) + 0.5), e - w)
    tiny = finite & (a > 0) & (e < -23)            # -> +0
    lowest = finite & (e == -23)                   # -> 2^-22
    v = np.where(lowest, 2.0 ** -22, v)
    zero = ~finite | (a == 0) | tiny
    over = (~finite & ~isnan) | (~zero & (v > 32768.0))
    pos = np.arange(128, dtype=np.uint32)
    pv = HIF8_VALUES[:128]
    keep = np.isfinite(pv) & (pv > 0)
    order = np.argsort(pv[keep])
    codes, vals = pos[keep][order], pv[keep][order]
    ok = ~zero & ~over & ~isnan
    mag = np.zeros(x.shape, dtype=np.uint32)
    mag[ok] = _lookup(codes, vals, v[ok])
    mag[over] = 0x6E if overflow == "sat" else 0x6F
    out = np.where(mag == 0, 0, sign | mag).astype(np.uint32)
    out[isnan] = 0x80
    return out.astype(np.uint8)


def int8_encode(x):
    """Round half to even, saturate to [-128, 127], NaN -> 0."""
    x = np.asarray(x, dtype=np.float32)
    r = np.rint(np.where(np.isnan(x), 0.0, x).astype(np.float64))
    return np.clip(r, -128, 127).astype(np.int8)


# ---- by dtype tag ---------------------------------------------------------

def encode(tag, x, overflow=None):
    """Narrow binary32 values to the storage array of dtype `tag`."""
    if tag == "fp16":
        return fp16_encode(x, overflow or "nonsat").view(np.float16)
    if tag == "bf16":
        return bf16_encode(x, overflow or "nonsat")
    if tag == "fp32":
        return np.asarray(x, dtype=np.float32)
    if tag == "int8":
        return int8_encode(x)
    if tag == "fp8_e4m3fn":
        return e4m3fn_encode(x, overflow or "sat")
    if tag == "fp8_e5m2":
        return e5m2_encode(x, overflow or "sat")
    if tag == "hif8":
        return hif8_encode(x, overflow or "sat")
    raise ValueError("no encoder for %r" % tag)


# Canonical NaN codes the operators write (positive, quiet): IEEE 754 leaves
# the sign and payload of an arithmetic NaN to the platform, so operator
# outputs normalise every NaN to these.
CANONICAL_NAN = {"fp16": 0x7E00, "bf16": 0x7FC0, "fp32": 0x7FC00000,
                 "fp8_e4m3fn": 0x7F, "fp8_e5m2": 0x7E, "hif8": 0x80,
                 "int8": 0}


def encode_output(tag, x, overflow=None):
    """encode(), with every NaN written as the canonical NaN of `tag` (what
    an operator stores)."""
    x = np.asarray(x, dtype=np.float32)
    out = np.array(encode(tag, x, overflow))
    nan = np.isnan(x)
    if nan.any():
        view = out.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[
            out.dtype.itemsize])
        view[nan] = CANONICAL_NAN[tag]
    return out


def decode(tag, stored):
    """Widen a storage array of dtype `tag` to binary32."""
    if tag == "fp16":
        return fp16_decode(np.asarray(stored).view(np.uint16))
    if tag == "bf16":
        return bf16_decode(stored)
    if tag == "fp32":
        return np.asarray(stored, dtype=np.float32)
    if tag == "int8":
        return np.asarray(stored, dtype=np.int8).astype(np.float32)
    if tag == "fp8_e4m3fn":
        return e4m3fn_decode(stored)
    if tag == "fp8_e5m2":
        return e5m2_decode(stored)
    if tag == "hif8":
        return hif8_decode(stored)
    raise ValueError("no decoder for %r" % tag)
