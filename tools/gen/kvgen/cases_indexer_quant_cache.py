"""Vectors for IndexerQuantCache (ops-transformer@25fb6b928
aclnnIndexerQuantCache): per quant_mode, x fp16 and bf16, int32 and int64
slots, slot -1 (one skipped token even holds a NaN), the last valid slot,
several blocks, caches and scale caches exactly as wide as the kernel
writes and wider (tails untouched), d from 32 to 8192, and designed groups:
all zero (with -0), amax below the 1e-4 floor, amax where the E8M0 rules
turn (s an exact power of two, one x ulp below and above; for MX-FP4 amax
a power of two and one ulp below), values that round to +-max or
saturate, fp4 and HiF8 ties, bf16 subnormal groups and the kernel's fp16
route to fp4. Initial caches (both tensors) are poison. error_* cases are
the op_host's refusals (tiling) and kvgold's (dtypes, slots, non-finite
x), each naming the tensor; the comment quotes the reason. Expected
tensors come from kvgen.indexer_quant_cache.
"""
import numpy as np

from . import formats
from . import indexer_quant_cache as iqc
from .casefile import T, write_case

NAME = "indexer_quant_cache"
OP = "indexer_quant_cache"
G = iqc.GROUP

# designed group kinds
ZERO, TINY, EXACT, BELOW, ABOVE = "zero", "tiny", "exact", "below", "above"
POW2, POW2_BELOW, TIES4, TIES12 = "pow2", "pow2_below", "ties4", "ties12"
SUBN, CLAMP, WIDE, HTIES = "subn", "clamp", "wide", "hties"
FIXUP, FP16SUB, DBLRND = "fixup", "fp16sub", "dblrnd"

# amax whose s = amax (x) fl(1/MAX) is exactly 2^-6 (e4m3: 7 = 448 * 2^-6)
# or 2^-12 (e5m2: 14 = 57344 * 2^-12): M(s) = 0, the R-CEIL turning point
EDGE_AMAX = {"fp8_e4m3fn": 7.0, "fp8_e5m2": 14.0}
ULP_AT_EDGE = {"bf16": {7.0: 2.0 ** -5, 14.0: 2.0 ** -4},
               "fp16": {7.0: 2.0 ** -8, 14.0: 2.0 ** -7}}


def enc_x(f, xdtype):
    """float64 values -> x storage (RNE), a float16 or bf16-code array."""
    f32 = np.asarray(f, dtype=np.float32)
    if xdtype == "fp16":
        return formats.fp16_encode(f32).view(np.float16)
    return formats.bf16_encode(f32)


def random_x(rng, tokens, d):
    """Normal values with an amplitude 2^-4 .. 2^4 per 32 columns."""
    f = rng.standard_normal((tokens, d))
    amp = 2.0 ** rng.randint(-4, 5, (tokens, -(-d // G)))
    f *= np.repeat(amp, G, axis=1)[:, :d]
    return np.where(np.abs(f) < 2.0 ** -12, 0.375, f)


def edge_group(n, amax, rng):
    """n values of magnitude < amax, one of them -amax (the group's amax)
    and one +amax * 0.5."""
    v = np.round(rng.uniform(-1, 1, n) * amax * 8) / 16  # short mantissas
    v[n // 3] = -amax
    v[n // 2] = amax * 0.5
    return v


def kind_values(kind, n, ctx, rng):
    """The n float64 values of a designed group (exact in ctx's x dtype)."""
    xd, fp8 = ctx["x"], ctx.get("fp8", "fp8_e4m3fn")
    if kind == ZERO:
        v = np.zeros(n)
        v[1::3] = -0.0
        return v
    if kind == TINY:       # amax 12 * 2^-18 = 1.5 * 2^-15 < 1e-4
        return ((np.arange(n) % 25) - 12.0) * 2.0 ** -18
    edge = EDGE_AMAX[fp8] if kind in (EXACT, BELOW, ABOVE) else None
    if kind == EXACT:
        return edge_group(n, edge, rng)
    if kind in (BELOW, ABOVE):
        ulp = ULP_AT_EDGE[xd][edge]
        return edge_group(n, edge - ulp if kind == BELOW else edge + ulp,
                          rng)
    return special_values(kind, n, xd, rng)


def special_values(kind, n, xd, rng):
    """MX-FP4, HiF8 and fp16-route groups."""
    i = np.arange(n)
    if kind == POW2:       # amax 4 = 2^2: E8M0 code 127 + 2 - 2 = 127
        return edge_group(n, 4.0, rng)
    if kind == POW2_BELOW:  # amax 4 - ulp: code 126, 3.98 * 2 -> sat 6
        return edge_group(n, 4.0 - (2.0 ** -6 if xd == "bf16" else
                                    2.0 ** -9), rng)
    if kind == TIES4:      # amax 6 (mult 1): every E2M1 tie, both signs
        t = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 6.0])
        return np.resize(np.concatenate([t, -t]), n)
    if kind == TIES12:     # amax 1.875 (E1M2, mult 1): ties and sat 1.75
        t = np.array([0.125, 0.375, 0.625, 0.875, 1.125, 1.375, 1.625,
                      1.875])
        return np.resize(np.concatenate([t, -t]), n)
    if kind == SUBN:       # bf16 subnormals only: exponent field 0
        return ((i % 7) - 3.0) * 2.0 ** -133 * 16
    if kind == CLAMP:      # bf16 exponent field <= 2: code 0, mult 2^127
        return np.where(i % 2, -1.0, 1.0) * (1.0 + (i % 4) / 4) * 2.0 ** -125
    if kind == WIDE:       # HiF8: 2^-30 .. 2^17 (fp16: 2^-24 .. 2^15)
        lo, hi = (-30, 17) if xd == "bf16" else (-24, 15)
        v = 2.0 ** (np.round(np.linspace(lo, hi, n) * 4) / 4)
        return np.where(i % 2, -v, v)
    if kind == HTIES:      # HiF8 ties (half away) in binades of width
        # 3, 2, 1, 0 bits, 40960 (ties up to 2^16: saturates to 32768),
        # the 2^-23 binade (-> 2^-22) and 2^-24 (-> +0)
        t = np.array([1.0625, 1.1875, 8.5, 36.0, 320.0, 40960.0,
                      1.125 * 2.0 ** -7, 1.5 * 2.0 ** -20, 2.0 ** -23,
                      1.5 * 2.0 ** -23, 2.0 ** -24])
        return np.resize(np.concatenate([t, -t]), n)
    if kind == FIXUP:      # fp16 5 + 2^-8: low bits only -> sticky kept
        t = np.array([6.0, 5.0 + 2.0 ** -8, 5.0, 2.5 + 2.0 ** -9, 2.5,
                      0.25 + 2.0 ** -12, 0.25, 4.99609375])
        return np.resize(np.concatenate([t, -t]), n)
    if kind == FP16SUB:    # fp16 subnormals m * 2^-24, m < 8: the fix-up
        return np.resize(np.array([5.0, 3.0, 1.0, -2.0, 7.0, -6.0, 4.0,
                                   0.0]), n) * 2.0 ** -24
    if kind == DBLRND:     # fp16 subnormals m = 641 ...: TRUNC drops 2 bits
        return np.resize(np.array([641.0, 640.0, -643.0, 321.0, 100.0,
                                   -1.0, 12.0, 0.0]), n) * 2.0 ** -24
    raise ValueError(kind)


# ---- building a case ----------------------------------------------------

CACHE_DTYPE = {0: "fp8_e4m3fn", 1: "fp8_e4m3fn", 2: "uint8", 3: "fp4_e2m1"}
SCALE_DTYPE = {0: "e8m0", 1: "fp32", 2: "fp32", 3: "e8m0"}
INEXACT_KINDS = (WIDE,)         # kinds whose values need not be exact


def design(f, specials, ctx, rng, whole_row):
    """Write the designed groups (token, group index, kind) into f [T, d]:
    32 columns each, or the whole row (mode 1, one scale per row)."""
    d = f.shape[1]
    for tok, gi, kind in specials:
        cols = slice(0, d) if whole_row else slice(gi * G, (gi + 1) * G)
        v = kind_values(kind, f[tok, cols].size, ctx, rng)
        f[tok, cols] = v
        if kind not in INEXACT_KINDS:
            got = iqc.x_values(enc_x(v, ctx["x"]), ctx["x"])
            assert np.array_equal(got.astype(np.float64), v), (kind, v)
    return f


def poison(rng, shape, dtype):
    """Non-zero junk: random bytes 1..255, or fp32 values +-(0.5, 1000)."""
    if dtype == "fp32":
        v = rng.uniform(0.5, 1000.0, shape) * rng.choice([-1, 1], shape)
        return v.astype(np.float32)
    return rng.randint(1, 256, size=shape).astype(np.uint8)


def slots_of(rng, tokens, nslots, skip):
    """Unique slots of [0, nslots): the last one at token tokens // 2, -1
    for the tokens in skip."""
    s = rng.permutation(nslots - 1)[:tokens].astype(np.int64)
    s[tokens // 2] = nslots - 1
    for t in skip:
        s[t] = -1
    return s


def nan_code(xdtype):
    return (np.array([np.nan], dtype=np.float16) if xdtype == "fp16"
            else np.array([0x7FC0], dtype=np.uint16))[0]


def tensors(x, xdtype, slots, slot_dtype, cache, cache_dtype, scale,
            scale_dtype):
    sd = {"int32": np.int32, "int64": np.int64, "int16": np.int16}
    return {"cache": T(cache, cache_dtype),
            "cache_scale": T(scale, scale_dtype),
            "x": T(x, xdtype),
            "slot_mapping": T(np.asarray(slots).astype(sd[slot_dtype]),
                              slot_dtype)}


def case(root, cid, comment, seed, attrs, xdtype, shape, cache_shape,
         scale_shape, cache_dtype=None, slot_dtype="int32", specials=(),
         skip=(1,), nan_skipped=False):
    """One valid case: x of `shape` (rank >= 2), poisoned caches, the
    designed groups; expected tensors from the golden."""
    rng = np.random.RandomState(seed)
    mode = attrs["quant_mode"]
    cache_dtype = cache_dtype or CACHE_DTYPE[mode]
    d = shape[-1]
    tokens = int(np.prod(shape[:-1]))
    ctx = {"x": xdtype, "fp8": cache_dtype}
    f = design(random_x(rng, tokens, d), specials, ctx, rng, mode == 1)
    x = enc_x(f, xdtype)
    slots = slots_of(rng, tokens, cache_shape[0] * cache_shape[1], skip)
    if nan_skipped:             # a skipped token is never read
        x[skip[0], 3] = nan_code(xdtype)
    cache = poison(rng, cache_shape, "uint8")
    scale = poison(rng, scale_shape, SCALE_DTYPE[mode])
    exp_c, exp_s = iqc.golden(x, xdtype, slots, cache, cache_dtype, scale,
                              attrs)
    assert not np.array_equal(exp_c, cache), cid
    assert not np.array_equal(exp_s.view(np.uint8), scale.view(np.uint8))
    x = x.reshape(shape)
    inputs = tensors(x, xdtype, slots.reshape(shape[:-1]), slot_dtype,
                     cache, cache_dtype, scale, SCALE_DTYPE[mode])
    write_case(root, cid, OP, attrs, inputs,
               {"cache": T(exp_c, cache_dtype),
                "cache_scale": T(exp_s, SCALE_DTYPE[mode])},
               comment=comment)


# ---- the valid cases ----------------------------------------------------

def mode0_cases(root):
    case(root, "m0_e4m3_bf16_blocks",
         "MX-FP8 (quant_mode 0), e4m3, bf16 x [6, 128] into 3 blocks of 4 "
         "slots; cache headDim = d and cache_scale headDim = d/32 exactly; "
         "token 1 skipped (-1), token 3 at the last slot 11; groups: all "
         "zero with -0 (amax floor 1e-4, -0 -> 0x80), amax below the floor, "
         "s = 7 (x) fl(1/448) = 2^-6 exactly (code 121, payload 448 = "
         "0x7E), one bf16 ulp below (code 121) and above (code 122)", 3701,
         {"quant_mode": 0}, "bf16", (6, 128), (3, 4, 1, 128), (3, 4, 1, 4),
         specials=[(0, 0, ZERO), (0, 1, TINY), (2, 0, EXACT),
                   (2, 1, BELOW), (2, 2, ABOVE), (4, 3, EXACT)])
    case(root, "m0_e5m2_fp16_x3d_wide_int64",
         "quant_mode 0, e5m2, fp16 x [2, 3, 96] with slot_mapping [2, 3] "
         "int64; cache [4, 2, 1, 160] and cache_scale [4, 2, 1, 5] wider "
         "than written (columns 96.. and 3.. untouched); s = 14 (x) "
         "fl(1/57344) = 2^-12 exactly, one fp16 ulp below and above", 3702,
         {"quant_mode": 0}, "fp16", (2, 3, 96), (4, 2, 1, 160),
         (4, 2, 1, 5), cache_dtype="fp8_e5m2", slot_dtype="int64",
         specials=[(0, 0, EXACT), (0, 1, BELOW), (0, 2, ABOVE),
                   (2, 1, ZERO), (4, 2, TINY)], skip=(2,))
    case(root, "m0_e4m3_fp16_d32_round_false",
         "quant_mode 0, d = 32 (the smallest): round_scale false is ignored "
         "in MX-FP8 (the kernel always rounds the scale up, "
         "single_row_mx_fp8.h:84); a skipped token holds a NaN", 3703,
         {"quant_mode": 0, "round_scale": False}, "fp16", (4, 32),
         (2, 3, 1, 32), (2, 3, 1, 1),
         specials=[(0, 0, EXACT), (2, 0, ABOVE)], nan_skipped=True)


def mode1_cases(root):
    case(root, "m1_e4m3_bf16_round",
         "Normal (quant_mode 1), e4m3, round_scale true: one fp32 scale per "
         "row, s = rowmax (x) bits 0x3B124925 rounded up to a power of two "
         "(bits); rows: all zero (scale 0, -0 -> 0x80), rowmax 7 (scale "
         "2^-6, payload 448), 7 - ulp (2^-6), 7 + ulp (2^-5), rowmax "
         "1.5 * 2^-15 (no floor in this mode); a NaN in the skipped token",
         3711, {"quant_mode": 1}, "bf16", (7, 256), (2, 4, 1, 256),
         (2, 4, 1, 1),
         specials=[(0, 0, ZERO), (2, 0, EXACT), (3, 0, BELOW),
                   (4, 0, ABOVE), (5, 0, TINY)], nan_skipped=True)
    case(root, "m1_e5m2_fp16_trunc_int64",
         "quant_mode 1, e5m2, round_scale false: the scale is s itself and "
         "the payload x (x) fl(1/s); a zero row stores 0.0 and keeps x (0 "
         "(x) inf is not finite); int64 slots; cache [3, 2, 1, 96] and "
         "cache_scale [3, 2, 1, 2] wider than written", 3712,
         {"quant_mode": 1, "round_scale": False}, "fp16", (5, 64),
         (3, 2, 1, 96), (3, 2, 1, 2), cache_dtype="fp8_e5m2",
         slot_dtype="int64",
         specials=[(0, 0, ZERO), (2, 0, EXACT), (3, 0, TINY)])
    case(root, "m1_e4m3_bf16_trunc_d160",
         "quant_mode 1, e4m3, round_scale false, d 160 (not a multiple of "
         "64: the kernel's last 64-lane pass is partial)", 3713,
         {"quant_mode": 1, "round_scale": False}, "bf16", (4, 160),
         (2, 3, 1, 160), (2, 3, 1, 1),
         specials=[(0, 0, BELOW), (2, 0, ABOVE)], skip=(3,))


def mode2_cases(root):
    case(root, "m2_hif8_bf16_xscale",
         "HiFloat8 (quant_mode 2), x_scale 0.37: hif8_ROUND_SAT(x (x) "
         "0.37) in a uint8 cache; magnitudes 2^-30 .. 2^17 (below the "
         "smallest code -> +0, above 40960 -> 32768 = 0x6E); cache_scale "
         "[.., 2]: column 0 of a written slot gets 4 undefined bytes the "
         "golden writes as 0, column 1 untouched", 3721,
         {"quant_mode": 2, "x_scale": 0.37}, "bf16", (5, 128),
         (2, 4, 1, 128), (2, 4, 1, 2),
         specials=[(0, 0, WIDE), (2, 2, WIDE), (4, 3, HTIES)])
    case(root, "m2_hif8_fp16_ties_int64",
         "quant_mode 2, x_scale default 1.0: HiF8 ties round half away "
         "from zero in each binade width (1.0625 -> 1.125, 8.5 -> 9, "
         "36 -> 40, 320 -> 384, 1.5 * 2^-20 -> 2^-19, 40960 saturates), "
         "2^-23 and 1.5 * 2^-23 -> 2^-22, 2^-24 -> +0; fp16 x, int64 "
         "slots, cache wider than d", 3722, {"quant_mode": 2}, "fp16",
         (4, 64), (3, 2, 1, 80), (3, 2, 1, 1), slot_dtype="int64",
         specials=[(0, 0, HTIES), (2, 1, HTIES), (3, 0, WIDE)])


def mode3_cases(root):
    case(root, "m3_e2m1_bf16_edges",
         "MX-FP4 (quant_mode 3), E2M1, bf16 x [6, 128]: cache [3, 4, 1, 64] "
         "bytes (d/2, exactly), cache_scale [3, 4, 1, 4]; groups: all zero "
         "(code 0, payload +-0), bf16 subnormals only (exponent field 0: "
         "code 0, payload 0), exponent field <= 2 (code 0, multiplier "
         "2^127: 1.25 * 2^-125 -> 5 -> 4 (tie), 1.75 * 2^-125 -> 7 "
         "saturates to 6), amax "
         "4 = 2^2 (code 127) and 4 - ulp (code 126; 3.98 * 2 saturates to "
         "6), amax 6 with every E2M1 tie (0.25 -> 0, 0.75 -> 1, 2.5 -> 2, "
         "5 -> 4, ...)", 3731, {"quant_mode": 3}, "bf16", (6, 128),
         (3, 4, 1, 64), (3, 4, 1, 4),
         specials=[(0, 0, ZERO), (0, 1, SUBN), (0, 2, CLAMP), (2, 0, POW2),
                   (2, 1, POW2_BELOW), (2, 2, TIES4), (4, 3, TIES4)])
    case(root, "m3_e2m1_fp16_fixup_int64",
         "quant_mode 3, E2M1, fp16 x: the kernel's fp16 -> bf16 route "
         "(FP16ConvertMXFP4 ORs bit 3 into a mantissa whose low byte is in "
         "(0, 8), then Cast TRUNC) keeps round-to-nearest-even exact for "
         "normal fp16: 5 + 2^-8 -> 6, 5 -> 4, 0.25 + 2^-12 -> 0.5, 0.25 "
         "-> 0; int64 slots; cache [2, 3, 1, 80] bytes and cache_scale "
         "[2, 3, 1, 6] wider than written", 3732, {"quant_mode": 3}, "fp16",
         (4, 128), (2, 3, 1, 80), (2, 3, 1, 6), slot_dtype="int64",
         specials=[(0, 0, FIXUP), (0, 1, POW2), (2, 2, POW2_BELOW),
                   (3, 3, TIES4), (3, 1, ZERO)], skip=(1, 2))
    case(root, "m3_e2m1_fp16_subnormal_route",
         "quant_mode 3, E2M1, groups of fp16 subnormals m * 2^-24, as the "
         "kernel's route reads (unverified on a device): m < 8 gets bit 3 "
         "ORed in (m = 5 -> 13: saturates to 6 where exact rounding gives "
         "4), and for m >= 256 the TRUNC cast to bf16 drops low bits "
         "first (641 -> 640: 5.0078 becomes the tie 5 -> 4)", 3733,
         {"quant_mode": 3}, "fp16", (3, 64), (2, 2, 1, 32), (2, 2, 1, 2),
         specials=[(0, 0, FP16SUB), (0, 1, DBLRND), (2, 1, FP16SUB)])
    case(root, "m3_e2m1_bf16_d8192",
         "quant_mode 3, d = 8192 (the largest): 4096 bytes of fp4 and 256 "
         "E8M0 scales per row, written at the last slot of [1, 2, 1, 4096] "
         "caches", 3735, {"quant_mode": 3}, "bf16", (1, 8192),
         (1, 2, 1, 4096), (1, 2, 1, 256),
         specials=[(0, 0, ZERO), (0, 100, TIES4), (0, 255, POW2_BELOW)],
         skip=())


def generate(root):
    mode0_cases(root)
    mode1_cases(root)
    mode2_cases(root)
    mode3_cases(root)
    refused_cases(root)


def refusal(root, cid, comment, tensor, mode=1, xdtype="bf16", xshape=(2, 64),
            slots=None, slot_dtype="int32", cache_dtype=None,
            cache_shape=None, scale_dtype=None, scale_shape=None,
            attrs=None, bad_x=None):
    """A call the operator refuses, naming `tensor` (status 161002);
    nothing is computed, both caches are poison. Unnamed parts default to
    a valid call of `mode` with 2 x 2 slots."""
    rng = np.random.RandomState(3790)
    d = xshape[-1]
    tokens = int(np.prod(xshape[:-1]))
    if xdtype == "fp32":
        x = random_x(rng, tokens, d).astype(np.float32).reshape(xshape)
    else:
        x = enc_x(random_x(rng, max(tokens, 1), d), xdtype)[:tokens]
        x = x.reshape(xshape)
    if bad_x is not None:       # (flat token, column, float value)
        tok, col, val = bad_x
        x.reshape(-1, d)[tok, col] = enc_x([val], xdtype)[0]
    if slots is None:
        slots = np.arange(tokens).reshape(xshape[:-1])
    cache_shape = cache_shape or (2, 2, 1, iqc.cache_cols(mode, d))
    scale_shape = scale_shape or (2, 2, 1, iqc.scale_cols(mode, d))
    scale_dtype = scale_dtype or SCALE_DTYPE[mode]
    inputs = tensors(x, xdtype, slots, slot_dtype,
                     poison(rng, cache_shape, "uint8"),
                     cache_dtype or CACHE_DTYPE[mode],
                     poison(rng, scale_shape, scale_dtype), scale_dtype)
    a = {"quant_mode": mode}
    a.update(attrs or {})
    write_case(root, cid, OP, a, inputs, {}, comment=comment,
               expect_error={"status": 161002, "tensor": tensor})


def refused_e1m2(root):
    """kvgold's formats layer has no FP4 E1M2 codec: the C operator
    refuses an fp4_e1m2 cache (docs/indexer_quant_cache.md);
    the golden's E1M2 model (mx_fp4 with fp4 "fp4_e1m2") is kept."""
    refusal(root, "error_m3_e1m2_cache", "mode 3 with an fp4_e1m2 cache: "
            "refused by kvgold (no E1M2 codec), not by the kernel", "cache",
            mode=3, cache_dtype="fp4_e1m2")


def refused_shapes(root):
    """The op_host tiling's refusals (indexer_quant_cache_tiling_arch35.cpp
    at 25fb6b928; the comment quotes its log message)."""
    refusal(root, "error_quant_mode_4", "quant_mode 4: 'quant_mode should "
            "be in [0,3], got 4' (tiling:207)", "quant_mode", mode=4,
            cache_shape=(2, 2, 1, 64), scale_shape=(2, 2, 1, 1),
            cache_dtype="fp8_e4m3fn", scale_dtype="fp32")
    refusal(root, "error_d_48", "d 48: 'the last dim (d) of x should be "
            "32-aligned, got 48' (tiling:195)", "x", xshape=(2, 48))
    refusal(root, "error_d_8224", "d 8224: 'input x tail dimension must "
            "less than 8192, got 8224' (tiling:200; d = 8192 is accepted)",
            "x", mode=3, xshape=(1, 8224), cache_shape=(1, 2, 1, 4112),
            scale_shape=(1, 2, 1, 257))
    refusal(root, "error_slot_rank", "x [2, 2, 64] with slot_mapping [4]: "
            "'slotMappingDims should equal xDims - 1' (tiling:181)",
            "slot_mapping", xshape=(2, 2, 64), slots=np.arange(4))
    refusal(root, "error_slot_shape", "x [3, 64] with slot_mapping [2]: "
            "'slotMappingShape should equal xStorageShape in dim 0' "
            "(tiling:186)", "slot_mapping", xshape=(3, 64),
            slots=np.arange(2), cache_shape=(2, 2, 1, 64))
    refusal(root, "error_cache_3d", "cache [2, 2, 64]: 'cache must be 4D "
            "[blockNum, blockSize, 1, headDim], got dimNum=3' (tiling:155)",
            "cache", cache_shape=(2, 2, 64))
    refusal(root, "error_cache_dim2", "cache [2, 2, 2, 64]: 'cache dim2 "
            "(second-to-last) must be 1' (tiling:160)", "cache",
            cache_shape=(2, 2, 2, 64))
    refusal(root, "error_scale_3d", "cache_scale [2, 2, 1]: 'cache_scale "
            "must be 4D' (tiling:155)", "cache_scale",
            scale_shape=(2, 2, 1))
    refusal(root, "error_scale_dim2", "cache_scale [2, 2, 2, 1]: "
            "'cache_scale dim2 (second-to-last) must be 1' (tiling:160)",
            "cache_scale", scale_shape=(2, 2, 2, 1))
    refusal(root, "error_cache_short", "mode 0, d 128, cache headDim 127: "
            "'cache headDim(row stride, ...)=127 must be >= per-token "
            "quantized-x length=128' (tiling:328)", "cache", mode=0,
            xshape=(2, 128), cache_shape=(2, 2, 1, 127))
    refusal(root, "error_cache_short_fp4", "mode 3, d 128 needs 64 bytes "
            "of packed fp4 per row, the cache has 63: '... must be >= "
            "per-token quantized-x length=64' (tiling:328)", "cache",
            mode=3, xshape=(2, 128), cache_shape=(2, 2, 1, 63))
    refusal(root, "error_scale_short", "mode 0, d 128 writes 4 E8M0 per "
            "row, cache_scale has 3: 'cache_scale last dim(row stride)=3 "
            "must be >= scaleCol=4' (tiling:334)", "cache_scale", mode=0,
            xshape=(2, 128), scale_shape=(2, 2, 1, 3))


def refused_calls(root):
    """kvgold's refusals of calls the kernel would corrupt or the aclnn
    doc forbids (dtype combinations of the op_def and the doc, slot range,
    repeats, non-finite x)."""
    refusal(root, "error_scale_blocks", "cache_scale has 3 blocks, cache "
            "2: the kernel addresses both with one slot (no check there)",
            "cache_scale", scale_shape=(3, 2, 1, 1))
    refusal(root, "error_scale_block_size", "cache_scale blockSize 4, "
            "cache 2", "cache_scale", scale_shape=(2, 4, 1, 1))
    refusal(root, "error_m1_uint8_cache", "mode 1 with a uint8 cache: the "
            "kernel's StoreOutputData has no uint8 branch (no codes stored) "
            "and the scale coefficient is 0", "cache", cache_dtype="uint8")
    refusal(root, "error_m2_fp8_cache", "mode 2 writes HiF8 codes: its "
            "cache is uint8, not fp8_e4m3fn", "cache", mode=2,
            cache_dtype="fp8_e4m3fn")
    refusal(root, "error_m0_fp32_scale", "mode 0 stores E8M0 scales: an "
            "fp32 cache_scale is the wrong dtype", "cache_scale", mode=0,
            scale_dtype="fp32", scale_shape=(2, 2, 1, 2))
    refusal(root, "error_m1_e8m0_scale", "mode 1 stores fp32 scales, not "
            "e8m0", "cache_scale", scale_dtype="e8m0")
    refusal(root, "error_m3_fp8_cache", "mode 3 writes packed fp4: an fp8 "
            "cache is the wrong dtype", "cache", mode=3,
            cache_dtype="fp8_e4m3fn")
    refusal(root, "error_x_fp32", "x is fp16 or bf16 (op_def), not fp32",
            "x", xdtype="fp32")
    refusal(root, "error_slot_int16", "slot_mapping is int32 (aclnn) or "
            "int64, not int16", "slot_mapping", slot_dtype="int16")
    refusal(root, "error_slot_minus2", "only -1 is skipped: slot -2 would "
            "write before the cache", "slot_mapping",
            slots=np.array([0, -2]))
    refusal(root, "error_slot_past_end", "slot 4 of a cache of 2 x 2 "
            "slots", "slot_mapping", slots=np.array([4, 0]),
            slot_dtype="int64")
    refusal(root, "error_slot_repeated", "two tokens write slot 3 (the "
            "doc: repeated slots give no guaranteed result)",
            "slot_mapping", xshape=(3, 64), slots=np.array([3, -1, 3]))
    refusal(root, "error_x_nan", "a NaN in a written token's x",
            "x", mode=0, bad_x=(1, 7, np.nan))
    refusal(root, "error_x_inf_fp16", "an Inf in a written token's fp16 x",
            "x", mode=3, xdtype="fp16", bad_x=(0, 40, -np.inf))
    refusal(root, "error_x_scale_overflow", "mode 2, x_scale 1e39 is +inf "
            "once narrowed to binary32", "x_scale", mode=2,
            attrs={"x_scale": 1e39})
    refusal(root, "error_x_empty", "x [0, 64]: 'aclnnIndexerQuantCache do "
            "not support empty tensor!' (aclnn_indexer_quant_cache.cpp)",
            "x", xshape=(0, 64))


def refused_cases(root):
    refused_shapes(root)
    refused_calls(root)
    refused_e1m2(root)
