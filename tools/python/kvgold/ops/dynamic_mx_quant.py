"""DynamicMxQuant as aclnnDynamicMxQuantV3 (dynamic_mx_quant) and as
torch_npu.npu_dynamic_mx_quant (op-plugin@517f2e7d
op_plugin/config/op_plugin_functions.yaml:6148,
op_plugin/ops/opapi/DynamicMxQuantKernelNpuOpApi.cpp).

torch_npu's dst_type is a dtype number read by c10_npu::GetAclDataType: a
value >= 256 is aclDataType(value - 256) - 296 FLOAT4_E2M1 (its default),
297 FLOAT4_E1M2, 291 FLOAT8_E5M2, 292 FLOAT8_E4M3FN - a smaller one an
at::ScalarType, whose Float8 types (23, 24) torch_npu's table maps to the
same ACL types (Ascend/pytorch@9e73e708
torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73). y is allocated as uint8 [..., n/2] for the fp4 types and as
torch's float8 dtype for fp8; mxscale always as uint8 (passed to aclnn as
ACL_FLOAT8_E8M0) (docs/dynamic_mx_quant.md, "Python functions").
"""
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._types import DTypes, TensorLike
from ._common import call
from ._dst_type import DstType

__all__ = ["dynamic_mx_quant", "npu_dynamic_mx_quant"]


# What only Python knows of torch_npu's call of this operator
# (kvgold/ops/__init__.py describes the fields; its arguments and outputs
# are tools/lib/bindings/dynamic_mx_quant.c): 950 only, no profile.
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu.npu_dynamic_mx_quant": {
        "function": "npu_dynamic_mx_quant", "profile": False,
        "ttk_spec": "KvgoldDynamicMxQuantTestSpec",
        "ttk_golden": "dynamic_mx_quant_golden"},
}

# x may be float32 on the NPU (fp16, bf16 or fp32): FP32_ARGS None.
FP32_ARGS: Optional[FrozenSet[str]] = None

# torch_npu's dst_type numbers <-> kvgold's dtype tags, as the call form
# states them (tools/lib/bindings/dynamic_mx_quant.c, `values`)
DST_TYPE = DstType("dynamic_mx_quant", "torch_npu.npu_dynamic_mx_quant",
                   "kvgold.ops.dynamic_mx_quant.dynamic_mx_quant")
DST_TYPES: Dict[int, str] = DST_TYPE.numbers
TAGS = DST_TYPE.tags


def dynamic_mx_quant(
        x: TensorLike, *, axis: int = -1, round_mode: str = "rint",
        dst_type: str = "fp4_e2m1", block_size: int = 32,
        scale_alg: int = 0, dst_type_max: float = 0.0,
        max_low_bound: float = 0.0, dtypes: DTypes = None
) -> Tuple[TensorLike, TensorLike]:
    """aclnnDynamicMxQuantV3 with kvgold's names (dst_type a dtype tag).
    Returns (y, mxscale), new tensors of x's kind: y the fp4 pairs
    (uint8 [..., n/2]) or fp8 codes (uint8), mxscale the E8M0 codes
    (uint8). x is not touched."""
    out = call("dynamic_mx_quant", dict(x=x),
               dict(axis=axis, round_mode=round_mode,
                    dst_type=DST_TYPE.tag(dst_type), block_size=block_size,
                    scale_alg=scale_alg, dst_type_max=dst_type_max,
                    max_low_bound=max_low_bound),
               {}, dtypes, False)
    return out["y"], out["mxscale"]


def npu_dynamic_mx_quant(
        input: TensorLike, *, axis: int = -1, round_mode: str = "rint",
        dst_type: Union[int, str] = 296, block_size: int = 32,
        scale_alg: Optional[int] = 0, dst_type_max: float = 0.0,
        max_low_bound: float = 0.0
) -> Tuple[TensorLike, TensorLike]:
    """torch_npu.npu_dynamic_mx_quant: returns (y, mxscale), input
    untouched. dst_type is torch_npu's number (296 float4_e2m1fn_x2, 297
    float4_e1m2 - refused: not modelled -, 291 float8_e5m2, 292
    float8_e4m3fn) or kvgold's tag; scale_alg None is 0, as torch_npu
    reads it. Torch in, torch out (fp4 y as uint8 [..., n/2]; fp8 y as
    torch.float8_*, refused where torch has none; mxscale uint8); NumPy
    in, NumPy out."""
    tag = DST_TYPE.tag(dst_type)
    DST_TYPE.check_torch(input, tag)  # refuse before computing
    y, mxscale = dynamic_mx_quant(
        input, axis=axis, round_mode=round_mode, dst_type=tag,
        block_size=block_size, scale_alg=0 if scale_alg is None else
        scale_alg, dst_type_max=dst_type_max, max_low_bound=max_low_bound)
    return DST_TYPE.returned(y, tag), mxscale
