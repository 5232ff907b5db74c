"""Cases of concat_and_cache_ds_mla's preset "flashmla-model1" (the
model: kvgen.concat_and_cache_ds_mla_model1), written into the
operator's vector directory by cases_concat_and_cache_ds_mla.generate.

Tokens: normal values times an amplitude per 64-tile between 2^-4 and 2^4,
rounded to bf16, zeros replaced (random_tokens). Designed tiles are
written over chosen tokens; each builder asserts the property it is named
for with the model's own arithmetic. Caches start as random bytes 1..255
(poison): skipped slots, rows no token names, the per-token
pad byte and the block tail must come back unchanged. Refusals carry the
status and the tensor (or attribute) kvgold must name; the comment ends
with the words its message should hold.
"""
import numpy as np

from . import concat_and_cache_ds_mla_model1 as m1
from . import formats
from .casefile import T, write_case

OP = "concat_and_cache_ds_mla"
PRESET = "flashmla-model1"
STORE = {"uint8": np.uint8, "fp8_e4m3fn": np.uint8, "int8": np.int8}
SLOT = {"int32": np.int32, "int64": np.int64, "int16": np.int16}
F32 = np.float32


def bf16(f):
    return formats.bf16_encode(np.asarray(f, dtype=F32))


def bf16_value(code):
    return F32(formats.bf16_decode(np.uint16(code)))


def random_tokens(rng, n):
    """float32 [n, 448]: normal values, amplitude 2^-4..2^4 per tile."""
    f = rng.standard_normal((n, m1.NOPE)).astype(F32)
    amp = 2.0 ** rng.randint(-4, 5, (n, m1.TILES))
    f *= np.repeat(amp, m1.TILE, axis=1).astype(F32)
    return np.where(np.abs(f) < 2.0 ** -20, F32(0.375), f)


def rope_of(rng, n):
    return bf16(rng.standard_normal((n, m1.ROPE)) * 2.0)


def poison(rng, num_blocks, block_size, tag, width=None):
    width = m1.block_bytes(block_size) if width is None else width
    raw = rng.randint(1, 256, size=(num_blocks, width)).astype(np.uint8)
    return raw.view(STORE[tag])


def attrs_of(block_size=None, preset=PRESET):
    a = {"preset": preset}
    if block_size is not None:
        a["block_size"] = block_size
    return a


def tile_at(f, token, tile, values):
    f[token, tile * m1.TILE:(tile + 1) * m1.TILE] = values


def exponents(f, token):
    """The 7 scale exponents of token `token`'s (bf16-rounded) row."""
    x = formats.bf16_decode(bf16(f[token])).reshape(m1.TILES, m1.TILE)
    return m1.scale_exponent(np.abs(x).max(axis=1))


def emit(root, case_id, comment, f, pe, slots, slot_tag, cache, cache_tag,
         block_size, lead=None):
    """Write a valid case: kv_c = bf16(f) shaped lead + [448], k_pe codes
    `pe`, the expected cache from kvgen.concat_and_cache_ds_mla_model1."""
    n = f.shape[0]
    lead = (n,) if lead is None else lead
    kv = bf16(f).reshape(lead + (m1.NOPE,))
    pe = np.asarray(pe, dtype=np.uint16).reshape(lead + (m1.ROPE,))
    slots = np.asarray(slots).astype(SLOT[slot_tag]).reshape(lead)
    ins = {"kv_c": T(kv, "bf16"), "k_pe": T(pe, "bf16"),
           "slot_mapping": T(slots, slot_tag),
           "kv_cache": T(cache, cache_tag)}
    expected = m1.golden({k: v.array for k, v in ins.items()}, block_size)
    write_case(root, case_id, OP, attrs_of(block_size), ins,
               {"kv_cache": T(expected, cache_tag)}, comment=comment)
    return expected


# ---- valid cases ----------------------------------------------------------

def rows_int32(root):
    rng = np.random.RandomState(3801)
    f = random_tokens(rng, 5)
    emit(root, "model1_rows_int32",
         "flashmla-model1 (FlashMLA tests/quant.py MODEL1_FP8Sparse): kv_c "
         "[5, 448], block_size 4, uint8 cache [2, 2880] (ceil(4 * 584 / "
         "576) * 576), int32 slots 3, -1 (skipped), 7 (the last), 0, 5; "
         "rows 1, 2, 4, 6, every pad byte r * 8 + 7 and the tails [2336, "
         "2880) untouched", f, rope_of(rng, 5), [3, -1, 7, 0, 5], "int32",
         poison(rng, 2, 4, "uint8"), "uint8", 4)


def int64_blocks(root):
    rng = np.random.RandomState(3802)
    f = random_tokens(rng, 6)
    emit(root, "model1_int64_blocks",
         "flashmla-model1: kv_c [2, 3, 448], int64 slots [[70, 5, 127], "
         "[64, 63, 100]] (the last slot 127; 63 and 64 either side of the "
         "block edge), block_size 64 -> block_bytes 37440 (65 * 576), "
         "uint8 cache [2, 37440]: scales at 36864 + r * 8, tail [37376, "
         "37440) untouched", f, rope_of(rng, 6).reshape(2, 3, m1.ROPE),
         [70, 5, 127, 64, 63, 100], "int64", poison(rng, 2, 64, "uint8"),
         "uint8", 64, lead=(2, 3))


def e4m3_cache(root):
    rng = np.random.RandomState(3803)
    f = random_tokens(rng, 4)
    emit(root, "model1_e4m3_cache",
         "flashmla-model1 into a float8_e4m3fn cache [3, 1728] (block_size "
         "2: 1168 bytes used, tail [1168, 1728) untouched), int64 slots 5 "
         "(the last), 0, -3 (skipped), 2", f, rope_of(rng, 4),
         [5, 0, -3, 2], "int64", poison(rng, 3, 2, "fp8_e4m3fn"),
         "fp8_e4m3fn", 2)


def signed_zeros(n):
    v = np.zeros(n, dtype=F32)
    v[1::3] = -0.0
    return v


def below_floor_tile(rng):
    """amax 0.0400390625 (v = amax / 448 < 1e-4: the floor gives k = -13,
    codes x * 2^13), bf16 subnormals (codes +-0) among the values."""
    v = bf16_value(bf16(F32(0.04)))
    mag = 2.0 ** rng.uniform(-12, np.log2(float(v)), m1.TILE)
    t = formats.bf16_decode(bf16(mag.astype(F32))).astype(F32)
    t = np.minimum(t, v)
    t[:6] = formats.bf16_decode(np.uint16([1, 2, 0x7F, 0x40, 3, 0x10]))
    t *= np.where(rng.randint(0, 2, m1.TILE) == 0, -1, 1).astype(F32)
    t[6], t[7] = v, -v
    assert F32(v / m1.E4M3_MAX) < m1.FLOOR
    return t[rng.permutation(m1.TILE)]


def with_amax(rng, amax, lo=2.0 ** -8, n=m1.TILE):
    """A tile of n: +-amax and random bf16 values of magnitude in
    [lo*amax, amax)."""
    mag = float(amax) * 2.0 ** rng.uniform(np.log2(lo), 0, n)
    t = np.minimum(formats.bf16_decode(bf16(mag.astype(F32))), F32(amax))
    t = t.astype(F32) * np.where(rng.randint(0, 2, n) == 0, -1,
                                 1).astype(F32)
    t[0], t[1] = F32(amax), F32(-amax)
    return t[rng.permutation(n)]


def zero_tiles(root):
    rng = np.random.RandomState(3804)
    f = random_tokens(rng, 2)
    at_2m14 = F32(448.0 * 2.0 ** -14)            # v = 2^-14 < 1e-4
    at_2m13 = F32(448.0 * 2.0 ** -13)            # v = 2^-13 > 1e-4
    above = bf16_value(bf16(at_2m13) + 1)
    tile_at(f, 0, 0, signed_zeros(m1.TILE))
    tile_at(f, 0, 1, below_floor_tile(rng))
    tile_at(f, 0, 2, with_amax(rng, at_2m14))
    tile_at(f, 0, 3, with_amax(rng, at_2m13))
    tile_at(f, 0, 4, with_amax(rng, above))
    lone = np.zeros(m1.TILE, dtype=F32)
    lone[17] = -formats.bf16_decode(np.uint16(1))          # -2^-133
    tile_at(f, 1, 3, -np.zeros(m1.TILE, dtype=F32))
    tile_at(f, 1, 5, lone)
    k0, k1 = exponents(f, 0), exponents(f, 1)
    assert list(k0[:5]) == [-13, -13, -13, -13, -12], k0
    assert k1[3] == -13 and k1[5] == -13, k1
    emit(root, "model1_zero_tiles",
         "flashmla-model1, the 1e-4 floor (quant.py:18): token 0 tile 0 "
         "all +-0 (v = 0 -> 1e-4 -> k = -13, byte 114, codes 0x00 / 0x80), "
         "tile 1 amax 0.0400390625 (v < 1e-4: k = -13) with bf16 "
         "subnormals (codes +-0), tile 2 amax 448 * 2^-14 (v = 2^-14 "
         "exactly: the floor lifts it to k = -13), tile 3 amax 448 * 2^-13 "
         "(v = 2^-13: k = -13), tile 4 one bf16 above (k = -12); token 1 "
         "tile 3 all -0 (codes 0x80), tile 5 all 0 but one -2^-133; "
         "block_size 4, int32 slots 2, 0 of a uint8 cache [1, 2880]",
         f, rope_of(rng, 2), [2, 0], "int32", poison(rng, 1, 4, "uint8"),
         "uint8", 4)


def e4m3_midpoints():
    """The 126 values halfway between consecutive positive e4m3fn codes
    (0x00..0x7E), ascending: each is an RNE tie."""
    c = np.arange(0, 0x7F, dtype=np.uint8)
    v = formats.e4m3fn_decode(c).astype(np.float64)
    return (v[:-1] + v[1:]) / 2


def ties_tiles(rng):
    """Three tiles of amax 1.75 (v = 2^-8 exactly, x / 2^-8 = 256 x)
    holding every e4m3fn midpoint once, times 2^-8, in alternate signs."""
    mid = (e4m3_midpoints() * 2.0 ** -8).astype(F32)
    assert np.array_equal(formats.bf16_decode(bf16(mid)), mid)
    sign = np.where(np.arange(mid.size) % 2 == 0, 1, -1).astype(F32)
    mid = mid * sign
    a = F32(1.75)
    t0 = np.concatenate([[a, -a], mid[:62]])
    t1 = np.concatenate([[-a], mid[62:125]])
    t2 = with_amax(rng, a)
    t2[np.argmax(np.abs(t2) < a)] = mid[125]
    return [t.astype(F32)[rng.permutation(m1.TILE)] for t in (t0, t1, t2)]


def boundaries(root):
    rng = np.random.RandomState(3805)
    f = random_tokens(rng, 3)
    for j, t in enumerate(ties_tiles(rng)):
        tile_at(f, 0, j, t)
    top = bf16_value(0x7F7F)                                  # bf16 max
    tile_at(f, 0, 3, with_amax(rng, bf16_value(bf16(F32(1.75)) + 1)))
    tile_at(f, 0, 4, with_amax(rng, top, lo=2.0 ** -140))
    neg_top = with_amax(rng, bf16_value(0x7F7E))
    neg_top[np.argmax(neg_top == -bf16_value(0x7F7E))] = -top
    neg_top[np.argmax(neg_top == bf16_value(0x7F7E))] = bf16_value(0x7F7E)
    tile_at(f, 0, 5, neg_top)
    tile_at(f, 0, 6, with_amax(rng, bf16_value(bf16(F32(1.75)) - 1)))
    for j, a in enumerate((448.0, 448.0 * 2 ** 10, 1.75 * 2 ** -20)):
        tile_at(f, 1, j, with_amax(rng, F32(a)))
        tile_at(f, 1, j + 3, with_amax(rng, bf16_value(bf16(F32(a)) + 1)))
    k0, k1 = exponents(f, 0), exponents(f, 1)
    assert list(k0) == [-8, -8, -8, -7, 120, 120, -8], k0
    assert list(k1[:6]) == [0, 10, -13, 1, 11, -13], k1
    emit(root, "model1_boundaries",
         "flashmla-model1, the scale's edges: token 0 tiles 0-2 amax 1.75 "
         "(v = 2^-8 exactly: k = -8, no step up) holding every e4m3fn "
         "midpoint * 2^-8 (RNE ties to the even code, 2^-10 to 0x00 / "
         "0x80), tile 3 amax one bf16 above 1.75 (k = -7; 225 -> 224), "
         "tile 4 the largest bf16 0x7F7F (k = 120, byte 247, 255 -> 256: "
         "code 0x78; small values underflow to +-0), tile 5 -0x7F7F (code "
         "0xF8), tile 6 one bf16 below 1.75 (k = -8; 446 -> 448); token 1 "
         "amax 448 (k = 0), 448 * 2^10 (k = 10), 1.75 * 2^-20 (floored: "
         "k = -13) and one bf16 above each (k = 1, 11, -13); block_size 4, "
         "int64 slots 1, 3, 0 of a uint8 cache [1, 2880]",
         f, rope_of(rng, 3), [1, 3, 0], "int64", poison(rng, 1, 4, "uint8"),
         "uint8", 4)


def all_skipped(root):
    rng = np.random.RandomState(3806)
    f = random_tokens(rng, 3)
    emit(root, "model1_all_skipped",
         "flashmla-model1, every slot negative (-1, -5, -1: a repeated "
         "negative slot is no duplicate): the cache [2, 1728] (block_size "
         "2) comes back unchanged", f, rope_of(rng, 3), [-1, -5, -1],
         "int64", poison(rng, 2, 2, "uint8"), "uint8", 2)


def rope_nan(root):
    rng = np.random.RandomState(3807)
    f = random_tokens(rng, 2)
    pe = rope_of(rng, 2)
    pe[0, :8] = [0x7FC0, 0xFFC0, 0x7F81, 0x7F80, 0xFF80, 0x0001, 0x8000,
                 0x7F7F]
    pe[1, 63] = 0xFFFF
    emit(root, "model1_rope_nan",
         "flashmla-model1: k_pe is copied whatever it holds - token 0's "
         "first 8 elements NaN 0x7FC0, -NaN 0xFFC0, signalling NaN 0x7F81, "
         "+Inf, -Inf, a subnormal, -0, the largest bf16; token 1's last "
         "0xFFFF; block_size 4, int32 slots 0, 2 of a float8_e4m3fn cache "
         "[1, 2880]", f, pe, [0, 2], "int32",
         poison(rng, 1, 4, "fp8_e4m3fn"), "fp8_e4m3fn", 4)


# ---- refusals -------------------------------------------------------------

def refusal(root, case_id, comment, tensor, attrs=None, cache_tag="uint8",
            slots=(0, 1), slot_tag="int64", num_blocks=2, width=None,
            edit=None, status=161002):
    """A call kvgold refuses with `status` naming `tensor`: ordinary
    inputs (2 random tokens, block_size 4, a poisoned uint8 cache [2,
    2880]) until `edit(arrays)` spoils one."""
    rng = np.random.RandomState(3890)
    attrs = attrs_of(4) if attrs is None else attrs
    n = len(slots)
    arrays = {"kv_c": bf16(random_tokens(rng, n)), "k_pe": rope_of(rng, n),
              "slot_mapping": np.asarray(slots, dtype=SLOT[slot_tag]),
              "kv_cache": poison(rng, num_blocks, 4, cache_tag, width)}
    if edit is not None:
        edit(arrays, rng)
    tags = {"slot_mapping": slot_tag, "kv_cache": cache_tag, "scale": "fp32"}
    ins = {k: T(v, tags.get(k, "bf16")) for k, v in arrays.items()}
    write_case(root, case_id, OP, attrs, ins, {}, comment=comment,
               expect_error={"status": status, "tensor": tensor})


def put(index, code):
    def edit(a, _rng):
        a["kv_c"][index] = code
    return edit


def kv_c_512(a, rng):
    a["kv_c"] = bf16(rng.standard_normal((2, 512)))


def add(name, value):
    def edit(a, _rng):
        a[name] = value
    return edit


def ascend_front(a, rng):
    a["gamma"] = bf16(rng.uniform(0.5, 1.5, 512))
    ang = rng.uniform(-np.pi, np.pi, (2, m1.ROPE))
    a["cos"], a["sin"] = bf16(np.cos(ang)), bf16(np.sin(ang))
    a["kv_c"] = bf16(rng.standard_normal((2, 512)))


def refusals(root):
    refusal(root, "error_model1_nan_kv_c", "NaN in token 1's kv_c[77] "
            "(written); message \"not finite\"", "kv_c",
            edit=put((1, 77), 0x7FC0))
    refusal(root, "error_model1_inf_kv_c", "-Inf in token 0's kv_c[447] "
            "(written); message \"not finite\"", "kv_c",
            edit=put((0, 447), 0xFF80))
    refusal(root, "error_model1_kv_c_512", "kv_c [2, 512]: MODEL1's nope "
            "is 448 (its rope 64 is k_pe); message \"448\"", "kv_c",
            edit=kv_c_512)
    refusal(root, "error_model1_no_block_size", "no block_size: the "
            "preset needs it to place rows and scales; message "
            "\"block_size\"", "block_size", attrs=attrs_of())
    refusal(root, "error_model1_block_size_zero", "block_size 0; message "
            "\"block_size\"", "block_size", attrs=attrs_of(0))
    for width, what in ((2304, "one 576-unit short"),
                        (3456, "one 576-unit over"),
                        (2881, "one byte over")):
        refusal(root, "error_model1_block_bytes_%d" % width, "block_size 4 "
                "with cache rows of %d bytes (%s): block_bytes must be "
                "ceil(4 * 584 / 576) * 576 = 2880; message \"kv_cache\", "
                "\"2880\"" % (width, what), "kv_cache", width=width)
    refusal(root, "error_model1_slot_past", "slot 8 of 2 blocks of 4; "
            "message \"slot_mapping\"", "slot_mapping", slots=(8, 1))
    refusal(root, "error_model1_duplicate", "slot 5 twice; message "
            "\"slot_mapping\"", "slot_mapping", slots=(5, -1, 5))
    refusal(root, "error_model1_int16_slots", "slot_mapping int16 (int32 "
            "or int64 only); message \"slot_mapping\"", "slot_mapping",
            slot_tag="int16")
    refusal(root, "error_model1_int8_cache", "an int8 cache (uint8 or "
            "float8_e4m3fn only); message \"kv_cache\"", "kv_cache",
            cache_tag="int8")
    refusal(root, "error_model1_gamma_given", "gamma [448] given: MODEL1's "
            "kv_c is written as it comes; message \"gamma\"", "gamma",
            edit=add("gamma", bf16(np.ones(m1.NOPE))))
    refusal(root, "error_model1_scale_given", "a scale tensor given "
            "(vLLM's argument); message \"scale\"", "scale",
            edit=add("scale", np.array([1.0], dtype=F32)))
    refusal(root, "error_model1_block_size_vllm", "block_size given to "
            "vllm-fp8_ds_mla (its cache is rows of 656); message "
            "\"block_size\"", "block_size",
            attrs=attrs_of(4, "vllm-fp8_ds_mla"), num_blocks=4, width=656,
            edit=add("kv_c", bf16(np.full((2, 512), 0.5))))
    refusal(root, "error_model1_block_size_ascend", "block_size given to "
            "ascend-sfa-c8; message \"block_size\"", "block_size",
            attrs=attrs_of(4, "ascend-sfa-c8"), cache_tag="int8",
            num_blocks=4, width=656, edit=ascend_front)


def generate(root):
    m1.ceil_log2_self_check()
    rows_int32(root)
    int64_blocks(root)
    e4m3_cache(root)
    zero_tiles(root)
    boundaries(root)
    all_skipped(root)
    rope_nan(root)
    refusals(root)
