"""The indexer compress epilogs under their two torch APIs, one per
implementation (the operator's `impl`), each writing its cache(s) in place
and returning None, as on the NPU (tools/lib/bindings/
indexer_compress_epilog.c cites each schema):

- indexer_compress_epilog: torch.ops.custom.indexer_compress_epilog (cr,
  cann-recipes-infer; quant_mode 0 MX-FP8 with an e8m0 scale cache, 1
  fp8 with an fp32 one, 2 HiFloat8 into a uint8 cache);
- indexer_compress_epilog_v2: torch.ops._C_ascend.indexer_compress_epilog_v2
  (va_v2, vllm-ascend; fp8 e4m3 per 128 and its fp32 scales, block-major
  in one uint8 cache).

Neither is a torch_npu function (kvgold.torch_npu and kvgold.msprobe,
which stand in for torch_npu's APIs, do not give them); kvgold.ttk does.
indexer_compress_epilog_impl is the operator with kvgold's names, any
impl.

cr's fp8 caches may be given as torch.float8_* tensors or, where torch
has none (1.13), as uint8 codes with cache_dtype="fp8_e4m3fn" /
"fp8_e5m2", its e8m0 scale cache as uint8 with cache_scale_dtype="e8m0";
a uint8 cache of HiFloat8 bytes (mode 2) with cache_dtype="uint8":
storage that does not say its format is refused, not guessed, except by
indexer_compress_epilog_v2, whose API takes uint8 only
(docs/indexer_compress_epilog.md, "Python functions")."""
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call

__all__ = ["indexer_compress_epilog_impl", "indexer_compress_epilog",
           "indexer_compress_epilog_v2"]

OP = "indexer_compress_epilog"
API_CR = "torch.ops.custom.indexer_compress_epilog"
API_VA = "torch.ops._C_ascend.indexer_compress_epilog_v2"
IMPLS = ("cr", "va_v2")

# What only Python knows of the torch calls (kvgold/ops/__init__.py
# describes the fields; the arguments and the impl each form implies are
# tools/lib/bindings/indexer_compress_epilog.c): each computed by
# indexer_compress_epilog_impl on copies of the caches with its impl;
# va_v2's cache is uint8 bytes whatever the call (its only cache dtype).
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    API_CR: {"function": "indexer_compress_epilog_impl",
             "call": {"impl": "cr", "inplace": False},
             "profile": False,
             "ttk_spec": "KvgoldCustomIndexerCompressEpilogTestSpec",
             "ttk_golden": "indexer_compress_epilog_cr_golden"},
    API_VA: {"function": "indexer_compress_epilog_impl",
             "call": {"impl": "va_v2", "inplace": False,
                      "dtypes": {"cache": "uint8"}},
             "profile": False,
             "ttk_spec": "KvgoldIndexerCompressEpilogV2TestSpec",
             "ttk_golden": "indexer_compress_epilog_va_v2_golden"},
}

# cr's scale cache (the torch API's indexer_compress_scale) is float32 in
# modes 1 and 2.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset({"indexer_compress_scale"})


def _dense_stride(cache: TensorLike) -> int:
    """The bytes between a dense cache's blocks (dim 0): what va_v2's
    torch binding reads from cache.stride(0)."""
    n = 1
    for d in tuple(cache.shape)[1:]:
        n *= int(d)
    return n


def _dtypes(cache_dtype: Optional[str], cache_scale_dtype: Optional[str],
            dtypes: DTypes) -> Optional[Dict[str, str]]:
    """kvgold.run's dtypes: `dtypes`, then the explicit cache_dtype /
    cache_scale_dtype; none given: none (untagged storage is refused)."""
    out = dict(dtypes or {})
    if cache_dtype is not None:
        out["cache"] = cache_dtype
    if cache_scale_dtype is not None:
        out["cache_scale"] = cache_scale_dtype
    return out or None


def indexer_compress_epilog_impl(
        x: TensorLike, slot_mapping: TensorLike, cache: TensorLike,
        cache_scale: Optional[TensorLike] = None, *, impl: str = "cr",
        quant_mode: int = 1, round_scale: bool = True, scale: float = 1.0,
        layout: int = 2, block_stride: Optional[int] = None,
        cache_dtype: Optional[str] = None,
        cache_scale_dtype: Optional[str] = None, dtypes: DTypes = None,
        inplace: bool = True) -> Tuple[TensorLike, ...]:
    """indexer_compress_epilog with case.json's names, any impl.
    block_stride None: 0 for cr, the dense cache's dim-0 stride for va_v2
    (as its torch API passes it). cache_dtype / cache_scale_dtype: the
    format of uint8 storage. Returns (cache, cache_scale) for cr, (cache,)
    for va_v2: updated in place, or updated copies with inplace=False."""
    if impl not in IMPLS:
        raise Error(PARAM_INVALID, "impl: %r is not one of %s"
                    % (impl, ", ".join(IMPLS)), "impl")
    if block_stride is None:
        block_stride = _dense_stride(cache) if impl == "va_v2" else 0
    tensors = dict(x=x, slot_mapping=slot_mapping, cache=cache)
    if cache_scale is not None:
        tensors["cache_scale"] = cache_scale
    out = call(OP, tensors,
               dict(impl=impl, quant_mode=int(quant_mode),
                    round_scale=bool(round_scale), scale=float(scale),
                    layout=int(layout), block_stride=int(block_stride)),
               {}, _dtypes(cache_dtype, cache_scale_dtype, dtypes), inplace)
    if cache_scale is None:
        return (out["cache"],)
    return (out["cache"], out["cache_scale"])


def indexer_compress_epilog(
        indexer_compress_cache: TensorLike,
        indexer_compress_scale: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, *, quant_mode: int = 1,
        round_scale: bool = True, scale: float = 1.0,
        cache_dtype: Optional[str] = None,
        cache_scale_dtype: Optional[str] = None) -> None:
    """torch.ops.custom.indexer_compress_epilog (cann-recipes-infer, impl
    cr): both caches updated in place; returns None. quant_mode 0 MX-FP8
    (e8m0 scales), 1 fp8 with fp32 scales, 2 HiFloat8 (uint8 cache,
    codes of x * scale)."""
    indexer_compress_epilog_impl(
        x, slot_mapping, indexer_compress_cache, indexer_compress_scale,
        impl="cr", quant_mode=quant_mode, round_scale=round_scale,
        scale=scale, cache_dtype=cache_dtype,
        cache_scale_dtype=cache_scale_dtype)


def indexer_compress_epilog_v2(
        indexer_compress_cache: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, layout: int = 2) -> None:
    """torch.ops._C_ascend.indexer_compress_epilog_v2 (vllm-ascend, impl
    va_v2): the uint8 cache [blocks, block_size, 1, cacheD] updated in
    place (a block's fp8 codes, then their fp32 scales); returns None."""
    indexer_compress_epilog_impl(
        x, slot_mapping, indexer_compress_cache, impl="va_v2",
        layout=layout, dtypes={"cache": "uint8"})
