"""Helpers of the kvgold.msprobe tests (tests/python/test_msprobe.py and
each operator's tests/ops/<op>/test_*_msprobe.py): a registry as
msprobe's checker uses it, and install() into it."""
import kvgold.msprobe as kvm
from ttk_support import torch_inputs  # noqa: F401 (re-exported)


class Registry(dict):
    """The part of msprobe's function_factory.Register the checker uses:
    items by name, looked up with `in` and []."""


def installed(options=None):
    reg, not_raise = Registry(), {"type_as"}
    assert kvm.install(reg, not_raise=not_raise, options=options) is reg
    return reg, not_raise
