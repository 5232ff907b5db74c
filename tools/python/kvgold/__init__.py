"""kvgold: the bit-exact golden model of Ascend's fused KV-cache operators,
one import away (docs/python.md).

    import kvgold
    # op: an operator's case.json name, one of kvgold.operators()
    golden = kvgold.run(op, inputs, attrs)
    print(kvgold.compare(golden, npu_outputs).report())

The per-operator functions under their torch_npu / ATB names
(kvgold.npu_kv_rmsnorm_rope_cache, ...) come from kvgold/ops/<op>.py;
kvgold.torch_npu (imported on demand) is a CPU stand-in for the torch_npu
module built from them.

Standard library only; NumPy and torch are used when the caller passes
their tensors. The C library is libkvgold.so next to this file, or the one
named by the environment variable KVGOLD_LIBRARY.
"""
from ._errors import Error
from ._lib import PATH as library_path
from ._lib import lib as _clib
from ._run import Outputs, operators, run
from ._tensor import Tensor, tensor, to_torch
from ._case import Case, load_case, save_case
from ._compare import CompareResult, TensorResult, compare
from ._scan import scan
from . import testing
from . import ops

__version__ = _clib.kvg_version_string().decode()

__all__ = [
    "Case", "CompareResult", "Error", "Outputs", "Tensor", "TensorResult",
    "compare", "library_path", "load_case", "operators", "run", "save_case",
    "scan", "tensor", "testing", "to_torch"]

# The per-operator functions (kvgold/ops/<op>.py) at the top level, as
# docs/python.md promises.
globals().update(ops.FUNCTIONS)
__all__ += sorted(ops.FUNCTIONS)
