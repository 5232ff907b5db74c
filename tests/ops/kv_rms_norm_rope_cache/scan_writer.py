"""How KvRmsNormRopeCache is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd
from scan_dumps import positional, write_cann, write_ttk_case

OP = "kv_rms_norm_rope_cache"

ALIAS = "kv"
# an honest case, for the format tests that need some call
SAMPLE = "m_pa_bf16_kt_ct_sym_out"
# its op type: a CANN dump file's <op_type>, the prefix of an
# ops-test-kit manual case directory's name
OP_TYPE = "KvRmsNormRopeCache"
TORCH = "npu_kv_rmsnorm_rope_cache"  # its torch_npu name
# its op_name in an ops-test-kit kernel-mode CSV row
KERNEL = "kv_rms_norm_rope_cache"


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


IN = ["kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
      "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset"]
OUT = ["k_cache", "ckv_cache", "k_rope", "c_kv"]

# ops-test-kit's e2e testcase: the torch_npu API, its tensor arguments in
# signature order (op-plugin), what it returns then writes in place, and
# its keyword arguments
E2E_API = "torch_npu.npu_kv_rmsnorm_rope_cache"
E2E_IN = IN
E2E_OUT = OUT
E2E_ATTRS = ["epsilon", "cache_mode", "is_output_kv"]


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
                      [(k, sd.attr_text(v)) for k, v in call.attrs.items()],
                      task)


def msprobe(step, call, drop=None):
    args = [call.inputs[n] for n in IN[:7]]
    kwargs = {n: call.inputs[n] for n in IN[7:] if n in call.inputs}
    for k, v in call.attrs.items():
        kwargs[k] = v
    outs = positional(call, OUT, call.post)
    if drop is not None:
        outs = outs[:drop]
    return step.call("NPU", TORCH, args, kwargs, outs)
