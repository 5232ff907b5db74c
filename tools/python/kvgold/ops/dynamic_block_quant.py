"""DynamicBlockQuant as aclnnDynamicBlockQuantV2 (dynamic_block_quant) and
as torch_npu.npu_dynamic_block_quant (op-plugin@517f2e7d
op_plugin/config/op_plugin_functions.yaml:7551,
op_plugin/ops/opapi/DynamicBlockQuantNpuOpApi.cpp).

torch_npu's dst_type is a dtype number read by c10_npu::GetAclDataType: a
value >= 256 is aclDataType(value - 256), a smaller one an at::ScalarType
converted by torch_npu's table, which has no ACL type for the float8
ScalarTypes (Ascend/pytorch@f14f2fdf
torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:55-56, "has not been
supported"). y is allocated as torch_npu's ScalarType of that ACL type:
int8 for int8, uint8 codes for hifloat8, torch.float8_e5m2 /
float8_e4m3fn for the fp8 types (docs/dynamic_block_quant.md, "Python
functions").
"""
import numbers
import sys
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call
from ._forms import value_map

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

# torch_npu's dst_type numbers -> kvgold's dtype tag, as the call form
# states them (tools/lib/bindings/dynamic_block_quant.c, `values`: 256 +
# aclDataType, or at::ScalarType Char 1 for int8).
DST_TYPES: Dict[int, str] = {
    int(n): str(tag) for n, tag in value_map(
        "dynamic_block_quant", "torch_npu.npu_dynamic_block_quant",
        "dst_type").items()}
# at::ScalarType Float8_e5m2 / Float8_e4m3fn (and kvgold's tag of each):
# torch_npu refuses them
_SCALAR_FP8 = {23: ("Float8_e5m2", "fp8_e5m2"),
               24: ("Float8_e4m3fn", "fp8_e4m3fn")}
TAGS = tuple(sorted(set(DST_TYPES.values())))


def _dst_tag(dst_type: Union[int, str]) -> str:
    """kvgold's tag of dst_type given as torch_npu's number or as the tag
    a case (and `kvgold prepare --csv`) writes."""
    if isinstance(dst_type, str):
        if dst_type in TAGS:
            return dst_type
    elif isinstance(dst_type, numbers.Integral) and \
            not isinstance(dst_type, bool):
        n = int(dst_type)
        if n in DST_TYPES:
            return DST_TYPES[n]
        if n in _SCALAR_FP8:
            raise Error(PARAM_INVALID, "dst_type: %d is at::ScalarType %s, "
                        "which torch_npu's ConvertToAclDataType refuses "
                        "(\"has not been supported\"); pass %d"
                        % (n, _SCALAR_FP8[n][0],
                           min(k for k, t in DST_TYPES.items()
                               if t == _SCALAR_FP8[n][1])),
                        "dst_type")
    raise Error(PARAM_INVALID, "dst_type: %r is not one of torch_npu's "
                "numbers (%s) or a kvgold tag (%s)"
                % (dst_type, ", ".join("%d %s" % (n, t) for n, t in
                                       sorted(DST_TYPES.items())),
                   ", ".join(TAGS)), "dst_type")


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
                    dst_type=_dst_tag(dst_type),
                    row_block_size=row_block_size,
                    col_block_size=col_block_size,
                    dst_type_max=dst_type_max),
               dict(profile=profile), dtypes, False)
    return out["y"], out["scale"]


def _as_torch_npu(y: TensorLike, tag: str) -> TensorLike:
    """y as torch_npu returns it: a torch fp8 y as torch's float8 dtype
    (refused where this torch has none); int8, hif8 (uint8) and anything
    not torch as kvgold gives it."""
    torch = sys.modules.get("torch")
    if tag not in ("fp8_e5m2", "fp8_e4m3fn") or torch is None or \
            not isinstance(y, torch.Tensor):
        return y
    name = tag.replace("fp8_", "float8_")
    if not hasattr(torch, name):
        raise Error(PARAM_INVALID, "dst_type %s: torch_npu returns y as "
                    "torch.%s, which torch %s does not have; call "
                    "kvgold.ops.dynamic_block_quant.dynamic_block_quant for "
                    "its uint8 codes" % (tag, name, torch.__version__),
                    "dst_type")
    return y.view(getattr(torch, name))


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
    tag = _dst_tag(dst_type)
    if tag in ("fp8_e5m2", "fp8_e4m3fn"):
        _as_torch_npu(_probe_torch(x), tag)  # refuse before computing
    y, scale = dynamic_block_quant(
        x, min_scale=min_scale, round_mode=round_mode, dst_type=tag,
        row_block_size=row_block_size, col_block_size=col_block_size,
        dst_type_max=dst_type_max, profile=profile)
    return _as_torch_npu(y, tag), scale


def _probe_torch(x: TensorLike) -> TensorLike:
    """An empty uint8 tensor when x is a torch tensor (to ask
    _as_torch_npu whether it can give fp8), else x."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return torch.empty(0, dtype=torch.uint8)
    return x
