"""Cases for the C8-MXFP K write, operator c8_mxfp_k_cache (its tensors,
writes and refusals are in the operator's doc page; kvgen/c8_mxfp_k_cache.py
is the golden).

key is drawn from np.random.RandomState(seed): normal values times an
amplitude per 32-block between 2^-8 and 2^8 (so blocks get different
codes), narrowed to key's dtype, zeros replaced; then designed blocks are
written over chosen (token, head, block):
  - ZERO: +0 and -0 only (code 0x00, payload 0x00 / 0x80),
  - TINY: bf16 normals below 2^-118 (amax exponent field <= 8: OCP code 0,
    multiplier 0, payload +-0),
  - EDGE: amax exactly 2^-118 (code 1, the smallest nonzero code),
  - POW2: amax exactly 8 (code 122, top value scales to 256),
  - BELOW: amax 0x1.fep2 = 7.96875, one bf16 step below 8 (code 121: the
    top value scales to 510 and saturates to 448),
  - SAT: scaled values 450 .. 510 and -480 (e4m3fn saturates to +-448),
  - TOP: amax = bf16's largest finite 0x7F7F (code 246),
  - SPECIAL: +Inf / NaN in the block (code 0xFF, payload 0x00).
Both caches start as random bytes 1..255 (poison, 0xFF included): skipped
slots, slot 0's payload (a pad row never writes it) and every slot no
token names must come back unchanged. Slots are unique among real tokens;
pad rows are negative (-1 mostly, -2 and -3 too: the source clamps every
negative slot). Expected caches come from kvgen.c8_mxfp_k_cache.golden; every
refused case is checked to be refused by the same model, naming the
tensor its expect_error names.
"""
import numpy as np

from . import c8_mxfp_k_cache as mk
from . import formats
from .casefile import T, write_case

NAME = "c8_mxfp_k_cache"
OP = "c8_mxfp_k_cache"
SINK_FLAG = "slot0_scales_undefined"


def block_values(kind, rng):
    """The 32 float32 values of a designed block."""
    u = rng.uniform(0.25, 1.0, 32).astype(np.float32)
    sign = np.where(np.arange(32) % 3 == 1, -1.0, 1.0).astype(np.float32)
    if kind == "ZERO":
        return np.where(sign < 0, np.float32(-0.0), np.float32(0.0))
    if kind == "TINY":     # [2^-126, 2^-119): bf16 normals, E(amax) <= 8
        return sign * np.float32(2.0 ** -126) * rng.uniform(1, 127, 32)
    if kind == "EDGE":     # amax 2^-118 exactly: E = 9, code 1
        v = sign * np.float32(2.0 ** -126) * rng.uniform(1, 255, 32)
        v[5] = -np.float32(2.0 ** -118)
        return v
    if kind == "POW2":
        v = sign * u * np.float32(7.0)
        v[9] = np.float32(8.0)
        return v
    if kind == "BELOW":
        v = sign * u * np.float32(7.0)
        v[9] = np.float32(7.96875)
        v[10] = np.float32(-7.5)       # scales to -480: saturates
        return v
    if kind == "SAT":      # amax 2^8 * 1.9921875, code 127: x * 1 scaled
        v = sign * u * np.float32(300.0)
        v[0:6] = [450.0, 456.0, 464.0, -480.0, 496.0, 510.0]
        v[6] = np.float32(448.0)
        return v
    if kind == "TOP":
        v = sign * u * np.float32(2.0 ** 126)
        v[3] = -float(formats.bf16_decode(np.uint16(0x7F7F)))
        return v
    if kind == "SPECIAL":
        v = sign * u
        v[4], v[20] = np.inf, np.nan
        return v
    raise ValueError(kind)


def random_key(rng, shape, tag):
    """Normal values times 2^k per 32-block, k in [-8, 8], narrowed to
    `tag` and back, zeros replaced by 0.25 (float32, key's shape)."""
    f = rng.standard_normal(shape).astype(np.float32)
    amp = 2.0 ** rng.randint(-8, 9, shape[:-1] + (shape[-1] // 32,))
    f *= np.repeat(amp, 32, axis=-1).astype(np.float32)
    back = formats.decode(tag, formats.encode(tag, f))
    return np.where(back == 0, np.float32(0.25), back).astype(np.float32)


def make_key(rng, shape, tag, design=()):
    """key [T, N, D] stored as `tag`; design = ((t, n, block, kind), ...)."""
    t, n, d = shape
    f = random_key(rng, shape, tag)
    for tok, h, blk, kind in design:
        f[tok, h, blk * 32:(blk + 1) * 32] = block_values(kind, rng)
    with np.errstate(invalid="ignore", over="ignore"):
        return formats.encode(tag, f)


def poison(rng, shape):
    return rng.randint(1, 256, size=shape).astype(np.uint8)


def cache_shapes(bn, n, d, bs):
    return (bn, n, d // 32, bs, 32), (bn, n, bs // 16, d // 64, 16, 2)


def slots_of(rng, tokens, rows, pads=(), last=None, zero=None):
    """Unique slots in [1, rows - 1) for real tokens; token `last` takes
    the last valid slot rows - 1, token `zero` slot 0; pads: (token,
    negative slot) pairs."""
    s = (1 + rng.permutation(rows - 2)[:tokens]).astype(np.int64)
    if last is not None:
        s[last] = rows - 1
    if zero is not None:
        s[zero] = 0
    for tok, v in pads:
        s[tok] = v
    return s


def inputs_of(key, ktag, slot, stag, kc, kctag, ksc, ksctag):
    return {"key": T(key, ktag),
            "slot_mapping": T(np.asarray(slot).astype(stag), stag),
            "key_cache": T(kc, kctag),
            "key_scale_cache": T(ksc, ksctag)}


def valid(root, case_id, comment, seed, shape, bn, bs, slot_spec,
          stag="int32", ktag="bf16", design=(), ksctag="e8m0"):
    rng = np.random.RandomState(seed)
    t, n, d = shape
    key = make_key(rng, shape, ktag, design)
    slot = slots_of(rng, t, bn * bs, **slot_spec)
    kshape, sshape = cache_shapes(bn, n, d, bs)
    kc, ksc = poison(rng, kshape), poison(rng, sshape)
    mk.check_shapes(key, ktag, slot, stag, kc, "fp8_e4m3fn", ksc, ksctag)
    kc2, ksc2, pads = mk.golden(key, ktag, slot, kc, ksc)
    assert not np.array_equal(kc2, kc) or (slot < 0).all(), case_id
    assert not np.array_equal(ksc2, ksc), case_id
    flags = [SINK_FLAG] if pads >= 2 else None
    if pads >= 2:
        comment += ("; %d pad rows race for slot 0's scales: those 2*N*D/64"
                    " bytes are undefined (expected: the last pad row's)"
                    % pads)
    write_case(root, case_id, OP, {},
               inputs_of(key, ktag, slot, stag, kc, "fp8_e4m3fn", ksc,
                         ksctag),
               {"key_cache": T(kc2, "fp8_e4m3fn"),
                "key_scale_cache": T(ksc2, ksctag)},
               comment=comment, flags=flags)


def valid_cases(root):
    valid(root, "one_pad_row_int32",
          "T 6, N 2, D 128, Bs 64, 2 blocks: one pad row (-1) whose scales "
          "land in slot 0 (its payload is skipped), the last slot 127, a "
          "zero block beside a nonzero one in a pair", 3701, (6, 2, 128),
          2, 64, {"pads": [(2, -1)], "last": 4}, "int32",
          design=[(0, 0, 1, "ZERO"), (1, 1, 2, "TINY"), (2, 0, 0, "BELOW"),
                  (2, 1, 3, "POW2")])
    valid(root, "two_pad_rows_int64",
          "T 5, N 1, D 64, Bs 64, 2 blocks, int64 slots: pad rows at tokens "
          "0 and 2, the last slot 127", 3702, (5, 1, 64), 2, 64,
          {"pads": [(0, -1), (2, -1)], "last": 3}, "int64",
          design=[(1, 0, 0, "POW2"), (2, 0, 1, "SAT")])
    valid(root, "three_pad_rows_negatives",
          "T 7, N 1, D 64, Bs 64, 4 blocks: pad rows -3, -1, -2 (every "
          "negative slot is clamped to 0 and skips the payload), the last "
          "slot 255", 3703, (7, 1, 64), 4, 64,
          {"pads": [(0, -3), (3, -1), (5, -2)], "last": 1}, "int32")
    valid(root, "no_pad_row_slot0_int64",
          "T 4, N 2, D 64, Bs 128, 1 block, no pad row: a real token "
          "writes slot 0 (payload and scales), another the last slot 127",
          3704, (4, 2, 64), 1, 128, {"zero": 1, "last": 3}, "int64",
          design=[(1, 1, 0, "EDGE")])
    valid(root, "only_pad_row",
          "T 1, N 2, D 64, Bs 64: the only token is a pad row: no payload "
          "byte changes, slot 0's scales become its scales", 3705,
          (1, 2, 64), 1, 64, {"pads": [(0, -1)]}, "int64",
          design=[(0, 1, 1, "ZERO")])
    valid(root, "d256_two_blocks",
          "T 5, N 1, D 256, Bs 64, 2 blocks (tokens in both), one pad row, "
          "the last slot 127; D/64 = 4 scale pairs per token",
          3706, (5, 1, 256), 2, 64, {"pads": [(3, -1)], "last": 4},
          "int32", design=[(0, 0, 7, "TOP"), (3, 0, 2, "ZERO")])
    valid(root, "e8m0_boundaries",
          "T 4, N 2, D 128: amax 8 (code 122) and 7.96875 (code 121), "
          "2^-118 (code 1) and below it (code 0: payload +-0), bf16 max "
          "(code 246), an all +-0 block; one pad row", 3707, (4, 2, 128),
          1, 64, {"pads": [(3, -1)], "last": 0}, "int32",
          design=[(0, 0, 0, "POW2"), (0, 0, 1, "BELOW"), (0, 1, 2, "EDGE"),
                  (0, 1, 3, "TINY"), (1, 0, 0, "TOP"), (1, 1, 1, "ZERO"),
                  (2, 0, 3, "EDGE"), (3, 1, 0, "TINY")])
    valid(root, "fp8_saturation",
          "T 3, N 1, D 64: scaled values 450 .. 510 and -480 saturate to "
          "+-448 (0x7E / 0xFE), 448 itself stays", 3708, (3, 1, 64), 1, 64,
          {"pads": [(1, -1)], "last": 2}, "int32",
          design=[(0, 0, 0, "SAT"), (2, 0, 1, "SAT"), (2, 0, 0, "BELOW"),
                  (1, 0, 1, "SAT")])
    valid(root, "fp16_key_n4",
          "fp16 key T 5, N 4, D 64, Bs 64: the MX quantiser's fp16 path; one "
          "pad row", 3709, (5, 4, 64), 1, 64,
          {"pads": [(4, -1)], "last": 1}, "int64", ktag="fp16",
          design=[(0, 3, 0, "ZERO"), (2, 2, 1, "POW2")])
    valid(root, "fp32_key",
          "fp32 key T 3, N 1, D 64, Bs 64 (the MX quantiser takes fp32 with "
          "block 32); one pad row", 3712, (3, 1, 64), 1, 64,
          {"pads": [(0, -1)], "last": 2}, "int32", ktag="fp32",
          design=[(1, 0, 1, "BELOW")])
    valid(root, "nonfinite_block",
          "+Inf and NaN in one block of a real token and of the pad row: "
          "code 0xFF (E8M0 NaN), that block's payload 0x00", 3710,
          (3, 1, 64), 1, 64, {"pads": [(1, -1)], "last": 2}, "int32",
          design=[(0, 0, 1, "SPECIAL"), (1, 0, 0, "SPECIAL")])
    valid(root, "uint8_scale_cache",
          "the scale cache as vllm-ascend allocates it (raw uint8); "
          "T 4, N 2, D 64, Bs 64", 3711, (4, 2, 64), 1, 64,
          {"pads": [(0, -1)], "last": 3}, "int64", ksctag="uint8")


# ---- refused calls --------------------------------------------------------

def refused(root, case_id, comment, tensor, seed, shape=(2, 1, 64), bn=1,
            bs=64, slot=None, stag="int32", ktag="bf16", kctag="fp8_e4m3fn",
            ksctag="e8m0", kshape=None, sshape=None, key=None):
    """A call the operator refuses, naming `tensor` (status 161002); the
    model must refuse it too and name the same tensor."""
    rng = np.random.RandomState(seed)
    t, n, d = shape
    if key is None:
        key = make_key(rng, shape, "bf16")
        if ktag == "int8":
            key = rng.randint(1, 9, shape).astype(np.int8)
    if slot is None:
        slot = slots_of(rng, t, bn * bs)
    ks, ss = cache_shapes(bn, n, max(d // 64, 1) * 64, bs)
    kc = poison(rng, kshape or ks)
    ksc = poison(rng, sshape or ss)
    try:
        mk.check_shapes(key, ktag, np.asarray(slot), stag, kc, kctag, ksc,
                        ksctag)
        mk.golden(key, ktag, np.asarray(slot), kc, ksc)
    except mk.Refused as e:
        assert e.tensor == tensor, (case_id, str(e))
        why = str(e)
    else:
        raise AssertionError("%s: the model accepts it" % case_id)
    sd = {"int32": np.int32, "int64": np.int64, "int16": np.int16}[stag]
    write_case(root, case_id, OP, {},
               inputs_of(key, ktag, np.asarray(slot).astype(sd), stag, kc,
                         kctag, ksc, ksctag), {},
               comment="%s (model: %s)" % (comment, why),
               expect_error={"status": 161002, "tensor": tensor})


def refused_cases(root):
    refused(root, "error_head_dim_96", "D 96 is not a multiple of 64 "
            "(vllm-ascend validate_mxfp_k_scale_head_dim); fragment "
            "\"head_dim\"", "key", 3750, shape=(2, 1, 96),
            kshape=(1, 1, 3, 64, 32), sshape=(1, 1, 4, 1, 16, 2))
    refused(root, "error_block_size_48", "Bs 48 is not a multiple of 64 "
            "(validate_mxfp_v_scale_block_size); fragment \"block_size\"",
            "key_cache", 3751, bs=48)
    refused(root, "error_block_size_80", "Bs 80: a multiple of 16 (the "
            "scale tile) but not of 64; fragment \"block_size\"",
            "key_cache", 3752, bs=80)
    refused(root, "error_slot0_beside_pad", "a real token at slot 0 and "
            "a pad row: both write slot 0's scales; fragment \"slot 0\"",
            "slot_mapping", 3753, bn=2,
            slot=np.array([0, -1], dtype=np.int64))
    refused(root, "error_slot_past_cache", "slot 64 in a cache of 64 "
            "slots; fragment \"slot\"", "slot_mapping", 3754,
            slot=np.array([3, 64], dtype=np.int64))
    refused(root, "error_duplicate_slot", "two real tokens on slot 7; "
            "fragment \"duplicate\"", "slot_mapping", 3755, shape=(3, 1, 64),
            slot=np.array([7, -1, 7], dtype=np.int64))
    refused(root, "error_slot_mapping_int16", "slot_mapping int16; "
            "fragment \"slot_mapping\"", "slot_mapping", 3756,
            stag="int16")
    refused(root, "error_slot_mapping_shape", "slot_mapping [3] for "
            "T 2; fragment \"slot_mapping\"", "slot_mapping", 3757,
            slot=np.array([1, 2, 3], dtype=np.int64))
    refused(root, "error_key_int8", "key int8 (the MX quantiser takes "
            "bf16, fp16, fp32); fragment \"key\"", "key", 3758,
            ktag="int8")
    refused(root, "error_key_rank2", "key [T, N*D] (want [T, N, D]); "
            "fragment \"key\"", "key", 3759,
            key=make_key(np.random.RandomState(3759), (2, 1, 64),
                         "bf16").reshape(2, 64))
    sub = make_key(np.random.RandomState(3760), (2, 1, 64), "bf16")
    sub[1, 0, 9] = 0x0003          # a bf16 subnormal
    refused(root, "error_key_subnormal", "a bf16 subnormal element "
            "(the MX quantiser refuses it); fragment \"key\"", "key", 3760,
            key=sub)
    refused(root, "error_key_cache_e5m2", "key_cache fp8_e5m2 (the "
            "payload is e4m3fn); fragment \"key_cache\"", "key_cache", 3761,
            kctag="fp8_e5m2")
    refused(root, "error_key_cache_heads", "key_cache N 2 for key N 1; "
            "fragment \"key_cache\"", "key_cache", 3762,
            kshape=(1, 2, 2, 64, 32))
    refused(root, "error_key_cache_natural", "key_cache in its storage "
            "shape [Bn, Bs, N, D] (the operator takes the PA_NZ view "
            "[Bn, N, D/32, Bs, 32]); fragment \"key_cache\"", "key_cache",
            3763, kshape=(1, 64, 1, 64))
    refused(root, "error_scale_cache_blocks", "key_scale_cache with 2 "
            "blocks, key_cache 1; fragment \"key_scale_cache\"",
            "key_scale_cache", 3764, sshape=(2, 1, 4, 1, 16, 2))
    refused(root, "error_scale_cache_order", "key_scale_cache [Bn, N, "
            "Bs/16, D/64, 2, 16] (pair and tile axes swapped); fragment "
            "\"key_scale_cache\"", "key_scale_cache", 3765,
            sshape=(1, 1, 4, 1, 2, 16))
    refused(root, "error_scale_cache_e4m3", "key_scale_cache fp8_e4m3fn; "
            "fragment \"key_scale_cache\"", "key_scale_cache", 3766,
            ksctag="fp8_e4m3fn")


def generate(root):
    valid_cases(root)
    refused_cases(root)
