"""kvgold as an ops-test-kit plug-in (docs/ttk.md).

    python3 -m ttk e2e -i cases.csv \\
        --plugin "$(python3 -c 'import kvgold.ttk as m; print(m.__file__)')"

ops-test-kit reads a plug-in file without importing it: it parses the
module-level `__spec__` (API name -> TestSpec class name) and `__golden__`
({"e2e": {API name: function name}}) as literals, then executes the file
on its own, outside any package, when a case needs it. So this file uses
absolute imports only, and both tables stay literal dicts of strings.

For each operator, under the torch_npu API name ops-test-kit's e2e CSV
uses, kvgold is the `golden` and also the `third_party` (an independent
reference for cross_check: kvgold is not the NPU kernel's code). Both take
the API's own arguments (torch tensors, on any device: they are copied to
the CPU), ignore ops-test-kit's metadata keywords, never write their
inputs, and return the list ops-test-kit compares: what the API returns,
then the caches it updates in place (None for an output the call does not
produce, which ops-test-kit leaves uncompared) - the order `kvgold
prepare` writes its golden_<i> files in.

One quirk of ops-test-kit's convention: imported as kvgold.ttk, the
module's own `__spec__` (normally importlib's ModuleSpec) is this table,
so importlib.reload() and importlib.util.find_spec("kvgold.ttk") do not
work on it; ops-test-kit itself only ever executes the file by path.
"""
import kvgold

__spec__ = {
    "torch_npu.npu_kv_rmsnorm_rope_cache": "KvgoldKvRmsNormRopeCacheTestSpec",
    "torch_npu.npu_kv_rmsnorm_rope_cache_v2":
        "KvgoldKvRmsNormRopeCacheV2TestSpec",
    "torch_npu.npu_qkv_rms_norm_rope_cache":
        "KvgoldQkvRmsNormRopeCacheTestSpec",
    "torch_npu._npu_reshape_and_cache": "KvgoldReshapeAndCacheTestSpec",
    "torch_npu.npu_scatter_pa_kv_cache": "KvgoldScatterPaKvCacheTestSpec",
}

__golden__ = {
    "e2e": {
        "torch_npu.npu_kv_rmsnorm_rope_cache": "kv_rmsnorm_rope_cache_golden",
        "torch_npu.npu_kv_rmsnorm_rope_cache_v2":
            "kv_rmsnorm_rope_cache_v2_golden",
        "torch_npu.npu_qkv_rms_norm_rope_cache":
            "qkv_rms_norm_rope_cache_golden",
        "torch_npu._npu_reshape_and_cache": "reshape_and_cache_golden",
        "torch_npu.npu_scatter_pa_kv_cache": "scatter_pa_kv_cache_golden",
    },
}

# ops-test-kit's soc_version keyword -> kvgold's profile option of
# kv_rms_norm_rope_cache (the chip generation's behaviour).
_PROFILES = (("Ascend950", "950"), ("Ascend910B", "a2a3"),
             ("Ascend910_93", "a2a3"))

# Each API's tensor arguments and attributes in torch_npu's order.
_KV_TENSORS = ("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
               "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset")
_KV_ATTRS = ("epsilon", "cache_mode", "is_output_kv")
_KV2_TENSORS = _KV_TENSORS + ("v",)
_KV2_ATTRS = _KV_ATTRS + ("k_cache_dtype", "ckv_cache_dtype")
_QKV_TENSORS = ("qkv", "q_gamma", "k_gamma", "cos", "sin", "index", "q_out",
                "k_cache", "v_cache", "k_scale", "v_scale", "k_offset",
                "v_offset")
_QKV_ATTRS = ("qkv_size", "head_nums", "epsilon", "cache_mode",
              "is_output_qkv")
_RAC_TENSORS = ("key", "value", "key_cache", "value_cache", "slot_indices")
_SPKC_TENSORS = ("key", "value", "key_cache", "value_cache", "slot_mapping",
                 "compress_lens", "compress_seq_offsets", "seq_lens")
_SPKC_ATTRS = ("cache_mode",)


def _is_tensor(value):
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _bind(api, tensor_names, attr_names, args, kwargs):
    """The call's tensors and attributes by torch_npu's names, whether
    ops-test-kit passes the tensors by position and the attributes by
    keyword (its plug-in convention) or the API's own positional order
    (tensors and qkv_size / head_nums positionally). Other keywords are
    ops-test-kit's metadata (dtypes, shapes, soc_version...): returned
    apart, never given to kvgold, whose `dtypes` means something else."""
    tensors, attrs, meta = {}, {}, {}
    ti = ai = 0
    for value in args:
        if value is None or _is_tensor(value):
            if ti == len(tensor_names):
                raise TypeError("%s: more tensor arguments than its %d"
                                % (api, len(tensor_names)))
            tensors[tensor_names[ti]] = value
            ti += 1
        else:
            if ai == len(attr_names):
                raise TypeError("%s: unexpected argument %r" % (api, value))
            attrs[attr_names[ai]] = value
            ai += 1
    for key, value in kwargs.items():
        if key in tensor_names:
            where = tensors
        elif key in attr_names:
            where = attrs
        else:
            meta[key] = value
            continue
        if key in where:
            raise TypeError("%s: %s given twice" % (api, key))
        where[key] = value
    tensors = {k: (v.detach().cpu() if hasattr(v, "detach") else v)
               for k, v in tensors.items()}
    return tensors, attrs, meta


def _profile(meta):
    soc = str(meta.get("soc_version") or "")
    for prefix, profile in _PROFILES:
        if soc.startswith(prefix):
            return profile
    return None


def kv_rmsnorm_rope_cache_golden(*args, **kwargs):
    """torch_npu.npu_kv_rmsnorm_rope_cache: [k_cache, ckv_cache, k_rope,
    c_kv] (the last two None unless is_output_kv)."""
    t, a, meta = _bind("npu_kv_rmsnorm_rope_cache", _KV_TENSORS, _KV_ATTRS,
                       args, kwargs)
    out = list(kvgold.npu_kv_rmsnorm_rope_cache(
        **t, **a, profile=_profile(meta), inplace=False))
    # torch_npu leaves k_rope / c_kv unwritten then: no golden to judge
    return out if a.get("is_output_kv") else out[:2] + [None, None]


def kv_rmsnorm_rope_cache_v2_golden(*args, **kwargs):
    """torch_npu.npu_kv_rmsnorm_rope_cache_v2: [k_rope, c_kv] (None unless
    is_output_kv), then the k_cache and ckv_cache it writes in place."""
    t, a, meta = _bind("npu_kv_rmsnorm_rope_cache_v2", _KV2_TENSORS,
                       _KV2_ATTRS, args, kwargs)
    k_rope, c_kv, k_cache, ckv_cache = \
        kvgold.npu_kv_rmsnorm_rope_cache_v2_functional(
            **t, **a, profile=_profile(meta))
    if not a.get("is_output_kv"):
        k_rope = c_kv = None
    return [k_rope, c_kv, k_cache, ckv_cache]


def qkv_rms_norm_rope_cache_golden(*args, **kwargs):
    """torch_npu.npu_qkv_rms_norm_rope_cache: [q_out_before_quant,
    k_out_before_quant, v_out_before_quant] (None unless is_output_qkv),
    then the q_out, k_cache and v_cache it writes in place."""
    t, a, _ = _bind("npu_qkv_rms_norm_rope_cache", _QKV_TENSORS, _QKV_ATTRS,
                    args, kwargs)
    return list(kvgold.npu_qkv_rms_norm_rope_cache(**t, **a, inplace=False))


def reshape_and_cache_golden(*args, **kwargs):
    """torch_npu._npu_reshape_and_cache returns nothing: [key_cache,
    value_cache] as it leaves them."""
    t, _, _ = _bind("_npu_reshape_and_cache", _RAC_TENSORS, (), args,
                    kwargs)
    t["slot_mapping"] = t.pop("slot_indices", None)
    return list(kvgold.reshape_and_cache(**t, inplace=False))


def scatter_pa_kv_cache_golden(*args, **kwargs):
    """torch_npu.npu_scatter_pa_kv_cache returns nothing: [key_cache,
    value_cache] as it leaves them (torch_npu's default cache_mode is
    PA_NZ, kept here)."""
    t, a, _ = _bind("npu_scatter_pa_kv_cache", _SPKC_TENSORS, _SPKC_ATTRS,
                    args, kwargs)
    return list(kvgold.npu_scatter_pa_kv_cache_functional(**t, **a))


class KvgoldKvRmsNormRopeCacheTestSpec:
    """torch_npu.npu_kv_rmsnorm_rope_cache with kvgold as golden and as
    third party."""
    golden = kv_rmsnorm_rope_cache_golden
    third_party = kv_rmsnorm_rope_cache_golden


class KvgoldQkvRmsNormRopeCacheTestSpec:
    """torch_npu.npu_qkv_rms_norm_rope_cache with kvgold as golden and as
    third party."""
    golden = qkv_rms_norm_rope_cache_golden
    third_party = qkv_rms_norm_rope_cache_golden


class KvgoldReshapeAndCacheTestSpec:
    """torch_npu._npu_reshape_and_cache with kvgold as golden and as third
    party."""
    golden = reshape_and_cache_golden
    third_party = reshape_and_cache_golden


class KvgoldKvRmsNormRopeCacheV2TestSpec:
    """torch_npu.npu_kv_rmsnorm_rope_cache_v2 with kvgold as golden and as
    third party."""
    golden = kv_rmsnorm_rope_cache_v2_golden
    third_party = kv_rmsnorm_rope_cache_v2_golden


class KvgoldScatterPaKvCacheTestSpec:
    """torch_npu.npu_scatter_pa_kv_cache with kvgold as golden and as third
    party."""
    golden = scatter_pa_kv_cache_golden
    third_party = scatter_pa_kv_cache_golden
