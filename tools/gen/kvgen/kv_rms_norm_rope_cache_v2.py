"""KvRmsNormRopeCache V2 golden (the optional input v): whole-tensor NumPy,
independent of the C code.

V2 (shared/spec/reference/kv_rms_norm_rope_cache_v2.md section 1): kv
[B, N, S, Dk] is normalised over all Dk channels, the first R normalised
channels (R = cos dim 3) are rotated by the interleaved RoPE, and the K row
is the rotated channels followed by the remaining normalised ones, all in
binary32. v [B, N, S, Dv] goes to ckv_cache as it is, or quantised from
its widened values; k_rope = T(K row), c_kv = v. In Norm mode the
outputs exist only when a cache is quantised: without one the A2/A3
tiling turns is_output_kv off and the NPU writes neither (the case
generator asks for none there). Every head of a token
shares the token's index entry. Caches carry the heads: Norm
[Bc, N, Sc, D], PA* [NB, BS, N, D], NZ pages [N, D/C0, BS, C0]; scales
and offsets are [N, D] (one row per head).
"""
import numpy as np

from . import arith, formats
from .kv_rms_norm_rope_cache import C0, QUANT, RAW, targets

F32 = np.float32


def compute(kv, gamma, cos, sin, t, eps, order="pairwise"):
    """The binary32 K rows kf [B, N, S, Dk]."""
    x = formats.decode(t, kv)
    y = arith.rms_norm(x, formats.decode(t, gamma), eps, order)
    c = formats.decode(t, cos)             # [B, N, S or 1, R]: broadcasts
    s = formats.decode(t, sin)
    r = c.shape[-1]
    rot = arith.rope_interleave(y[..., :r], c, s)
    return np.concatenate([rot, y[..., r:]], axis=-1).astype(F32)


def per_head(q, nh):
    """A scale / offset as [N, 1, D] to broadcast over [B, N, S, D]."""
    if q is None:
        return None
    q = np.asarray(q, F32)
    return q.reshape(nh, 1, q.shape[-1])


def k_values(kf, cache_dt, t, scale, offset, overflow):
    nh = kf.shape[1]
    if cache_dt in QUANT:
        z = arith.scale_offset(kf, per_head(scale, nh),
                               per_head(offset, nh), op="mul")
        codes = formats.encode_output(cache_dt, z, overflow)
    else:
        codes = formats.encode_output(t, kf)
    return np.ascontiguousarray(codes).view(RAW[cache_dt])


def v_values(v, cache_dt, t, scale, offset, overflow):
    """v unchanged (its own bits) or quantised from its binary32 values."""
    if cache_dt not in QUANT:
        return np.ascontiguousarray(v).view(RAW[cache_dt])
    nh = v.shape[1]
    z = arith.scale_offset(formats.decode(t, v), per_head(scale, nh),
                           per_head(offset, nh), op="mul")
    return np.ascontiguousarray(
        formats.encode_output(cache_dt, z, overflow)).view(RAW[cache_dt])


def scatter(cache, cache_dt, vals, mode, index, bs):
    """A copy of `cache` (raw codes) with vals [B, N, S, D] written: every
    head of token (b, s) goes where the token's index entry says."""
    out = np.array(cache, copy=True).view(RAW[cache_dt])
    b, nh, s, d = vals.shape
    ok, page, slot = targets(index, mode, b, s, bs)
    rows = vals.transpose(0, 2, 1, 3)[ok]          # [K, N, D]
    if mode == "Norm":
        out[page[ok], :, slot[ok], :] = rows
    elif mode.endswith("NZ"):
        c0 = C0[cache_dt]
        nz = out.reshape(out.shape[0], nh, d // c0, bs, c0)
        nz[page[ok], :, :, slot[ok], :] = rows.reshape(-1, nh, d // c0, c0)
    else:
        flat = out.reshape(-1, nh, d)
        flat[page[ok] * bs + slot[ok]] = rows
    return out


def golden(inp, dts, mode, eps, is_output_kv, order="pairwise",
           overflow="sat"):
    """All outputs of one V2 call, as kv_rms_norm_rope_cache.golden."""
    t = dts["kv"]
    if (is_output_kv and mode == "Norm" and dts["k_cache"] not in QUANT
            and dts["ckv_cache"] not in QUANT):
        raise ValueError("V2 Norm without a quantised cache writes no "
                         "k_rope / c_kv: is_output_kv has no effect there")
    kf = compute(inp["kv"], inp["gamma"], inp["cos"], inp["sin"], t, eps,
                 order)
    kdt, cdt = dts["k_cache"], dts["ckv_cache"]
    bs = inp["k_cache"].shape[1]
    kval = k_values(kf, kdt, t, inp.get("k_rope_scale"),
                    inp.get("k_rope_offset"), overflow)
    vval = v_values(inp["v"], cdt, t, inp.get("c_kv_scale"),
                    inp.get("c_kv_offset"), overflow)
    res = {
        "k_cache": scatter(inp["k_cache"], kdt, kval, mode, inp["index"], bs),
        "ckv_cache": scatter(inp["ckv_cache"], cdt, vval, mode, inp["index"],
                             bs),
    }
    if is_output_kv:
        res["k_rope"] = formats.encode_output(t, kf)
        res["c_kv"] = np.array(inp["v"], copy=True)
    return {name: (arr, dts.get(name, t)) for name, arr in res.items()}
