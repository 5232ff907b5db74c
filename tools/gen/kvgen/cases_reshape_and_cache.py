"""Vectors for reshape_and_cache (docs/reshape_and_cache.md): ND and NZ
token writes (fp16 / bf16 / int8, Dk != Dv, padding slots -1), KVHEAD (last
wins tokens) and KVHEAD_ROPE (prefix, one fp32-mean token, suffix), plus
cases the oracle must refuse. Caches start as seeded random bytes.
"""
import numpy as np

from .casefile import T, write_case
from .head_runs import bits, head_params
from .paged_cases import (SPECIAL, expect_error, i32, pack, prefill_slots,
                          sprinkle)
from .paged_cases import poison as poison16
from .paged_cases import values as values16
from .reshape_and_cache import kvhead, kvhead_rope, reshape_and_cache
from .reshape_and_cache import reshape_and_cache_siso

NAME = "reshape_and_cache"
C0 = {"fp16": 16, "bf16": 16, "int8": 32}


def values(rng, tag, shape):
    if tag == "int8":
        return rng.randint(-128, 128, size=shape).astype(np.int8)
    return values16(rng, tag, shape)


def poison(rng, tag, shape):
    if tag == "int8":
        raw = rng.randint(1, 256, size=int(np.prod(shape))).astype(np.uint8)
        return raw.view(np.int8).reshape(shape)
    return poison16(rng, tag, shape)


def token_slots(rng, tokens, total, pad):
    """Distinct random slots, with `pad` tokens set to -1 (skipped)."""
    slots = rng.choice(total, size=tokens, replace=False).astype(np.int64)
    slots[rng.choice(tokens, size=pad, replace=False)] = -1
    return slots


def token_case(root, case_id, comment, seed, layout, ktag, vtag, tokens,
               heads, dk, dv, num_blocks, block_size, pad, specials=False,
               slots=None):
    rng = np.random.RandomState(seed)
    key = values(rng, ktag, (tokens, heads, dk))
    value = values(rng, vtag, (tokens, heads, dv))
    if specials:
        sprinkle(rng, ktag, key)
        sprinkle(rng, vtag, value)
    if layout == "ND":
        kshape = (num_blocks, block_size, heads, dk)
        vshape = (num_blocks, block_size, heads, dv)
    else:
        kshape = (num_blocks, heads * dk // C0[ktag], block_size, C0[ktag])
        vshape = (num_blocks, heads * dv // C0[vtag], block_size, C0[vtag])
    kc, vc = poison(rng, ktag, kshape), poison(rng, vtag, vshape)
    if slots is None:
        slots = token_slots(rng, tokens, num_blocks * block_size, pad)
    ekc, evc = reshape_and_cache(key, value, kc, vc, slots, layout)
    attrs = {"compress_type": "UNDEFINED", "cache_layout": layout}
    inputs = {"key": T(key, ktag), "value": T(value, vtag),
              "key_cache": T(kc, ktag), "value_cache": T(vc, vtag),
              "slot_mapping": i32(slots)}
    expected = {"key_cache": T(ekc, ktag), "value_cache": T(evc, vtag)}
    write_case(root, case_id, NAME, attrs, inputs, expected, comment=comment)


def token_cases(root):
    token_case(root, "nd_fp16", "ND, N=4 D=64, 3 padding tokens", 501, "ND",
               "fp16", "fp16", 12, 4, 64, 64, 5, 8, 3)
    token_case(root, "nd_bf16_dk_ne_dv", "ND, N=2 Dk=96 Dv=32 (MLA-like)",
               502, "ND", "bf16", "bf16", 9, 2, 96, 32, 3, 8, 1)
    token_case(root, "nd_int8", "ND int8, N=8 D=128", 503, "ND", "int8",
               "int8", 6, 8, 128, 128, 3, 4, 2)
    token_case(root, "nz_fp16", "NZ fp16, N=2 D=64 BS=16", 504, "NZ", "fp16",
               "fp16", 10, 2, 64, 64, 3, 16, 2)
    token_case(root, "nz_int8_key_fp16_value",
               "NZ: int8 key (C0 32) with N*Dk=96, fp16 value (C0 16) with "
               "N*Dv=144", 505, "NZ", "int8", "fp16", 7, 3, 32, 48, 2, 16, 1)
    token_case(root, "nz_bf16_dk_ne_dv", "NZ bf16, N=1 Dk=128 Dv=16", 506,
               "NZ", "bf16", "bf16", 11, 1, 128, 16, 2, 32, 0)
    # A prefill: runs of consecutive slots, which the NZ writer copies run
    # by run, cut by block ends and a padding token, then decode tokens.
    prefill = prefill_slots([3, 0, 4], 6, 36, 16, pad_at=[20],
                            tail=[17, 44, 36])
    token_case(root, "nz_fp16_prefill", "NZ fp16, N=2 D=64 BS=16: a prefill "
               "of 36 tokens from position 6 through block table [3, 0, 4] "
               "(token 20 padding), then 3 decode tokens", 507, "NZ", "fp16",
               "fp16", len(prefill), 2, 64, 64, 5, 16, 0, slots=prefill)


def siso_case(root, case_id, comment, seed, tag, tokens, heads, dim,
              num_blocks, block_size, pad):
    """Key only (ATB K_CACHE_V_BYPASS / torch_npu _npu_reshape_and_cache_siso):
    no value, no value_cache."""
    rng = np.random.RandomState(seed)
    key = values(rng, tag, (tokens, heads, dim))
    kc = poison(rng, tag, (num_blocks, block_size, heads, dim))
    slots = token_slots(rng, tokens, num_blocks * block_size, pad)
    ekc = reshape_and_cache_siso(key, kc, slots)
    write_case(root, case_id, NAME, {"kv_cache_cfg": "K_CACHE_V_BYPASS"},
               {"key": T(key, tag), "key_cache": T(kc, tag),
                "slot_mapping": i32(slots)},
               {"key_cache": T(ekc, tag)}, comment=comment)


def siso_cases(root):
    siso_case(root, "siso_fp16", "key only, N=2 D=40 (any D), 2 padding "
              "tokens", 521, "fp16", 9, 2, 40, 4, 4, 2)
    siso_case(root, "siso_bf16", "key only, N=1 D=1", 522, "bf16", 5, 1, 1,
              2, 8, 1)
    siso_case(root, "siso_int8", "key only int8, N=3 D=17", 523, "int8", 6,
              3, 17, 3, 4, 0)


def head_case(root, case_id, comment, seed, mode, tag, seq_len, heads, dim,
              block_size, wins, offs=None, slots=None, num_blocks=None,
              gap=2, zero_window=None, specials=None):
    rng = np.random.RandomState(seed)
    tokens = int(np.sum(seq_len))
    key = values(rng, tag, (tokens, heads, dim))
    value = values(rng, tag, (tokens, heads, dim))
    if specials is not None:
        specials(rng, tag, key)
        specials(rng, tag, value)
    if zero_window is not None:
        # channels 0-1 of head h's window rows all -0 (mean must be +0, as
        # the kernel's accumulator starts at +0); channel 2 mixes +0 and -0
        h, first, length = zero_window
        rows = slice(first, first + length)
        for x in (key, value):
            bits(x)[rows, h, 0:2] = 0x8000
            bits(x)[rows, h, 2] = 0x8000
            bits(x)[first, h, 2] = 0x0000
    L, _ = head_params(seq_len, heads)
    w = np.asarray(wins, dtype=np.int64)
    if mode == "KVHEAD":
        counts = w
    else:
        o = np.asarray(offs, dtype=np.int64)
        counts = np.where((o != -1) & (w != 0), L - w + 1, L)
    if slots is None:
        slots, num_blocks = pack(rng, counts, block_size, gap, shuffle=True)
    shape = (num_blocks, block_size, 1, dim)
    kc, vc = poison(rng, tag, shape), poison(rng, tag, shape)
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slots), "wins": i32(wins),
              "seq_len": i32(seq_len)}
    if mode == "KVHEAD":
        ekc, evc = kvhead(key, value, kc, vc, slots, wins, seq_len)
    else:
        inputs["offset_index"] = i32(offs)
        ekc, evc = kvhead_rope(key, value, kc, vc, slots, wins, seq_len, offs,
                               tag)
    expected = {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}
    write_case(root, case_id, NAME, {"compress_type": mode}, inputs, expected,
               comment=comment)


def head_cases(root):
    # KVHEAD: w = 0 (nothing; its start slot lies inside head 1's run, which
    # is no overlap), w = L (everything), 1, in between; head 4 skipped
    for tag, seed in (("fp16", 511), ("bf16", 512), ("int8", 513)):
        head_case(root, "kvhead_%s" % tag,
                  "last w tokens per head; w in {0, L, 1, 4, 7}; head 4 has "
                  "slot -1; runs cross blocks of 8", seed, "KVHEAD", tag,
                  [20, 9], 3, 32, 8, [0, 20, 1, 4, 9, 7],
                  slots=[3, 0, 20, 21, -1, 30], num_blocks=7)
    # KVHEAD reads the w rows before its batch's cumulative end: w > L
    # takes earlier batches' tokens (ATB's KVHEAD test draws seqLen 1, w 2)
    for tag, seed in (("fp16", 518), ("int8", 519)):
        head_case(root, "kvhead_wins_past_batch_%s" % tag,
                  "seq_len [3, 1, 4]: batch 1 w=2 > L=1 and w=4 (all rows "
                  "so far), batch 2 w=6 > L=4 (from batch 0's row 2)", seed,
                  "KVHEAD", tag, [3, 1, 4], 2, 32, 4, [3, 1, 2, 4, 6, 0])
    # KVHEAD_ROPE edges: o=-1, w=0, o=0, o+w=L, w=L (only the mean token)
    offs = [-1, 3, 0, 6, 0, 2, -1]
    wins = [5, 0, 4, 4, 10, 5, 99]
    for tag, seed in (("fp16", 514), ("bf16", 515)):
        head_case(root, "kvhead_rope_edges_%s" % tag,
                  "L=10: o=-1 | w=0 | o=0 | o+w=L | w=L (mean only) | o=2 "
                  "w=5 (window all -0 in channels 0-1) | o=-1 w=99; shuffled "
                  "runs crossing blocks of 4",
                  seed, "KVHEAD_ROPE", tag, [10], len(offs), 32, 4, wins,
                  offs, zero_window=(5, 2, 5))
    # RazorAttention-like: sink 16 + mean + recent 32 over a long window
    head_case(root, "kvhead_rope_long_window_bf16",
              "L=300, o=16, w=252: one mean over 252 tokens per head; "
              "head 1 full (o=-1)", 516, "KVHEAD_ROPE", "bf16", [300], 2, 64,
              16, [252, 252], [16, -1])
    rng = np.random.RandomState(517)
    seq_len, heads = [33, 7, 64], 2
    L, _ = head_params(seq_len, heads)
    w = np.array([rng.randint(0, l + 1) for l in L])
    o = np.array([rng.randint(-1, l - wi + 1) for l, wi in zip(L, w)])
    head_case(root, "kvhead_rope_random_fp16",
              "random w in [0,L], o in [-1, L-w]", 517, "KVHEAD_ROPE", "fp16",
              seq_len, heads, 96, 8, w, o)


def window_specials(head, first, length):
    """Channels of head `head`'s window rows [first, first+length) (length
    >= 3) that pin down the compensation token's special cases:
      0 one negative NaN            -> NaN (canonical)
      1 one +inf                    -> +inf
      2 one +inf and one -inf       -> NaN (canonical)
      3 all +max                    -> fp16: max (binary32 does not
                                       overflow); bf16: the sum overflows
                                       binary32, +inf
      4 all -max                    -> -max / -inf
      5 all the smallest subnormal  -> that subnormal (exact mean)
      6 +tiny, -tiny alternately    -> +0 (an even count cancels)
      7 all the largest subnormal   -> that subnormal
      8 one signalling NaN          -> NaN (canonical)
      9 -0 and one +inf             -> +inf
    Other heads and the kept tokens get sprinkled specials (copied bits)."""
    def edit(rng, tag, x):
        sp = SPECIAL[tag]
        sprinkle(rng, tag, x, every=8)
        b = bits(x)
        rows = slice(first, first + length)
        b[rows, head, :] = bits(values(rng, tag, (length, x.shape[2])))
        b[first, head, 0] = sp["nnan"]
        b[first + 1, head, 1] = sp["inf"]
        b[first, head, 2] = sp["inf"]
        b[first + 2, head, 2] = sp["ninf"]
        b[rows, head, 3] = sp["max"]
        b[rows, head, 4] = sp["nmax"]
        b[rows, head, 5] = sp["tiny"]
        b[rows, head, 6] = sp["tiny"]
        b[first + 1:first + length:2, head, 6] = sp["tiny"] | 0x8000
        b[rows, head, 7] = sp["sub"]
        b[first + 2, head, 8] = sp["snan"]
        b[rows, head, 9] = sp["nzero"]
        b[first + 1, head, 9] = sp["inf"]
    return edit


def nonfinite(root):
    token_case(root, "nonfinite_nd_fp16",
               "ND: 1 in 4 values special (every NaN/inf/0/subnormal/max "
               "code), copied bit for bit", 540, "ND", "fp16", "fp16", 6, 2,
               32, 32, 3, 4, 1, specials=True)
    token_case(root, "nonfinite_nz_bf16_int8",
               "NZ: bf16 value and int8 key (extremes) with specials, "
               "copied bit for bit", 541, "NZ", "int8", "bf16", 5, 1, 64, 32,
               2, 16, 1, specials=True)
    head_case(root, "nonfinite_kvhead_bf16",
              "KVHEAD: special values copied bit for bit", 542, "KVHEAD",
              "bf16", [6, 4], 2, 32, 4, [3, 6, 4, 1],
              specials=lambda rng, tag, x: sprinkle(rng, tag, x))
    for tag, seed in (("fp16", 543), ("bf16", 544)):
        head_case(root, "nonfinite_kvhead_rope_%s" % tag,
                  "KVHEAD_ROPE: head 0's window (o=2, w=6) holds NaN, "
                  "+-inf, +-max, subnormals per channel (docstring of "
                  "window_specials); head 1 o=-1; copies keep their bits",
                  seed, "KVHEAD_ROPE", tag, [10], 2, 32, 4, [6, 3], [2, -1],
                  specials=window_specials(0, 2, 6))


def error_case(root, case_id, comment, tensor, attrs, inputs):
    write_case(root, case_id, NAME, attrs, inputs, {}, comment=comment,
               expect_error=expect_error(tensor))


def errors(root):
    rng = np.random.RandomState(530)
    key = values(rng, "fp16", (4, 2, 32))
    value = values(rng, "fp16", (4, 2, 32))
    nd = poison(rng, "fp16", (2, 4, 2, 32))
    base = {"key": T(key, "fp16"), "value": T(value, "fp16"),
            "key_cache": T(nd, "fp16"), "value_cache": T(nd.copy(), "fp16")}
    error_case(root, "error_duplicate_slots", "tokens 1 and 3 share slot 5",
               "slot_mapping", {}, dict(base, slot_mapping=i32([0, 5, -1, 5])))
    error_case(root, "error_slot_out_of_range", "slot 8 of an 8-slot cache",
               "slot_mapping", {}, dict(base, slot_mapping=i32([0, 8, 1, 2])))
    # KVHEAD_ROPE slots packed for L - w (Omni's count) overlap by the +1
    hk = values(rng, "fp16", (6, 2, 32))
    hv = values(rng, "fp16", (6, 2, 32))
    hc = poison(rng, "fp16", (4, 4, 1, 32))
    head = {"key": T(hk, "fp16"), "value": T(hv, "fp16"),
            "key_cache": T(hc, "fp16"), "value_cache": T(hc.copy(), "fp16"),
            "wins": i32([2, 2]), "seq_len": i32([6]),
            "offset_index": i32([1, 1])}
    error_case(root, "error_rope_runs_overlap",
               "slots packed for L-w = 4 per head; KVHEAD_ROPE writes L-w+1",
               "slot_mapping", {"compress_type": "KVHEAD_ROPE"},
               dict(head, slot_mapping=i32([0, 4])))
    error_case(root, "error_kvhead_given_offset_index",
               "KVHEAD takes no offset_index", "offset_index",
               {"compress_type": "KVHEAD"},
               dict(head, slot_mapping=i32([0, 8])))
    hk1 = {k: v for k, v in head.items() if k != "offset_index"}
    error_case(root, "error_kvhead_wins_before_key",
               "KVHEAD batch 0 (seq_len 3) with wins 4 would read row -1",
               "wins", {"compress_type": "KVHEAD"},
               dict(hk1, seq_len=i32([3, 3]), wins=i32([4, 1, 2, 2]),
                    slot_mapping=i32([0, 4, 5, 7])))
    error_case(root, "error_siso_given_value",
               "K_CACHE_V_BYPASS takes no value", "value",
               {"kv_cache_cfg": "K_CACHE_V_BYPASS"},
               dict(base, slot_mapping=i32([0, 5, -1, 6])))
    sk = {"key": base["key"], "key_cache": base["key_cache"],
          "slot_mapping": i32([0, 5, -1, 6])}
    error_case(root, "error_siso_with_compress",
               "K_CACHE_V_BYPASS takes compress_type UNDEFINED only",
               "kv_cache_cfg", {"kv_cache_cfg": "K_CACHE_V_BYPASS",
                                "compress_type": "KVHEAD"}, sk)
    write_case(root, "error_no_value_without_bypass", NAME, {}, sk, {},
               comment="K_CACHE_V_CACHE (the default) without value: a "
               "missing tensor", expect_error={"status": 161001,
                                                "tensor": "value"})
    error_case(root, "error_nz_with_compress",
               "NZ caches take compress_type UNDEFINED only", "cache_layout",
               {"compress_type": "KVHEAD_ROPE", "cache_layout": "NZ"},
               dict(head, slot_mapping=i32([0, 8])))


def generate(root):
    token_cases(root)
    siso_cases(root)
    head_cases(root)
    nonfinite(root)
    errors(root)
