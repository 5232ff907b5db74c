"""The bundled examples the main job (tools/demo.sh) runs the oracle on.

Two realistic decode steps, each a case directory plus stand-in NPU dumps:

  deepseek_mla_decode  KvRmsNormRopeCache as vllm-ascend calls it for
                       DeepSeek-V3 at decode: kv [8, 1, 1, 576] bf16 (one
                       token per request), Dv 512 / Dk 64, eps 1e-6,
                       PA_NZ caches of 128-slot blocks, bf16 rope cache and
                       an int8 latent cache with a per-channel scale, one
                       padded token (slot -1), Atlas A2/A3 profile.
  qwen3_qkv_decode     QkvRmsNormRopeCache for a Qwen3-30B-A3B-like layer
                       (32 query heads, 4 KV heads, head_dim 128) at
                       decode: two requests, int8 PA_NZ k/v caches with
                       per-channel scales, BlockSize 128.

There is no NPU here, so the dumps stand in for kernels:
  npu/                    an honest kernel that sums the squares in another
                          order (DeepSeek: the A2 kernel's; Qwen:
                          sequentially): it must pass;
  npu_faulty/             (DeepSeek) an addressing bug: token 3 lands one
                          slot past where it belongs, so its real slot keeps
                          stale bytes and a slot no token owns is
                          overwritten: it must fail, naming both slots;
  npu_bf16_intermediate/  (Qwen) a kernel that rounds the RmsNorm output to
                          bf16 before RoPE (a variant seen in the wild, spec
                          reference qkv section 4.4): q_out must fail the
                          CANN MARE limit, the int8 caches stay within 1.
"""
import os

import numpy as np

from . import arith, casefile, formats, npyio
from . import kv_rms_norm_rope_cache as kvg
from . import qkv_rms_norm_rope_cache as qkvg

NAME = "examples"
F32 = np.float32


def _bf16(rng, shape, scale, shift=0.0):
    x = (rng.standard_normal(shape) * scale + shift).astype(F32)
    return formats.encode("bf16", x)


def _poison(rng, shape, dtype):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = rng.randint(1, 256, size=nbytes).astype(np.uint8)
    return raw.view(dtype).reshape(shape)


def _rope_tables(rng, tokens, dim):
    """cos/sin of random positions, as a model's rotary table gives them."""
    pos = rng.randint(0, 8192, size=(tokens, 1)).astype(np.float64)
    inv = 10000.0 ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    ang = np.concatenate([pos * inv, pos * inv], axis=-1)
    return (formats.encode("bf16", np.cos(ang).astype(F32)),
            formats.encode("bf16", np.sin(ang).astype(F32)))


def _storage(arr, tag):
    """The kv golden returns raw codes; cases store int8 as int8."""
    arr = np.ascontiguousarray(arr)
    return arr.view(np.int8) if tag == "int8" else arr


def _save_dump(d, sub, outputs):
    os.makedirs(os.path.join(d, sub), exist_ok=True)
    for name, arr in outputs.items():
        npyio.save(os.path.join(d, sub, name + ".npy"), arr)


def deepseek(root):
    rng = np.random.RandomState(20260301)
    reqs, dv, dk, bs, blocks = 8, 512, 64, 128, 2
    kv = _bf16(rng, (reqs, 1, 1, dv + dk), 1.0)
    gamma = _bf16(rng, (dv,), 0.3, 1.0)
    cos, sin = _rope_tables(rng, reqs, dk)
    cos = cos.reshape(reqs, 1, 1, dk)
    sin = sin.reshape(reqs, 1, 1, dk)
    # each request's next position in its own block; token 5 is padding
    index = np.array([3, 130, 17, 200, 64, -1, 99, 255], dtype=np.int64)
    k_cache = _poison(rng, (blocks, bs, 1, dk), np.uint16)
    ckv_cache = _poison(rng, (blocks, bs, 1, dv), np.int8)
    c_kv_scale = (rng.uniform(20.0, 60.0, size=dv)).astype(F32)
    inp = {"kv": kv, "gamma": gamma, "cos": cos, "sin": sin, "index": index,
           "k_cache": k_cache, "ckv_cache": ckv_cache,
           "c_kv_scale": c_kv_scale}
    dts = {"kv": "bf16", "gamma": "bf16", "cos": "bf16", "sin": "bf16",
           "index": "int64", "k_cache": "bf16", "ckv_cache": "int8",
           "c_kv_scale": "fp32"}
    attrs = {"epsilon": 1e-6, "cache_mode": "PA_NZ", "is_output_kv": False}
    gold = kvg.golden(inp, dts, "PA_NZ", 1e-6, False, "pairwise")
    d = casefile.write_case(
        root, "deepseek_mla_decode", "kv_rms_norm_rope_cache", attrs,
        {n: casefile.T(a, dts[n]) for n, a in inp.items()},
        {n: casefile.T(_storage(a, tag), tag) for n, (a, tag) in gold.items()},
        options={"profile": "a2a3"},
        comment="DeepSeek-V3 MLA decode step: 8 requests, one padded; "
                "PA_NZ, bf16 rope cache, int8 latent cache (A2/A3)")
    npu = kvg.golden(inp, dts, "PA_NZ", 1e-6, False, "a2")
    _save_dump(d, "npu", {n: _storage(a, t) for n, (a, t) in npu.items()})
    faulty = {n: np.array(_storage(a, t), copy=True)
              for n, (a, t) in gold.items()}
    for name, c0 in (("k_cache", 16), ("ckv_cache", 32)):
        cache, init = faulty[name], inp[name]
        dim = cache.shape[-1]
        nz = cache.reshape(blocks, dim // c0, bs, c0)
        nz0 = init.reshape(blocks, dim // c0, bs, c0)
        p = index[3]
        row = nz[p // bs, :, p % bs, :].copy()
        nz[p // bs, :, p % bs, :] = nz0[p // bs, :, p % bs, :]
        nz[(p + 1) // bs, :, (p + 1) % bs, :] = row
    _save_dump(d, "npu_faulty", faulty)


def qwen3(root):
    rng = np.random.RandomState(20260302)
    b, s, nq, nk, d_, bs, blocks = 2, 1, 32, 4, 128, 128, 2
    tokens = b * s
    qkv = _bf16(rng, (tokens, (nq + 2 * nk) * d_), 1.5)
    q_gamma = _bf16(rng, (d_,), 0.2, 1.0)
    k_gamma = _bf16(rng, (d_,), 0.2, 1.0)
    cos, sin = _rope_tables(rng, tokens, d_)
    index = np.array([37, 128 + 90], dtype=np.int64)
    shape = (blocks, nk * d_ // 32, bs, 32)
    k_cache = _poison(rng, shape, np.int8)
    v_cache = _poison(rng, shape, np.int8)
    k_scale = rng.uniform(0.01, 0.05, size=(nk, d_)).astype(F32)
    v_scale = rng.uniform(0.01, 0.03, size=(nk, d_)).astype(F32)
    q_out = _poison(rng, (tokens, nq * d_), np.uint16)
    T = casefile.T
    inputs = {"qkv": T(qkv, "bf16"), "q_gamma": T(q_gamma, "bf16"),
              "k_gamma": T(k_gamma, "bf16"), "cos": T(cos, "bf16"),
              "sin": T(sin, "bf16"), "index": T(index, "int64"),
              "q_out": T(q_out, "bf16"), "k_cache": T(k_cache, "int8"),
              "v_cache": T(v_cache, "int8"), "k_scale": T(k_scale, "fp32"),
              "v_scale": T(v_scale, "fp32")}
    attrs = {"qkv_size": [b, s, nq + 2 * nk, d_], "head_nums": [nq, nk, nk],
             "epsilon": 1e-6, "cache_mode": "PA_NZ"}
    gold = qkvg.golden(inputs, attrs)
    d = casefile.write_case(
        root, "qwen3_qkv_decode", "qkv_rms_norm_rope_cache", attrs, inputs,
        gold, comment="Qwen3-30B-A3B-like decode step: 2 requests, 32/4 "
                      "heads, int8 PA_NZ k/v caches")
    npu = qkvg.golden(inputs, attrs, {"reduce_order": "sequential"})
    _save_dump(d, "npu", {n: t.array for n, t in npu.items()})
    _save_dump(d, "npu_bf16_intermediate", _qwen3_npu(inputs, attrs))


def _qwen3_npu(inputs, attrs):
    """A plausible NPU kernel: the PyPTO-style variant that rounds the
    RmsNorm output to bf16 before RoPE (spec reference qkv section 4.4) and
    sums squares sequentially. Everything else as the golden."""
    b, s, n, d = attrs["qkv_size"]
    nq, nk, _nv = attrs["head_nums"]
    tok = b * s

    def f32(name):
        return formats.decode(inputs[name].dtype, inputs[name].array)

    x = f32("qkv").reshape(tok, n, d)
    cos, sin = f32("cos")[:, None, :], f32("sin")[:, None, :]

    def norm_rope(v, gamma):
        y = arith.rms_norm(v, f32(gamma), attrs["epsilon"], "sequential")
        y = formats.decode("bf16", formats.encode("bf16", y))
        return arith.rope_half(y, cos, sin)

    qr = norm_rope(x[:, :nq], "q_gamma")
    kr = norm_rope(x[:, nq:nq + nk], "k_gamma")
    v = x[:, nq + nk:]
    idx = inputs["index"].array
    out = {"q_out": formats.encode_output("bf16", qr).reshape(tok, nq * d)}
    for name, val, scale in (("k_cache", kr, "k_scale"),
                             ("v_cache", v, "v_scale")):
        z = arith.scale_offset(val, f32(scale)[None], None, op="div")
        out[name] = qkvg.nz_scatter(inputs[name].array,
                                    formats.int8_encode(z), idx)
    return out


def generate(root):
    deepseek(root)
    qwen3(root)
