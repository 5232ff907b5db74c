"""How ReshapeAndCacheOmni is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd

OP = "reshape_and_cache_omni"

ALIAS = "omni"
# an honest case, for the format tests that need some call
SAMPLE = "random_n3_d96_bf16"
# the operation directory of its ATB dump: <n>_<ATB_OP>
ATB_OP = "ReshapeAndCacheOmniOperation"


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def atb(call, root, name, drop_out=None):
    """As ATB dumps ReshapeAndCacheOmniOperation: ReshapeAndCache's
    tensors, so its writer's (looked up at the call, when every writer is
    loaded)."""
    return sd.op("rac").atb(call, root, name, drop_out)
