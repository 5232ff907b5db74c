"""Helpers of the kvgold.ttk tests (tests/python/test_ttk.py and each
operator's tests/ops/<op>/test_*_ttk.py): the plug-in executed as
ops-test-kit executes it, and the metadata keywords it passes."""
import importlib.util
import os
import tempfile

# the plug-in directory kvgold.ttk writes (PLUGIN_DIR): a fresh one for the
# tests, not the user's cache
os.environ["KVGOLD_TTK_PLUGIN"] = tempfile.mkdtemp(prefix="kvgold-ttk-")

import kvgold  # noqa: E402
import kvgold.ttk as kt  # noqa: E402

# ops-test-kit passes its metadata as keywords too: these are the ones
# its e2e golden call adds (ttk/core_modules/framework_api/
# golden_generation.py `_call_plugin_with_plan`), and names kvgold's own
# functions use otherwise (`dtypes`), which the plug-in must ignore
META = dict(backend="cpu", tensor_formats=("ND",), tensor_dtypes=("float16",),
            use_numpy=False, short_soc_version="Ascend910B",
            testcase_name="t", dtypes=["float16"], shapes=[(1,)],
            formats=["ND"])


def plugin_files():
    """{stem: path} of the files ops-test-kit's golden scanner reads in
    the plug-in directory (kvgold.ttk.PLUGIN_DIR, written on first use):
    *.py (recursively), skipping `__init__.py` and names starting with "_"
    (ttk's PluginScanner)."""
    import pathlib
    return {p.stem: str(p) for p in
            sorted(pathlib.Path(kt.PLUGIN_DIR).rglob("*.py"))
            if not p.name.startswith("_")}


def exec_standalone(module_name=None):
    """The plug-in file executed as ops-test-kit executes it: from its
    path, outside any package, not entered in sys.modules, under the
    file's stem (the golden scanner's name) unless told otherwise."""
    (stem, path), = plugin_files().items()
    spec = importlib.util.spec_from_file_location(module_name or stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_inputs(c):
    return {n: kvgold.to_torch(v) for n, v in c.inputs.items()}


def bits(t, tag):
    return kvgold.tensor(t, tag).tobytes()


# NumPy dtype name ops-test-kit writes -> (case tag, bytes per element)
TTK_DTYPES = {"float16": ("fp16", 2), "bfloat16": ("bf16", 2),
              "float32": ("fp32", 4), "int8": ("int8", 1),
              "int32": ("int32", 4), "int64": ("int64", 8),
              "float8_e4m3fn": ("fp8_e4m3fn", 1),
              "float8_e5m2": ("fp8_e5m2", 1), "hifloat8": ("hif8", 1),
              "uint8": ("uint8", 1), "int16": ("int16", 2),
              "uint16": ("uint16", 2), "uint32": ("uint32", 4),
              # an E8M0 input (a scale cache updated in place): the name
              # ops-test-kit's utilities/dtypes.py gives it
              "float8_e8m0": ("e8m0", 1)}

# kvgold's profile option -> the short_soc_version ops-test-kit passes a
# golden on that chip (golden_generation.py `_call_plugin_with_plan`)
SOC_OF_PROFILE = {"ascend950": "Ascend950", "a2a3": "Ascend910B"}

def _op_modules(stem):
    """{operator: module} of every tests/ops/<op>/<stem>.py, sorted."""
    import glob
    import os
    ops = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "ops")
    out = {}
    for path in sorted(glob.glob(os.path.join(ops, "*", stem + ".py"))):
        op = os.path.basename(os.path.dirname(path))
        spec = importlib.util.spec_from_file_location(stem + "_" + op, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out[op] = module
    return out


def torch_npu_schemas():
    """{operator: {API: schema}}: torch_npu's own signatures, each
    operator's tests/ops/<op>/torch_npu_api.py (from op-plugin's schemas,
    cited there), the outside truth the call forms are checked against.
    A schema: "where" (repo@commit:path:line), "tensors" (the tensor
    arguments in signature order, "!" marking a Tensor(a!) one, updated
    in place), "attrs" (the other arguments), "returns" (what the API
    returns, by kvgold name; (None,) for "-> ()", which ops-test-kit lists
    as [None]), "case_names" (kvgold's case.json name of an argument where
    it differs) and optionally "not_in_form" ({argument: why kvgold's call
    form leaves it out})."""
    return {op: m.SCHEMAS for op, m in _op_modules("torch_npu_api").items()}


SCHEMAS = {api: schema for by_api in torch_npu_schemas().values()
           for api, schema in by_api.items()}


def schema_tensors(api):
    """The tensor arguments of `api` in signature order as the schema
    spells them (no "!"), those kvgold's form leaves out dropped."""
    schema = SCHEMAS[api]
    return tuple(t.rstrip("!") for t in schema["tensors"]
                 if t.rstrip("!") not in schema.get("not_in_form", {}))


def schema_case_name(api, name):
    return SCHEMAS[api]["case_names"].get(name, name)


def _e2e_outputs(api):
    """(what the API returns, by kvgold name, None for None; the slots of
    its in-place tensors): what ops-test-kit's e2e run compares
    (ttk/core_modules/framework_api/profiling.py `_execute_eager` lists
    backend.result_to_numpy(<what the API returns>) - [None] for an API
    that returns None (backends/base.py) - then appends, ascending, the
    argument slots of the CSV's inplace_input_indexes)."""
    schema = SCHEMAS[api]
    tensors = [t for t in schema["tensors"]
               if t.rstrip("!") not in schema.get("not_in_form", {})]
    return (tuple(schema["returns"]),
            tuple(i for i, t in enumerate(tensors) if t.endswith("!")))


# API -> (what it returns; the slots it writes in place), from the
# schemas, not from kvgold's call forms.
TTK_E2E_OUTPUTS = {api: _e2e_outputs(api) for api in SCHEMAS}


def ttk_goldens(form):
    """The goldens of call form `form` in the order ops-test-kit compares
    them with the device's outputs (TTK_E2E_OUTPUTS): kvgold names, None
    for the None an API returns."""
    api = form["api"]
    returned, slots = TTK_E2E_OUTPUTS[api]
    tensors = schema_tensors(api)
    return returned + tuple(schema_case_name(api, tensors[s])
                            for s in slots)


def prepare_cases():
    """{operator: (CASES, REFUSED)} of every tests/ops/<op>/
    prepare_cases.py, sorted by operator."""
    return {op: (list(m.CASES), list(m.REFUSED))
            for op, m in _op_modules("prepare_cases").items()}


def prepare_only_cases():
    """{operator: PREPARE_ONLY} of the prepare_cases.py that have it: cases
    `kvgold prepare` is checked on but the plug-in's golden is not (a
    return this torch cannot hold, e.g. torch.float8_* in torch 1.13)."""
    return {op: list(getattr(m, "PREPARE_ONLY", ()))
            for op, m in _op_modules("prepare_cases").items()}


def call_form(doc_op, inputs, attrs=None):
    """The torch_npu call form (kvgold.ops' TORCH_NPU_CALLS) of a case of
    `doc_op` with these input names (and attributes): the first whose
    selector (if any) it has - an input, or "attr=value" an attribute
    given as that string -, as `kvgold prepare` picks."""
    import kvgold.ops
    for form in kvgold.ops.TORCH_NPU_CALLS[doc_op]:
        sel = form.get("selector")
        if sel is None or sel in inputs:
            return form
        name, eq, value = sel.partition("=")
        if eq and (attrs or {}).get(name) == value:
            return form
    return None


def case_name(form, name):
    """The case.json name of torch_npu argument `name` of `form`."""
    return form.get("case_names", {}).get(
        name, form.get("rename", {}).get(name, name))
