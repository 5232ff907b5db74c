"""concat_and_cache_ds_mla golden: the packed C8 MLA cache row (656 B per
token), both presets, independent of the C.

Written from the two writers' sources (cited in
docs/concat_and_cache_ds_mla.md) and from kvgen's own models, never from
kvgold's C:

- "ascend-sfa-c8" (vllm-ascend sfa_v1.py custom_kv_rmsnorm_rope +
  npu_scatter_nd_update_): y = bf16(RmsNorm(kv_c, gamma)) in the form
  ops-nn's rms_norm kernels compute (rms_norm_rstd below: a multiply by
  rstd = 1 / sqrt(mean + eps), the sum of squares in kvgen.arith's reduce
  orders), rope = bf16(interleaved RoPE(k_pe, cos, sin)) with
  kvgen.arith.rope_interleave, then the 1 x 128 block quant of y with
  kvgen.amax_block_quant (docs/dynamic_block_quant.md; profile a2a3 for an
  int8 cache, ascend950 for an e4m3 cache). Row [q 512 | rope bf16 128 B |
  4 fp32 dequant scales].
- "vllm-fp8_ds_mla" (vLLM concat_and_cache_ds_mla_kernel): no norm, no
  rope. Per 128-tile s = max(amax / 448, FLT_MIN) by true division, q =
  e4m3fn(x / s) RNE saturating (kvgen.formats' encoder). Row [q 512 | 4
  fp32 scales | k_pe bf16 128 B]. The call's `scale` tensor is read by
  concat_and_cache_mla and never by the kernel: not an input of the
  model. With attribute use_ue8m0 (vLLM PR #49435; FlashMLA@520fec6a
  tests/quant.py:17-18, :35-53, its V32_FP8Sparse branch, the same row):
  s = 2^k, k the least integer with 2^k >= max(fl(amax / 448), fl(1e-4)),
  stored as fp32, q = e4m3fn(x / 2^k) - flashmla-model1's rule, imported
  from kvgen.concat_and_cache_ds_mla_model1 (scale_exponent, pow2_codes),
  on 128-tiles.

Every product and quotient is one np.float32 ufunc (one binary32 rounding);
the row is placed at slot s of cache.view(-1, 656) (a [blocks, block_size,
656] cache is contiguous, so block s // bs, row s % bs is the same byte).
Only valid calls are modelled; refusals are the operator's business.
"""
import numpy as np

from . import amax_block_quant as abq
from . import arith, formats
from . import concat_and_cache_ds_mla_model1 as pow2

F32 = np.float32
NOPE, ROPE, TILE = 512, 64, 128
ROW = NOPE + 2 * ROPE + 4 * (NOPE // TILE)      # 656
FLT_MIN = F32(2.0 ** -126)
E4M3_MAX = F32(448.0)
PRESETS = ("ascend-sfa-c8", "vllm-fp8_ds_mla")
DEFAULTS = {"preset": "ascend-sfa-c8", "epsilon": 1e-5,
            "reduce_order": "pairwise"}


def seg(name, field, dtype, offset, nbytes, group=0):
    return {"name": name, "field": field, "dtype": dtype, "offset": offset,
            "bytes": nbytes, "group": group}


def row_map(preset, payload):
    """The byte map of one 656-byte row (no pad: every byte is written)."""
    nope = seg("nope", "PAYLOAD", payload, 0, NOPE, TILE)
    if preset == "ascend-sfa-c8":
        return [nope, seg("rope", "COPY", "bf16", NOPE, 2 * ROPE),
                seg("scale", "SCALE", "fp32", NOPE + 2 * ROPE, 16)]
    return [nope, seg("scale", "SCALE", "fp32", NOPE, 16),
            seg("rope", "COPY", "bf16", NOPE + 16, 2 * ROPE)]


def profile_of(cache_tag):
    """DBQ profile of the Ascend preset, chosen by the cache dtype: A3
    writes int8 (a2a3), A5 e4m3 (ascend950) (sfa_v1.py:544-549)."""
    return "a2a3" if cache_tag == "int8" else "ascend950"


def le_bytes(a, dtype):
    """[T, k] values as little-endian bytes [T, k * itemsize]."""
    a = np.ascontiguousarray(np.asarray(a).astype(dtype))
    return a.view(np.uint8).reshape(a.shape[0], -1)


# ---- ascend-sfa-c8 --------------------------------------------------------

def rms_norm_rstd(x, gamma, eps, order="pairwise"):
    """y = (x * rstd) * gamma, rstd = 1 / sqrt(sum(x^2) * fl(1/n) + eps),
    each step one binary32 rounding: hicann/ops-nn@e5c3fa93
    norm/rms_norm/op_kernel rms_norm_single_row.h ComputeMixDtype
    (`rstdValue = 1 / sqrt(reduceOut * avgFactor + epsilon)`, `Muls(x, x,
    rstdValue)`, `Mul(x, x, gamma)`), likewise rms_norm.h and
    rms_norm_merge_n.h; rms_norm_whole_reduce_sum.h ComputeRstd and
    arch35 rms_norm_regbase_common.h ComputeRstd do the same as vector
    ops (Muls avg, Adds eps, Sqrt, Div of ones). A multiply by the
    reciprocal, not kvgen.arith.rms_norm's division by the rms
    (docs/kv_rms_norm_rope_cache.md)."""
    x = np.asarray(x, dtype=F32)
    inv_n = F32(1.0) / F32(x.shape[-1])
    mean = arith.sum_squares(x, order) * inv_n
    rstd = F32(1.0) / np.sqrt(mean + F32(eps))
    return (x * rstd[..., None]) * np.asarray(gamma, dtype=F32)


def ascend_front(kv_c, k_pe, gamma, cos, sin, eps, order,
                 norm=rms_norm_rstd):
    """(y bf16 codes [T, 512], rope bf16 codes [T, 64]): npu_rms_norm and
    npu_interleave_rope return the input dtype, so both are rounded to
    bf16 before the block quant sees y. `norm` is the RmsNorm form (the
    case list passes kvgen.arith.rms_norm only to show that a case tells
    the forms apart)."""
    x = formats.bf16_decode(kv_c).astype(F32)
    g = formats.bf16_decode(gamma).astype(F32)
    y = norm(x, g, F32(eps), order)
    r = arith.rope_interleave(formats.bf16_decode(k_pe).astype(F32),
                              formats.bf16_decode(cos).astype(F32),
                              formats.bf16_decode(sin).astype(F32))
    return (formats.encode_output("bf16", y.astype(F32)),
            formats.encode_output("bf16", r.astype(F32)))


def dbq_attrs(cache_tag):
    """The block quant call's arguments (dst_type, row_block_size=1,
    col_block_size=128) as sfa_v1.py:1725-1730 passes them."""
    return {"min_scale": 0.0, "round_mode": "rint",
            "dst_type": "int8" if cache_tag == "int8" else "fp8_e4m3fn",
            "row_block_size": 1, "col_block_size": TILE,
            "dst_type_max": 0.0}


def ascend_segments(ins, attrs, cache_tag, norm=rms_norm_rstd):
    y, rope = ascend_front(ins["kv_c"], ins["k_pe"], ins["gamma"],
                           ins["cos"], ins["sin"], attrs["epsilon"],
                           attrs["reduce_order"], norm)
    q, scale = abq.golden(y, "bf16", dbq_attrs(cache_tag),
                          profile_of(cache_tag))
    return {"nope": np.ascontiguousarray(q).view(np.uint8),
            "rope": le_bytes(rope, "<u2"),
            "scale": le_bytes(scale.view(np.uint32), "<u4")}


# ---- vllm-fp8_ds_mla ------------------------------------------------------

def ds_mla_scales(x):
    """x [T, 512] float32 -> per-tile scales [T, 4]: the kernel's
    fmaxf(max_abs / 448.f, FLT_MIN) (cache_kernels.cu), amax exact in
    float32 (|bf16| widened)."""
    amax = np.abs(x.reshape(x.shape[0], -1, TILE)).max(axis=2).astype(F32)
    return np.maximum((amax / E4M3_MAX).astype(F32), FLT_MIN).astype(F32)


def ue8m0_quant(x):
    """x [T, 512] float32 (finite) -> (codes uint8 [T, 512], scales
    float32 [T, 4]): use_ue8m0's power-of-two tile scales, flashmla-model1's
    rule (its scale_exponent and pow2_codes) on 128-tiles."""
    t = x.shape[0]
    tiles = x.reshape(t, -1, TILE)
    k = pow2.scale_exponent(np.abs(tiles).max(axis=2))
    return (pow2.pow2_codes(tiles, k).reshape(t, NOPE),
            pow2.pow2_scale(k))


def ds_mla_segments(ins, use_ue8m0=False):
    x = formats.bf16_decode(ins["kv_c"]).astype(F32)
    t = x.shape[0]
    if use_ue8m0:
        assert np.all(np.isfinite(x)), "a valid case with non-finite kv_c"
        q, s = ue8m0_quant(x)
    else:
        s = ds_mla_scales(x)
        z = (x.reshape(t, -1, TILE) / s[:, :, None]).astype(F32)
        # scaled_convert: __nv_cvt_float_to_fp8(x / scale, __NV_SATFINITE,
        # E4M3)
        q = formats.e4m3fn_encode(z.reshape(t, NOPE), "sat").astype(np.uint8)
    return {"nope": q, "scale": le_bytes(s.view(np.uint32), "<u4"),
            "rope": le_bytes(ins["k_pe"], "<u2")}


# ---- the call ---------------------------------------------------------------

def full_attrs(attrs):
    a = dict(DEFAULTS)
    a.update(attrs)
    return a


def kept(preset, slots):
    """Tokens that write: slot >= 0, for both presets. vLLM's kernel:
    `if (slot_idx < 0) return;`. The Ascend row is scattered by
    npu_scatter_nd_update_ (aclnnScatterNdUpdate), whose kernels at
    hicann/ops-nn@e5c3fa93 index/scatter_nd_update/op_kernel store an
    index only when 0 <= index < rows (arch35/scatter_nd_update_simt.h
    :71, simd.h:172, simd_mask.h:139, simt_sort.h:39,
    deterministic_simt.h:40, deterministic_simd.h:86; arch22/
    scatter_nd_update_no_sort.h:102, large_index.h:101, and the sorted
    path's bounds, scatter_nd_update.h:117-158) or, in the A2/A3
    high_performance build, at linear offset index * 656
    (arch22/scatter_nd_update_hp.h:222-225, common.h:81), which for
    index < 0 lies before the cache: no byte of the cache changes.
    (`preset` is kept for the callers: the presets agree here.)"""
    return slots >= 0


def golden(ins, attrs, cache_tag, norm=rms_norm_rstd):
    """The final kv_cache (its storage array, same shape) of a valid call.
    ins: storage arrays by case name (bf16 as uint16 codes); `norm` as
    ascend_front's."""
    a = full_attrs(attrs)
    preset = a["preset"]
    assert preset == "vllm-fp8_ds_mla" or not a.get("use_ue8m0", False), \
        "use_ue8m0 is vllm-fp8_ds_mla's"
    slots = np.asarray(ins["slot_mapping"], dtype=np.int64).reshape(-1)
    keep = kept(preset, slots)
    tok = {}
    for name in ("kv_c", "k_pe", "cos", "sin"):
        if name in ins:
            v = np.asarray(ins[name])
            tok[name] = v.reshape(-1, v.shape[-1])[keep]
    cache = ins["kv_cache"]
    out = np.array(cache, copy=True).view(np.uint8).reshape(-1, ROW)
    if not keep.any():
        return out.view(cache.dtype).reshape(cache.shape)
    if preset == "ascend-sfa-c8":
        tok["gamma"] = ins["gamma"]
        pieces = ascend_segments(tok, a, cache_tag, norm)
    else:
        pieces = ds_mla_segments(tok, a.get("use_ue8m0", False))
    rows = np.zeros((int(keep.sum()), ROW), dtype=np.uint8)
    for s in row_map(preset, cache_tag):
        assert pieces[s["name"]].shape[1] == s["bytes"], s
        rows[:, s["offset"]:s["offset"] + s["bytes"]] = pieces[s["name"]]
    out[slots[keep]] = rows
    return out.view(cache.dtype).reshape(cache.shape)
