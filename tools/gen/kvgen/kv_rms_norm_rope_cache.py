"""KvRmsNormRopeCache golden: whole-tensor NumPy, independent of the C code.

The arithmetic is spec section 1 (kvgen/arith.py), the number formats spec
section 2 (kvgen/formats.py), the cache addressing spec section 3 and
docs/kv_rms_norm_rope_cache.md. Caches are scattered through NumPy views
of their memory: Norm [Bc, 1, Sc, D], PA flat slots [NB*BS, D], NZ
[NB, D/C0, BS, C0] with advanced indexing, never a per-token loop.
"""
import numpy as np

from . import arith, formats

F32 = np.float32
QUANT = ("int8", "hif8", "fp8_e5m2", "fp8_e4m3fn")
# elements per 32 bytes of each cache dtype
C0 = {"fp16": 16, "bf16": 16, "int8": 32, "hif8": 32, "fp8_e5m2": 32,
      "fp8_e4m3fn": 32}
# the integer view used to move cache elements around bit for bit
RAW = {"fp16": np.uint16, "bf16": np.uint16, "int8": np.uint8,
       "hif8": np.uint8, "fp8_e5m2": np.uint8, "fp8_e4m3fn": np.uint8}


def compute(kv, gamma, cos, sin, t, eps, order="pairwise"):
    """The binary32 RoPE and RmsNorm results r [B, S, Dk], y [B, S, Dv]."""
    x = formats.decode(t, kv)[:, 0]            # [B, S, Dv + Dk]
    g = formats.decode(t, gamma)
    dv = g.shape[0]
    y = arith.rms_norm(x[..., :dv], g, eps, order)
    c = formats.decode(t, cos)[:, 0]           # [B, S or 1, Dk]: broadcasts
    s = formats.decode(t, sin)[:, 0]
    r = arith.rope_interleave(x[..., dv:], c, s)
    return r, y


def cache_values(v, cache_dt, t, scale=None, offset=None, overflow="sat"):
    """What a cache stores for binary32 rows v: quantised codes
    (v * scale, then + offset, then narrowed) or v rounded to T. Finite
    inputs can still make a NaN here (an overflowed r or y times a zero
    scale): it is stored as the canonical NaN, as the operator does."""
    if cache_dt in QUANT:
        z = arith.scale_offset(v, np.asarray(scale, F32).reshape(-1),
                               None if offset is None
                               else np.asarray(offset, F32).reshape(-1),
                               op="mul")
        codes = formats.encode_output(cache_dt, z, overflow)
    else:
        codes = formats.encode_output(t, v)
    return np.ascontiguousarray(codes).view(RAW[cache_dt])


def targets(index, mode, b, s, bs):
    """(valid mask, page/batch, in-page slot) for every token [B, S]."""
    bb, ss = np.meshgrid(np.arange(b), np.arange(s), indexing="ij")
    if mode == "Norm":
        p = index.reshape(b, s)
        return p >= 0, bb, p
    if mode in ("PA_BLK_BNSD", "PA_BLK_NZ"):
        nb = -(-s // bs)
        v = index[bb * nb + ss // bs]
        return v >= 0, v // bs, ss % bs
    p = index.reshape(b, s)
    return p >= 0, p // bs, p % bs


def scatter(cache, cache_dt, vals, mode, index, bs):
    """A copy of `cache` (raw codes) with rows `vals` [B, S, D] written."""
    out = np.array(cache, copy=True).view(RAW[cache_dt])
    b, s, d = vals.shape
    ok, page, slot = targets(index, mode, b, s, bs)
    rows = vals[ok]
    if mode == "Norm":
        out[page[ok], 0, slot[ok], :] = rows
    elif mode.endswith("NZ"):
        c0 = C0[cache_dt]
        nz = out.reshape(out.shape[0], d // c0, bs, c0)
        nz[page[ok], :, slot[ok], :] = rows.reshape(-1, d // c0, c0)
    else:
        flat = out.reshape(-1, d)
        flat[page[ok] * bs + slot[ok]] = rows
    return out


def golden(inp, dts, mode, eps, is_output_kv, order="pairwise",
           overflow="sat"):
    """All outputs of one call. `inp` maps input names to storage arrays,
    `dts` input names to dtype tags. Returns {name: (array, tag)}."""
    t = dts["kv"]
    r, y = compute(inp["kv"], inp["gamma"], inp["cos"], inp["sin"], t, eps,
                   order)
    kdt, cdt = dts["k_cache"], dts["ckv_cache"]
    bs = inp["k_cache"].shape[1]
    kval = cache_values(r, kdt, t, inp.get("k_rope_scale"),
                        inp.get("k_rope_offset"), overflow)
    cval = cache_values(y, cdt, t, inp.get("c_kv_scale"),
                        inp.get("c_kv_offset"), overflow)
    res = {
        "k_cache": scatter(inp["k_cache"], kdt, kval, mode, inp["index"], bs),
        "ckv_cache": scatter(inp["ckv_cache"], cdt, cval, mode, inp["index"],
                             bs),
    }
    if is_output_kv:
        res["k_rope"] = formats.encode_output(t, r)[:, None]
        res["c_kv"] = formats.encode_output(t, y)[:, None]
    out = {}
    for name, arr in res.items():
        tag = dts.get(name, t)
        out[name] = (arr, tag)
    return out
