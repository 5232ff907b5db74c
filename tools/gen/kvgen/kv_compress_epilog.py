"""KvCompressEpilog golden (docs/kv_compress_epilog.md), independent of the C.

Written from the kernels' arithmetic (the citations are in the doc page),
vectorised over tokens and groups in float32 NumPy: every product and
quotient is one np.float32 ufunc, so one binary32 rounding; the kernels'
reciprocal constants are the bit patterns they use (fl(1/448) = 0x3B124925,
fl(1/57344) = 0x37924925); E8M0 codes are built from the exponent and
mantissa fields of the binary32 scale, as the kernels do with shifts and
masks (not from a log2). Narrowing uses kvgen's own codecs (formats.py,
formats_mx.py), never kvgold's.

A preset is (impl, quant_mode). Its row is a list of SEGMENTS (the byte
map the C side's kvg_row_layout must match): name, field (PAYLOAD, SCALE,
COPY, PAD), dtype, byte offset, byte count, group size. `row_map` returns
it; `golden` computes every segment's bytes per token and places them in
the cache by the preset's slot addressing. Only valid calls are modelled:
refusals are the operator's business.
"""
import numpy as np

from . import formats, formats_mx

F32 = np.float32
ROPE = 64                      # the last 64 columns of x are the rope
INV_MAX = {"fp8_e4m3fn": 0x3B124925, "fp8_e5m2": 0x37924925}
FP8_MAX = {"fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0}
AMAX_FLOOR = F32(1e-4)          # static_cast<float>(1e-4)

IMPLS = ("ot", "sgk", "va", "cr", "cr_v2")

# Which ops-transformer kernel the "ot" preset follows. "7904813" (the
# search index's copy, the op's first version): mode 2 = whole-row
# HiFloat8, mode 0 stores the E8M0 code in a 2-byte slot, rows padded to
# 128 B. "25fb6b928" (quant_epilogs.md's commit): mode 2 = hif8 rope +
# FP4 nope (FP4-AMAX6), mode 0 stores bf16_RINT(s'), mode 1 unpadded,
# modes 0/2 padded to 32 B, 4-D caches only. docs/kv_compress_epilog.md
# section 6 has the comparison; the vectors are generated for OT_COMMIT.
OT_COMMIT = "25fb6b928"
INV_6 = 0x3E2AAAAB              # static_cast<float>(1.0f / 6.0f)
DEFAULT_MODE = {"ot": 1, "sgk": 1, "va": 1, "cr": 1, "cr_v2": 2}
DEFAULT_GROUP = {"ot": 64, "sgk": 128, "va": 128, "cr": 128, "cr_v2": 32}


def f32_bits(x):
    return np.ascontiguousarray(x, dtype=F32).view(np.uint32)


def bits_f32(u):
    return np.ascontiguousarray(u, dtype=np.uint32).view(F32)


def exp_field(s):
    """E(s): the biased exponent field of binary32 s."""
    return (f32_bits(s) >> 23) & 0xFF


def man_field(s):
    """M(s): the mantissa field of binary32 s."""
    return f32_bits(s) & 0x7FFFFF


def pow2_of_code(c):
    """The binary32 whose bits are c << 23 (2^(c-127) for 1 <= c <= 254)."""
    return bits_f32(np.asarray(c, dtype=np.uint32) << 23)


def cdiv(a, b):
    return -(-a // b)


def roundup(a, b):
    return cdiv(a, b) * b


# ---- the presets' parameters ----------------------------------------------

def preset(attrs, cache_dtype):
    """Normalised parameters of a call: impl, mode, group, layout, the fp8
    payload dtype (cache dtype for sgk/va/cr/cr_v2 fp8 caches, e4m3fn for
    ot's uint8 cache)."""
    impl = attrs.get("impl", "ot")
    mode = attrs.get("quant_mode", DEFAULT_MODE[impl])
    g = attrs.get("quant_group_size", 0) or DEFAULT_GROUP[impl]
    if impl == "ot" and (mode in (0, 1) or OT_COMMIT == "7904813"):
        g = 64                  # scaleCol = ceil((d-64)/64) whatever the attr
    if impl in ("sgk", "va", "cr") and mode == 1:
        g = 128                 # R-BLK128-FP32: PER_BLOCK_FP16
    if impl == "cr" and mode == 2:
        g = 64                  # CR's MXFP8 group is fixed at 64
    fp8 = cache_dtype if cache_dtype.startswith("fp8") else "fp8_e4m3fn"
    return {"impl": impl, "mode": mode, "g": g, "fp8": fp8,
            "layout": attrs.get("layout", 1),
            "round_scale": attrs.get("round_scale", True),
            "x_scale": F32(attrs.get("x_scale", 1.0)),
            "block_stride": attrs.get("block_stride", 0)}


def seg(name, field, dtype, offset, nbytes, group=0, region=0):
    return {"name": name, "field": field, "dtype": dtype, "offset": offset,
            "bytes": nbytes, "group": group, "region": region}


def _pad(segs, to, region=0):
    """A zero PAD from the end of segs up to a multiple of `to`."""
    end = segs[-1]["offset"] + segs[-1]["bytes"]
    if roundup(end, to) > end:
        segs.append(seg("pad", "PAD", "uint8", end, roundup(end, to) - end,
                        region=region))
    return segs


def row_map(p, d):
    """The preset's byte map: a list of segments (region 1 = the scale
    region of sgk/va layout 2)."""
    impl, mode, g, fp8 = p["impl"], p["mode"], p["g"], p["fp8"]
    q = d - ROPE
    if impl == "ot" and OT_COMMIT == "25fb6b928":
        return _ot25_row_map(mode, g, q)
    if (impl == "ot" and mode == 2) or (impl == "cr" and mode == 3):
        return [seg("row", "PAYLOAD", "hif8", 0, d)]
    if impl == "cr_v2":
        if mode == 2:
            segs = [seg("data", "PAYLOAD", fp8, 0, d, g),
                    seg("scale", "SCALE", "bf16", d, 2 * (d // g))]
        else:
            segs = [seg("data", "PAYLOAD", "fp4_e2m1", 0, d // 2, g),
                    seg("scale", "SCALE", "bf16", d // 2, 2 * (d // g))]
        # layout 2 (26694f1e): tokens packed at data + scale bytes inside a
        # block, no pad written; layout 1: the row padded to 32 B
        return segs if p["layout"] == 2 else _pad(segs, 32)
    n = cdiv(q, g)
    if impl == "ot":
        sdt, sb = ("uint16_e8m0", 2) if mode == 0 else ("e8m0", 1)
        segs = [seg("rope", "COPY", "bf16", 0, 2 * ROPE),
                seg("nope", "PAYLOAD", fp8, 2 * ROPE, q, g),
                seg("scale", "SCALE", sdt, 2 * ROPE + q, sb * n)]
        return _pad(segs, 128)
    if mode == 1:               # sgk / va / cr FP8, fp32 scales
        segs = [seg("nope", "PAYLOAD", fp8, 0, q, g),
                seg("rope", "COPY", "bf16", q, 2 * ROPE),
                seg("scale", "SCALE", "fp32", q + 2 * ROPE, 4 * n)]
        return _pad(segs, 128)
    if p["layout"] == 2:        # sgk / va MXFP8 block-major
        return [seg("nope", "PAYLOAD", fp8, 0, q, g),
                seg("rope", "COPY", "bf16", q, 2 * ROPE),
                seg("scale", "SCALE", "e8m0", 0, n, region=1)] + (
                    [seg("pad", "PAD", "uint8", n, roundup(n, 8) - n,
                         region=1)] if n % 8 else [])
    segs = [seg("rope", "COPY", "bf16", 0, 2 * ROPE),
            seg("nope", "PAYLOAD", fp8, 2 * ROPE, q, g),
            seg("scale", "SCALE", "e8m0", 2 * ROPE + q, n)]
    return _pad(segs, 128)


def _ot25_row_map(mode, g, q):
    """OT25 tiling.cpp:277-297: mode 2 [rope hif8 64 | fp4 q/2 | bf16 x
    q/g | pad -> 32]; mode 0 [rope bf16 | e4m3 | bf16 x n | pad -> 32];
    mode 1 the same with E8M0 bytes and no pad."""
    if mode == 2:
        segs = [seg("rope", "PAYLOAD", "hif8", 0, ROPE),
                seg("nope", "PAYLOAD", "fp4_e2m1", ROPE, q // 2, g),
                seg("scale", "SCALE", "bf16", ROPE + q // 2, 2 * (q // g))]
        return _pad(segs, 32)
    n = cdiv(q, 64)
    sdt, sb = ("bf16", 2) if mode == 0 else ("e8m0", 1)
    segs = [seg("rope", "COPY", "bf16", 0, 2 * ROPE),
            seg("nope", "PAYLOAD", "fp8_e4m3fn", 2 * ROPE, q, 64),
            seg("scale", "SCALE", sdt, 2 * ROPE + q, sb * n)]
    return segs if mode == 1 else _pad(segs, 32)


def region_bytes(segs, region):
    rs = [s for s in segs if s["region"] == region]
    return max(s["offset"] + s["bytes"] for s in rs) if rs else 0


# ---- group arithmetic -------------------------------------------------------

def groups(xq, g):
    """xq [T, n] float32 -> [T, ngroups, g], the last group zero-padded
    (zero never raises a max of magnitudes; padded lanes are dropped)."""
    t, n = xq.shape
    ng = cdiv(n, g)
    out = np.zeros((t, ng * g), dtype=F32)
    out[:, :n] = xq
    return out.reshape(t, ng, g)


def ungroup(v, n):
    return v.reshape(v.shape[0], -1)[:, :n]


def amax_of(xg):
    return np.abs(xg).max(axis=2).astype(F32)


def fp8_codes(v, fp8):
    """Cast RINT to the fp8 dtype (values are already within +-max)."""
    return np.asarray(formats.encode(fp8, v.astype(F32), "sat"),
                      dtype=np.uint8)


def mx_fp8(xq, g, fp8, rule, round_scale):
    """OT modes 0/1 (R-CEIL), sgk/va/cr MXFP8 (R-EBUMP), cr_v2 mxfp8
    (R-CEIL): s = max(amax, fl(1e-4)) (x) fl(1/MAX); with round_scale the
    code c = E(s) + (M(s) != 0) (CEIL) or E(s) + (E(s) != 0) (EBUMP) and
    s' = 2^(c-127); without it the payload divides by s and the stored
    code is E(s) (R-TRUNC). q = clamp(x (/) s', +-MAX), cast RINT.
    Returns (payload codes [T, n], the divisor [T, ng], its code [T, ng])."""
    xg = groups(xq, g)
    s = np.maximum(amax_of(xg), AMAX_FLOOR) * bits_f32(np.uint32(INV_MAX[fp8]))
    s = s.astype(F32)
    e = exp_field(s)
    if round_scale:
        bump = man_field(s) != 0 if rule == "ceil" else e != 0
        code = e + bump.astype(np.uint32)
        div = pow2_of_code(code)
    else:
        code, div = e, s
    vmax = F32(FP8_MAX[fp8])
    qv = (xg / div[:, :, None]).astype(F32)
    qv = np.minimum(np.maximum(qv, -vmax), vmax)
    return fp8_codes(ungroup(qv, xq.shape[1]), fp8), div, code


def blk128_fp32(xq, fp8):
    """sgk/va/cr FP8 (R-BLK128-FP32): amax over the group of 128 (the last
    may be 64); s = amax (x) fl(1/MAX) if amax != 0 else 0; q = x (/) s,
    and q := x where the quotient is not finite (s = 0); cast RINT."""
    xg = groups(xq, 128)
    amax = amax_of(xg)
    coeff = bits_f32(np.uint32(INV_MAX[fp8]))
    s = np.where(amax != 0, amax * coeff, F32(0)).astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        qv = (xg / s[:, :, None]).astype(F32)
    qv = np.where(np.isfinite(qv), qv, xg)
    return fp8_codes(ungroup(qv, xq.shape[1]), fp8), s


def hif8_row(x, x_scale):
    """ot mode 2 (at 7904813) and cr mode 3: hif8_ROUND_SAT(x (x) scale).
    A large finite x_scale (FLT_MAX) makes the binary32 product +-Inf; the
    kernels' cast is SAT (OT25 common.h:328-335, CR common.h:98-103), which
    stores +-Inf as +-32768, what hif8_encode's "sat" does."""
    with np.errstate(over="ignore"):
        y = (x * x_scale).astype(F32)
    return np.asarray(formats.hif8_encode(y, "sat"), dtype=np.uint8)


def mxfp4_v2(xbits, g):
    """cr_v2 mxfp4_bf16: from the bf16 exponent field E of the group's
    amax: E = 0 -> scale 0x0000, multiplier 0; 0 < E <= 2 -> scale 0x0000,
    multiplier 0x7F00 (2^127); else scale (E-2) << 7 and multiplier
    0x7F00 - scale. Payload bf16(x (x) multiplier) (exact: a power of two),
    cast RINT to E2M1 without a clamp (saturates to +-6), two per byte,
    element 2i in the low nibble. Returns (packed bytes, scale bits)."""
    t, n = xbits.shape
    mag = (xbits & 0x7FFF).reshape(t, n // g, g)
    e = (mag.max(axis=2) >> 7).astype(np.int64)
    sbits = np.where(e > 2, (e - 2) << 7, 0).astype(np.uint16)
    mbits = np.where(e == 0, 0, 0x7F00 - sbits.astype(np.int64))
    mult = formats.bf16_decode(mbits.astype(np.uint16))
    x = formats.bf16_decode(xbits).reshape(t, n // g, g)
    z = (x * mult[:, :, None]).astype(F32)    # exact; bf16-representable
    codes = formats_mx.fp4_encode(z.reshape(t, n), "rint")
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    return packed, sbits


def fp4_amax6(xbits, g):
    """OT25 mode 2 nope (common.h:349-706, rule FP4-AMAX6): per group
    amax; stored bf16_RINT(amax (x) fl(1/6)); inv = bf16_RINT(6 (/) amax)
    (0 where amax = 0, ZEROING Div); xq = bf16_RINT(x * inv) (the product
    of two bf16 is exact in binary32: one rounding, note Q4), clamped to
    +-6, cast RINT to E2M1, element 2i in the low nibble."""
    t, n = xbits.shape
    x = formats.bf16_decode(xbits).astype(F32).reshape(t, n // g, g)
    amax = np.abs(x).max(axis=2).astype(F32)
    scale = formats.bf16_encode(
        (amax * bits_f32(np.uint32(INV_6))).astype(F32))
    with np.errstate(divide="ignore"):
        inv = np.where(amax != 0, F32(6.0) / amax, F32(0)).astype(F32)
    invb = formats.bf16_decode(formats.bf16_encode(inv))
    xq = formats.bf16_decode(formats.bf16_encode(
        (x * invb[:, :, None]).astype(F32)))
    xq = np.minimum(np.maximum(xq, F32(-6)), F32(6)).reshape(t, n)
    codes = formats_mx.fp4_encode(xq, "rint")
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale


def as_bytes(a, width):
    """[T, k] array of `width`-byte little-endian scalars -> [T, k*width]
    uint8."""
    dt = {1: "<u1", 2: "<u2", 4: "<u4"}[width]
    a = np.ascontiguousarray(np.asarray(a).astype(dt))
    return a.view(np.uint8).reshape(a.shape[0], -1)


# ---- one token's segments ---------------------------------------------

def segment_bytes(p, xbits):
    """{segment name: uint8 [T, bytes]} for tokens xbits [T, d] (bf16)."""
    impl, mode, g, fp8 = p["impl"], p["mode"], p["g"], p["fp8"]
    x = formats.bf16_decode(xbits).astype(F32)
    d = x.shape[1]
    if impl == "ot" and OT_COMMIT == "25fb6b928" and mode == 2:
        nope, scale = fp4_amax6(xbits[:, :d - ROPE], g)
        return {"rope": hif8_row(x[:, d - ROPE:], p["x_scale"]),
                "nope": nope, "scale": as_bytes(scale, 2)}
    if (impl == "ot" and mode == 2) or (impl == "cr" and mode == 3):
        return {"row": hif8_row(x, p["x_scale"])}
    if impl == "cr_v2":
        if mode == 4:
            data, sbits = mxfp4_v2(xbits, g)
        else:
            data, div, _ = mx_fp8(x, g, fp8, "ceil", p["round_scale"])
            sbits = formats.bf16_encode(div)       # bf16_RINT(s')
        return {"data": data, "scale": as_bytes(sbits, 2)}
    rope = as_bytes(xbits[:, d - ROPE:], 2)
    xq = x[:, :d - ROPE]
    if impl in ("sgk", "va", "cr") and mode == 1:
        nope, s = blk128_fp32(xq, fp8)
        return {"nope": nope, "rope": rope, "scale": as_bytes(f32_bits(s), 4)}
    rule = "ceil" if impl == "ot" else "ebump"
    nope, div, code = mx_fp8(xq, g, fp8, rule, p["round_scale"])
    if impl == "ot" and mode == 0 and OT_COMMIT == "25fb6b928":
        scale = as_bytes(formats.bf16_encode(div), 2)   # bf16_RINT(s')
    elif impl == "ot" and mode == 0:
        # 7904813 stores bits(s') >> 23 cast u32 -> u16 in the 2-byte slot
        scale = as_bytes(code, 2)
    else:
        scale = as_bytes(code, 1)
    return {"nope": nope, "rope": rope, "scale": scale}


# ---- placing rows in the cache ----------------------------------------

def geometry(p, cache_shape, d):
    """(rows, block_size, row_stride, block_stride) of the cache in bytes;
    for sgk/va layout 2 row_stride is unused (block-major)."""
    if len(cache_shape) == 2:
        rows, width = cache_shape
        bsz = 1
        nblocks = rows
    else:
        nblocks, bsz, _one, width = cache_shape
    bstride = p["block_stride"] or bsz * width
    return nblocks * bsz, bsz, width, bstride


def golden(xbits, slots, cache, cache_dtype, attrs):
    """Final cache bytes (uint8, cache's shape) for a valid call.
    xbits: bf16 codes [..., d]; slots: int array of x.shape[:-1]."""
    p = preset(attrs, cache_dtype)
    d = xbits.shape[-1]
    xb = np.asarray(xbits, dtype=np.uint16).reshape(-1, d)
    sl = np.asarray(slots, dtype=np.int64).reshape(-1)
    rows, bsz, width, bstride = geometry(p, cache.shape, d)
    if p["impl"] == "cr_v2":
        keep = (sl >= 0) & (sl < rows)
    else:
        keep = sl != -1
    segs = row_map(p, d)
    out = np.array(cache, dtype=np.uint8).reshape(-1).copy()
    if not keep.any():          # every token skipped: the cache as it was
        return out.reshape(cache.shape)
    pieces = segment_bytes(p, xb[keep])
    l2 = p["impl"] in ("sgk", "va") and p["mode"] == 2 and p["layout"] == 2
    vpt = region_bytes(segs, 0)
    spt = region_bytes(segs, 1)
    if p["impl"] == "cr_v2" and p["layout"] == 2:
        width = vpt             # token stride inside a block, not the row
    for i, slot in enumerate(sl[keep]):
        blk, pos = int(slot) // bsz, int(slot) % bsz
        for s in segs:
            data = (pieces[s["name"]][i] if s["field"] != "PAD"
                    else np.zeros(s["bytes"], dtype=np.uint8))
            assert data.size == s["bytes"], (s, data.size)
            if l2:
                base = blk * bstride + (pos * vpt if s["region"] == 0
                                        else bsz * vpt + pos * spt)
            else:
                base = blk * bstride + pos * width
            at = base + s["offset"]
            out[at:at + s["bytes"]] = data
    return out.reshape(cache.shape)


def row_bytes_needed(p, d):
    """Bytes one slot's row needs (per-token layouts), or (value, scale)
    bytes per token for sgk/va layout 2."""
    segs = row_map(p, d)
    if p["impl"] in ("sgk", "va") and p["mode"] == 2 and p["layout"] == 2:
        return region_bytes(segs, 0), region_bytes(segs, 1)
    return region_bytes(segs, 0)
