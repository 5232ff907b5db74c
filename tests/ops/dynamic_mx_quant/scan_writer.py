"""How DynamicMxQuant is written in a dump, for the scan tests (the generic
writers are tests/python/scan/scan_dumps.py). torch_npu's call takes
`input` and returns (y, mxscale), writing nothing in place; an fp4 y and
the E8M0 mxscale come back as torch.uint8 tensors of their bytes
(op-plugin DynamicMxQuantKernelNpuOpApi.cpp, docs/dynamic_mx_quant.md),
which is what msprobe records. Only msprobe's format is written here;
test_dmq_scan.py writes the fp4 y of a CANN dump (data_type 39, shape in
codes) and of an ops-test-kit float4_e2m1 .bin through scan_dumps'
generic writers, which follow those writers (docs/scan.md, "fp4")."""
import scan_dumps as sd

OP = "dynamic_mx_quant"
ALIAS = "dmq"
# an honest case for the format tests that need some call: fp4 rint, bf16,
# an odd block count (its scale pair padded with 0x00)
SAMPLE = "fp4_rint_bf16_last_odd"
TORCH = "npu_dynamic_mx_quant"  # its torch_npu name
# ops-test-kit's e2e testcase: the torch_npu API, its tensor argument and
# what it returns (nothing in place)
E2E_API = "torch_npu.npu_dynamic_mx_quant"
E2E_IN = ["x"]
E2E_OUT = ["y", "mxscale"]

# torch_npu's dst_type numbers, 256 + aclDataType as c10_npu::
# GetAclDataType reads them (tools/lib/bindings/dynamic_mx_quant.c)
E2E_VALUES = {"dst_type": {"fp4_e2m1": 296, "fp4_e1m2": 297,
                           "fp8_e5m2": 291, "fp8_e4m3fn": 292}}
E2E_ATTRS = ["axis", "round_mode", "dst_type", "block_size", "scale_alg",
             "dst_type_max", "max_low_bound"]
# what torch_npu returns a tensor of these dtypes as
AS_UINT8 = ("fp4_e2m1", "fp4_e1m2", "e8m0")


def case(name):
    """Vector case `name` of the operator as a call, its outputs as
    torch_npu returns them (fp4 y and E8M0 mxscale as uint8 bytes)."""
    c = sd.Call(OP, name)
    c.post = {n: returned(t) for n, t in c.post.items()}
    return c


def torch_attrs(call):
    """The call's keywords as a torch_npu caller writes them."""
    return {k: E2E_VALUES.get(k, {}).get(v, v)
            for k, v in call.attrs.items() if k in E2E_ATTRS}


def returned(t):
    """Output t as torch_npu returns it."""
    tag, arr = t
    return ("uint8", arr) if tag in AS_UINT8 else t


def msprobe(step, call, drop=None):
    outs = [call.post[n] for n in ("y", "mxscale")]
    if drop is not None:
        outs = outs[:drop]
    return step.call("NPU", TORCH, [call.inputs["x"]], torch_attrs(call),
                     outs)
