"""The bundled example of this operator (cases_examples.py gathers it):

  qwen3_qkv_decode     a Qwen3-30B-A3B-like layer (32 query heads, 4 KV
                       heads, head_dim 128) at decode: two requests, int8
                       PA_NZ k/v caches with per-channel scales, BlockSize
                       128.

Its stand-in NPU dumps: npu/, an honest kernel that sums the squares
sequentially (it must pass); npu_bf16_intermediate/, a kernel that rounds
the RmsNorm output to bf16 before RoPE (a variant seen in the wild, spec
reference qkv section 4.4): q_out must fail the CANN MARE limit, the int8
caches stay within 1.
"""
import numpy as np

from . import arith, casefile, formats
from . import example_kit as kit
from . import qkv_rms_norm_rope_cache as qkvg

F32 = np.float32


def qwen3(root):
    rng = np.random.RandomState(20260302)
    b, s, nq, nk, d_, bs, blocks = 2, 1, 32, 4, 128, 128, 2
    tokens = b * s
    qkv = kit.bf16(rng, (tokens, (nq + 2 * nk) * d_), 1.5)
    q_gamma = kit.bf16(rng, (d_,), 0.2, 1.0)
    k_gamma = kit.bf16(rng, (d_,), 0.2, 1.0)
    cos, sin = kit.rope_tables(rng, tokens, d_)
    index = np.array([37, 128 + 90], dtype=np.int64)
    shape = (blocks, nk * d_ // 32, bs, 32)
    k_cache = kit.poison(rng, shape, np.int8)
    v_cache = kit.poison(rng, shape, np.int8)
    k_scale = rng.uniform(0.01, 0.05, size=(nk, d_)).astype(F32)
    v_scale = rng.uniform(0.01, 0.03, size=(nk, d_)).astype(F32)
    q_out = kit.poison(rng, (tokens, nq * d_), np.uint16)
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
    kit.save_dump(d, "npu", {n: t.array for n, t in npu.items()})
    kit.save_dump(d, "npu_bf16_intermediate", _qwen3_npu(inputs, attrs))


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


EXAMPLES = {"qwen3_qkv_decode": qwen3}
