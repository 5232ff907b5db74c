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


