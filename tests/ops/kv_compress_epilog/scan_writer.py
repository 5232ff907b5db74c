"""How KvCompressEpilog is written in a dump, for the scan tests (the
generic writers are tests/python/scan/scan_dumps.py). Its five torch APIs
(one per implementation, tools/lib/bindings/kv_compress_epilog.c) write
the cache in place and return nothing, so:
- ops-test-kit e2e (.bin / .npy / .pt, with its testcase CSV): the case
  names the API exactly; its goldens are the return (None, a *_none
  marker) then the cache its inplace_input_indexes (0,) names: judged.
- msprobe: inputs are dumped before the call (forward pre-hook) and the
  output is the return value, None (msprobe core/dump/hook_manager.py
  forward_pre_hook / forward_hook, data_processor/base.py
  analyze_forward_input / _output); the record's name is
  "<api_prefix>.kv_compress_epilog", the prefix the namespace (msprobe's
  default for register_custom_api) or what the user gave. The namespace
  or --attr impl picks the form; the post-call cache is read back from
  the next record that takes it (docs/scan.md, "Read-back").
- CANN: op type KvCompressEpilog is judged as ot when its dumped
  attributes are ot's (x_scale, none of cr's scale / sgk's and va's
  layout, block_stride), else NOT JUDGED (the op type is shared);
  KvCompressEpilogV2 as cr_v2. ATB: no form, NOT JUDGED. test_kce_scan.py
  writes these with scan_dumps' writers.
- ops-test-kit's own writer (ManualDataStore.write_case, run in session
  kscan2 on ot calls) writes the names e2e() writes: input_0_uint8,
  input_1_bfloat16, input_2_int32, golden_0_none, golden_1_uint8.
This writer keeps no generic hook name (msprobe / cann / E2E_API ...): the
generic format tests judge every writer's SAMPLE there, which an
in-place op with five forms does not fit; test_kce_scan.py uses FORMS."""
import scan_dumps as sd

OP = "kv_compress_epilog"
ALIAS = "kce"
SAMPLE = "ot_m1_e8m0_d576_int32"


class Form:
    """One torch API of the operator as ops-test-kit's e2e case spells
    it (the E2E_* names scan_dumps.write_ttk_e2e reads)."""

    def __init__(self, api, attrs, values=None):
        self.E2E_API = api
        self.E2E_IN = ["cache", "x", "slot_mapping"]
        # ops-test-kit lists the API's return (None: a *_none golden),
        # then the in-place slots of inplace_input_indexes (the cache)
        self.E2E_OUT = ["(returns None)", "cache"]
        self.E2E_ATTRS = attrs
        self.E2E_VALUES = values or {}


_ROWS = ["quant_group_size", "quant_mode", "round_scale", "x_scale"]
_BLOCKS = ["quant_group_size", "quant_mode", "round_scale", "layout"]
# impl -> its torch API; values as the binding's k_values_* spell them
FORMS = {
    "ot": Form("cann_ops_transformer.kv_compress_epilog", _ROWS,
               {"quant_mode": {0: "fp8_bf16", 1: "fp8_e8m0",
                               2: "hifloat8_fp4"}}),
    "sgk": Form("torch.ops.npu.kv_compress_epilog", _BLOCKS),
    "va": Form("torch.ops._C_ascend.kv_compress_epilog", _BLOCKS),
    "cr": Form("torch.ops.custom.kv_compress_epilog", _ROWS),
    "cr_v2": Form("torch.ops.custom.kv_compress_epilog_v2", _ROWS,
                  {"quant_mode": {2: "mxfp8_bf16", 4: "mxfp4_bf16"}}),
}
# msprobe's name of each form: register_custom_api(module, name) records
# "<api_prefix>.<name>.<n>.forward", the prefix by default the module's
# __name__ (Ascend-mstt@99c2e0f9 msprobe/core/debugger/
# precision_debugger.py:106-109, core/hook_manager.py:174), and
# torch.ops.<ns>.__name__ is "torch.ops.<ns>" (torch 1.13 _ops.py); no
# form is in support_wrap_ops.yaml, so none is recorded unregistered
MSPROBE = {"ot": ("cann_ops_transformer", "kv_compress_epilog"),
           "sgk": ("torch.ops.npu", "kv_compress_epilog"),
           "va": ("torch.ops._C_ascend", "kv_compress_epilog"),
           "cr": ("torch.ops.custom", "kv_compress_epilog"),
           "cr_v2": ("torch.ops.custom", "kv_compress_epilog_v2")}
# the keyword each form's schema gives an attribute, where it is not
# kvgold's name (tools/lib/bindings/kv_compress_epilog.c k_kw_*)
KEYWORDS = {"sgk": {"round_scale": "round_scale_flag"},
            "va": {"round_scale": "round_scale_flag"},
            "cr": {"round_scale": "round_scale_flag", "x_scale": "scale"}}

def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def e2e(call, root, name, fmt="bin"):
    """The call as an ops-test-kit e2e case of its implementation's API;
    its CSV row."""
    form = FORMS[call.attrs.get("impl", "ot")]
    row = sd.write_ttk_e2e(form, call, root, name, fmt)
    row["inplace_input_indexes"] = "(0,)"  # the cache, argument 0
    return row


def write_csv(path, rows):
    """ops-test-kit's e2e testcase CSV with its inplace_input_indexes
    column (scan_dumps.write_ttk_csv's columns leave it out)."""
    import csv
    cols = list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path


def msprobe_call(step, call, prefix=None):
    """The call as msprobe records it: the pre-call tensors as inputs,
    the attributes the case gives by the form's keywords and spellings,
    no output (the API returns None). prefix: register_custom_api's
    api_prefix when the user gave one (the form's namespace otherwise)."""
    impl = call.attrs.get("impl", "ot")
    ns, api = MSPROBE[impl]
    form = FORMS[impl]
    spell = KEYWORDS.get(impl, {})
    kw = {spell.get(k, k): form.E2E_VALUES.get(k, {}).get(v, v)
          for k, v in call.attrs.items() if k in form.E2E_ATTRS}
    args = [call.inputs[n] for n in ("cache", "x", "slot_mapping")]
    return step.call(prefix or ns, api, args, kw, [])
