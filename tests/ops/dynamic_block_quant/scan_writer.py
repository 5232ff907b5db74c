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
E2E_ATTRS = ["min_scale", "round_mode", "dst_type", "row_block_size",
             "col_block_size", "dst_type_max"]
# the values torch_npu spells otherwise than case.json: dst_type as
# c10_npu::GetAclDataType reads it, 256 + aclDataType (int8 also the
# at::ScalarType Char, 1, torch_npu's default and what prepare writes)
E2E_VALUES = {"dst_type": {"int8": 1, "hif8": 290, "fp8_e5m2": 291,
                           "fp8_e4m3fn": 292}}


# aclnn's: the aclDataType itself (a CANN dump's dstType)
ACL_VALUES = {"dst_type": {"int8": 2, "hif8": 34, "fp8_e5m2": 35,
                           "fp8_e4m3fn": 36}}


def torch_attrs(call):
    """The call's keywords as a torch_npu caller writes them."""
    return {k: E2E_VALUES.get(k, {}).get(v, v)
            for k, v in call.attrs.items() if k in E2E_ATTRS}


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
                      [(k, sd.attr_text(ACL_VALUES.get(k, {}).get(v, v)))
                       for k, v in call.attrs.items()], task)


def msprobe(step, call, drop=None):
    outs = positional(call, OUT, call.post)
    if drop is not None:
        outs = outs[:drop]
    return step.call("NPU", TORCH, [call.inputs["x"]], torch_attrs(call),
                     outs)
