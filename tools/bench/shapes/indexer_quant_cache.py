"""IndexerQuantCache's benchmark shapes (bench.py finds this module).

The DeepSeek-V3.2 / GLM-5 lightning indexer's K cache: x bf16 [T, 128]
(one indexer head of 128) into a paged cache [blocks, 128, 1, 128] and
its scale cache [blocks, 128, 1, scaleCol], in the modes a deployment
would pick: MX-FP8 (E8M0 per 32), Normal (fp8 and one fp32 scale a row)
and MX-FP4 (64 bytes of fp4 pairs, E8M0 per 32).
"""
import numpy as np

from kvgen import indexer_quant_cache as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes, i32, paged_slots, spread_slots

NAME = "IndexerQuantCache"
D = 128
BS = 128
INV_448 = 0x3B124925     # fl(1/448), base.h:40
FLOOR = 0x38D1B717       # fl(1e-4), base.h:242

# quant_mode -> (label, cache dtype, cache row bytes, scale dtype, scales)
MODES = {
    0: ("mxfp8 e4m3+e8m0", "fp8_e4m3fn", D, "e8m0", D // 32),
    1: ("fp8 e4m3+fp32", "fp8_e4m3fn", D, "fp32", 1),
    3: ("mxfp4 e2m1+e8m0", "fp4_e2m1", D // 2, "e8m0", D // 32),
}


def make_shape(mode, tokens, prefill=True, grow=1, group="main"):
    """x of `tokens` indexer rows into caches of (tokens rounded up to
    blocks) x grow slots: a prefill's paged slots or a decode step's
    spread ones; both caches poisoned (random bytes, none zero)."""
    what, cdt, width, sdt, scol = MODES[mode]
    rng = np.random.RandomState(3600 + tokens + 7 * mode + grow)
    x = codes(rng, "bf16", (tokens, D), -3, 2)
    blocks = -(-tokens // BS) * grow
    cache = rng.randint(1, 256, size=blocks * BS * width).astype(
        np.uint8).reshape(blocks, BS, 1, width)
    sbytes = scol * (4 if sdt == "fp32" else 1)
    scale = rng.randint(1, 256, size=blocks * BS * sbytes).astype(np.uint8)
    scale = (scale.view(np.float32) if sdt == "fp32" else scale).reshape(
        blocks, BS, 1, scol)
    if prefill:
        slots = paged_slots(rng, tokens, BS, blocks)
    else:
        slots = spread_slots(rng, tokens, blocks * BS)
    attrs = {"quant_mode": mode, "round_scale": True, "x_scale": 1.0}
    inputs = {"x": T(x, "bf16"), "slot_mapping": i32(slots),
              "cache": T(cache, cdt), "cache_scale": T(scale, sdt)}

    def golden():
        c, s = gen.golden(x, "bf16", slots, cache, cdt, scale, attrs)
        return {"cache": T(c, cdt), "cache_scale": T(s, sdt)}

    label = "%s T %d d %d %s" % (what, tokens, D,
                                 "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("indexer_quant_cache", label, tokens, inputs, golden, attrs,
                 group=group)


def main_shapes(quick):
    if quick:
        yield make_shape(0, 256, prefill=False)
        return
    yield make_shape(0, 256, prefill=False, grow=32)
    yield make_shape(0, 8192)
    yield make_shape(1, 8192)
    yield make_shape(3, 8192)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    for g in ((1, 16) if quick else (1, 16, 256)):
        yield make_shape(0, 64, prefill=False, grow=g, group="scaling")


# ---- the torch golden -------------------------------------------------------
#
# As a vendor golden without float8 would write it: fp32 arithmetic on
# `.float()` inputs, the scale's fields read from its int32 view, codes
# from the helpers' round to the format's grid, one `index_put_` a cache.

def _f32(bits):
    torch = tg.torch
    return torch.tensor([bits], dtype=torch.int32).view(torch.float32)[0]


def _mxfp8(x):
    """R-CEIL per 32: s = max(amax, 1e-4) * fl(1/448), code E(s) + (M(s)
    != 0), codes x * 2^(127 - code)."""
    torch = tg.torch
    t = x.shape[0]
    xg = x.reshape(t, -1, 32)
    s = torch.clamp(xg.abs().amax(2, keepdim=True), min=_f32(FLOOR)) * \
        _f32(INV_448)
    bits = s.view(torch.int32)
    code = ((bits >> 23) & 0xFF) + ((bits & 0x7FFFFF) != 0).to(torch.int32)
    z = xg * ((254 - code) << 23).view(torch.float32)
    return tg.quant_e4m3fn(z).reshape(t, -1), code.reshape(t, -1).to(
        torch.uint8)


def _normal(x):
    """One scale a row: s = rowmax * fl(1/448) rounded up to a power of
    two (round_scale), codes x * 2^-k (x kept for a zero row)."""
    torch = tg.torch
    s = x.abs().amax(1, keepdim=True) * _f32(INV_448)
    bits = s.view(torch.int32)
    e = (bits >> 23) + ((bits & 0x7FFFFF) != 0).to(torch.int32)
    sp = (e << 23).view(torch.float32)
    inv = ((254 - e) << 23).view(torch.float32)
    z = torch.where(s == 0, x, x * inv)
    return tg.quant_e4m3fn(z), sp


def _mxfp4(x0):
    """R-OCP on the bf16 exponent E of each group's amax: code max(E, 2)
    - 2, payload bf16(x) * 2^(127 - code) (0 where E = 0) to fp4 pairs."""
    torch = tg.torch
    t = x0.shape[0]
    mag = (x0.view(torch.int16).to(torch.int32) & 0x7FFF).reshape(t, -1, 32)
    e = mag.amax(2, keepdim=True) >> 7
    code = torch.clamp(e - 2, min=0)
    mbits = torch.where(e == 0, torch.zeros_like(e), 0x7F00 - (code << 7))
    mult = mbits.to(torch.int16).view(torch.bfloat16).float()
    z = (x0.float().reshape(t, -1, 32) * mult).reshape(t, -1)
    c = tg.fp4_codes(z)
    pairs = (c[:, 0::2] | (c[:, 1::2] << 4)).to(torch.uint8)
    return pairs, code.reshape(t, -1).to(torch.uint8)


def torch_golden(shape):
    a, inp = shape.attrs, shape.inputs
    mode = a["quant_mode"]
    x0 = tg.tensor(inp["x"])
    c0 = tg.tensor(inp["cache"])
    s0 = tg.tensor(inp["cache_scale"])
    slot = tg.tensor(inp["slot_mapping"]).long()

    def fn():
        cache, scale = c0.clone(), s0.clone()
        if mode == 0:
            rows, sc = _mxfp8(x0.float())
        elif mode == 1:
            rows, sc = _normal(x0.float())
        else:
            rows, sc = _mxfp4(x0)
        cache.view(-1, cache.shape[-1]).index_put_((slot,), rows)
        scale.view(-1, scale.shape[-1]).index_put_((slot,), sc)
        return {"cache": cache.numpy(), "cache_scale": scale.numpy()}
    return fn, None
