"""kvgold: the bit-exact golden model of Ascend's fused KV-cache operators,
one import away (docs/python.md).

    import kvgold
    golden = kvgold.run("kv_rms_norm_rope_cache", inputs, {"cache_mode": "PA"})
    print(kvgold.compare(golden, npu_outputs).report())

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
from . import testing
from .ops import (_npu_reshape_and_cache, npu_kv_rmsnorm_rope_cache,
                  npu_qkv_rms_norm_rope_cache, reshape_and_cache,
                  reshape_and_cache_omni)

__version__ = _clib.kvg_version_string().decode()

__all__ = [
    "Case", "CompareResult", "Error", "Outputs", "Tensor", "TensorResult",
    "compare", "library_path", "load_case", "operators", "run", "save_case",
    "tensor", "testing", "to_torch", "npu_kv_rmsnorm_rope_cache",
    "npu_qkv_rms_norm_rope_cache", "reshape_and_cache",
    "reshape_and_cache_omni", "_npu_reshape_and_cache"]
