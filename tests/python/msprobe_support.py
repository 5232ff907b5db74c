"""Helpers of the kvgold.msprobe tests (tests/python/test_msprobe.py and
each operator's tests/ops/<op>/test_*_msprobe.py): a registry as
msprobe's checker uses it, install() into it, and the checks every API
that updates tensors in place must pass (each operator's folder calls
them with its own call)."""
import torch

import kvgold
import kvgold.msprobe as kvm
from conftest import expected_bits
from ttk_support import torch_inputs  # noqa: F401 (re-exported)


class Registry(dict):
    """The part of msprobe's function_factory.Register the checker uses:
    items by name, looked up with `in` and []."""


def installed(options=None):
    reg, not_raise = Registry(), {"type_as"}
    assert kvm.install(reg, not_raise=not_raise, options=options) is reg
    return reg, not_raise


def check_inplace_returns(api, c, t, args, kwargs, n_ret):
    """An API updating tensors in place without returning them: msprobe
    compares return values only, and torch_npu's None would be written
    "pass" unseen. The bench returns a dict of what the API returns and
    of the in-place tensors after the call, equal to the NumPy
    generator's expected tensors; against the device's None or tuple
    msprobe says "error" (its _compare_core: output types differ).
    c is the case, t its tensors (args and kwargs hold them), n_ret the
    count of what torch_npu returns."""
    reg, _ = installed()
    before = {n: t[n].clone() for n in kvm.INPLACE_ARGS[api]}
    out = reg[api](*args, **kwargs)
    assert isinstance(out, dict) and not isinstance(out, (tuple, list))
    assert list(out) == ["output.%d" % i for i in range(n_ret)] + \
        list(kvm.INPLACE_ARGS[api])
    for n in kvm.INPLACE_ARGS[api]:
        assert out[n] is t[n]
        assert kvgold.tensor(t[n], c.dtypes[n]).tobytes() == \
            expected_bits(c, n), (api, n)
        assert not torch.equal(before[n], t[n]), (api, n)
    # msprobe's golden / target output handler: the same tuple from the
    # bench's dict and from the device's return value and arguments
    gold = kvm.outputs_after_call(api, out, args, kwargs)
    device = kvm.outputs_after_call(api, _returned(out, n_ret), args, kwargs)
    assert isinstance(gold, tuple) and len(gold) == len(out)
    for g, d in zip(gold, device):
        assert (g is None and d is None) or torch.equal(g, d)


def _returned(bench_out, n_ret):
    """What torch_npu returns for the call the bench dict describes."""
    if n_ret == 0:
        return None
    return tuple(bench_out["output.%d" % i] for i in range(n_ret))


def check_copied_bits(api, c, t, args, kwargs, n_ret, copied):
    """msprobe judges float outputs statistically (a lost write of 16
    fp16 elements in a 10240-element cache was a "warning") and integer
    ones bit for bit (int8 / int32 / int64 only). The handler gives a
    cache the call only copies into (`copied`: the in-place tensors the
    call moves tokens' bits into, judged bitwise by CANN's standard,
    docs/compare.md) as one integer per element equal to its bit pattern
    (2-byte floats widened to int32), and leaves computed tensors as they
    are; one flipped bit in the device's cache then makes the two sides
    differ, and a NaN the caches hold is just bits."""
    reg, _ = installed()
    out = reg[api](*args, **kwargs)
    gold = kvm.outputs_after_call(api, out, args, kwargs)
    names = list(out)
    for n in kvm.INPLACE_ARGS[api]:
        g = gold[names.index(n)]
        if n not in copied:
            assert g is out[n], (api, n)
            continue
        assert g.dtype in (torch.int32, torch.int64), (api, n, g.dtype)
        width = out[n].element_size() * 8
        raw = g.numpy().astype("int64") & ((1 << width) - 1)
        assert raw.astype("<u%d" % (width // 8)).tobytes() == \
            expected_bits(c, n), (api, n)
    for n in copied:
        at = [i for i, a in enumerate(args) if a is t[n]][0]
        faulty = tuple(a.clone() if i == at else a
                       for i, a in enumerate(args))
        target = faulty[at]
        flat = target.view(-1).view(torch.int16 if target.element_size()
                                    == 2 else torch.int32)
        flat[7] ^= 1                       # one ulp of one element
        device = kvm.outputs_after_call(api, _returned(out, n_ret), faulty,
                                        kwargs)
        i = names.index(n)
        assert not torch.equal(gold[i], device[i]), (api, n)
        assert int((gold[i] != device[i]).sum()) == 1, (api, n)
