"""KvCompressEpilog's benchmark shapes (bench.py finds this module).

DeepSeek-V4's compressed KV: x bf16 [T, 576] (nope 512 + rope 64) packed
into one cache row per token, in the presets a deployment would pick:
ops-transformer mode 1 (fp8 nope, E8M0 scales, 648-byte rows) and mode 2
(hif8 rope, fp4 nope, bf16 scales, 352-byte rows) into a paged [blocks,
128, 1, row] cache; cann-recipes-infer v2 MXFP4 (all 576 columns, 352-byte
rows) into a 2-D cache; sgl-kernel-npu MXFP8 layout 2 (block-major: a
block's 128 value rows, then its 128 scale rows).
"""
import numpy as np

from kvgen import kv_compress_epilog as gen
from kvgen.formats import HIF8_VALUES

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes, i32, paged_slots, spread_slots

NAME = "KvCompressEpilog"
D = 576
BS = 128
INV_448 = 0x3B124925     # static_cast<float>(1.0f / 448)
INV_6 = 0x3E2AAAAB       # static_cast<float>(1.0f / 6)
FLOOR = 0x38D1B717       # static_cast<float>(1e-4)

# (impl, quant_mode, layout) -> (label, cache dtype, 4-D cache, row bytes)
PRESETS = {
    ("ot", 1, 1): ("ot mode 1 fp8+e8m0", "uint8", True, 648),
    ("ot", 2, 1): ("ot mode 2 hif8 rope+fp4", "uint8", True, 352),
    ("cr_v2", 4, 1): ("cr_v2 mxfp4", "uint8", False, 352),
    ("sgk", 2, 2): ("sgk mxfp8 layout 2", "fp8_e4m3fn", True, 648),
}


def make_shape(impl, mode, tokens, layout=1, prefill=True, grow=1,
               group="main"):
    """x of `tokens` DeepSeek-V4 rows into a cache of (tokens rounded up
    to blocks) x grow slots: a prefill's paged slots or a decode step's
    spread ones; the cache poisoned (random bytes, none zero)."""
    what, cdt, four, width = PRESETS[(impl, mode, layout)]
    rng = np.random.RandomState(9000 + tokens + 7 * mode + grow)
    x = codes(rng, "bf16", (tokens, D), -3, 2)
    blocks = -(-tokens // BS) * grow
    shape = (blocks, BS, 1, width) if four else (blocks * BS, width)
    cache = rng.randint(1, 256, size=int(np.prod(shape))).astype(
        np.uint8).reshape(shape)
    if prefill:
        slots = paged_slots(rng, tokens, BS, blocks)
    else:
        slots = spread_slots(rng, tokens, blocks * BS)
    # sgk narrows slots to int32; ot and cr_v2 read int64
    sl = i32(slots) if impl == "sgk" else T(slots.astype(np.int64), "int64")
    attrs = {"impl": impl, "quant_mode": mode, "layout": layout}
    inputs = {"x": T(x, "bf16"), "slot_mapping": sl,
              "cache": T(cache, cdt)}

    def golden():
        return {"cache": T(gen.golden(x, slots, cache, cdt, attrs), cdt)}

    label = "%s T %d d %d %s" % (what, tokens, D,
                                 "prefill" if prefill else "decode")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("kv_compress_epilog", label, tokens, inputs, golden, attrs,
                 group=group)


def main_shapes(quick):
    if quick:
        yield make_shape("ot", 1, 256, prefill=False)
        return
    yield make_shape("ot", 1, 256, prefill=False, grow=32)
    yield make_shape("ot", 1, 4096)
    yield make_shape("ot", 2, 4096)
    yield make_shape("cr_v2", 4, 4096)
    yield make_shape("sgk", 2, 4096, layout=2)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    for g in ((1, 16) if quick else (1, 16, 256)):
        yield make_shape("ot", 1, 64, prefill=False, grow=g, group="scaling")


# ---- the torch golden -------------------------------------------------------
#
# As a vendor golden without float8 would write it: fp32 arithmetic on
# `.float()` inputs, the scale's exponent and mantissa fields read from its
# int32 view, codes from frexp and a round to the format's grid, the rows
# assembled with `cat` and written with one `index_put_`.

def _f32(bits):
    torch = tg.torch
    return torch.tensor([bits], dtype=torch.int32).view(torch.float32)[0]


def _bytes(v16):
    """[T, n] int16 / bf16 -> [T, 2n] uint8, little-endian."""
    torch = tg.torch
    v = v16.view(torch.int16).to(torch.int32)
    return torch.stack((v & 0xFF, (v >> 8) & 0xFF), -1).reshape(
        v.shape[0], -1).to(torch.uint8)


def torch_cat(*parts):
    """Row pieces [T, n_i] uint8 side by side."""
    return tg.torch.cat(parts, 1)


def _mx_e4m3(xq, g, ebump):
    """fp8 e4m3fn codes and E8M0 codes of xq [T, q] in groups of g: s =
    max(amax, 1e-4) * (1/448); code E(s) + (M(s) != 0) (ot) or E(s) +
    (E(s) != 0) (sgk); x / 2^(code-127) clamped to +-448."""
    torch = tg.torch
    t, q = xq.shape
    xg = xq.reshape(t, q // g, g)
    s = torch.clamp(xg.abs().amax(2, keepdim=True), min=_f32(FLOOR)) * \
        _f32(INV_448)
    bits = s.view(torch.int32)
    e = (bits >> 23) & 0xFF
    code = e + ((e != 0) if ebump else ((bits & 0x7FFFFF) != 0)).to(
        torch.int32)
    z = torch.clamp(xg / (code << 23).view(torch.float32), -448.0, 448.0)
    return tg.quant_e4m3fn(z).reshape(t, q), code.reshape(t, -1).to(
        torch.uint8)


def _hif8(v):
    """HiFloat8 codes of v, rounded half away from zero in v's binade (3,
    2, 1, 0 mantissa bits as |exponent| <= 3, 7, 15, more), saturating,
    below 2^-23 to +0."""
    torch = tg.torch
    pos = np.arange(128)
    keep = np.isfinite(HIF8_VALUES[:128]) & (HIF8_VALUES[:128] > 0)
    order = np.argsort(HIF8_VALUES[:128][keep])
    vals = torch.from_numpy(HIF8_VALUES[:128][keep][order].astype(np.float32))
    cods = torch.from_numpy(pos[keep][order].astype(np.int64))
    a = v.abs()
    e = torch.frexp(a)[1] - 1
    m = e.abs()
    w = torch.where(m <= 3, 3, torch.where(m <= 7, 2, torch.where(m <= 15,
                                                                  1, 0)))
    r = torch.ldexp(torch.floor(torch.ldexp(a, w - e) + 0.5), e - w)
    r = torch.where(e == -23, torch.full_like(r, 2.0 ** -22), r)
    r = torch.clamp(r, max=32768.0)
    idx = torch.clamp(torch.searchsorted(vals, r), max=len(vals) - 1)
    mag = torch.where((e < -23) | (a == 0), torch.zeros_like(idx),
                      cods[idx])
    # one zero code: 0x80 is NaN, so a negative value rounding to 0 is +0
    sign = torch.where(torch.signbit(v) & (mag != 0), 0x80, 0)
    return (mag | sign).to(torch.uint8)


def _fp4_pairs(z):
    c = tg.fp4_codes(z)
    return (c[:, 0::2] | (c[:, 1::2] << 4)).to(tg.torch.uint8)


def _row_ot1(x0):
    nope, code = _mx_e4m3(x0[:, :D - 64].float(), 64, False)
    return torch_cat(_bytes(x0[:, D - 64:]), nope, code)


def _row_ot2(x0):
    """hif8 rope, FP4-AMAX6 nope in groups of 64, bf16 scales, pad to 32."""
    torch = tg.torch
    t = x0.shape[0]
    xg = x0[:, :D - 64].float().reshape(t, -1, 64)
    amax = xg.abs().amax(2, keepdim=True)
    scale = (amax * _f32(INV_6)).to(torch.bfloat16).reshape(t, -1)
    inv = torch.where(amax != 0, 6.0 / amax, torch.zeros_like(amax))
    inv = inv.to(torch.bfloat16).float()
    xq = torch.clamp((xg * inv).to(torch.bfloat16).float(), -6.0, 6.0)
    return torch_cat(_hif8(x0[:, D - 64:].float()),
                     _fp4_pairs(xq.reshape(t, -1)), _bytes(scale),
                     torch.zeros((t, 16), dtype=torch.uint8))


def _row_cr2_mxfp4(x0):
    """The bf16 exponent of each group's amax: scale (E - 2) << 7 (0 for E
    <= 2), payload x * bf16(0x7F00 - scale) (0 for E = 0) to fp4, pad to
    32."""
    torch = tg.torch
    t = x0.shape[0]
    mag = (x0.view(torch.int16).to(torch.int32) & 0x7FFF).reshape(t, -1, 32)
    e = mag.amax(2, keepdim=True) >> 7
    sbits = torch.where(e > 2, (e - 2) << 7, torch.zeros_like(e))
    mbits = torch.where(e == 0, torch.zeros_like(e), 0x7F00 - sbits)
    mult = mbits.to(torch.int16).view(torch.bfloat16).float()
    z = x0.float().reshape(t, -1, 32) * mult
    return torch_cat(_fp4_pairs(z.reshape(t, -1)),
                     _bytes(sbits.reshape(t, -1).to(torch.int16)),
                     torch.zeros((t, 28), dtype=torch.uint8))


def _put_rows(cache, rows, slot, width):
    cache.view(-1, width).index_put_((slot,), rows)


def _put_sgk_l2(cache, x0, slot):
    """Block-major: block b holds BS value rows [nope | rope] of 640 bytes,
    then BS scale rows [E8M0 x 4 | pad to 8]."""
    torch = tg.torch
    nope, code = _mx_e4m3(x0[:, :D - 64].float(), 128, True)
    t, vb = x0.shape[0], D - 64 + 128
    flat = cache.view(cache.shape[0], -1)
    vals = flat[:, :BS * vb].view(-1, BS, vb)
    scls = flat[:, BS * vb:BS * (vb + 8)].view(-1, BS, 8)
    at = (slot // BS, slot % BS)
    vals.index_put_(at, torch_cat(nope, _bytes(x0[:, D - 64:])))
    scls.index_put_(at, torch_cat(code, torch.zeros((t, 4),
                                                    dtype=torch.uint8)))


def torch_golden(shape):
    a, inp = shape.attrs, shape.inputs
    key = (a["impl"], a["quant_mode"], a["layout"])
    width = PRESETS[key][3]
    x0 = tg.tensor(inp["x"])
    c0 = tg.tensor(inp["cache"])
    slot = tg.tensor(inp["slot_mapping"]).long()
    rows = {("ot", 1, 1): _row_ot1, ("ot", 2, 1): _row_ot2,
            ("cr_v2", 4, 1): _row_cr2_mxfp4}.get(key)

    def fn():
        cache = c0.clone()
        if rows is None:
            _put_sgk_l2(cache, x0, slot)
        else:
            _put_rows(cache, rows(x0), slot, width)
        return {"cache": cache.numpy()}
    return fn, None
