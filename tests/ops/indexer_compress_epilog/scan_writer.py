"""How the indexer compress epilogs are written in a dump, for the scan
tests (the generic writers are tests/python/scan/scan_dumps.py). Their
torch APIs (tools/lib/bindings/indexer_compress_epilog.c) write the
caches in place and return nothing, so an ops-test-kit e2e case has the
return (None, a *_none marker) and then the caches of
inplace_input_indexes as its goldens: cr's cache and cache_scale (0, 1),
va_v2's one cache (0). Judged field by field. msprobe records the
pre-call caches only (msprobe_call): judged via read-back. This writer keeps no
generic hook name (msprobe / cann / E2E_API ...): the generic format tests
judge every writer's SAMPLE there, which an in-place op whose API returns
None does not fit; test_ice_scan.py uses FORMS."""
import csv

import scan_dumps as sd

OP = "indexer_compress_epilog"
ALIAS = "ice"
SAMPLE = "cr_m1_e4m3_bf16"


class FormCr:
    """torch.ops.custom.indexer_compress_epilog as an e2e case spells it."""
    E2E_API = "torch.ops.custom.indexer_compress_epilog"
    E2E_IN = ["cache", "cache_scale", "x", "slot_mapping"]
    E2E_OUT = ["(returns None)", "cache", "cache_scale"]
    E2E_ATTRS = ["quant_mode", "round_scale", "scale"]
    INPLACE = "(0, 1)"


class FormVa:
    """torch.ops._C_ascend.indexer_compress_epilog_v2."""
    E2E_API = "torch.ops._C_ascend.indexer_compress_epilog_v2"
    E2E_IN = ["cache", "x", "slot_mapping"]
    E2E_OUT = ["(returns None)", "cache"]
    E2E_ATTRS = ["layout"]
    INPLACE = "(0,)"


FORMS = {"cr": FormCr(), "va_v2": FormVa()}
# msprobe's name of each form: register_custom_api(module, name) records
# "<api_prefix>.<name>.<n>.forward", the prefix by default the module's
# __name__ (Ascend-mstt@99c2e0f9 msprobe/core/debugger/
# precision_debugger.py:106-109, core/hook_manager.py:174): for
# torch.ops.<ns>, "torch.ops.<ns>"
MSPROBE = {"cr": ("torch.ops.custom", "indexer_compress_epilog"),
           "va_v2": ("torch.ops._C_ascend", "indexer_compress_epilog_v2")}

# the kernels as a CANN dump records them: op type, inputs and outputs in
# the op definitions' order (CR op_host/indexer_compress_epilog_def.cpp:
# 22-75, VA op_host/indexer_compress_epilog_v2_def.cpp:22-46)
CANN_FORMS = {
    "cr": ("IndexerCompressEpilog",
           ["cache", "cache_scale", "x", "slot_mapping"],
           ["cache", "cache_scale"]),
    "va_v2": ("IndexerCompressEpilogV2", ["cache", "x", "slot_mapping"],
              ["cache"]),
}
CANN_DEFAULTS = {"quant_mode": 1, "round_scale": True, "scale": 1.0,
                 "layout": 2}


def cann_call(call, root, name, task=1):
    """The call as one CANN dump file of its kernel: the pre-call tensors
    as inputs, the post-call caches (the generator's) as outputs, and
    every attribute of the op definition, as an op records its attributes
    whether set or not: cr's quant_mode, round_scale (a Bool, def:74),
    scale; va_v2's layout and block_stride, which vllm-ascend's NPU
    function passes as the cache's dim-0 stride (csrc/torch_binding.cpp:
    1703-1711), the dense block here. Not named `cann`: the generic CANN
    tests (tests/python/scan/test_scan_cann.py) take that hook."""
    impl = call.attrs.get("impl", "cr")
    op_type, ins, outs = CANN_FORMS[impl]
    a = dict(CANN_DEFAULTS, **call.attrs)
    if impl == "va_v2":
        shape = call.inputs["cache"][1].shape
        attrs = [("layout", sd.attr_text(a["layout"])),
                 ("block_stride", str(shape[1] * shape[3]))]
    else:
        attrs = [("quant_mode", sd.attr_text(a["quant_mode"])),
                 ("round_scale", sd.attr_text(a["round_scale"])),
                 ("scale", repr(float(a["scale"])))]
    return sd.write_cann(root, op_type, name, [call.inputs[n] for n in ins],
                         [call.post[n] for n in outs], attrs, task)


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def msprobe_call(step, call, prefix=None):
    """The call as msprobe records it: the pre-call tensors, the
    attributes the case gives (the schemas spell them as kvgold does), no
    output (the API returns None). prefix: register_custom_api's
    api_prefix when the user gave one (the form's namespace otherwise)."""
    impl = call.attrs.get("impl", "cr")
    form = FORMS[impl]
    ns, api = MSPROBE[impl]
    kw = {k: v for k, v in call.attrs.items() if k in form.E2E_ATTRS}
    return step.call(prefix or ns, api,
                     [call.inputs[n] for n in form.E2E_IN], kw, [])


def e2e(call, root, name, fmt="bin"):
    """The call as an ops-test-kit e2e case of its impl's torch API; its
    CSV row."""
    form = FORMS[call.attrs.get("impl", "cr")]
    row = sd.write_ttk_e2e(form, call, root, name, fmt)
    row["inplace_input_indexes"] = form.INPLACE
    return row


def write_csv(path, rows):
    """ops-test-kit's e2e testcase CSV with its inplace_input_indexes
    column (scan_dumps.write_ttk_csv's columns leave it out)."""
    cols = list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path
