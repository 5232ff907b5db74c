"""IndexerCompressEpilog golden (docs/indexer_compress_epilog.md), independent
of the C.

Written from the two kernels, in vectorised float32 NumPy (every product
or quotient one np.float32 ufunc: one binary32 rounding; E8M0 codes and
power-of-two divisors built from the exponent field with shifts, as the
kernels do). Narrowing uses kvgen's own codecs (formats.py), never
kvgold's. Citations: CR = hicann/cann-recipes-infer@fbc225d
ops/ascendc/src/indexer_compress_epilog/ (op_kernel/..._base.h is "base.h"),
VA = vllm-project/vllm-ascend@182b75ea84
csrc/attention/indexer_compress_epilog_v2/ (op_kernel/..._v2_base.h is
"v2_base.h").

Preset "cr" (custom.indexer_compress_epilog): cache [N, d], cache_scale
[N, ceil(d/128)]; slot s writes cache row s (d bytes) and scale row s
(CR op_kernel/indexer_compress_epilog_single_row.h:90-94, multi_row.h:
102-111: offsets slot * d and slot * CeilDiv(d, 128)). Groups of 128
columns, the last one partial when 128 does not divide d (base.h:165-172:
two 64-lane halves per group, a lone 64-lane tail). Per quant_mode
(tiling.cpp:171-177 picks the kernel: 0 -> the MX-FP8 kernel, 1 and 2 the
normal one, which branches on mode 2, single_row.h:76-82):
  0 MX-FP8 (E8M0 byte per group; base.h:157-267): s = max(amax, fl(1e-4))
    (x) fl(1/MAX) (:212-216; coeff static_cast<float>(1.0) / MAX,
    single_row_mx_fp8.h:103-113). round_scale: code = E(s) + (E(s) != 0)
    (R-EBUMP: :218-226 masks the exponent field E, not the mantissa, with
    0x7FFFFF before comparing with 0) and the divisor 2^(code - 127) is
    built as code << 23 (:225-226); else the divisor is s and the code
    E(s) (R-TRUNC). Payload fp8_RINT(clamp(x (/) divisor, +-MAX))
    (:229-236, castTraitF32toFp8Even :90-95 NO_SAT); the scale byte is
    bits(divisor) >> 23 cast u32 -> u8 (StoreMxFp8Scale :146-154).
  1 block quant with an fp32 scale per group (base.h:269-382): amax over the
    finite elements (x * 0 != x * 0 lanes are masked out of the Abs,
    :332-336); s = amax (x) bits(0x3B124925 e4m3 | 0x37924925 e5m2) if
    amax != 0, else 0 (:287-293, :343-344); q = x (/) s, and q := x where
    the quotient is not finite (:348-351); payload fp8_RINT(q), no clamp;
    s stored as 4 fp32 bytes (:347).
  2 HiFloat8 (uint8 cache; base.h:384-413): payload hif8_ROUND_SAT(x (x)
    fl(scale attr)) (:406-409, castTraitF32toh8 :104-109). No scale is
    computed, but the kernel still copies scaleCol fp32 of an unwritten
    buffer to the slot's scale row (single_row.h:75, :92-94): those bytes
    are undefined; the golden writes 0 there (kvgold's convention for
    unset bytes).

Preset "va_v2" (_C_ascend.indexer_compress_epilog_v2, layout 2): one uint8
cache [blocks, bs, 1, D], block-major: block b holds bs value rows of d
bytes, then bs scale rows of 4 * ceil(d/128) bytes (VA op_kernel/
indexer_compress_epilog_v2_single_row.h:83-93, multi_row.h:97-109:
value at b * blockStride + pos * d, scale at b * blockStride + bs * d +
pos * scaleCol * 4); blockStride = the block_stride attribute, 0 -> bs * D
(op_host/indexer_compress_epilog_v2_tiling.cpp:182-184; the torch binding
passes cache.stride(0), vllm-ascend csrc/torch_binding.cpp:1703-1712).
The arithmetic is CR's mode 1 with e4m3 always (the kernel's payload
buffer is fp8_e4m3fn_t, v2_single_row.h:70-74; coeff 0x3B124925
v2_base.h:149-154).

Both: only slot -1 is skipped (CR single_row.h:64-67, VA
v2_single_row.h:60-63), slots are read as int32 (CR single_row.h:40,
VA v2_single_row.h:38). Only valid calls are modelled: refusals are the
operator's business.
"""
import numpy as np

from . import formats, formats_mx

F32 = np.float32
GROUP = 128                     # PER_BLOCK_FP16, CR base.h:29, VA v2_base.h:29
AMAX_FLOOR = F32(1e-4)          # static_cast<float>(1e-4), CR base.h:215
FP8_MAX = {"fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0}
# the bits the DBQ path multiplies by (CR base.h:38-39, VA v2_base.h:37-38)
INV_MAX_BITS = {"fp8_e4m3fn": 0x3B124925, "fp8_e5m2": 0x37924925}
PRESETS = ("cr", "va_v2")
# the operator's attributes (one set for both presets) and their defaults
DEFAULTS = {"quant_mode": 1, "round_scale": True, "scale": 1.0, "layout": 2,
            "block_stride": 0}


def f32_bits(x):
    return np.ascontiguousarray(x, dtype=F32).view(np.uint32)


def bits_f32(u):
    return np.ascontiguousarray(u, dtype=np.uint32).view(F32)


def cdiv(a, b):
    return -(-a // b)


def scale_cols(d):
    """ceil(d / 128): the scales per token (CR tiling.cpp:105, VA
    tiling.cpp:115)."""
    return cdiv(d, GROUP)


def x_values(xcodes, xdtype):
    """x's storage (fp16 float16 / bf16 uint16 codes) as float32 (exact:
    the kernels widen with Cast, CR base.h:112-122)."""
    if xdtype == "fp16":
        return np.asarray(xcodes, dtype=np.float16).astype(F32)
    return formats.bf16_decode(np.asarray(xcodes, dtype=np.uint16))


def groups(x):
    """x [T, d] -> [T, ng, 128], the last group zero-padded (zero never
    raises a max of magnitudes; padded lanes are dropped by ungroup)."""
    t, d = x.shape
    ng = scale_cols(d)
    out = np.zeros((t, ng * GROUP), dtype=F32)
    out[:, :d] = x
    return out.reshape(t, ng, GROUP)


def ungroup(v, d):
    return v.reshape(v.shape[0], -1)[:, :d]


def fp8_codes(v, fp8):
    """Cast RINT to fp8 (values already within +-MAX: no overflow)."""
    return np.asarray(formats.encode(fp8, v.astype(F32), "sat"),
                      dtype=np.uint8)


# ---- CR quant_mode 0: MX-FP8, E8M0 byte per 128 -----------------------------

def mx_fp8_ebump(x, fp8, round_scale):
    """(payload codes [T, d] uint8, E8M0 codes [T, ng] uint8)."""
    xg = groups(x)
    amax = np.abs(xg).max(axis=2).astype(F32)                 # base.h:210-214
    coeff = F32(1.0) / F32(FP8_MAX[fp8])                  # mx_fp8.h:106,110
    s = (np.maximum(amax, AMAX_FLOOR) * coeff).astype(F32)    # base.h:215-216
    e = (f32_bits(s) >> 23) & 0xFF                            # base.h:218-219
    if round_scale:
        # base.h:220-222: (E & 0x7FFFFF) != 0 is E != 0, so every group
        # with a normal s gets one step more than ceil(log2 s) would give
        code = e + (e != 0).astype(np.uint32)
        div = bits_f32(code << 23)                            # base.h:223-226
    else:
        code, div = e, s
    vmax = F32(FP8_MAX[fp8])
    q = (xg / div[:, :, None]).astype(F32)                    # base.h:229-230
    q = np.minimum(np.maximum(q, -vmax), vmax)                # base.h:231-234
    # the rule as formats_mx restates it (frexp, not bits): a self-check
    if round_scale:
        assert np.array_equal(code, formats_mx.e8m0_rule(amax, "ebump",
                                                         vmax=FP8_MAX[fp8]))
    # StoreMxFp8Scale (base.h:151-153): bits >> 23 (sign 0), u32 -> u8
    return fp8_codes(ungroup(q, x.shape[1]), fp8), code.astype(np.uint8)


# ---- CR quant_mode 1 and VA v2: fp32 scale per 128 ------------------------

def blk128_fp32(x, fp8):
    """(payload codes [T, d] uint8, fp32 scales [T, ng])."""
    xg = groups(x)
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(xg)                              # base.h:332-334
        amax = np.where(finite, np.abs(xg), F32(0)).max(axis=2).astype(F32)
    coeff = bits_f32(np.uint32(INV_MAX_BITS[fp8]))
    s = np.where(amax != 0, amax * coeff, F32(0)).astype(F32)  # base.h:343-345
    with np.errstate(divide="ignore", invalid="ignore"):
        q = (xg / s[:, :, None]).astype(F32)                  # base.h:348
    q = np.where(np.isfinite(q), q, xg)                       # base.h:349-351
    return fp8_codes(ungroup(q, x.shape[1]), fp8), s


# ---- CR quant_mode 2: HiFloat8 ---------------------------------------------

def hif8(x, x_scale):
    q = (x * F32(x_scale)).astype(F32)                        # base.h:406
    return np.asarray(formats.hif8_encode(q, "sat"), dtype=np.uint8)


# ---- the presets ------------------------------------------------------------

def attrs_of(attrs):
    """The call's attributes over the defaults; an unknown name is a bug
    of the case list."""
    unknown = set(attrs) - set(DEFAULTS) - {"impl"}
    assert not unknown, unknown
    a = dict(DEFAULTS)
    a.update(attrs)
    return a


def cr_rows(xcodes, xdtype, cache_dtype, attrs):
    """CR: (cache rows [T, d] uint8, scale rows [T, ng] of uint8 (E8M0) or
    float32) for tokens x [T, d]."""
    a = attrs_of(attrs)
    x = x_values(xcodes, xdtype)
    mode = a["quant_mode"]
    if mode == 0:
        return mx_fp8_ebump(x, cache_dtype, a["round_scale"])
    if mode == 1:
        return blk128_fp32(x, cache_dtype)
    # mode 2: the scale row is undefined (see the module comment): 0
    return (hif8(x, a["scale"]),
            np.zeros((x.shape[0], scale_cols(x.shape[1])), dtype=F32))


def kept(slots):
    """Tokens that write: every slot but -1."""
    sl = np.asarray(slots, dtype=np.int64).reshape(-1)
    return sl, sl != -1


def golden_cr(xcodes, xdtype, slots, cache, cache_dtype, cache_scale,
              attrs):
    """Final (cache, cache_scale) of a valid CR call. xcodes [T, d];
    slots [T]; cache [N, d] uint8 storage; cache_scale [N, ng] uint8
    (e8m0) or float32."""
    d = xcodes.shape[-1]
    sl, keep = kept(slots)
    out_c = np.array(cache, copy=True)
    out_s = np.array(cache_scale, copy=True)
    if keep.any():
        data, scale = cr_rows(np.asarray(xcodes).reshape(-1, d)[keep],
                              xdtype, cache_dtype, attrs)
        out_c.reshape(-1, d)[sl[keep]] = data
        out_s.reshape(-1, scale.shape[1])[sl[keep]] = scale
    return out_c, out_s


def va_v2_geometry(cache_shape, block_stride):
    """(block size, block stride in bytes) of a [blocks, bs, 1, D] cache."""
    _blocks, bs, _one, width = cache_shape
    return bs, block_stride or bs * width


def golden_va_v2(xcodes, xdtype, slots, cache, attrs):
    """Final cache bytes of a valid VA v2 call. xcodes [..., d]; slots of
    x's leading shape; cache [blocks, bs, 1, D] uint8."""
    a = attrs_of(attrs)
    d = xcodes.shape[-1]
    sl, keep = kept(slots)
    out = np.array(cache, dtype=np.uint8).reshape(-1).copy()
    if not keep.any():
        return out.reshape(cache.shape)
    x = x_values(np.asarray(xcodes).reshape(-1, d)[keep], xdtype)
    data, s = blk128_fp32(x, "fp8_e4m3fn")
    sbytes = np.ascontiguousarray(s.astype("<f4")).view(np.uint8).reshape(
        s.shape[0], -1)
    bs, bstride = va_v2_geometry(cache.shape, a["block_stride"])
    nsb = sbytes.shape[1]
    for i, slot in enumerate(sl[keep]):
        blk, pos = int(slot) // bs, int(slot) % bs
        at = blk * bstride + pos * d                   # v2_single_row.h:85
        out[at:at + d] = data[i]
        at = blk * bstride + bs * d + pos * nsb        # v2_single_row.h:86-87
        out[at:at + nsb] = sbytes[i]
    return out.reshape(cache.shape)
