"""How ScatterPaKvCache is written in each dump format, for the scan tests
(the generic writers are tests/python/scan/scan_dumps.py)."""
import scan_dumps as sd
from scan_dumps import positional, write_cann

OP = "scatter_pa_kv_cache"
ALIAS = "spkc"
# an honest case, for the format tests that need some call
SAMPLE = "norm_fp16"
# its op type: a CANN dump file's <op_type>, the prefix of an
# ops-test-kit manual case directory's name
OP_TYPE = "ScatterPaKvCache"
TORCH = "npu_scatter_pa_kv_cache_functional"  # returns the caches
# its op_name in an ops-test-kit kernel-mode CSV row
KERNEL = "scatter_pa_kv_cache"


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


IN = ["key", "key_cache", "slot_mapping", "value", "value_cache",
      "compress_lens", "compress_seq_offset", "seq_lens"]
TORCH_IN = ["key", "value", "key_cache", "value_cache", "slot_mapping"]

# ops-test-kit's e2e testcase: npu_scatter_pa_kv_cache's tensors in
# signature order (not the kernel's), its caches as goldens
E2E_API = "torch_npu.npu_scatter_pa_kv_cache"
E2E_IN = TORCH_IN + ["compress_lens", "compress_seq_offset", "seq_lens"]
E2E_OUT = ["key_cache", "value_cache"]
E2E_ATTRS = ["cache_mode"]


def msprobe(step, call, drop=None, default_mode=False):
    """The functional variant; cache_mode as a keyword unless
    default_mode (then torch_npu's own default, PA_NZ, applies)."""
    args = [call.inputs[n] for n in TORCH_IN]
    kwargs = {}
    if not default_mode:
        kwargs["cache_mode"] = call.attrs.get("cache_mode", "Norm")
    # torch_npu's compress keywords (the 950's 4-D key form); its
    # compress_seq_offsets is the operator's compress_seq_offset
    for kw, name in (("compress_lens", "compress_lens"),
                     ("compress_seq_offsets", "compress_seq_offset"),
                     ("seq_lens", "seq_lens")):
        if name in call.inputs:
            kwargs[kw] = call.inputs[name]
    outs = [call.post["key_cache"], call.post["value_cache"]]
    if drop is not None:
        outs = outs[:drop]
    return step.call("NPU", TORCH, args, kwargs, outs)


def cann(call, root, name, task):
    nz = set()
    if call.attrs.get("cache_mode") == "PA_NZ":
        nz = {("in", 1), ("in", 4), ("out", 0), ("out", 1)}
    return write_cann(root, OP_TYPE, name,
                      positional(call, IN, call.inputs),
                      [call.post["key_cache"], call.post["value_cache"]],
                      [(k, sd.attr_text(v)) for k, v in call.attrs.items()],
                      task, nz=nz)
