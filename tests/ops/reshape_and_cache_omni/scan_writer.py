"""How ReshapeAndCacheOmni is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd
from scan_dumps import write_atb_op

OP = "reshape_and_cache_omni"

ALIAS = "omni"
# an honest case, for the format tests that need some call
SAMPLE = "random_n3_d96_bf16"
# the operation directory of its ATB dump: <n>_<ATB_OP>
ATB_OP = "ReshapeAndCacheOmniOperation"

# the operation's input tensors, in ATB's order
IN = ["key", "value", "key_cache", "value_cache", "slot_mapping", "wins",
      "seq_len", "offset_index"]


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def atb(call, root, name, drop_out=None):
    """A call as ATB dumps ReshapeAndCacheOmniOperation: its inputs, and
    its two caches after the call (drop_out: the index of one left
    out)."""
    ins = [call.inputs[n] for n in IN if n in call.inputs]
    outs = [call.post["key_cache"], call.post["value_cache"]]
    if drop_out is not None:
        outs[drop_out] = None
    return write_atb_op(root, name, ins, outs)
