"""DynamicBlockQuant as aclnnDynamicBlockQuantV2 (dynamic_block_quant) and
as torch_npu.npu_dynamic_block_quant (op-plugin@517f2e7d
op_plugin/config/op_plugin_functions.yaml:7551,
op_plugin/ops/opapi/DynamicBlockQuantNpuOpApi.cpp).

torch_npu's dst_type is a dtype number read by c10_npu::GetAclDataType: a
value >= 256 is aclDataType(value - 256), a smaller one an at::ScalarType
converted by torch_npu's table, which maps the float8 ScalarTypes 23 /
24 to ACL_FLOAT8_E5M2 / E4M3FN (Ascend/pytorch@9e73e708
torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73). y is allocated as torch_npu's ScalarType of that ACL type:
int8 for int8, uint8 codes for hifloat8, torch.float8_e5m2 /
float8_e4m3fn for the fp8 types (docs/dynamic_block_quant.md, "Python
functions").
"""
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._types import DTypes, TensorLike
from ._common import call
from ._dst_type import DstType

__all__ = ["dynamic_block_quant", "npu_dynamic_block_quant"]


# What only Python knows of torch_npu's call of this operator
# (kvgold/ops/__init__.py describes the fields; its arguments and outputs
# are tools/lib/bindings/dynamic_block_quant.c): the chip selects the
# arithmetic (ascend950 divides, a2a3 multiplies by a rounded reciprocal).
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu.npu_dynamic_block_quant": {
        "function": "npu_dynamic_block_quant", "profile": True,
        "ttk_spec": "KvgoldDynamicBlockQuantTestSpec",
        "ttk_golden": "dynamic_block_quant_golden"},
}

# x may be float32 on the NPU (fp16, bf16 or fp32): FP32_ARGS None.
FP32_ARGS: Optional[FrozenSet[str]] = None

# torch_npu's dst_type numbers <-> kvgold's dtype tags, as the call form
# states them (tools/lib/bindings/dynamic_block_quant.c, `values`)
DST_TYPE = DstType("dynamic_block_quant", "torch_npu.npu_dynamic_block_quant",
                   "kvgold.ops.dynamic_block_quant.dynamic_block_quant")
DST_TYPES: Dict[int, str] = DST_TYPE.numbers
TAGS = DST_TYPE.tags


def dynamic_block_quant(
        x: TensorLike, *, min_scale: float = 0.0, round_mode: str = "rint",
        dst_type: str = "int8", row_block_size: int = 1,
        col_block_size: int = 128, dst_type_max: float = 0.0,
        profile: Optional[str] = None, dtypes: DTypes = None
) -> Tuple[TensorLike, TensorLike]:
    """aclnnDynamicBlockQuantV2 with kvgold's names (dst_type a dtype tag;
    profile "ascend950", the default, or "a2a3"). Returns (y, scale), new
    tensors of x's kind: y int8, or fp8 / hif8 codes as uint8; scale
    float32. x is not touched."""
    out = call("dynamic_block_quant", dict(x=x),
               dict(min_scale=min_scale, round_mode=round_mode,
                    dst_type=DST_TYPE.tag(dst_type),
                    row_block_size=row_block_size,
                    col_block_size=col_block_size,
                    dst_type_max=dst_type_max),
               dict(profile=profile), dtypes, False)
    return out["y"], out["scale"]


def npu_dynamic_block_quant(
        x: TensorLike, *, min_scale: float = 0.0, round_mode: str = "rint",
        dst_type: Union[int, str] = 1, row_block_size: int = 1,
        col_block_size: int = 128, dst_type_max: float = 0.0,
        profile: Optional[str] = None
) -> Tuple[TensorLike, TensorLike]:
    """torch_npu.npu_dynamic_block_quant: returns (y, scale), x untouched.
    dst_type is torch_npu's number (1 or 258 int8, 290 hifloat8, 291
    float8_e5m2, 292 float8_e4m3fn) or kvgold's tag. Torch in, torch out
    (fp8 y as torch.float8_*, refused where torch has none; hifloat8 y as
    uint8 codes, as torch_npu allocates it); NumPy in, NumPy out. profile
    is kvgold's option: "ascend950" (default) or "a2a3"."""
    tag = DST_TYPE.tag(dst_type)
    DST_TYPE.check_torch(x, tag)  # refuse before computing
    y, scale = dynamic_block_quant(
        x, min_scale=min_scale, round_mode=round_mode, dst_type=tag,
        row_block_size=row_block_size, col_block_size=col_block_size,
        dst_type_max=dst_type_max, profile=profile)
    return DST_TYPE.returned(y, tag), scale
