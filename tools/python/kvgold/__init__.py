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
from . import ops, testing  # noqa: F401 (kvgold.ops: the operator modules)
from ._case import Case, load_case, save_case
from ._compare import CompareResult, TensorResult, compare
from ._errors import Error
from ._lib import PATH as library_path
from ._lib import lib as _clib
from ._run import Outputs, operators, run
from ._scan import scan
from ._tensor import Tensor, tensor, to_torch
# The per-operator functions (kvgold/ops/<op>.py) at the top level, as
# docs/python.md promises; tests/python/test_ops.py checks that every
# function of kvgold.ops is here.
from .ops.kv_rms_norm_rope_cache import (
    npu_kv_rmsnorm_rope_cache, npu_kv_rmsnorm_rope_cache_v2,
    npu_kv_rmsnorm_rope_cache_v2_functional)
from .ops.qkv_rms_norm_rope_cache import npu_qkv_rms_norm_rope_cache
from .ops.reshape_and_cache import (
    _npu_reshape_and_cache, _npu_reshape_and_cache_siso, reshape_and_cache)
from .ops.reshape_and_cache_omni import reshape_and_cache_omni
from .ops.scatter_pa_kv_cache import (
    npu_scatter_pa_kv_cache, npu_scatter_pa_kv_cache_functional,
    scatter_pa_kv_cache)

__version__: str = _clib.kvg_version_string().decode()

__all__ = [
    "Case", "CompareResult", "Error", "Outputs", "Tensor", "TensorResult",
    "compare", "library_path", "load_case", "operators", "run",
    "save_case", "scan", "tensor", "testing", "to_torch",
    # per-operator functions
    "_npu_reshape_and_cache", "_npu_reshape_and_cache_siso",
    "npu_kv_rmsnorm_rope_cache", "npu_kv_rmsnorm_rope_cache_v2",
    "npu_kv_rmsnorm_rope_cache_v2_functional",
    "npu_qkv_rms_norm_rope_cache", "npu_scatter_pa_kv_cache",
    "npu_scatter_pa_kv_cache_functional", "reshape_and_cache",
    "reshape_and_cache_omni", "scatter_pa_kv_cache"]
