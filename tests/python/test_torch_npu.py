"""kvgold.torch_npu, the CPU stand-in for the torch_npu module: which
functions it has (found in kvgold.ops), the error for the rest, the device
copies, the storage formats, and that uninstall() gives torch back as it
was. What an operator's functions do under it is tested in its own folder,
tests/ops/<op>/."""
import os
import subprocess
import sys

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


def test_functions_come_from_kvgold_ops(npu):
    names = {n for n in kvgold.ops.FUNCTIONS
             if n.startswith("npu_") or n.startswith("_npu_")}
    # every operator that has torch_npu calls gives its functions (a
    # torch API of another package, torch.ops.<namespace>.* or
    # cann_ops_transformer.*, is a torch call form too, not torch_npu's)
    for op, forms in kvgold.ops.TORCH_NPU_CALLS.items():
        for form in forms:
            if form["api"].startswith("torch_npu."):
                assert form["api"].split(".", 1)[1] in names, \
                    (op, form["api"])
    assert set(tn.functions()) == names
    for n in names:
        assert getattr(npu, n) is kvgold.ops.FUNCTIONS[n], n
    # the other names (ATB's, aclnn's) are not torch_npu's
    assert not (set(kvgold.ops.FUNCTIONS) - names) & set(tn.functions())
    # every public name resolves (the operators' through the module's
    # __getattr__, which raises for anything else) and is listed
    assert len(tn.__all__) == len(set(tn.__all__))
    for n in tn.__all__:
        assert getattr(tn, n) is not None, n
    assert set(names) <= set(tn.__all__) and set(names) <= set(dir(npu))
    ns = {}
    exec("from torch_npu import *", ns)
    assert {n: ns[n] for n in names} == {n: getattr(npu, n) for n in names}


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


# ---- torch_npu.testing: what op-plugin's test files import -------------------
# Expected verdicts follow Ascend/pytorch's torch_npu/testing/testcase.py
# (9e73e708) from its definition: an element fails when both its absolute
# and its relative difference exceed prec; the call fails only when more
# than prec * numel elements fail.

def _case():
    from kvgold.torch_npu.testing.testcase import TestCase

    class T(TestCase):
        def runTest(self):
            pass
    return T()


def _fails(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except AssertionError:
        return True
    return False


def test_testing_modules_installed_under_torch_npu_names(npu):
    import torch_npu.testing.testcase as tc
    from torch_npu.testing.common_utils import get_npu_device
    from torch_npu.testing.testcase import TestCase, run_tests
    assert tc is tn.testing.testcase
    assert npu.testing is tn.testing
    assert callable(run_tests) and issubclass(TestCase, object)
    assert get_npu_device() == "npu:0"
    tn.uninstall()
    assert "torch_npu.testing.testcase" not in sys.modules
    tn.install()                                 # for the fixture's teardown


@pytest.mark.parametrize("dtype,prec_kw,step", [
    (torch.float32, {"prec": 1e-4}, 1.0),
    (torch.int32, {"prec": 1e-4}, 3),
    (torch.float16, {"prec16": 1e-3}, 1.0),
])
def test_assert_rtol_equal_lets_prec_times_numel_elements_fail(dtype,
                                                               prec_kw,
                                                               step):
    t = _case()
    x = (torch.arange(10000) % 50 + 100).to(dtype)     # 10000 * 1e-4 = 1
    y = x.clone()
    y[7] += step                                 # 1 bad element: allowed
    if dtype == torch.float16:                   # fp16: 1e-3 * 10000 = 10
        y[7:17] += step
    t.assertRtolEqual(x, y, **prec_kw)
    y[9000] += step                              # one more: fails
    assert _fails(t.assertRtolEqual, x, y, **prec_kw)


def test_assert_rtol_equal_relative_and_absolute_and_refusals():
    t = _case()
    x = torch.full((100,), 1000.0)
    t.assertRtolEqual(x, x + 0.05)               # rel 5e-5 <= 1e-4
    assert _fails(t.assertRtolEqual, x, x + 0.5)  # rel 5e-4, abs 0.5
    small = torch.full((100,), 1e-6)
    t.assertRtolEqual(small, small * 3)          # abs 2e-6 <= 1e-4
    assert _fails(t.assertRtolEqual, x, x.double())            # dtype
    assert _fails(t.assertRtolEqual, x, x[:50])                # shape
    n = x.clone()
    n[3] = float("nan")
    assert _fails(t.assertRtolEqual, n, x)                     # NaN place
    t.assertRtolEqual(n, n.clone())
    b = torch.full((64,), 1e-4, dtype=torch.bfloat16)
    t.assertRtolEqual(b, b * 2)                  # allclose: |d| 1e-4 <= 1e-3
    b[0] = 1
    assert _fails(t.assertRtolEqual, b, b * 2)   # one element is enough
    t.assertRtolEqual([x, b], [x.clone(), b.clone()])   # sequences


def test_assert_equal_with_precision():
    t = _case()
    x = torch.arange(6, dtype=torch.float32)
    t.assertEqual(x, x + 1e-6)                   # default precision 1e-5
    assert _fails(t.assertEqual, x, x + 1e-3)
    t.assertEqual(x, x + 1e-3, prec=1e-2)
    assert _fails(t.assertEqual, x, torch.arange(5.0))
    t.assertEqual(x.shape, torch.Size([6]))
    t.assertEqual(x.dtype, torch.float32)
    assert _fails(t.assertEqual, x.dtype, torch.float16)
    t.assertEqual(torch.tensor(2.0), 2.0)


def test_setup_seeds_and_supported_devices(monkeypatch, npu):
    from torch_npu.testing.common_utils import SupportedDevices
    t = _case()
    monkeypatch.setenv("SEED", "5")
    t.setUp()
    got = torch.rand(3)
    torch.manual_seed(5)
    assert torch.equal(got, torch.rand(3))
    ran = []
    SupportedDevices(["Ascend910B"])(lambda s: ran.append(1))(t)
    assert ran == [1]
    import unittest
    with pytest.raises(unittest.SkipTest) as e:
        SupportedDevices(["Ascend950"])(lambda s: ran.append(2))(t)
    assert "Ascend910B" in str(e.value) and ran == [1]


def test_dynamo_reset_for_a_torch_without_it(npu):
    torch._dynamo.reset()                        # op-plugin's tests call it


RUN_FILE = '''
import torch
import torch_npu
from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import SupportedDevices


class T(TestCase):
    @SupportedDevices(["Ascend910B"])
    def test_device_copy(self):
        # the stand-in's own functions only (an operator's are tested in
        # its folder): a copy to the "device", cast, written there, back
        x = torch.arange(8, dtype=torch.float16).reshape(2, 4) + 1
        d = torch_npu.npu_format_cast(x.npu(), 29)
        d += 1
        want = x + 1
        self.assertEqual(torch_npu.get_npu_format(d), 29)
        self.assertRtolEqual(WANT, d.cpu())
        torch._dynamo.reset()

if __name__ == "__main__":
    run_tests()
'''


@pytest.mark.parametrize("want,rc", [("want", 0), ("x", 1)])
def test_module_runs_an_npu_test_file(tmp_path, want, rc):
    """python3 -m kvgold.torch_npu FILE: the file's run_tests() runs with
    the stand-in; a wrong expectation makes it exit non-zero."""
    f = tmp_path / "test_file.py"
    f.write_text(RUN_FILE.replace("WANT", want))
    p = subprocess.run([sys.executable, "-m", "kvgold.torch_npu", str(f),
                        "-v"], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert p.returncode == rc, p.stderr
    assert "test_device_copy" in p.stderr
    assert ("OK" in p.stderr) == (rc == 0)


@pytest.mark.parametrize("flag,rc", [(["--kvgold-torch-npu"], 0), ([], 2)])
def test_pytest_session_option(tmp_path, flag, rc):
    """pytest -p kvgold.torch_npu --kvgold-torch-npu installs the stand-in
    before collection, so a unittest file importing torch_npu at module
    level collects and runs; without the option it is a collection error
    (pytest exit code 2), as without any torch_npu."""
    f = tmp_path / "test_file.py"
    f.write_text(RUN_FILE.replace("WANT", "want"))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                        "no:cacheprovider", "-p", "kvgold.torch_npu"] + flag
                       + [str(f)], capture_output=True, text=True,
                       env=dict(os.environ), cwd=str(tmp_path), timeout=120)
    assert p.returncode == rc, p.stdout + p.stderr
    if rc == 0:
        assert "1 passed" in p.stdout
