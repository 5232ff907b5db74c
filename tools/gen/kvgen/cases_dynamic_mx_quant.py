"""Cases for dynamic_mx_quant (the list is in docs/dynamic_mx_quant.md,
"Vectors").

Each case draws x from np.random.RandomState(seed): normal values times an
amplitude per block between 2^-8 and 2^8 (so blocks get different scale
codes), narrowed to x's dtype, zeros replaced; then writes the designed
values (ties, tiny and zero blocks, non-finite elements) over it. y and
mxscale are given as random bytes (poison), which the operator must
overwrite entirely. Expected outputs come from
kvgen.mx_block_quant.golden; a valid case is checked against
kvgen.mx_block_quant.refusals, and a case refused for x's values must
hit one. Some cases are invalid on purpose and carry "expect_error".
"""
import numpy as np

from . import formats
from .casefile import T, write_case
from .mx_block_quant import golden, refusals, view3

NAME = "dynamic_mx_quant"
OP = "dynamic_mx_quant"


def attrs_of(dst="fp4_e2m1", axis=-1, mode="rint", bs=32, alg=0,
             dst_type_max=0.0, max_low_bound=0.0):
    return {"axis": axis, "round_mode": mode, "dst_type": dst,
            "block_size": bs, "scale_alg": alg,
            "dst_type_max": float(dst_type_max),
            "max_low_bound": float(max_low_bound)}


def random_x(rng, shape, tag, axis, bs):
    """Normal values with a random amplitude per block, narrowed to `tag`,
    never zero (float32, x's shape)."""
    f = rng.standard_normal(shape).astype(np.float32)
    f3, _ = view3(f, axis)
    outer, n, inner = f3.shape
    amp = 2.0 ** rng.randint(-8, 9, (outer, -(-n // bs), inner))
    f3 *= np.repeat(amp, bs, axis=1)[:, :n, :].astype(np.float32)
    back = formats.decode(tag, formats.encode(tag, f))
    return np.where(back == 0, np.float32(0.25), back).astype(np.float32)


def store_x(f, tag):
    return formats.encode(tag, np.asarray(f, dtype=np.float32))


def poison(rng, shape):
    return rng.randint(1, 256, size=shape).astype(np.uint8)


def y_shape(shape, dst):
    if dst.startswith("fp4"):
        return tuple(shape[:-1]) + (shape[-1] // 2,)
    return tuple(shape)


def s_shape(shape, axis, bs):
    s = list(shape)
    nb = -(-s[axis] // bs)
    s[axis] = -(-nb // 2)
    return tuple(s) + (2,)


def emit(root, case_id, comment, x, tag, attrs, rng=None, error=None,
         by_value=False, yshape=None, sshape=None, ytag=None, stag="e8m0"):
    """Write one case; `error` is the tensor a refused case names,
    `by_value` says the refusal is one of x's values."""
    rng = rng or np.random.RandomState(7)
    dst = attrs["dst_type"]
    ytag = ytag or dst
    yshape = yshape or y_shape(x.shape, dst)
    sshape = sshape or s_shape(x.shape, attrs["axis"],
                               max(attrs["block_size"], 1))
    inputs = {"x": T(x, tag), "y": T(poison(rng, yshape), ytag),
              "mxscale": T(poison(rng, sshape), stag)}
    if error is not None:
        if by_value:
            assert refusals(x, tag, attrs).size, \
                "%s: refused for x, but no element is refused" % case_id
        write_case(root, case_id, OP, attrs, inputs, {}, comment=comment,
                   expect_error={"status": 161002, "tensor": error})
        return
    bad = refusals(x, tag, attrs)
    assert bad.size == 0, "%s: a valid case has refused elements %s" % (
        case_id, bad[:4])
    y, scale = golden(x, tag, attrs)
    write_case(root, case_id, OP, attrs, inputs,
               {"y": T(y, dst), "mxscale": T(scale, "e8m0")},
               comment=comment)


def random_case(root, case_id, comment, seed, shape, tag, attrs, edit=None):
    rng = np.random.RandomState(seed)
    f = random_x(rng, shape, tag, attrs["axis"], attrs["block_size"])
    if edit is not None:
        edit(f, rng)
    emit(root, case_id, comment, store_x(f, tag), tag, attrs, rng)


# ---- dst types, round modes, scale_alg, axes, block counts -----------------

def main_cases(root):
    random_case(root, "fp4_rint_bf16_last_odd",
                "[4, 96] block 32: 3 blocks per row, the pair of the third "
                "padded with 0x00", 701, (4, 96), "bf16", attrs_of())
    random_case(root, "fp4_floor_fp16_last_bs64",
                "[3, 256] block 64, floor: 4 blocks, even", 702, (3, 256),
                "fp16", attrs_of(mode="floor", bs=64))
    random_case(root, "fp4_round_fp32_partial",
                "[2, 3, 80] fp32 block 32, round: blocks 32, 32, 16 (zero "
                "padded for amax)", 703, (2, 3, 80), "fp32",
                attrs_of(mode="round"))
    random_case(root, "fp4_rint_bf16_axis0_interleave",
                "[100, 6] axis 0: 4 blocks down the columns (the last of "
                "4 rows), mxscale [2, 6, 2] interleaved", 704, (100, 6),
                "bf16", attrs_of(axis=0))
    random_case(root, "fp4_floor_fp16_axis1_rank3",
                "[2, 70, 4] axis 1 block 64: 2 blocks, the second partial "
                "(6 rows); mxscale [2, 1, 4, 2]", 705, (2, 70, 4), "fp16",
                attrs_of(axis=1, mode="floor", bs=64))
    random_case(root, "fp4_round_fp32_axis_neg2",
                "[3, 40, 2] fp32 axis -2: 2 blocks (32 + 8)", 706,
                (3, 40, 2), "fp32", attrs_of(axis=-2, mode="round"))
    random_case(root, "e4m3_ocp_bf16_vllm_k",
                "MXFP8 K as vllm-ascend's C8-MXFP writes it: [4, 8, 128] "
                "bf16, e4m3fn, block 32, scale_alg 0", 707, (4, 8, 128),
                "bf16", attrs_of("fp8_e4m3fn"))
    random_case(root, "e5m2_ocp_fp16_axis0",
                "[96, 5] fp16 e5m2 axis 0: 3 blocks, odd", 708, (96, 5),
                "fp16", attrs_of("fp8_e5m2", axis=0))
    random_case(root, "e4m3_cublas_fp32",
                "scale_alg 1 (cuBLAS): code = ceil(log2(amax * fl(1/448)))",
                709, (3, 160), "fp32", attrs_of("fp8_e4m3fn", alg=1))
    random_case(root, "e5m2_cublas_bf16_axis1_bs64",
                "scale_alg 1, e5m2, [2, 130, 3] axis 1 block 64: 3 blocks",
                710, (2, 130, 3), "bf16",
                attrs_of("fp8_e5m2", axis=1, bs=64, alg=1))
    random_case(root, "fp4_rint_bf16_rank1",
                "rank 1 [64]: one pair of blocks", 711, (64,), "bf16",
                attrs_of())
    random_case(root, "e4m3_ocp_fp16_rank5_axis2",
                "rank 5 [2, 1, 33, 2, 4] axis 2: 2 blocks (32 + 1)", 712,
                (2, 1, 33, 2, 4), "fp16", attrs_of("fp8_e4m3fn", axis=2))
    random_case(root, "fp4_rint_bf16_bs1024",
                "block_size 1024 on [2, 1536]: 2 blocks, the second half "
                "full", 713, (2, 1536), "bf16", attrs_of(bs=1024))


# ---- zero and tiny blocks, saturation, ties, non-finite ---------------------

def zero_blocks(tiny):
    """Row 0 block 0: +0 and -0 only; row 1 block 0: tiny values (amax
    below 2^(emax-126), OCP code 0, payload zero with x's sign)."""
    def edit(f, rng):
        f[0, :32] = 0.0
        f[0, 1:32:3] = -0.0
        f[1, :32] = tiny * rng.uniform(1.0, 3.9, 32).astype(np.float32)
        f[1, 0:32:2] *= -1
    return edit


def zero_cases(root):
    for k, (dst, tag, tiny, alg) in enumerate((
            ("fp4_e2m1", "bf16", 2.0 ** -126, 0),
            ("fp4_e2m1", "fp32", 2.0 ** -126, 0),
            ("fp8_e4m3fn", "bf16", 2.0 ** -121, 0),
            ("fp8_e5m2", "fp32", 2.0 ** -114, 0),
            ("fp8_e4m3fn", "fp32", 2.0 ** -126, 1))):
        random_case(root, "zero_tiny_blocks_%s_%s_alg%d" % (dst, tag, alg),
                    "an all +-0 block (code 0x00, payload +-0) and a block "
                    "of tiny values (%s)" % (
                        "OCP code 0: multiplier 0, payload +-0" if alg == 0
                        else "cuBLAS subnormal s: code 0, multiplier 2^127"),
                    720 + k, (2, 64), tag,
                    attrs_of(dst, alg=alg), edit=zero_blocks(tiny))


def saturation_cases(root):
    """amax just below 2^(emax+1) times a power of two: the top values
    scale to (6, 8) / (448, 512) / (57344, 65536) and saturate."""
    for k, (dst, tag, top) in enumerate((("fp4_e2m1", "bf16", 7.9375),
                                         ("fp8_e4m3fn", "fp32", 511.0),
                                         ("fp8_e5m2", "bf16", 65024.0))):
        def edit(f, rng, top=top):
            f[:, 0::7] = np.float32(top * 2.0 ** -3)
            f[:, 3::7] = np.float32(-top * 2.0 ** 5 * 0.96875)
        random_case(root, "saturate_%s_%s" % (dst, tag),
                    "values scaling above the largest code saturate to "
                    "+-max", 730 + k, (2, 64), tag, attrs_of(dst), edit=edit)


def fp4_ties():
    """amax 4 (code 127, multiplier 1): every tie of the FP4 grid, and
    the same negated."""
    half = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 0.125, 4.0]
    row = np.full((2, 32), 0.5, dtype=np.float32)
    row[:, 0] = 4.0
    row[0, 1:1 + len(half)] = half
    row[1, 1:1 + len(half)] = [-v for v in half]
    return row


def fp8_ties(dst):
    """amax 2^8 (e4m3, code 127) or 2^15 (e5m2): x equals x * m, halfway
    between codes."""
    top, half = {"fp8_e4m3fn": (256.0, [1.0625, 1.1875, -1.0625, 3.25,
                                        -416.0, 13.0, 0.5625,
                                        0.0029296875]),
                 "fp8_e5m2": (32768.0, [1.125, 1.375, -1.125, 2.5,
                                        -40960.0, 0.15625, 7.0,
                                        2.0 ** -17])}[dst]
    row = np.full((2, 32), 0.75, dtype=np.float32)
    row[:, 0] = top
    row[0, 1:1 + len(half)] = half
    row[1, 1:1 + len(half)] = [-v for v in half]
    return row


def tie_cases(root):
    for k, mode in enumerate(("rint", "floor", "round")):
        emit(root, "ties_fp4_%s_fp16" % mode,
             "multiplier 1, x exactly halfway between FP4 codes: %s" % mode,
             store_x(fp4_ties(), "fp16"), "fp16", attrs_of(mode=mode),
             rng=np.random.RandomState(740 + k))
    for k, dst in enumerate(("fp8_e4m3fn", "fp8_e5m2")):
        emit(root, "ties_%s_fp32" % dst,
             "multiplier 1, x halfway between fp8 codes: nearest even",
             store_x(fp8_ties(dst), "fp32"), "fp32", attrs_of(dst),
             rng=np.random.RandomState(745 + k))


def specials(f, rng):
    """Row 0 block 0 a NaN, row 0 block 1 +Inf and -Inf, row 1 block 1
    -Inf only: those blocks get code 0xFF and payload code 0."""
    f[0, 5] = np.nan
    f[0, 40] = np.inf
    f[0, 50] = -np.inf
    f[1, 33] = -np.inf


def log2_edge(f, rng):
    """fp32 amax one ulp below a power of two far from 1: the exponent
    field says 2^-101 / 2^99, a float32 log2 rounds up to -100 / 100."""
    f[0, :32] *= np.float32(2.0 ** -110)
    f[0, 7] = np.float32(float.fromhex("0x1.fffffep-101"))
    f[1, 32:] *= np.float32(2.0 ** 85)
    f[1, 40] = -np.float32(float.fromhex("0x1.fffffep+99"))


def log2_cases(root):
    random_case(root, "fp4_rint_fp32_amax_below_pow2",
                "fp32 amax 0x1.fffffep-101 and -0x1.fffffep+99: the code "
                "comes from the exponent field (2^-101, 2^99), not from a "
                "rounded log2", 760, (2, 64), "fp32", attrs_of(),
                edit=log2_edge)


def nonfinite_cases(root):
    for k, (dst, tag, alg) in enumerate((("fp4_e2m1", "bf16", 0),
                                         ("fp8_e4m3fn", "fp16", 0),
                                         ("fp8_e5m2", "fp32", 1))):
        random_case(root, "nonfinite_%s_%s" % (dst, tag),
                    "NaN / Inf in a block: code 0xFF, its payload NaN -> "
                    "code 0", 750 + k, (2, 64), tag, attrs_of(dst, alg=alg),
                    edit=specials)


# ---- refused calls --------------------------------------------------------

def err(root, case_id, comment, tensor, x=None, tag="bf16", shape=(2, 64),
        by_value=None, **kw):
    shape_kw = {k: kw.pop(k) for k in ("yshape", "sshape", "ytag", "stag")
                if k in kw}
    attrs = attrs_of(**kw)
    given = x is not None
    if x is None:
        rng = np.random.RandomState(790)
        x = store_x(random_x(rng, shape, tag, attrs["axis"], 32), tag)
    emit(root, case_id, comment, x, tag, attrs, error=tensor,
         by_value=given if by_value is None else by_value, **shape_kw)


def refused(root):
    err(root, "error_e1m2", "fp4_e1m2: no encoder in kvgold", "dst_type",
        dst="fp4_e1m2", ytag="fp4_e1m2")
    err(root, "error_scale_alg2", "scale_alg 2 is not modelled",
        "scale_alg", alg=2)
    err(root, "error_cublas_fp4", "scale_alg 1 needs an fp8 y",
        "scale_alg", alg=1)
    err(root, "error_dst_type_max", "dst_type_max 6 (scale_alg 2's)",
        "dst_type_max", dst_type_max=6.0)
    err(root, "error_max_low_bound", "max_low_bound is not modelled",
        "max_low_bound", dst="fp8_e4m3fn", alg=1, max_low_bound=1e-4)
    err(root, "error_fp8_floor", "fp8 takes round_mode rint only",
        "round_mode", dst="fp8_e5m2", mode="floor")
    err(root, "error_block_48", "block_size 48 is not a multiple of 32",
        "block_size", bs=48, sshape=(2, 1, 2))
    err(root, "error_block_2048", "block_size 2048 is above 1024",
        "block_size", bs=2048, sshape=(2, 1, 2))
    err(root, "error_fp32_bs64", "fp32 x takes block_size 32 only",
        "block_size", tag="fp32", bs=64)
    err(root, "error_axis_2", "axis 2 for a rank-2 x", "axis", axis=2,
        sshape=(2, 1, 2))
    err(root, "error_fp4_odd_last", "fp4 y needs an even last dim", "x",
        shape=(64, 3), axis=0, yshape=(64, 1))
    err(root, "error_y_shape", "y [2, 64] for fp4 (want [2, 32])", "y",
        yshape=(2, 64))
    err(root, "error_mxscale_shape", "mxscale [2, 2, 2] (want [2, 1, 2])",
        "mxscale", sshape=(2, 2, 2))
    err(root, "error_mxscale_uint8", "mxscale must be e8m0", "mxscale",
        stag="uint8")
    err(root, "error_y_dtype", "dst_type fp8_e4m3fn, y fp8_e5m2", "y",
        dst="fp8_e4m3fn", ytag="fp8_e5m2")
    sub = random_x(np.random.RandomState(791), (2, 64), "bf16", -1, 32)
    sub[1, 9] = 2.0 ** -130
    err(root, "error_subnormal_x", "a bf16 subnormal element", "x",
        x=store_x(sub, "bf16"))
    neg = random_x(np.random.RandomState(792), (2, 64), "fp32", -1, 32)
    neg[0, 0] = 2.0 ** 20
    neg[0, 3] = -(2.0 ** -120)
    err(root, "error_subnormal_product",
        "amax 2^20 (code 145): -2^-120 * 2^-18 is subnormal, the sign of "
        "its flushed zero is open", "x", x=store_x(neg, "fp32"), tag="fp32")


def generate(root):
    main_cases(root)
    zero_cases(root)
    saturation_cases(root)
    tie_cases(root)
    nonfinite_cases(root)
    log2_cases(root)
    refused(root)
