"""QkvRmsNormRopeCache as torch_npu.npu_qkv_rms_norm_rope_cache."""
from typing import Any, FrozenSet, Mapping, Optional, Sequence, Tuple

from .._types import DTypes, TensorLike
from ._common import call

__all__ = ["npu_qkv_rms_norm_rope_cache"]


# What only Python knows of torch_npu's call of this operator
# (kvgold/ops/__init__.py describes the fields; its arguments and outputs
# are tools/lib/bindings/qkv_rms_norm_rope_cache.c; the three "before
# quant" outputs it returns are None unless is_output_qkv: the
# operator's produced-only outputs, "produced_only").
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu.npu_qkv_rms_norm_rope_cache": {
        "function": "npu_qkv_rms_norm_rope_cache", "call": {"inplace": False},
        "ttk_spec": "KvgoldQkvRmsNormRopeCacheTestSpec",
        "ttk_golden": "qkv_rms_norm_rope_cache_golden"},
}

# The tensor arguments the NPU takes in float32 (msprobe widens others).
FP32_ARGS: Optional[FrozenSet[str]] = frozenset({"k_scale", "v_scale", "k_offset", "v_offset"})



def npu_qkv_rms_norm_rope_cache(
        qkv: TensorLike, q_gamma: TensorLike, k_gamma: TensorLike,
        cos: TensorLike, sin: TensorLike, index: TensorLike,
        q_out: TensorLike, k_cache: TensorLike, v_cache: TensorLike,
        qkv_size: Sequence[int], head_nums: Sequence[int], *,
        k_scale: Optional[TensorLike] = None,
        v_scale: Optional[TensorLike] = None,
        k_offset: Optional[TensorLike] = None,
        v_offset: Optional[TensorLike] = None, epsilon: float = 1e-6,
        cache_mode: str = "PA_NZ", is_output_qkv: bool = False,
        reduce_order: Optional[str] = None, overflow: Optional[str] = None,
        dtypes: DTypes = None, inplace: bool = True
) -> Tuple[Optional[TensorLike], ...]:
    """QkvRmsNormRopeCache. In place (the default) it writes q_out, k_cache
    and v_cache and returns (q_out_before_quant, k_out_before_quant,
    v_out_before_quant), each None unless is_output_qkv, as torch_npu
    does. inplace=False returns what op-plugin's functional variant
    returns: those three, then new q_out, k_cache, v_cache."""
    out = call("qkv_rms_norm_rope_cache", dict(
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
