"""KvRmsNormRopeCache as torch_npu's npu_kv_rmsnorm_rope_cache,
npu_kv_rmsnorm_rope_cache_v2 and npu_kv_rmsnorm_rope_cache_v2_functional
(op-plugin op_plugin/config/op_plugin_functions.yaml and
op_plugin/ops/opapi/KvRmsNormRopeCacheNpuOpApi.cpp at 517f2e7d).

torch_npu conventions kept here:
- k_rope and c_kv are ALWAYS returned, with the shapes torch_npu allocates:
  V1 [B, N, S, cos.size(3)] / [B, N, S, gamma.size(0)]; V2 (v given)
  [B, N, S, 192] / [B, N, S, 128] (eager's constants; when the outputs are
  written they are [B, N, S, kv.size(3)] / [B, N, S, v.size(3)], the same
  for every shape Atlas A2/A3 accept).
- Without is_output_kv the NPU leaves them uninitialised: kvgold fills them
  with UNWRITTEN_POISON (quiet NaN in every element), so any comparison that
  judges them fails loudly. kvgold's own golden (kvgold.run, kvgold.compare,
  kvgold.testing) never produces or judges them in that case.
- V2 runs when v is given. torch_npu dispatches V2 only when v is 4-D with
  v.size(3) == 128 and silently ignores v otherwise (running V1); kvgold
  refuses such a v instead of ignoring it (kvgold.run takes general V2
  shapes).
"""
import numbers
import sys
from typing import (Any, Dict, FrozenSet, Mapping, MutableMapping, Optional,
                    Tuple)

from .._errors import Error, PARAM_INVALID
from .._run import Outputs
from .._types import DTypes, TensorLike
from ._common import call

__all__ = ["npu_kv_rmsnorm_rope_cache", "npu_kv_rmsnorm_rope_cache_v2",
           "npu_kv_rmsnorm_rope_cache_v2_functional"]


# What only Python knows of torch_npu's calls of this operator
# (kvgold/ops/__init__.py describes the fields; the rest of each call form,
# its arguments and outputs, is tools/lib/bindings/kv_rms_norm_rope_cache.c):
# kvgold's function that computes it and the keywords added to that call,
# `profile`: the chip profile follows ops-test-kit's soc_version,
# and the names of the plug-in's TestSpec class and golden.
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu.npu_kv_rmsnorm_rope_cache_v2": {
        "function": "npu_kv_rmsnorm_rope_cache_v2_functional",
        "profile": True,
        "ttk_spec": "KvgoldKvRmsNormRopeCacheV2TestSpec",
        "ttk_golden": "kv_rmsnorm_rope_cache_v2_golden"},
    "torch_npu.npu_kv_rmsnorm_rope_cache": {
        "function": "npu_kv_rmsnorm_rope_cache", "call": {"inplace": False},
        "profile": True,
        "ttk_spec": "KvgoldKvRmsNormRopeCacheTestSpec",
        "ttk_golden": "kv_rmsnorm_rope_cache_golden"},
}

# The tensor arguments the NPU takes in float32 (msprobe widens others):
# the quantisation scales and offsets.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset({"k_rope_scale", "c_kv_scale", "k_rope_offset",
                       "c_kv_offset"})


UNWRITTEN_POISON = float("nan")
"""The value of every element of k_rope / c_kv when is_output_kv is false
(their contents are unspecified on the NPU)."""

# torch_npu's V2 output depths (KvRmsNormRopeCacheNpuOpApi.cpp DK_SIZES /
# DV_SIZES) and the v depth that selects V2
V2_DK, V2_DV = 192, 128

# k_cache_dtype / ckv_cache_dtype: c10_npu::GetAclDataType(t) takes t >= 256
# as aclDataType(t - 256) and t < 256 as an at::ScalarType
CACHE_DTYPES: Dict[int, str] = {
    256 + 2: "int8", 256 + 34: "hif8", 256 + 35: "fp8_e5m2",
    256 + 36: "fp8_e4m3fn", 256 + 1: "fp16", 256 + 27: "bf16",
    1: "int8", 5: "fp16", 15: "bf16", 23: "fp8_e5m2", 24: "fp8_e4m3fn",
}


def _size(t: TensorLike, dim: int) -> Optional[int]:
    shape = getattr(t, "shape", None)
    return None if shape is None or len(shape) <= dim else int(shape[dim])


def _rank(t: TensorLike) -> Optional[int]:
    shape = getattr(t, "shape", None)
    return None if shape is None else len(shape)


def _check_v(v: Optional[TensorLike]) -> None:
    if v is None:
        return
    if _rank(v) != 4 or _size(v, 3) != V2_DV:
        raise Error(PARAM_INVALID, "v: torch_npu runs V2 only for a 4-D v "
                    "with dim 3 = %d and otherwise silently ignores v (runs "
                    "V1); got shape %s. Pass v=None for V1, or kvgold.run "
                    "for other V2 shapes" % (V2_DV, tuple(getattr(
                        v, "shape", ()))), "v")


def _poisoned(like: TensorLike, shape: Tuple[int, ...]) -> TensorLike:
    """A tensor of `like`'s type and dtype, every element UNWRITTEN_POISON."""
    torch: Any = sys.modules.get("torch")  # loaded: `like` is its tensor
    if torch is not None and type(like) is torch.Tensor:
        # a plain CPU tensor (kvgold.run refuses other devices): new_full
        # is cheaper than torch.full(dtype=...)
        return like.new_full(shape, UNWRITTEN_POISON)
    if type(like).__module__.split(".")[0] == "torch":
        return torch.full(shape, UNWRITTEN_POISON, dtype=like.dtype)
    np = sys.modules["numpy"]
    if like.dtype == np.uint16:        # bf16 codes: the quiet NaN 0x7FC0
        return np.full(shape, 0x7FC0, dtype=np.uint16)
    return np.full(shape, UNWRITTEN_POISON, dtype=like.dtype)


def _alloc_shapes(kv: TensorLike, gamma: TensorLike, cos: TensorLike,
                  v: Optional[TensorLike]
                  ) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """(k_rope shape, c_kv shape) as torch_npu allocates them."""
    lead = tuple(map(int, kv.shape[:3]))
    if v is not None:
        return lead + (V2_DK,), lead + (V2_DV,)
    return lead + (int(cos.shape[3]),), lead + (int(gamma.shape[0]),)


def _cache_dtype(name: str, value: Optional[int],
                 dtypes: MutableMapping[str, str]) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or int(value) not in CACHE_DTYPES:
        raise Error(PARAM_INVALID, "%s: %r is not a cache dtype kvgold knows "
                    "(torch_npu DType ints %s, or torch ScalarType ints 1, "
                    "5, 15, 23, 24)" % (name, value, ", ".join(
                        str(k) for k in sorted(CACHE_DTYPES) if k >= 256)),
                    name)
    dtypes[name[:-len("_dtype")]] = CACHE_DTYPES[int(value)]


def _options(profile: Optional[str], reduce_order: Optional[str],
             overflow: Optional[str], quant_overflow: Optional[str]
             ) -> Dict[str, Optional[str]]:
    """kvgold's options. `overflow` is the option's name for every
    operator; `quant_overflow`, its older spelling here, is still read.
    Both are handed on, so a call that gives both is refused by the
    library ("given twice")."""
    return dict(profile=profile, reduce_order=reduce_order,
                overflow=overflow, quant_overflow=quant_overflow)


def _run(kv: TensorLike, gamma: TensorLike, cos: TensorLike,
         sin: TensorLike, index: TensorLike, k_cache: TensorLike,
         ckv_cache: TensorLike, k_rope_scale: Optional[TensorLike],
         c_kv_scale: Optional[TensorLike],
         k_rope_offset: Optional[TensorLike],
         c_kv_offset: Optional[TensorLike], v: Optional[TensorLike],
         epsilon: float, cache_mode: str, is_output_kv: bool,
         options: Mapping[str, Any], dtypes: DTypes, inplace: bool
         ) -> Tuple[Outputs, TensorLike, TensorLike]:
    """The call, then k_rope / c_kv as torch_npu returns them."""
    _check_v(v)
    out = call("kv_rms_norm_rope_cache", dict(
        kv=kv, gamma=gamma, cos=cos, sin=sin, index=index, k_cache=k_cache,
        ckv_cache=ckv_cache, k_rope_scale=k_rope_scale,
        c_kv_scale=c_kv_scale, k_rope_offset=k_rope_offset,
        c_kv_offset=c_kv_offset, v=v),
        dict(epsilon=epsilon, cache_mode=cache_mode,
             is_output_kv=is_output_kv), options, dtypes, inplace)
    if is_output_kv:
        k_rope, c_kv = out["k_rope"], out["c_kv"]
    else:
        kshape, cshape = _alloc_shapes(kv, gamma, cos, v)
        k_rope, c_kv = _poisoned(kv, kshape), _poisoned(kv, cshape)
    return out, k_rope, c_kv


def npu_kv_rmsnorm_rope_cache(
        kv: TensorLike, gamma: TensorLike, cos: TensorLike, sin: TensorLike,
        index: TensorLike, k_cache: TensorLike, ckv_cache: TensorLike,
        *, k_rope_scale: Optional[TensorLike] = None,
        c_kv_scale: Optional[TensorLike] = None,
        k_rope_offset: Optional[TensorLike] = None,
        c_kv_offset: Optional[TensorLike] = None,
        v: Optional[TensorLike] = None, epsilon: float = 1e-5,
        cache_mode: str = "Norm", is_output_kv: bool = False,
        profile: Optional[str] = None, reduce_order: Optional[str] = None,
        overflow: Optional[str] = None,
        quant_overflow: Optional[str] = None, dtypes: DTypes = None,
        inplace: bool = True
) -> Tuple[TensorLike, TensorLike, TensorLike, TensorLike]:
    """KvRmsNormRopeCache (V2 when v is given). Returns (k_cache, ckv_cache,
    k_rope, c_kv) as torch_npu does: the caches updated in place (new
    copies with inplace=False), k_rope / c_kv always (UNWRITTEN_POISON
    unless is_output_kv)."""
    out, k_rope, c_kv = _run(
        kv, gamma, cos, sin, index, k_cache, ckv_cache, k_rope_scale,
        c_kv_scale, k_rope_offset, c_kv_offset, v, epsilon, cache_mode,
        is_output_kv, _options(profile, reduce_order, overflow,
                               quant_overflow), dtypes, inplace)
    return out["k_cache"], out["ckv_cache"], k_rope, c_kv


def _v2_dtypes(dtypes: DTypes, k_cache_dtype: Optional[int],
               ckv_cache_dtype: Optional[int]) -> Dict[str, str]:
    merged = dict(dtypes or {})
    _cache_dtype("k_cache_dtype", k_cache_dtype, merged)
    _cache_dtype("ckv_cache_dtype", ckv_cache_dtype, merged)
    return merged


def npu_kv_rmsnorm_rope_cache_v2(
        kv: TensorLike, gamma: TensorLike, cos: TensorLike, sin: TensorLike,
        index: TensorLike, k_cache: TensorLike, ckv_cache: TensorLike,
        *, k_rope_scale: Optional[TensorLike] = None,
        c_kv_scale: Optional[TensorLike] = None,
        k_rope_offset: Optional[TensorLike] = None,
        c_kv_offset: Optional[TensorLike] = None,
        v: Optional[TensorLike] = None, epsilon: float = 1e-5,
        cache_mode: str = "Norm", is_output_kv: bool = False,
        k_cache_dtype: Optional[int] = None,
        ckv_cache_dtype: Optional[int] = None,
        profile: Optional[str] = None, reduce_order: Optional[str] = None,
        overflow: Optional[str] = None,
        quant_overflow: Optional[str] = None, dtypes: DTypes = None
) -> Tuple[TensorLike, TensorLike]:
    """torch_npu.npu_kv_rmsnorm_rope_cache_v2: the caches are updated in
    place (Tensor(a!) / Tensor(b!) in the schema); returns (k_rope, c_kv).
    k_cache_dtype / ckv_cache_dtype: torch_npu's ints (290 hifloat8, ...)
    giving a cache's dtype when its tensor is a 1-byte carrier."""
    _out, k_rope, c_kv = _run(
        kv, gamma, cos, sin, index, k_cache, ckv_cache, k_rope_scale,
        c_kv_scale, k_rope_offset, c_kv_offset, v, epsilon, cache_mode,
        is_output_kv, _options(profile, reduce_order, overflow,
                               quant_overflow),
        _v2_dtypes(dtypes, k_cache_dtype, ckv_cache_dtype), True)
    return k_rope, c_kv


def npu_kv_rmsnorm_rope_cache_v2_functional(
        kv: TensorLike, gamma: TensorLike, cos: TensorLike, sin: TensorLike,
        index: TensorLike, k_cache: TensorLike, ckv_cache: TensorLike,
        *, k_rope_scale: Optional[TensorLike] = None,
        c_kv_scale: Optional[TensorLike] = None,
        k_rope_offset: Optional[TensorLike] = None,
        c_kv_offset: Optional[TensorLike] = None,
        v: Optional[TensorLike] = None, epsilon: float = 1e-5,
        cache_mode: str = "Norm", is_output_kv: bool = False,
        k_cache_dtype: Optional[int] = None,
        ckv_cache_dtype: Optional[int] = None,
        profile: Optional[str] = None, reduce_order: Optional[str] = None,
        overflow: Optional[str] = None,
        quant_overflow: Optional[str] = None, dtypes: DTypes = None
) -> Tuple[TensorLike, TensorLike, TensorLike, TensorLike]:
    """torch_npu.npu_kv_rmsnorm_rope_cache_v2_functional: the caches given
    are left untouched; returns (k_rope, c_kv, k_cache', ckv_cache') with
    the updated caches as new tensors (what the schema promises; op-plugin
    517f2e7d's eager code updates the inputs and returns the clones taken
    before, docs/python.md)."""
    out, k_rope, c_kv = _run(
        kv, gamma, cos, sin, index, k_cache, ckv_cache, k_rope_scale,
        c_kv_scale, k_rope_offset, c_kv_offset, v, epsilon, cache_mode,
        is_output_kv, _options(profile, reduce_order, overflow,
                               quant_overflow),
        _v2_dtypes(dtypes, k_cache_dtype, ckv_cache_dtype), False)
    return k_rope, c_kv, out["k_cache"], out["ckv_cache"]
