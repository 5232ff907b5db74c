"""KvRmsNormRopeCache as torch_npu.npu_kv_rmsnorm_rope_cache."""
from ._common import call

__all__ = ["npu_kv_rmsnorm_rope_cache"]


def npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, index, k_cache, ckv_cache,
                              *, k_rope_scale=None, c_kv_scale=None,
                              k_rope_offset=None, c_kv_offset=None,
                              epsilon=1e-5, cache_mode="Norm",
                              is_output_kv=False, profile=None,
                              reduce_order=None, quant_overflow=None,
                              dtypes=None, inplace=True):
    """KvRmsNormRopeCache. Returns (k_cache, ckv_cache, k_rope, c_kv) as
    torch_npu does; k_rope and c_kv are None unless is_output_kv (torch_npu
    returns tensors of unspecified contents then)."""
    out = call("kv_rms_norm_rope_cache", dict(
        kv=kv, gamma=gamma, cos=cos, sin=sin, index=index, k_cache=k_cache,
        ckv_cache=ckv_cache, k_rope_scale=k_rope_scale,
        c_kv_scale=c_kv_scale, k_rope_offset=k_rope_offset,
        c_kv_offset=c_kv_offset),
        dict(epsilon=epsilon, cache_mode=cache_mode,
             is_output_kv=is_output_kv),
        dict(profile=profile, reduce_order=reduce_order,
             quant_overflow=quant_overflow), dtypes, inplace)
    return (out["k_cache"], out["ckv_cache"], out.get("k_rope"),
            out.get("c_kv"))
