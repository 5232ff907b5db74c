"""pytest's conftest for each operator's Python tests, tests/ops/<op>/.

Their shared helpers live in tests/python (conftest.py with its fixtures,
msprobe_support.py, ttk_support.py, scan/scan_dumps.py), but pytest only
finds the conftest.py files of a test's own folder and its parents, and
tests/python is neither. So this one, which pytest does find (under ctest
and when a test is run by hand), puts those folders on sys.path and
re-exports tests/python/conftest.py: its fixtures are registered from
here, and `from conftest import example` in an operator's test means the
same as in tests/python. That file is loaded under a name of its own
because pytest imports this one as the module `conftest`; no pytest
options are needed, so no way of running the tests can forget them."""
import importlib.util
import os
import sys

_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "python")
for _d in (os.path.join(_PY, "scan"), _PY):
    if _d not in sys.path:
        sys.path.insert(0, _d)

_spec = importlib.util.spec_from_file_location(
    "kvg_python_conftest", os.path.join(_PY, "conftest.py"))
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)
globals().update({k: v for k, v in vars(_shared).items()
                  if not k.startswith("_")})
