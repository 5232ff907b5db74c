"""kvgold: the bit-exact golden model of Ascend's fused KV-cache operators,
one import away (docs/python.md).

    import kvgold
    # op: an operator's case.json name, one of kvgold.operators()
    golden = kvgold.run(op, inputs, attrs)
    print(kvgold.compare(golden, npu_outputs).report())

The per-operator functions under their torch_npu / ATB names
(kvgold.npu_..., kvgold._npu_...) are kvgold.ops.FUNCTIONS, found in
kvgold/ops/<op>.py and looked up here at run time (PEP 562 __getattr__), so
this file names no operator; a type checker sees their signatures through
kvgold.ops.<op> (docs/python.md, "Types"). kvgold.torch_npu (imported on
demand) is a CPU stand-in for the torch_npu module built from them.

Standard library only; NumPy and torch are used when the caller passes
their tensors. The C library is libkvgold.so next to this file, or the one
named by the environment variable KVGOLD_LIBRARY.
"""
import pkgutil as _pkgutil
from typing import Any as _Any, Callable as _Callable, List as _List

from . import ops, testing  # noqa: F401 (kvgold.ops: the operator modules)
from ._case import Case, load_case, save_case
from ._compare import CompareResult, TensorResult, compare
from ._errors import Error
from ._lib import PATH as library_path
from ._lib import lib as _clib
from ._run import Outputs, operators, run
from ._scan import scan
from ._tensor import Tensor, tensor, to_torch

__version__: str = _clib.kvg_version_string().decode()

__all__ = [
    "Case", "CompareResult", "Error", "Outputs", "Tensor", "TensorResult",
    "compare", "library_path", "load_case", "operators", "run",
    "save_case", "scan", "tensor", "testing", "to_torch"]


def _check_names() -> None:
    """A per-operator function named as one of this package's own names
    or submodules would be shadowed by it (or, for a submodule imported
    later, replaced): an error, not a silent choice."""
    taken = set(globals()) | {m.name for m in
                              _pkgutil.iter_modules(__path__)}
    clash = sorted(taken & set(ops.FUNCTIONS))
    if clash:
        raise ImportError("kvgold: per-operator function(s) %s named as "
                          "kvgold's own" % ", ".join(clash))


_check_names()

__all__ += sorted(ops.FUNCTIONS)


def __getattr__(name: str) -> _Callable[..., _Any]:
    """The per-operator function `name` (kvgold.ops.FUNCTIONS)."""
    fn = ops.FUNCTIONS.get(name)
    if fn is None:
        raise AttributeError("module 'kvgold' has no attribute %r" % name)
    return fn


def __dir__() -> _List[str]:
    return sorted(set(globals()) | set(ops.FUNCTIONS))
