"""Vectors for reshape_and_cache_omni (docs/reshape_and_cache.md).

Cases follow MindIE's OmniAttention usage (first sink 128 + recent 256 at
prefill, seq_len 1 with offset_index -1 at decode, long prefill), the edge
cases of the keep rule (o = 0, o + w = L, w = L, w = 0, o = -1 with any
wins), runs crossing block boundaries in shuffled order, fp16 and bf16,
several N and D; plus cases the oracle must refuse. Caches start as seeded
random bytes (never zero), inputs are seeded random values.
"""

import numpy as np

from .casefile import T, write_case
from .paged_cases import expect_error, i32, pack, poison, sprinkle, values
from .reshape_and_cache_omni import omni_counts, head_params
from .reshape_and_cache_omni import reshape_and_cache_omni as golden

NAME = "reshape_and_cache_omni"
FIRST_SINK, RECENT_SINK = 128, 256


def emit(root, case_id, comment, tag, key, value, num_blocks, block_size,
         slot, wins, seq_len, offset_index, rng):
    heads, dim = key.shape[1], key.shape[2]
    shape = (num_blocks, block_size, 1, dim)
    kc, vc = poison(rng, tag, shape), poison(rng, tag, shape)
    ekc, evc = golden(key, value, kc, vc, slot, wins, seq_len, offset_index)
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slot), "wins": i32(wins),
              "seq_len": i32(seq_len), "offset_index": i32(offset_index)}
    expected = {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}
    assert heads * len(seq_len) == len(slot)
    write_case(root, case_id, NAME, {}, inputs, expected, comment=comment)


def random_case(root, case_id, comment, seed, tag, seq_len, heads, dim,
                block_size, wins, offset_index, gap=0, shuffle=True,
                slots=None, num_blocks=None, specials=False):
    rng = np.random.RandomState(seed)
    tokens = int(np.sum(seq_len))
    key = values(rng, tag, (tokens, heads, dim))
    value = values(rng, tag, (tokens, heads, dim))
    if specials:
        sprinkle(rng, tag, key)
        sprinkle(rng, tag, value)
    L, _ = head_params(seq_len, heads)
    counts, _ = omni_counts(L, wins, offset_index)
    if slots is None:
        slots, num_blocks = pack(rng, counts, block_size, gap, shuffle)
    emit(root, case_id, comment, tag, key, value, num_blocks, block_size,
         slots, wins, seq_len, offset_index, rng)


def worked_example(root):
    """docs/reshape_and_cache.md, worked example (reference note section 6)."""
    random_case(root, "worked_example_fp16",
                "N=2 D=32 BS=4 NB=8, seq_len [6,5]: head 0 keeps 0,3,4,5; "
                "head 1 (o=-1) crosses blocks 1->2; head 2 has w=0; head 3 "
                "keeps token 0 only; slots 16..31 untouched", 401, "fp16",
                [6, 5], 2, 32, 4, [2, 3, 0, 4], [1, -1, 2, 1],
                slots=[0, 4, 10, 15], num_blocks=8)


def mindie_prefill(root):
    # long prefill: one streaming head keeps sinks [0,128) and [L-256, L)
    L = 4096
    random_case(root, "prefill_long_l4096_streaming_fp16",
                "MindIE prefill, L=4096: streaming head, o=128, w=L-384; "
                "run from slot 128 over blocks 1..3, block 0 untouched", 402,
                "fp16", [L], 1, 32, 128, [L - 384], [FIRST_SINK],
                slots=[128], num_blocks=4)
    # mixed layer: batch 0 long (streaming h0, full h1 with o=-1 and w set),
    # batch 1 short (<= 384: w=0, o=-1 everywhere)
    seq_len = [500, 200]
    wins = [500 - 384, 500 - 384, 0, 0]
    offs = [FIRST_SINK, -1, -1, -1]
    rng = np.random.RandomState(403)
    L, _ = head_params(seq_len, 2)
    counts, _ = omni_counts(L, wins, offs)
    slots, nb = pack(rng, counts, 64, align=True)
    random_case(root, "prefill_mixed_heads_bf16",
                "MindIE prefill: batch 0 L=500 streaming h0 (o=128, "
                "w=116) and full h1 (o=-1, w=116: all 500 kept); batch 1 "
                "L=200 w=0 o=-1; block-aligned regions, BS=64", 403, "bf16",
                seq_len, 2, 32, 64, wins, offs, slots=slots, num_blocks=nb)


def mindie_decode(root):
    """seq_len 1 and offset_index -1 for every head; wins keeps the prefill
    value (L - 384, far above seq_len) as MindIE's decode does."""
    rng = np.random.RandomState(404)
    bs, region = 4, 8
    for tag, seed, batch, heads, dim in (("bf16", 405, 2, 4, 128),
                                         ("fp16", 406, 3, 2, 64)):
        prefill_len = rng.randint(100, 5000, size=batch)
        wins = np.repeat(np.maximum(prefill_len - 384, 0), heads)
        base = np.arange(batch * heads) * region
        pos = rng.randint(0, region, size=batch * heads)
        nb = -(-batch * heads * region // bs) + 1
        random_case(root, "decode_seq1_offset_minus1_%s" % tag,
                    "MindIE decode: seq_len 1, offset_index -1, stale "
                    "prefill wins; one token per head at its ring position",
                    seed, tag, [1] * batch, heads, dim, bs, wins,
                    [-1] * (batch * heads), slots=base + pos, num_blocks=nb)


def edges(root):
    """One batch of L=10, one head per edge of the keep rule."""
    #        o=0,w>0  o+w=L  o=0,w=L  w=0,o>0  o=-1,w>0  o=L,w=0  o=-1,w=99
    offs = [0, 6, 0, 3, -1, 10, -1, 2]
    wins = [3, 4, 10, 0, 5, 0, 99, 5]
    for tag, seed in (("fp16", 407), ("bf16", 408)):
        random_case(root, "edges_%s" % tag,
                    "L=10 heads: o=0 w=3 | o+w=L | o=0 w=L (nothing) | w=0 "
                    "o=3 | o=-1 w=5 | o=L w=0 | o=-1 w=99 | o=2 w=5; "
                    "shuffled runs with gaps, crossing blocks of 4",
                    seed, tag, [10], len(offs), 32, 4, wins, offs, gap=3)


def random_shapes(root):
    """Several N and D; random w and o per head (all heads independent),
    shuffled runs with gaps; one case with a skipped (negative-slot) head."""
    specs = [("n3_d96_bf16", 409, "bf16", [21, 5, 30], 3, 96, 16),
             ("n8_d32_fp16", 410, "fp16", [20, 33], 8, 32, 16),
             ("n1_d256_bf16", 411, "bf16", [40], 1, 256, 16),
             ("n5_d64_fp16", 412, "fp16", [1, 2, 9, 20], 5, 64, 8)]
    for name, seed, tag, seq_len, heads, dim, bs in specs:
        rng = np.random.RandomState(seed + 1000)
        L, _ = head_params(seq_len, heads)
        w = np.array([rng.randint(0, l + 1) for l in L])
        o = np.array([rng.randint(-1, l - wi + 1) for l, wi in zip(L, w)])
        random_case(root, "random_" + name,
                    "random w in [0,L], o in [-1, L-w] per head, shuffled "
                    "runs with gaps", seed, tag, seq_len, heads, dim, bs, w, o,
                    gap=5)
    rng = np.random.RandomState(413)
    seq_len, heads = [9, 4], 2
    wins, offs = [3, 0, 2, 1], [2, -1, 0, 3]
    L, _ = head_params(seq_len, heads)
    counts, _ = omni_counts(L, wins, offs)
    slots, nb = pack(rng, counts, 8, gap=2, shuffle=True)
    slots[1] = -1
    random_case(root, "negative_slot_skips_head_fp16",
                "head 1 has slot -1: skipped, its tokens written nowhere",
                413, "fp16", seq_len, heads, 32, 8, wins, offs, slots=slots,
                num_blocks=nb)


def nonfinite(root):
    """Copies move bits: NaN payloads (negative, signalling), +-inf, -0,
    subnormals and +-max arrive in the cache unchanged."""
    random_case(root, "nonfinite_copy_fp16",
                "1 in 4 values special (every NaN/inf/0/subnormal/max code): "
                "copied bit for bit, NaN payloads kept", 414, "fp16", [7, 5],
                2, 32, 4, [2, 0, 1, 3], [1, -1, 0, 2], gap=2, specials=True)
    random_case(root, "nonfinite_copy_bf16",
                "the same for bf16", 415, "bf16", [6], 3, 64, 8, [2, 6, 0],
                [3, -1, 1], gap=1, specials=True)


def many_heads(root):
    """More heads than the C writer plans at once (32), and heads keeping
    different rows: the writer copies a stretch of rows token by token
    where more than half of a group's heads keep it, head by head
    elsewhere, so both orders and a second, smaller group are covered."""
    seq_len, heads = [12, 6], 40
    wins, offs = [], []
    for i in range(len(seq_len) * heads):
        L = seq_len[i // heads]
        w, o = [(L - 5, 2),     # keeps [0, 2) and [L - 3, L)
                (3, -1),        # o = -1: all L
                (0, 4),         # w = 0: all L
                (4, 0),         # keeps [4, L)
                (L - 1, 1)][i % 5]  # keeps [0, 1)
        wins.append(w)
        offs.append(o)
    random_case(root, "many_heads_fp16",
                "N=40, seq_len [12, 6]: five keep rules in turn over the "
                "heads (sinks, o=-1, w=0, o=0, o+w=L), runs shuffled with "
                "gaps", 416, "fp16", seq_len, heads, 32, 8, wins, offs,
                gap=1)


def error_case(root, case_id, comment, tensor, seq_len, heads, slots, wins,
               offs, num_blocks, block_size=8, tokens=None, tag="fp16",
               value_tag=None, seed=420):
    rng = np.random.RandomState(seed)
    tokens = int(np.sum(seq_len)) if tokens is None else tokens
    key = values(rng, tag, (tokens, heads, 32))
    vtag = value_tag or tag
    value = values(rng, vtag, (tokens, heads, 32))
    shape = (num_blocks, block_size, 1, 32)
    inputs = {"key": T(key, tag), "value": T(value, vtag),
              "key_cache": T(poison(rng, tag, shape), tag),
              "value_cache": T(poison(rng, vtag, shape), vtag),
              "slot_mapping": i32(slots), "wins": i32(wins),
              "seq_len": i32(seq_len), "offset_index": i32(offs)}
    write_case(root, case_id, NAME, {}, inputs, {}, comment=comment,
               expect_error=expect_error(tensor))


def errors(root):
    # unique start slots, but head 0's run [0, 6) covers head 1's start 4
    error_case(root, "error_overlapping_runs",
               "starts 0 and 4 are distinct, but head 0 keeps 6 tokens",
               "slot_mapping", [6], 2, [0, 4], [0, 0], [-1, -1], 4)
    error_case(root, "error_run_past_cache_end",
               "a 6-token run from slot 28 of a 32-slot cache",
               "slot_mapping", [6], 1, [28], [0], [-1], 4)
    error_case(root, "error_wins_above_seq_len",
               "wins 7 > seq_len 5 with offset_index 0", "wins", [5], 1, [0],
               [7], [0], 4)
    error_case(root, "error_offset_past_window",
               "offset_index 3 > seq_len - wins = 2", "offset_index", [5], 1,
               [0], [3], [3], 4)
    error_case(root, "error_seq_len_sum_above_tokens",
               "seq_len [4, 4] needs 8 rows, key has 6", "seq_len", [4, 4],
               1, [0, 8], [0, 0], [-1, -1], 4, tokens=6)
    error_case(root, "error_dtype_mix",
               "key fp16, value bf16", "value", [2], 1, [0], [0], [-1], 4,
               value_tag="bf16")
    n = 500
    error_case(root, "error_batch_heads_500",
               "batch 500 * N 1 = 500 heads; the limit is < 500",
               "slot_mapping", [1] * n, 1, np.arange(n), [0] * n, [-1] * n,
               -(-n // 8) + 1)


def generate(root):
    worked_example(root)
    mindie_prefill(root)
    mindie_decode(root)
    edges(root)
    random_shapes(root)
    nonfinite(root)
    many_heads(root)
    errors(root)
