"""Tensors at the edges of what kvgold takes: an empty kvgold.Tensor of
every storage seen by NumPy (an operator's case with empty caches is
tested in its folder, tests/ops/<op>/), and torch tensors with no dense
storage (sparse, mkldnn), which every API refuses as kvgold.Error naming
the argument, never as torch's RuntimeError."""
import os

import numpy as np
import pytest
import torch

import kvgold
import kvgold.ops
from kvgold._dtypes import AMBIGUOUS_8BIT
from kvgold.ops._forms import value_map
from conftest import VECTORS
from ttk_support import call_form, case_name, prepare_cases, torch_inputs


@pytest.mark.parametrize("tag", ["fp16", "bf16", "fp32", "int8", "int32",
                                 "int64", "fp8_e4m3fn", "hif8"])
def test_empty_tensor_of_every_storage(tag):
    storage = {"fp16": np.float16, "bf16": np.uint16, "fp32": np.float32,
               "int8": np.int8, "int32": np.int32, "int64": np.int64,
               "fp8_e4m3fn": np.uint8, "hif8": np.uint8}[tag]
    for shape in ((0,), (3, 0), (2, 0, 5)):
        a = np.asarray(kvgold.Tensor(b"", tag, shape))
        assert a.dtype == storage and a.shape == shape
    # and back: an empty array is an empty kvgold.Tensor of its tag
    t = kvgold.tensor(np.zeros((4, 0), storage), tag)
    assert t.shape == (4, 0) and t.nbytes == 0 and t.dtype == tag


# ---- torch tensors without dense storage ----------------------------------

def _sparse_message(e, name):
    assert isinstance(e.value, kvgold.Error), e.value
    assert e.value.tensor == name
    assert "%s: a sparse_coo tensor" % name in str(e.value)
    assert "does not support sparse tensors" in str(e.value)
    assert ".to_dense()" in str(e.value)


@pytest.mark.parametrize("layout", ["sparse", "sparse_csr", "mkldnn"])
def test_tensor_and_to_torch_refuse_other_layouts(layout):
    dense = torch.arange(1, 17, dtype=torch.float32).reshape(4, 4)
    t = {"sparse": dense.to_sparse, "sparse_csr": dense.to_sparse_csr,
         "mkldnn": dense.to_mkldnn}[layout]()
    for fn in (lambda: kvgold.tensor(t, "fp32"), lambda: kvgold.to_torch(t)):
        with pytest.raises(kvgold.Error) as e:
            fn()
        assert e.value.tensor == "tensor"
        assert ".to_dense()" in str(e.value)
    # converted as the message says, the same values are taken
    assert np.array_equal(np.asarray(kvgold.tensor(t.to_dense(), "fp32")),
                          dense.numpy())


def _forms():
    """(operator, case, its torch_npu form) for each operator's first
    prepare case whose arguments torch names by their dtype (no untagged
    8-bit storage, but for a tensor whose format the API fixes, as its
    form's call says - kvgold's dtypes option; an output the case gives
    poisoned is no argument)."""
    out = []
    for op, (names, _) in prepare_cases().items():
        for name in names:
            c = kvgold.load_case(os.path.join(VECTORS, op, name))
            form = call_form(op, c.inputs, c.attrs)
            args = () if form is None else {
                case_name(form, n) for n in form["tensors"]}
            fixed = {} if form is None else \
                form.get("call", {}).get("dtypes") or {}
            if form is not None and not any(
                    c.dtypes[n] in AMBIGUOUS_8BIT and n not in fixed
                    for n in c.inputs if n in args):
                out.append((op, name, form))
                break
    return out


FORMS = _forms()


def _raw(t):
    """A torch tensor's bytes (NaN elements compare too)."""
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _spelled(op, form, attr, value):
    """(the API's keyword, its spelling of `value`) of case attribute
    `attr`: the binding's keyword and first framework value, as `kvgold
    prepare --csv` writes them (vLLM's kv_cache_dtype "fp8_ds_mla" for
    the preset vllm-fp8_ds_mla)."""
    keyword = {a: k for k, a in form.get("attr_keywords", {}).items()}
    spelling = {}
    for fw, case in value_map(op, form["api"], attr).items():
        spelling.setdefault(case, fw)
    if isinstance(value, (list, dict)):  # no binding respells these
        return keyword.get(attr, attr), value
    return keyword.get(attr, attr), spelling.get(value, value)


def _call(form, c, t):
    """The API's function (named as its last component) with the case's
    tensors and attributes as the API takes them."""
    fn = kvgold.ops.FUNCTIONS[form["api"].rsplit(".", 1)[1]]
    args = {n: t[case_name(form, n)] for n in form["tensors"]
            if case_name(form, n) in t}
    attrs = dict(form.get("case_defaults", {}))
    attrs.update(_spelled(c.op, form, n, c.attrs[n])
                 for n in form.get("attrs", ()) if n in c.attrs)
    return fn(**args, **attrs)


def test_every_operator_has_a_form_here():
    assert {op for op, _, _ in FORMS} == {
        op for op, forms in kvgold.ops.TORCH_NPU_CALLS.items() if forms}


@pytest.mark.parametrize("op,name,form", FORMS,
                         ids=[f[0] for f in FORMS])
def test_torch_npu_functions_refuse_a_sparse_argument(op, name, form):
    c = kvgold.load_case(os.path.join(VECTORS, op, name))
    _call(form, c, torch_inputs(c))  # dense, the call is taken
    given = [n for n in form["tensors"] if case_name(form, n) in c.inputs]
    assert given
    for n in given:
        t = torch_inputs(c)
        cname = case_name(form, n)
        before = {k: _raw(v) for k, v in t.items()}
        assert t[cname].count_nonzero() > 0, cname
        t[cname] = t[cname].to_sparse()
        with pytest.raises(kvgold.Error) as e:
            _call(form, c, t)
        _sparse_message(e, cname)
        # refused before anything was written
        for k, v in before.items():
            if k != cname:
                assert _raw(t[k]) == v, (n, k)


def test_compare_refuses_a_sparse_npu_output():
    c = kvgold.load_case(os.path.join(VECTORS, "examples",
                                      "deepseek_mla_decode"))
    golden = kvgold.run(c.op, torch_inputs(c), c.attrs, c.options,
                        dtypes=c.dtypes)
    npu = {n: v.clone() for n, v in golden.items()}
    assert kvgold.compare(golden, npu).passed
    assert npu["ckv_cache"].count_nonzero() > 0
    npu["ckv_cache"] = npu["ckv_cache"].to_sparse()
    with pytest.raises(kvgold.Error) as e:
        kvgold.compare(golden, npu)
    _sparse_message(e, "ckv_cache")
