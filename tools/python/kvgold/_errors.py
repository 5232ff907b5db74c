"""kvgold.Error: a refused call, with the C library's diagnostics."""
from typing import Any

from . import _lib

# The codes Python raises itself, by their names in the library
# (kvgold/status.h; the library enumerates them, nothing is copied).
STATUS_NAMES = _lib.STATUS_NAMES
PARAM_NULLPTR = _lib.status("KVG_ERR_PARAM_NULLPTR")
PARAM_INVALID = _lib.status("KVG_ERR_PARAM_INVALID")
IO = _lib.status("KVG_ERR_IO")
FILE_FORMAT = _lib.status("KVG_ERR_FILE_FORMAT")


class Error(ValueError):
    """A call kvgold refused.

    status       the kvg_status code (161001 / 161002 as aclnn; 1700xx
                 kvgold's)
    status_name  its enum name ("KVG_ERR_PARAM_INVALID")
    tensor       the offending tensor, attribute or file field ("" if none)
    dim          the offending dimension, or -1
    position     the offending element / token / head, or -1
    message      the full sentence
    """

    status: int
    status_name: str
    tensor: str
    dim: int
    position: int
    message: str

    def __init__(self, status: int, message: str, tensor: str = "",
                 dim: int = -1, position: int = -1) -> None:
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status,
                                            "status %d" % status)
        self.tensor = tensor
        self.dim = dim
        self.position = position
        self.message = message
        super().__init__("%s (%d): %s" % (self.status_name, self.status,
                                          message))

    @classmethod
    def from_diag(cls, status: int, diag: Any) -> "Error":
        """The error a C call returning `status` described in `diag` (a
        kvg_diag)."""
        return cls(status, diag.message.decode("utf-8", "replace"),
                   diag.tensor.decode("utf-8", "replace"), diag.dim,
                   diag.position)
