"""ScatterPaKvCache's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import scatter_pa_kv_cache as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import (SIZE, Shape, T, codes, i32, paged_slots, poison,
                      spread_slots)

NAME = "ScatterPaKvCache"


def make_shape(tokens, heads, d, mode, tag="bf16", bs=128, grow=1,
               prefill=False, group="main"):
    """ScatterPaKvCache in vLLM-Ascend's two calls: cache_mode Norm (ND
    caches) or PA_NZ (4-D NZ caches); a prefill of one sequence (paged
    slots) or a decode step (random slots)."""
    rng = np.random.RandomState(5000 + tokens + grow + len(mode))
    key = codes(rng, tag, (tokens, heads, d), -3, 2)
    value = codes(rng, tag, (tokens, heads, d), -3, 2)
    blocks = -(-tokens // bs) * grow
    if mode == "Norm":
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
        ekc, evc = gen.scatter_pa_kv_cache(key, kc, slots, value, vc,
                                              cache_mode=mode)
        return {"key_cache": T(ekc, tag), "value_cache": T(evc, tag)}

    label = "T %d N %d D %d %s %s BS %d %s" % (
        tokens, heads, d, mode, tag, bs, "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("scatter_pa_kv_cache", label, tokens, inputs, golden,
                 {"cache_mode": mode}, group=group)


def main_shapes(quick):
    """vLLM-Ascend's decode and prefill writes, ND and NZ."""
    if quick:
        yield make_shape(256, 8, 128, "Norm")
        return
    yield make_shape(256, 8, 128, "Norm")
    yield make_shape(256, 8, 128, "PA_NZ")
    yield make_shape(4096, 8, 128, "Norm", prefill=True)
    yield make_shape(4096, 8, 128, "PA_NZ", prefill=True)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield make_shape(64, 8, 128, "Norm", grow=g, group="scaling")


def torch_golden(shape):
    """Its benchmark's two cache modes are the two paged layouts: Norm
    writes rows of a [blocks, BS, N, D] cache, PA_NZ the NZ runs."""
    mode = shape.attrs.get("cache_mode", "Norm")
    if mode not in ("Norm", "PA_NZ"):
        return None, "no torch golden for ScatterPaKvCache " + mode
    return tg.paged_copy(shape, "ND" if mode == "Norm" else "NZ")
