"""Cases for dynamic_block_quant (the list is in docs/dynamic_block_quant.md,
"Vectors").

Each case draws x from np.random.RandomState(seed): normal values times a
per-block amplitude between 2^-6 and 2^6 (so blocks have different scales),
narrowed to x's dtype, zeros replaced; then writes the designed values (ties,
zero blocks, non-finite elements) over it. y and scale are given as random
bytes (poison), which the operator must overwrite entirely. Expected outputs
come from kvgen.amax_block_quant.golden; a valid case is checked against
kvgen.amax_block_quant.refusals, and a refused case must hit one. A few
cases are invalid on purpose and carry "expect_error".
"""
import numpy as np

from . import formats
from .casefile import T, write_case
from .amax_block_quant import golden, refusals

NAME = "dynamic_block_quant"
OP = "dynamic_block_quant"
STORE_X = {"fp16": np.float16, "bf16": np.uint16, "fp32": np.float32}
STORE_Y = {"int8": np.int8, "fp8_e4m3fn": np.uint8, "fp8_e5m2": np.uint8,
           "hif8": np.uint8}
Y_OF = {"int8": "int8"}


def attrs_of(dst="int8", rb=1, cb=128, min_scale=0.0, round_mode=None,
             dst_type_max=0.0):
    return {"min_scale": float(min_scale),
            "round_mode": round_mode or ("round" if dst == "hif8"
                                         else "rint"),
            "dst_type": dst, "row_block_size": rb, "col_block_size": cb,
            "dst_type_max": float(dst_type_max)}


def random_x(rng, shape, tag, rb, cb):
    """Normal values with a random amplitude per block, narrowed to `tag`,
    never zero."""
    x3 = shape if len(shape) == 3 else (1,) + tuple(shape)
    b, m, n = x3
    amp = 2.0 ** rng.uniform(-6, 6, (b, -(-m // rb), -(-n // cb)))
    amp = np.repeat(np.repeat(amp, rb, axis=1), cb, axis=2)[:, :m, :n]
    f = (rng.standard_normal(x3) * amp).astype(np.float32)
    back = formats.decode(tag, formats.encode(tag, f))
    f = np.where(back == 0, np.float32(0.25), back).astype(np.float32)
    return f.reshape(shape)


def store_x(f, tag):
    return formats.encode(tag, np.asarray(f, dtype=np.float32))


def poison(rng, shape, dtype):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = rng.randint(1, 256, size=nbytes).astype(np.uint8)
    return raw.view(dtype).reshape(shape)


def scale_shape(shape, rb, cb):
    lead = tuple(shape[:-2])
    return lead + (-(-shape[-2] // rb), -(-shape[-1] // cb))


def emit(root, case_id, comment, x, tag, attrs, profile=None, rng=None,
         error=None, yshape=None, sshape=None, ytag=None, by_value=False):
    """Write one case; `error` is the tensor a refused case names,
    `by_value` says the refusal is one of x's values."""
    rng = rng or np.random.RandomState(7)
    dst = attrs["dst_type"]
    ytag = ytag or dst
    yshape = yshape or x.shape
    sshape = sshape or scale_shape(x.shape, max(attrs["row_block_size"], 1),
                                   max(attrs["col_block_size"], 1))
    options = {"profile": profile} if profile else None
    inputs = {"x": T(x, tag),
              "y": T(poison(rng, yshape, STORE_Y.get(ytag, np.uint8)), ytag),
              "scale": T(poison(rng, sshape, np.float32), "fp32")}
    if error is not None:
        if by_value:
            assert refusals(x, tag, attrs, profile or "ascend950").size, \
                "%s: refused for x, but no element is refused" % case_id
        write_case(root, case_id, OP, attrs, inputs, {}, options=options,
                   comment=comment,
                   expect_error={"status": 161002, "tensor": error})
        return
    bad = refusals(x, tag, attrs, profile or "ascend950")
    assert bad.size == 0, "%s: a valid case has refused elements %s" % (
        case_id, bad[:4])
    y, scale = golden(x, tag, attrs, profile or "ascend950")
    y = y.astype(STORE_Y[dst])
    write_case(root, case_id, OP, attrs, inputs,
               {"y": T(y, dst), "scale": T(scale, "fp32")}, options=options,
               comment=comment)


def random_case(root, case_id, comment, seed, shape, tag, attrs,
                profile=None, edit=None):
    rng = np.random.RandomState(seed)
    f = random_x(rng, shape, tag, attrs["row_block_size"],
                 attrs["col_block_size"])
    if edit is not None:
        edit(f, rng)
    emit(root, case_id, comment, store_x(f, tag), tag, attrs, profile, rng)


# ---- the dst types, 2-D and 3-D, partial blocks ---------------------------

def shapes_and_types(root):
    random_case(root, "int8_fp16_2d_1x128_partial_cols",
                "[5, 300]: column blocks 128, 128, 44", 501, (5, 300),
                "fp16", attrs_of("int8"))
    random_case(root, "e4m3_bf16_2d_128x256_partial_both",
                "[200, 320], 128 x 256 blocks: rows 128 + 72, columns "
                "256 + 64", 502, (200, 320), "bf16",
                attrs_of("fp8_e4m3fn", rb=128, cb=256))
    random_case(root, "e5m2_fp32_3d_64x192",
                "[2, 70, 200], 64 x 192 blocks: partial in both dims, two "
                "batches", 503, (2, 70, 200), "fp32",
                attrs_of("fp8_e5m2", rb=64, cb=192))
    random_case(root, "hif8_fp16_3d_1x64",
                "[3, 5, 130], 1 x 64 blocks (the last 2 columns wide), "
                "round_mode round", 504, (3, 5, 130), "fp16",
                attrs_of("hif8", cb=64))
    random_case(root, "int8_bf16_3d_256x128",
                "[2, 300, 129], 256 x 128: a 1-column last block", 505,
                (2, 300, 129), "bf16", attrs_of("int8", rb=256))
    random_case(root, "e4m3_fp32_2d_512x64",
                "[513, 70], 512 x 64: a 1-row last block", 506, (513, 70),
                "fp32", attrs_of("fp8_e4m3fn", rb=512, cb=64))
    for k, dmax in enumerate((15.0, 56.0, 224.0, 32768.0)):
        random_case(root, "hif8_bf16_dst_type_max_%d" % int(dmax),
                    "hif8 with dst_type_max %g: scale = amax / %g" % (
                        dmax, dmax), 510 + k, (3, 256), "bf16",
                    attrs_of("hif8", dst_type_max=dmax))


# ---- min_scale, saturation, zeros, ties -----------------------------------

def min_scale_cases(root):
    # Amplitudes 2^-6..2^6: amax / 127 spans about 2^-9..2^-1, so a limit of
    # 1/min_scale = 2^-4 caps some blocks' scales and not others.
    for k, dst in enumerate(("int8", "fp8_e4m3fn", "fp8_e5m2", "hif8")):
        dmax = {"int8": 127, "fp8_e4m3fn": 448, "fp8_e5m2": 57344,
                "hif8": 32768}[dst]
        random_case(root, "min_scale_%s_fp16" % dst,
                    "min_scale %g: scale = min(amax / %d, 1 / min_scale) "
                    "caps the larger blocks (their y saturate), leaves the "
                    "smaller" % (16.0 * dmax / 127.0, dmax), 520 + k,
                    (4, 512), "fp16",
                    attrs_of(dst, min_scale=16.0 * dmax / 127.0))


def zero_blocks(f, rng):
    """Whole blocks of +0 and -0 (scale 0, y +0 codes on the 950)."""
    f[..., 0, :128] = 0.0
    f[..., 1, 128:256] = -0.0


def zero_cases(root):
    for k, (dst, tag) in enumerate((("int8", "fp16"), ("fp8_e4m3fn", "bf16"),
                                    ("fp8_e5m2", "fp32"), ("hif8", "fp16"))):
        random_case(root, "zero_blocks_%s_%s" % (dst, tag),
                    "an all +0 and an all -0 block: scale 0.0, 0/0 = NaN, "
                    "cast to the +0 code", 530 + k, (3, 256), tag,
                    attrs_of(dst), edit=zero_blocks)


def ties(dst, tag, profile=None):
    """x / scale (or x * m) exactly halfway between two codes: amax is
    DST_MAX (scale 1) for the 950, 127 (m = 1) for a2a3."""
    top = 127.0 if profile == "a2a3" else {
        "int8": 127.0, "fp8_e4m3fn": 448.0, "fp8_e5m2": 57344.0,
        "hif8": 32768.0}[dst]
    half = {"int8": [0.5, 1.5, 2.5, -2.5, 3.5, -0.5, 126.5, -125.5],
            "fp8_e4m3fn": [1.0625, 1.1875, -1.0625, 0.0029296875, 3.25,
                           -416.0, 13.0, 0.5625],
            "fp8_e5m2": [1.125, 1.375, -1.125, 2.5, -40960.0, 0.15625,
                         7.0, 0.0],
            "hif8": [1.0625, 1.1875, -1.0625, 4.5, -12.5, 0.09375, 20.0,
                     0.0]}[dst]
    row = np.zeros((2, 128), dtype=np.float32)
    row[:, 0] = top
    row[0, 1:1 + len(half)] = half
    row[1, 1:1 + len(half)] = [-v for v in half]
    row[:, 1 + len(half):] = np.float32(0.75)
    return store_x(row, tag)


def tie_cases(root):
    for k, dst in enumerate(("int8", "fp8_e4m3fn", "fp8_e5m2", "hif8")):
        emit(root, "ties_%s_fp16" % dst,
             "amax = DST_MAX, so scale is 1 and x / scale is exactly "
             "halfway between codes: RNE for int8 / fp8, away from zero "
             "for hif8", ties(dst, "fp16"), "fp16", attrs_of(dst),
             rng=np.random.RandomState(540 + k))
    emit(root, "ties_a2a3_fp16",
         "a2a3, amax 127: m = fl(fl(1/127) * 127) = 1, x * m halfway "
         "between integers, RNE", ties("int8", "fp16", "a2a3"), "fp16",
         attrs_of("int8"), profile="a2a3", rng=np.random.RandomState(545))


def saturation_cases(root):
    # min_scale far above amax's reciprocal: every scale is 1/min_scale, and
    # most |x| / scale exceed DST_MAX.
    for k, dst in enumerate(("int8", "fp8_e4m3fn", "fp8_e5m2", "hif8")):
        random_case(root, "saturate_%s_bf16" % dst,
                    "min_scale 2^20: scale 2^-20 everywhere, y saturates "
                    "to +-max", 550 + k, (2, 256), "bf16",
                    attrs_of(dst, min_scale=2.0 ** 20))


# ---- non-finite x on the 950 ----------------------------------------------

def specials(f, rng):
    """Block 0 of row 0 gets a NaN, block 1 of row 0 a +Inf and a -Inf,
    block 0 of row 1 a -Inf only."""
    f[..., 0, 5] = np.nan
    f[..., 0, 130] = np.inf
    f[..., 0, 200] = -np.inf
    f[..., 1, 7] = -np.inf


def nonfinite_cases(root):
    for k, (dst, tag) in enumerate((("int8", "fp16"), ("fp8_e4m3fn", "bf16"),
                                    ("fp8_e5m2", "fp32"), ("hif8", "bf16"))):
        random_case(root, "nonfinite_%s_%s" % (dst, tag),
                    "NaN in a block: scale NaN (0x7FC00000), y +0; Inf: "
                    "scale +inf, finite x -> +-0, +-Inf / Inf = NaN -> +0",
                    560 + k, (3, 256), tag, attrs_of(dst), edit=specials)


# ---- the A2/A3 kernel -----------------------------------------------------

def a2a3_cases(root):
    random_case(root, "a2a3_fp16_2d_partial",
                "a2a3 int8 1x128: m = fl(fl(1/amax) * 127), scale = amax * "
                "fl(1/127); [7, 300]", 570, (7, 300), "fp16", attrs_of(),
                profile="a2a3")
    random_case(root, "a2a3_bf16_3d_vllm_c8",
                "a2a3, vllm-ascend's C8 call: k_nope.view(-1, 1, 512)", 571,
                (6, 1, 512), "bf16", attrs_of(), profile="a2a3")
    # min_scale 0.998 against amax 127.0 .. 127.5: blocks with amax >
    # 127.25 get m = max(fl(fl(1/amax) * 127), 0.998) = 0.998 and scale
    # min(amax * fl(1/127), fl(1/0.998)); the others keep both. (Any
    # min_scale well above 127 / amax pushes x * m out of int8, which a2a3
    # refuses: docs/dynamic_block_quant.md, "Refused".)
    rng = np.random.RandomState(572)
    f = rng.uniform(-120, 120, (6, 256)).astype(np.float32)
    tops = [127.0, 127.3125, 127.5, 127.4375, 127.0625, 127.25]
    for r, top in enumerate(tops):
        f[r, rng.randint(0, 128)] = top if r % 2 else -top
        f[r, 128 + rng.randint(0, 128)] = 127.0
    emit(root, "a2a3_min_scale_fp16",
         "a2a3, min_scale 0.998: active in the blocks whose amax exceeds "
         "127.25, inactive in the others", store_x(f, "fp16"), "fp16",
         attrs_of(min_scale=0.998), profile="a2a3", rng=rng)
    random_case(root, "a2a3_min_scale_inactive_bf16",
                "a2a3, min_scale 0.01: below every block's m, and 1/min_scale "
                "above every scale", 573, (4, 384), "bf16",
                attrs_of(min_scale=0.01), profile="a2a3")


# ---- refused calls --------------------------------------------------------

def err(root, case_id, comment, tensor, x=None, tag="fp16", profile=None,
        by_value=None, **kw):
    shape_kw = {k: kw.pop(k) for k in ("yshape", "sshape", "ytag")
                if k in kw}
    attrs = attrs_of(**kw)
    given = x is not None
    if x is None:
        rng = np.random.RandomState(590)
        x = store_x(random_x(rng, (2, 256), tag, 1, 128), tag)
    emit(root, case_id, comment, x, tag, attrs, profile, error=tensor,
         by_value=given if by_value is None else by_value, **shape_kw)


def with_value(tag, shape, at, value, rb=1, cb=128, amp=1.0):
    rng = np.random.RandomState(591)
    f = random_x(rng, shape, tag, rb, cb) * np.float32(amp)
    f[at] = value
    return store_x(f, tag)


def refused(root):
    err(root, "error_a2a3_fp32_x", "a2a3 takes fp16 / bf16 x only", "x",
        tag="fp32", profile="a2a3")
    err(root, "error_a2a3_hif8", "a2a3 quantises to int8 only", "y",
        profile="a2a3", dst="hif8")
    err(root, "error_a2a3_row_block_128", "a2a3: row_block_size 1 only",
        "row_block_size", profile="a2a3", rb=128,
        sshape=(1, 2))
    err(root, "error_hif8_rint", "hif8 needs round_mode round",
        "round_mode", dst="hif8", round_mode="rint")
    err(root, "error_int8_round", "int8 needs round_mode rint",
        "round_mode", round_mode="round")
    err(root, "error_hybrid", "hybrid is refused for every dst_type",
        "round_mode", dst="hif8", round_mode="hybrid")
    err(root, "error_dst_type_max_int8", "dst_type_max only with hif8",
        "dst_type_max", dst_type_max=15.0)
    err(root, "error_dst_type_max_100", "dst_type_max 100 is not a choice",
        "dst_type_max", dst="hif8", dst_type_max=100.0)
    err(root, "error_col_block_100", "col_block_size 100 is not a choice",
        "col_block_size", cb=100, sshape=(2, 3))
    err(root, "error_row_block_2", "row_block_size 2 is not a choice",
        "row_block_size", rb=2, sshape=(1, 2))
    err(root, "error_dst_type_vs_y", "dst_type fp8_e4m3fn, y int8",
        "dst_type", dst="fp8_e4m3fn", ytag="int8")
    err(root, "error_scale_shape", "scale [2, 3] for [2, 256] in 1x128",
        "scale", sshape=(2, 3))
    err(root, "error_y_shape", "y [2, 255] for x [2, 256]", "y",
        yshape=(2, 255))
    err(root, "error_min_scale_negative", "min_scale must be >= 0",
        "min_scale", min_scale=-1.0)
    err(root, "error_min_scale_huge_950",
        "min_scale 2^127: 1/min_scale is subnormal, flushed by the 950",
        "min_scale", min_scale=2.0 ** 127)
    err(root, "error_subnormal_x", "a bf16 subnormal element", "x",
        x=with_value("bf16", (2, 256), (1, 3), 2.0 ** -130), tag="bf16")
    err(root, "error_subnormal_scale_e4m3",
        "amax 2^-120 in fp32: amax / 448 is subnormal", "x",
        x=with_value("fp32", (2, 128), (0, slice(None)), 2.0 ** -120),
        tag="fp32", dst="fp8_e4m3fn")
    tiny = with_value("fp32", (1, 128), (0, 0), 7168.0)
    tiny[0, 9] = np.float32(2.0 ** -125)
    err(root, "error_subnormal_quotient_e4m3",
        "x 2^-125 over scale 16 is subnormal: the sign of the flushed fp8 "
        "zero is not documented", "x", x=tiny, tag="fp32", dst="fp8_e4m3fn")
    err(root, "error_a2a3_nan", "a2a3: NaN in x", "x",
        x=with_value("fp16", (2, 256), (0, 4), np.nan), profile="a2a3")
    err(root, "error_a2a3_zero_block", "a2a3: an all-zero block", "x",
        x=with_value("bf16", (2, 256), (1, slice(128, 256)), 0.0),
        tag="bf16", profile="a2a3")
    err(root, "error_a2a3_min_scale_overflow",
        "a2a3: min_scale 1000 makes x * m leave int8", "x",
        profile="a2a3", min_scale=1000.0, by_value=True)


def generate(root):
    shapes_and_types(root)
    min_scale_cases(root)
    zero_cases(root)
    tie_cases(root)
    saturation_cases(root)
    nonfinite_cases(root)
    a2a3_cases(root)
    refused(root)
