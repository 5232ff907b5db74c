"""How ReshapeAndCache is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd
from scan_dumps import positional, write_atb_op, write_cann, write_ttk_case

OP = "reshape_and_cache"

ALIAS = "rac"
# an honest case, for the format tests that need some call
SAMPLE = "nd_fp16"
# its op type: a CANN dump file's <op_type>, the prefix of an
# ops-test-kit manual case directory's name
OP_TYPE = "ReshapeAndCache"
# the operation directory of its ATB dump: <n>_<ATB_OP>
ATB_OP = "ReshapeAndCacheOperation"
TORCH = "_npu_reshape_and_cache"  # its torch_npu name
# torch_npu._npu_reshape_and_cache returns None: an msprobe dump holds no
# post-call tensor of it, so scan judges none of its calls there
MSPROBE_OUTPUTS = False


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


IN = ["key", "value", "key_cache", "value_cache", "slot_mapping",
      "wins", "seq_len", "offset_index"]

# ops-test-kit's e2e testcase: torch_npu._npu_reshape_and_cache(key,
# value, key_cache, value_cache, slot_indices), no keyword arguments
E2E_API = "torch_npu._npu_reshape_and_cache"
E2E_IN = IN[:5]
E2E_OUT = ["key_cache", "value_cache"]
E2E_ATTRS = []


def atb(call, root, name, drop_out=None):
    """A ReshapeAndCache / Omni call as ATB dumps it."""
    ins = [call.inputs[n] for n in IN if n in call.inputs]
    outs = [call.post["key_cache"], call.post["value_cache"]]
    if drop_out is not None:
        outs[drop_out] = None
    nz = set()
    if call.attrs.get("cache_layout") == "NZ":
        nz = {("in", 2), ("in", 3), ("out", 0), ("out", 1)}
    return write_atb_op(root, name, ins, outs, nz)


def ttk(call, root, name, fmt="npy"):
    return write_ttk_case(root, name, positional(call, IN, call.inputs),
                          [call.post["key_cache"], call.post["value_cache"]],
                          fmt)


def cann(call, root, name, task):
    nz = set()
    if call.attrs.get("cache_layout") == "NZ":
        nz = {("in", 2), ("in", 3), ("out", 0), ("out", 1)}
    return write_cann(root, OP_TYPE, name,
                      positional(call, IN, call.inputs),
                      [call.post["key_cache"], call.post["value_cache"]],
                      task=task, nz=nz, workspace=64)


def msprobe(step, call):
    """torch_npu._npu_reshape_and_cache returns None: no post-call caches
    in the dump."""
    args = [call.inputs[n] for n in IN[:5]]
    return step.call("NPU", TORCH, args, {}, [])
