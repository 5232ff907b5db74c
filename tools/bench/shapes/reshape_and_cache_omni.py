"""ReshapeAndCacheOmni's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import reshape_and_cache_omni as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes, i32, poison

NAME = "ReshapeAndCacheOmni"


def make_shape(L, heads, d, streaming, tag="fp16", bs=128, grow=1,
               group="main"):
    """ReshapeAndCacheOmni, one batch of L tokens: `streaming` of the heads
    keep the MindIE sinks (first 128, last 256), the others all L."""
    rng = np.random.RandomState(3000 + L + heads + streaming + grow)
    key = codes(rng, tag, (L, heads, d), -3, 2)
    value = codes(rng, tag, (L, heads, d), -3, 2)
    offs = np.array([128 if h < streaming else -1 for h in range(heads)])
    wins = np.array([L - 384 if h < streaming else 0 for h in range(heads)])
    counts = np.where(offs >= 0, L - wins, L)
    # runs back to back in a shuffled head order (then spread by `grow`)
    order = rng.permutation(heads)
    slots = np.zeros(heads, dtype=np.int64)
    at = 0
    for h in order:
        slots[h] = at
        at += int(counts[h]) * grow
    blocks = -(-at // bs)
    kc = poison(rng, tag, (blocks, bs, 1, d))
    vc = poison(rng, tag, (blocks, bs, 1, d))
    seq = np.array([L])
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slots), "wins": i32(wins),
              "seq_len": i32(seq), "offset_index": i32(offs)}

    def golden():
        ekc, evc = gen.reshape_and_cache_omni(key, value, kc, vc, slots,
                                                 wins, seq, offs)
        return {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}

    label = "L %d N %d D %d %s, %d/%d heads streaming" % (L, heads, d, tag,
                                                         streaming, heads)
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("reshape_and_cache_omni", label, L * heads, inputs, golden,
                 group=group)


def main_shapes(quick):
    """The issue's shapes, built one at a time as the run reaches them."""
    if quick:
        yield make_shape(512, 8, 128, 4)
        return
    yield make_shape(4096, 8, 128, 0)
    yield make_shape(4096, 8, 128, 4)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield make_shape(64, 8, 128, 0, grow=g, group="scaling")


def torch_golden(shape):
    inp = shape.inputs
    key, value = tg.tensor(inp["key"]), tg.tensor(inp["value"])
    kc0, vc0 = tg.tensor(inp["key_cache"]), tg.tensor(inp["value_cache"])
    slot, wins, seq, offs = (tg.tensor(inp[m]).long() for m in (
        "slot_mapping", "wins", "seq_len", "offset_index"))
    heads, d = key.shape[1], key.shape[2]

    def fn():
        L = seq.repeat_interleave(heads)
        base = (tg.torch.cumsum(seq, 0) - seq).repeat_interleave(heads)
        active = (offs != -1) & (wins != 0)
        counts = tg.torch.where(active, L - wins, L)
        owner = tg.torch.arange(counts.numel()).repeat_interleave(counts)
        k = tg.torch.arange(owner.numel()) - (tg.torch.cumsum(counts, 0) -
                                           counts)[owner]
        cut = tg.torch.where(active, offs, L)[owner]
        skip = tg.torch.where(active, wins, tg.torch.zeros_like(wins))[owner]
        j = tg.torch.where(k < cut, k, k + skip)
        src = (base[owner] + j) * heads + owner % heads
        dst = slot[owner] + k
        kc, vc = kc0.clone(), vc0.clone()
        kc.view(-1, d).index_put_((dst,), key.view(-1, d)[src])
        vc.view(-1, d).index_put_((dst,), value.view(-1, d)[src])
        return {"key_cache": tg.raw(kc), "value_cache": tg.raw(vc)}
    return fn, None
