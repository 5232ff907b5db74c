"""IndexerQuantCache as ops-transformer's torch extension calls it:
cann_ops_transformer.indexer_quant_cache(cache, cache_scale, x,
slot_mapping, *, quant_mode="fp8", round_scale=True, x_scale=1.0), which
updates cache and cache_scale in place and returns None
(ops-transformer@25fb6b928 torch_extension/cann_ops_transformer/ops/
indexer_quant_cache.py:53-57; tools/lib/bindings/indexer_quant_cache.c).
Its quant_mode is a string, "mxfp8" 0, "fp8" 1, "hifloat8" 2, "mxfp4" 3
(case-insensitive, blanks ignored, as its _resolve_quant_mode reads it;
the numbers are taken too); the spellings are the binding's `values`.

No torch_npu API calls the operator, so kvgold.torch_npu and
kvgold.msprobe do not give it; kvgold.ttk does. indexer_quant_cache_impl
is the operator with kvgold's names.

Storage that does not say its format is refused, not guessed
(docs/python.md), but for the cache of the torch API: a uint8 cache is
the HiFloat8 holder it takes (mode 2; its fp8 and fp4 caches are torch's
float8 / float4 types), so indexer_quant_cache and the ttk golden take
one as "uint8". An fp8 cache held as uint8 (torch without float8) needs
cache_dtype="fp8_e4m3fn" / "fp8_e5m2", an E8M0 scale cache held as uint8
cache_scale_dtype="e8m0", a packed fp4 cache held as uint8
cache_dtype="fp4_e2m1" (docs/indexer_quant_cache.md, "Python
functions")."""
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call
from ._forms import value_map

__all__ = ["indexer_quant_cache_impl", "indexer_quant_cache"]

OP = "indexer_quant_cache"
API = "cann_ops_transformer.indexer_quant_cache"

# What only Python knows of the torch call (kvgold/ops/__init__.py
# describes the fields; the arguments and the quant_mode spellings are
# tools/lib/bindings/indexer_quant_cache.c): computed by
# indexer_quant_cache_impl on copies of both caches; 950 only.
# A uint8 cache is the API's HiFloat8 holder (mode 2; fp8 and fp4 caches
# are torch's float8 / float4 types), hence the cache's default tag; it
# applies to uint8 storage only (_dtypes).
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    API: {"function": "indexer_quant_cache_impl",
          "call": {"inplace": False, "dtypes": {"cache": "uint8"}},
          "profile": False,
          "ttk_spec": "KvgoldIndexerQuantCacheTestSpec",
          "ttk_golden": "indexer_quant_cache_golden"},
}

# cache_scale is float32 in modes 1 and 2.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset({"cache_scale"})

Mode = Union[int, str]


def _quant_mode(mode: Mode) -> int:
    """The operator's quant_mode from the torch API's string or the
    number itself (bool refused)."""
    names = {str(k).lower(): int(v)
             for k, v in value_map(OP, API, "quant_mode").items()}
    if isinstance(mode, str):
        key = mode.strip().lower()
        if key in names:
            return names[key]
    elif isinstance(mode, int) and not isinstance(mode, bool):
        return mode
    raise Error(PARAM_INVALID, "quant_mode: %r is not one of %s or their "
                "numbers" % (mode, ", ".join(sorted(names))), "quant_mode")


def _uint8(t: Any) -> bool:
    """Is t's storage untagged uint8 (NumPy or torch)?"""
    return str(getattr(t, "dtype", "")) in ("uint8", "torch.uint8")


def _dtypes(cache_dtype: Optional[str], cache_scale_dtype: Optional[str],
            dtypes: DTypes, cache: Any = None) -> Optional[Dict[str, str]]:
    """kvgold.run's dtypes: `dtypes` (the cache's entry a default for
    uint8 storage only, so that a float8 / float4 cache keeps its own), then
    the explicit cache_dtype / cache_scale_dtype."""
    out = dict(dtypes or {})
    if "cache" in out and cache is not None and not _uint8(cache):
        del out["cache"]
    if cache_dtype is not None:
        out["cache"] = cache_dtype
    if cache_scale_dtype is not None:
        out["cache_scale"] = cache_scale_dtype
    return out or None


def indexer_quant_cache_impl(
        x: TensorLike, slot_mapping: TensorLike, cache: TensorLike,
        cache_scale: TensorLike, *, quant_mode: Mode = 1,
        round_scale: bool = True, x_scale: float = 1.0,
        cache_dtype: Optional[str] = None,
        cache_scale_dtype: Optional[str] = None, dtypes: DTypes = None,
        inplace: bool = True) -> Tuple[TensorLike, TensorLike]:
    """indexer_quant_cache with case.json's names; quant_mode the number or
    the torch API's string. cache_dtype / cache_scale_dtype: the format of
    a uint8 cache (as dtypes={...} says it too). Returns (cache,
    cache_scale): updated in place, or updated copies with inplace=False."""
    out = call(OP, dict(x=x, slot_mapping=slot_mapping, cache=cache,
                        cache_scale=cache_scale),
               dict(quant_mode=_quant_mode(quant_mode),
                    round_scale=bool(round_scale), x_scale=float(x_scale)),
               {}, _dtypes(cache_dtype, cache_scale_dtype, dtypes, cache),
               inplace)
    return (out["cache"], out["cache_scale"])


def indexer_quant_cache(
        cache: TensorLike, cache_scale: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, *, quant_mode: Mode = "fp8",
        round_scale: bool = True, x_scale: float = 1.0,
        cache_dtype: Optional[str] = None,
        cache_scale_dtype: Optional[str] = None) -> None:
    """cann_ops_transformer.indexer_quant_cache: cache and cache_scale
    updated in place; returns None. quant_mode "mxfp8", "fp8",
    "hifloat8", "mxfp4" or 0 / 1 / 2 / 3. A uint8 cache without
    cache_dtype is taken as the API takes one, HiFloat8 bytes ("uint8",
    mode 2)."""
    indexer_quant_cache_impl(
        x, slot_mapping, cache, cache_scale, quant_mode=quant_mode,
        round_scale=round_scale, x_scale=x_scale, cache_dtype=cache_dtype,
        cache_scale_dtype=cache_scale_dtype, dtypes={"cache": "uint8"})
