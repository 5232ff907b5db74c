"""Cases for attribute use_ue8m0 of concat_and_cache_ds_mla, preset
vllm-fp8_ds_mla: vLLM PR #49435's power-of-two tile scales (the model is
kvgen.concat_and_cache_ds_mla's use_ue8m0 branch, which imports
flashmla-model1's rule; FlashMLA@520fec6a tests/quant.py:35-53 writes the
same 656-byte row).

The cases are built with cases_concat_and_cache_ds_mla's helpers (random
tokens, poisoned caches, vllm_case, refusal) and model1's tile builder,
and every valid one asserts what it is for against the default rule
(use_ue8m0 false, computed by the same golden): tiles whose amax / 448 is
not a power of two must change their scale and some code, tiles where it
is one must not.
"""
import numpy as np

from . import c8_tiles as tiles
from . import cases_concat_and_cache_ds_mla as base
from . import concat_and_cache_ds_mla as c8
from . import concat_and_cache_ds_mla_model1 as pow2
from . import concat_and_cache_ds_mla_model1_cases as m1cases
from . import formats

F32 = np.float32
VLLM, ASC, MODEL1 = base.VLLM, base.ASC, "flashmla-model1"
UE8 = {"preset": VLLM, "use_ue8m0": True}


def bf16_value(code):
    return F32(formats.bf16_decode(np.uint16(code)))


def above(v):
    """The bf16 one ulp above the (bf16) positive value v."""
    return bf16_value(base.bf16(F32(v)) + 1)


def below(v):
    return bf16_value(base.bf16(F32(v)) - 1)


def with_amax(rng, amax, lo=2.0 ** -8):
    return m1cases.with_amax(rng, amax, lo, n=c8.TILE)


def written_rows(ins, attrs):
    """{slot: 656-byte row} of the cache the golden returns under
    `attrs`, for every written slot."""
    arrays = {k: v.array for k, v in ins.items()}
    out = c8.golden(arrays, attrs, ins["kv_cache"].dtype).view(np.uint8)
    out = out.reshape(-1, c8.ROW)
    slots = arrays["slot_mapping"].astype(np.int64).reshape(-1)
    return {int(s): out[s] for s in slots if s >= 0}


def tile_bytes(row, j):
    """(codes, scale bytes) of tile j of a vllm-fp8_ds_mla row."""
    return (row[j * c8.TILE:(j + 1) * c8.TILE],
            row[c8.NOPE + 4 * j:c8.NOPE + 4 * j + 4])


def token_exponents(ins, token):
    """The 4 tile exponents k of token `token` (flat index)."""
    x = formats.bf16_decode(ins["kv_c"].array.reshape(-1, c8.NOPE)[token])
    return pow2.scale_exponent(np.abs(x.reshape(-1, c8.TILE)).max(axis=1))


def versus_default(ins, moved=None, same=(), scale_only=()):
    """Assert the case against the default rule: every (token, tile) in
    `moved` (None: every written tile) changes its scale and at least one
    code; every one in `same` (amax / 448 a power of two >= 1e-4) is
    byte-identical; every one in `scale_only` (all +-0) changes its scale
    only. Rows not written are the caller's (vllm_case poisons
    them and the golden leaves them)."""
    slots = ins["slot_mapping"].array.astype(np.int64).reshape(-1)
    ue8 = written_rows(ins, UE8)
    dflt = written_rows(ins, {"preset": VLLM})
    if moved is None:
        moved = [(t, j) for t in range(slots.size) if slots[t] >= 0
                 for j in range(c8.NOPE // c8.TILE)]
    for t, j in moved:
        (qa, sa), (qb, sb) = (tile_bytes(r[int(slots[t])], j)
                              for r in (ue8, dflt))
        assert not np.array_equal(sa, sb), "scale unmoved %s" % ((t, j),)
        assert not np.array_equal(qa, qb), "codes unmoved %s" % ((t, j),)
    for t, j in scale_only:
        (qa, sa), (qb, sb) = (tile_bytes(r[int(slots[t])], j)
                              for r in (ue8, dflt))
        assert np.array_equal(qa, qb) and not np.array_equal(sa, sb), \
            "not a scale-only change %s" % ((t, j),)
    for t, j in same:
        assert all(np.array_equal(a, b) for a, b in zip(
            tile_bytes(ue8[int(slots[t])], j),
            tile_bytes(dflt[int(slots[t])], j))), "moved %s" % ((t, j),)


# ---- valid cases ------------------------------------------------------------

def rows(root):
    def check(ins, attrs):
        assert attrs == UE8
        versus_default(ins)
    base.vllm_case(
        root, "vllm_ue8m0_rows",
        "vllm-fp8_ds_mla with use_ue8m0 (vLLM PR #49435): tile scale 2^k, "
        "k the least integer with 2^k >= max(amax / 448, 1e-4), stored as "
        "fp32, codes e4m3fn(x / 2^k); kv_c [2, 3, 512] into a uint8 cache "
        "[3, 4, 656], int64 slots with -1 twice (skipped; token 1 holds "
        "NaN / Inf, never read) and the last slot 11, 8 rows untouched; "
        "token 0 tile 1 amax 336 (336 / 448 = 0.75 -> scale 1.0); every "
        "written tile's amax / 448 is not a power of two, so every scale "
        "and some code of every tile differ from the default rule's (the "
        "generator asserts it)", 3931, (2, 3), (3, 4, 656), "uint8",
        negative=[(1, -1), (5, -1)], nan_skipped=True,
        designed={(0, 1): with_amax(np.random.RandomState(3932),
                                    F32(336.0))},
        attrs=dict(UE8), check=check)


def boundaries(root):
    rng = np.random.RandomState(3933)
    one75 = F32(1.75)                           # 1.75 / 448 = 2^-8
    at13, at14 = F32(448 * 2.0 ** -13), F32(448 * 2.0 ** -14)
    top = bf16_value(0x7F7F)                    # the largest bf16
    designed = {
        (0, 0): tiles.values(tiles.ties_e4m3(rng)),
        (0, 1): with_amax(rng, above(one75)),
        (0, 2): with_amax(rng, below(one75)),
        (0, 3): tiles.zero_tile(),
        (1, 0): with_amax(rng, top, lo=2.0 ** -140),
        (1, 1): with_amax(rng, at13),
        (1, 2): with_amax(rng, above(at13)),
        (1, 3): with_amax(rng, at14),
        (2, 0): with_amax(rng, F32(448.0)),
        (2, 1): with_amax(rng, above(F32(448.0))),
        (2, 2): with_amax(rng, F32(0.04), lo=2.0 ** -6),
        (2, 3): with_amax(rng, F32(1.75 * 2.0 ** -118), lo=2.0 ** -4)}
    want_k = [[-8, -7, -8, -13], [120, -13, -12, -13], [0, 1, -13, -13]]

    def check(ins, attrs):
        assert attrs == UE8
        for t, ks in enumerate(want_k):
            assert list(token_exponents(ins, t)) == ks, (t, ks)
        versus_default(ins, moved=[(0, 1), (0, 2), (1, 0), (1, 2), (1, 3),
                                   (2, 1), (2, 2), (2, 3)],
                       same=[(0, 0), (1, 1), (2, 0)], scale_only=[(0, 3)])
    base.vllm_case(
        root, "vllm_ue8m0_e4m3_boundaries",
        "vllm-fp8_ds_mla with use_ue8m0, a float8_e4m3fn cache [6, 656]: "
        "token 0 tile 0 amax 1.75 (amax / 448 = 2^-8 exactly: scale 2^-8, "
        "the default rule's bytes; quotients on e4m3fn midpoints: RNE), "
        "tile 1 one bf16 above 1.75 (2^-7), tile 2 one below (2^-8, 446 "
        "-> 448), tile 3 all +-0 (1e-4 floor: 2^-13 = 0x39000000, codes "
        "0x00 / 0x80); token 1 tile 0 the largest bf16 0x7F7F (2^120, 255 "
        "-> 256; small values underflow to +-0), tile 1 amax 448 * 2^-13 "
        "(2^-13 exactly), tile 2 one bf16 above (2^-12), tile 3 448 * "
        "2^-14 (below the floor: 2^-13); token 2 amax 448 (scale 1), one "
        "above (2), 0.04 (floor: 2^-13), 1.75 * 2^-118 (the default "
        "rule's FLT_MIN; here 2^-13: every code +-0); the generator "
        "asserts each k, and which tiles keep the default rule's bytes",
        3934, (4,), (6, 656), "fp8_e4m3fn", designed=designed,
        attrs=dict(UE8), check=check, scale=np.array([0.5], dtype=F32))


def false_explicit(root):
    def check(ins, attrs):
        assert attrs == {"preset": VLLM, "use_ue8m0": False}
        arrays = {k: v.array for k, v in ins.items()}
        tag = ins["kv_cache"].dtype
        ours = c8.golden(arrays, attrs, tag)
        assert np.array_equal(ours, c8.golden(arrays, {"preset": VLLM},
                                              tag)), "false != default"
        assert not np.array_equal(ours, c8.golden(arrays, UE8, tag)), \
            "true gives the same bytes"
    base.vllm_case(
        root, "vllm_ue8m0_false_explicit",
        "vllm-fp8_ds_mla with use_ue8m0 false written out: the default "
        "rule's bytes (max(amax / 448, FLT_MIN) scales; the generator "
        "asserts they equal the case without the attribute and differ "
        "from use_ue8m0 true); kv_c [3, 512] into a uint8 cache [2, 4, "
        "656], int64 slots incl. -1 and the last slot 7", 3935, (3,),
        (2, 4, 656), "uint8", negative=[(0, -1)],
        attrs={"preset": VLLM, "use_ue8m0": False}, check=check)


# ---- refusals ---------------------------------------------------------------

def refusals(root):
    words = "message \"use_ue8m0\", \"vllm-fp8_ds_mla\""
    base.refusal(
        root, "error_vllm_ue8m0_on_ascend", "use_ue8m0 true with preset "
        "ascend-sfa-c8: the attribute is vllm-fp8_ds_mla's (refused off "
        "its default false); " + words, "use_ue8m0",
        base.attrs_of(ASC, use_ue8m0=True))
    m1cases.refusal(
        root, "error_vllm_ue8m0_on_model1", "use_ue8m0 true with preset "
        "flashmla-model1 (block_size 4, uint8 cache [2, 2880]): its E8M0 "
        "scales are powers of two already, the attribute is "
        "vllm-fp8_ds_mla's; " + words, "use_ue8m0",
        attrs={"preset": MODEL1, "block_size": 4, "use_ue8m0": True})
    # use_ue8m0 2 or "yes" is no vector: the harness refuses a
    # non-boolean JSON value while it reads the case (kvg_case_get_bool:
    # KVG_ERR_FILE_FORMAT, 170003, "must be true or false"), before the
    # operator is called, and expect_error takes only the statuses an
    # operator returns (161001, 161002, 170001). The case loader's own
    # tests are where that refusal is checked.


def generate(root):
    pow2.ceil_log2_self_check()
    rows(root)
    boundaries(root)
    false_explicit(root)
    refusals(root)
