"""The operators under the names and signatures NPU tests already call
(torch_npu, ATB), so that a test written for the NPU swaps its golden in
one line; docs/python.md, "Per-operator functions", lists every difference.

One module per operator, named as the operator is in case.json
(kvgold/ops/<op>.py), lists its functions in __all__. This package finds
the modules in its own directory (every module whose name does not start
with "_"; one not named as a kvgold operator is an ImportError): a new
operator's file is all it takes, and no shared file names an operator.
`kvgold`, `kvgold.torch_npu`, `kvgold.msprobe` and `kvgold.ttk` expose the
functions from FUNCTIONS at run time; `kvgold.ops.<op>` is the import a
type checker sees each function's signature through (docs/python.md,
"Types").

As on the NPU, the caches (and q_out) are updated in place by default;
inplace=False leaves them untouched and returns updated copies. The
keyword-only arguments after the operator's own are kvgold's options.

A module also declares how torch_npu calls the operator, which kvgold.ttk
and kvgold.msprobe build their wrappers from (so they name no operator).
What C states of a call form (tools/lib/bindings/<op>.c) is read from
libkvgold_case.so, never restated here (kvgold/ops/_forms.py); the module
adds only what Python alone knows. TORCH_NPU_CALLS[op] holds one dict per
torch_npu call form of the binding, in its order:
- from C: "api" (the full name, ops-test-kit's api_name), "tensors" and
  "attrs" (the arguments in torch_npu's order, tensors under torch_npu's
  names), "outputs" (what the API returns, then the tensors it updates
  in place, by kvgold name: the list the ops-test-kit golden returns),
  "inplace" (those updated tensors, by torch_npu name), "case_names"
  ({torch_npu name: case.json name} where they differ), "attr_keywords"
  ({the API's keyword: case.json's attribute} where they differ),
  "case_defaults"
  (a case's attribute default where torch_npu's differs), optionally
  "selector" (an input that selects this form over the operator's other
  ones), "produced_only" (the outputs the operator produces for some
  attributes only - its descriptor's KVG_OP_PRODUCED -, which a call that
  does not produce them leaves unwritten on the NPU: kvgold.run's result
  lacks them then);
- from the module's TORCH_NPU_PYTHON ({api: fields}): "function" (the
  kvgold function computing it without touching its inputs; a tensor is
  passed under its torch_npu name when the function takes that name,
  else under its case.json name) and "call" (keywords added to that
  call), optionally "profile" (the chip profile follows
  ops-test-kit's soc_version), and "ttk_spec" / "ttk_golden" (the names
  of the plug-in's TestSpec class and golden function).
- FP32_ARGS: the tensor arguments the NPU takes in float32 (a frozenset),
  or None when any tensor may be float32; msprobe's widened inputs are
  refused from it.
"""
import importlib
import pkgutil
from types import ModuleType
from typing import Any, Callable, Dict, Mapping, Sequence

from .._run import operators
from ._forms import torch_npu_forms

__all__ = ["BY_OP", "FUNCTIONS", "MODULES", "TORCH_NPU_CALLS"]


def _discover() -> Dict[str, ModuleType]:
    """{operator name: its module}, every module of this directory not
    starting with "_", sorted by name. Found by listing the directory
    rather than from kvgold.operators(): an operator without torch_npu or
    ATB names has no module, and a module named after no operator is a
    mistake to report, not one to skip."""
    known = set(operators())
    found: Dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        if info.name not in known:
            raise ImportError("kvgold.ops.%s: not a kvgold operator (%s)"
                              % (info.name, ", ".join(sorted(known))))
        found[info.name] = importlib.import_module(__name__ + "." +
                                                   info.name)
    return found


MODULES: Dict[str, ModuleType] = _discover()
"""{operator name: its module}."""

BY_OP: Dict[str, Dict[str, Callable[..., Any]]] = {
    op: {n: getattr(m, n) for n in m.__all__} for op, m in MODULES.items()}
"""{operator name: {function name: function}}."""

TORCH_NPU_CALLS: Dict[str, Sequence[Mapping[str, Any]]] = {
    op: torch_npu_forms(op, getattr(MODULES.get(op), "TORCH_NPU_PYTHON", {}))
    for op in sorted(operators())}
"""{operator name: its torch_npu call forms (the fields above)}, for every
operator: one with a C torch_npu form and no module is an ImportError."""


def _collect(by_op: Dict[str, Dict[str, Callable[..., Any]]]
             ) -> Dict[str, Callable[..., Any]]:
    """{function name: function} over every operator; a name defined by
    two operators is an error, not a silent choice."""
    functions: Dict[str, Callable[..., Any]] = {}
    for op, named in by_op.items():
        for name, fn in named.items():
            if name in functions:
                raise ImportError("kvgold.ops: %s is defined by two "
                                  "operators (one is %s)" % (name, op))
            functions[name] = fn
    return functions


FUNCTIONS: Dict[str, Callable[..., Any]] = _collect(BY_OP)
"""{function name: function} over every operator."""
