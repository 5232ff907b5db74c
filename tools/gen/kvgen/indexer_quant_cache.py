"""IndexerQuantCache golden (aclnnIndexerQuantCache), independent of the C.

Modelled from ops-transformer@25fb6b928 attention/indexer_quant_cache/
(op_kernel/arch35/indexer_quant_cache_base.h, _mx_fp4_base.h, the single
and multi row kernels; op_host tiling) and from first principles, in
vectorised NumPy. Every binary32 product or quotient is one np.float32
ufunc (one rounding); power-of-two scales are built from exponent fields
with shifts, as the kernel does, not from a log2. Narrowing uses kvgen's
own codecs (formats.py, formats_mx.py), never kvgold's.

Per token (a row of x, d columns) and per mode:
  0 MX-FP8  groups of 32: amax = max(max|x|, fl(1e-4)); s = amax (x)
            fl(1/MAX); k = E(s) - 127 + (M(s) != 0) (R-CEIL, whatever
            round_scale says); code k + 127; payload fp8_RINT(x (x) 2^-k).
  1 Normal  one fp32 scale per row: s = rowmax (x) bits(0x3B124925 e4m3 |
            0x37924925 e5m2), 0 for a zero row (no floor); round_scale:
            s' = 2^(E(s) + (M(s) != 0) - 127) and inv = 2^(127 - that
            exponent) by bits (a zero row: s' = 0, inv = 2^127);
            otherwise s' = s and inv = fl(1 / s). q = x (x) inv, and q := x
            where q is not finite; payload fp8_RINT(q).
  2 HiF8    payload hif8_ROUND_SAT(x (x) x_scale); no scale is computed but
            the kernel copies 4 bytes of an unset buffer to
            cache_scale[slot][0]: the golden writes 0 there (kvgold's
            convention; compare does not judge those bytes).
  3 MX-FP4  groups of 32 on the bf16 exponent field E of each element (fp16
            x: of its TRUNC cast to bf16): Emax = max E; a group with
            Emax = 0 (zeros or bf16 subnormals) gets code 0 and payload
            x (x) 0; else c = max(Emax, emax) - emax (emax 2 for E2M1, 0 for
            E1M2), multiplier 2^(127 - c); payload fp4_RINT(x' (x) mult)
            saturating, code 2j in the low nibble. x' = x for bf16; for
            fp16 the kernel first ORs bit 3 into a mantissa whose low byte
            (E2M1; low 7 bits for E1M2) is in (0, 8), then truncates to
            bf16 (8 significant bits): exact round-to-nearest-even for
            normal fp16, a double rounding for some fp16 subnormals.
Only valid calls are modelled; refusals are the operator's business.
"""
import numpy as np

from . import formats, formats_mx

F32 = np.float32
GROUP = 32
INV_MAX_BITS = {"fp8_e4m3fn": 0x3B124925, "fp8_e5m2": 0x37924925}
FP8_MAX = {"fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0}
FP4_EMAX = {"fp4_e2m1": 2, "fp4_e1m2": 0}
AMAX_FLOOR = F32(1e-4)
DEFAULTS = {"quant_mode": 1, "round_scale": True, "x_scale": 1.0}


def f32_bits(x):
    return np.ascontiguousarray(x, dtype=F32).view(np.uint32)


def bits_f32(u):
    return np.ascontiguousarray(u, dtype=np.uint32).view(F32)


def pow2_bits(e):
    """binary32 whose exponent field is e (1..254), mantissa 0."""
    return bits_f32(np.asarray(e, dtype=np.uint32) << 23)


def scale_cols(mode, d):
    return -(-d // GROUP) if mode in (0, 3) else 1


def cache_cols(mode, d):
    """Bytes of a cache row the kernel writes (mode 3: packed fp4)."""
    return (d + 1) // 2 if mode == 3 else d


def x_values(xcodes, xdtype):
    """The x storage array (fp16 float16 / bf16 uint16 codes) as float32."""
    if xdtype == "fp16":
        return np.asarray(xcodes, dtype=np.float16).astype(F32)
    return formats.bf16_decode(np.asarray(xcodes, dtype=np.uint16))


# ---- mode 0: MX-FP8 ---------------------------------------------------

def mx_fp8(x, fp8):
    """x [T, d] float32 -> (codes [T, d] uint8, E8M0 [T, d/32] uint8)."""
    t, d = x.shape
    xg = x.reshape(t, d // GROUP, GROUP)
    amax = np.maximum(np.abs(xg).max(axis=2), AMAX_FLOOR)
    coeff = F32(1.0) / F32(FP8_MAX[fp8])          # fl(1/MAX), constexpr
    s = (amax * coeff).astype(F32)
    u = f32_bits(s)
    exp = ((u >> 23) & 0xFF).astype(np.int64)
    k = exp - 127 + ((u & 0x7FFFFF) != 0)         # ceil(log2 s)
    inv = pow2_bits(127 - k)                       # 2^-k, by bits
    q = (xg * inv[:, :, None]).astype(F32)
    codes = formats.encode(fp8, q.reshape(t, d), "sat")
    return np.asarray(codes, dtype=np.uint8), (k + 127).astype(np.uint8)


# ---- mode 1: Normal (one fp32 scale per row) ----------------------------

def normal(x, fp8, round_scale):
    """x [T, d] -> (codes [T, d] uint8, scale [T, 1] float32)."""
    rowmax = np.abs(x).max(axis=1).astype(F32)
    coeff = bits_f32(np.uint32(INV_MAX_BITS[fp8]))
    s = np.where(rowmax != 0, rowmax * coeff, F32(0)).astype(F32)
    if round_scale:
        u = f32_bits(s)
        e = (u >> 23) + ((u & 0x7FFFFF) != 0)      # exponent rounded up
        s_store = bits_f32(e << 23)                # 2^(e - 127)
        inv = bits_f32((np.uint32(254) - e) << 23)  # 2^(127 - e) = 1 / s'
    else:
        s_store = s
        with np.errstate(divide="ignore"):
            inv = (F32(1.0) / s).astype(F32)       # +inf for a zero row
    with np.errstate(invalid="ignore", over="ignore"):
        q = (x * inv[:, None]).astype(F32)
    q = np.where(np.isfinite(q), q, x)             # 0 (x) inf: keep x
    codes = formats.encode(fp8, q, "sat")
    return np.asarray(codes, dtype=np.uint8), s_store.reshape(-1, 1)


# ---- mode 2: HiFloat8 ---------------------------------------------------

def hif8(x, x_scale):
    q = (x * F32(x_scale)).astype(F32)
    return np.asarray(formats.hif8_encode(q, "sat"), dtype=np.uint8)


# ---- mode 3: MX-FP4 -----------------------------------------------------

def fp16_via_bf16_trunc(codes, fp4):
    """The kernel's fp16 -> bf16 route (FP16ConvertMXFP4, then Cast TRUNC):
    OR 0x0008 into a pattern whose low byte (E2M1; low 7 bits for E1M2)
    is in (0, 8), then truncate the value to 8 significant bits. Float64
    result (exact)."""
    u = np.asarray(codes, dtype=np.float16).view(np.uint16)
    low = u & (0x00FF if fp4 == "fp4_e2m1" else 0x007F)
    fixed = np.where((low > 0) & (low < 8), u | 0x0008, u).astype(np.uint16)
    v = fixed.view(np.float16).astype(np.float64)
    a = np.abs(v)
    e = np.frexp(np.where(a > 0, a, 1.0))[1] - 1    # floor(log2 |v|)
    t = np.floor(np.ldexp(a, 7 - e))                # 8 significant bits
    return np.copysign(np.where(a > 0, np.ldexp(t, e - 7), 0.0), v)


def exp_field_bf16(xcodes, xdtype):
    """The bf16 exponent field of each x (fp16: of its bf16 TRUNC cast,
    which keeps the exponent; an fp16 subnormal is a bf16 normal)."""
    if xdtype == "bf16":
        return ((np.asarray(xcodes, dtype=np.uint16) >> 7) & 0xFF).astype(
            np.int64)
    a = np.abs(np.asarray(xcodes, dtype=np.float16).astype(np.float64))
    e = np.frexp(np.where(a > 0, a, 1.0))[1] - 1 + 127
    return np.where(a > 0, e, 0).astype(np.int64)


def e1m2_encode(v):
    """float64 -> E1M2 codes: values k/4 (k = 0..7), round half to even on
    k, saturate to 1.75, sign kept for a zero result (as fp4_encode)."""
    k = np.minimum(np.rint(np.abs(v) * 4.0), 7.0).astype(np.uint8)
    return (k | np.where(np.signbit(v), 8, 0)).astype(np.uint8)


def mx_fp4(xcodes, xdtype, fp4):
    """x codes [T, d] -> (packed bytes [T, d/2], E8M0 [T, d/32])."""
    t, d = xcodes.shape
    emax = FP4_EMAX[fp4]
    ef = exp_field_bf16(xcodes, xdtype).reshape(t, d // GROUP, GROUP)
    emx = ef.max(axis=2)
    c = np.where(emx == 0, 0, np.maximum(emx, emax) - emax)
    mult = np.where(emx == 0, 0.0, np.ldexp(1.0, 127 - c))
    if xdtype == "fp16":
        xv = fp16_via_bf16_trunc(xcodes, fp4)
    else:
        xv = x_values(xcodes, xdtype).astype(np.float64)
    v = (xv.reshape(t, d // GROUP, GROUP) * mult[:, :, None]).reshape(t, d)
    if fp4 == "fp4_e2m1":
        # every |v| >= 2^-126 here is exact in binary32; smaller ones are
        # zeros of either sign in both
        codes = formats_mx.fp4_encode(v.astype(F32), "rint")
    else:
        codes = e1m2_encode(v)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    return packed, c.astype(np.uint8)


# ---- one call -----------------------------------------------------------

def attrs_of(attrs):
    a = dict(DEFAULTS)
    a.update(attrs)
    return a


def row_bytes(xcodes, xdtype, cache_dtype, attrs):
    """(cache bytes [T, cacheCol] uint8, scale storage [T, scaleCol] of
    uint8 (e8m0) or float32) for tokens x [T, d]."""
    a = attrs_of(attrs)
    mode = a["quant_mode"]
    if mode == 3:
        return mx_fp4(xcodes, xdtype, cache_dtype)
    x = x_values(xcodes, xdtype)
    if mode == 0:
        return mx_fp8(x, cache_dtype)
    if mode == 1:
        return normal(x, cache_dtype, a["round_scale"])
    return hif8(x, a["x_scale"]), np.zeros((x.shape[0], 1), dtype=F32)


def golden(xcodes, xdtype, slots, cache, cache_dtype, cache_scale, attrs):
    """Final (cache, cache_scale) arrays of a valid call. xcodes: x's
    storage array [..., d]; slots: x.shape[:-1]; cache [B, bs, 1, hd]
    uint8 storage; cache_scale [B, bs, 1, shd] uint8 (e8m0) or float32."""
    d = xcodes.shape[-1]
    xc = np.asarray(xcodes).reshape(-1, d)
    sl = np.asarray(slots, dtype=np.int64).reshape(-1)
    keep = sl != -1
    out_c = np.array(cache, copy=True)
    out_s = np.array(cache_scale, copy=True)
    if not keep.any():
        return out_c, out_s
    rows_c = out_c.reshape(-1, out_c.shape[-1])
    rows_s = out_s.reshape(-1, out_s.shape[-1])
    data, scale = row_bytes(xc[keep], xdtype, cache_dtype, attrs)
    rows_c[sl[keep], :data.shape[1]] = data
    rows_s[sl[keep], :scale.shape[1]] = scale
    return out_c, out_s
