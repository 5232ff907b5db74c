"""How QkvRmsNormRopeCache is written in each dump format, for the scan
tests (the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd
from scan_dumps import positional, write_cann

OP = "qkv_rms_norm_rope_cache"
ALIAS = "qkv"
# an honest case, for the format tests that need some call
SAMPLE = "bf16_k_int8_sym_v_plain"
# its op type: a CANN dump file's <op_type>, the prefix of an
# ops-test-kit manual case directory's name
OP_TYPE = "QkvRmsNormRopeCache"
TORCH = "npu_qkv_rms_norm_rope_cache"  # its torch_npu name
# its op_name in an ops-test-kit kernel-mode CSV row
KERNEL = "qkv_rms_norm_rope_cache"


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


IN = ["qkv", "q_gamma", "k_gamma", "cos", "sin", "index", "q_out",
      "k_cache", "v_cache", "k_scale", "v_scale", "k_offset", "v_offset"]
# the kernel's outputs: the in-place three, then the before-quant ones
OUT = ["q_out", "k_cache", "v_cache", "q_out_before_quant",
       "k_out_before_quant", "v_out_before_quant"]
SCALARS = ["qkv_size", "head_nums"]

# ops-test-kit's e2e testcase (op-plugin's signature): the before-quant
# tensors it returns, then the three it writes in place
E2E_API = "torch_npu.npu_qkv_rms_norm_rope_cache"
E2E_IN = IN
E2E_OUT = OUT[3:] + OUT[:3]
E2E_ATTRS = ["qkv_size", "head_nums", "epsilon", "cache_mode",
             "is_output_qkv"]


def msprobe(step, call):
    """The positional list arguments qkv_size and head_nums, the rest by
    keyword. The output list is the functional variant's: the before-
    quant outputs (None unless is_output_qkv), then q_out, k_cache and
    v_cache after the call."""
    args = [call.inputs[n] for n in IN[:9]]
    args += [list(call.attrs[n]) for n in SCALARS]
    kwargs = {n: call.inputs[n] for n in IN[9:] if n in call.inputs}
    kwargs.update({k: v for k, v in call.attrs.items() if k not in SCALARS})
    before = [call.post.get(n) for n in OUT[3:]]
    outs = before + [call.post[n] for n in OUT[:3]]
    return step.call("NPU", TORCH, args, kwargs, outs)


def cann(call, root, name, task):
    return write_cann(root, OP_TYPE, name,
                      positional(call, IN, call.inputs),
                      positional(call, OUT, call.post),
                      [(k, sd.attr_text(v)) for k, v in call.attrs.items()],
                      task)
