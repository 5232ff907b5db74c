"""kvgold.torch_npu's _npu_reshape_and_cache: the NZ pick by storage
format as op-plugin's ATB binding does it, and the pytest plugin running a
user's test of it. Expected cache contents are written here from the layout
formulas (docs/reshape_and_cache.md)."""
import os
import subprocess
import sys
import textwrap

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


def test_torch_npu_names():
    assert {"_npu_reshape_and_cache", "_npu_reshape_and_cache_siso"} <= \
        set(tn.functions())
    assert "reshape_and_cache" not in tn.functions()   # an ATB name


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
