"""KvCompressEpilog under the five torch APIs of that name, one per
implementation (the operator's `impl`), each writing its cache in place
and returning None, as on the NPU (tools/lib/bindings/kv_compress_epilog.c
cites each schema):

- kv_compress_epilog: cann_ops_transformer.kv_compress_epilog (ot,
  ops-transformer's aclnnKvCompressEpilog; quant_mode "fp8_bf16" /
  "fp8_e8m0" / "hifloat8_fp4" or 0 / 1 / 2);
- sgl_kv_compress_epilog: torch.ops.npu.kv_compress_epilog (sgk,
  sgl-kernel-npu; every argument required);
- vllm_kv_compress_epilog: torch.ops._C_ascend.kv_compress_epilog (va,
  vllm-ascend's copy; the arguments as sgk's);
- custom_kv_compress_epilog: torch.ops.custom.kv_compress_epilog (cr,
  cann-recipes-infer; torch defaults quant_mode 2, group 64);
- kv_compress_epilog_v2: torch.ops.custom.kv_compress_epilog_v2 (cr_v2;
  quant_mode "mxfp8_bf16" / "mxfp4_bf16" only, as its torch API).

Python has one namespace where torch has four, so the torch namespace is
in the name of the three that share cann_ops_transformer's. None is a
torch_npu function (kvgold.torch_npu and kvgold.msprobe, which stand in
for torch_npu's APIs, do not give them); kvgold.ttk does.
kv_compress_epilog_impl is the operator with kvgold's names, any impl.

The NPU's fp8 caches may be given as torch.float8_* tensors or, where
torch has none (1.13), as uint8 codes with cache_dtype="fp8_e4m3fn" /
"fp8_e5m2" - for sgk / va the cache's fp8 type picks the payload's; a
uint8 cache of bytes (cr's HiFloat8, cr_v2's MXFP4) with
cache_dtype="uint8": storage that does not say its format is refused, not
guessed, except by kv_compress_epilog, whose API takes uint8 only
(docs/kv_compress_epilog.md, "Python functions")."""
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call, framework_value
from ._forms import value_map

__all__ = ["kv_compress_epilog_impl", "kv_compress_epilog",
           "sgl_kv_compress_epilog", "vllm_kv_compress_epilog",
           "custom_kv_compress_epilog", "kv_compress_epilog_v2"]

OP = "kv_compress_epilog"
API_OT = "cann_ops_transformer.kv_compress_epilog"
# the same op as torch.ops spells it (ops-test-kit's CSVs, DeepSeek-V4)
API_OT_OPS = "torch.ops.cann_ops_transformer.kv_compress_epilog"
API_SGK = "torch.ops.npu.kv_compress_epilog"
API_VA = "torch.ops._C_ascend.kv_compress_epilog"
API_CR = "torch.ops.custom.kv_compress_epilog"
API_V2 = "torch.ops.custom.kv_compress_epilog_v2"
# impl -> its API (the binding's form, whose value spellings it reads)
APIS = {"ot": API_OT, "sgk": API_SGK, "va": API_VA, "cr": API_CR,
        "cr_v2": API_V2}


def _python(impl: str, spec: str, golden: str = "",
            **call: Any) -> Dict[str, Any]:
    return {"function": "kv_compress_epilog_impl",
            "call": dict(impl=impl, inplace=False, **call),
            "ttk_spec": "Kvgold%sTestSpec" % spec,
            "ttk_golden": "kv_compress_epilog_%s_golden" % (golden or impl)}


# What only Python knows of the torch calls (kvgold/ops/__init__.py
# describes the fields; the arguments, their spellings and the frameworks'
# own defaults are tools/lib/bindings/kv_compress_epilog.c): each computed
# by kv_compress_epilog_impl on a copy of the cache with its impl; ot's
# cache is uint8 bytes whatever the call (aclnnKvCompressEpilog's only
# cache dtype), the others' dtype depends on the mode, so a uint8 one
# must say its format.
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    API_SGK: _python("sgk", "SglKvCompressEpilog"),
    API_VA: _python("va", "VllmKvCompressEpilog"),
    API_CR: _python("cr", "CustomKvCompressEpilog"),
    API_V2: _python("cr_v2", "CustomKvCompressEpilogV2"),
    API_OT: _python("ot", "KvCompressEpilog", dtypes={"cache": "uint8"}),
    API_OT_OPS: _python("ot", "TorchOpsKvCompressEpilog", "ot_torch_ops",
                        dtypes={"cache": "uint8"}),
}

# x is bf16 and the cache 8-bit: any float32 tensor was widened.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset()

Mode = Union[int, str]


def _quant_mode(impl: str, mode: Mode, ints: bool = True) -> int:
    """The implementation's quant_mode number from its API's spelling (a
    string, case-insensitive, surrounding blanks ignored, as ot's and
    cr_v2's torch APIs read it; the spellings are the binding's `values`)
    or the number itself (refused where the API refuses ints)."""
    names = {str(k).lower(): v for k, v in
             value_map(OP, APIS[impl], "quant_mode").items()}
    if isinstance(mode, str):
        key = mode.strip().lower()
        if key in names:
            return int(names[key])
    elif ints and isinstance(mode, int) and not isinstance(mode, bool):
        return mode
    raise Error(PARAM_INVALID, "quant_mode: %r is not one of %s of %s"
                % (mode, ", ".join(sorted(names) or ["its numbers"]) +
                   (" or their numbers" if ints and names else ""),
                   APIS[impl]), "quant_mode")


def _dense_stride(cache: TensorLike) -> int:
    """The bytes between a dense cache's blocks (dim 0): what sgk's and
    va's torch bindings read from cache.stride(0)."""
    n = 1
    for d in tuple(cache.shape)[1:]:
        n *= int(d)
    return n


def _cache_dtypes(cache_dtype: Optional[str], dtypes: DTypes
                  ) -> Optional[Dict[str, str]]:
    """kvgold.run's dtypes: `dtypes` with the cache's cache_dtype, if
    given; else none - a cache whose storage does not say its format
    (torch.uint8 holding fp8, HiFloat8 or packed bytes) is refused rather
    than guessed (docs/python.md)."""
    out = dict(dtypes or {})
    if cache_dtype is not None:
        out["cache"] = cache_dtype
    return out or None


def kv_compress_epilog_impl(
        x: TensorLike, slot_mapping: TensorLike, cache: TensorLike, *,
        impl: str = "ot", quant_mode: Mode = 1, quant_group_size: int = 0,
        round_scale: bool = True, x_scale: float = 1.0,
        layout: Optional[int] = None, block_stride: Optional[int] = None,
        cache_dtype: Optional[str] = None, dtypes: DTypes = None,
        inplace: bool = True) -> Tuple[TensorLike]:
    """kv_compress_epilog with case.json's names, any impl; quant_mode the
    impl's number or its API's string. layout None: 1, but cr_v2's from
    the cache's rank as its torch API (4-D: 2); block_stride None: 0, but
    va's the dense cache's dim-0 stride, as its torch API passes it.
    cache_dtype: the format of a uint8 cache (fp8 codes, or "uint8"
    bytes), as dtypes={"cache": ...} says it too. Returns (cache,): the
    cache updated in place, or an updated copy with inplace=False."""
    if impl not in APIS:
        raise Error(PARAM_INVALID, "impl: %r is not one of %s"
                    % (impl, ", ".join(APIS)), "impl")
    if layout is None:
        layout = int(framework_value(API_V2, "layout", {"cache": cache})) \
            if impl == "cr_v2" else 1
    if block_stride is None:
        block_stride = _dense_stride(cache) if impl == "va" else 0
    out = call(OP, dict(x=x, slot_mapping=slot_mapping, cache=cache),
               dict(impl=impl, quant_mode=_quant_mode(impl, quant_mode),
                    quant_group_size=quant_group_size,
                    round_scale=bool(round_scale), x_scale=float(x_scale),
                    layout=layout, block_stride=block_stride),
               {}, _cache_dtypes(cache_dtype, dtypes), inplace)
    return (out["cache"],)


def kv_compress_epilog(
        cache: TensorLike, x: TensorLike, slot_mapping: TensorLike, *,
        quant_group_size: int = 64, quant_mode: Mode = "fp8_e8m0",
        round_scale: bool = True, x_scale: float = 1.0,
        cache_dtype: Optional[str] = "uint8") -> None:
    """cann_ops_transformer.kv_compress_epilog (impl ot): cache updated in
    place; returns None. Its cache is uint8 bytes (the only dtype
    aclnnKvCompressEpilog takes), hence cache_dtype's default. quant_mode
    "fp8_bf16", "fp8_e8m0", "hifloat8_fp4" or 0 / 1 / 2, as its
    _resolve_quant_mode reads it."""
    kv_compress_epilog_impl(
        x, slot_mapping, cache, impl="ot",
        quant_mode=_quant_mode("ot", quant_mode),
        quant_group_size=quant_group_size, round_scale=round_scale,
        x_scale=x_scale, cache_dtype=cache_dtype)


def sgl_kv_compress_epilog(
        kv_compress_cache: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, quant_group_size: int, quant_mode: int,
        round_scale_flag: bool, layout: int, *,
        cache_dtype: Optional[str] = None) -> None:
    """torch.ops.npu.kv_compress_epilog (sgl-kernel-npu, impl sgk):
    kv_compress_cache (fp8, or uint8 with cache_dtype) updated in place;
    returns None. quant_mode 1 FP8, 2 MXFP8."""
    kv_compress_epilog_impl(
        x, slot_mapping, kv_compress_cache, impl="sgk",
        quant_mode=quant_mode, quant_group_size=quant_group_size,
        round_scale=round_scale_flag, layout=layout,
        cache_dtype=cache_dtype)


def vllm_kv_compress_epilog(
        kv_compress_cache: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, quant_group_size: int, quant_mode: int,
        round_scale_flag: bool, layout: int, *,
        cache_dtype: Optional[str] = None) -> None:
    """torch.ops._C_ascend.kv_compress_epilog (vllm-ascend, impl va): as
    sgl_kv_compress_epilog; the block stride is the cache's dim-0 stride
    (dense)."""
    kv_compress_epilog_impl(
        x, slot_mapping, kv_compress_cache, impl="va",
        quant_mode=quant_mode, quant_group_size=quant_group_size,
        round_scale=round_scale_flag, layout=layout,
        cache_dtype=cache_dtype)


def custom_kv_compress_epilog(
        kv_compress_cache: TensorLike, x: TensorLike,
        slot_mapping: TensorLike, *, quant_group_size: int = 64,
        quant_mode: int = 2, round_scale_flag: bool = True,
        scale: float = 1.0, cache_dtype: Optional[str] = None) -> None:
    """torch.ops.custom.kv_compress_epilog (cann-recipes-infer, impl cr):
    kv_compress_cache updated in place; returns None. quant_mode 1 FP8, 2
    MXFP8 (fp8 caches), 3 HiFloat8 (uint8 cache); scale is x_scale."""
    kv_compress_epilog_impl(
        x, slot_mapping, kv_compress_cache, impl="cr",
        quant_mode=quant_mode, quant_group_size=quant_group_size,
        round_scale=round_scale_flag, x_scale=scale,
        cache_dtype=cache_dtype)


def kv_compress_epilog_v2(
        cache: TensorLike, x: TensorLike, slot_mapping: TensorLike, *,
        quant_group_size: int = 32, quant_mode: str = "mxfp8_bf16",
        round_scale: bool = True, x_scale: float = 1.0,
        cache_dtype: Optional[str] = None) -> None:
    """torch.ops.custom.kv_compress_epilog_v2 (cann-recipes-infer, impl
    cr_v2): cache updated in place (2-D rows; a 4-D cache is its paged
    layout 2); returns None. quant_mode "mxfp8_bf16" (fp8 cache) or
    "mxfp4_bf16" (uint8 cache), strings only, as its torch API."""
    kv_compress_epilog_impl(
        x, slot_mapping, cache, impl="cr_v2",
        quant_mode=_quant_mode("cr_v2", quant_mode, ints=False),
        quant_group_size=quant_group_size, round_scale=round_scale,
        x_scale=x_scale, cache_dtype=cache_dtype)
