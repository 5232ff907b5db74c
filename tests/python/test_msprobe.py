"""kvgold.msprobe: the bench functions called as msprobe's accuracy checker
calls them (docs/msprobe.md cites the code at Ascend/msprobe@8ff00da):
found by the NPU API's name in a registry, called with the API's own
arguments on CPU tensors, `registry[name](*args, **kwargs)`, answering
what torch_npu answers with the caches updated in place. Each operator's
calls are tested in its folder (tests/ops/<op>/test_*_msprobe.py);
here, what holds for every operator."""
import os

import pytest
import torch

import kvgold
import kvgold.msprobe as kvm
from conftest import VECTORS, example, expected_bits
from msprobe_support import installed, torch_inputs


def test_install_registers_every_api_under_its_npu_name():
    reg, not_raise = installed()
    # every torch_npu-named function kvgold has (each operator's tests
    # require the names msprobe's hook list dumps)
    assert set(reg) == {n for n in kvgold.ops.FUNCTIONS
                        if n.startswith(("npu_", "_npu_"))}
    for name, fn in reg.items():
        assert fn.__name__ == name       # msprobe's Register keys by it
        assert fn is getattr(kvm, name)
    # msprobe must hand these functions the dtypes the NPU saw
    assert not_raise == {"type_as"} | set(reg)
    for name in reg:
        assert name in kvm.FUSION_OPERATOR_CONFIG


def test_module_names_are_the_bench_functions():
    """The module's API-named attributes (spelled out in msprobe.py) are
    exactly BENCH_FUNCTIONS: an operator adding a torch_npu name fails
    here until msprobe.py names it."""
    named = {n for n in kvm.__all__ if n.startswith(("npu_", "_npu_"))}
    assert named == set(kvm.BENCH_FUNCTIONS)
    for n in named:
        assert getattr(kvm, n) is kvm.BENCH_FUNCTIONS[n]
    assert set(kvm.INPLACE_ARGS) <= set(kvm.BENCH_FUNCTIONS)


def _rac():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_fp16")
    t = torch_inputs(c)
    return c, t, (t["key"], t["value"], t["key_cache"], t["value_cache"],
                  t["slot_mapping"])


def _spkc():
    c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/norm_bf16")
    t = torch_inputs(c)
    return c, t, (t["key"], t["value"], t["key_cache"], t["value_cache"],
                  t["slot_mapping"])


def _qkv():
    c = kvgold.load_case(example("qwen3_qkv_decode"))
    t = torch_inputs(c)
    a = c.attrs
    kw = {k: t[k] for k in ("k_scale", "v_scale", "k_offset", "v_offset")
          if k in t}
    kw.update(epsilon=a["epsilon"], cache_mode=a["cache_mode"])
    return c, t, (t["qkv"], t["q_gamma"], t["k_gamma"], t["cos"], t["sin"],
                  t["index"], t["q_out"], t["k_cache"], t["v_cache"],
                  a["qkv_size"], a["head_nums"]), kw


# API -> (case, its tensors, args, kwargs, what torch_npu returns: count)
def _inplace_calls():
    c, t, args = _rac()
    yield "_npu_reshape_and_cache", c, t, args, {}, 0
    c, t, args = _spkc()
    yield "npu_scatter_pa_kv_cache", c, t, args, {"cache_mode": "Norm"}, 0
    c, t, args, kw = _qkv()
    yield "npu_qkv_rms_norm_rope_cache", c, t, args, kw, 3


@pytest.mark.parametrize("call", list(_inplace_calls()),
                         ids=lambda c: c[0])
def test_inplace_api_returns_everything_it_changed(call):
    """An API updating tensors in place without returning them: msprobe
    compares return values only, and torch_npu's None would be written
    "pass" unseen. The bench returns a dict of what the API returns and
    of the in-place tensors after the call, equal to the NumPy
    generator's expected tensors; against the device's None or tuple
    msprobe says "error" (its _compare_core: output types differ)."""
    api, c, t, args, kwargs, n_ret = call
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


# The in-place tensors each call only copies into: reshape_and_cache and
# scatter_pa_kv_cache's Norm mode move the tokens' bits into the caches
# (CANN's standard judges such non-compute outputs bitwise; docs/compare.md);
# qkv's caches are computed and quantised.
_COPIED = {"_npu_reshape_and_cache": ("key_cache", "value_cache"),
           "npu_scatter_pa_kv_cache": ("key_cache", "value_cache"),
           "npu_qkv_rms_norm_rope_cache": ()}


@pytest.mark.parametrize("call", list(_inplace_calls()),
                         ids=lambda c: c[0])
def test_copied_caches_reach_msprobe_as_their_bits(call):
    """msprobe judges float outputs statistically (a lost write of 16
    fp16 elements in a 10240-element cache was a "warning") and integer
    ones bit for bit (int8 / int32 / int64 only). The handler gives a
    cache the call only copies into as one integer per element equal to
    its bit pattern (2-byte floats widened to int32), and leaves computed
    tensors as they are; one flipped bit in the device's cache then makes
    the two sides differ, and a NaN the caches hold is just bits."""
    api, c, t, args, kwargs, n_ret = call
    reg, _ = installed()
    out = reg[api](*args, **kwargs)
    gold = kvm.outputs_after_call(api, out, args, kwargs)
    names = list(out)
    for n in kvm.INPLACE_ARGS[api]:
        g = gold[names.index(n)]
        if n not in _COPIED[api]:
            assert g is out[n], (api, n)
            continue
        assert g.dtype in (torch.int32, torch.int64), (api, n, g.dtype)
        width = out[n].element_size() * 8
        raw = g.numpy().astype("int64") & ((1 << width) - 1)
        assert raw.astype("<u%d" % (width // 8)).tobytes() == \
            expected_bits(c, n), (api, n)
    for n in _COPIED[api]:
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


def test_outputs_after_call_leaves_other_apis():
    out = (torch.ones(2),)
    assert kvm.outputs_after_call("npu_kv_rmsnorm_rope_cache", out, (),
                                  {}) is out


def test_a_none_nobody_compares_is_refused(monkeypatch):
    """An API kvgold does not list in INPLACE_ARGS that returns None
    (a new operator's in-place form): refused, so msprobe records the
    call as not run (SKIP) instead of writing "pass" for a None."""
    monkeypatch.delitem(kvm.INPLACE_ARGS, "_npu_reshape_and_cache")
    reg, _ = installed()
    _, _, args = _rac()
    with pytest.raises(kvgold.Error) as e:
        reg["_npu_reshape_and_cache"](*args)
    assert "nothing to compare" in str(e.value)


def test_postprocess_config_names_the_handler():
    lines = kvm.POSTPROCESS_CONFIG.splitlines()
    assert len(lines) == len(kvm.INPLACE_ARGS)
    assert set(lines) == {'    %s: "%s:outputs_after_call"' % (
        api, kvm.POSTPROCESS_HANDLER_FILE) for api in kvm.INPLACE_ARGS}
    ns = {}
    exec(kvm.POSTPROCESS_HANDLER, ns)
    assert ns["outputs_after_call"] is kvm.outputs_after_call


def test_fp32_arguments_are_tensor_arguments():
    """An operator's FP32_ARGS (the float32 tensors the NPU takes, the
    rest being msprobe's widening) names tensor arguments of its calls."""
    for op, module in kvgold.ops.MODULES.items():
        fp32 = getattr(module, "FP32_ARGS", None)
        if fp32 is None:
            continue
        assert isinstance(fp32, frozenset), op
        tensors = {n for form in kvgold.ops.TORCH_NPU_CALLS[op]
                   for n in form["tensors"]}
        assert fp32 <= tensors, (op, fp32 - tensors)


def test_doc_examples_run():
    """Every ```python block of docs/msprobe.md runs from the repository root."""
    import re
    import subprocess
    import sys
    docs = os.environ.get("KVG_DOCS_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "docs"))
    with open(os.path.join(docs, "msprobe.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(),
                            re.S | re.M)
    assert blocks
    for code in blocks:
        p = subprocess.run([sys.executable, "-c", code],
                           cwd=os.path.dirname(os.path.abspath(docs)),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
