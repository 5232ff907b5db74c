"""FP4 E2M1 and E8M0 in NumPy (docs/formats.md), independent of the C.

FP4 encodes the way ops-nn's MX quant golden does: scale x by a power
of two so that E2M1's quantum becomes 1 (0.5 below 2, 2^(e-1) above), round
with np.rint (half even), np.floor, or floor(|v| + 0.5) with the sign put
back (half away), scale back, clip to +-6, then look the value up in the
16-code table. Everything is float64, where each step is exact. The C
library instead shifts the binary32 significand in integers.

E8M0 rules are restated with log2 taken from np.frexp (exact) instead of
bit fields: OCP floor(log2 amax) + 127 - emax clamped at 0; CUBLAS
ceil(log2 s) + 127 in [0, 254]; CEIL ceil(log2 s') + 127; TRUNC
floor(log2 s') + 127; EBUMP TRUNC + 1. s = float32(amax) * float32(1/MAX)
and s' = max(amax, float32(1e-4)) * float32(1/MAX) are NumPy float32
products (IEEE, rounded once). -1 marks a refusal.
"""
import numpy as np

FP4_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
FP4_MODES = ("rint", "floor", "round")


def fp4_decode(code):
    """Low nibble of each code -> float32 (0x8 is -0)."""
    code = np.asarray(code, dtype=np.uint8) & 0xF
    mag = FP4_VALUES[code & 7]
    return np.where(code & 8, -mag, mag).astype(np.float32)


def fp4_encode(x, mode):
    """float32 -> E2M1 codes (uint8), saturating to +-6; NaN -> 0x0."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(invalid="ignore"):  # signalling NaNs raise "invalid"
        v = x.astype(np.float64)
    nan = np.isnan(v)
    neg = np.signbit(v)
    a = np.where(nan, 0.0, np.abs(v))
    a = np.where(np.isinf(a), 8.0, a)  # inf saturates like any overflow
    _m, e = np.frexp(a)  # a = m * 2^e, m in [0.5, 1): floor(log2 a) = e - 1
    q = np.where(a < 2.0, -1, e - 2)  # quantum 2^q
    y = np.ldexp(np.where(neg, -a, a), -q)
    if mode == "rint":
        r = np.rint(y)
    elif mode == "floor":
        r = np.floor(y)
    elif mode == "round":
        r = np.copysign(np.floor(np.abs(y) + 0.5), y)
    else:
        raise ValueError(mode)
    val = np.clip(np.ldexp(r, q), -6.0, 6.0)
    mag = np.abs(val)
    idx = np.searchsorted(FP4_VALUES, mag)
    if not np.all(FP4_VALUES[np.minimum(idx, 7)] == mag):
        raise AssertionError("fp4: a rounded value is off the grid")
    code = (idx | np.where(neg, 8, 0)).astype(np.uint8)
    return np.where(nan, 0, code).astype(np.uint8)


def e8m0_decode(code):
    code = np.asarray(code, dtype=np.int64)
    with np.errstate(over="ignore"):  # code 255 (NaN) would be 2^128
        out = np.ldexp(1.0, code - 127).astype(np.float32)
    return np.where(code == 255, np.float32(np.nan), out).astype(np.float32)


# rule cases: (name, rule, payload, emax, MAX)
E8M0_CASES = [
    ("ocp_e2m1", "ocp", 2, None),
    ("ocp_e1m2", "ocp", 0, None),
    ("ocp_e4m3fn", "ocp", 8, None),
    ("ocp_e5m2", "ocp", 15, None),
    ("cublas_e4m3fn", "cublas", None, 448.0),
    ("cublas_e5m2", "cublas", None, 57344.0),
    ("ceil_e4m3fn", "ceil", None, 448.0),
    ("ceil_e5m2", "ceil", None, 57344.0),
    ("ebump_e4m3fn", "ebump", None, 448.0),
    ("ebump_e5m2", "ebump", None, 57344.0),
    ("trunc_e4m3fn", "trunc", None, 448.0),
    ("trunc_e5m2", "trunc", None, 57344.0),
]


def _floor_log2(s):
    _m, e = np.frexp(s)
    return e - 1


def _ceil_log2(s):
    m, e = np.frexp(s)
    return np.where(m == 0.5, e - 1, e)


def e8m0_rule(amax, rule, emax=None, vmax=None):
    """Codes (int16; -1 = refused) of the named rule for float32 amax >= 0."""
    a32 = np.asarray(amax, dtype=np.float32)
    with np.errstate(invalid="ignore"):  # signalling NaNs raise "invalid"
        a = a32.astype(np.float64)
    finite = np.isfinite(a)
    safe = np.where(finite, a, 1.0)
    with np.errstate(divide="ignore"):
        if rule == "ocp":
            c = np.where(safe == 0.0, 0,
                         np.maximum(_floor_log2(safe) + 127 - emax, 0))
            return np.where(finite, c, 255).astype(np.int16)
        inv = np.float32(1.0 / vmax)
        if rule == "cublas":
            s = (np.where(finite, a32, np.float32(0)) * inv).astype(np.float64)
            s1 = np.where(s == 0.0, 1.0, s)
            c = np.where(s == 0.0, 0,
                         np.clip(_ceil_log2(s1) + 127, 0, 254))
            return np.where(finite, c, 255).astype(np.int16)
        floor_amax = np.float32(1e-4)
        s = (np.maximum(np.where(finite, a32, floor_amax), floor_amax) *
             inv).astype(np.float64)
        if rule == "ceil":
            c = _ceil_log2(s) + 127
        elif rule == "trunc":
            c = _floor_log2(s) + 127
        elif rule == "ebump":
            c = _floor_log2(s) + 127 + 1
        else:
            raise ValueError(rule)
        return np.where(finite, c, -1).astype(np.int16)
