"""QkvRmsNormRopeCache's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import qkv_rms_norm_rope_cache as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import F32, Shape, T, codes, poison, positive, spread_slots

NAME = "QkvRmsNormRopeCache"


def make_shape(b, s, cache="int8", tag="bf16", nq=32, nk=8, bs=128, grow=1,
              one_block=False, group="main"):
    """QkvRmsNormRopeCache, D 128, PA_NZ caches of BlockSize bs. With
    grow > 1 the tokens' slots are spread over the whole cache, or with
    one_block all in consecutive slots of one random block (S <= bs)."""
    d, tokens = 128, b * s
    rng = np.random.RandomState(1000 + tokens + grow)
    n = nq + 2 * nk
    need = -(-s // bs) * b
    blocks = need * grow
    inp = {"qkv": T(codes(rng, tag, (tokens, n * d), -3, 2), tag),
           "q_gamma": T(positive(rng, tag, (d,), -1, 0), tag),
           "k_gamma": T(positive(rng, tag, (d,), -1, 0), tag),
           "cos": T(codes(rng, tag, (tokens, d), -8, -1), tag),
           "sin": T(codes(rng, tag, (tokens, d), -8, -1), tag)}
    if one_block:
        idx = rng.randint(0, blocks) * bs + np.arange(tokens)
    elif grow == 1:
        # a shuffled block table: batch b owns ceil(S/BS) random blocks
        per = -(-s // bs)
        table = rng.permutation(blocks)[:b * per].reshape(b, per)
        tok = np.arange(s)
        idx = (table[:, tok // bs] * bs + (tok % bs)[None, :]).reshape(-1)
    else:
        idx = spread_slots(rng, tokens, blocks * bs)
    inp["index"] = T(idx.astype(np.int64), "int64")
    inp["q_out"] = T(poison(rng, tag, (tokens, nq * d)), tag)
    c0 = 32 if cache == "int8" else 16
    for name in ("k_cache", "v_cache"):
        inp[name] = T(poison(rng, cache, (blocks, nk * d // c0, bs, c0)),
                      cache)
    if cache == "int8":
        inp["k_scale"] = T(rng.uniform(0.004, 0.05, (nk, d)).astype(F32),
                           "fp32")
        inp["v_scale"] = T(rng.uniform(0.004, 0.05, (nk, d)).astype(F32),
                           "fp32")
    attrs = {"qkv_size": [b, s, n, d], "head_nums": [nq, nk, nk],
             "cache_mode": "PA_NZ"}

    def golden():
        with np.errstate(over="ignore", invalid="ignore"):
            return gen.golden(inp, attrs, {})

    label = "B %d S %d Nq %d Nk %d D 128 %s->%s BS %d" % (b, s, nq, nk, tag,
                                                          cache, bs)
    if grow > 1:
        label += " cache x%d" % grow
    if one_block:
        label += ", one block"
    return Shape("qkv_rms_norm_rope_cache", label, tokens, inp, golden,
                 attrs, group=group)


def main_shapes(quick):
    """The issue's shapes, built one at a time as the run reaches them."""
    if quick:
        yield make_shape(64, 1)
        return
    for b, s in ((1, 1), (64, 1), (1, 1024), (1, 8192)):
        yield make_shape(b, s)
    yield make_shape(1, 1024, cache="bf16")


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    grows = (1, 16) if quick else (1, 16, 256)
    for g in grows:
        yield make_shape(1, 64, grow=g, group="scaling")
    # the control: the largest cache, every write in one block
    yield make_shape(1, 64, grow=grows[-1], one_block=True, group="scaling")


def torch_golden(shape):
    a, inp = shape.attrs, shape.inputs
    b, s, n, d = a["qkv_size"]
    nq, nk, nv = a["head_nums"]
    eps = a.get("epsilon", 1e-6)
    ctag = inp["k_cache"].dtype
    if ctag not in ("int8", "bf16", "fp16") or a.get("is_output_qkv"):
        return None, "no torch golden for this QkvRmsNormRopeCache"
    qkv, qg, kg, cos, sin = (tg.tensor(inp[m]) for m in (
        "qkv", "q_gamma", "k_gamma", "cos", "sin"))
    index = tg.tensor(inp["index"])
    kc0, vc0 = tg.tensor(inp["k_cache"]), tg.tensor(inp["v_cache"])
    ks = tg.tensor(inp["k_scale"]) if "k_scale" in inp else None
    vs = tg.tensor(inp["v_scale"]) if "v_scale" in inp else None
    tokens = b * s

    def fn():
        x = qkv.float().view(tokens, n, d)
        c, si = cos.float()[:, None], sin.float()[:, None]
        q, k, v = x[:, :nq], x[:, nq:nq + nk], x[:, nq + nk:]
        q = tg.rms_norm(q, qg.float(), eps)
        q = q * c + tg.rotate_half(q) * si
        k = tg.rms_norm(k, kg.float(), eps)
        k = k * c + tg.rotate_half(k) * si
        q_out = q.to(qkv.dtype).reshape(tokens, nq * d)
        kc, vc = kc0.clone(), vc0.clone()
        if ctag == "int8":
            kq, vq = tg.quant_int8(k / ks), tg.quant_int8(v / vs)
        else:
            kq, vq = k.to(kc.dtype), v.to(vc.dtype)
        tg.nz_put(kc, kq.reshape(tokens, -1), index)
        tg.nz_put(vc, vq.reshape(tokens, -1), index)
        return {"q_out": tg.raw(q_out), "k_cache": tg.raw(kc),
                "v_cache": tg.raw(vc)}
    return fn, None
