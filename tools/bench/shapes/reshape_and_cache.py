"""ReshapeAndCache's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import reshape_and_cache as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import (SIZE, Shape, T, codes, i32, paged_slots, poison,
                      spread_slots)

NAME = "ReshapeAndCache"


def make_shape(tokens, heads, d, layout, tag="fp16", bs=128, grow=1,
              prefill=False, group="main"):
    """ReshapeAndCache, compress_type UNDEFINED, ND or NZ caches: a prefill
    of one sequence (paged slots) or a decode step (random slots)."""
    rng = np.random.RandomState(4000 + tokens + grow + len(layout))
    key = codes(rng, tag, (tokens, heads, d), -3, 2)
    value = codes(rng, tag, (tokens, heads, d), -3, 2)
    blocks = -(-tokens // bs) * grow
    if layout == "ND":
        shape = (blocks, bs, heads, d)
    else:
        c0 = 32 // SIZE[tag]
        shape = (blocks, heads * d // c0, bs, c0)
    kc, vc = poison(rng, tag, shape), poison(rng, tag, shape)
    if prefill:
        slots = paged_slots(rng, tokens, bs, blocks)
    else:
        slots = spread_slots(rng, tokens, blocks * bs)
    inputs = {"key": T(key, tag), "value": T(value, tag),
              "key_cache": T(kc, tag), "value_cache": T(vc, tag),
              "slot_mapping": i32(slots)}

    def golden():
        ekc, evc = gen.reshape_and_cache(key, value, kc, vc, slots, layout)
        return {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}

    label = "T %d N %d D %d %s %s BS %d %s" % (
        tokens, heads, d, layout, tag, bs, "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("reshape_and_cache", label, tokens, inputs, golden,
                 {"compress_type": "UNDEFINED", "cache_layout": layout},
                 group=group)


def main_shapes(quick):
    """The issue's shapes, built one at a time as the run reaches them."""
    if quick:
        yield make_shape(256, 8, 128, "ND")
        return
    yield make_shape(256, 8, 128, "ND")
    yield make_shape(256, 8, 128, "NZ")
    yield make_shape(4096, 8, 128, "ND", prefill=True)
    yield make_shape(4096, 8, 128, "NZ", prefill=True)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield make_shape(64, 8, 128, "ND", grow=g, group="scaling")


def torch_golden(shape):
    return tg.paged_copy(shape, shape.attrs.get("cache_layout", "ND"))
