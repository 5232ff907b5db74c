"""KvRmsNormRopeCache from Python: npu_kv_rmsnorm_rope_cache as torch_npu's,
and its fp8 / HiFloat8 caches as torch uint8 codes with dtype tags."""
import os

import pytest
import torch

import kvgold
from conftest import example, expected_bits

MLA = example("deepseek_mla_decode")   # kv_rms_norm_rope_cache, bf16 / int8


def test_npu_kv_rmsnorm_rope_cache_matches_torch_npu_semantics():
    c = kvgold.load_case(MLA)
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    k_cache, ckv_cache = t["k_cache"], t["ckv_cache"]
    r = kvgold.npu_kv_rmsnorm_rope_cache(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], k_cache,
        ckv_cache, c_kv_scale=t["c_kv_scale"], epsilon=c.attrs["epsilon"],
        cache_mode=c.attrs["cache_mode"], profile=c.options["profile"])
    assert len(r) == 4 and r[0] is k_cache and r[1] is ckv_cache
    # torch_npu allocates k_rope [B, 1, S, cos.size(3)] and c_kv
    # [B, 1, S, gamma.size(0)] always; unwritten, they are all NaN
    kv = t["kv"]
    assert r[2].shape == (kv.shape[0], 1, kv.shape[2], t["cos"].shape[3])
    assert r[3].shape == (kv.shape[0], 1, kv.shape[2], t["gamma"].shape[0])
    assert r[2].dtype == r[3].dtype == kv.dtype
    assert bool(r[2].isnan().all()) and bool(r[3].isnan().all())
    assert kvgold.tensor(k_cache, "bf16").tobytes() == \
        expected_bits(c, "k_cache")
    assert ckv_cache.numpy().tobytes() == expected_bits(c, "ckv_cache")


def test_torch_uint8_codes_with_tags():
    c = kvgold.load_case(
        "%s/kv_rms_norm_rope_cache/ds_950_pa_fp16_both_hif8_asym"
        % os.environ["KVG_VECTORS_DIR"])
    inputs = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    assert inputs["k_cache"].dtype == torch.uint8
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    assert e.value.tensor in ("k_cache", "ckv_cache")
    out = kvgold.run(c.op, inputs, c.attrs, c.options, dtypes=c.dtypes)
    for n in ("k_cache", "ckv_cache"):
        assert out[n].dtype == torch.uint8
        assert out[n].numpy().tobytes() == expected_bits(c, n), n
    assert out.dtypes["k_cache"] == "hif8"
