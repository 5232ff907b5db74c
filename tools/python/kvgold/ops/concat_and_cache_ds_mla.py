"""The packed C8 MLA cache row (656 B) under the names its writers call
it by (docs/concat_and_cache_ds_mla.md, "Python functions"):

- concat_and_cache_mla: vLLM's torch.ops._C_cache_ops.concat_and_cache_mla
  (csrc/torch_bindings.cpp: `concat_and_cache_mla(Tensor kv_c, Tensor
  k_pe, Tensor! kv_cache, Tensor slot_mapping, str kv_cache_dtype, Tensor
  scale) -> ()`), with kv_cache_dtype "fp8_ds_mla" - the one dtype whose
  row this operator is (preset vllm-fp8_ds_mla); kv_cache updated in
  place, None returned, as there.
- concat_and_cache_ds_mla: the operator with kvgold's names, any
  preset (flashmla-model1, DeepSeek-V4's 584-byte row, takes block_size;
  vllm-fp8_ds_mla takes use_ue8m0, vLLM's power-of-two tile scales).
  The Ascend path (preset ascend-sfa-c8) has no call of its own:
  vllm-ascend's custom_kv_rmsnorm_rope runs torch_npu's npu_rms_norm,
  npu_interleave_rope and the block quant and the caller scatters the
  row with npu_scatter_nd_update_, none of which is this operator; this
  function computes the whole composite.

vLLM's call form is tools/lib/bindings/concat_and_cache_ds_mla.c:
kvgold.ttk gives it (ops-test-kit's golden, computed by
concat_and_cache_ds_mla on a copy of the cache); it is no torch_npu
function, so kvgold.torch_npu and kvgold.msprobe do not.
"""
import struct
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple

from .._errors import Error, PARAM_INVALID
from .._tensor import Tensor
from .._types import DTypes, TensorLike
from ._common import call
from ._forms import value_map

__all__ = ["concat_and_cache_ds_mla", "concat_and_cache_mla"]

OP = "concat_and_cache_ds_mla"
API = "torch.ops._C_cache_ops.concat_and_cache_mla"

# What only Python knows of vLLM's call (kvgold/ops/__init__.py describes
# the fields; its arguments and kv_cache_dtype's spelling are the C
# binding's): computed on a copy of the cache, which vLLM allocates as
# uint8 bytes for fp8_ds_mla.
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    API: {"function": "concat_and_cache_ds_mla",
          "call": {"inplace": False, "dtypes": {"kv_cache": "uint8"}},
          "ttk_spec": "KvgoldConcatAndCacheMlaTestSpec",
          "ttk_golden": "concat_and_cache_mla_golden"},
}

# kv_c, k_pe, gamma, cos, sin are bf16; the cache 8-bit; vLLM's scale is
# float32 on the GPU too.
FP32_ARGS: Optional[FrozenSet[str]] = frozenset({"scale"})


def _dtypes(cache_dtype: Optional[str], dtypes: DTypes
            ) -> Optional[Dict[str, str]]:
    """kvgold.run's dtypes, with the cache's cache_dtype if given (an A5
    cache held as uint8 codes says "fp8_e4m3fn")."""
    out = dict(dtypes or {})
    if cache_dtype is not None:
        out["kv_cache"] = cache_dtype
    return out or None


def _preset(preset: str) -> str:
    """The preset, or vLLM's kv_cache_dtype that names it ("fp8_ds_mla",
    as ops-test-kit passes it to the golden; the binding's spelling)."""
    return str(value_map(OP, API, "preset").get(preset, preset))


def _scale(scale: Any) -> Any:
    """vLLM's scale tensor as given (its C check wants one float32), or a
    Python number as a 0-d float32 kvgold.Tensor (no NumPy needed)."""
    if scale is None or hasattr(scale, "shape"):
        return scale
    try:
        data = struct.pack("<f", float(scale))
    except (TypeError, ValueError, OverflowError):
        raise Error(PARAM_INVALID, "scale: a tensor or a number expected, "
                    "got %r" % (scale,), "scale")
    return Tensor(data, "fp32", ())


def concat_and_cache_ds_mla(
        kv_c: TensorLike, k_pe: TensorLike, kv_cache: TensorLike,
        slot_mapping: TensorLike, *, preset: str = "ascend-sfa-c8",
        gamma: Optional[TensorLike] = None,
        cos: Optional[TensorLike] = None, sin: Optional[TensorLike] = None,
        epsilon: float = 1e-5, scale: Any = None,
        reduce_order: Optional[str] = None, block_size: int = 0,
        use_ue8m0: bool = False, cache_dtype: Optional[str] = None,
        dtypes: DTypes = None, inplace: bool = True) -> Tuple[TensorLike]:
    """The operator with case.json's names. preset "ascend-sfa-c8"
    (gamma, cos, sin required; kv_cache int8 on A3, float8_e4m3fn on A5)
    or "vllm-fp8_ds_mla" (also spelled as vLLM's kv_cache_dtype
    "fp8_ds_mla"; no gamma / cos / sin; kv_cache uint8 or float8_e4m3fn;
    scale, vLLM's one-float32 tensor or a number, is read and not used)
    or "flashmla-model1" (FlashMLA's MODEL1_FP8Sparse: kv_c [..., 448];
    kv_cache [num_blocks, block_bytes] uint8 or float8_e4m3fn with
    block_bytes = ceil(block_size * 584 / 576) * 576; block_size, its
    tokens a block, required there and refused elsewhere).
    use_ue8m0 (vllm-fp8_ds_mla only; vLLM PR #49435, what vLLM reads from
    ds_mla_use_ue8m0_scale()): each tile's fp32 scale is 2^k, the least
    power of two >= max(amax / 448, 1e-4), and the codes are x / 2^k.
    reduce_order is kvgold's option (the Ascend RmsNorm's sum order).
    Returns (kv_cache,): updated in place, or an updated copy with
    inplace=False."""
    out = call(OP, dict(kv_c=kv_c, k_pe=k_pe, gamma=gamma, cos=cos,
                        sin=sin, slot_mapping=slot_mapping,
                        kv_cache=kv_cache, scale=_scale(scale)),
               dict(preset=_preset(preset), epsilon=float(epsilon),
                    block_size=int(block_size), use_ue8m0=bool(use_ue8m0)),
               dict(reduce_order=reduce_order),
               _dtypes(cache_dtype, dtypes), inplace)
    return (out["kv_cache"],)


def concat_and_cache_mla(
        kv_c: TensorLike, k_pe: TensorLike, kv_cache: TensorLike,
        slot_mapping: TensorLike, kv_cache_dtype: str, scale: Any, *,
        use_ue8m0: bool = False, cache_dtype: Optional[str] = "uint8"
        ) -> None:
    """vLLM's torch.ops._C_cache_ops.concat_and_cache_mla with
    kv_cache_dtype "fp8_ds_mla": kv_cache ([num_blocks, block_size, 656]
    uint8 bytes, as vLLM allocates it, hence cache_dtype's default)
    updated in place; returns None. Another kv_cache_dtype ("auto",
    "fp8", ...) writes another row, which this operator is not: refused.
    scale (one float32 tensor; a number is taken too) is read and, as by
    the ds_mla kernel, not used. use_ue8m0 is no argument of vLLM's op
    (vLLM reads ds_mla_use_ue8m0_scale(), PR #49435): say here what the
    vLLM replayed had - True, power-of-two tile scales."""
    if kv_cache_dtype != "fp8_ds_mla":
        raise Error(PARAM_INVALID, "kv_cache_dtype: %r; kvgold models "
                    "concat_and_cache_mla with \"fp8_ds_mla\" only (the "
                    "656-byte row; other dtypes write other rows)"
                    % (kv_cache_dtype,), "kv_cache_dtype")
    concat_and_cache_ds_mla(kv_c, k_pe, kv_cache, slot_mapping,
                            preset="vllm-fp8_ds_mla", scale=scale,
                            use_ue8m0=use_ue8m0, cache_dtype=cache_dtype)
