"""Cases for qkv_rms_norm_rope_cache (the list is in
docs/qkv_rms_norm_rope_cache.md, "Vectors").

Each case draws its inputs from np.random.RandomState(seed): qkv and gammas
as random values narrowed to T (never zero), cos/sin either a real RoPE
table or independent random values (so that an implementation using the
wrong half of the table fails), caches and q_out as random bytes (poison),
scales non-unit and non-power-of-two. Expected outputs come from
kvgen.qkv_rms_norm_rope_cache.golden. A few cases are invalid on purpose
and carry "expect_error" instead of expected outputs.
"""
import numpy as np

from . import formats
from .casefile import T, write_case
from .qkv_rms_norm_rope_cache import HEAD_DIM, c0_of, golden

NAME = "qkv_rms_norm_rope_cache"
OP = "qkv_rms_norm_rope_cache"
D = HEAD_DIM
STORE = {"fp16": np.float16, "bf16": np.uint16, "int8": np.int8}


# ---- random inputs --------------------------------------------------------

def values(rng, shape, tag, scale=1.0):
    """Random normal values narrowed to `tag` (RNE), zeros replaced."""
    f = (rng.standard_normal(shape) * scale).astype(np.float32)
    codes = formats.encode(tag, f)
    back = formats.decode(tag, codes)
    small = np.float32(scale / 64.0)
    f = np.where(back == 0, small, back).astype(np.float32)
    return formats.encode(tag, f)


def poison(rng, shape, tag):
    """Random bytes viewed as `tag` (a cache's initial contents)."""
    nbytes = int(np.prod(shape)) * np.dtype(STORE[tag]).itemsize
    raw = rng.randint(1, 256, size=nbytes).astype(np.uint8)
    return raw.view(STORE[tag]).reshape(shape)


def rope_tables(rng, tokens, tag, kind):
    """cos/sin [tokens, D]: a real table (positions * inverse frequencies,
    halves repeated) or independent random values in [-1, 1)."""
    if kind == "random":
        c = rng.uniform(-1, 1, (tokens, D)).astype(np.float32)
        s = rng.uniform(-1, 1, (tokens, D)).astype(np.float32)
    else:
        pos = rng.randint(0, 32768, size=tokens).astype(np.float64)
        inv = 10000.0 ** (-np.arange(0, D, 2, dtype=np.float64) / D)
        ang = pos[:, None] * inv[None, :]
        ang = np.concatenate([ang, ang], axis=1)
        c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    return formats.encode(tag, c), formats.encode(tag, s)


def make_index(rng, b, s, bs, bn, pattern):
    """Slots for B*S tokens (int64); see docs for the patterns."""
    tokens = b * s
    slots = bn * bs
    if pattern == "paged":
        # A shuffled block table: batch b owns ceil(S/BS) random blocks.
        per = -(-s // bs)
        table = rng.permutation(bn)[:b * per].reshape(b, per)
        tok = np.arange(s)
        idx = table[:, tok // bs] * bs + (tok % bs)[None, :]
        idx = idx.reshape(tokens)
    elif pattern == "all_skip":
        idx = np.full(tokens, -1)
    else:
        idx = rng.permutation(slots)[:tokens]
    idx = idx.astype(np.int64)
    if pattern == "edges" and tokens >= 2:
        idx[0], idx[-1] = 0, slots - 1
        rest = rng.permutation(np.arange(1, slots - 1))[:tokens - 2]
        idx[1:-1] = rest
    if pattern in ("skip", "skip_paged"):
        assert tokens >= 4, "skip needs tokens left to write"
        idx[0] = -1
        idx[tokens // 2] = -1
        idx[-1] = -1
    if pattern == "skip_negatives" and tokens >= 4:
        idx[0] = -2
        idx[1] = np.iinfo(np.int64).min
        idx[tokens // 2] = -1
        idx[-1] = -12345
    return idx


def scales(rng, heads, sign=False):
    """Per-channel scales around amax/127 of a unit-variance value: not 1,
    not powers of two; optionally with random signs."""
    sc = rng.uniform(0.004, 0.05, (heads, D)).astype(np.float32)
    if sign:
        sc = np.where(rng.rand(heads, D) < 0.25, -sc, sc).astype(np.float32)
    return sc


def offsets(rng, heads):
    return rng.uniform(-16, 16, (heads, D)).astype(np.float32)


# ---- one case -------------------------------------------------------------

def build(c):
    """Inputs, attrs and options of case spec `c` (a dict)."""
    rng = np.random.RandomState(c["seed"])
    tag, kt, vt = c["dtype"], c["k"], c["v"]
    b, s = c["B"], c["S"]
    nq, nk = c["Nq"], c["Nk"]
    nv, n = nk, nq + 2 * nk
    bs = c.get("BS", 32)
    need = -(-s // bs) * b
    bn = c.get("BN", need)
    tokens = b * s
    attrs = {"qkv_size": [b, s, n, D], "head_nums": [nq, nk, nv]}
    if "epsilon" in c:
        attrs["epsilon"] = c["epsilon"]
    attrs["cache_mode"] = "PA_NZ"
    if c.get("before"):
        attrs["is_output_qkv"] = True
    options = {}
    if c.get("order", "pairwise") != "pairwise":
        options["reduce_order"] = c["order"]
    if c.get("overflow"):
        options["overflow"] = c["overflow"]

    qkv = formats.decode(tag, values(rng, (tokens, n, D), tag, c.get("amp", 1.0)))
    # Give every other head a wider dynamic range, so that the order of the
    # sum of squares matters in some rows.
    qkv[:, 1::2, :] *= rng.uniform(0.01, 8, (tokens, n // 2, 1)).astype(
        np.float32)
    if c.get("spike"):
        # One element per q/k row about 2^12 times the others, early in the
        # row: its square absorbs the small squares in a sequential sum but
        # not in the pairwise tree, so the order changes output codes.
        qk = qkv[:, :nq + nk, :] / np.abs(qkv[:, :nq + nk, :]).max(
            axis=-1, keepdims=True)
        pos = rng.randint(0, 4, size=qk.shape[:2])
        mag = rng.uniform(2800, 4000, size=qk.shape[:2]).astype(np.float32)
        np.put_along_axis(qk, pos[..., None], (mag * np.sign(
            rng.standard_normal(qk.shape[:2])).astype(np.float32))[..., None],
            axis=-1)
        qkv[:, :nq + nk, :] = qk
    if c.get("v_values") is not None:
        qkv[:, nq + nk:, :] = c["v_values"](rng, (tokens, nv, D))
    qkv_codes = formats.encode(tag, qkv.reshape(tokens, n * D))
    g_amp = c.get("gamma_amp", 1.0)
    qg = formats.encode(tag, formats.decode(tag, values(rng, (D,), tag))
                        * np.float32(0.5 * g_amp) + np.float32(g_amp))
    kg = formats.encode(tag, formats.decode(tag, values(rng, (D,), tag))
                        * np.float32(0.25) + np.float32(1.0))
    cos, sin = rope_tables(rng, tokens, tag, c.get("rope", "table"))
    if c.get("cos_rows") == "B":
        assert s == 1 or c.get("error")
        cos, sin = cos[:b], sin[:b]
    index = make_index(rng, b, s, bs, bn, c.get("index", "perm"))
    inputs = {
        "qkv": T(qkv_codes, tag),
        "q_gamma": T(qg, tag),
        "k_gamma": T(kg, tag),
        "cos": T(cos, tag),
        "sin": T(sin, tag),
        "index": T(index, "int64"),
    }
    if not c.get("no_q_out_input"):
        inputs["q_out"] = T(poison(rng, (tokens, nq * D), tag), tag)
    inputs["k_cache"] = T(poison(rng, (bn, nk * D // c0_of(kt), bs,
                                       c0_of(kt)), kt), kt)
    inputs["v_cache"] = T(poison(rng, (bn, nv * D // c0_of(vt), bs,
                                       c0_of(vt)), vt), vt)
    if kt == "int8":
        inputs["k_scale"] = T(scales(rng, nk, c.get("neg_scale", False)),
                              "fp32")
    if vt == "int8":
        vs = c["v_scale"](rng, nv) if c.get("v_scale") else scales(rng, nv)
        inputs["v_scale"] = T(vs, "fp32")
    if kt == "int8" and c.get("k_asym"):
        inputs["k_offset"] = T(offsets(rng, nk), "fp32")
    if vt == "int8" and c.get("v_asym"):
        vo = c["v_offset"](rng, nv) if c.get("v_offset") else offsets(rng, nv)
        inputs["v_offset"] = T(vo, "fp32")
    if c.get("mutate"):
        c["mutate"](inputs, attrs)
    return inputs, attrs, options


def _differs(inputs, attrs, options, other):
    """How many q_out / k_out elements change under another sum order."""
    alt = dict(options)
    alt["reduce_order"] = other
    a = golden(inputs, attrs, options)
    z = golden(inputs, attrs, alt)
    n = 0
    for name in ("q_out", "k_cache"):
        n += int(np.sum(a[name].array.view(np.uint8) !=
                        z[name].array.view(np.uint8)))
    return n


def describe(c, inputs, attrs, options):
    kq = "sym" if not c.get("k_asym") else "asym"
    vq = "sym" if not c.get("v_asym") else "asym"
    parts = ["%s qkv, k_cache %s%s, v_cache %s%s" % (
        c["dtype"], c["k"], " " + kq if c["k"] == "int8" else "",
        c["v"], " " + vq if c["v"] == "int8" else "")]
    parts.append("B %d S %d Nq %d Nk %d BS %d BN %d" % (
        c["B"], c["S"], c["Nq"], c["Nk"], inputs["k_cache"].array.shape[2],
        inputs["k_cache"].array.shape[0]))
    parts.append("index %s, cos %s, seed %d" % (
        c.get("index", "perm"), c.get("rope", "table"), c["seed"]))
    if c.get("note"):
        parts.append(c["note"])
    if not c.get("error"):
        order = options.get("reduce_order", "pairwise")
        other = "sequential" if order == "pairwise" else "pairwise"
        parts.append("%s vs %s: %d output bytes differ" % (
            order, other, _differs(inputs, attrs, options, other)))
    return "; ".join(parts)


# ---- the case list ----------------------------------------------------------

def _ties(rng, shape):
    """Half-integers in [-200.5, 200.5]: exact in fp16; with scale 1 every
    value is a rounding tie, and |z| > 127.5 saturates."""
    return (rng.randint(-201, 201, size=shape) + 0.5).astype(np.float32)


def _ones(rng, heads):
    return np.ones((heads, D), dtype=np.float32)


def _quarter_offsets(rng, heads):
    """Offsets in quarter steps: with half-integer values z lands on ties
    and on values 0.25 away from them."""
    return (rng.randint(-8, 9, (heads, D)) * 0.25).astype(np.float32)


# ---- special values -------------------------------------------------------

# Raw codes: quiet NaN, negative NaN with payload, signalling NaN, +-inf,
# +-0, smallest and largest subnormal, +-max.
SPECIAL = {
    "fp16": dict(nan=0x7E00, nnan=0xFE01, snan=0x7C01, inf=0x7C00,
                 ninf=0xFC00, zero=0x0000, nzero=0x8000, tiny=0x0001,
                 sub=0x03FF, max=0x7BFF, nmax=0xFBFF),
    "bf16": dict(nan=0x7FC0, nnan=0xFF81, snan=0x7F81, inf=0x7F80,
                 ninf=0xFF80, zero=0x0000, nzero=0x8000, tiny=0x0001,
                 sub=0x007F, max=0x7F7F, nmax=0xFF7F),
}


def _codes(t):
    """The raw code view of an fp16/bf16 input (edited in place)."""
    return t.array.view(np.uint16)


def _heads(inputs):
    """qkv codes as [tokens, heads, D]."""
    q = _codes(inputs["qkv"])
    return q.reshape(q.shape[0], -1, D)


def _subnormals(rng, shape, tag):
    top = SPECIAL[tag]["sub"]
    mag = rng.randint(1, top + 1, size=shape).astype(np.uint16)
    return mag | (rng.randint(0, 2, size=shape).astype(np.uint16) << 15)


def _signed(rng, code, shape):
    return (np.uint16(code) | (rng.randint(0, 2, size=shape).astype(
        np.uint16) << 15)).astype(np.uint16)


def _f32_specials(arr, first, values):
    """arr [heads, D] fp32: channels first.. get `values` in every head."""
    for j, v in enumerate(values):
        arr[:, first + j] = np.float32(v)


SCALE_SPECIALS = [1e-30, 1e30, np.inf, np.nan, -0.004, 1e-40,
                  np.finfo(np.float32).max]
OFFSET_SPECIALS = [np.nan, np.inf, -np.inf, 1e-45, 0.5, -0.5]


def _specials_fp16(inputs, attrs):
    """fp16, heads q0 q1 k v, epsilon 0. Token rows:
    t0 q0 one NaN, q1 one negative NaN (whole rows NaN), k one +inf (NaN at
       its channel and its RoPE partner, +-0 elsewhere), v NaN/+inf/-inf/
       sNaN in channels 0-3;
    t1 q0, k rows of +-0 and v +0: with epsilon 0, 0/0 makes q and k NaN;
    t2 subnormal rows (q1 all the smallest subnormal);
    t3 +-max rows (v saturates the int8 cache);
    t4 q0 +inf and -inf (NaN at both, 0 elsewhere);
    t5 cos/sin NaN, inf, -inf, 0 and a subnormal;
    t6 q0 one max among smallest subnormals; t7 ordinary.
    Gammas: q ch 10-14 0, -0, inf, max, subnormal; k ch 40-41 NaN, -inf.
    Scales ch 20-26 (k) / 60-66 (v): 1e-30, 1e30, inf, NaN, negative,
    subnormal, FLT_MAX; offsets ch 30-35 / 70-75: NaN, +-inf, subnormal,
    +-0.5."""
    sp = SPECIAL["fp16"]
    rng = np.random.RandomState(77)
    q = _heads(inputs)
    q[0, 0, 3], q[0, 1, 100], q[0, 2, 5] = sp["nan"], sp["nnan"], sp["inf"]
    q[0, 3, 0:4] = [sp["nan"], sp["inf"], sp["ninf"], sp["snan"]]
    q[1, 0, :] = _signed(rng, 0, D)
    q[1, 2, :] = sp["nzero"]
    q[1, 3, :] = sp["zero"]
    q[2, 0, :] = _subnormals(rng, D, "fp16")
    q[2, 1, :] = sp["tiny"]
    q[2, 2, :] = _subnormals(rng, D, "fp16")
    q[2, 3, :] = _subnormals(rng, D, "fp16")
    q[3, 0, :] = _signed(rng, sp["max"], D)
    q[3, 2, :64] = sp["max"]
    q[3, 3, :] = _signed(rng, sp["max"], D)
    q[4, 0, 0], q[4, 0, 1] = sp["inf"], sp["ninf"]
    q[6, 0, :] = sp["tiny"]
    q[6, 0, 0] = sp["max"]
    cos, sin = _codes(inputs["cos"]), _codes(inputs["sin"])
    cos[5, 0], cos[5, 1], sin[5, 2] = sp["nan"], sp["inf"], sp["ninf"]
    cos[5, 3], sin[5, 3], cos[5, 64] = sp["zero"], sp["zero"], sp["tiny"]
    qg, kg = _codes(inputs["q_gamma"]), _codes(inputs["k_gamma"])
    qg[10:15] = [sp["zero"], sp["nzero"], sp["inf"], sp["max"], sp["tiny"]]
    kg[40:42] = [sp["nan"], sp["ninf"]]
    _f32_specials(inputs["k_scale"].array, 20, SCALE_SPECIALS)
    _f32_specials(inputs["v_scale"].array, 60, SCALE_SPECIALS)
    _f32_specials(inputs["k_offset"].array, 30, OFFSET_SPECIALS)
    _f32_specials(inputs["v_offset"].array, 70, OFFSET_SPECIALS)


def _specials_bf16(inputs, attrs):
    """bf16, T caches, overflow saturate. Token rows:
    t0 q0 one NaN, k one negative NaN (its cache row: canonical NaN), v
       negative / signalling / negative quiet NaN and +inf;
    t1 +-max rows: the squares overflow binary32, rms = inf, outputs +-0;
       v max;
    t2 subnormal rows (their squares underflow to 0: rms = sqrt(eps));
    t3 q0 +inf and -inf, k all +inf (a NaN row);
    t4 q0 ch 10 = 8 under a gamma of max: the product overflows binary32
       (inf, saturated to max), sin[4][6] inf (saturated), cos[4][5] NaN;
       v +inf and -inf (saturated to +-max in the cache and v_before);
    t5 rows of +-0.
    Gammas: q ch 10 max, k ch 50-51 NaN and -inf."""
    sp = SPECIAL["bf16"]
    rng = np.random.RandomState(78)
    q = _heads(inputs)
    q[0, 0, 3], q[0, 2, 7] = sp["nan"], sp["nnan"]
    q[0, 3, 0:4] = [sp["nnan"], sp["snan"], 0xFFC0, sp["inf"]]
    q[1, 0, :] = _signed(rng, sp["max"], D)
    q[1, 2, :] = sp["max"]
    q[1, 3, :] = sp["nmax"]
    for h in range(4):
        q[2, h, :] = _subnormals(rng, D, "bf16")
    q[3, 0, 0], q[3, 0, 1] = sp["inf"], sp["ninf"]
    q[3, 2, :] = sp["inf"]
    q[4, 0, 10] = 0x4100  # 8.0
    q[4, 3, 0], q[4, 3, 1] = sp["inf"], sp["ninf"]
    for h in range(4):
        q[5, h, :] = _signed(rng, 0, D)
    _codes(inputs["q_gamma"])[10] = sp["max"]
    _codes(inputs["k_gamma"])[50:52] = [sp["nan"], sp["ninf"]]
    _codes(inputs["cos"])[4, 5] = sp["nan"]
    _codes(inputs["sin"])[4, 6] = sp["inf"]


def _bad(inputs_mut, attrs_mut=None):
    def mutate(inputs, attrs):
        if inputs_mut:
            inputs_mut(inputs)
        if attrs_mut:
            attrs_mut(attrs)
    return mutate


def _dup_index(inputs):
    idx = inputs["index"].array
    idx[3] = idx[1]


def _oob_index(inputs):
    kc = inputs["k_cache"].array
    inputs["index"].array[2] = kc.shape[0] * kc.shape[2]


def _drop(name):
    def f(inputs):
        del inputs[name]
    return f


def _set_d(attrs):
    attrs["qkv_size"][3] = 64


def cases():
    L = []
    seed = [1000]

    def add(**kw):
        seed[0] += 1
        kw.setdefault("seed", seed[0])
        L.append(kw)

    # The 8 dtype combinations x quant modes, before-quant on and off.
    for tag in ("fp16", "bf16"):
        add(id="%s_kv_plain" % tag, dtype=tag, k=tag, v=tag, B=1, S=5, Nq=2,
            Nk=1, before=True)
        add(id="%s_kv_int8_sym" % tag, dtype=tag, k="int8", v="int8", B=1,
            S=7 if tag == "fp16" else 4, Nq=4, Nk=2 if tag == "fp16" else 1)
        add(id="%s_kv_int8_asym" % tag, dtype=tag, k="int8", v="int8", B=2,
            S=3, Nq=2, Nk=1, k_asym=True, v_asym=True, before=True,
            index="skip")
        add(id="%s_k_sym_v_asym" % tag, dtype=tag, k="int8", v="int8", B=2,
            S=3, Nq=2, Nk=1, v_asym=True, index="paged")
        add(id="%s_k_asym_v_sym" % tag, dtype=tag, k="int8", v="int8", B=1,
            S=9, Nq=3, Nk=1, k_asym=True, before=True)
        add(id="%s_k_int8_sym_v_plain" % tag, dtype=tag, k="int8", v=tag,
            B=1, S=6, Nq=2, Nk=1, index="edges")
        add(id="%s_k_int8_asym_v_plain" % tag, dtype=tag, k="int8", v=tag,
            B=1, S=3, Nq=1, Nk=1, k_asym=True, before=True)
        add(id="%s_k_plain_v_int8_sym" % tag, dtype=tag, k=tag, v="int8",
            B=1, S=7, Nq=2, Nk=1, before=True, index="skip_negatives")
        add(id="%s_k_plain_v_int8_asym" % tag, dtype=tag, k=tag, v="int8",
            B=1, S=4, Nq=4, Nk=1, v_asym=True)

    # GQA ratios.
    add(id="gqa_16_1_fp16_int8", dtype="fp16", k="int8", v="int8", B=1, S=2,
        Nq=16, Nk=1, before=True, note="GQA 16:1")
    add(id="gqa_32_8_bf16_int8", dtype="bf16", k="int8", v="int8", B=1, S=1,
        Nq=32, Nk=8, k_asym=True, note="GQA 32:8")
    add(id="gqa_2_2_bf16_int8", dtype="bf16", k="int8", v="int8", B=1, S=3,
        Nq=2, Nk=2, note="MHA, Nq == Nk")
    add(id="gqa_8_2_fp16_mixed", dtype="fp16", k="fp16", v="int8", B=1, S=3,
        Nq=8, Nk=2, v_asym=True, before=True, note="GQA 4:1")

    # Reduction orders, on rows with one large element (a spike) so that
    # the order changes many output codes.
    for i, (tag, k, v) in enumerate((("fp16", "int8", "int8"),
                                     ("bf16", "bf16", "int8"),
                                     ("fp16", "fp16", "fp16"),
                                     ("bf16", "int8", "bf16"))):
        add(id="order_sequential_%d_%s" % (i, tag), dtype=tag, k=k, v=v,
            B=1, S=4, Nq=2, Nk=1, order="sequential", before=(i % 2 == 0),
            spike=True, k_asym=(i == 0), discriminate=True)
    add(id="order_pairwise_spike_fp16", dtype="fp16", k="int8", v="fp16",
        B=1, S=6, Nq=2, Nk=1, spike=True, before=True, discriminate=True,
        note="the same kind of data in the default order")
    add(id="order_double_fp16", dtype="fp16", k="int8", v="fp16", B=1, S=6,
        Nq=2, Nk=1, order="double", spike=True, before=True,
        discriminate=True)
    add(id="order_double_bf16", dtype="bf16", k="bf16", v="int8", B=1, S=4,
        Nq=2, Nk=2, order="double", spike=True, v_asym=True,
        discriminate=True)

    # Blocks, block sizes, odd B and S, index patterns.
    add(id="multi_block_bs32_paged", dtype="fp16", k="int8", v="int8", B=1,
        S=33, Nq=1, Nk=1, BS=32, index="paged",
        note="S one past a block: each sequence spans 2 blocks of a "
        "shuffled block table")
    add(id="bs64_extra_blocks", dtype="bf16", k="int8", v="int8", B=1, S=3,
        Nq=1, Nk=1, BS=64, BN=2, k_asym=True, index="edges",
        note="BlockNum above the minimum; slots 0 and BN*BS-1")
    add(id="bs96_skip", dtype="fp16", k="int8", v="int8", B=1, S=7,
        Nq=1, Nk=1, BS=96, index="skip", rope="random",
        note="BlockSize 96 (a multiple of 32, not a power of 2)")
    add(id="bs128", dtype="bf16", k="int8", v="int8", B=1, S=3, Nq=2,
        Nk=1, BS=128, v_asym=True, rope="random")
    add(id="bs256", dtype="fp16", k="int8", v="int8", B=1, S=4, Nq=1,
        Nk=1, BS=256, index="edges", k_asym=True)
    add(id="all_skip", dtype="bf16", k="int8", v="bf16", B=1, S=3, Nq=2, Nk=1,
        before=True, index="all_skip",
        note="every slot negative: caches untouched, other outputs written")
    add(id="single_token", dtype="fp16", k="int8", v="int8", B=1, S=1, Nq=2,
        Nk=2, k_asym=True, v_asym=True, before=True, note="B*S = 1")
    add(id="odd_b3_s3", dtype="fp16", k="int8", v="int8", B=3, S=3, Nq=1,
        Nk=1, index="paged", note="odd B and S")
    add(id="cos_b_rows_s1_fp16", dtype="fp16", k="int8", v="fp16", B=2, S=1,
        Nq=2, Nk=1, cos_rows="B", note="cos/sin [B, D] with S == 1")
    add(id="cos_b_rows_s1_bf16", dtype="bf16", k="bf16", v="int8", B=2, S=1,
        Nq=2, Nk=1, cos_rows="B", rope="random", before=True,
        note="cos/sin [B, D] with S == 1")
    add(id="random_rope_bf16", dtype="bf16", k="int8", v="int8", B=1, S=6,
        Nq=2, Nk=1, rope="random", k_asym=True, neg_scale=True,
        note="independent cos/sin halves; some negative scales")
    add(id="epsilon_large_fp16", dtype="fp16", k="fp16", v="int8", B=1, S=4,
        Nq=2, Nk=1, epsilon=0.5, amp=0.5, note="epsilon 0.5 dominates rms")

    # Special values.
    add(id="v_ties_saturation", dtype="fp16", k="int8", v="int8", B=1, S=6,
        Nq=1, Nk=1, v_values=_ties, v_scale=_ones,
        note="v half-integers / 1: ties to even, saturation at both ends")
    add(id="v_ties_offset", dtype="fp16", k="int8", v="int8", B=1, S=6,
        Nq=1, Nk=1, v_values=_ties, v_scale=_ones, v_asym=True,
        v_offset=_quarter_offsets,
        note="offset added before rounding (ties and quarter steps)")
    add(id="overflow_inf_fp16", dtype="fp16", k="fp16", v="int8", B=1, S=3,
        Nq=2, Nk=1, gamma_amp=30000.0, before=True,
        note="q_out overflows fp16: +-inf (torch)")
    add(id="overflow_saturate_fp16", dtype="fp16", k="fp16", v="int8", B=1,
        S=3, Nq=2, Nk=1, gamma_amp=30000.0, before=True, overflow="saturate",
        note="q_out overflows fp16: saturate to +-65504")
    add(id="overflow_saturate_bf16", dtype="bf16", k="int8", v="int8", B=1,
        S=2, Nq=2, Nk=1, gamma_amp=1e38, overflow="saturate",
        note="q_out overflows bf16: saturate")
    # Non-finite, subnormal and extreme inputs (docs/reliability.md lists
    # what each row, gamma channel and scale channel exercises). Every NaN
    # an output holds is the canonical one, whatever NaN went in.
    add(id="nonfinite_fp16_int8", dtype="fp16", k="int8", v="int8", B=1,
        S=8, Nq=2, Nk=1, k_asym=True, v_asym=True, before=True,
        epsilon=0.0, mutate=_specials_fp16,
        note="NaN/inf/-0/subnormal/max rows, gammas, cos/sin, scales and "
        "offsets; epsilon 0 (a zero row is 0/0)")
    add(id="nonfinite_bf16_saturate", dtype="bf16", k="bf16", v="bf16",
        B=1, S=6, Nq=2, Nk=1, before=True, overflow="saturate",
        mutate=_specials_bf16,
        note="NaN payloads into T caches (canonical 0x7FC0), max rows whose "
        "squares overflow, inf saturated to max")

    # B*S in the thousands: int8 caches, 3 blocks of 512, q_out not stored
    # as an input (the adapter allocates it) to keep the vectors small.
    add(id="large_bs_1536", dtype="fp16", k="int8", v="int8", B=3, S=512,
        Nq=1, Nk=1, BS=512, index="paged", v_asym=True, no_q_out_input=True,
        note="B*S = 1536, BlockSize 512")

    # Invalid cases: the oracle must refuse them.
    add(id="err_duplicate_slot", dtype="fp16", k="int8", v="int8", B=1, S=4,
        Nq=1, Nk=1, error=(161002, "index"), mutate=_bad(_dup_index))
    add(id="err_slot_out_of_range", dtype="bf16", k="bf16", v="bf16", B=1,
        S=4, Nq=1, Nk=1, error=(161002, "index"), mutate=_bad(_oob_index))
    add(id="err_cos_b_rows_s2", dtype="fp16", k="fp16", v="fp16", B=2, S=2,
        Nq=1, Nk=1, cos_rows="B", error=(161002, "cos"))
    add(id="err_missing_k_scale", dtype="fp16", k="int8", v="fp16", B=1, S=2,
        Nq=1, Nk=1, error=(161002, "k_scale"),
        mutate=_bad(_drop("k_scale")))
    add(id="err_missing_k_gamma", dtype="bf16", k="bf16", v="bf16", B=1, S=2,
        Nq=1, Nk=1, error=(161001, "k_gamma"),
        mutate=_bad(_drop("k_gamma")))
    add(id="err_head_dim_64", dtype="fp16", k="fp16", v="fp16", B=1, S=2,
        Nq=1, Nk=1, error=(161002, "qkv_size"), mutate=_bad(None, _set_d))
    return L


def _others(order):
    return {"pairwise": ["sequential"], "sequential": ["pairwise"],
            "double": ["pairwise", "sequential"]}[order]


def build_discriminating(c):
    """build(c), moving to the next seed (deterministically) until the
    case's sum order gives different output bytes than the other orders.
    A change of order moves the sum by at most about n * 2^-24 relative,
    which changes an fp16 code only near a rounding boundary; without the
    search a reduction-order case could pass with the wrong order."""
    for _ in range(200):
        inputs, attrs, options = build(c)
        order = options.get("reduce_order", "pairwise")
        with np.errstate(over="ignore", invalid="ignore"):
            if all(_differs(inputs, attrs, options, o) > 0
                   for o in _others(order)):
                return inputs, attrs, options
        c["seed"] += 7919
    raise AssertionError("no discriminating seed for " + c["id"])


def generate(root):
    for c in cases():
        if c.get("discriminate"):
            inputs, attrs, options = build_discriminating(c)
        else:
            inputs, attrs, options = build(c)
        if c.get("error"):
            status, tensor = c["error"]
            write_case(root, c["id"], OP, attrs, inputs, {}, options=options,
                       comment="invalid: " + describe(c, inputs, attrs,
                                                      options),
                       expect_error={"status": status, "tensor": tensor})
            continue
        with np.errstate(over="ignore", invalid="ignore", divide="ignore",
                         under="ignore"):
            expected = golden(inputs, attrs, options)
            comment = describe(c, inputs, attrs, options)
        write_case(root, c["id"], OP, attrs, inputs, expected,
                   options=options, comment=comment)

