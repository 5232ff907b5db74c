"""kvgold as an ops-test-kit plug-in (docs/ttk.md).

    python3 -m ttk e2e -i cases.csv --plugin "$(python3 -m kvgold.ttk)"

The plug-in is a directory holding one file, written from the operators'
call forms (kvgold/ttk/_plugin_dir.py): ops-test-kit scans a --plugin
directory for .py files (skipping `__init__.py` and names starting with
`_`) and reads each file's module-level `__spec__` (API name -> TestSpec
class name) and `__golden__` ({"e2e": {API name: function name}}) as
literals, without importing it; it then executes the file on its own,
outside any package, when a case needs it. Those tables are facts each
operator's module states as data (TORCH_NPU_CALLS' "ttk_spec" and
"ttk_golden", kvgold/ops/__init__.py), so `plugin_dir()` writes them into
the file rather than a file per operator repeating them:
`python3 -m kvgold.ttk [DIR]` prints the directory (DIR, else
$KVGOLD_TTK_PLUGIN, else kvgold's directory in the user's cache), the file
rewritten when the forms change. The file imports its goldens and TestSpec
classes from this module by absolute import; this module builds them from
the call forms and gives them by name at run time (module __getattr__, a
name in __all__ each), so no file of the package names an operator.

For each operator, under the torch_npu API name ops-test-kit's e2e CSV
uses, kvgold is the `golden` and, as {"torch": golden}, the `third_party`
(an independent reference for cross_check, which ops-test-kit runs only on
a remote xpu-server: docs/ttk.md). The golden takes the API's own
arguments (torch tensors or NumPy arrays, on any device: they are copied
to the CPU), reads the chip from ops-test-kit's short_soc_version, ignores
its other metadata keywords, never writes its inputs, and returns the list
ops-test-kit compares: what the API returns as ops-test-kit lists it
([None] for an API that returns None), then the tensors it updates in
place, which ops-test-kit appends to the device's outputs for the slots of
the CSV's inplace_input_indexes (None for an output the call does not
produce, which ops-test-kit leaves uncompared) - the order `kvgold
prepare` writes its golden_<i> files in. Each TestSpec's `pre_compare`
fails a call whose device outputs do not line up with those goldens (a CSV
without inplace_input_indexes would compare none of the caches).

The plug-in file, if imported as a module, has its module `__spec__`
(normally importlib's ModuleSpec) replaced by the table: ops-test-kit
only ever executes it by path, and nothing in kvgold imports it.
"""
import inspect
import logging
from typing import (Any, Callable, Dict, List, Mapping, Optional, Sequence,
                    Tuple)

import kvgold
import kvgold.ops
from kvgold.ops._common import captured_runs

from .. import _errors
from . import _plugin_dir

Form = Mapping[str, Any]
"""A torch_npu call form (kvgold/ops/__init__.py describes its keys)."""
Golden = Callable[..., List[Any]]
"""ops-test-kit's golden of one API: its arguments in, the list of what it
compares out."""


# ops-test-kit's chip -> kvgold's "profile" option of an operator whose
# call form asks for it (the chip generation's behaviour). ops-test-kit's
# e2e golden call passes short_soc_version ("Ascend910B", "Ascend910_93",
# "Ascend950": ttk/core_modules/framework_api/golden_generation.py
# `_call_plugin_with_plan`); its kernel goldens also full_soc_version.
_PROFILES = (("Ascend950", "ascend950"), ("Ascend910B", "a2a3"),
             ("Ascend910_93", "a2a3"))
_SOC_KEYWORDS = ("short_soc_version", "soc_version", "full_soc_version")

def _is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _bind(api: str, tensor_names: Sequence[str], attr_names: Sequence[str],
          args: Sequence[Any], kwargs: Mapping[str, Any],
          attr_keywords: Optional[Mapping[str, str]] = None
          ) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
    """The call's tensors and attributes by torch_npu's names, whether
    ops-test-kit passes the tensors by position and the attributes by
    keyword (its plug-in convention; an attribute by the API's keyword
    where it differs from case.json's name, `attr_keywords`, as `kvgold
    prepare` writes it) or the API's own positional order (tensors and
    qkv_size / head_nums positionally). Other keywords are ops-test-kit's
    metadata (dtypes, shapes, soc_version...): returned apart, never given
    to kvgold, whose `dtypes` means something else."""
    tensors: Dict[str, Any] = {}
    attrs: Dict[str, Any] = {}
    meta: Dict[str, Any] = {}
    ti = ai = 0
    for value in args:
        if value is None or _is_tensor(value):
            if ti == len(tensor_names):
                raise TypeError("%s: more tensor arguments than its %d"
                                % (api, len(tensor_names)))
            tensors[tensor_names[ti]] = value
            ti += 1
        else:
            if ai == len(attr_names):
                raise TypeError("%s: unexpected argument %r" % (api, value))
            attrs[attr_names[ai]] = value
            ai += 1
    for key, value in kwargs.items():
        key = (attr_keywords or {}).get(key, key)
        if key in tensor_names:
            where = tensors
        elif key in attr_names:
            where = attrs
        else:
            meta[key] = value
            continue
        if key in where:
            raise TypeError("%s: %s given twice" % (api, key))
        where[key] = value
    tensors = {k: (v.detach().cpu() if hasattr(v, "detach") else v)
               for k, v in tensors.items()}
    return tensors, attrs, meta


def _profile(meta: Mapping[str, Any]) -> Optional[str]:
    for key in _SOC_KEYWORDS:
        soc = str(meta.get(key) or "")
        for prefix, profile in _PROFILES:
            if soc.startswith(prefix):
                return profile
    return None


def inplace_slots(form: Form) -> Tuple[int, Tuple[int, ...]]:
    """(returned, slots) of a torch_npu call form: how many of its outputs
    the API returns and the argument slots of the rest, which it writes in
    place (the form's "inplace", the same rule as `kvgold prepare`,
    tools/lib/scan/ttk_csv.c kvg_ttk_form_inplace). ops-test-kit's e2e run
    compares result_to_numpy(<what it returns>) ([None] for None)
    followed by the slots of the CSV's inplace_input_indexes, ascending."""
    tensors = list(form["tensors"])
    slots = tuple(tensors.index(name) for name in form["inplace"])
    if list(slots) != sorted(slots):
        raise ValueError("%s: in-place outputs not in argument order"
                         % form["api"])
    return len(form["outputs"]) - len(slots), slots


def golden_names(form: Form) -> Tuple[Optional[str], ...]:
    """What the golden of `form` returns, by kvgold name: None for the None
    an API that returns nothing gives ops-test-kit, then its outputs."""
    returned, _ = inplace_slots(form)
    return ((None,) if returned == 0 else ()) + tuple(form["outputs"])


def _parameter_names(form: Form, fn: Callable[..., Any]) -> Dict[str, str]:
    """{torch_npu name: the kvgold function's parameter} for the tensors
    the function takes under their case.json name instead."""
    params = inspect.signature(fn).parameters
    return {n: form["case_names"].get(n, n) for n in form["tensors"]
            if n not in params}


def _golden(form: Form) -> Golden:
    """ops-test-kit's golden of one torch_npu call form: the call's
    arguments bound by torch_npu's names, computed by kvgold's function
    without writing them, returned in the form's output order."""
    api = form["api"].split(".", 1)[1]
    fn = kvgold.ops.FUNCTIONS[form["function"]]
    names = golden_names(form)
    _, slots = inplace_slots(form)
    params = _parameter_names(form, fn)

    def golden(*args: Any, **kwargs: Any) -> List[Any]:
        t, a, meta = _bind(api, form["tensors"], form.get("attrs", ()),
                           args, kwargs, form.get("attr_keywords"))
        for slot in slots:
            if t.get(form["tensors"][slot]) is None:
                raise TypeError("%s: %s is written in place and must be "
                                "given" % (api, form["tensors"][slot]))
        t = {params.get(n, n): v for n, v in t.items()}
        extra = dict(form.get("call", {}))
        if form.get("profile"):
            extra["profile"] = _profile(meta)
        with captured_runs() as runs:
            out = list(fn(**t, **a, **extra))
        # an output this call does not produce (kvgold.run left it out):
        # the NPU leaves it unwritten, no golden to judge
        for name in form["produced_only"]:
            if not runs or name not in runs[-1]:
                out[form["outputs"].index(name)] = None
        # an API that returns None is [None] in ops-test-kit's list
        return [None] * (len(names) - len(out)) + out

    golden.__name__ = form["ttk_golden"]
    golden.__qualname__ = form["ttk_golden"]
    golden.__doc__ = "%s: [%s]: what it returns, then the tensors it " \
        "updates in place (None for an output the call does not " \
        "produce)." % (form["api"], ", ".join(
            "None" if n is None else n for n in names))
    return golden


def _pre_compare(form: Form) -> Callable[..., None]:
    """ops-test-kit's pre_compare hook for `form`: it is handed the device
    outputs, then the goldens (ttk/core_modules/comparison/custom.py
    `apply_pre_compare`). The goldens are kvgold's list (or the files
    `kvgold prepare` wrote from it); when the device outputs are not as
    many, compare() would pair them with the first goldens only and pass
    the rest unseen - a CSV without inplace_input_indexes compares none of
    the caches - so the call is failed, saying why (ops-test-kit reports
    the exception as the case's FAIL)."""
    names = golden_names(form)
    _, slots = inplace_slots(form)

    def pre_compare(*tensors: Any) -> None:
        if len(tensors) == 2 * len(names):
            return None
        want = "(%s)" % ", ".join(str(s) for s in slots) if len(slots) != 1 \
            else "(%d,)" % slots[0]
        message = (
            "kvgold: %s: %d tensors for the %d goldens [%s] and as many "
            "device outputs: the device outputs do not line up with the "
            "goldens, so some would not be compared; the testcase needs "
            "inplace_input_indexes=%s (kvgold prepare --csv writes it)"
            % (form["api"], len(tensors), len(names),
               ", ".join("None" if n is None else n for n in names), want))
        logging.error(message)
        raise ValueError(message)

    pre_compare.__name__ = pre_compare.__qualname__ = "pre_compare"
    return pre_compare


def _spec_class(form: Form, golden: Golden) -> type:
    return type(form["ttk_spec"], (), {
        "__doc__": "%s with kvgold as golden and (provider torch) as third "
                   "party." % form["api"],
        "__module__": __name__,
        "golden": golden, "third_party": {"torch": golden},
        "pre_compare": _pre_compare(form)})


def _build() -> Dict[str, Any]:
    """The goldens and TestSpec classes of every operator's calls, by
    name."""
    made: Dict[str, Any] = {}
    for op in sorted(kvgold.ops.TORCH_NPU_CALLS):
        for form in kvgold.ops.TORCH_NPU_CALLS[op]:
            golden = _golden(form)
            made[form["ttk_golden"]] = golden
            made[form["ttk_spec"]] = _spec_class(form, golden)
    return made


_MADE = _build()


def _exported() -> List[str]:
    """The module's public names: its own, then every built TestSpec
    class and golden. A built name that is one of the module's own would
    be shadowed: an ImportError naming it."""
    clash = sorted(set(_MADE) & set(globals()))
    if clash:
        raise ImportError("kvgold.ttk: %s (declared by kvgold.ops) named as "
                          "one of kvgold.ttk's own" % ", ".join(clash))
    return ["golden_names", "inplace_slots", "plugin_dir"] + sorted(_MADE)


# Every operator's TestSpec classes and goldens, under the names its
# ttk/<op>.py imports (`from kvgold.ttk import ...` reaches __getattr__).
__all__ = _exported()


def plugin_dir(path: Optional[str] = None) -> str:
    """The directory to give ops-test-kit's --plugin (path, else
    $KVGOLD_TTK_PLUGIN, else kvgold's directory in the user's cache), its
    plug-in file written from the call forms. kvgold.Error, with the OS
    reason, when it cannot be written."""
    try:
        return _plugin_dir.ensure(kvgold.ops.TORCH_NPU_CALLS,
                                  kvgold.__version__, path)
    except OSError as e:
        where = path or _plugin_dir.default_dir(kvgold.__version__)
        raise kvgold.Error(_errors.IO,
                           "kvgold.ttk: cannot write the plug-in directory "
                           "%s: %s (name a writable one: python3 -m "
                           "kvgold.ttk DIR, or $%s)"
                           % (where, e.strerror or e, _plugin_dir.ENV),
                           tensor=where) from e


def __getattr__(name: str) -> Any:
    """A TestSpec class or golden built from the call forms (_MADE); and
    PLUGIN_DIR, plugin_dir() of the default place, written on first use
    (not at import: importing kvgold.ttk writes no file)."""
    if name == "PLUGIN_DIR":
        return plugin_dir()
    try:
        return _MADE[name]
    except KeyError:
        raise AttributeError("module 'kvgold.ttk' has no attribute %r"
                             % name) from None


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_MADE))
