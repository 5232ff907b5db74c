"""torch_npu's `dst_type` of a quantising API, stated once for every such
operator: the numbers its call form maps to kvgold's dtype tags (the
binding's `values`, read through _forms.value_map) and y as torch_npu
returns it (torch's
float8 dtype for an fp8 y, refused where this torch has none).

c10_npu::GetAclDataType reads a value >= 256 as aclDataType(value - 256)
and a smaller one as an at::ScalarType through torch_npu's table, which
today maps Float8_e5m2 (23) / Float8_e4m3fn (24) to ACL_FLOAT8_E5M2 /
ACL_FLOAT8_E4M3FN (Ascend/pytorch@9e73e708
torch_npu/csrc/framework/utils/CalcuOpUtil.cpp:72-73; the older
f14f2fdf:55-56 refused them, "has not been supported"): the bindings list
23 / 24 among the numbers, so they arrive here through value_map."""
import numbers
import sys
from typing import Dict, Tuple, Union

from .._errors import Error, PARAM_INVALID
from .._types import TensorLike
from ._forms import value_map

FP8 = ("fp8_e5m2", "fp8_e4m3fn")


class DstType:
    """dst_type of torch_npu API `api` of operator `op`; `codes_function`
    names the kvgold function that gives an fp8 y's uint8 codes."""

    def __init__(self, op: str, api: str, codes_function: str) -> None:
        spellings = value_map(op, api, "dst_type")
        self.numbers: Dict[int, str] = {
            int(n): str(tag) for n, tag in spellings.items()
            if isinstance(n, int)}
        # a torch.dtype as str() spells it ("torch.int8"), as callers pass
        # one (vllm-ascend: dst_type=torch.int8)
        self.dtypes: Dict[str, str] = {
            n: str(tag) for n, tag in spellings.items() if isinstance(n, str)}
        self.tags: Tuple[str, ...] = tuple(sorted(set(self.numbers.values())))
        self.codes_function = codes_function

    def tag(self, dst_type: Union[int, str]) -> str:
        """kvgold's tag of dst_type given as torch_npu's number, as a
        torch.dtype the binding lists, or as the tag a case (and `kvgold
        prepare --csv`) writes."""
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(dst_type, torch.dtype):
            if str(dst_type) in self.dtypes:
                return self.dtypes[str(dst_type)]
        elif isinstance(dst_type, str):
            if dst_type in self.tags:
                return dst_type
        elif isinstance(dst_type, numbers.Integral) and \
                not isinstance(dst_type, bool):
            n = int(dst_type)
            if n in self.numbers:
                return self.numbers[n]
        raise Error(PARAM_INVALID, "dst_type: %r is not one of torch_npu's "
                    "numbers (%s), torch dtypes (%s) or a kvgold tag (%s)"
                    % (dst_type, ", ".join("%d %s" % (n, t) for n, t in
                                           sorted(self.numbers.items())),
                       ", ".join(sorted(self.dtypes)),
                       ", ".join(self.tags)), "dst_type")

    def returned(self, y: TensorLike, tag: str) -> TensorLike:
        """y as torch_npu returns it: a torch fp8 y as torch's float8
        dtype (refused where this torch has none); anything else as kvgold
        gives it (int8, or the uint8 codes torch_npu gives hif8, fp4 pairs
        and E8M0 as)."""
        torch = sys.modules.get("torch")
        if tag not in FP8 or torch is None or \
                not isinstance(y, torch.Tensor):
            return y
        name = tag.replace("fp8_", "float8_")
        if not hasattr(torch, name):
            raise Error(PARAM_INVALID, "dst_type %s: torch_npu returns y as "
                        "torch.%s, which torch %s does not have; call %s "
                        "for its uint8 codes"
                        % (tag, name, torch.__version__,
                           self.codes_function), "dst_type")
        return y.view(getattr(torch, name))

    def check_torch(self, x: TensorLike, tag: str) -> None:
        """Refuse, before computing, an fp8 y this torch cannot return
        for a torch x."""
        torch = sys.modules.get("torch")
        if tag in FP8 and torch is not None and isinstance(x, torch.Tensor):
            self.returned(torch.empty(0, dtype=torch.uint8), tag)
