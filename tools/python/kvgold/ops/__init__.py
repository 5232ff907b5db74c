"""The operators under the names and signatures NPU tests already call
(torch_npu, ATB), so that a test written for the NPU swaps its golden in
one line; docs/python.md, "Per-operator functions", lists every difference.

One module per operator, named as the operator is in case.json
(kvgold/ops/<op>.py), lists its functions in __all__. This package finds
the modules by looking in its folder, so adding an operator's functions
touches no shared file; `kvgold` puts every function at its top level.

As on the NPU, the caches (and q_out) are updated in place by default;
inplace=False leaves them untouched and returns updated copies. The
keyword-only arguments after the operator's own are kvgold's options.
"""
import importlib
import pkgutil


def _load_modules():
    """{operator name: {function name: function}} of every module here
    whose name does not start with "_" (those are helpers)."""
    by_op = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(__name__ + "." + info.name)
        by_op[info.name] = {n: getattr(module, n) for n in module.__all__}
    return by_op


BY_OP = _load_modules()
"""{operator name: {function name: function}}."""

def _collect(by_op):
    """{function name: function} over every operator; a name defined by
    two operators is an error, not a silent choice."""
    functions = {}
    for op, named in by_op.items():
        for name, fn in named.items():
            if name in functions:
                raise ImportError("kvgold.ops: %s is defined by two "
                                  "operators (one is %s)" % (name, op))
            functions[name] = fn
    return functions


FUNCTIONS = _collect(BY_OP)
"""{function name: function} over every operator."""
