"""ReshapeAndCache as ATB's ReshapeAndCacheOperation and as
torch_npu._npu_reshape_and_cache / _npu_reshape_and_cache_siso (torch_npu's
bindings of it)."""
import numbers
import re

from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call

__all__ = ["reshape_and_cache", "_npu_reshape_and_cache",
           "_npu_reshape_and_cache_siso"]


# What only Python knows of torch_npu's calls of this operator
# (kvgold/ops/__init__.py describes the fields; their arguments and outputs
# are tools/lib/bindings/reshape_and_cache.c): both are computed by
# reshape_and_cache on copies, the key-only one with ATB's
# K_CACHE_V_BYPASS.
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu._npu_reshape_and_cache": {
        "function": "reshape_and_cache", "call": {"inplace": False},
        "ttk_spec": "KvgoldReshapeAndCacheTestSpec",
        "ttk_golden": "reshape_and_cache_golden"},
    "torch_npu._npu_reshape_and_cache_siso": {
        "function": "reshape_and_cache",
        "call": {"inplace": False, "kv_cache_cfg": "K_CACHE_V_BYPASS"},
        "ttk_spec": "KvgoldReshapeAndCacheSisoTestSpec",
        "ttk_golden": "reshape_and_cache_siso_golden"},
}

# No float32 tensor argument: any one was widened by msprobe.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset()


# ATB's infer::ReshapeAndCacheParam enums, by value (include/atb/
# infer_op_params.h); names are accepted with or without the prefix.
COMPRESS_TYPES = ("UNDEFINED", "KVHEAD", "KVHEAD_ROPE")
KV_CACHE_CFGS = ("K_CACHE_V_CACHE", "K_CACHE_V_BYPASS", "K_CACHE_V_CACHE_NZ")
CACHE_LAYOUTS = ("ND", "NZ")
# The caches' storage format as aclFormat (torch_npu's npu_format_cast
# codes) names it: ACL_FORMAT_ND 2, ACL_FORMAT_FRACTAL_NZ 29.
ACL_FORMATS: Dict[Union[int, str], str] = {2: "ND", 29: "NZ", "ACL_FORMAT_ND": "ND", "FORMAT_ND": "ND",
               "ACL_FORMAT_FRACTAL_NZ": "NZ", "FORMAT_FRACTAL_NZ": "NZ",
               "FRACTAL_NZ": "NZ"}


def _layout(value: Any) -> str:
    """cache_layout: "ND" / "NZ", or the aclFormat of the caches (2 / 29,
    ACL_FORMAT_ND / ACL_FORMAT_FRACTAL_NZ)."""
    if isinstance(value, str) and value in CACHE_LAYOUTS:
        return value
    key = value if isinstance(value, str) else (
        int(value) if isinstance(value, numbers.Integral) and
        not isinstance(value, bool) else None)
    if key in ACL_FORMATS:
        return ACL_FORMATS[key]
    raise Error(PARAM_INVALID, "cache_layout: %r is not ND, NZ or an "
                "aclFormat of them (2 ACL_FORMAT_ND, 29 "
                "ACL_FORMAT_FRACTAL_NZ)" % (value,), "cache_layout")


def _enum(field: str, value: Any, names: Tuple[str, ...],
          prefix: Optional[str]) -> str:
    """An ATB enum given as its int, its name (COMPRESS_TYPE_KVHEAD or
    KVHEAD; scoped as "ReshapeAndCacheParam::COMPRESS_TYPE_KVHEAD" or with
    a "." too) or an enum object
    (int() or .name, as torch_atb's bindings give): its bare name."""
    if value is not None and not isinstance(value, (str, bool)):
        if isinstance(value, numbers.Integral) or hasattr(value, "__index__"):
            i = int(value)
            if 0 <= i < len(names):
                return names[i]
            value = i
        elif hasattr(value, "name"):
            value = value.name
    if isinstance(value, str):
        bare = re.split(r"[.:]", value)[-1]
        if prefix and bare.startswith(prefix):
            bare = bare[len(prefix):]
        if bare in names:
            return bare
    raise Error(PARAM_INVALID, "%s: %r is not one of %s (or their values "
                "0..%d)" % (field, value, ", ".join(
                    (prefix or "") + n for n in names), len(names) - 1),
                field)


def reshape_and_cache(
        key: TensorLike, value: Optional[TensorLike] = None,
        key_cache: Optional[TensorLike] = None,
        value_cache: Optional[TensorLike] = None,
        slot_mapping: Optional[TensorLike] = None,
        wins: Optional[TensorLike] = None,
        seq_len: Optional[TensorLike] = None,
        offset_index: Optional[TensorLike] = None, *,
        compress_type: Any = "UNDEFINED",
        kv_cache_cfg: Any = "K_CACHE_V_CACHE",
        cache_layout: Union[None, int, str] = None, dtypes: DTypes = None,
        inplace: bool = True) -> Tuple[TensorLike, ...]:
    """ATB ReshapeAndCache, with ATB's inputs in ATB's order: key, value,
    key_cache, value_cache, slot_mapping, then wins, seq_len (KVHEAD,
    KVHEAD_ROPE) and offset_index (KVHEAD_ROPE).

    compress_type: ATB's CompressType, as an int (0, 1, 2), its name
    (COMPRESS_TYPE_KVHEAD or KVHEAD) or an enum object. kv_cache_cfg:
    KvCacheCfg likewise (0 K_CACHE_V_CACHE, 1 K_CACHE_V_BYPASS, 2
    K_CACHE_V_CACHE_NZ). K_CACHE_V_BYPASS is key only, ATB's 3 inputs:
    reshape_and_cache(key, key_cache, slot_mapping, kv_cache_cfg=1) (or the
    keywords key=, key_cache=, slot_mapping=); returns (key_cache,). NZ is
    kv_cache_cfg 2 or cache_layout "NZ" (kvgold's attribute; the caches'
    aclFormat 29 / ACL_FORMAT_FRACTAL_NZ is taken too, 2 for ND). Otherwise
    returns (key_cache, value_cache)."""
    compress = _enum("compress_type", compress_type, COMPRESS_TYPES,
                     "COMPRESS_TYPE_")
    cfg = _enum("kv_cache_cfg", kv_cache_cfg, KV_CACHE_CFGS, None)
    layout = None if cache_layout is None else _layout(cache_layout)
    if cfg == "K_CACHE_V_CACHE_NZ":
        if layout == "ND":
            raise Error(PARAM_INVALID, "cache_layout: \"ND\" contradicts "
                        "kv_cache_cfg K_CACHE_V_CACHE_NZ", "cache_layout")
        cfg, layout = "K_CACHE_V_CACHE", "NZ"
    if cfg == "K_CACHE_V_BYPASS" and slot_mapping is None and \
            value_cache is None and key_cache is not None:
        # ATB's three inputs, positionally: key, key_cache, slot_mapping
        value, key_cache, slot_mapping = None, value, key_cache
    out = call("reshape_and_cache", dict(
        key=key, value=value, key_cache=key_cache, value_cache=value_cache,
        slot_mapping=slot_mapping, wins=wins, seq_len=seq_len,
        offset_index=offset_index),
        dict(compress_type=compress, cache_layout=layout, kv_cache_cfg=cfg),
        None, dtypes, inplace)
    if cfg == "K_CACHE_V_BYPASS":
        return (out["key_cache"],)
    return out["key_cache"], out["value_cache"]


def _npu_format(tensor: TensorLike) -> int:
    from .. import torch_npu  # the formats npu_format_cast remembers
    return torch_npu.get_npu_format(tensor)


def _npu_reshape_and_cache(key: TensorLike, value: TensorLike,
                           key_cache: TensorLike, value_cache: TensorLike,
                           slot_indices: TensorLike) -> None:
    """torch_npu._npu_reshape_and_cache: ATB ReshapeAndCache,
    COMPRESS_TYPE_UNDEFINED, key_cache and value_cache updated in place;
    returns None as torch_npu does. As op-plugin's ReshapeAndCachAtb.cpp,
    kvCacheCfg is K_CACHE_V_CACHE_NZ when both caches have storage format
    29 (FRACTAL_NZ, set by kvgold.torch_npu.npu_format_cast), else
    K_CACHE_V_CACHE."""
    nz = _npu_format(key_cache) == 29 and _npu_format(value_cache) == 29
    reshape_and_cache(key, value, key_cache, value_cache, slot_indices,
                      kv_cache_cfg=2 if nz else 0)


def _npu_reshape_and_cache_siso(key: TensorLike, key_cache: TensorLike,
                                slot_indices: TensorLike) -> None:
    """torch_npu._npu_reshape_and_cache_siso: ATB ReshapeAndCache with
    kvCacheCfg K_CACHE_V_BYPASS (key only), key_cache updated in place;
    returns None as torch_npu does."""
    reshape_and_cache(key, None, key_cache, None, slot_indices,
                      kv_cache_cfg="K_CACHE_V_BYPASS")
