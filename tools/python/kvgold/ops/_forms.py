"""The torch_npu call forms of an operator: what C states of each
(tools/lib/bindings/<op>.c, read through libkvgold_case.so's
kvg_py_call_form_*) joined with what only Python knows (the operator
module's TORCH_NPU_PYTHON), so that each fact about a call is written in
one file. kvgold/ops/__init__.py describes the fields of a form."""
import json
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import _lib
from .._run import op_spec

Form = Mapping[str, Any]


def _text(op: str, i: int, field: str) -> Optional[str]:
    value = _lib.lib.kvg_py_call_form_text(op.encode(), i, field.encode())
    return None if value is None else value.decode()


def _list(op: str, i: int, field: str) -> Optional[Tuple[str, ...]]:
    """A NULL-terminated list field, None when the form has none."""
    ptr = _lib.lib.kvg_py_call_form_list(op.encode(), i, field.encode())
    if not ptr:
        return None
    out: List[str] = []
    while ptr[len(out)] is not None:
        out.append(ptr[len(out)].decode())
    return tuple(out)


def _api_names(keywords: Tuple[str, ...]) -> Dict[str, str]:
    """{kvgold name: the API's own parameter name} where they differ: the
    first keyword pair naming an input (binding.h, `keywords`)."""
    names: Dict[str, str] = {}
    for framework, kvgold in zip(keywords[::2], keywords[1::2]):
        if not kvgold.startswith("="):
            names.setdefault(kvgold, framework)
    return {k: v for k, v in names.items() if k != v}


def _attr_keywords(keywords: Tuple[str, ...]) -> Dict[str, str]:
    """{the API's keyword: case.json's attribute} where they differ (a
    keyword pair "=attr", binding.h `keywords`): how ops-test-kit, which
    passes attributes by the keywords `kvgold prepare` wrote, names
    them."""
    return {framework: kvgold[1:]
            for framework, kvgold in zip(keywords[::2], keywords[1::2])
            if kvgold.startswith("=") and kvgold[1:] != framework}


def _case_defaults(op: str, api: str, attrs: Tuple[str, ...],
                   framework: Tuple[str, ...]) -> Dict[str, Any]:
    """{attribute: the operator's default} for an attribute of the call
    whose framework default differs: what a case without the attribute
    must pass to the API to mean what the case means."""
    from ._common import framework_value
    defaults = {name: info[3] for name, info in op_spec(op).attrs.items()}
    out: Dict[str, Any] = {}
    for attr in attrs:
        text = defaults.get(attr)
        if attr not in framework or text is None:
            continue
        mine = json.loads(text)  # as case.json writes it
        if framework_value(api, attr, {}) != mine:
            out[attr] = mine
    return out


def _c_form(op: str, i: int) -> Dict[str, Any]:
    """Form `i` of `op` as C states it, tensors under the API's names."""
    api = _text(op, i, "api") or ""
    renamed = _api_names(_list(op, i, "keywords") or ())
    attrs = _list(op, i, "attrs") or ()
    form: Dict[str, Any] = {
        "api": api,
        "tensors": tuple(renamed.get(n, n) for n in
                         _list(op, i, "tensors") or ()),
        "attrs": attrs,
        "outputs": _list(op, i, "outputs") or (),
        "case_names": {v: k for k, v in renamed.items()},
        "attr_keywords": _attr_keywords(_list(op, i, "keywords") or ()),
        "case_defaults": _case_defaults(
            op, api, attrs, _list(op, i, "framework_attrs") or ())}
    selector = _text(op, i, "selector")
    if selector is not None:
        form["selector"] = selector
    form["inplace"] = _inplace(form)
    # outputs the operator produces for some attributes only (its
    # descriptor's KVG_OP_PRODUCED; kvgold.run leaves them out otherwise)
    presence = op_spec(op).presence
    form["produced_only"] = tuple(n for n in form["outputs"]
                                  if presence.get(n) == _lib.PRODUCED)
    return form


def value_map(op: str, api: str, attr: str) -> Dict[Any, Any]:
    """{the framework's value: case.json's value} of attribute `attr` on
    call form `api` of `op`, as its binding states them (binding.h,
    `values`; parsed JSON), for a Python function that takes the
    framework's spelling; {} when the two spell it alike."""
    for i in range(_lib.lib.kvg_py_call_form_count(op.encode())):
        if _text(op, i, "api") != api:
            continue
        triples = _list(op, i, "values") or ()
        return {json.loads(fw): json.loads(case)
                for name, case, fw in zip(triples[::3], triples[1::3],
                                          triples[2::3]) if name == attr}
    raise ImportError("kvgold.ops.%s: no call form %s in "
                      "tools/lib/bindings/%s.c" % (op, api, op))


def _inplace(form: Form) -> Tuple[str, ...]:
    """The tensor arguments (API names) the call updates in place: the
    longest tail of its outputs that are its tensor arguments (what it
    returns comes first)."""
    kvgold_names = [form["case_names"].get(t, t) for t in form["tensors"]]
    outputs = list(form["outputs"])
    returned = len(outputs)
    while returned > 0 and outputs[returned - 1] in kvgold_names:
        returned -= 1
    return tuple(form["tensors"][kvgold_names.index(n)]
                 for n in outputs[returned:])


def torch_npu_forms(op: str, python: Mapping[str, Mapping[str, Any]]
                    ) -> Tuple[Form, ...]:
    """The torch_npu call forms of operator `op`, in the binding's order,
    each completed by the module's Python-only fields (`python`, by API);
    a form without them, or Python fields for a form C does not have, is
    an ImportError naming it."""
    forms: List[Form] = []
    for i in range(_lib.lib.kvg_py_call_form_count(op.encode())):
        if _text(op, i, "kind") != "torch_npu":
            continue
        form = _c_form(op, i)
        extra = python.get(form["api"])
        if extra is None:
            raise ImportError(
                "kvgold.ops.%s: C's call form %s (tools/lib/bindings/%s.c) "
                "has no entry in TORCH_NPU_PYTHON" % (op, form["api"], op))
        overlap = set(extra) & set(form)
        if overlap:
            raise ImportError("kvgold.ops.%s: TORCH_NPU_PYTHON[%s] restates "
                              "C's %s" % (op, form["api"],
                                          ", ".join(sorted(overlap))))
        form.update(extra)
        forms.append(form)
    unknown = set(python) - {f["api"] for f in forms}
    if unknown:
        raise ImportError("kvgold.ops.%s: TORCH_NPU_PYTHON names %s, which "
                          "tools/lib/bindings/%s.c does not declare"
                          % (op, ", ".join(sorted(unknown)), op))
    return tuple(forms)
