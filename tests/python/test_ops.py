"""The per-operator functions (kvgold/ops/<op>.py, found by kvgold.ops):
each module is named after an operator the library has, and every
function is at kvgold's top level and in its __all__, as docs/python.md
promises. What each function computes is tested in ops/<op>/."""
import inspect
import os
import re

import kvgold

DOCS = os.environ.get("KVG_DOCS_DIR",
                      os.path.join(os.path.dirname(__file__), "..", "..",
                                   "docs"))


def test_modules_are_named_after_operators():
    assert kvgold.ops.BY_OP, "no per-operator module was found"
    assert set(kvgold.ops.BY_OP) <= set(kvgold.operators())


def test_every_function_is_at_the_top_level():
    assert kvgold.ops.FUNCTIONS
    for name, fn in kvgold.ops.FUNCTIONS.items():
        assert inspect.isfunction(fn), name
        assert getattr(kvgold, name) is fn, name
        assert name in kvgold.__all__, name
    assert len(kvgold.__all__) == len(set(kvgold.__all__))


def documented_functions(op):
    """The function names of the table on operator `op`'s own page,
    docs/<op>.md, section "Python functions ...": its rows
    "| `name(...)` | ..."."""
    with open(os.path.join(DOCS, op + ".md")) as f:
        text = f.read()
    start = text.index("## Python functions")
    end = text.find("\n#", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    return re.findall(r"^\| `([A-Za-z_][A-Za-z0-9_]*)\(", section, re.M)


def test_documented_functions_exist():
    """Each operator's page lists exactly its own functions, and every
    function is at kvgold's top level."""
    for op, functions in kvgold.ops.BY_OP.items():
        names = documented_functions(op)
        assert sorted(names) == sorted(functions), op
        for name in names:
            assert getattr(kvgold, name, None) is \
                kvgold.ops.FUNCTIONS.get(name), name
            assert callable(getattr(kvgold, name)), name




def test_star_import_and_dir_give_every_function():
    ns = {}
    exec("from kvgold import *", ns)
    for name, fn in kvgold.ops.FUNCTIONS.items():
        assert ns[name] is fn and name in dir(kvgold), name
    # a name kvgold does not have stays an AttributeError
    try:
        kvgold.npu_no_such_function
    except AttributeError as e:
        assert "npu_no_such_function" in str(e)
    else:
        raise AssertionError("kvgold.npu_no_such_function resolved")


def _import_copy(tmp_path, edit):
    """`import kvgold` (and its plug-in modules) from a copy of the package
    changed by edit(package dir), in a child process: (returncode,
    stderr)."""
    import shutil
    import subprocess
    import sys
    src = os.path.dirname(os.path.abspath(kvgold.__file__))
    dst = tmp_path / "kvgold"
    shutil.copytree(src, str(dst), ignore=shutil.ignore_patterns(
        "__pycache__", "*.so*"))
    edit(dst)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.setdefault("KVGOLD_LIBRARY", kvgold.library_path)
    p = subprocess.run([sys.executable, "-c", "import kvgold, kvgold.ttk, "
                        "kvgold.msprobe, kvgold.torch_npu"],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def test_discovery_refuses_what_it_cannot_place(tmp_path):
    """A module in kvgold/ops named after no operator, a function named as
    one of kvgold's own names, and a call form the module gives Python
    fields for but C does not declare are each an ImportError naming it;
    an unchanged copy imports."""
    assert _import_copy(tmp_path / "a", lambda d: None) == (0, "")
    op = sorted(kvgold.ops.MODULES)[0]

    def stray(d):
        (d / "ops" / "not_an_operator.py").write_text("__all__ = []\n")
    rc, err = _import_copy(tmp_path / "b", stray)
    assert rc != 0 and "kvgold.ops.not_an_operator: not a kvgold " \
        "operator" in err

    def clash(d):
        with open(d / "ops" / (op + ".py"), "a") as f:
            f.write("\ndef compare():\n    pass\n\n__all__ = __all__ + "
                    "['compare']\n")
    rc, err = _import_copy(tmp_path / "c", clash)
    assert rc != 0 and "function(s) compare named as kvgold's own" in err

    def unknown_form(d):
        with open(d / "ops" / (op + ".py"), "a") as f:
            f.write("\nTORCH_NPU_PYTHON = dict(globals().get("
                    "'TORCH_NPU_PYTHON', {}), **{'torch_npu.npu_nowhere': "
                    "{'function': 'x'}})\n")
    rc, err = _import_copy(tmp_path / "d", unknown_form)
    assert rc != 0 and "names torch_npu.npu_nowhere, which " \
        "tools/lib/bindings/%s.c does not declare" % op in err


def test_call_form_api_edges():
    """libkvgold_case.so's call-form look-ups: a form's kind is one of the
    three, and an unknown operator, form index or field is 0 / NULL, never
    another form's data."""
    from kvgold import _lib
    lib = _lib.lib
    assert lib.kvg_py_call_form_count(b"no_such_op") == 0
    assert lib.kvg_py_call_form_count(None) == 0
    seen = 0
    for op in kvgold.operators():
        n = lib.kvg_py_call_form_count(op.encode())
        for i in range(n):
            assert lib.kvg_py_call_form_text(op.encode(), i, b"kind") in (
                b"torch_npu", b"aclnn", b"atb")
            assert lib.kvg_py_call_form_text(op.encode(), i, b"api")
            assert lib.kvg_py_call_form_list(op.encode(), i, b"tensors")
            assert lib.kvg_py_call_form_text(op.encode(), i, b"bogus") is None
            assert not lib.kvg_py_call_form_list(op.encode(), i, b"bogus")
            seen += 1
        assert lib.kvg_py_call_form_text(op.encode(), n, b"api") is None
        assert not lib.kvg_py_call_form_list(op.encode(), n, b"tensors")
    assert seen
