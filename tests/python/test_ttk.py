"""kvgold.ttk, the ops-test-kit plug-in: what ops-test-kit's loaders read
from the file without running it, the rules its validator applies, and
each golden / third party called as its e2e path calls it (docs/ttk.md
cites the loader code these rules come from). Expected values are the
cases' "expected" tensors, from the NumPy generator."""
import ast
import os
import subprocess
import sys

import torch

import kvgold
import kvgold.ops
import kvgold.ttk as kt
from kvgold._dtypes import AMBIGUOUS_8BIT
from conftest import VECTORS, cli_env
from ttk_support import (SOC_OF_PROFILE, TTK_E2E_OUTPUTS, call_form,
                         case_name, exec_standalone, plugin_files,
                         prepare_cases, torch_inputs, ttk_goldens)

# every torch_npu call form the operators' modules declare
FORMS = [f for op in sorted(kvgold.ops.TORCH_NPU_CALLS)
         for f in kvgold.ops.TORCH_NPU_CALLS[op]]
APIS = {f["api"] for f in FORMS}


def module_literal(path, name):
    """The module-level `name = {...}` of a plug-in file as a literal, read
    from the source as ops-test-kit's scanners read it (ast, no exec);
    None when the file has none."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = [n for n in tree.body if isinstance(n, ast.Assign)
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
             and n.targets[0].id == name]
    assert len(found) <= 1, (path, name)
    return ast.literal_eval(found[0].value) if found else None


def test_plugin_dir_holds_the_written_file():
    """The directory ops-test-kit is given holds one file, written from
    the call forms (kvgold/ttk/_plugin_dir.py): its tables name every
    form's TestSpec and golden, and no file of the package declares a
    table (the package is not the plug-in: no table is kept by hand)."""
    assert set(plugin_files()) == {"kvgold_plugin"}
    path = plugin_files()["kvgold_plugin"]
    assert module_literal(path, "__spec__") == {
        f["api"]: f["ttk_spec"] for f in FORMS}
    assert module_literal(path, "__golden__") == {
        "e2e": {f["api"]: f["ttk_golden"] for f in FORMS}}
    package = os.path.dirname(kt.__file__)
    for name in os.listdir(package):
        if name.endswith(".py"):
            for table in ("__spec__", "__golden__"):
                assert module_literal(os.path.join(package, name),
                                      table) is None, (name, table)
    r = subprocess.run([sys.executable, "-m", "kvgold.ttk"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == kt.PLUGIN_DIR


def test_plugin_dir_written_where_told(tmp_path):
    """`python3 -m kvgold.ttk DIR` writes the file into DIR (a stale one
    is rewritten) and prints DIR; a directory it cannot write is refused
    with the OS reason, and nothing else is written."""
    target = tmp_path / "plugin"
    target.mkdir()
    (target / "kvgold_plugin.py").write_text("__spec__ = {}\n")
    r = subprocess.run([sys.executable, "-m", "kvgold.ttk", str(target)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(target)
    with open(plugin_files()["kvgold_plugin"]) as f:
        assert (target / "kvgold_plugin.py").read_text() == f.read()
    assert sorted(p.name for p in target.iterdir()) == ["kvgold_plugin.py"]
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    r = subprocess.run([sys.executable, "-m", "kvgold.ttk",
                        str(blocker / "plugin")],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "cannot write the plug-in directory %s" % (blocker / "plugin") \
        in r.stderr and "Not a directory" in r.stderr, r.stderr
    assert blocker.read_text() == "x"


def test_spec_tables_name_classes_with_golden_and_third_party():
    for path in plugin_files().values():
        spec = module_literal(path, "__spec__")
        module = exec_standalone("ttk_test_spec_1")
        for api, cls_name in spec.items():
            assert isinstance(cls_name, str)
            cls = getattr(module, cls_name)
            assert isinstance(cls, type)
            # the validator: golden / third_party are str, dict, a class
            # or a callable; pre_compare a function; nothing else is
            # declared
            assert callable(cls.golden) and not isinstance(cls.golden, type)
            # third_party in the dict form ops-test-kit's XPU client sends
            # as a spec-mode request for provider "torch" (ttk/remote/
            # client.py build_spec); a bare function yields no provider
            assert cls.third_party == {"torch": cls.golden}
            assert callable(cls.pre_compare) and \
                not isinstance(cls.pre_compare, type)
            assert not hasattr(cls, "tolerance")  # the CLI's --compare rules


def test_golden_tables_are_literal_and_resolve():
    for path in plugin_files().values():
        golden = module_literal(path, "__golden__")
        assert set(golden) == {"e2e"}
        assert set(golden["e2e"]) == APIS
        module = exec_standalone()  # the scanner names it by file stem
        spec = module_literal(path, "__spec__")
        for api, fn_name in golden["e2e"].items():
            fn = getattr(module, fn_name)
            assert callable(fn)
            assert getattr(module, spec[api]).golden is fn


def test_soc_version_selects_the_profile():
    """A call form with "profile" takes kvgold's chip profile from the
    short_soc_version ops-test-kit's e2e golden call passes (or a
    soc_version / full_soc_version); a chip kvgold does not model is left
    to kvgold's default."""
    assert kt._profile({"short_soc_version": "Ascend950"}) == "ascend950"
    assert kt._profile({"short_soc_version": "Ascend910B"}) == "a2a3"
    assert kt._profile({"short_soc_version": "Ascend910_93"}) == "a2a3"
    assert kt._profile({"soc_version": "Ascend950PR_9599"}) == "ascend950"
    assert kt._profile({"soc_version": "Ascend910B3"}) == "a2a3"
    assert kt._profile({"full_soc_version": "Ascend910_9391"}) == "a2a3"
    assert kt._profile({"short_soc_version": "Ascend310P"}) is None
    assert kt._profile({}) is None


def test_goldens_are_what_ttk_compares():
    """Each API's golden list is what ops-test-kit's e2e run compares:
    result_to_numpy of its return ([None] for None), then the slots it
    writes in place (TTK_E2E_OUTPUTS, from ops-test-kit's code and the
    API docs); kvgold.ttk.inplace_slots gives those slots, the column
    `kvgold prepare --csv` writes."""
    assert set(TTK_E2E_OUTPUTS) == APIS
    for form in FORMS:
        returned, slots = TTK_E2E_OUTPUTS[form["api"]]
        n_ret = 0 if returned == (None,) else len(returned)
        assert kt.inplace_slots(form) == (n_ret, slots), form["api"]
        assert kt.golden_names(form) == ttk_goldens(form), form["api"]


def test_pre_compare_fails_outputs_that_do_not_line_up():
    """ops-test-kit's compare() zips the device outputs with the goldens,
    so goldens past the outputs pass unseen; the TestSpec's pre_compare
    (handed outputs then goldens, ttk/core_modules/comparison/custom.py
    apply_pre_compare) lets a lined-up call through and fails any other,
    naming inplace_input_indexes."""
    import pytest
    module = exec_standalone()
    for form in FORMS:
        spec = getattr(module, form["ttk_spec"])
        gold = [torch.ones(1) for _ in ttk_goldens(form)]
        assert spec.pre_compare(*gold, *gold) is None
        returned, slots = TTK_E2E_OUTPUTS[form["api"]]
        if not slots:
            continue
        # a CSV without inplace_input_indexes: only the return
        with pytest.raises(ValueError) as e:
            spec.pre_compare(*gold[:len(returned)], *gold)
        # as Python writes the tuple: (2, 3), or (1,) for one slot
        assert "inplace_input_indexes=%r" % (tuple(slots),) in \
            str(e.value), form["api"]


def raw(t):
    """The bytes of a torch tensor in C order, whatever its dtype."""
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def test_goldens_line_up_with_prepare(tmp_path, cli):
    """For every operator's prepare cases, the plug-in's golden list,
    called with the case's tensors and attributes by torch_npu's names,
    and `kvgold prepare`'s golden_<i> files are the same tensors in the
    same order, so a replay judges the files it prepared with the same
    meaning."""
    cases = [(op, c) for op, (names, _) in prepare_cases().items()
             for c in names]
    assert {op for op, _ in cases} == {
        op for op, forms in kvgold.ops.TORCH_NPU_CALLS.items() if forms}
    r = subprocess.run([cli, "prepare", *[os.path.join(VECTORS, op, c)
                                          for op, c in cases],
                        "--out", str(tmp_path)],
                       capture_output=True, text=True, env=cli_env())
    assert r.returncode == 0, r.stderr
    module = exec_standalone()
    for op, name in cases:
        c = kvgold.load_case(os.path.join(VECTORS, op, name))
        form = call_form(op, c.inputs, c.attrs)
        t = torch_inputs(c)
        args = {n: t.get(case_name(form, n)) for n in form["tensors"]}
        attrs = dict(form.get("case_defaults", {}))
        attrs.update({n: c.attrs[n] for n in form.get("attrs", ())
                      if n in c.attrs})
        meta = {}
        profile = (c.options or {}).get("profile")
        if profile is not None:
            meta["short_soc_version"] = SOC_OF_PROFILE[profile]
        before = {n: raw(v) for n, v in t.items()}
        golden = getattr(module, form["ttk_golden"])
        # a tensor whose format the API fixes, its form's call says
        # (kvgold's dtypes option), is no guess
        fixed = form.get("call", {}).get("dtypes") or {}
        if any(c.dtypes[case_name(form, n)] in AMBIGUOUS_8BIT and
               case_name(form, n) not in fixed
               for n in form["tensors"] if args[n] is not None):
            # torch holds HiFloat8 (and here the fp8 formats) as untagged
            # 8-bit storage, which kvgold refuses rather than guess
            # (docs/ttk.md); only the tensors the golden is given count
            # (a case's poisoned outputs the API returns are not)
            import pytest
            with pytest.raises(kvgold.Error) as e:
                golden(**args, **attrs, **meta)
            assert "give a dtype tag" in str(e.value), name
            continue
        out = golden(**args, **attrs, **meta)
        assert len(out) == len(ttk_goldens(form)), name
        files = sorted(os.listdir(tmp_path / name))
        goldens = [f for f in files if f.startswith("golden_")]
        assert len(goldens) == len(out), name
        for i, value in enumerate(out):
            found = [f for f in goldens if f.startswith("golden_%d_" % i)]
            assert len(found) == 1, (name, i)
            data = (tmp_path / name / found[0]).read_bytes()
            if value is None:
                assert found[0].endswith("_none.bin") and data == b"", \
                    (name, found[0])
            else:
                assert data == raw(value), (name, found[0])
        # the golden never writes the NPU's inputs
        assert {n: raw(v) for n, v in t.items()} == before


def test_argument_mistakes_are_refused():
    """Every golden refuses one tensor too many, a tensor given twice and
    an argument that is neither a tensor nor an attribute."""
    import pytest
    import torch
    for form in FORMS:
        fn = getattr(kt, form["ttk_golden"])
        n = len(form["tensors"])
        ones = [torch.ones(1) for _ in range(n)]
        with pytest.raises(TypeError):
            fn(*ones, torch.ones(1))                        # one too many
        with pytest.raises(TypeError):
            fn(*ones, **{form["tensors"][0]: torch.ones(1)})  # given twice
        with pytest.raises(TypeError):
            fn(*ones, *([0] * (len(form.get("attrs", ())) + 1)))


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
