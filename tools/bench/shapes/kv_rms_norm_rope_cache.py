"""KvRmsNormRopeCache's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import kv_rms_norm_rope_cache as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import (F32, STORE, Shape, T, codes, paged_slots, poison,
                      positive, spread_slots)

NAME = "KvRmsNormRopeCache"


def make_shape(b, s, mode, cache, tag="bf16", bs=128, out=False, grow=1,
             group="main"):
    """KvRmsNormRopeCache, DeepSeek MLA: Dv 512, Dk 64, both caches `cache`
    (int8 or fp8_e4m3fn), per-channel scales, Ascend 950 profile."""
    dv, dk, tokens = 512, 64, b * s
    rng = np.random.RandomState(2000 + tokens + grow + len(mode))
    blk = mode.startswith("PA_BLK")
    nb = -(-s // bs)
    blocks = (b * nb if blk else -(-tokens // bs)) * grow
    inp = {"kv": codes(rng, tag, (b, 1, s, dv + dk), -3, 2),
           "gamma": positive(rng, tag, (dv,), -1, 0),
           "cos": codes(rng, tag, (b, 1, s, dk), -8, -1),
           "sin": codes(rng, tag, (b, 1, s, dk), -8, -1)}
    if blk:
        idx = rng.permutation(blocks)[:b * nb] * bs
    elif s > 1 and grow == 1:
        idx = paged_slots(rng, tokens, bs, blocks)
    else:
        idx = spread_slots(rng, tokens, blocks * bs)
    inp["index"] = idx.astype(np.int64)
    inp["k_cache"] = poison(rng, cache, (blocks, bs, 1, dk))
    inp["ckv_cache"] = poison(rng, cache, (blocks, bs, 1, dv))
    lo, hi = (10.0, 40.0) if cache == "int8" else (20.0, 100.0)
    inp["k_rope_scale"] = rng.uniform(lo, hi, dk).astype(F32)
    inp["c_kv_scale"] = rng.uniform(lo, hi, dv).astype(F32)
    dts = {"kv": tag, "gamma": tag, "cos": tag, "sin": tag, "index": "int64",
           "k_cache": cache, "ckv_cache": cache, "k_rope_scale": "fp32",
           "c_kv_scale": "fp32"}
    inputs = {n: T(a, dts[n]) for n, a in inp.items()}
    attrs = {"epsilon": 1e-6, "cache_mode": mode}
    if out:
        attrs["is_output_kv"] = True

    def golden():
        # "PA" is the aclnn spelling of PA_BNSD
        res = gen.golden(inp, dts, "PA_BNSD" if mode == "PA" else mode,
                          1e-6, out)
        return {n: T(a.view(STORE[tag_]), tag_)
                for n, (a, tag_) in res.items()}

    label = "Bkv %d Skv %d Dv 512 Dk 64 %s %s %s BS %d%s" % (
        b, s, mode, tag, cache, bs, " out" if out else "")
    if grow > 1:
        label += " cache x%d" % grow
    return Shape("kv_rms_norm_rope_cache", label, tokens, inputs, golden,
                 attrs, group=group)


def main_shapes(quick):
    """The issue's shapes, built one at a time as the run reaches them."""
    if quick:
        yield make_shape(64, 1, "PA_BLK_NZ", "int8")
        return
    for b in (64, 128, 256):
        for mode in ("PA_BLK_NZ", "PA"):
            for cache in ("int8", "fp8_e4m3fn"):
                yield make_shape(b, 1, mode, cache)
    for mode in ("PA_BLK_NZ", "PA"):
        for cache in ("int8", "fp8_e4m3fn"):
            yield make_shape(1, 4096, mode, cache, out=True)


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield make_shape(64, 1, "PA", "int8", grow=g, group="scaling")


def torch_golden(shape):
    a, inp = shape.attrs, shape.inputs
    mode, eps = a["cache_mode"], a["epsilon"]
    out_kv = a.get("is_output_kv", False)
    ktag, ctag = inp["k_cache"].dtype, inp["ckv_cache"].dtype
    if tg.quantise(tg.torch.zeros(1), ktag) is None or "k_rope_offset" in inp:
        return None, "no torch golden for %s caches" % ktag
    if mode not in ("PA", "PA_BLK_NZ"):
        return None, "no torch golden for %s" % mode
    kv, gamma, cos, sin = (tg.tensor(inp[n]) for n in ("kv", "gamma", "cos",
                                                    "sin"))
    index = tg.tensor(inp["index"])
    kc0, cc0 = tg.tensor(inp["k_cache"]), tg.tensor(inp["ckv_cache"])
    kscale = tg.tensor(inp["k_rope_scale"])
    cscale = tg.tensor(inp["c_kv_scale"])
    dv = gamma.shape[0]
    bs = kc0.shape[1]

    def fn():
        x = kv.float()[:, 0]                     # [B, S, Dv + Dk]
        b, s, _ = x.shape
        y = tg.rms_norm(x[..., :dv], gamma.float(), eps)
        xr = x[..., dv:]
        xr = tg.torch.cat((xr[..., 0::2], xr[..., 1::2]), dim=-1)
        r = xr * cos.float()[:, 0] + tg.rotate_half(xr) * sin.float()[:, 0]
        kq = tg.quantise(r * kscale, ktag).reshape(b * s, -1)
        cq = tg.quantise(y * cscale, ctag).reshape(b * s, -1)
        kc, cc = kc0.clone(), cc0.clone()
        if mode == "PA":
            kc.view(-1, kq.shape[1]).index_put_((index,), kq)
            cc.view(-1, cq.shape[1]).index_put_((index,), cq)
        else:                                    # PA_BLK_NZ
            nb = -(-s // bs)
            pos = tg.torch.arange(s)
            first = index.view(b, nb)[:, pos // bs].reshape(-1)
            page, slot = first // bs, (pos % bs).repeat(b)
            for c, q in ((kc, kq), (cc, cq)):
                g = q.shape[1] // 32
                nz = c.view(c.shape[0], g, bs, 32)
                nz.index_put_((page[:, None], tg.torch.arange(g)[None, :],
                               slot[:, None]), q.view(-1, g, 32))
        res = {"k_cache": tg.raw(kc), "ckv_cache": tg.raw(cc)}
        if out_kv:
            res["k_rope"] = tg.raw(r.to(kv.dtype))[:, None]
            res["c_kv"] = tg.raw(y.to(kv.dtype))[:, None]
        return res
    return fn, None
