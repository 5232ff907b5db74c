"""How DynamicBlockQuant is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py). torch_npu's
call takes x and returns (y, scale), writing nothing in place."""
import scan_dumps as sd
from scan_dumps import positional, write_cann, write_ttk_case

OP = "dynamic_block_quant"
ALIAS = "dbq"
# an honest case, for the format tests that need some call: int8, the
# 950's arithmetic (kvgold's default profile), partial column blocks
SAMPLE = "int8_fp16_2d_1x128_partial_cols"
# its op type: a CANN dump file's <op_type>, the prefix of an
# ops-test-kit manual case directory's name
OP_TYPE = "DynamicBlockQuant"
TORCH = "npu_dynamic_block_quant"  # its torch_npu name
# its op_name in an ops-test-kit kernel-mode CSV row
KERNEL = "dynamic_block_quant"


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


IN = ["x"]
OUT = ["y", "scale"]

# ops-test-kit's e2e testcase: the torch_npu API, its tensor argument,
# what it returns (nothing in place) and its keyword arguments
E2E_API = "torch_npu.npu_dynamic_block_quant"
E2E_IN = IN
E2E_OUT = OUT
# (dst_type as the case's tag, as `kvgold prepare --csv` writes it)
E2E_ATTRS = ["min_scale", "round_mode", "dst_type", "row_block_size",
             "col_block_size", "dst_type_max"]


def _torch_attrs(call):
    """The call's keywords as a torch_npu caller writes them: dst_type
    left to torch_npu's default (int8) - its other values are numbers a
    case's dtype tag does not map to (docs/dynamic_block_quant.md)."""
    assert call.attrs.get("dst_type", "int8") == "int8", \
        "the writers write int8 calls only"
    return {k: v for k, v in call.attrs.items()
            if k in E2E_ATTRS and k != "dst_type"}


def ttk(call, root, name, fmt="npy", drop=None):
    outs = positional(call, OUT, call.post)
    if drop is not None:
        outs = outs[:drop]
    return write_ttk_case(root, name, positional(call, IN, call.inputs),
                          outs, fmt)


def cann(call, root, name, task, drop=None):
    outs = positional(call, OUT, call.post)
    if drop is not None:
        outs = outs[:drop]
    return write_cann(root, OP_TYPE, name,
                      positional(call, IN, call.inputs), outs,
                      [(k, sd.attr_text(v)) for k, v in
                       _torch_attrs(call).items()], task)


def msprobe(step, call, drop=None):
    outs = positional(call, OUT, call.post)
    if drop is not None:
        outs = outs[:drop]
    return step.call("NPU", TORCH, [call.inputs["x"]], _torch_attrs(call),
                     outs)
