"""pytest helpers: kvgold as the golden of an NPU test.

    from kvgold.testing import assert_matches_golden
    assert_matches_golden(op, inputs, npu_outputs,
                          attrs={"cache_mode": "PA_NZ"})
"""
import os
from typing import Any, Mapping, Optional

from ._case import save_case
from ._compare import CompareResult, compare
from ._case import PathLike
from ._types import DTypes, TensorLike, Values
from ._run import run


__all__ = ["assert_matches_golden"]


def assert_matches_golden(op: str, inputs: Mapping[str, Optional[TensorLike]],
                          npu_outputs: Mapping[str, Optional[TensorLike]],
                          attrs: Values = None, options: Values = None, *,
                          dtypes: DTypes = None,
                          save_to: Optional[PathLike] = None,
                          **compare_kwargs: Any) -> CompareResult:
    """Run the golden on `inputs` and judge `npu_outputs` (name -> the NPU's
    tensor) with the CANN criteria; raise AssertionError carrying the
    report unless every golden output was judged and passed.

    save_to: a directory; on failure the case is saved there (the golden
    outputs as "expected") with the NPU's outputs in save_to/npu, so that
    `kvgold compare save_to save_to/npu` reproduces the verdict."""
    golden = run(op, inputs, attrs, options, dtypes=dtypes)
    result = compare(golden, npu_outputs, **compare_kwargs)
    if result.passed:
        return result
    message = result.report()
    if save_to is not None:
        save_case(save_to, op, inputs, attrs, options, golden,
                  dtypes=golden.dtypes)
        npu_dir = os.path.join(save_to, "npu")
        _save_npu(npu_dir, npu_outputs, golden.dtypes or {})
        # the same standard, so that the command gives the same verdict
        std = compare_kwargs.get("standard")
        message += "saved: kvgold compare %s %s%s\n" % (
            save_to, npu_dir, " --standard %s" % std if std else "")
    raise AssertionError(message)


def _save_npu(directory: str, outputs: Mapping[str, Optional[TensorLike]],
              tags: Mapping[str, str]) -> None:
    """The NPU's outputs as directory/<name>.npy, written as save_case
    writes (all or nothing, never through a link)."""
    from . import _tensor
    from ._case import write_files
    write_files(directory, {n + ".npy": _tensor.view(n, t, tags.get(n))
                            for n, t in outputs.items() if t is not None})
