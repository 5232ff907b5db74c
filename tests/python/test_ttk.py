"""kvgold.ttk, the ops-test-kit plug-in: what ops-test-kit's loaders read
from the file without running it, the rules its validator applies, and
each golden / third party called as its e2e path calls it (docs/ttk.md
cites the loader code these rules come from). Expected values are the
cases' "expected" tensors, from the NumPy generator."""
import ast
import importlib.util
import os

import pytest

import kvgold
import kvgold.ttk as kt
from conftest import VECTORS, example, expected_bits

APIS = {"torch_npu.npu_kv_rmsnorm_rope_cache",
        "torch_npu.npu_kv_rmsnorm_rope_cache_v2",
        "torch_npu.npu_qkv_rms_norm_rope_cache",
        "torch_npu._npu_reshape_and_cache",
        "torch_npu.npu_scatter_pa_kv_cache"}
# ops-test-kit passes its metadata as keywords too
META = dict(dtypes=["float16"], shapes=[(1,)], formats=["ND"],
            soc_version="Ascend910B3")


def module_literal(name):
    """The module-level `name = {...}` of kvgold/ttk.py as a literal, read
    from the source as ops-test-kit's scanners read it (ast, no exec)."""
    with open(kt.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = [n for n in tree.body if isinstance(n, ast.Assign)
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
             and n.targets[0].id == name]
    assert len(found) == 1, name
    return ast.literal_eval(found[0].value)


def exec_standalone(module_name):
    """The file executed as ops-test-kit executes a plug-in: from its
    path, outside any package, not entered in sys.modules."""
    spec = importlib.util.spec_from_file_location(module_name, kt.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_file_name_is_scanned():
    # both scanners skip files whose name starts with "_"
    assert not os.path.basename(kt.__file__).startswith("_")


def test_spec_table_names_classes_with_golden_and_third_party():
    spec = module_literal("__spec__")
    assert set(spec) == APIS
    module = exec_standalone("ttk_test_spec_ttk_1")
    for api, cls_name in spec.items():
        assert isinstance(cls_name, str)
        cls = getattr(module, cls_name)
        assert isinstance(cls, type)
        # the validator: golden / third_party are str, dict, a class or a
        # callable; nothing else is declared
        for attr in ("golden", "third_party"):
            value = getattr(cls, attr)
            assert callable(value) and not isinstance(value, type), attr
        assert not hasattr(cls, "tolerance")   # the CLI's --compare rules


def test_golden_table_is_literal_and_resolves():
    golden = module_literal("__golden__")
    assert set(golden) == {"e2e"}
    assert set(golden["e2e"]) == APIS
    module = exec_standalone("ttk")   # the scanner names it by file stem
    spec = module_literal("__spec__")
    for api, fn_name in golden["e2e"].items():
        fn = getattr(module, fn_name)
        assert callable(fn)
        assert getattr(module, spec[api]).golden is fn


def torch_inputs(c):
    return {n: kvgold.to_torch(v) for n, v in c.inputs.items()}


def bits(t, tag):
    return kvgold.tensor(t, tag).tobytes()


def test_soc_version_selects_the_profile():
    """kv_rms_norm_rope_cache's profile follows ops-test-kit's soc_version;
    a chip kvgold does not model is left to kvgold's default."""
    assert kt._profile({"soc_version": "Ascend950PR_9599"}) == "950"
    assert kt._profile({"soc_version": "Ascend910B3"}) == "a2a3"
    assert kt._profile({"soc_version": "Ascend910_9391"}) == "a2a3"
    assert kt._profile({}) is None


def test_doc_examples_run():
    """Every ```python block of docs/ttk.md runs from the repository root."""
    import re
    import subprocess
    import sys
    docs = os.environ.get("KVG_DOCS_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "docs"))
    with open(os.path.join(docs, "ttk.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(),
                            re.S | re.M)
    assert blocks
    for code in blocks:
        p = subprocess.run([sys.executable, "-c", code],
                           cwd=os.path.dirname(os.path.abspath(docs)),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
