"""kvgold.Error: a refused call, with the C library's diagnostics."""

STATUS_NAMES = {
    0: "KVG_OK", 161001: "KVG_ERR_PARAM_NULLPTR",
    161002: "KVG_ERR_PARAM_INVALID", 170001: "KVG_ERR_WORKSPACE",
    170002: "KVG_ERR_IO", 170003: "KVG_ERR_FILE_FORMAT",
    170004: "KVG_ERR_NOMEM", 170005: "KVG_ERR_MISMATCH"}

PARAM_NULLPTR = 161001
PARAM_INVALID = 161002
IO = 170002
FILE_FORMAT = 170003


class Error(ValueError):
    """A call kvgold refused.

    status    the kvg_status code (161001 / 161002 as aclnn; 1700xx kvgold's)
    tensor    the offending tensor, attribute or file field ("" if none)
    dim       the offending dimension, or -1
    position  the offending element / token / head, or -1
    message   the full sentence
    """

    def __init__(self, status, message, tensor="", dim=-1, position=-1):
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status, "status %d" % status)
        self.tensor = tensor
        self.dim = dim
        self.position = position
        self.message = message
        super().__init__("%s (%d): %s" % (self.status_name, self.status,
                                          message))

    @classmethod
    def from_diag(cls, status, diag):
        return cls(status, diag.message.decode("utf-8", "replace"),
                   diag.tensor.decode("utf-8", "replace"), diag.dim,
                   diag.position)
