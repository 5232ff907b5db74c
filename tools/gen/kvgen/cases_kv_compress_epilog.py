"""Cases for kv_compress_epilog (the list is in docs/kv_compress_epilog.md,
"Vectors").

x is drawn from np.random.RandomState(seed): normal values times an
amplitude per 64 columns between 2^-4 and 2^4, rounded to bf16, zeros
replaced; then designed groups are written over token 0 and 1:
  - an all +-0 group (the public goldens divide by zero there),
  - a group whose amax is below the 1e-4 floor of the MX rules,
  - a group whose amax is 1.75 * 2^k (R-EBUMP and R-CEIL differ: M(s) = 0),
and the rope columns carry ordinary values. The cache starts as random
bytes 1..255 (poison): skipped slots, rows no token names and bytes beyond
a row's layout must come back unchanged. Slots are unique, include -1 and
the last valid slot; cr_v2 cases also hold slots < -1 and >= rows, which
its kernel skips. Expected caches come from kvgen.kv_compress_epilog.
"""
import numpy as np

from . import formats
from . import kv_compress_epilog as kce
from .casefile import T, write_case

NAME = "kv_compress_epilog"
OP = "kv_compress_epilog"

ZERO, TINY, EDGE, E2, WIDE = "zero", "tiny", "edge", "e2", "wide"
XMAX = "xmax"
F32_MAX = float(np.finfo(np.float32).max)   # exactly FLT_MAX as a double
# the smallest double that rounds to +Inf in binary32: FLT_MAX + half ulp
F32_INF_EDGE = 2.0 ** 128 - 2.0 ** 103


def attrs_of(impl, mode, **kw):
    """impl and quant_mode always; other attributes only when given."""
    a = {"impl": impl, "quant_mode": mode}
    a.update(kw)
    return a


def random_x(rng, shape):
    """bf16 codes of normal values with an amplitude per 64 columns."""
    f = rng.standard_normal(shape).astype(np.float32)
    d = shape[-1]
    amp = 2.0 ** rng.randint(-4, 5, shape[:-1] + (d // 64,))
    f *= np.repeat(amp, 64, axis=-1).astype(np.float32)
    f = np.where(np.abs(f) < 2.0 ** -20, np.float32(0.375), f)
    return f.astype(np.float32)


def design(f, group, specials, qcols):
    """Write the designed groups of `specials` (a list of (token, group
    index, kind)) into the float32 x `f` [..., d] viewed as [T, d], with
    groups of `group` columns, clipped to the quantised columns."""
    flat = f.reshape(-1, f.shape[-1])
    for tok, gi, kind in specials:
        lo, hi = gi * group, min((gi + 1) * group, qcols)
        assert hi > lo, (gi, group, qcols)
        cols = slice(lo, hi)
        n = hi - lo
        if kind == ZERO:
            v = np.zeros(n, dtype=np.float32)
            v[1::3] = -0.0
        elif kind == TINY:
            # amax 2^-15 * 1.5 ~ 4.6e-5 < 1e-4: the floor decides the scale
            v = np.float32(2.0 ** -15) * np.linspace(-1.5, 1.5, n,
                                                     dtype=np.float32)
        elif kind == EDGE:
            # amax exactly 1.75 * 2^3: s = 14 (x) fl(1/448) = 2^-5 and
            # 14 (x) fl(1/57344) = 2^-12 exactly (M(s) = 0); x values
            # across the group's binades
            v = np.float32(14.0) * np.linspace(-0.9, 0.9, n,
                                               dtype=np.float32)
            v[n // 3] = np.float32(-14.0)
        elif kind == E2:
            # bf16 normals in [2^-126, 1.5 * 2^-125]: amax's bf16 exponent
            # field is 2 (cr_v2 mxfp4: scale 0x0000, multiplier 2^127)
            v = np.float32(2.0 ** -126) * np.linspace(1.0, 3.0, n,
                                                      dtype=np.float32)
            v[0::2] *= -1
        elif kind == WIDE:
            # magnitudes 2^-30 .. 2^17: below hif8's smallest code, across
            # its tapered binades, and above its max (saturates)
            v = np.float32(2.0) ** np.linspace(-30, 17, n).astype(np.float32)
            v[1::2] *= -1
        elif kind == XMAX:
            # for x_scale = FLT_MAX (~2^128): x 2^-126 .. 2^-108 gives
            # products 2^2 .. 2^20 (hif8 codes, then saturation), +-1 the
            # finite FLT_MAX, +-1.0078125 and +-16 a binary32 +-Inf, and
            # +-0 stays 0
            v = np.float32(2.0) ** np.linspace(-126, -108, n).astype(
                np.float32)
            v[1::2] *= -1
            v[-8:] = [0.0, -0.0, 1.0, -1.0, 1.0078125, -1.0078125, 16.0,
                      -16.0]
        else:
            raise ValueError(kind)
        flat[tok, cols] = v
    return f


def bf16(f):
    return formats.bf16_encode(np.asarray(f, dtype=np.float32))


def poison(rng, shape):
    return rng.randint(1, 256, size=shape).astype(np.uint8)


def slots_of(rng, tokens, rows, skip=(), last=True, extra=()):
    """Unique slots in [0, rows): token order shuffled, the tokens in
    `skip` get -1, the last valid slot rows-1 is used when `last`, and
    (token, value) pairs in `extra` override (cr_v2's out-of-range)."""
    pool = rng.permutation(rows - 1)[:tokens]
    s = pool.astype(np.int64)
    if last:
        s[tokens // 2] = rows - 1
    for t in skip:
        s[t] = -1
    for t, v in extra:
        s[t] = v
    return s


def emit(root, case_id, comment, attrs, xbits, slots, slot_dtype, cache,
         cache_dtype):
    expected = kce.golden(xbits, slots, cache, cache_dtype, attrs)
    assert not np.array_equal(expected, cache), case_id
    sd = {"int32": np.int32, "int64": np.int64}[slot_dtype]
    inputs = {"x": T(xbits, "bf16"),
              "slot_mapping": T(np.asarray(slots).astype(sd), slot_dtype),
              "cache": T(cache, cache_dtype)}
    write_case(root, case_id, OP, attrs, inputs,
               {"cache": T(expected, cache_dtype)}, comment=comment)


def case(root, case_id, comment, seed, attrs, shape, rows, cache_dtype,
         slot_dtype="int32", specials=(), group=64, skip=(1,), extra=(),
         cache_shape=None, width=None):
    """One case: x of `shape`, a cache of `rows` slots (2-D [rows, width]
    or the 4-D cache_shape), width defaulting to the row's bytes."""
    rng = np.random.RandomState(seed)
    p = kce.preset(attrs, cache_dtype)
    whole = p["impl"] == "cr_v2" or kce.row_map(p, shape[-1])[0]["name"] \
        == "row"
    qcols = shape[-1] if whole else shape[-1] - kce.ROPE
    f = design(random_x(rng, shape), group, specials, qcols)
    xbits = bf16(f)
    need = kce.row_bytes_needed(p, shape[-1])
    if cache_shape is None and attrs["impl"] == "ot":
        cache_shape = (rows, 1, 1, width or need)   # OT25: 4-D caches only
    if cache_shape is None:
        cache_shape = (rows, width or need)
    tokens = int(np.prod(shape[:-1]))
    slots = slots_of(rng, tokens, rows, skip=skip, extra=extra)
    slots = slots.reshape(shape[:-1])
    emit(root, case_id, comment, attrs, xbits, slots, slot_dtype,
         poison(rng, cache_shape), cache_dtype)


def ot_cases(root):
    """ops-transformer aclnnKvCompressEpilog as at 25fb6b928 (the
    generator's OT_COMMIT; docs/kv_compress_epilog.md section 6 says how
    the op's first commit, 7904813, differs)."""
    sp = [(0, 0, ZERO), (0, 2, TINY), (2, 1, EDGE), (3, 7, EDGE)]
    case(root, "ot_m1_e8m0_d576_int32",
         "ot mode 1 (FP8 + E8M0, R-CEIL), d 576: [rope bf16 128 | e4m3 512 "
         "| 8 E8M0] = 648 B, no pad; slot -1 and the last slot; 4 of 8 "
         "rows untouched", 3601, attrs_of("ot", 1), (5, 576), 8, "uint8",
         specials=sp)
    case(root, "ot_m1_trunc_d256_int64",
         "ot mode 1, round_scale false (R-TRUNC: payload / s, code E(s)), "
         "d 256 -> 323 B, int64 slots", 3602,
         attrs_of("ot", 1, round_scale=False), (4, 256), 6, "uint8",
         "int64", specials=[(0, 0, ZERO), (2, 1, TINY), (3, 2, EDGE)])
    case(root, "ot_m0_scale16_d576",
         "ot mode 0: bf16_RINT(s') scales (25fb6b928), d 576: [rope 128 | "
         "e4m3 512 | 8 bf16 scales] = 656 B padded to 672", 3603,
         attrs_of("ot", 0), (4, 576), 7,
         "uint8", specials=[(0, 3, ZERO), (2, 0, TINY), (3, 5, EDGE)])
    case(root, "ot_m0_trunc_x3d",
         "ot mode 0, round_scale false, x [2, 3, 192] with slot_mapping "
         "[2, 3]: 260 B of row padded to 288", 3604,
         attrs_of("ot", 0, round_scale=False), (2, 3, 192), 9, "uint8",
         "int64", specials=[(1, 0, EDGE), (4, 1, ZERO)], skip=(2,))
    case(root, "ot_m2_hif8_fp4",
         "ot mode 2 (25fb6b928 HIF8_FP4): rope hif8(x * x_scale) 64 B | "
         "fp4 nope (FP4-AMAX6, group 64) 64 B | 2 bf16 scales | pad 28",
         3605,
         attrs_of("ot", 2, x_scale=0.37), (4, 192), 6, "uint8",
         specials=[(0, 0, WIDE), (2, 1, WIDE)])
    case(root, "ot_m1_cache4d_wide",
         "ot mode 1 into a 4-D cache [3, 2, 1, 448]: rows of 323 B "
         "(25fb6b928: no pad in mode 1), bytes 323..447 untouched",
         3606, attrs_of("ot", 1), (4, 256), 6, "uint8",
         specials=[(0, 1, EDGE)], cache_shape=(3, 2, 1, 448))


def sgk_like_cases(root, impl, base):
    sp = [(0, 0, ZERO), (0, 2, TINY), (2, 1, EDGE), (3, 3, EDGE)]
    # sgk takes the row stride from cache.stride(0); vllm-ascend's csrc
    # copy has a block_stride attribute (0: the row's own width), so its
    # wide cache names the stride
    wide_attr = {"block_stride": 512} if impl == "va" else {}
    wide_note = "; block_stride 512" if impl == "va" else ""
    case(root, "%s_m1_fp8_e4m3_d576" % impl,
         "%s mode 1 (FP8 per 128, fp32 scale = amax (x) 0x3B124925), "
         "d 576: [e4m3 512 | rope 128 | 4 fp32 | pad 112] = 768 B; the "
         "all-zero group: scale 0, payload x" % impl, base + 1,
         attrs_of(impl, 1), (5, 576), 8, "fp8_e4m3fn", specials=sp,
         group=128)
    case(root, "%s_m1_fp8_e5m2_d256_wide_int64" % impl,
         "%s mode 1, e5m2 (0x37924925), d 256: 192 + 128 + 8 -> 384 B "
         "rows in a 512 B wide cache (tail untouched), int64 slots; the "
         "last group has 64 columns%s" % (impl, wide_note), base + 2,
         attrs_of(impl, 1, **wide_attr), (4, 256), 6, "fp8_e5m2", "int64",
         specials=[(0, 1, ZERO), (2, 0, TINY)], group=128, width=512)
    case(root, "%s_m2_mxfp8_g64_l1" % impl,
         "%s mode 2 (MXFP8, R-EBUMP: code E(s) + 1), group 64, layout 1: "
         "[rope 128 | e4m3 512 | 8 E8M0 | pad 120] = 768 B" % impl,
         base + 3, attrs_of(impl, 2, quant_group_size=64), (5, 576), 7,
         "fp8_e4m3fn", specials=sp)
    case(root, "%s_m2_mxfp8_g128_trunc_e5m2" % impl,
         "%s mode 2, group 128, round_scale false (code E(s), payload / s), "
         "e5m2, d 320: 128 + 256 + 2 -> 512 B" % impl, base + 4,
         attrs_of(impl, 2, round_scale=False), (4, 320), 5, "fp8_e5m2",
         specials=[(0, 0, ZERO), (2, 1, EDGE)], group=128)
    case(root, "%s_m2_l2_g64_partial" % impl,
         "%s mode 2 layout 2 (block-major), group 64, d 576, 4-D cache "
         "[3, 4, 1, 648]: per block 4 x [e4m3 512 | rope 128] then 4 x 8 "
         "E8M0; blocks partly written" % impl, base + 5,
         attrs_of(impl, 2, quant_group_size=64, layout=2), (5, 576), 12,
         "fp8_e4m3fn", specials=sp, skip=(1, 4),
         cache_shape=(3, 4, 1, 648))
    case(root, "%s_m2_l2_g128_scale_pad" % impl,
         "%s mode 2 layout 2, group 128: 4 scales padded to 8 per token "
         "(kvgold writes the 4 pad bytes as 0), int64 slots" % impl,
         base + 6, attrs_of(impl, 2, layout=2), (3, 576), 8, "fp8_e4m3fn",
         "int64", specials=[(0, 1, ZERO), (2, 3, EDGE)], group=128,
         skip=(), cache_shape=(2, 4, 1, 648))


def cr_cases(root):
    sp = [(0, 0, ZERO), (0, 2, TINY), (2, 1, EDGE), (3, 3, EDGE)]
    case(root, "cr_m1_fp8_d576",
         "cann-recipes custom op mode 1 (FP8 per 128, fp32 scale), d 576 "
         "-> 768 B rows at slot * 768", 3621, attrs_of("cr", 1), (5, 576),
         8, "fp8_e4m3fn", specials=sp, group=128)
    case(root, "cr_m2_mxfp8_d576",
         "cr mode 2 (MXFP8, group fixed 64, R-EBUMP), d 576 -> 768 B, "
         "int64 slots", 3622, attrs_of("cr", 2), (5, 576), 7, "fp8_e4m3fn",
         "int64", specials=sp)
    case(root, "cr_m2_trunc_e5m2_d320",
         "cr mode 2, round_scale false, e5m2, d 320: 128 + 256 + 4 -> "
         "512 B", 3623, attrs_of("cr", 2, round_scale=False), (4, 320), 6,
         "fp8_e5m2", specials=[(0, 1, ZERO), (2, 0, EDGE)])
    case(root, "cr_m3_hif8_row",
         "cr mode 3 (HIFLOAT): hif8(x * scale) over all d columns, d bytes "
         "at slot * d", 3624, attrs_of("cr", 3, x_scale=2.5), (4, 192), 6,
         "uint8", specials=[(0, 1, WIDE)])
    case(root, "cr_m3_hif8_xscale_max",
         "cr mode 3, scale = FLT_MAX (the largest finite binary32): x * "
         "scale overflows to +-Inf in binary32 for |x| > 1, which the "
         "kernel's SAT cast stores as +-32768 (0x6E / 0xEE); tokens 0 and "
         "2 hold x from 2^-126 (hif8 codes) to 16", 3625,
         attrs_of("cr", 3, x_scale=F32_MAX), (4, 128), 6, "uint8",
         specials=[(0, 0, XMAX), (2, 1, XMAX)])


def cr_v2_cases(root):
    case(root, "crv2_m2_mxfp8_l1",
         "kv_compress_epilog_v2 mode 2 (mxfp8_bf16, group 32, R-CEIL, bf16 "
         "scale): d 256 -> [e4m3 256 | 8 bf16 | pad 16] = 288 B; slots "
         "-3 and 9 (>= rows) skipped", 3631, attrs_of("cr_v2", 2),
         (6, 256), 7, "fp8_e4m3fn",
         specials=[(0, 0, ZERO), (0, 3, TINY), (2, 5, EDGE)], group=32,
         extra=[(4, -3), (5, 9)])
    case(root, "crv2_m2_trunc_l2_wide",
         "cr_v2 mode 2, round_scale false (bf16_RINT(s) stored, payload / "
         "s), layout 2: 4-D cache [3, 2, 1, 320]; tokens packed at 272 B "
         "(data + scales, no pad) from each 640 B block's start, bytes "
         "544..639 untouched; int64 slots", 3632,
         attrs_of("cr_v2", 2, round_scale=False, layout=2), (4, 256), 6,
         "fp8_e4m3fn", "int64", specials=[(0, 1, ZERO), (2, 2, EDGE)],
         group=32, cache_shape=(3, 2, 1, 320), extra=[(3, 6)])
    case(root, "crv2_m4_mxfp4_g16_l1",
         "cr_v2 mode 4 (mxfp4_bf16), group 16: d 256 -> [fp4 128 | 16 "
         "bf16] = 160 B; scale (E-2) << 7; zero and tiny groups", 3633,
         attrs_of("cr_v2", 4, quant_group_size=16), (5, 256), 6, "uint8",
         specials=[(0, 0, ZERO), (2, 4, EDGE), (4, 9, E2)], group=16,
         extra=[(3, -2)])
    case(root, "crv2_m4_mxfp4_g32_l2",
         "cr_v2 mode 4, group 32, layout 2: 4-D cache [2, 3, 1, 320], "
         "tokens packed at 288 B per block; a group of amax 3 * 2^-126 "
         "(bf16 exponent field 2: scale 0x0000 but multiplier 2^127)", 3634,
         attrs_of("cr_v2", 4, layout=2), (4, 512), 6, "uint8",
         specials=[(0, 2, ZERO), (2, 1, EDGE), (3, 5, E2)], group=32,
         cache_shape=(2, 3, 1, 320), extra=[(1, 6)])


def generate(root):
    ot_cases(root)
    sgk_like_cases(root, "sgk", 3610)
    sgk_like_cases(root, "va", 3640)
    cr_cases(root)
    cr_v2_cases(root)
    refused_cases(root)


def refusal(root, case_id, comment, tensor, attrs, d, slots, cache_dtype,
            cache_shape, slot_dtype="int32", nan_at=None):
    """A call the operator refuses (docs/kv_compress_epilog.md section 5),
    naming `tensor`; nothing is computed, the cache is poison."""
    rng = np.random.RandomState(3690)
    xbits = bf16(random_x(rng, (len(slots), d)))
    if nan_at is not None:
        xbits[nan_at] = 0x7FC0
    sd = {"int32": np.int32, "int64": np.int64}[slot_dtype]
    inputs = {"x": T(xbits, "bf16"),
              "slot_mapping": T(np.asarray(slots, dtype=sd), slot_dtype),
              "cache": T(poison(rng, cache_shape), cache_dtype)}
    write_case(root, case_id, OP, attrs, inputs, {}, comment=comment,
               expect_error={"status": 161002, "tensor": tensor})


def refused_cases(root):
    """One refusal of each kind section 5 lists."""
    ot1 = (4, 1, 1, 193)        # ot mode 1, d 128: 128 + 64 + 1
    refusal(root, "error_ot_slot_minus2", "ot skips -1 only: slot -2 would "
            "write before the cache", "slot_mapping", attrs_of("ot", 1), 128,
            [0, -2], "uint8", ot1)
    refusal(root, "error_ot_mode3", "ot has modes 0, 1, 2", "quant_mode",
            attrs_of("ot", 3), 128, [0, 1], "uint8", ot1)
    refusal(root, "error_ot_row_short", "ot mode 1, d 128 needs 193-byte "
            "rows, the cache has 192", "cache", attrs_of("ot", 1), 128,
            [0, 1], "uint8", (4, 1, 1, 192))
    refusal(root, "error_sgk_duplicate", "two tokens write slot 1",
            "slot_mapping", attrs_of("sgk", 2), 128, [1, 1],
            "fp8_e4m3fn", (4, 256), "int64")
    refusal(root, "error_sgk_x_scale", "sgk has no scale attribute",
            "x_scale", attrs_of("sgk", 1, x_scale=2.0), 128, [0, 1],
            "fp8_e4m3fn", (4, 256))
    refusal(root, "error_cr_uint8_cache", "cr mode 1 with a uint8 cache "
            "leaves the kernel's fp8 coefficients unset", "cache",
            attrs_of("cr", 1), 192, [0, 1], "uint8", (4, 256))
    refusal(root, "error_cr_x_scale_inf", "cr mode 3, scale 2^128 - "
            "2^103: the smallest double that is +Inf once narrowed to "
            "binary32 (the op's attribute is a float)", "x_scale",
            attrs_of("cr", 3, x_scale=F32_INF_EDGE), 128, [0, 1], "uint8",
            (4, 128))
    refusal(root, "error_crv2_nan", "a NaN in a written token's x",
            "x", attrs_of("cr_v2", 2), 64, [1, 0], "fp8_e4m3fn", (4, 96),
            nan_at=(1, 5))
