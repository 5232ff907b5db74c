"""The indexer compress epilogs' benchmark shapes (bench.py finds this
module).

cr (cann-recipes-infer's custom op) at the d its doc fixes, 4096 (scale
columns 32): x bf16 [T, 4096] into cache rows [rows, 4096] and their scale
rows, MX-FP8 (R-EBUMP, E8M0) and fp8 with fp32 scales. va_v2
(vllm-ascend's v2) as DeepSeek-V3.2's indexer K cache: x bf16 [T, 128]
into the combined uint8 cache [blocks, 128, 1, 132] (a block's fp8 codes,
then its fp32 scales), a prefill's paged slots and a decode step's spread
ones.
"""
import numpy as np

from kvgen import indexer_compress_epilog as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes, i32, paged_slots, spread_slots

NAME = "IndexerCompressEpilog"
BS = 128
INV_448 = 0x3B124925  # fl(1/448), CR base.h:39
FLOOR = 0x38D1B717    # fl(1e-4), CR base.h:215


def cr_shape(mode, tokens, d=4096, group="main"):
    """cr mode 0 / 1: `tokens` rows into 2 x tokens cache rows (poisoned),
    half of them written, in shuffled order."""
    rng = np.random.RandomState(4100 + tokens + 7 * mode)
    ng = -(-d // 128)
    x = codes(rng, "bf16", (tokens, d), -3, 2)
    rows = 2 * tokens
    cache = rng.randint(1, 256, size=rows * d).astype(np.uint8).reshape(
        rows, d)
    sdt = "e8m0" if mode == 0 else "fp32"
    sb = rng.randint(1, 256, size=rows * ng * (1 if mode == 0 else 4)).astype(
        np.uint8)
    scale = (sb if mode == 0 else sb.view(np.float32)).reshape(rows, ng)
    slots = rng.permutation(rows)[:tokens].astype(np.int64)
    attrs = {"impl": "cr", "quant_mode": mode, "round_scale": True}
    inputs = {"x": T(x, "bf16"), "slot_mapping": i32(slots),
              "cache": T(cache, "fp8_e4m3fn"), "cache_scale": T(scale, sdt)}

    def golden():
        c, s = gen.golden_cr(x, "bf16", slots, cache, "fp8_e4m3fn", scale,
                             attrs)
        return {"cache": T(c, "fp8_e4m3fn"), "cache_scale": T(s, sdt)}

    label = "cr %s T %d d %d" % ("mxfp8 e8m0" if mode == 0
                                 else "fp8 fp32", tokens, d)
    return Shape("indexer_compress_epilog", label, tokens, inputs, golden,
                 attrs, group=group)


def va_shape(tokens, prefill=True, grow=1, group="main"):
    """va_v2: x bf16 [tokens, 128] into blocks of 128 slots (tokens
    rounded up to blocks, x grow), the cache poisoned."""
    d, width = 128, 132
    rng = np.random.RandomState(4200 + tokens + grow)
    x = codes(rng, "bf16", (tokens, d), -3, 2)
    blocks = -(-tokens // BS) * grow
    cache = rng.randint(1, 256, size=blocks * BS * width).astype(
        np.uint8).reshape(blocks, BS, 1, width)
    slots = (paged_slots(rng, tokens, BS, blocks) if prefill
             else spread_slots(rng, tokens, blocks * BS))
    attrs = {"impl": "va_v2"}
    inputs = {"x": T(x, "bf16"), "slot_mapping": i32(slots),
              "cache": T(cache, "uint8")}

    def golden():
        return {"cache": T(gen.golden_va_v2(x, "bf16", slots, cache, attrs),
                           "uint8")}

    label = "va_v2 T %d d %d %s" % (tokens, d,
                                    "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("indexer_compress_epilog", label, tokens, inputs, golden,
                 attrs, group=group)


def main_shapes(quick):
    if quick:
        yield va_shape(256, prefill=False)
        return
    yield cr_shape(0, 1024)
    yield cr_shape(1, 1024)
    yield va_shape(8192)
    yield va_shape(256, prefill=False, grow=32)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    for g in ((1, 16) if quick else (1, 16, 256)):
        yield va_shape(64, prefill=False, grow=g, group="scaling")


# ---- the torch golden -------------------------------------------------------
#
# As a vendor golden without float8 would write it: fp32 arithmetic on
# `.float()` inputs, the scale's fields read from its int32 view, codes
# from the helpers' round to the e4m3 grid, one `index_put_` a cache.

def _f32(bits):
    torch = tg.torch
    return torch.tensor([bits], dtype=torch.int32).view(torch.float32)[0]


def _groups(x):
    return x.reshape(x.shape[0], -1, 128)


def _blk128(x):
    """s = amax * fl(1/448) (0 for a zero group); codes x / s, x kept
    where that is not finite; fp32 scales."""
    torch = tg.torch
    xg = _groups(x)
    s = xg.abs().amax(2, keepdim=True) * _f32(INV_448)
    q = torch.where(s == 0, xg, xg / s)
    return tg.quant_e4m3fn(q).reshape(x.shape), s.reshape(x.shape[0], -1)


def _mx_ebump(x):
    """R-EBUMP: s = max(amax, 1e-4) * fl(1/448), code E(s) + 1; codes
    clamp(x * 2^(127 - code), +-448)."""
    torch = tg.torch
    xg = _groups(x)
    s = torch.clamp(xg.abs().amax(2, keepdim=True), min=_f32(FLOOR)) * \
        _f32(INV_448)
    e = (s.view(torch.int32) >> 23) & 0xFF
    code = e + (e != 0).to(torch.int32)
    z = torch.clamp(xg * ((254 - code) << 23).view(torch.float32), -448, 448)
    return tg.quant_e4m3fn(z).reshape(x.shape), \
        code.reshape(x.shape[0], -1).to(torch.uint8)


def torch_golden(shape):
    torch = tg.torch
    a, inp = shape.attrs, shape.inputs
    x0 = tg.tensor(inp["x"]).float()
    c0 = tg.tensor(inp["cache"])
    slot = tg.tensor(inp["slot_mapping"]).long()
    if a["impl"] == "cr":
        s0 = tg.tensor(inp["cache_scale"])

        def fn_cr():
            cache, scale = c0.clone(), s0.clone()
            rows, sc = _mx_ebump(x0) if a["quant_mode"] == 0 else _blk128(x0)
            cache.index_put_((slot,), rows)
            scale.index_put_((slot,), sc)
            return {"cache": cache.numpy(), "cache_scale": scale.numpy()}
        return fn_cr, None
    blocks, bs, _, width = c0.shape
    d = x0.shape[1]

    def fn_va():
        cache = c0.clone().view(blocks, bs * width)
        rows, sc = _blk128(x0)
        b, p = slot // bs, slot % bs
        codes_at = b * (bs * width) + p * d
        scale_at = b * (bs * width) + bs * d + p * 4
        flat = cache.view(-1)
        cols = torch.arange(d)
        flat.index_put_((codes_at[:, None] + cols,), rows)
        sb = sc.contiguous().view(torch.uint8).view(-1, 4)
        flat.index_put_((scale_at[:, None] + torch.arange(4),), sb)
        return {"cache": cache.view(c0.shape).numpy()}
    return fn_va, None
