"""kvgold: the bit-exact golden model of Ascend's fused KV-cache operators,
one import away (docs/python.md).

    import kvgold
    out = kvgold.run("kv_rms_norm_rope_cache", inputs, {"cache_mode": "PA"})
    kvgold.compare(out, npu_outputs).report()

Standard library only; NumPy and torch are used when the caller passes
their tensors. The C library is libkvgold.so next to this file, or the one
named by the environment variable KVGOLD_LIBRARY.
"""
from ._errors import Error
from ._lib import PATH as library_path
from ._run import Outputs, operators, run
from ._tensor import Tensor, tensor
from ._case import Case, load_case, save_case
from ._compare import CompareResult, TensorResult, compare
from . import testing

__version__ = __import__("kvgold._lib", fromlist=["lib"]).lib \
    .kvg_version_string().decode()

__all__ = ["Case", "CompareResult", "TensorResult", "compare", "testing", "Error", "load_case", "save_case", "Outputs", "Tensor", "library_path", "operators", "run",
           "tensor"]
