"""The operators under the names and signatures NPU tests already call, so
that a test written for the NPU swaps its golden in one line
(docs/python.md, "Per-operator functions", lists every difference):

  npu_kv_rmsnorm_rope_cache     torch_npu.npu_kv_rmsnorm_rope_cache
  npu_qkv_rms_norm_rope_cache   torch_npu.npu_qkv_rms_norm_rope_cache
  reshape_and_cache             ATB ReshapeAndCacheOperation
  reshape_and_cache_omni        ATB ReshapeAndCacheOmniOperation
  _npu_reshape_and_cache        torch_npu._npu_reshape_and_cache (ATB)

As on the NPU, the caches (and q_out) are updated in place by default;
inplace=False leaves them untouched and returns updated copies. The
keyword-only arguments after the operator's own are kvgold's options.
"""
from ._run import run


def _call(op, tensors, attrs, options, dtypes, inplace):
    return run(op, {k: v for k, v in tensors.items() if v is not None},
               attrs, options, inplace=inplace, dtypes=dtypes)


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
    out = _call("kv_rms_norm_rope_cache", dict(
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


def npu_qkv_rms_norm_rope_cache(qkv, q_gamma, k_gamma, cos, sin, index, q_out,
                                k_cache, v_cache, qkv_size, head_nums, *,
                                k_scale=None, v_scale=None, k_offset=None,
                                v_offset=None, epsilon=1e-6,
                                cache_mode="PA_NZ", is_output_qkv=False,
                                reduce_order=None, overflow=None,
                                dtypes=None, inplace=True):
    """QkvRmsNormRopeCache. In place (the default) it writes q_out, k_cache
    and v_cache and returns (q_out_before_quant, k_out_before_quant,
    v_out_before_quant), each None unless is_output_qkv, as torch_npu
    does. inplace=False returns what op-plugin's functional variant
    returns: those three, then new q_out, k_cache, v_cache."""
    out = _call("qkv_rms_norm_rope_cache", dict(
        qkv=qkv, q_gamma=q_gamma, k_gamma=k_gamma, cos=cos, sin=sin,
        index=index, q_out=q_out, k_cache=k_cache, v_cache=v_cache,
        k_scale=k_scale, v_scale=v_scale, k_offset=k_offset,
        v_offset=v_offset),
        dict(qkv_size=list(qkv_size), head_nums=list(head_nums),
             epsilon=epsilon, cache_mode=cache_mode,
             is_output_qkv=is_output_qkv),
        dict(reduce_order=reduce_order, overflow=overflow), dtypes, inplace)
    before = (out.get("q_out_before_quant"), out.get("k_out_before_quant"),
              out.get("v_out_before_quant"))
    if inplace:
        return before
    return before + (out["q_out"], out["k_cache"], out["v_cache"])


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, *,
                      wins=None, seq_len=None, offset_index=None,
                      compress_type="UNDEFINED", cache_layout="ND",
                      dtypes=None, inplace=True):
    """ATB ReshapeAndCache: compress_type is its CompressType without the
    COMPRESS_TYPE_ prefix; cache_layout "NZ" is kvCacheCfg
    K_CACHE_V_CACHE_NZ. Returns (key_cache, value_cache)."""
    out = _call("reshape_and_cache", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index),
        dict(compress_type=compress_type, cache_layout=cache_layout), None,
        dtypes, inplace)
    return out["key_cache"], out["value_cache"]


def reshape_and_cache_omni(key, value, key_cache, value_cache, slot_mapping,
                           wins, seq_len, offset_index, *, dtypes=None,
                           inplace=True):
    """ATB ReshapeAndCacheOmni (8 inputs, no parameters). Returns
    (key_cache, value_cache)."""
    out = _call("reshape_and_cache_omni", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index), None, None, dtypes, inplace)
    return out["key_cache"], out["value_cache"]


def _npu_reshape_and_cache(key, value, key_cache, value_cache, slot_indices):
    """torch_npu._npu_reshape_and_cache: ATB ReshapeAndCache with its
    default parameters, key_cache and value_cache updated in place;
    returns None as torch_npu does."""
    reshape_and_cache(key, value, key_cache, value_cache, slot_indices)
