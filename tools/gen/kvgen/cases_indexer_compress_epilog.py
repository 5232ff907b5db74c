"""Vectors for IndexerCompressEpilog (docs/indexer_compress_epilog.md; the
contract is the operator's case list): impl "cr" (cann-recipes-infer
custom.indexer_compress_epilog, quant_mode 0 MX-FP8 / 1 fp32 per 128 / 2
HiFloat8) and "va_v2" (vllm-ascend indexer_compress_epilog_v2, block-major
in one uint8 cache).

x is drawn from np.random.RandomState(seed): normal values times an
amplitude per 128 columns between 2^-4 and 2^4, rounded to x's dtype,
zeros replaced; designed groups are written over some of them:
  - an all +-0 group (mode 1: scale 0 and x kept; mode 0: the 1e-4 floor),
  - a group whose amax is below the 1e-4 floor of mode 0,
  - a group whose amax makes s = amax (x) fl(1/MAX) an exact power of two
    (e4m3: 7 * 2^k, e5m2: 14 * 2^k), holding fp8 ties of x / s: there
    R-EBUMP (the kernels) is one code above R-CEIL; and one x ulp below and
    above that amax,
  - HiF8 groups: ties (half away from zero) in every binade width,
    magnitudes below the smallest code and above the largest (saturate).
Slots are unique int32 values in [0, rows), shuffled, with the last valid
slot, and -1 for a skipped token whose x holds a NaN (never read). The
caches start as poison (random bytes 1..255, fp32 scales +-(0.5, 1000)):
skipped slots, rows no token names and the bytes a row never covers must
come back unchanged. error_* cases break one rule each and name the
tensor or attribute (161002; a missing required tensor 161001).
Expected tensors come from kvgen.indexer_compress_epilog.
"""
import numpy as np

from . import formats
from . import indexer_compress_epilog as ice
from .casefile import T, write_case

NAME = "indexer_compress_epilog"
OP = "indexer_compress_epilog"
G = ice.GROUP

ZERO, TINY, EXACT, BELOW, ABOVE = "zero", "tiny", "exact", "below", "above"
HTIES, WIDE = "hties", "wide"

# amax whose s = amax (x) fl(1/MAX) is exactly 2^-6 (e4m3: 7 = 448 * 2^-6)
# or 2^-12 (e5m2: 14 = 57344 * 2^-12): M(s) = 0
EDGE_AMAX = {"fp8_e4m3fn": 7.0, "fp8_e5m2": 14.0}
ULP_AT_EDGE = {"bf16": {7.0: 2.0 ** -5, 14.0: 2.0 ** -4},
               "fp16": {7.0: 2.0 ** -8, 14.0: 2.0 ** -7}}
# fp8 midpoints (x / s values that tie): e4m3 1.0625 (1 | 1.125), 17 (16 |
# 18), 272 (256 | 288), 1.5 * 2^-9 (subnormal codes 1 | 2); e5m2 1.125,
# 1.375, 18, 2^-16 * 1.5 (subnormal 1 | 2)
FP8_TIES = {"fp8_e4m3fn": (1.0625, 17.0, 272.0, 1.5 * 2.0 ** -9),
            "fp8_e5m2": (1.125, 1.375, 18.0, 1.5 * 2.0 ** -16)}


def enc_x(f, xdtype):
    """float64 values -> x storage (RNE): float16 or bf16-code array."""
    f32 = np.asarray(f, dtype=np.float32)
    if xdtype == "fp16":
        return formats.fp16_encode(f32).view(np.float16)
    return formats.bf16_encode(f32)


def nan_code(xdtype):
    return (np.array([np.nan], dtype=np.float16) if xdtype == "fp16"
            else np.array([0x7FC0], dtype=np.uint16))[0]


def random_x(rng, tokens, d):
    """Normal values with an amplitude 2^-4 .. 2^4 per 128 columns."""
    f = rng.standard_normal((tokens, d))
    amp = 2.0 ** rng.randint(-4, 5, (tokens, ice.scale_cols(d)))
    f *= np.repeat(amp, G, axis=1)[:, :d]
    return np.where(np.abs(f) < 2.0 ** -12, 0.375, f)


def edge_group(n, amax, fp8, xd, rng):
    """n values below amax in magnitude: fp8 ties of x / s for the power of
    two s of EDGE_AMAX (ties only while amax is that edge), random short
    mantissas, one -amax (the group's amax)."""
    s = EDGE_AMAX[fp8] / (448.0 if fp8 == "fp8_e4m3fn" else 57344.0)
    v = np.round(rng.uniform(-1, 1, n) * amax * 8) / 16
    ties = np.array(FP8_TIES[fp8]) * s
    ties = ties[ice.x_values(enc_x(ties, xd), xd) == ties]  # fp16 lacks some
    k = min(n, 2 * len(ties))
    v[:k] = np.resize(np.concatenate([ties, -ties]), k)
    v[n // 2] = -amax
    return v


def kind_values(kind, n, ctx, rng):
    """The n float64 values of a designed group (exact in ctx's x dtype,
    except WIDE)."""
    xd, fp8 = ctx["x"], ctx.get("fp8") or "fp8_e4m3fn"
    i = np.arange(n)
    if kind == ZERO:
        v = np.zeros(n)
        v[1::3] = -0.0
        return v
    if kind == TINY:       # amax 12 * 2^-18 = 1.5 * 2^-15 < 1e-4
        return ((i % 25) - 12.0) * 2.0 ** -18
    if kind in (EXACT, BELOW, ABOVE):
        edge = EDGE_AMAX[fp8]
        step = {EXACT: 0, BELOW: -1, ABOVE: 1}[kind]
        return edge_group(n, edge + step * ULP_AT_EDGE[xd][edge], fp8, xd,
                          rng)
    if kind == HTIES:      # HiF8 ties of x (x) 0.5 (half away from zero)
        # in binades of 3, 2, 1, 0 mantissa bits (1.0625 -> 1.125, 8.5 ->
        # 9, 36 -> 40, 320 -> 384), 40960 (saturates to 32768), 2^-23 and
        # 1.5 * 2^-23 (-> 2^-22), 2^-24 (-> +0); times 2 for the scale
        t = 2.0 * np.array([1.0625, 1.1875, 8.5, 36.0, 320.0, 40960.0,
                            1.125 * 2.0 ** -7, 1.5 * 2.0 ** -20, 2.0 ** -23,
                            1.5 * 2.0 ** -23, 2.0 ** -24])
        if xd == "fp16":   # fp16 holds neither 81920 nor 2^-23
            t = t[(t < 65504) & (t >= 2.0 ** -14)]
        return np.resize(np.concatenate([t, -t]), n)
    if kind == WIDE:       # magnitudes 2^-30 .. 2^17 (fp16 2^-14 .. 2^15)
        lo, hi = (-30, 17) if xd == "bf16" else (-14, 15)
        v = 2.0 ** (np.round(np.linspace(lo, hi, n) * 4) / 4)
        return np.where(i % 2, -v, v)
    raise ValueError(kind)


def design(f, specials, ctx, rng):
    """Write the designed groups (token, group index, kind) into f [T, d];
    the last group may be shorter than 128."""
    d = f.shape[1]
    for tok, gi, kind in specials:
        cols = slice(gi * G, min((gi + 1) * G, d))
        v = kind_values(kind, f[tok, cols].size, ctx, rng)
        f[tok, cols] = v
        if kind != WIDE:
            got = ice.x_values(enc_x(v, ctx["x"]), ctx["x"])
            assert np.array_equal(got.astype(np.float64), v), (kind, v)
    return f


def poison(rng, shape, dtype):
    """Non-zero junk: random bytes 1..255, or fp32 values +-(0.5, 1000)."""
    if dtype == "fp32":
        v = rng.uniform(0.5, 1000.0, shape) * rng.choice([-1, 1], shape)
        return v.astype(np.float32)
    return rng.randint(1, 256, size=shape).astype(np.uint8)


def slots_of(rng, tokens, nslots, skip, last=True):
    """Unique slots of [0, nslots), shuffled: the last one (nslots - 1) at
    token tokens // 2 when `last`, -1 for the tokens in skip."""
    s = rng.permutation(nslots - 1)[:tokens].astype(np.int64)
    if last:
        assert tokens // 2 not in skip, "the last slot's token is skipped"
        s[tokens // 2] = nslots - 1
    for t in skip:
        s[t] = -1
    return s


def make_x(rng, shape, xdtype, specials, ctx, skip):
    """x codes of `shape`, designed groups in place, a NaN in the first
    skipped token (the kernels never read it)."""
    d = shape[-1]
    tokens = int(np.prod(shape[:-1]))
    x = enc_x(design(random_x(rng, tokens, d), specials, ctx, rng), xdtype)
    if skip:
        x[skip[0], 3] = nan_code(xdtype)
    return x


# ---- cr ----------------------------------------------------------------

CR_CACHE = {0: "fp8_e4m3fn", 1: "fp8_e4m3fn", 2: "uint8"}
CR_SCALE = {0: "e8m0", 1: "fp32", 2: "fp32"}


def cr_case(root, cid, comment, seed, attrs, xdtype, tokens, d, rows,
            cache_dtype=None, specials=(), skip=(1,), last=True):
    """One valid cr case: x [tokens, d], cache [rows, d], cache_scale
    [rows, ceil(d/128)], poisoned."""
    rng = np.random.RandomState(seed)
    mode = attrs.get("quant_mode", 1)
    cache_dtype = cache_dtype or CR_CACHE[mode]
    sdt = CR_SCALE[mode]
    ctx = {"x": xdtype, "fp8": cache_dtype if mode != 2 else None}
    x = make_x(rng, (tokens, d), xdtype, specials, ctx, skip)
    slots = slots_of(rng, tokens, rows, skip, last)
    cache = poison(rng, (rows, d), "uint8")
    scale = poison(rng, (rows, ice.scale_cols(d)), sdt)
    a = {"impl": "cr"}
    a.update(attrs)
    exp_c, exp_s = ice.golden_cr(x, xdtype, slots, cache, cache_dtype,
                                 scale, a)
    if (slots != -1).any():
        assert not np.array_equal(exp_c, cache), cid
        assert not np.array_equal(exp_s.view(np.uint8), scale.view(np.uint8))
    inputs = {"x": T(x, xdtype),
              "slot_mapping": T(slots.astype(np.int32), "int32"),
              "cache": T(cache, cache_dtype),
              "cache_scale": T(scale, sdt)}
    write_case(root, cid, OP, a, inputs,
               {"cache": T(exp_c, cache_dtype),
                "cache_scale": T(exp_s, sdt)}, comment=comment)


def cr_mode1_cases(root):
    cr_case(root, "cr_m1_e4m3_bf16",
            "cr quant_mode 1 (fp32 scale per 128: s = amax (x) bits "
            "0x3B124925, 0 for a zero group; q = x / s, q := x where not "
            "finite; cast RNE, no clamp), e4m3, bf16 x [8, 512] into 12 "
            "rows: token 1 skipped (-1, its x holds a NaN), token 4 at the "
            "last row 11, 5 rows untouched; groups: all +-0 (scale 0.0, "
            "codes +0/-0), amax 7 (s = 2^-6 exactly: x / s ties in e4m3 "
            "round to even, -7 -> -448 = 0xFE), 7 - ulp, 7 + ulp", 3801,
            {"quant_mode": 1}, "bf16", 8, 512, 12,
            specials=[(0, 0, ZERO), (0, 1, EXACT), (2, 3, EXACT),
                      (3, 1, BELOW), (3, 2, ABOVE), (6, 0, ZERO)])
    cr_case(root, "cr_m1_e5m2_fp16",
            "cr quant_mode 1, e5m2 (s = amax (x) bits 0x37924925), fp16 "
            "x [6, 256]: amax 14 gives s = 2^-12 exactly (e5m2 ties), "
            "an all-zero group, amax 14 +- one fp16 ulp", 3802,
            {"quant_mode": 1}, "fp16", 6, 256, 8, cache_dtype="fp8_e5m2",
            specials=[(0, 0, EXACT), (0, 1, ZERO), (2, 1, BELOW),
                      (3, 0, ABOVE)])
    cr_case(root, "cr_m1_d200",
            "cr quant_mode 1, d 200: groups of 128 and 72 (the kernel's "
            "partial second 64-lane half), scale_col 2; the short group "
            "holds the e4m3 ties and an all-zero group", 3803,
            {"quant_mode": 1}, "bf16", 5, 200, 7,
            specials=[(0, 1, EXACT), (2, 1, ZERO), (3, 0, EXACT)])
    cr_case(root, "cr_m1_d64",
            "cr quant_mode 1, d 64: one short group, the kernel's tail "
            "path only (no two-half loop); fp16 x, round_scale false (not "
            "read in mode 1)", 3804,
            {"quant_mode": 1, "round_scale": False}, "fp16", 4, 64, 6,
            specials=[(0, 0, EXACT), (2, 0, ZERO)], skip=(3,))


def cr_mode0_cases(root):
    cr_case(root, "cr_m0_ebump_e4m3",
            "cr quant_mode 0 (MX-FP8: s = max(amax, fl(1e-4)) (x) fl(1/448); "
            "round_scale true = R-EBUMP: code E(s) + 1, divisor 2^(code - "
            "127)), e4m3, bf16 x [6, 384]: amax 7 (s = 2^-6 exactly: code "
            "122 where R-CEIL gives 121; payload ties), 7 - ulp (code 121, "
            "as R-CEIL) and 7 + ulp (122), all +-0 and amax 1.5 * 2^-15 "
            "(both on the 1e-4 floor: code 105)", 3811,
            {"quant_mode": 0}, "bf16", 6, 384, 9,
            specials=[(0, 0, EXACT), (0, 1, BELOW), (0, 2, ABOVE),
                      (2, 0, ZERO), (2, 1, TINY), (3, 2, EXACT)])
    cr_case(root, "cr_m0_ebump_e5m2_fp16",
            "cr quant_mode 0, e5m2 (fl(1/57344) = 0x37924925), fp16 x "
            "[5, 256]: amax 14 (s = 2^-12 exactly: code 116, R-CEIL 115), "
            "14 + ulp (116), 14 - ulp (115), a zero group and one below "
            "the floor (code 98)", 3812,
            {"quant_mode": 0}, "fp16", 5, 256, 7, cache_dtype="fp8_e5m2",
            specials=[(0, 0, EXACT), (0, 1, ABOVE), (2, 0, BELOW),
                      (2, 1, ZERO), (3, 1, TINY)])
    cr_case(root, "cr_m0_trunc",
            "cr quant_mode 0, round_scale false (R-TRUNC): the scale byte "
            "is E(s) and the payload x / s (unrounded s): the amax "
            "element's quotient is 448 or 447.99997 (-> 448); the clamp "
            "to +-448 never acts for 16-bit x (no amax gives a quotient "
            "above 448); bf16 x [5, 256]: amax 7 (code 121), 7 + ulp, a "
            "zero group and one below the floor (code 104)", 3813,
            {"quant_mode": 0, "round_scale": False}, "bf16", 5, 256, 6,
            specials=[(0, 0, EXACT), (0, 1, ZERO), (2, 0, ABOVE),
                      (3, 1, TINY)])
    cr_case(root, "cr_m0_d200",
            "cr quant_mode 0, d 200: the E8M0 of the short last group (72 "
            "columns) and its payload; fp16 x; token 2 at the last row 5",
            3814,
            {"quant_mode": 0}, "fp16", 4, 200, 6,
            specials=[(0, 1, EXACT), (2, 1, ZERO), (3, 0, BELOW)],
            skip=(1,))


def cr_documented_shape(root):
    # ~59 KB: the one d the op's doc allows (custom-npu_indexer_compress_
    # epilog.md:71-73: d 4096, scale_factor 32), kept to 3 tokens
    cr_case(root, "cr_m0_d4096",
            "cr quant_mode 0 at the documented shape d 4096 (32 groups, "
            "scale_factor 32), fp16 x [3, 4096] (the vendor test's x "
            "dtype) into 4 rows; groups: s a power of two, all zero, below "
            "the floor", 3815,
            {"quant_mode": 0}, "fp16", 3, 4096, 4,
            specials=[(0, 0, EXACT), (0, 31, ZERO), (1, 17, TINY)],
            skip=(2,))


def cr_mode2_cases(root):
    cr_case(root, "cr_m2_hif8",
            "cr quant_mode 2 (HiFloat8): cache bytes hif8_ROUND_SAT(x (x) "
            "0.5), uint8 cache, bf16 x [6, 256]: HiF8 ties (half away from "
            "zero) in each binade width, 81920 * 0.5 saturating to 32768 "
            "(0x6E), magnitudes 2^-30 .. 2^17; the written slots' "
            "cache_scale rows are undefined in the kernel (an unset buffer "
            "copied out): kvgold writes 0 there; other rows untouched",
            3821, {"quant_mode": 2, "scale": 0.5}, "bf16", 6, 256, 8,
            specials=[(0, 0, HTIES), (0, 1, WIDE), (3, 1, HTIES)])
    cr_case(root, "cr_m2_hif8_dtype",
            "cr quant_mode 2 into a cache of dtype hif8 (the torch test "
            "casts the cache to hifloat8), fp16 x [4, 200], scale default "
            "1.0", 3822, {"quant_mode": 2}, "fp16", 4, 200, 5,
            cache_dtype="hif8",
            specials=[(0, 0, HTIES), (2, 1, WIDE)], skip=(3,))


def cr_all_skipped(root):
    cr_case(root, "cr_all_skipped",
            "cr quant_mode 1, every slot -1: nothing is written (expected "
            "= the poison)", 3831, {"quant_mode": 1}, "bf16", 3, 128, 4,
            skip=(0, 1, 2), last=False)


# ---- va_v2 -------------------------------------------------------------

def va_case(root, cid, comment, seed, xdtype, xshape, blocks, bs, width,
            attrs=None, specials=(), skip=(1,)):
    """One valid va_v2 case: x of xshape, cache [blocks, bs, 1, width]."""
    rng = np.random.RandomState(seed)
    tokens = int(np.prod(xshape[:-1]))
    ctx = {"x": xdtype, "fp8": "fp8_e4m3fn"}
    x = make_x(rng, xshape, xdtype, specials, ctx, skip).reshape(xshape)
    slots = slots_of(rng, tokens, blocks * bs, skip).reshape(xshape[:-1])
    cache = poison(rng, (blocks, bs, 1, width), "uint8")
    a = {"impl": "va_v2"}
    a.update(attrs or {})
    exp = ice.golden_va_v2(x, xdtype, slots, cache, a)
    assert not np.array_equal(exp, cache), cid
    inputs = {"x": T(x, xdtype),
              "slot_mapping": T(slots.astype(np.int32), "int32"),
              "cache": T(cache, "uint8")}
    write_case(root, cid, OP, a, inputs, {"cache": T(exp, "uint8")},
               comment=comment)


def va_cases(root):
    va_case(root, "va_v2_bf16",
            "va_v2 (layout 2): bf16 x [7, 128] into a uint8 cache [3, 4, 1, "
            "132]: block b = [4 x 128 e4m3 codes | 4 x 1 fp32 scale], token "
            "1 skipped (NaN in its x), token 3 at the last slot 11; groups "
            "all +-0 (scale 0.0) and amax 7 (s = 2^-6 exactly, e4m3 ties)",
            3841, "bf16", (7, 128), 3, 4, 132,
            specials=[(0, 0, ZERO), (2, 0, EXACT), (5, 0, ABOVE)])
    va_case(root, "va_v2_wide_fp16",
            "va_v2, fp16 x [2, 3, 256] (slot_mapping [2, 3]), cache [4, 2, "
            "1, 280]: a block is 2 x 256 codes then 2 x 8 scale bytes, "
            "bytes 528..559 of each block never written; block_stride "
            "given as 560 (= block_size * cacheD, what torch passes)", 3842,
            "fp16", (2, 3, 256), 4, 2, 280, attrs={"block_stride": 560},
            specials=[(0, 1, EXACT), (2, 0, ZERO), (4, 1, BELOW)],
            skip=(2,))
    va_case(root, "va_v2_d200",
            "va_v2, d 200 (groups 128 + 72): cache [2, 3, 1, 208] = 3 x "
            "200 codes then 3 x 8 scale bytes per block", 3843, "bf16",
            (5, 200), 2, 3, 208,
            specials=[(0, 1, EXACT), (2, 1, ZERO), (3, 0, EXACT)])


# ---- refusals ----------------------------------------------------------

def refusal(root, cid, comment, name, impl="cr", mode=1, xdtype="bf16",
            xshape=(2, 128), slots=None, slot_dtype="int32",
            cache_dtype=None, cache_shape=None, scale_dtype=None,
            scale_shape=None, attrs=None, bad_x=None, tiny_group=None,
            no_scale=False, status=161002):
    """A call the operator refuses, naming `name` (status 161002, or
    161001 for a missing required tensor); both caches are poison.
    Unnamed parts default to a valid call of `impl` (cr: `mode`) with 2
    tokens."""
    rng = np.random.RandomState(3890)
    d = xshape[-1]
    tokens = int(np.prod(xshape[:-1]))
    if xdtype == "fp32":
        x = random_x(rng, tokens, d).astype(np.float32).reshape(xshape)
    else:
        x = enc_x(random_x(rng, tokens, d), xdtype).reshape(xshape)
    if bad_x is not None:       # (flat token, column, float value)
        tok, col, val = bad_x
        x.reshape(-1, d)[tok, col] = enc_x([val], xdtype)[0]
    if tiny_group is not None:  # (flat token, amax): group 0 all tiny
        tok, amax = tiny_group
        v = amax * np.resize([1.0, -0.5, 0.25, -1.0], min(d, G))
        x.reshape(-1, d)[tok, :min(d, G)] = enc_x(v, xdtype)
    if slots is None:
        slots = np.arange(tokens).reshape(xshape[:-1])
    sd = {"int32": np.int32, "int64": np.int64}[slot_dtype]
    a = {"impl": impl}
    if impl == "cr":
        a["quant_mode"] = mode
    a.update(attrs or {})
    inputs = {"x": T(x, xdtype),
              "slot_mapping": T(np.asarray(slots).astype(sd), slot_dtype)}
    if impl == "cr":
        cache_shape = cache_shape or (4, d)
        cache_dtype = cache_dtype or CR_CACHE.get(mode, "fp8_e4m3fn")
    else:
        cache_shape = cache_shape or (2, 2, 1, d + 4 * ice.scale_cols(d))
        cache_dtype = cache_dtype or "uint8"
    inputs["cache"] = T(poison(rng, cache_shape, "uint8"), cache_dtype)
    if not no_scale:
        scale_dtype = scale_dtype or CR_SCALE.get(mode, "fp32")
        scale_shape = scale_shape or (cache_shape[0], ice.scale_cols(d))
        inputs["cache_scale"] = T(poison(rng, scale_shape, scale_dtype),
                                  scale_dtype)
    write_case(root, cid, OP, a, inputs, {}, comment=comment,
               expect_error={"status": status, "tensor": name})


def refused_attrs(root):
    refusal(root, "error_impl_unknown", "impl 'ot' is no preset of this "
            "operator", "impl", attrs={"impl": "ot"})
    refusal(root, "error_cr_quant_mode_3", "cr quant_mode 3: the tiling "
            "would run the MX-FP8 kernel (tiling.cpp:171-177); kvgold "
            "takes 0, 1, 2", "quant_mode", mode=3)
    refusal(root, "error_cr_m2_scale_inf", "cr mode 2, scale 1e39 is "
            "+inf once narrowed to binary32 (JSON has no inf)", "scale",
            mode=2, attrs={"scale": 1e39})
    refusal(root, "error_cr_layout_1", "cr has no layout: it must stay "
            "2", "layout", attrs={"layout": 1})
    refusal(root, "error_va_v2_layout_1", "va_v2 layout 1: 'layout only "
            "support 2' (VA tiling.cpp:139-141)", "layout", impl="va_v2",
            attrs={"layout": 1}, no_scale=True)
    refusal(root, "error_va_v2_block_stride", "va_v2 block_stride = "
            "block_size * cacheD + 32: kvgold's caches are dense",
            "block_stride", impl="va_v2",
            attrs={"block_stride": 2 * (128 + 4) + 32}, no_scale=True)
    refusal(root, "error_va_v2_quant_mode_0", "va_v2 has no quant_mode: "
            "it must stay 1", "quant_mode", impl="va_v2",
            attrs={"quant_mode": 0}, no_scale=True)


def refused_tensors(root):
    refusal(root, "error_cr_m0_fp32_scale", "cr mode 0 stores E8M0 bytes: "
            "an fp32 cache_scale is the wrong dtype", "cache_scale", mode=0,
            scale_dtype="fp32")
    refusal(root, "error_cr_m1_e8m0_scale", "cr mode 1 stores fp32 scales, "
            "not e8m0", "cache_scale", mode=1, scale_dtype="e8m0")
    refusal(root, "error_cr_m1_uint8_cache", "cr mode 1 with a uint8 "
            "cache: StoreOutputData has no uint8 branch (base.h:125-143), "
            "no codes are stored", "cache", mode=1, cache_dtype="uint8")
    refusal(root, "error_cr_m2_fp8_cache", "cr mode 2 writes HiF8 codes: "
            "not into an fp8_e4m3fn cache", "cache", mode=2,
            cache_dtype="fp8_e4m3fn")
    refusal(root, "error_cr_cache_width", "cr cache [4, d + 32]: the "
            "kernel writes at slot * d, so the last dim must be d", "cache",
            cache_shape=(4, 160), scale_shape=(4, 1))
    refusal(root, "error_cr_scale_width", "cr cache_scale [4, 2] for d "
            "128 (scale_col 1): the kernel writes at slot * scale_col",
            "cache_scale", scale_shape=(4, 2))
    refusal(root, "error_cr_rows_differ", "cr cache_scale has 3 rows, "
            "cache 4: one slot addresses both", "cache_scale",
            scale_shape=(3, 1))
    refusal(root, "error_cr_no_cache_scale", "cr without cache_scale: a "
            "required tensor missing (161001, as every operator)",
            "cache_scale", no_scale=True, status=161001)
    refusal(root, "error_cr_x_3d", "cr x is 2-D [T, d], not [1, 2, 128]",
            "x", xshape=(1, 2, 128), slots=np.arange(2))
    refusal(root, "error_x_fp32", "x is fp16 or bf16 (op_defs), not fp32",
            "x", xdtype="fp32")
    refusal(root, "error_x_d_16400", "d 16400 > 16384 (kvgold's bound)",
            "x", xshape=(1, 16400), cache_shape=(1, 16400))
    refusal(root, "error_va_v2_cache_3d", "va_v2 cache [2, 2, 132]: 'the "
            "dim of indexer_compress_cache only support 4' (VA "
            "tiling.cpp:99-102)", "cache", impl="va_v2",
            cache_shape=(2, 2, 132), no_scale=True)
    refusal(root, "error_va_v2_cache_dim2", "va_v2 cache [2, 2, 2, 132]: "
            "'the third dim ... must be 1' (VA tiling.cpp:104-107)", "cache",
            impl="va_v2", cache_shape=(2, 2, 2, 132), no_scale=True)
    refusal(root, "error_va_v2_cache_fp8", "va_v2 cache is uint8 (VA "
            "op_def), not fp8_e4m3fn", "cache", impl="va_v2",
            cache_dtype="fp8_e4m3fn", no_scale=True)
    refusal(root, "error_va_v2_cache_narrow", "va_v2 cacheD 131 < d + 4 * "
            "scale_col = 132: a block's last scales would run past it",
            "cache", impl="va_v2", cache_shape=(2, 2, 1, 131),
            no_scale=True)
    refusal(root, "error_va_v2_cache_scale_given", "va_v2 has no "
            "cache_scale tensor", "cache_scale", impl="va_v2",
            scale_shape=(2, 1), scale_dtype="fp32")


def refused_slots(root):
    refusal(root, "error_slot_int64", "slot_mapping is int32 only (both "
            "op_defs: DT_INT32; the kernels read int32)", "slot_mapping",
            slot_dtype="int64")
    refusal(root, "error_slot_minus2", "only -1 is skipped: slot -2 would "
            "write before the cache", "slot_mapping",
            slots=np.array([0, -2]))
    refusal(root, "error_slot_past_end", "slot 4 of a cache of 4 rows",
            "slot_mapping", slots=np.array([4, 0]))
    refusal(root, "error_slot_repeated", "two kept tokens name slot 3",
            "slot_mapping", xshape=(3, 128), slots=np.array([3, -1, 3]))
    refusal(root, "error_slot_shape", "x [3, 128] with slot_mapping [2]",
            "slot_mapping", xshape=(3, 128), slots=np.arange(2))


def refused_values(root):
    refusal(root, "error_x_nan", "a NaN in a kept token's x", "x", mode=0,
            bad_x=(1, 7, np.nan))
    refusal(root, "error_x_inf_fp16", "an Inf in a kept token's fp16 x",
            "x", xdtype="fp16", bad_x=(0, 40, -np.inf))
    refusal(root, "error_m1_subnormal_scale", "cr mode 1, a bf16 group "
            "whose amax is 2^-130: s = amax (x) 0x3B124925 is a binary32 "
            "subnormal (whether the NPU flushes it is not known)", "x",
            tiny_group=(0, 2.0 ** -130))


def generate(root):
    cr_mode1_cases(root)
    cr_mode0_cases(root)
    cr_documented_shape(root)
    cr_mode2_cases(root)
    cr_all_skipped(root)
    va_cases(root)
    refused_attrs(root)
    refused_tensors(root)
    refused_slots(root)
    refused_values(root)
