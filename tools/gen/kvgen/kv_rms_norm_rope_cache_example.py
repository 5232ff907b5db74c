"""The bundled example of this operator (cases_examples.py gathers it):

  deepseek_mla_decode  as vllm-ascend calls it for DeepSeek-V3 at decode:
                       kv [8, 1, 1, 576] bf16 (one token per request), Dv
                       512 / Dk 64, eps 1e-6, PA_NZ caches of 128-slot
                       blocks, bf16 rope cache and an int8 latent cache
                       with a per-channel scale, one padded token (slot
                       -1), Atlas A2/A3 profile.

Its stand-in NPU dumps: npu/, an honest kernel that sums the squares in
the A2 kernel's order (it must pass); npu_faulty/, an addressing bug:
token 3 lands one slot past where it belongs, so its real slot keeps
stale bytes and a slot no token owns is overwritten (it must fail, naming
both slots).
"""
import numpy as np

from . import casefile
from . import example_kit as kit
from . import kv_rms_norm_rope_cache as kvg

F32 = np.float32


def deepseek(root):
    rng = np.random.RandomState(20260301)
    reqs, dv, dk, bs, blocks = 8, 512, 64, 128, 2
    kv = kit.bf16(rng, (reqs, 1, 1, dv + dk), 1.0)
    gamma = kit.bf16(rng, (dv,), 0.3, 1.0)
    cos, sin = kit.rope_tables(rng, reqs, dk)
    cos = cos.reshape(reqs, 1, 1, dk)
    sin = sin.reshape(reqs, 1, 1, dk)
    # each request's next position in its own block; token 5 is padding
    index = np.array([3, 130, 17, 200, 64, -1, 99, 255], dtype=np.int64)
    k_cache = kit.poison(rng, (blocks, bs, 1, dk), np.uint16)
    ckv_cache = kit.poison(rng, (blocks, bs, 1, dv), np.int8)
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
        {n: casefile.T(kit.storage(a, tag), tag)
         for n, (a, tag) in gold.items()},
        options={"profile": "a2a3"},
        comment="DeepSeek-V3 MLA decode step: 8 requests, one padded; "
                "PA_NZ, bf16 rope cache, int8 latent cache (A2/A3)")
    npu = kvg.golden(inp, dts, "PA_NZ", 1e-6, False, "a2")
    kit.save_dump(d, "npu",
                  {n: kit.storage(a, t) for n, (a, t) in npu.items()})
    faulty = {n: np.array(kit.storage(a, t), copy=True)
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
    kit.save_dump(d, "npu_faulty", faulty)


EXAMPLES = {"deepseek_mla_decode": deepseek}
