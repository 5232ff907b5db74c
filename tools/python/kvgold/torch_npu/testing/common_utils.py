"""torch_npu.testing.common_utils, as far as op-plugin's KV-cache operator
tests use it (Ascend/pytorch torch_npu/testing/common_utils.py at 9e73e708:
get_npu_device, set_npu_device, SupportedDevices, is_iterable,
iter_indices)."""
import functools
import itertools
import os
import unittest
from typing import Any, Callable, Iterable, Sequence


def get_npu_device() -> str:
    """"npu:<SET_NPU_DEVICE>", "npu:0" when the variable is unset."""
    index = os.environ.get("SET_NPU_DEVICE")
    return "npu:0" if index is None else "npu:%s" % index


def set_npu_device() -> str:
    from .. import npu
    device = get_npu_device()
    npu.set_device(device)
    return device


def is_iterable(obj: Any) -> bool:
    try:
        iter(obj)
        return True
    except TypeError:
        return False


def iter_indices(tensor: Any) -> Iterable[Any]:
    if tensor.dim() == 0:
        return range(0)
    if tensor.dim() == 1:
        return range(tensor.size(0))
    return itertools.product(*(range(s) for s in tensor.size()))


def _device_name() -> str:
    """The name SupportedDevices compares, cut as torch_npu cuts it: 10
    characters, 12 for "Ascend910_..." names, 9 for the Ascend950s."""
    from .. import npu
    full = npu.get_device_name(0)
    name = full[:10]
    if name == "Ascend910_":
        name = full[:12]
    elif name.startswith("Ascend950"):
        name = full[:9]
    return name


class SupportedDevices:
    """Skips the test unless the device is one of `supported_devices`. The
    stand-in is an "Ascend910B" (kvgold models the A2/A3 kernels), so a test
    marked for another device is skipped, as it would be on an A2."""

    def __init__(self, supported_devices: Sequence[str]) -> None:
        self.supported_devices = supported_devices

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def dep_fn(slf: Any, *args: Any, **kwargs: Any) -> Any:
            name = _device_name()
            if name not in self.supported_devices:
                raise unittest.SkipTest(
                    "Only run on %r, current device is %s."
                    % (self.supported_devices, name))
            return fn(slf, *args, **kwargs)
        return dep_fn
