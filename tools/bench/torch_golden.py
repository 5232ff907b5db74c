"""The plain PyTorch CPU goldens bench.py times as a peer of the C operators.

Written as the vendor's own goldens are (ops-transformer / op-plugin test
goldens): the inputs widened to float32 with `.float()`, RmsNorm as
`x / sqrt(mean(x^2) + eps) * gamma`, RoPE with `rotate_half`, quantisation as
`round` then `clamp` then `.to(int8)`, and the cache writes as one
`index_put_` on a clone of each cache. One thread (torch.set_num_threads(1)),
as the C side runs.

These are a speed reference, not the contract: torch's `mean` sums in its
own order, so an output may differ from the NumPy golden (tools/gen/kvgen)
in the last bit of a few rms values and so in the odd quantised code; bench.py
reports how many output elements differ from it, and checks the C operator
against the NumPy golden only.

torch 1.13 (Debian's python3-torch) has no float8 dtype: fp8 e4m3fn cache
codes are made the way a golden without float8 would, with frexp, a round to
the format's grid and integer bit moves on the rounded value.

`make(shape)` returns (fn, None) with fn() -> {output name: numpy array of
raw codes}, or (None, why) when there is no torch or no golden for the shape.
"""
import numpy as np

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # NumPy stays the reference that needs nothing
    torch = None

RAW = {"fp16": np.int16, "bf16": np.int16, "int8": np.int8,
       "fp8_e4m3fn": np.uint8, "fp8_e5m2": np.uint8, "hif8": np.uint8,
       "fp32": np.float32, "int32": np.int32, "int64": np.int64}


def available():
    return torch is not None


def version():
    return torch.__version__ if torch is not None else None


def tensor(t):
    """A torch tensor of a kvgen T: fp16/bf16 as their torch dtypes, 8-bit
    formats as raw codes, the rest as they are."""
    a = np.ascontiguousarray(t.array)
    if t.dtype == "bf16":
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    if t.dtype == "fp16":
        return torch.from_numpy(a.view(np.float16).copy())
    return torch.from_numpy(a.view(RAW[t.dtype]).copy())


def raw(x):
    """A torch result as numpy raw codes (bit patterns)."""
    if x.dtype == torch.bfloat16:
        return x.view(torch.int16).numpy()
    if x.dtype == torch.float16:
        return x.view(torch.int16).numpy()
    return x.numpy()


def rms_norm(x, gamma, eps):
    rms = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return x / rms * gamma


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def quant_int8(z):
    return torch.clamp(torch.round(z), -128, 127).to(torch.int8)


def quant_e4m3fn(z):
    """fp8 e4m3fn codes of z (saturating at 448, RNE), without float8."""
    a = z.abs().clamp(max=448.0)
    _, e = torch.frexp(a)                       # a in [2^(e-1), 2^e)
    quantum = torch.ldexp(torch.ones_like(a),
                          torch.clamp(e - 1, min=-6) - 3)
    q = torch.round(a / quantum) * quantum
    bits = q.view(torch.int32)
    normal = (((bits >> 23) - 120) << 3) | ((bits >> 20) & 7)
    sub = (q * 512.0).to(torch.int32)
    code = torch.where(q >= 2.0 ** -6, normal, sub)
    code = code | ((z < 0).to(torch.int32) << 7)
    return code.to(torch.uint8)


def quantise(z, tag):
    if tag == "int8":
        return quant_int8(z)
    if tag == "fp8_e4m3fn":
        return quant_e4m3fn(z)
    return None


def kv_rms_norm_rope_cache(shape):
    a, inp = shape.attrs, shape.inputs
    mode, eps = a["cache_mode"], a["epsilon"]
    out_kv = a.get("is_output_kv", False)
    ktag, ctag = inp["k_cache"].dtype, inp["ckv_cache"].dtype
    if quantise(torch.zeros(1), ktag) is None or "k_rope_offset" in inp:
        return None, "no torch golden for %s caches" % ktag
    if mode not in ("PA", "PA_BLK_NZ"):
        return None, "no torch golden for %s" % mode
    kv, gamma, cos, sin = (tensor(inp[n]) for n in ("kv", "gamma", "cos",
                                                    "sin"))
    index = tensor(inp["index"])
    kc0, cc0 = tensor(inp["k_cache"]), tensor(inp["ckv_cache"])
    kscale, cscale = tensor(inp["k_rope_scale"]), tensor(inp["c_kv_scale"])
    dv = gamma.shape[0]
    bs = kc0.shape[1]

    def fn():
        x = kv.float()[:, 0]                     # [B, S, Dv + Dk]
        b, s, _ = x.shape
        y = rms_norm(x[..., :dv], gamma.float(), eps)
        xr = x[..., dv:]
        xr = torch.cat((xr[..., 0::2], xr[..., 1::2]), dim=-1)
        r = xr * cos.float()[:, 0] + rotate_half(xr) * sin.float()[:, 0]
        kq = quantise(r * kscale, ktag).reshape(b * s, -1)
        cq = quantise(y * cscale, ctag).reshape(b * s, -1)
        kc, cc = kc0.clone(), cc0.clone()
        if mode == "PA":
            kc.view(-1, kq.shape[1]).index_put_((index,), kq)
            cc.view(-1, cq.shape[1]).index_put_((index,), cq)
        else:                                    # PA_BLK_NZ
            nb = -(-s // bs)
            pos = torch.arange(s)
            first = index.view(b, nb)[:, pos // bs].reshape(-1)
            page, slot = first // bs, (pos % bs).repeat(b)
            for c, q in ((kc, kq), (cc, cq)):
                g = q.shape[1] // 32
                nz = c.view(c.shape[0], g, bs, 32)
                nz.index_put_((page[:, None], torch.arange(g)[None, :],
                               slot[:, None]), q.view(-1, g, 32))
        res = {"k_cache": raw(kc), "ckv_cache": raw(cc)}
        if out_kv:
            res["k_rope"] = raw(r.to(kv.dtype))[:, None]
            res["c_kv"] = raw(y.to(kv.dtype))[:, None]
        return res
    return fn, None


def nz_put(cache, rows, index):
    """cache [BN, G, BS, C0] <- rows [tokens, G*C0] at slots index."""
    bn, g, bs, c0 = cache.shape
    cache.index_put_(((index // bs)[:, None], torch.arange(g)[None, :],
                      (index % bs)[:, None]), rows.reshape(-1, g, c0))


def qkv_rms_norm_rope_cache(shape):
    a, inp = shape.attrs, shape.inputs
    b, s, n, d = a["qkv_size"]
    nq, nk, nv = a["head_nums"]
    eps = a.get("epsilon", 1e-6)
    ctag = inp["k_cache"].dtype
    if ctag not in ("int8", "bf16", "fp16") or a.get("is_output_qkv"):
        return None, "no torch golden for this QkvRmsNormRopeCache"
    qkv, qg, kg, cos, sin = (tensor(inp[m]) for m in (
        "qkv", "q_gamma", "k_gamma", "cos", "sin"))
    index = tensor(inp["index"])
    kc0, vc0 = tensor(inp["k_cache"]), tensor(inp["v_cache"])
    ks = tensor(inp["k_scale"]) if "k_scale" in inp else None
    vs = tensor(inp["v_scale"]) if "v_scale" in inp else None
    tokens = b * s

    def fn():
        x = qkv.float().view(tokens, n, d)
        c, si = cos.float()[:, None], sin.float()[:, None]
        q, k, v = x[:, :nq], x[:, nq:nq + nk], x[:, nq + nk:]
        q = rms_norm(q, qg.float(), eps)
        q = q * c + rotate_half(q) * si
        k = rms_norm(k, kg.float(), eps)
        k = k * c + rotate_half(k) * si
        q_out = q.to(qkv.dtype).reshape(tokens, nq * d)
        kc, vc = kc0.clone(), vc0.clone()
        if ctag == "int8":
            kq, vq = quant_int8(k / ks), quant_int8(v / vs)
        else:
            kq, vq = k.to(kc.dtype), v.to(vc.dtype)
        nz_put(kc, kq.reshape(tokens, -1), index)
        nz_put(vc, vq.reshape(tokens, -1), index)
        return {"q_out": raw(q_out), "k_cache": raw(kc), "v_cache": raw(vc)}
    return fn, None


def reshape_and_cache(shape, layout=None):
    inp = shape.inputs
    layout = layout or shape.attrs.get("cache_layout", "ND")
    key, value = tensor(inp["key"]), tensor(inp["value"])
    kc0, vc0 = tensor(inp["key_cache"]), tensor(inp["value_cache"])
    slot = tensor(inp["slot_mapping"]).long()

    def fn():
        kc, vc = kc0.clone(), vc0.clone()
        t = key.shape[0]
        if layout == "ND":
            kc.view(-1, key[0].numel()).index_put_((slot,), key.view(t, -1))
            vc.view(-1, value[0].numel()).index_put_((slot,),
                                                     value.view(t, -1))
        else:
            nz_put(kc, key.view(t, -1), slot)
            nz_put(vc, value.view(t, -1), slot)
        return {"key_cache": raw(kc), "value_cache": raw(vc)}
    return fn, None


def reshape_and_cache_omni(shape):
    inp = shape.inputs
    key, value = tensor(inp["key"]), tensor(inp["value"])
    kc0, vc0 = tensor(inp["key_cache"]), tensor(inp["value_cache"])
    slot, wins, seq, offs = (tensor(inp[m]).long() for m in (
        "slot_mapping", "wins", "seq_len", "offset_index"))
    heads, d = key.shape[1], key.shape[2]

    def fn():
        L = seq.repeat_interleave(heads)
        base = (torch.cumsum(seq, 0) - seq).repeat_interleave(heads)
        active = (offs != -1) & (wins != 0)
        counts = torch.where(active, L - wins, L)
        owner = torch.arange(counts.numel()).repeat_interleave(counts)
        k = torch.arange(owner.numel()) - (torch.cumsum(counts, 0) -
                                           counts)[owner]
        cut = torch.where(active, offs, L)[owner]
        skip = torch.where(active, wins, torch.zeros_like(wins))[owner]
        j = torch.where(k < cut, k, k + skip)
        src = (base[owner] + j) * heads + owner % heads
        dst = slot[owner] + k
        kc, vc = kc0.clone(), vc0.clone()
        kc.view(-1, d).index_put_((dst,), key.view(-1, d)[src])
        vc.view(-1, d).index_put_((dst,), value.view(-1, d)[src])
        return {"key_cache": raw(kc), "value_cache": raw(vc)}
    return fn, None


def scatter_pa_kv_cache(shape):
    """Its benchmark's two cache modes are ReshapeAndCache's two layouts:
    Norm writes rows of a [blocks, BS, N, D] cache, PA_NZ the NZ runs."""
    mode = shape.attrs.get("cache_mode", "Norm")
    if mode not in ("Norm", "PA_NZ"):
        return None, "no torch golden for ScatterPaKvCache " + mode
    return reshape_and_cache(shape, "ND" if mode == "Norm" else "NZ")


GOLDENS = {"kv_rms_norm_rope_cache": kv_rms_norm_rope_cache,
           "qkv_rms_norm_rope_cache": qkv_rms_norm_rope_cache,
           "reshape_and_cache": reshape_and_cache,
           "reshape_and_cache_omni": reshape_and_cache_omni,
           "scatter_pa_kv_cache": scatter_pa_kv_cache}


def make(shape):
    if torch is None:
        return None, "no torch"
    g = GOLDENS.get(shape.op)
    if g is None:
        return None, "no torch golden for " + shape.op
    return g(shape)


def differing(got, expected):
    """How many output elements (of every output both have) differ in their
    bits from the NumPy golden's; None if an output's size differs."""
    diff = 0
    for name, arr in got.items():
        if name not in expected:
            continue
        e = np.ascontiguousarray(expected[name].array)
        g = np.ascontiguousarray(arr).reshape(-1)
        e = e.view("u%d" % e.dtype.itemsize).reshape(-1)
        g = g.view("u%d" % g.dtype.itemsize)
        if g.size != e.size:
            return None
        diff += int(np.count_nonzero(g != e))
    return diff
