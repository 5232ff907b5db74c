"""Number-format vectors: vectors/formats/ (spec section 2, docs/formats.md).

Plain tables, not case directories. Every binary32 value is stored as
'<f4' (the file bytes are the little-endian bit patterns, NaN payloads and
signalling NaNs included; read them as uint32); codes are stored raw:
'<u2' for fp16 and bf16, '|u1' for the 8-bit floats, '|i1' for int8.

    <fmt>_decode.npy        <f4 [2^bits]   decode of code k at index k
    <fmt>_encode_input.npy  <f4 [N]        boundary list, then random inputs
    <fmt>_encode_sat.npy    codes [N]      encode with overflow = saturate
    <fmt>_encode_nonsat.npy codes [N]      encode with overflow = inf / NaN
    int8_decode.npy         <f4 [256]      code byte k read as int8
    int8_encode_input.npy   <f4 [N]
    int8_encode.npy         |i1 [N]        round half even, saturate, NaN -> 0
    hif8_table.md           the 256-code table that docs/formats.md embeds
    fp4_e2m1_decode.npy     <f4 [16]       decode of code k (0x8 is -0)
    fp4_e2m1_encode_input.npy <f4 [N]      boundary list, then random inputs
    fp4_e2m1_encode_<mode>.npy |u1 [N]     mode rint, floor or round; NaN -> 0
    e8m0_decode.npy         <f4 [256]      2^(k - 127), 0xFF NaN
    e8m0_amax.npy           <f4 [M]        non-negative amax: boundaries, random
    e8m0_<rule>_<payload>.npy <i2 [M]      the rule's code, -1 where refused

The boundary list of each float format holds, for both signs: every finite
value of the format, every midpoint between adjacent values and the
binary32 neighbours of each midpoint (for fp16 and bf16: all codes of the
edge binades and every 31st code elsewhere, to stay inside the size
budget), the overflow midpoint between max and the virtual next value,
+-0, binary32 subnormals, +-inf and NaNs with assorted payloads. Random
inputs follow: uniform bit patterns and log-uniform magnitudes over the
format's range. Everything is computed with kvgen/formats.py.
"""
import os
from fractions import Fraction

import numpy as np

from . import formats as F
from . import formats_mx as MX
from . import npyio

NAME = "formats"

# tag: (bits, decoder, encoder, code dtype, the value one step beyond max
# that the format would have with an unbounded exponent, edge binades =
# stored exponent fields whose every code goes into the boundary list)
FLOATS = [
    ("fp16", 16, F.fp16_decode, F.fp16_encode, np.dtype("<u2"),
     2.0 ** 16, (0, 1, 2, 15, 29, 30), 10),
    ("bf16", 16, F.bf16_decode, F.bf16_encode, np.dtype("<u2"),
     2.0 ** 128, (0, 1, 2, 127, 253, 254), 7),
    ("fp8_e4m3fn", 8, F.e4m3fn_decode, F.e4m3fn_encode, np.dtype("|u1"),
     480.0, None, 3),
    ("fp8_e5m2", 8, F.e5m2_decode, F.e5m2_encode, np.dtype("|u1"),
     2.0 ** 16, None, 2),
    ("hif8", 8, F.hif8_decode, F.hif8_encode, np.dtype("|u1"),
     1.5 * 2.0 ** 15, None, None),
]

CODE_STRIDE = 31      # fp16/bf16 codes outside the edge binades
N_RANDOM_BITS = 4096  # uniform binary32 bit patterns per format
N_RANDOM_MAG = 4096   # log-uniform magnitudes per format

NAN_PAYLOADS = np.array([
    0x7F800001, 0x7F800002, 0x7F801FFF, 0x7F802000, 0x7F803FFF, 0x7F80FFFF,
    0x7F810000, 0x7F9FFFFF, 0x7FA00000, 0x7FBFFFFF, 0x7FC00000, 0x7FC00001,
    0x7FC02000, 0x7FD55555, 0x7FE00000, 0x7FFFE000, 0x7FFFFFFF,
], dtype=np.uint32)

EXTRA_POSITIVE = np.array([
    0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007FFFFF, 0x00800000,
    0x00800001, 0x3F800000, 0x7F7FFFFF, 0x7F800000,
], dtype=np.uint32)


def _neighbours(values64):
    """binary32 bit patterns of v and its two binary32 neighbours, for the
    positive float64 values given (each exactly representable in binary32;
    values beyond binary32's range are skipped)."""
    v = values64[values64 <= float(np.finfo(np.float32).max)]
    f = v.astype(np.float32)
    if not np.all(f.astype(np.float64) == v):
        raise AssertionError("boundary value not exact in binary32")
    b = F.f32_bits(f).astype(np.int64)
    out = np.concatenate([b - 1, b, b + 1])
    return out[(out >= 0) & (out <= 0x7F800000)].astype(np.uint32)


def _positive_values(decode, nbits):
    """Sorted distinct finite non-negative values of a format (float64)."""
    codes = np.arange(1 << (nbits - 1), dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        vals = decode(codes).astype(np.float64)
    return codes, vals


def _boundary_bits(tag, nbits, decode, virtual, edges, mbits):
    codes, vals = _positive_values(decode, nbits)
    finite = np.isfinite(vals)
    if edges is not None:
        # IEEE 16-bit: code order is value order; keep the edge binades
        # whole and thin out the rest.
        expf = codes >> mbits
        keep = np.isin(expf, edges) | (codes % CODE_STRIDE == 0)
    else:
        keep = np.ones(codes.shape, dtype=bool)
    sv = np.sort(vals[finite])
    if np.any(np.diff(sv) <= 0):
        raise AssertionError("%s: repeated value in the code table" % tag)
    ext = np.append(sv, virtual)
    mids = (ext[:-1] + ext[1:]) / 2.0
    # A midpoint belongs to the code just below it.
    kept_vals = np.sort(vals[finite & keep])
    lower = np.searchsorted(sv, kept_vals)
    pts = np.concatenate([kept_vals, mids[lower], [sv[-1]], [mids[-1]],
                          [virtual, 2.0 * virtual]])
    bits = np.concatenate([_neighbours(pts), EXTRA_POSITIVE])
    bits = np.unique(bits)
    both = np.concatenate([bits, bits | np.uint32(0x80000000),
                           NAN_PAYLOADS, NAN_PAYLOADS | np.uint32(0x80000000)])
    return both


def _random_bits(rs, lo_exp, hi_exp):
    u = rs.randint(0, 1 << 32, size=N_RANDOM_BITS, dtype=np.uint64)
    e = rs.uniform(lo_exp, hi_exp, size=N_RANDOM_MAG)
    mag = np.exp2(e).astype(np.float32)
    sign = rs.randint(0, 2, size=N_RANDOM_MAG).astype(np.uint32) << 31
    return np.concatenate([u.astype(np.uint32), F.f32_bits(mag) | sign])


def _save(d, name, arr):
    npyio.save(os.path.join(d, name), arr)


def _float_format(d, index, spec):
    tag, nbits, decode, encode, cdt, virtual, edges, mbits = spec
    all_codes = np.arange(1 << nbits, dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        table = decode(all_codes.astype(cdt))
    _save(d, "%s_decode.npy" % tag, np.asarray(table, dtype=np.float32))

    rs = np.random.RandomState(20240 + index)
    _codes, vals = _positive_values(decode, nbits)
    pos = vals[np.isfinite(vals) & (vals > 0)]
    lo = np.log2(pos.min()) - 3.0
    hi = min(np.log2(virtual) + 1.0, 127.9)
    bits = np.concatenate([_boundary_bits(tag, nbits, decode, virtual, edges,
                                          mbits),
                           _random_bits(rs, lo, hi)])
    x = F.bits_f32(bits)
    _save(d, "%s_encode_input.npy" % tag, x)
    for mode in ("sat", "nonsat"):
        _save(d, "%s_encode_%s.npy" % (tag, mode),
              np.asarray(encode(x, mode), dtype=cdt))


def _int8(d):
    codes = np.arange(256, dtype=np.uint8).view(np.int8)
    _save(d, "int8_decode.npy", codes.astype(np.float32))
    n = np.arange(-140, 141, dtype=np.float64)
    pts = np.abs(np.concatenate([n, n + 0.5]))
    pos = _neighbours(np.unique(pts))
    big = F.f32_bits(np.array([1e10, 3e38, 2147483648.0, 4294967296.0],
                              dtype=np.float32))
    pos = np.unique(np.concatenate([pos, big, EXTRA_POSITIVE]))
    rs = np.random.RandomState(20250)
    near = rs.uniform(-300.0, 300.0, size=N_RANDOM_MAG).astype(np.float32)
    bits = np.concatenate([pos, pos | np.uint32(0x80000000), NAN_PAYLOADS,
                           NAN_PAYLOADS | np.uint32(0x80000000),
                           rs.randint(0, 1 << 32, size=N_RANDOM_BITS,
                                      dtype=np.uint64).astype(np.uint32),
                           F.f32_bits(near)])
    x = F.bits_f32(bits)
    _save(d, "int8_encode_input.npy", x)
    _save(d, "int8_encode.npy", F.int8_encode(x))


# ---- the HiF8 table for docs/formats.md ------------------------------------

def _pow2_text(fr):
    """Exact text of a dyadic rational m * 2^e with m in {1, 1.125, ...}."""
    e = 0
    while fr >= 2:
        fr /= 2
        e += 1
    while fr < 1:
        fr *= 2
        e -= 1
    m = "%g" % float(fr)
    return ("2^%d" % e) if m == "1" else ("%s·2^%d" % (m, e))


def _decimal_text(v):
    """repr(v), after checking that it is the exact decimal value."""
    s = repr(float(v))
    if Fraction(s) != Fraction(float(v)):
        raise AssertionError("repr of %r is not exact" % v)
    return s


def hif8_table_md():
    """The table of all 256 HiF8 codes, as Markdown (one row per magnitude
    code a: a and 0x80|a)."""
    lines = [
        "| code | bits S dot exp man | dot | D | E | w | M | value |"
        " decimal | code | value |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a in range(128):
        b = format(a, "07b")
        v = F.HIF8_VALUES[a]
        if a < 8:
            split = "0 0000 %s" % b[4:]
            dot, dd, ee, ww, mm = "0000", "DML", "%d" % (a - 23), "0", "-"
            if a == 0:
                ee = ww = "-"
        else:
            e, m, w = F._hif8_fields(a)
            if a < 0x10:
                dot, dd = "0001", 0
            elif a < 0x20:
                dot, dd = "001", 1
            elif a < 0x40:
                dot, dd = b[:2], 2
            elif a < 0x60:
                dot, dd = b[:2], 3
            else:
                dot, dd = b[:2], 4
            rest = b[len(dot):]
            split = "0 %s %s %s" % (dot, rest[:dd] or "-", rest[dd:])
            ee, ww, mm = "%d" % e, "%d" % w, "%d" % m
        if a == 0:
            val, dec, nval = "+0 (the only zero)", "0.0", "NaN (the only NaN)"
        elif a == 0x6F:
            val, dec, nval = "+Inf (not 1.5·2^15)", "inf", "-Inf"
        else:
            fr = Fraction(float(v))
            val = _pow2_text(fr)
            dec = _decimal_text(v)
            nval = "-" + val
        lines.append("| 0x%02X | %s | %s | %s | %s | %s | %s | %s | %s |"
                     " 0x%02X | %s |"
                     % (a, split, dot, dd, ee, ww, mm, val, dec, 0x80 | a,
                        nval))
    return "\n".join(lines) + "\n"


# ---- FP4 E2M1 and E8M0 (kvgen/formats_mx.py) --------------------------------

def _fp4(d):
    _save(d, "fp4_e2m1_decode.npy", MX.fp4_decode(np.arange(16)))
    vals = MX.FP4_VALUES
    ext = np.append(vals, 8.0)  # 8: the virtual value one step above 6
    mids = (ext[:-1] + ext[1:]) / 2.0
    pts = np.concatenate([vals, mids, [8.0, 16.0, 0.125, 0.375]])
    pos = np.unique(np.concatenate([_neighbours(pts), EXTRA_POSITIVE]))
    rs = np.random.RandomState(20260)
    bits = np.concatenate([pos, pos | np.uint32(0x80000000), NAN_PAYLOADS,
                           NAN_PAYLOADS | np.uint32(0x80000000),
                           _random_bits(rs, -4.0, 4.0)])
    x = F.bits_f32(bits)
    _save(d, "fp4_e2m1_encode_input.npy", x)
    for mode in MX.FP4_MODES:
        _save(d, "fp4_e2m1_encode_%s.npy" % mode, MX.fp4_encode(x, mode))


def _e8m0(d):
    _save(d, "e8m0_decode.npy", MX.e8m0_decode(np.arange(256)))
    k = np.arange(-149, 128)
    pts = [np.ldexp(1.0, k)]
    for vmax in (6.0, 1.75, 448.0, 57344.0):  # where s crosses 2^k
        pts.append(np.ldexp(vmax, k))
    pts.append([float(np.float32(1e-4))])
    pts = np.concatenate(pts)
    pts = pts[(pts >= 2.0 ** -149) & (pts <= float(np.finfo(np.float32).max))]
    # 448 * 2^k is exact in binary32 except below 2^-140; drop inexact ones
    pts = pts[pts.astype(np.float32).astype(np.float64) == pts]
    bnd = np.unique(np.concatenate([_neighbours(pts), EXTRA_POSITIVE,
                                    NAN_PAYLOADS]))
    rs = np.random.RandomState(20261)
    u = rs.randint(0, 1 << 31, size=N_RANDOM_BITS, dtype=np.uint64)
    mag = np.exp2(rs.uniform(-149.0, 128.0, size=N_RANDOM_MAG))
    mag = np.minimum(mag, float(np.finfo(np.float32).max)).astype(np.float32)
    amax = F.bits_f32(np.concatenate([bnd, u.astype(np.uint32),
                                      F.f32_bits(mag)]))
    _save(d, "e8m0_amax.npy", amax)
    for name, rule, emax, vmax in MX.E8M0_CASES:
        _save(d, "e8m0_%s.npy" % name, MX.e8m0_rule(amax, rule, emax, vmax))


def generate(d):
    for index, spec in enumerate(FLOATS):
        _float_format(d, index, spec)
    _int8(d)
    _fp4(d)
    _e8m0(d)
    with open(os.path.join(d, "hif8_table.md"), "w", encoding="utf-8",
              newline="\n") as f:
        f.write(hif8_table_md())
