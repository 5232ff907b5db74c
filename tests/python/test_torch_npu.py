"""kvgold.torch_npu, the CPU stand-in for the torch_npu module: which
functions it has (found in kvgold.ops), the error for the rest, the device
copies, the storage formats and _npu_reshape_and_cache's NZ pick, and that
uninstall() gives torch back as it was. Expected cache contents are written
here from the layout formulas (docs/reshape_and_cache.md)."""
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
    assert {"_npu_reshape_and_cache", "_npu_reshape_and_cache_siso",
            "npu_kv_rmsnorm_rope_cache",
            "npu_qkv_rms_norm_rope_cache"} <= names
    assert set(tn.functions()) == names
    for n in names:
        assert getattr(npu, n) is kvgold.ops.FUNCTIONS[n], n
    assert "reshape_and_cache" not in tn.functions()   # an ATB name

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


def nz_expected(src, cache, slots):
    """[NB, N*D/C0, BS, C0]: chunk g of token t to [s // BS, g, s % BS]."""
    out = cache.clone()
    bs, c0 = cache.shape[2], cache.shape[3]
    flat = src.reshape(src.shape[0], -1)
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            for g in range(flat.shape[1] // c0):
                out[s // bs, g, s % bs] = flat[t, g * c0:(g + 1) * c0]
    return out


def test_reshape_and_cache_picks_nz_when_both_caches_are_nz(npu):
    g = torch.Generator().manual_seed(5)
    key = torch.randint(-128, 128, (3, 2, 64), generator=g, dtype=torch.int8)
    value = torch.randn(3, 2, 32, generator=g).to(torch.bfloat16)
    kc = torch.randint(-128, 128, (2, 4, 16, 32), generator=g,
                       dtype=torch.int8)             # C0 32 for int8
    vc = torch.randn(2, 4, 16, 16, generator=g).to(torch.bfloat16)
    slots = torch.tensor([31, -1, 4], dtype=torch.int32)
    want_k, want_v = nz_expected(key, kc, slots), nz_expected(value, vc, slots)

    k_nz = npu.npu_format_cast(kc.npu(), 29)
    v_nz = npu.npu_format_cast(vc.npu(), 29)
    assert npu._npu_reshape_and_cache(key.npu(), value.npu(), k_nz, v_nz,
                                      slots.npu()) is None
    assert torch.equal(k_nz.cpu(), want_k) and torch.equal(v_nz.cpu(), want_v)
    assert k_nz.dtype == torch.int8 and v_nz.dtype == torch.bfloat16

    # one cache not NZ: the ND kernel, as op-plugin chooses; these NZ-shaped
    # caches do not fit it, and nothing is written
    v_nd = vc.npu()
    k_nz2 = npu.npu_format_cast(kc.npu(), 29)
    with pytest.raises(kvgold.Error):
        npu._npu_reshape_and_cache(key.npu(), value.npu(), k_nz2, v_nd,
                                   slots.npu())
    assert torch.equal(k_nz2.cpu(), kc) and torch.equal(v_nd.cpu(), vc)


def test_reshape_and_cache_nd_by_default(npu):
    torch.manual_seed(1)
    key = torch.randn(2, 1, 16).half()
    kc = torch.randn(2, 4, 1, 16).half()
    vc = torch.randn(2, 4, 1, 16).half()
    kd, vd = kc.npu(), vc.npu()
    npu._npu_reshape_and_cache(key.npu(), (key * 2).npu(), kd, vd,
                               torch.tensor([5, 0], dtype=torch.int32).npu())
    assert torch.equal(kd.cpu()[1, 1], key[0]) and torch.equal(
        kd.cpu()[0, 0], key[1])
    assert torch.equal(vd.cpu()[1, 1], key[0] * 2)
    assert not torch.equal(kd.cpu()[1, 1], kc[1, 1])  # the CPU original
    kd_back = kd.cpu()                                 # is not the cache
    kd_back[0, 0] = 0
    assert not torch.equal(kd.cpu(), kd_back)
    # op-plugin's ND test draws head sizes 1..255, Dk != Dv
    g = torch.Generator().manual_seed(3)
    key, value = torch.randn(4, 2, 13, generator=g).half(), \
        torch.randn(4, 2, 250, generator=g).half()
    kc = torch.randn(3, 2, 2, 13, generator=g).half()
    vc = torch.randn(3, 2, 2, 250, generator=g).half()
    slots = torch.tensor([4, -1, 0, 5], dtype=torch.int32)
    want_k, want_v = kc.clone(), vc.clone()
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            want_k[s // 2, s % 2], want_v[s // 2, s % 2] = key[t], value[t]
    kd, vd = kc.npu(), vc.npu()
    npu._npu_reshape_and_cache(key.npu(), value.npu(), kd, vd, slots.npu())
    assert torch.equal(kd.cpu(), want_k) and torch.equal(vd.cpu(), want_v)


def test_pytest_plugin_fixture(tmp_path):
    """`pytest -p kvgold.torch_npu`: the torch_npu fixture installs the
    stand-in for one test and removes it afterwards."""
    (tmp_path / "test_user.py").write_text(textwrap.dedent('''
        import sys
        import torch

        def test_uses_it(torch_npu):
            import torch_npu as again
            assert again is torch_npu
            key = torch.ones(2, 1, 8, dtype=torch.float16)
            cache = torch.zeros(1, 4, 1, 8, dtype=torch.float16).npu()
            torch_npu._npu_reshape_and_cache_siso(
                key.npu(), cache, torch.tensor([3, 1], dtype=torch.int32))
            assert cache.cpu()[0, :, 0, 0].tolist() == [0, 1, 0, 1]

        def test_then_gone():
            assert "torch_npu" not in sys.modules
            assert not hasattr(torch.Tensor, "npu")
        '''))
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                        "no:cacheprovider", "-p", "kvgold.torch_npu",
                        "--rootdir", str(tmp_path),
                        str(tmp_path / "test_user.py")],
                       env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 passed" in p.stdout


def test_mock_patch_still_works(npu):
    """vLLM-Ascend's CPU tests patch single functions
    (@patch("torch_npu._npu_reshape_and_cache")): the patch wins while it
    lasts, and kvgold's function is back afterwards."""
    from unittest import mock
    real = npu._npu_reshape_and_cache
    with mock.patch("torch_npu._npu_reshape_and_cache") as fake:
        import torch_npu
        torch_npu._npu_reshape_and_cache(1, 2, 3, 4, 5)
        fake.assert_called_once_with(1, 2, 3, 4, 5)
    assert npu._npu_reshape_and_cache is real
    with mock.patch("torch_npu.npu_format_cast", side_effect=lambda x, f: x):
        t = torch.ones(2)
        assert npu.npu_format_cast(t, 29) is t
    assert npu.get_npu_format(npu.npu_format_cast(torch.ones(2), 29)) == 29
