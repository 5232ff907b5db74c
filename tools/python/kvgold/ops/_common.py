"""What every per-operator function shares: the call through kvgold.run."""
import contextlib
import contextvars
import ctypes
import json
from typing import Any, Iterator, List, Mapping, Optional

from .. import _lib
from .._errors import Error, PARAM_INVALID
from .._run import Outputs, run
from .._types import DTypes, Values

# The runs of the calls made inside captured_runs() (this context only).
_captured: "contextvars.ContextVar[Optional[List[Outputs]]]" = \
    contextvars.ContextVar("kvgold_captured_runs", default=None)


def call(op: str, tensors: Mapping[str, Any], attrs: Values,
         options: Values, dtypes: DTypes, inplace: bool) -> Outputs:
    """kvgold.run on the tensors given (None: an optional tensor left out)."""
    out = run(op, {k: v for k, v in tensors.items() if v is not None},
              attrs, options, inplace=inplace, dtypes=dtypes)
    runs = _captured.get()
    if runs is not None:
        runs.append(out)
    return out


@contextlib.contextmanager
def captured_runs() -> Iterator[List[Outputs]]:
    """The kvgold.run results (operator, inputs, attributes, outputs) of
    the per-operator functions called inside the block: what a torch-named
    function that returns only tensors ran, for a caller that must judge
    its outputs as kvgold.compare would (kvgold.msprobe)."""
    runs: List[Outputs] = []
    token = _captured.set(runs)
    try:
        yield runs
    finally:
        _captured.reset(token)


def framework_value(api: str, attr: str,
                    given: Mapping[str, Optional[Any]]) -> Any:
    """The value the framework gives attribute `attr` on call form `api`
    (its full name, "torch_npu.npu_...") for a call giving the inputs
    `given` (kvgold input name -> tensor, None: not given): the rule as
    the C call forms state it once (tools/lib/bindings/<op>.c,
    framework_value), which `kvgold scan` and `kvgold prepare` follow
    too."""
    present = [(n, len(getattr(t, "shape", ()))) for n, t in given.items()
               if t is not None]
    names = (ctypes.c_char_p * max(len(present), 1))(
        *[n.encode() for n, _ in present])
    ranks = (ctypes.c_int * max(len(present), 1))(*[r for _, r in present])
    text = _lib.lib.kvg_py_framework_value(api.encode(), attr.encode(),
                                           names, ranks, len(present))
    if text is None:
        raise Error(PARAM_INVALID, "%s sets no %s (kvgold's call forms, "
                    "tools/lib/bindings)" % (api, attr), attr)
    return json.loads(text.decode())
