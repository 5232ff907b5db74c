"""DynamicMxQuant as aclnnDynamicMxQuantV3 (dynamic_mx_quant) and as
torch_npu.npu_dynamic_mx_quant (op-plugin@517f2e7d
op_plugin/config/op_plugin_functions.yaml:6148,
op_plugin/ops/opapi/DynamicMxQuantKernelNpuOpApi.cpp).

torch_npu's dst_type is a dtype number read by c10_npu::GetAclDataType: a
value >= 256 is aclDataType(value - 256) - 296 FLOAT4_E2M1 (its default),
297 FLOAT4_E1M2, 291 FLOAT8_E5M2, 292 FLOAT8_E4M3FN - a smaller one an
at::ScalarType, whose Float8 types (23, 24) torch_npu's table refuses
(Ascend/pytorch@f14f2fdf torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:
55-56). y is allocated as uint8 [..., n/2] for the fp4 types and as
torch's float8 dtype for fp8; mxscale always as uint8 (passed to aclnn as
ACL_FLOAT8_E8M0) (docs/dynamic_mx_quant.md, "Python functions").
"""
import numbers
import sys
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import DTypes, TensorLike
from ._common import call
from ._forms import value_map

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

# torch_npu's dst_type numbers -> kvgold's dtype tag, as the call form
# states them (tools/lib/bindings/dynamic_mx_quant.c, `values`).
DST_TYPES: Dict[int, str] = {
    int(n): str(tag) for n, tag in value_map(
        "dynamic_mx_quant", "torch_npu.npu_dynamic_mx_quant",
        "dst_type").items()}
# at::ScalarType Float8_e5m2 / Float8_e4m3fn (and kvgold's tag of each):
# torch_npu refuses them
_SCALAR_FP8 = {23: ("Float8_e5m2", "fp8_e5m2"),
               24: ("Float8_e4m3fn", "fp8_e4m3fn")}
TAGS = tuple(sorted(set(DST_TYPES.values())))
_FP8 = ("fp8_e5m2", "fp8_e4m3fn")


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
                    dst_type=_dst_tag(dst_type), block_size=block_size,
                    scale_alg=scale_alg, dst_type_max=dst_type_max,
                    max_low_bound=max_low_bound),
               {}, dtypes, False)
    return out["y"], out["mxscale"]


def _as_torch_npu(y: TensorLike, tag: str) -> TensorLike:
    """y as torch_npu returns it: a torch fp8 y as torch's float8 dtype
    (refused where this torch has none); fp4 pairs (uint8) and anything
    not torch as kvgold gives it."""
    torch = sys.modules.get("torch")
    if tag not in _FP8 or torch is None or not isinstance(y, torch.Tensor):
        return y
    name = tag.replace("fp8_", "float8_")
    if not hasattr(torch, name):
        raise Error(PARAM_INVALID, "dst_type %s: torch_npu returns y as "
                    "torch.%s, which torch %s does not have; call "
                    "kvgold.ops.dynamic_mx_quant.dynamic_mx_quant for its "
                    "uint8 codes" % (tag, name, torch.__version__),
                    "dst_type")
    return y.view(getattr(torch, name))


def _probe_torch(x: TensorLike) -> TensorLike:
    """An empty uint8 tensor when x is a torch tensor (to ask
    _as_torch_npu whether it can give fp8), else x."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return torch.empty(0, dtype=torch.uint8)
    return x


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
    tag = _dst_tag(dst_type)
    if tag in _FP8:
        _as_torch_npu(_probe_torch(input), tag)  # refuse before computing
    y, mxscale = dynamic_mx_quant(
        input, axis=axis, round_mode=round_mode, dst_type=tag,
        block_size=block_size, scale_alg=0 if scale_alg is None else
        scale_alg, dst_type_max=dst_type_max, max_low_bound=max_low_bound)
    return _as_torch_npu(y, tag), mxscale
