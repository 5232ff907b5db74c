"""kvgold.torch_npu, the CPU stand-in for the torch_npu module: which
functions it has (found in kvgold.ops), the error for the rest, the device
copies, the storage formats, and that uninstall() gives torch back as it
was. What an operator's functions do under it is tested in its own folder,
tests/python/ops/<op>/."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import kvgold
import kvgold.torch_npu as tn


@pytest.fixture
def npu():
    tn.install()
    try:
        import torch_npu
        yield torch_npu
    finally:
        tn.uninstall()


def test_install_and_uninstall_restore_torch():
    cpu, to = torch.Tensor.cpu, torch.Tensor.to
    had_npu = hasattr(torch, "npu")
    tn.install()
    tn.install()                                 # idempotent
    assert sys.modules["torch_npu"] is tn
    assert torch.Tensor.cpu is not cpu and hasattr(torch.Tensor, "npu")
    tn.uninstall()
    assert "torch_npu" not in sys.modules
    assert "torch_npu.npu" not in sys.modules
    assert torch.Tensor.cpu is cpu and torch.Tensor.to is to
    assert not hasattr(torch.Tensor, "npu")
    assert hasattr(torch, "npu") == had_npu
    x = torch.ones(2)
    assert x.cpu() is x                          # torch's own behaviour back


def test_functions_come_from_kvgold_ops(npu, monkeypatch):
    names = {n for n in kvgold.ops.FUNCTIONS
             if n.startswith("npu_") or n.startswith("_npu_")}
    # every operator that has torch_npu calls gives its functions
    for op, forms in kvgold.ops.TORCH_NPU_CALLS.items():
        for form in forms:
            assert form["api"].split(".", 1)[1] in names, (op, form["api"])
    assert set(tn.functions()) == names
    for n in names:
        assert getattr(npu, n) is kvgold.ops.FUNCTIONS[n], n
    # the other names (ATB's, aclnn's) are not torch_npu's
    assert not (set(kvgold.ops.FUNCTIONS) - names) & set(tn.functions())

    def npu_brand_new_op():
        return "found"
    # an operator module adding a torch_npu function: seen without an edit
    monkeypatch.setitem(kvgold.ops.FUNCTIONS, "npu_brand_new_op",
                        npu_brand_new_op)
    assert npu.npu_brand_new_op() == "found"
    assert "npu_brand_new_op" in dir(npu)


@pytest.mark.parametrize("name", ["npu_fusion_attention", "npu_rms_norm",
                                  "profiler"])
def test_anything_else_names_itself(npu, name):
    with pytest.raises(AttributeError) as e:
        getattr(npu, name)
    assert "torch_npu.%s" % name in str(e.value)
    assert "does not provide" in str(e.value)
    with pytest.raises(AttributeError) as e:
        npu.npu.mem_get_info()
    assert "torch_npu.npu.mem_get_info" in str(e.value)


def test_device_copies(npu):
    x = torch.arange(6, dtype=torch.float16)
    d = x.npu()
    assert d is not x and d.is_npu and not x.is_npu
    d += 1                                        # the "device" copy
    assert torch.equal(x, torch.arange(6, dtype=torch.float16))
    assert d.npu() is d                           # already on the device
    h = d.cpu()
    assert h is not d and not h.is_npu and torch.equal(h, d)
    h += 1
    assert not torch.equal(h, d)
    assert x.cpu() is x                           # a CPU tensor: torch's
    for t in (x.to("npu"), x.to("npu:0"), x.to(device="npu"),
              x.to("npu", torch.float32)):
        assert t.is_npu and t.data_ptr() != x.data_ptr()
    assert x.to("npu", torch.float32).dtype == torch.float32
    assert x.to(torch.float32).dtype == torch.float32 and \
        not x.to(torch.float32).is_npu
    assert d.to(torch.float32).is_npu             # a dtype change on device
    for back in (d.to("cpu"), d.to(torch.device("cpu")), d.to(device="cpu")):
        assert not back.is_npu and back.data_ptr() != d.data_ptr()
        assert torch.equal(back, d)
    assert x.to(x) is x                           # torch's own
    assert torch.npu.is_available() and torch.npu.device_count() == 1
    assert torch.npu.get_device_name(0).startswith("Ascend910B")
    assert torch.npu.synchronize() is None
    from torch_npu.npu import synchronize, current_device
    assert synchronize() is None and current_device() == 0


def test_format_cast(npu):
    x = torch.zeros(2, 2, 16, 16, dtype=torch.float16).npu()
    assert npu.get_npu_format(x) == 2
    nz = npu.npu_format_cast(x, 29)
    assert nz is not x and npu.get_npu_format(nz) == 29
    assert npu.get_npu_format(x) == 2
    assert npu.npu_format_cast(nz, 29) is nz       # no change: itself
    assert npu.npu_format_cast_(x, 29) is x and npu.get_npu_format(x) == 29


def test_mock_patch_still_works(npu):
    """vLLM-Ascend's CPU tests patch single functions
    (@patch("torch_npu.<function>")): the patch wins while it lasts, and
    kvgold's function is back afterwards, for every function."""
    from unittest import mock
    for name in tn.functions():
        real = getattr(npu, name)
        with mock.patch("torch_npu." + name) as fake:
            import torch_npu
            getattr(torch_npu, name)(1, 2, 3, 4, 5)
            fake.assert_called_once_with(1, 2, 3, 4, 5)
        assert getattr(npu, name) is real, name
    with mock.patch("torch_npu.npu_format_cast", side_effect=lambda x, f: x):
        t = torch.ones(2)
        assert npu.npu_format_cast(t, 29) is t
    assert npu.get_npu_format(npu.npu_format_cast(torch.ones(2), 29)) == 29
