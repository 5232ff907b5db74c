"""Cases for concat_and_cache_ds_mla, the packed C8 MLA row (the list is in
docs/concat_and_cache_ds_mla.md, "Vectors"; the case.json contract is the
operator's: tensors kv_c, k_pe, gamma, cos, sin, slot_mapping, kv_cache).

Random tokens: normal values times an amplitude per 128-tile between 2^-4
and 2^4, rounded to bf16, zeros replaced. Designed tiles are written over
chosen tokens (kvgen.c8_tiles says what each one tests). For the Ascend
preset a designed tile must reach the block quant unchanged, so its token
is an "exact row": every value k / 128 with |k| < 256 and the squares
summing to exactly 2^23, so that sum * (1/512) = 1 in every reduce order,
epsilon 1e-8 vanishes in 1 + eps, rms = 1 and, with gamma 1 over the tile,
y = x bit for bit. Caches start as random bytes 1..255 (poison): skipped
slots and rows no token names must come back unchanged. Expected caches
come from kvgen.concat_and_cache_ds_mla; every valid Ascend case is checked
against kvgen.amax_block_quant.refusals (no refused y element).
"""
import numpy as np

from . import amax_block_quant as abq
from . import arith
from . import c8_tiles as tiles
from . import concat_and_cache_ds_mla as c8
from . import concat_and_cache_ds_mla_model1_cases as model1
from . import formats
from .casefile import T, write_case

NAME = "concat_and_cache_ds_mla"
OP = "concat_and_cache_ds_mla"
ASC, VLLM = "ascend-sfa-c8", "vllm-fp8_ds_mla"
STORE = {"int8": np.int8, "uint8": np.uint8, "fp8_e4m3fn": np.uint8}
SLOT = {"int32": np.int32, "int64": np.int64}
EXACT_EPS = 1e-8               # fl(1 + 1e-8) = 1: rms of an exact row is 1
F32_MAX = float(np.finfo(np.float32).max)   # exactly FLT_MAX as a double
# the smallest double that rounds to +Inf in binary32: FLT_MAX + half ulp
F32_INF_EDGE = 2.0 ** 128 - 2.0 ** 103


def bf16(f):
    return formats.bf16_encode(np.asarray(f, dtype=np.float32))


def random_tokens(rng, n, cols=c8.NOPE, tile=c8.TILE):
    """[n, cols] float32: normal values, amplitude 2^-4..2^4 per tile."""
    f = rng.standard_normal((n, cols)).astype(np.float32)
    amp = 2.0 ** rng.randint(-4, 5, (n, -(-cols // tile)))
    f *= np.repeat(amp, tile, axis=1)[:, :cols].astype(np.float32)
    return np.where(np.abs(f) < 2.0 ** -20, np.float32(0.375), f)


def poison(rng, rows_shape, tag):
    raw = rng.randint(1, 256, size=rows_shape).astype(np.uint8)
    return raw.view(STORE[tag])


def slots_of(rng, tokens, rows, negative=(), last=True):
    """Unique slots in [0, rows) in shuffled order; rows - 1 (the last
    valid slot) used when `last`; (token, value) pairs in `negative`
    override."""
    s = rng.permutation(rows - 1)[:tokens].astype(np.int64)
    if last:
        s[tokens // 2] = rows - 1
    for t, v in negative:
        assert not (last and t == tokens // 2), "the last slot's token"
        s[t] = v
    return s


OPTIONS = ("reduce_order",)      # case.json "options", not "attrs"


def attrs_of(preset, **kw):
    """The call's parameters, attributes and options alike (the model
    reads them merged); split() separates them for case.json."""
    a = {"preset": preset}
    a.update(kw)
    return a


def split(params):
    """(attrs, options or None) as case.json holds them: reduce_order is
    an option, as in docs/kv_rms_norm_rope_cache.md."""
    attrs = {k: v for k, v in params.items() if k not in OPTIONS}
    opts = {k: v for k, v in params.items() if k in OPTIONS}
    return attrs, (opts or None)


def inputs_of(kv_c, k_pe, slots, slot_tag, cache, cache_tag, front=None,
              scale=None):
    """The case inputs in the contract's order; front = (gamma, cos, sin)
    bf16 codes for the Ascend preset; scale: vLLM's scale tensor (float32,
    its shape: () or (1,)), which the kernel never reads."""
    ins = {"kv_c": T(kv_c, "bf16"), "k_pe": T(k_pe, "bf16")}
    if front is not None:
        ins["gamma"] = T(front[0], "bf16")
        ins["cos"] = T(front[1], "bf16")
        ins["sin"] = T(front[2], "bf16")
    ins["slot_mapping"] = T(np.asarray(slots).astype(SLOT[slot_tag]),
                            slot_tag)
    ins["kv_cache"] = T(cache, cache_tag)
    if scale is not None:
        ins["scale"] = T(np.asarray(scale, dtype=np.float32), "fp32")
    return ins


def check_no_refusal(ins, attrs, cache_tag):
    """A valid Ascend case must hold no y element the block quant's
    profile refuses (subnormal y, a2a3 zero tiles, 950 subnormal scales
    or quotients) in a token that writes (a skipped pad token's row never
    reaches the cache)."""
    a = c8.full_attrs(attrs)
    keep = c8.kept(attrs["preset"],
                   ins["slot_mapping"].array.astype(np.int64).reshape(-1))

    def rows(name, width):
        return ins[name].array.reshape(-1, width)[keep]

    y, _ = c8.ascend_front(rows("kv_c", c8.NOPE), rows("k_pe", c8.ROPE),
                           ins["gamma"].array, rows("cos", c8.ROPE),
                           rows("sin", c8.ROPE), a["epsilon"],
                           a["reduce_order"])
    bad = abq.refusals(y, "bf16", c8.dbq_attrs(cache_tag),
                       c8.profile_of(cache_tag))
    assert bad.size == 0, "refused y elements %s" % bad[:4]


def emit(root, case_id, comment, attrs, ins, cache_tag):
    arrays = {k: v.array for k, v in ins.items()}
    if attrs["preset"] == ASC:
        check_no_refusal(ins, attrs, cache_tag)
    expected = c8.golden(arrays, attrs, cache_tag)
    a, opts = split(attrs)
    write_case(root, case_id, OP, a, ins,
               {"kv_cache": T(expected, cache_tag)}, options=opts,
               comment=comment)
    return expected


def front_of(rng, lead, gamma_one_tiles=()):
    """gamma [512] around 1 (exactly 1 over `gamma_one_tiles`), cos/sin of
    random angles, shaped lead + [64]."""
    g = rng.uniform(0.5, 1.5, c8.NOPE).astype(np.float32)
    for t in gamma_one_tiles:
        g[t * c8.TILE:(t + 1) * c8.TILE] = 1.0
    ang = rng.uniform(-np.pi, np.pi, lead + (c8.ROPE,))
    return (bf16(g), bf16(np.cos(ang)), bf16(np.sin(ang)))


def rope_of(rng, lead):
    return bf16(rng.standard_normal(lead + (c8.ROPE,)) * 2.0)


# ---- token rows -----------------------------------------------------------

def exact_token(rng, designed):
    """float32 [512]: an exact row (module doc) with `designed` tiles
    ({tile: k[128]}, at most 3: the sum needs free columns)."""
    return tiles.values(tiles.exact_row(rng, designed))


# ---- ascend-sfa-c8 --------------------------------------------------------

def ascend_case(root, case_id, comment, seed, lead, cache_shape, cache_tag,
                slot_tag="int32", attrs=None, exact=None, gamma_one=(),
                zeros=(), negative=(), last=True):
    """Random tokens of shape lead + [512]; `exact` ({token: f[512]})
    replaces tokens with exact rows, whose designed tiles have gamma 1;
    `zeros` ((token, tile) pairs) makes tiles all +-0 (y is +-0 there
    whatever the rms); `negative` ((token, slot) pairs) are pad tokens,
    skipped (pad_tokens says what they hold)."""
    rng = np.random.RandomState(seed)
    n = int(np.prod(lead))
    f = random_tokens(rng, n)
    for t, row in (exact or {}).items():
        f[t] = row
    for t, tile in zeros:
        f[t, tile * c8.TILE:(tile + 1) * c8.TILE] = tiles.zero_tile()
    front = front_of(rng, lead, gamma_one)
    rows = int(np.prod(cache_shape[:-1]))
    slots = slots_of(rng, n, rows, negative, last).reshape(lead)
    kv, pe = bf16(f), rope_of(rng, lead)
    pad_tokens(kv, pe.reshape(n, c8.ROPE), front,
               [t for t, _ in negative])
    ins = inputs_of(kv.reshape(lead + (c8.NOPE,)), pe, slots, slot_tag,
                    poison(rng, cache_shape, cache_tag), cache_tag, front)
    attrs = attrs or attrs_of(ASC)
    check_exact(ins, attrs, exact or {}, gamma_one)
    emit(root, case_id, comment, attrs, ins, cache_tag)


def pad_tokens(kv, pe, front, pads):
    """The pad tokens' rows (bf16 codes, in place): the first all +0 (a
    zero-padded batch; written, its tiles would be refused under a2a3),
    the others NaN in kv_c, +Inf in k_pe and NaN in cos (refused if
    written). A skipped token is never read."""
    cos = front[1].reshape(-1, c8.ROPE)
    for i, t in enumerate(pads):
        if i == 0:
            kv[t] = 0
            continue
        kv[t, 7], kv[t, 260] = 0x7FC0, 0xFFC0
        pe[t, 3] = 0x7F80
        cos[t, 9] = 0x7FC0


def check_exact(ins, attrs, exact, gamma_one):
    """The designed tiles of exact rows reach the block quant unchanged:
    y == kv_c there, bit for bit."""
    if not exact:
        return
    a = c8.full_attrs(attrs)
    kv = ins["kv_c"].array.reshape(-1, c8.NOPE)
    y, _ = c8.ascend_front(kv, ins["k_pe"].array.reshape(-1, c8.ROPE),
                           ins["gamma"].array,
                           ins["cos"].array.reshape(-1, c8.ROPE),
                           ins["sin"].array.reshape(-1, c8.ROPE),
                           a["epsilon"], a["reduce_order"])
    for t in exact:
        for g in gamma_one:
            cols = slice(g * c8.TILE, (g + 1) * c8.TILE)
            assert np.array_equal(y[t, cols], kv[t, cols]), (t, g)


def ascend_cases(root):
    ascend_case(
        root, "ascend_a2_int8_rows",
        "ascend-sfa-c8, int8 cache (A3: block quant a2a3, m = "
        "fl(1/amax) * 127, scale amax * fl(1/127)): 5 tokens into a "
        "[8, 656] cache, int32 slots, the last slot 7; epsilon 1e-6; rows "
        "[q 512 | rope bf16 128 B | 4 fp32 scales]; 3 rows untouched",
        3701, (5,), (8, 656), "int8", attrs=attrs_of(ASC, epsilon=1e-6))
    ascend_case(
        root, "ascend_a2_int8_blocks_int64",
        "ascend-sfa-c8, int8 cache [3, 4, 656] (slot s: block s / 4, row "
        "s % 4), kv_c [2, 3, 512], int64 slots, reduce_order a2", 3702,
        (2, 3), (3, 4, 656), "int8", "int64",
        attrs=attrs_of(ASC, reduce_order="a2"))
    rng = np.random.RandomState(3703)
    ties = tiles.ties_int8(rng)
    sat, sat_k = tiles.sat_int8(rng)
    ascend_case(
        root, "ascend_a2_int8_ties_saturation",
        "ascend-sfa-c8 int8, exact rows (rms 1, gamma 1 over tiles 0-1: y "
        "= kv_c): tile 0 amax 254/128 (m = 64: y * m = k / 2, odd k are "
        "ties, RNE to even), tile 1 amax %d/128 (amax * m rounds above "
        "127: saturates to 127); epsilon 1e-8" % sat_k, 3704, (4,),
        (6, 656), "int8", "int64",
        attrs=attrs_of(ASC, epsilon=EXACT_EPS),
        exact={0: exact_token(rng, {0: ties, 1: sat}),
               2: exact_token(rng, {1: ties, 0: sat})},
        gamma_one=(0, 1))
    ascend_case(
        root, "ascend_950_e4m3_rows",
        "ascend-sfa-c8, e4m3 cache (A5: block quant ascend950, s = "
        "amax / 448, q = e4m3(y / s) RNE saturating): 5 tokens into [8, "
        "656], int32 slots, the last slot 7, reduce_order npu950", 3705,
        (5,), (8, 656), "fp8_e4m3fn",
        attrs=attrs_of(ASC, reduce_order="npu950"))
    rng = np.random.RandomState(3706)
    ties = tiles.ties_e4m3(rng)
    dvr, dvr_k = tiles.div_vs_recip(rng)
    sat, sat_k = tiles.sat_e4m3(rng)
    ascend_case(
        root, "ascend_950_e4m3_boundaries",
        "ascend-sfa-c8 e4m3, exact rows 0 and 2 (y = kv_c over tiles "
        "0-3), token 0: tile 0 amax 1.75 (s = 2^-8: quotients exactly "
        "halfway between codes), tile 1 amax %d/128 (amax / 448 != amax "
        "* fl(1/448): codes differ), tile 2 amax %d/128 (quotient > 448: "
        "saturates); token 2 the same tiles moved; token 1's tile 3 all "
        "+-0 (scale +0.0, codes 0x00); blocks [2, 4, 656], int64 slots; "
        "epsilon 1e-8" % (dvr_k, sat_k), 3707, (3,), (2, 4, 656),
        "fp8_e4m3fn", "int64", attrs=attrs_of(ASC, epsilon=EXACT_EPS),
        exact={0: exact_token(rng, {0: ties, 1: dvr, 2: sat}),
               2: exact_token(rng, {2: ties, 3: dvr, 0: sat})},
        gamma_one=(0, 1, 2, 3), zeros=[(1, 3)])
    ascend_case(
        root, "ascend_a2_int8_epsilon_max",
        "ascend-sfa-c8 int8, epsilon FLT_MAX (the largest finite binary32, "
        "a valid attribute): mean + eps rounds to FLT_MAX in binary32, "
        "rstd = 1 / sqrt(FLT_MAX) ~ 2^-64, so y ~ x * gamma * 2^-64 (normal "
        "in bf16) and each tile quantises as any", 3715, (3,), (4, 656),
        "int8", attrs=attrs_of(ASC, epsilon=F32_MAX))
    ascend_pad_cases(root)


def ascend_pad_cases(root):
    """vllm-ascend pads slot_mapping with -1; the row's scatter
    (npu_scatter_nd_update_) changes no cache byte for an index < 0
    (kvgen.concat_and_cache_ds_mla.kept cites the kernels)."""
    ascend_case(
        root, "ascend_a2_int8_pad_minus1",
        "ascend-sfa-c8, int8 cache (A3) [8, 656], int32 slots: tokens 1 "
        "and 4 are pad tokens (slot -1, twice: no duplicate), skipped - "
        "token 1 all +0 (its all-zero tiles would be refused under a2a3 if "
        "written), token 4 NaN in kv_c, +Inf in k_pe, NaN in cos (never "
        "read); the last slot 7 written; 4 rows untouched", 3731, (6,), (8, 656), "int8",
        negative=[(1, -1), (4, -1)])
    ascend_case(
        root, "ascend_950_e4m3_pad_negative",
        "ascend-sfa-c8, e4m3 cache (A5) [2, 4, 656], kv_c [2, 3, 512], "
        "int64 slots: tokens 0 (-1, all +0) and 5 (-3, NaN / Inf) skipped "
        "- every negative index, as the scatter kernels test index < 0; "
        "the last slot 7 written", 3732, (2, 3), (2, 4, 656), "fp8_e4m3fn",
        "int64", negative=[(0, -1), (5, -3)])
    ascend_case(
        root, "ascend_a2_int8_all_pad",
        "ascend-sfa-c8, int8 cache [3, 656], every slot -1 (a batch of pad "
        "tokens, the first all +0, the second NaN / Inf): the cache comes "
        "back as it was", 3733, (2,), (3, 656), "int8",
        negative=[(0, -1), (1, -1)], last=False)


# ---- rows telling the RmsNorm forms apart -----------------------------------

def bf16_range(lo, hi):
    """Every bf16 value with a code in [lo, hi), as float32."""
    return formats.bf16_decode(np.arange(lo, hi, dtype=np.uint16))


def forms_apart(rng, col, eps, order):
    """(row float32 [512], g): a row whose value at `col` times gamma g
    rounds to different bf16 under ops-nn's rstd multiply
    (c8.rms_norm_rstd) and under a division by the rms
    (kvgen.arith.rms_norm). The row's other values have |x| < 1 and the
    value at col is in [2, 4), g in [1, 2): with gamma elsewhere <= 1.5
    it is its tile's amax, so the tile's scale moves with it. Searched:
    random rows, every x in [2, 4) at col, every g in [1, 2); gamma is
    applied last in both forms, so the unit-gamma result times g is the
    form's y."""
    xs, gs = bf16_range(0x4000, 0x4080), bf16_range(0x3F80, 0x4000)
    ones = np.ones(c8.NOPE, dtype=np.float32)
    for _ in range(200):
        r = rng.uniform(0.25, 1.0, c8.NOPE) * np.where(
            rng.randint(0, 2, c8.NOPE) == 0, -1.0, 1.0)
        rows = np.repeat(formats.bf16_decode(bf16(r))[None], xs.size, 0)
        rows[:, col] = xs
        ym, yd = (formats.encode_output("bf16", (norm(
            rows, ones, np.float32(eps), order)[:, col, None]
            * gs[None, :]).astype(np.float32))
            for norm in (c8.rms_norm_rstd, arith.rms_norm))
        hit = np.argwhere(ym != yd)
        if hit.size:
            i, k = hit[0]
            return rows[i], gs[k]
    raise AssertionError("no row tells the RmsNorm forms apart")


def check_forms_apart(ins, attrs, cache_tag, token, tile):
    """The designed token's row differs between the two RmsNorm forms,
    in its tile's scale (the tile's amax is the value that moved)."""
    arrays = {k: v.array for k, v in ins.items()}
    slot = int(arrays["slot_mapping"].reshape(-1)[token])
    rows = [c8.golden(arrays, attrs, cache_tag, norm).view(np.uint8)
            .reshape(-1, c8.ROW)[slot]
            for norm in (c8.rms_norm_rstd, arith.rms_norm)]
    at = c8.NOPE + 2 * c8.ROPE + 4 * tile
    assert not np.array_equal(rows[0][at:at + 4], rows[1][at:at + 4]), \
        "the scale does not tell the forms apart"


def rstd_case(root, case_id, comment, seed, cache_tag, col=300, token=1):
    """3 random tokens into a [4, 656] cache; token `token` is a
    forms_apart row, gamma[col] its g (gamma elsewhere random)."""
    rng = np.random.RandomState(seed)
    lead = (3,)
    f = random_tokens(rng, 3)
    gamma, cos, sin = front_of(rng, lead)
    row, g = forms_apart(rng, col, c8.DEFAULTS["epsilon"], "pairwise")
    f[token] = row
    gamma[col] = bf16(g)
    slots = slots_of(rng, 3, 4)
    ins = inputs_of(bf16(f), rope_of(rng, lead), slots, "int32",
                    poison(rng, (4, c8.ROW), cache_tag), cache_tag,
                    (gamma, cos, sin))
    attrs = attrs_of(ASC)
    check_forms_apart(ins, attrs, cache_tag, token, col // c8.TILE)
    emit(root, case_id, comment, attrs, ins, cache_tag)


def rstd_cases(root):
    for case_id, tag, chip, seed in (
            ("ascend_950_e4m3_rstd_multiply", "fp8_e4m3fn", "A5", 3721),
            ("ascend_a2_int8_rstd_multiply", "int8", "A3", 3722)):
        rstd_case(
            root, case_id,
            "ascend-sfa-c8, %s cache (%s): the RmsNorm multiplies by rstd "
            "= 1 / sqrt(mean + eps) as ops-nn's rms_norm kernels do; token "
            "1's kv_c[300] * gamma[300] (its tile's amax) rounds to "
            "another bf16 if divided by the rms instead, which moves tile "
            "2's scale (the generator asserts it)" % (tag, chip), seed, tag)


# ---- vllm-fp8_ds_mla ------------------------------------------------------

def vllm_case(root, case_id, comment, seed, lead, cache_shape, cache_tag,
              negative=(), designed=None, attrs=None, nan_skipped=False,
              last=True, scale=np.float32(1.0), check=None):
    """Random tokens of shape lead + [512], `designed` ({(token, tile):
    float32 [128]}) written over them; `negative` ((token, slot) pairs)
    are skipped, and with `nan_skipped` the first of them holds NaN and
    Inf (a skipped token is never read); `scale` vLLM's scale tensor
    (0-d as vLLM's layer._k_scale; never read by the kernel); `check`
    (ins, attrs), when given, asserts what the case is for before it is
    written."""
    rng = np.random.RandomState(seed)
    n = int(np.prod(lead))
    f = random_tokens(rng, n)
    for (t, tile), v in (designed or {}).items():
        f[t, tile * c8.TILE:(tile + 1) * c8.TILE] = v
    pe = rope_of(rng, lead).reshape(n, c8.ROPE)
    kv = bf16(f)
    if nan_skipped:
        t = negative[0][0]
        kv[t, 5], kv[t, 300] = 0x7FC0, 0xFF80
        pe[t, 7] = 0x7F80
    rows = int(np.prod(cache_shape[:-1]))
    slots = slots_of(rng, n, rows, negative, last).reshape(lead)
    ins = inputs_of(kv.reshape(lead + (c8.NOPE,)),
                    pe.reshape(lead + (c8.ROPE,)), slots, "int64",
                    poison(rng, cache_shape, cache_tag), cache_tag,
                    scale=scale)
    attrs = attrs or attrs_of(VLLM)
    if check is not None:
        check(ins, attrs)
    return emit(root, case_id, comment, attrs, ins, cache_tag)


def vllm_cases(root):
    vllm_case(
        root, "vllm_rows_skip_negative",
        "vllm-fp8_ds_mla (concat_and_cache_ds_mla_kernel): kv_c [2, 3, "
        "512] into a uint8 cache [3, 4, 656] (blocks of 4), int64 slots "
        "-1, -1 (a repeated pad slot is no duplicate) and -7 skipped, the "
        "first holding NaN / Inf (never read); the last slot 11; rows [q "
        "512 | 4 fp32 scales | k_pe bf16 128 B]; token 0 tile 2 all +-0: "
        "scale FLT_MIN (0x00800000), codes 0x00 / 0x80 (x / s keeps the "
        "zero's sign)", 3711, (2, 3), (3, 4, 656), "uint8",
        negative=[(1, -1), (4, -1), (5, -7)], nan_skipped=True,
        designed={(0, 2): tiles.zero_tile()})
    rng = np.random.RandomState(3712)
    ties = tiles.values(tiles.ties_e4m3(rng))
    dvr, dvr_k = tiles.div_vs_recip(rng)
    sat, sat_k = tiles.sat_e4m3(rng)
    at_min = np.float32(1.75 * 2.0 ** -118)      # amax / 448 = FLT_MIN
    below = formats.bf16_decode(np.uint16(formats.bf16_encode(at_min) - 1))
    vllm_case(
        root, "vllm_e4m3_boundaries",
        "vllm-fp8_ds_mla into a float8_e4m3fn cache [6, 656]: token 0 "
        "tile 0 amax 1.75 (s = 2^-8, quotients halfway between codes: "
        "RNE), tile 1 amax %d/128 (true division: amax / 448 != amax * "
        "fl(1/448) changes codes), tile 2 amax %d/128 (quotient > 448: "
        "saturates), tile 3 amax 1.75 * 2^-118 (amax / 448 = FLT_MIN "
        "exactly); token 2 tile 1 amax one bf16 below (amax / 448 "
        "subnormal: the FLT_MIN floor), tile 3 values 2^-125..2^-120 "
        "(floor); scale tensor [0.5] (read, unused)" % (dvr_k, sat_k),
        3713, (4,), (6, 656), "fp8_e4m3fn",
        designed={(0, 0): ties, (0, 1): tiles.values(dvr),
                  (0, 2): tiles.values(sat),
                  (0, 3): tiles.flt_min_tile(rng, at_min),
                  (2, 1): tiles.flt_min_tile(rng, below),
                  (2, 3): tiles.flt_min_tile(rng, 2.0 ** -120)},
        scale=np.array([0.5], dtype=np.float32))
    vllm_case(
        root, "vllm_all_skipped",
        "vllm-fp8_ds_mla, every slot negative (-1, -2): nothing is "
        "written, the cache comes back as it was; the scale tensor is NaN "
        "(never read)", 3714, (2,), (3, 656),
        "uint8", negative=[(0, -1), (1, -2)], last=False,
        scale=np.float32(np.nan))


# ---- refusals ---------------------------------------------------------------

def refusal(root, case_id, comment, tensor, attrs, cache_tag="int8",
            slots=(0, 1), slot_tag="int64", rows=4, width=c8.ROW,
            front=None, edit=None, status=161002):
    """A call the operator refuses with `status` naming `tensor`; the
    comment ends with the message fragment the contract lists. Inputs
    are ordinary (random tokens, gamma, cos, sin for the Ascend preset
    unless `front` is False) until `edit(arrays)` spoils one; the cache
    is poison and nothing is computed."""
    rng = np.random.RandomState(3790)
    n = len(slots)
    if front is None:
        front = attrs.get("preset", c8.DEFAULTS["preset"]) == ASC
    arrays = {"kv_c": bf16(random_tokens(rng, n)),
              "k_pe": rope_of(rng, (n,))}
    if front:
        arrays["gamma"], arrays["cos"], arrays["sin"] = front_of(rng, (n,))
    arrays["slot_mapping"] = np.asarray(slots, dtype=SLOT[slot_tag])
    arrays["kv_cache"] = poison(rng, (rows, width), cache_tag)
    if edit is not None:
        edit(arrays)
    ins = {}
    for name, arr in arrays.items():
        tag = {"slot_mapping": slot_tag, "kv_cache": cache_tag,
               "scale": "fp32"}.get(name, "bf16")
        ins[name] = T(arr, tag)
    a, opts = split(attrs)
    write_case(root, case_id, OP, a, ins, {}, options=opts,
               comment=comment,
               expect_error={"status": status, "tensor": tensor})


def put(name, index, code):
    def edit(a):
        a[name][index] = code
    return edit


def zero_tile_a2(a):
    a["kv_c"][1, 256:384] = 0


def tiny_y_tile(a):
    """Token 0: |kv_c| in [0.5, 1.5] (rms about 1), gamma 2^-124 over
    tile 2: y there is normal (2^-125 .. 2^-123) but amax / 448 is
    subnormal, which the 950's Div flushes."""
    rng = np.random.RandomState(3791)
    v = rng.uniform(0.5, 1.5, c8.NOPE) * np.where(
        rng.randint(0, 2, c8.NOPE) == 0, -1.0, 1.0)
    a["kv_c"][0] = bf16(v)
    a["gamma"][256:384] = bf16(np.full(128, 2.0 ** -124))
    y, _ = c8.ascend_front(a["kv_c"], a["k_pe"], a["gamma"], a["cos"],
                           a["sin"], 1e-5, "pairwise")
    assert abq.refusals(y, "bf16", c8.dbq_attrs("fp8_e4m3fn"),
                        "ascend950").size, "no refused y element"


def drop(*names):
    def edit(a):
        for n in names:
            del a[n]
    return edit


def add_scale(value):
    def edit(a):
        a["scale"] = value
    return edit


def add_front(a):
    rng = np.random.RandomState(3792)
    a["gamma"], a["cos"], a["sin"] = front_of(rng, (a["kv_c"].shape[0],))


def ascend_refusals(root):
    a = attrs_of(ASC)
    refusal(root, "error_ascend_slot_past", "slot 4 of a 4-row cache "
            "(aclnnScatterNdUpdate: out-of-range indices unsupported; the "
            "A2/A3 high_performance kernel writes such a row past the "
            "cache); message \"slot_mapping\"", "slot_mapping", a,
            slots=(1, 4))
    refusal(root, "error_ascend_slot_past_int32_pad", "slot 9 of a 4-row "
            "cache beside a pad slot -1, int32 slots: the -1 is skipped, "
            "the 9 refused; message \"slot_mapping\"", "slot_mapping", a,
            slots=(-1, 9), slot_tag="int32")
    refusal(root, "error_ascend_duplicate", "two tokens write slot 2; "
            "message \"slot_mapping\"", "slot_mapping", a, slots=(2, 2))
    refusal(root, "error_ascend_a2_zero_tile", "int8 cache (a2a3): token "
            "1's tile 2 all zero, 1 / amax = inf and 0 * inf undocumented; "
            "message \"all-zero\"", "kv_c", a, edit=zero_tile_a2)
    refusal(root, "error_ascend_950_subnormal_scale", "e4m3 cache "
            "(ascend950): y's tile 2 of token 0 has amax / 448 subnormal "
            "(gamma 2^-124 there), which the 950's Div flushes to 0",
            "kv_c", a, cache_tag="fp8_e4m3fn", edit=tiny_y_tile)
    refusal(root, "error_ascend_nan_kv_c", "NaN in kv_c; message \"not "
            "finite\"", "kv_c", a, edit=put("kv_c", (1, 77), 0x7FC0))
    refusal(root, "error_ascend_inf_gamma", "-Inf in gamma; message \"not "
            "finite\"", "gamma", a, edit=put("gamma", 300, 0xFF80))
    refusal(root, "error_ascend_nan_sin", "NaN in sin; message \"not "
            "finite\"", "sin", a, edit=put("sin", (0, 3), 0x7FC0))
    refusal(root, "error_ascend_inf_k_pe", "+Inf in k_pe; message \"not "
            "finite\"", "k_pe", a, cache_tag="fp8_e4m3fn",
            edit=put("k_pe", (1, 63), 0x7F80))
    refusal(root, "error_ascend_uint8_cache", "a uint8 cache: the preset "
            "writes int8 (A3) or float8_e4m3fn (A5); message \"kv_cache\"",
            "kv_cache", a, cache_tag="uint8")
    refusal(root, "error_ascend_row_640", "rows of 640 bytes, the row is "
            "656; message \"kv_cache\"", "kv_cache", a, width=640)
    refusal(root, "error_ascend_scale_given", "the Ascend preset has no "
            "scale tensor (vLLM's argument); message \"scale\"", "scale", a,
            edit=add_scale(np.array([1.0], dtype=np.float32)))
    refusal(root, "error_ascend_no_gamma", "gamma missing: a required "
            "tensor absent from the case is a NULL one (161001); message "
            "\"gamma\"", "gamma", a, edit=drop("gamma"), status=161001)
    refusal(root, "error_ascend_epsilon_inf", "epsilon 2^128 - 2^103: "
            "the smallest double that is +Inf once narrowed to binary32 "
            "(the op's attribute is a float); message \"epsilon\"",
            "epsilon", attrs_of(ASC, epsilon=F32_INF_EDGE))
    refusal(root, "error_unknown_preset", "preset \"sgk\" is not a preset "
            "of this row; message \"preset\"", "preset",
            attrs_of("sgk"), front=False)


def vllm_refusals(root):
    v = attrs_of(VLLM)
    refusal(root, "error_vllm_int32_slots", "the kernel reads "
            "slot_mapping as int64_t; message \"int64\"", "slot_mapping", v,
            cache_tag="uint8", slot_tag="int32")
    refusal(root, "error_vllm_slot_past", "slot 4 of a 4-row cache; "
            "message \"slot_mapping\"", "slot_mapping", v, cache_tag="uint8",
            slots=(4, -1))
    refusal(root, "error_vllm_duplicate", "slot 2 twice among written "
            "tokens; message \"slot_mapping\"", "slot_mapping", v,
            cache_tag="fp8_e4m3fn", slots=(2, -1, 2))
    refusal(root, "error_vllm_nan_kv_c", "NaN in a written token's kv_c; "
            "message \"not finite\"", "kv_c", v, cache_tag="uint8",
            slots=(-1, 3), edit=put("kv_c", (1, 400), 0xFFC0))
    refusal(root, "error_vllm_inf_k_pe", "Inf in a written token's k_pe; "
            "message \"not finite\"", "k_pe", v, cache_tag="uint8",
            edit=put("k_pe", (0, 0), 0x7F80))
    refusal(root, "error_vllm_int8_cache", "an int8 cache: vLLM's is "
            "uint8 (or float8_e4m3fn); message \"kv_cache\"", "kv_cache", v,
            cache_tag="int8")
    refusal(root, "error_vllm_epsilon", "epsilon is the Ascend preset's; "
            "message \"epsilon\"", "epsilon", attrs_of(VLLM, epsilon=1e-6),
            cache_tag="uint8")
    refusal(root, "error_vllm_reduce_order", "reduce_order is the Ascend "
            "preset's; message \"reduce_order\"", "reduce_order",
            attrs_of(VLLM, reduce_order="a2"), cache_tag="uint8")
    refusal(root, "error_vllm_scale_two", "vLLM's scale is one float32; "
            "message \"one float32\"", "scale", v, cache_tag="uint8",
            edit=add_scale(np.array([1.0, 2.0], dtype=np.float32)))
    refusal(root, "error_vllm_gamma_given", "gamma, cos, sin given: the "
            "ds_mla kernel takes kv_c already normed and roped; message "
            "\"gamma\"", "gamma", v, cache_tag="uint8", edit=add_front)


def generate(root):
    ascend_cases(root)
    rstd_cases(root)
    vllm_cases(root)
    ascend_refusals(root)
    vllm_refusals(root)
    model1.generate(root)
    # imported here: it builds its cases with this module's helpers
    from . import concat_and_cache_ds_mla_ue8m0_cases as ue8m0
    ue8m0.generate(root)
