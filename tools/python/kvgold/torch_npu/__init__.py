"""A CPU stand-in for the `torch_npu` module, so that a test written for the
NPU runs on a machine without one, judged by kvgold's golden model:

    import kvgold.torch_npu
    kvgold.torch_npu.install()        # sys.modules["torch_npu"] = this module
    import torch_npu                  # ... the test, unchanged

or, in pytest, `pytest -p kvgold.torch_npu` (this module is a pytest plugin:
its `torch_npu` fixture installs the stand-in for one test and removes it
afterwards; `pytest_plugins = ["kvgold.torch_npu"]` in a root conftest.py
does the same; with `--kvgold-torch-npu` it is installed for the whole
session, before collection, for files that import torch_npu at module
level). `sys.modules["torch_npu"] = kvgold.torch_npu` alone gives
the functions but not the tensor methods. docs/python.md, "An NPU test on
the CPU" and "What kvgold.torch_npu provides and patches", lists what it
provides and every difference.

What it provides:
- every function of kvgold.ops whose name is a torch_npu name (npu_* and
  _npu_*), given by the module's __getattr__ (and listed in __all__ and
  dir()); a type checker sees them through kvgold.ops.<op>;
- npu_format_cast / npu_format_cast_ / get_npu_format: the storage format is
  remembered per tensor (29 FRACTAL_NZ, 2 ND, ...), and an operator's
  function may read it (one picks its NZ caches when both caches have
  format 29, as op-plugin's ATB binding does; docs/python.md);
- the device: `Tensor.npu()` and `Tensor.to("npu")` copy a CPU tensor into
  an "NPU" tensor (a CPU tensor marked as such; on one already marked they
  return it, as torch does for a tensor already on the device), and
  `Tensor.cpu()` of a marked tensor returns an unmarked copy (on other
  tensors torch's own .cpu());
- `torch_npu.npu` (also as `torch.npu` while installed): synchronize,
  is_available, device_count, current_device, set_device, get_device_name,
  manual_seed, manual_seed_all, empty_cache;
- `torch_npu.testing` (testcase.TestCase / run_tests, common_utils'
  SupportedDevices / get_npu_device): what op-plugin's operator tests
  import, as Ascend/pytorch defines it (kvgold/torch_npu/testing);
- `python3 -m kvgold.torch_npu FILE [ARGS]`: such a test file run as
  __main__ with the stand-in installed.

Anything else is an AttributeError that names the torch_npu function and
says kvgold does not provide it: a test never silently calls a mock.

install() patches, and uninstall() restores: torch.Tensor.npu and
torch.Tensor.is_npu (added), torch.Tensor.cpu and torch.Tensor.to (wrapped:
unchanged for everything but the NPU marks and "npu" device strings), and
torch.npu and torch._dynamo (each set only when torch has none; _dynamo
with reset() only, which op-plugin's tests call), and the
torch_npu.testing modules in sys.modules. Factory functions with
device="npu" (torch.zeros(..., device="npu")) and torch.device("npu") are
not patched: they stay torch's errors.
"""
import importlib
import sys
from typing import Any, Callable, Dict, Iterator, List, NoReturn, Optional

from .. import ops as _ops
from . import testing

__all__ = [
    # storage formats and dtypes
    "FORMAT_FRACTAL_NZ", "FORMAT_FRACTAL_Z", "FORMAT_NC1HWC0", "FORMAT_NCDHW",
    "FORMAT_NCHW", "FORMAT_ND", "FORMAT_NDC1HWC0", "FORMAT_NHWC",
    "float4_e2m1fn_x2", "float8_e8m0fnu", "get_npu_format", "hifloat8",
    "npu_format_cast", "npu_format_cast_",
    # the device, testing, the stand-in itself
    "functions", "install", "npu", "testing", "uninstall"]

# The operators: every function of kvgold.ops under a torch_npu name,
# given by __getattr__ below (so this file names none). One named as the
# stand-in's own would be shadowed by it: an ImportError.
_OPERATORS: Dict[str, Callable[..., Any]] = {
    n: fn for n, fn in sorted(_ops.FUNCTIONS.items())
    if n.startswith(("npu_", "_npu_"))}
if set(_OPERATORS) & set(__all__):
    raise ImportError("kvgold.torch_npu: %s named as the stand-in's own"
                      % ", ".join(sorted(set(_OPERATORS) & set(__all__))))
__all__ += sorted(_OPERATORS)

FORMAT_ND = 2
FORMAT_NCHW = 0
FORMAT_NHWC = 1
FORMAT_NC1HWC0 = 3
FORMAT_FRACTAL_Z = 4
FORMAT_FRACTAL_NZ = 29
FORMAT_NCDHW = 30
FORMAT_NDC1HWC0 = 32

# torch_npu's extra dtype codes, as vLLM-Ascend's CPU tests set them
# (tests/ut/conftest.py at 182b75ea84); kvgold's functions take these
# formats through their `dtypes` argument (uint8 storage).
hifloat8 = 290
float8_e8m0fnu = 293
float4_e2m1fn_x2 = 296

_FORMAT_ATTR = "_kvgold_npu_format"
_DEVICE_NAME = "Ascend910B (kvgold CPU stand-in)"


def _torch() -> Any:
    import torch
    return torch


def _missing(name: str) -> AttributeError:
    return AttributeError(
        "torch_npu.%s: kvgold's CPU stand-in for torch_npu does not provide "
        "it (it provides the KV-cache operators %s, npu_format_cast, "
        "get_npu_format, torch_npu.npu basics and the Tensor.npu / .cpu "
        "copies; docs/python.md)" % (name, ", ".join(functions())))


def functions() -> List[str]:
    """The torch_npu-named functions of kvgold.ops this module provides,
    sorted."""
    return sorted(_OPERATORS)


# ---- storage formats -------------------------------------------------------

def _is_npu(t: Any) -> bool:
    return getattr(t, _FORMAT_ATTR, None) is not None


def _mark(t: Any, fmt: int) -> Any:
    setattr(t, _FORMAT_ATTR, int(fmt))
    return t


def get_npu_format(tensor: Any) -> int:
    """The storage format npu_format_cast gave `tensor`; 2 (ND) for a tensor
    it has not cast (torch_npu's default for a tensor made by .npu())."""
    fmt = getattr(tensor, _FORMAT_ATTR, None)
    return FORMAT_ND if fmt is None else fmt


def npu_format_cast(tensor: Any, acl_format: int, *args: Any,
                    **kwargs: Any) -> Any:
    """A copy of `tensor` whose storage format is `acl_format` (the tensor
    itself when it has that format already, as torch_npu). The elements
    keep their logical order: kvgold's NZ caches are the logical
    [blocks, N*D/C0, block_size, C0] tensors torch_npu's tests build."""
    if args or kwargs:
        raise TypeError("torch_npu.npu_format_cast: kvgold takes (tensor, "
                        "acl_format) only, got extra arguments %r %r"
                        % (args, kwargs))
    fmt = int(acl_format)
    if _is_npu(tensor) and get_npu_format(tensor) == fmt:
        return tensor
    return _mark(tensor.clone(), fmt)


def npu_format_cast_(tensor: Any, acl_format: int) -> Any:
    """In place: `tensor` now has storage format `acl_format`."""
    return _mark(tensor, int(acl_format))


# ---- torch_npu.npu ---------------------------------------------------------

class _Npu:
    """torch_npu.npu (and torch.npu while installed): the device basics a
    test touches. One device, index 0; everything runs synchronously."""

    __name__ = "torch_npu.npu"

    @staticmethod
    def synchronize(device: Any = None) -> None:
        return None

    @staticmethod
    def is_available() -> bool:
        return True

    @staticmethod
    def device_count() -> int:
        return 1

    @staticmethod
    def current_device() -> int:
        return 0

    @staticmethod
    def set_device(device: Any) -> None:
        return None

    @staticmethod
    def get_device_name(device: Any = None) -> str:
        return _DEVICE_NAME

    @staticmethod
    def manual_seed(seed: int) -> None:
        _torch().manual_seed(seed)

    @staticmethod
    def manual_seed_all(seed: int) -> None:
        _torch().manual_seed(seed)

    @staticmethod
    def empty_cache() -> None:
        return None

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _missing("npu." + name)


npu = _Npu()


# ---- the module's attributes -----------------------------------------------

def __getattr__(name: str) -> Callable[..., Any]:
    """An operator's function (kvgold.ops, under its torch_npu name);
    anything else torch_npu has that the stand-in does not: an error
    naming it, never a mock."""
    fn = _OPERATORS.get(name)
    if fn is not None:
        return fn
    if name.startswith("__"):
        raise AttributeError(name)
    raise _missing(name)


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_OPERATORS))


# ---- install / uninstall -----------------------------------------------------

_SAVED: Dict[str, Any] = {}


def _device_type(device: Any) -> Optional[str]:
    """"npu", "cpu", ... of a device given as a string or torch.device;
    None for anything else (a dtype, a tensor: not formatted, not read)."""
    torch = _torch()
    if isinstance(device, str):
        return device.split(":", 1)[0]
    if isinstance(device, torch.device):
        return device.type
    return None


def _tensor_npu(self: Any, device: Any = None, non_blocking: bool = False,
                **kwargs: Any) -> Any:
    if _is_npu(self):
        return self
    return _mark(self.detach().clone(), FORMAT_ND)


def _tensor_cpu(self: Any, *args: Any, **kwargs: Any) -> Any:
    if _is_npu(self):
        return _SAVED["cpu"](self, *args, **kwargs).clone()
    return _SAVED["cpu"](self, *args, **kwargs)


def _tensor_to(self: Any, *args: Any, **kwargs: Any) -> Any:
    """"npu" / "npu:N" (positional or device=) as .npu(), keeping a dtype
    given with it; an "NPU" tensor stays one under a dtype change and
    becomes an unmarked copy when moved to "cpu"; the rest is torch's."""
    rest, rest_kw = list(args), dict(kwargs)
    device = rest_kw.pop("device", None)
    if device is None and rest and _device_type(rest[0]) is not None:
        device = rest.pop(0)
    kind = _device_type(device)
    if kind == "npu":
        moved = _SAVED["to"](self, *rest, **rest_kw) if rest or rest_kw \
            else self
        if moved is self:
            return _tensor_npu(self)
        return _mark(moved, get_npu_format(self) if _is_npu(self)
                     else FORMAT_ND)
    out = _SAVED["to"](self, *args, **kwargs)
    if not _is_npu(self):
        return out
    if kind is not None:                  # to the host: an unmarked copy
        return out.clone() if out is self else out
    if out is not self:
        _mark(out, FORMAT_ND)             # a dtype change stays on device
    return out


def _is_npu_property(self: Any) -> bool:
    return _is_npu(self)


class _Dynamo:
    """torch._dynamo for a torch without it (torch < 2.0; torch_npu needs
    torch 2): reset() only, which op-plugin's tests call after each eager
    run. Nothing is ever compiled here, so there is nothing to reset."""

    __name__ = "torch._dynamo"

    @staticmethod
    def reset() -> None:
        return None

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            "torch._dynamo.%s: this torch has no torch._dynamo, and kvgold's "
            "torch_npu stand-in provides reset() only" % name)


_dynamo = _Dynamo()


def _has_dynamo(torch: Any) -> bool:
    try:
        importlib.import_module("torch._dynamo")
    except ImportError:
        return False
    return True


def _testing_modules() -> Dict[str, Any]:
    """torch_npu.testing and its modules under their torch_npu names: the
    subset of Ascend/pytorch's testing package op-plugin's operator tests
    import (kvgold/torch_npu/testing)."""
    from . import testing
    return {"torch_npu.testing": testing,
            "torch_npu.testing.testcase": testing.testcase,
            "torch_npu.testing.common_utils": testing.common_utils}


def install() -> None:
    """sys.modules["torch_npu"] = this module (and "torch_npu.npu" its
    npu), and the tensor methods and torch.npu listed in the module's
    docstring. Idempotent."""
    torch = _torch()
    sys.modules["torch_npu"] = sys.modules[__name__]
    # from torch_npu.npu import ... (an object standing in for a module)
    sys.modules["torch_npu.npu"] = npu  # type: ignore[assignment]
    for name, mod in _testing_modules().items():
        sys.modules[name] = mod          # from torch_npu.testing.testcase ...
    if _SAVED:
        return
    _SAVED["cpu"] = torch.Tensor.cpu
    _SAVED["to"] = torch.Tensor.to
    _SAVED["had_npu_attr"] = hasattr(torch, "npu")
    torch.Tensor.npu = _tensor_npu
    torch.Tensor.is_npu = property(_is_npu_property)
    torch.Tensor.cpu = _tensor_cpu
    torch.Tensor.to = _tensor_to
    if not _SAVED["had_npu_attr"]:
        torch.npu = npu
    _SAVED["had_dynamo"] = _has_dynamo(torch)
    if not _SAVED["had_dynamo"]:
        torch._dynamo = _dynamo


def uninstall() -> None:
    """Undo install(): torch as it was, and no torch_npu module."""
    torch = _torch()
    if sys.modules.get("torch_npu") is sys.modules[__name__]:
        del sys.modules["torch_npu"]
    if sys.modules.get("torch_npu.npu") is npu:
        del sys.modules["torch_npu.npu"]
    for name, mod in _testing_modules().items():
        if sys.modules.get(name) is mod:
            del sys.modules[name]
    if not _SAVED:
        return
    torch.Tensor.cpu = _SAVED["cpu"]
    torch.Tensor.to = _SAVED["to"]
    del torch.Tensor.npu
    del torch.Tensor.is_npu
    if not _SAVED["had_npu_attr"]:
        del torch.npu
    if not _SAVED["had_dynamo"]:
        del torch._dynamo
    _SAVED.clear()


# ---- pytest plugin -----------------------------------------------------------

def _fixture() -> Callable[..., Any]:
    import pytest

    @pytest.fixture(name="torch_npu")
    def torch_npu_fixture() -> Iterator[Any]:
        """The stand-in installed for one test (`import torch_npu` inside the
        test gets it), removed afterwards."""
        if _SESSION:                      # --kvgold-torch-npu: already there
            yield sys.modules[__name__]
            return
        install()
        try:
            yield sys.modules[__name__]
        finally:
            uninstall()

    return torch_npu_fixture


_SESSION: List[bool] = []


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--kvgold-torch-npu", action="store_true", default=False,
        help="install kvgold's torch_npu stand-in for the whole session, "
             "before collection: for test files that import torch_npu at "
             "module level (op-plugin's unittest files)")


def pytest_configure(config: Any) -> None:
    if config.getoption("--kvgold-torch-npu", default=False) and \
            not _SESSION:
        install()
        _SESSION.append(True)


def pytest_unconfigure(config: Any) -> None:
    if _SESSION:
        uninstall()
        del _SESSION[:]


if "pytest" in sys.modules:
    torch_npu = _fixture()
