"""kvgold as an ops-test-kit plug-in (docs/ttk.md).

    python3 -m ttk e2e -i cases.csv --plugin "$(python3 -m kvgold.ttk)"

The plug-in is this package's directory: ops-test-kit scans a --plugin
directory for .py files (skipping `__init__.py` and names starting with
`_`) and reads each file's module-level `__spec__` (API name -> TestSpec
class name) and `__golden__` ({"e2e": {API name: function name}}) as
literals, without importing it; it then executes the file on its own,
outside any package, when a case needs it.

Each operator with torch_npu APIs has its own file here, `<op>.py`, whose
two literal tables name its APIs and import their goldens and TestSpec
classes from this module by absolute import. This module names no
operator: it builds those goldens and classes from what each operator's
module declares as data (TORCH_NPU_CALLS, kvgold/ops/__init__.py);
tests/python/test_ttk.py requires the files' tables to list exactly the
declared calls, each in its own operator's file.

For each operator, under the torch_npu API name ops-test-kit's e2e CSV
uses, kvgold is the `golden` and also the `third_party` (an independent
reference for cross_check: kvgold is not the NPU kernel's code). Both take
the API's own arguments (torch tensors, on any device: they are copied to
the CPU), ignore ops-test-kit's metadata keywords, never write their
inputs, and return the list ops-test-kit compares: what the API returns,
then the caches it updates in place (None for an output the call does not
produce, which ops-test-kit leaves uncompared) - the order `kvgold
prepare` writes its golden_<i> files in.

One quirk of ops-test-kit's convention: an operator's file, imported as
kvgold.ttk.<op>, has its module `__spec__` (normally importlib's
ModuleSpec) replaced by the table; ops-test-kit only ever executes those
files by path, and nothing in kvgold imports them.
"""
import os

import kvgold
import kvgold.ops

# The directory to give ops-test-kit's --plugin.
PLUGIN_DIR = os.path.dirname(os.path.abspath(__file__))

# ops-test-kit's soc_version keyword -> kvgold's profile option of
# the "profile" option of an operator whose call form asks for it (the chip
# generation's behaviour).
_PROFILES = (("Ascend950", "950"), ("Ascend910B", "a2a3"),
             ("Ascend910_93", "a2a3"))

def _is_tensor(value):
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _bind(api, tensor_names, attr_names, args, kwargs):
    """The call's tensors and attributes by torch_npu's names, whether
    ops-test-kit passes the tensors by position and the attributes by
    keyword (its plug-in convention) or the API's own positional order
    (tensors and qkv_size / head_nums positionally). Other keywords are
    ops-test-kit's metadata (dtypes, shapes, soc_version...): returned
    apart, never given to kvgold, whose `dtypes` means something else."""
    tensors, attrs, meta = {}, {}, {}
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


def _profile(meta):
    soc = str(meta.get("soc_version") or "")
    for prefix, profile in _PROFILES:
        if soc.startswith(prefix):
            return profile
    return None


def _golden(form):
    """ops-test-kit's golden of one torch_npu call form: the call's
    arguments bound by torch_npu's names, computed by kvgold's function
    without writing them, returned in the form's output order."""
    api = form["api"].split(".", 1)[1]
    fn = kvgold.ops.FUNCTIONS[form["function"]]

    def golden(*args, **kwargs):
        t, a, meta = _bind(api, form["tensors"], form.get("attrs", ()),
                           args, kwargs)
        for old, new in form.get("rename", {}).items():
            t[new] = t.pop(old, None)
        extra = dict(form.get("call", {}))
        if form.get("profile"):
            extra["profile"] = _profile(meta)
        out = list(fn(**t, **a, **extra))
        flag, unwritten = form.get("unwritten", (None, ()))
        if flag is not None and not a.get(flag):
            # the NPU leaves them unwritten then: no golden to judge
            for name in unwritten:
                out[form["outputs"].index(name)] = None
        return out

    golden.__name__ = form["ttk_golden"]
    golden.__qualname__ = form["ttk_golden"]
    golden.__doc__ = "%s: [%s]: what it returns, then the tensors it " \
        "updates in place (None for an output the call does not " \
        "produce)." % (form["api"], ", ".join(form["outputs"]))
    return golden


def _spec_class(form, golden):
    return type(form["ttk_spec"], (), {
        "__doc__": "%s with kvgold as golden and as third party."
                   % form["api"],
        "__module__": __name__,
        "golden": golden, "third_party": golden})


def _build():
    """The goldens and TestSpec classes of every operator's calls, by
    name."""
    made = {}
    for op in sorted(kvgold.ops.TORCH_NPU_CALLS):
        for form in kvgold.ops.TORCH_NPU_CALLS[op]:
            golden = _golden(form)
            made[form["ttk_golden"]] = golden
            made[form["ttk_spec"]] = _spec_class(form, golden)
    return made


globals().update(_build())
