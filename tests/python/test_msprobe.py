"""kvgold.msprobe: the bench functions called as msprobe's accuracy checker
calls them (docs/msprobe.md cites the code at Ascend/msprobe@8ff00da):
found by the NPU API's name in a registry, called with the API's own
arguments on CPU tensors, `registry[name](*args, **kwargs)`, answering
what torch_npu answers with the caches updated in place. Each operator's
calls are tested in its folder (tests/ops/<op>/test_*_msprobe.py, an
in-place API's through msprobe_support.check_inplace_returns and
check_copied_bits); here, what holds for every operator."""
import os

import torch

import kvgold
import kvgold.msprobe as kvm
from msprobe_support import installed


def test_install_registers_every_api_under_its_npu_name():
    reg, not_raise = installed()
    # every torch_npu-named function kvgold has (each operator's tests
    # require the names msprobe's hook list dumps)
    assert set(reg) == {n for n in kvgold.ops.FUNCTIONS
                        if n.startswith(("npu_", "_npu_"))}
    for name, fn in reg.items():
        assert fn.__name__ == name       # msprobe's Register keys by it
        assert fn is getattr(kvm, name)
    # msprobe must hand these functions the dtypes the NPU saw
    assert not_raise == {"type_as"} | set(reg)
    for name in reg:
        assert name in kvm.FUSION_OPERATOR_CONFIG


def test_module_names_are_the_bench_functions():
    """The module's API-named attributes (given by its __getattr__ from
    BENCH_FUNCTIONS) are exactly BENCH_FUNCTIONS, all listed in __all__."""
    named = {n for n in kvm.__all__ if n.startswith(("npu_", "_npu_"))}
    assert named == set(kvm.BENCH_FUNCTIONS)
    for n in named:
        assert getattr(kvm, n) is kvm.BENCH_FUNCTIONS[n]
    assert named <= set(dir(kvm))
    assert set(kvm.INPLACE_ARGS) <= set(kvm.BENCH_FUNCTIONS)


def test_inplace_args_are_the_schemas():
    """The arguments a bench function returns as updated in place are the
    Tensor(a!) arguments of torch_npu's schema of that API
    (tests/ops/<op>/torch_npu_api.py), for every API kvgold registers."""
    from ttk_support import SCHEMAS
    for api in kvm.BENCH_FUNCTIONS:
        schema = SCHEMAS.get("torch_npu." + api)
        if schema is None:
            assert api not in kvm.INPLACE_ARGS, api
            continue
        marked = tuple(t.rstrip("!") for t in schema["tensors"]
                       if t.endswith("!"))
        assert kvm.INPLACE_ARGS.get(api, ()) == marked, api


def test_outputs_after_call_leaves_other_apis():
    # an API that updates nothing in place and writes every output (the
    # first found)
    other = sorted(set(kvm.BENCH_FUNCTIONS) - set(kvm.INPLACE_ARGS) -
                   set(kvm.UNWRITTEN))[0]
    out = (torch.ones(2),)
    assert kvm.outputs_after_call(other, out, (), {}) is out


def test_postprocess_config_names_the_handler():
    lines = kvm.POSTPROCESS_CONFIG.splitlines()
    handled = set(kvm.INPLACE_ARGS) | set(kvm.UNWRITTEN)
    assert len(lines) == len(handled)
    assert set(lines) == {'    %s: "%s:outputs_after_call"' % (
        api, kvm.POSTPROCESS_HANDLER_FILE) for api in handled}
    ns = {}
    exec(kvm.POSTPROCESS_HANDLER, ns)
    assert ns["outputs_after_call"] is kvm.outputs_after_call


def test_fp32_arguments_are_tensor_arguments():
    """An operator's FP32_ARGS (the float32 tensors the NPU takes, the
    rest being msprobe's widening) names tensor arguments of its calls."""
    for op, module in kvgold.ops.MODULES.items():
        fp32 = getattr(module, "FP32_ARGS", None)
        if fp32 is None:
            continue
        assert isinstance(fp32, frozenset), op
        tensors = {n for form in kvgold.ops.TORCH_NPU_CALLS[op]
                   for n in form["tensors"]}
        assert fp32 <= tensors, (op, fp32 - tensors)


def test_doc_examples_run():
    """Every ```python block of docs/msprobe.md runs from the repository root."""
    import re
    import subprocess
    import sys
    docs = os.environ.get("KVG_DOCS_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "docs"))
    with open(os.path.join(docs, "msprobe.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(),
                            re.S | re.M)
    assert blocks
    for code in blocks:
        p = subprocess.run([sys.executable, "-c", code],
                           cwd=os.path.dirname(os.path.abspath(docs)),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
