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

Each operator's golden is `torch_golden(shape)` in its own shape module
(shapes/<op>.py), written with the helpers here; `make(shape)` returns
(fn, None) with fn() -> {output name: numpy array of raw codes}, or
(None, why) when there is no torch or no golden for the shape.
"""
import importlib

import numpy as np

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # NumPy stays the reference that needs nothing
    torch = None

RAW = {"fp16": np.int16, "bf16": np.int16, "int8": np.int8, "uint8": np.uint8,
       "fp8_e4m3fn": np.uint8, "fp8_e5m2": np.uint8, "hif8": np.uint8,
       "e8m0": np.uint8, "fp4_e2m1": np.uint8, "fp32": np.float32, "int32": np.int32, "int64": np.int64}


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
    code = code | (torch.signbit(z).to(torch.int32) << 7)
    return code.to(torch.uint8)


FP4_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def fp4_codes(z):
    """E2M1 codes of z, rint, saturating at 6, -0 for a negative zero."""
    a = z.abs()
    quantum = torch.where(a < 2.0, torch.full_like(a, 0.5),
                          torch.ldexp(torch.ones_like(a),
                                      torch.frexp(a)[1] - 2))
    q = torch.clamp(torch.round(a / quantum) * quantum, max=6.0)
    idx = torch.bucketize(q, torch.tensor(FP4_GRID))
    return (idx | (torch.signbit(z).to(torch.int64) << 3)).to(torch.uint8)


def quantise(z, tag):
    if tag == "int8":
        return quant_int8(z)
    if tag == "fp8_e4m3fn":
        return quant_e4m3fn(z)
    return None


def nz_put(cache, rows, index):
    """cache [BN, G, BS, C0] <- rows [tokens, G*C0] at slots index."""
    bn, g, bs, c0 = cache.shape
    cache.index_put_(((index // bs)[:, None], torch.arange(g)[None, :],
                      (index % bs)[:, None]), rows.reshape(-1, g, c0))


def paged_copy(shape, layout):
    """Copy each token's key / value row into its slot of a paged cache, ND
    ([blocks, BS, N, D] rows) or NZ: the torch golden of every paged copy
    operator's plain mode."""
    inp = shape.inputs
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


def make(shape):
    if torch is None:
        return None, "no torch"
    g = getattr(importlib.import_module("shapes." + shape.op),
                "torch_golden", None)
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
