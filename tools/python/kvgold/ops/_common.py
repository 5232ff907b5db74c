"""What every per-operator function shares: the call through kvgold.run."""
from typing import Any, Mapping

from .._run import Outputs, run
from .._types import DTypes, Values


def call(op: str, tensors: Mapping[str, Any], attrs: Values,
         options: Values, dtypes: DTypes, inplace: bool) -> Outputs:
    """kvgold.run on the tensors given (None: an optional tensor left out)."""
    return run(op, {k: v for k, v in tensors.items() if v is not None},
               attrs, options, inplace=inplace, dtypes=dtypes)
