"""What every per-operator function shares: the call through kvgold.run."""
from .._run import run


def call(op, tensors, attrs, options, dtypes, inplace):
    """kvgold.run on the tensors given (None: an optional tensor left out)."""
    return run(op, {k: v for k, v in tensors.items() if v is not None},
               attrs, options, inplace=inplace, dtypes=dtypes)
