"""Helpers of the kvgold.ttk tests (tests/python/test_ttk.py and each
operator's tests/python/ops/<op>/test_ttk_*.py): the plug-in executed as
ops-test-kit executes it, and the metadata keywords it passes."""
import importlib.util

import kvgold
import kvgold.ttk as kt

# ops-test-kit passes its metadata as keywords too
META = dict(dtypes=["float16"], shapes=[(1,)], formats=["ND"],
            soc_version="Ascend910B3")


def exec_standalone(module_name):
    """The file executed as ops-test-kit executes a plug-in: from its
    path, outside any package, not entered in sys.modules."""
    spec = importlib.util.spec_from_file_location(module_name, kt.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_inputs(c):
    return {n: kvgold.to_torch(v) for n, v in c.inputs.items()}


def bits(t, tag):
    return kvgold.tensor(t, tag).tobytes()
