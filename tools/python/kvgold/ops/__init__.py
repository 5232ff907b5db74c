"""The operators under the names and signatures NPU tests already call
(torch_npu, ATB), so that a test written for the NPU swaps its golden in
one line; docs/python.md, "Per-operator functions", lists every difference.

One module per operator, named as the operator is in case.json
(kvgold/ops/<op>.py), lists its functions in __all__. This package imports
each module by name (one line per operator below), and `kvgold` and
`kvgold.torch_npu` import each function by name, so that a reader and a
type checker see every one (an operator's functions are its extension
points there: docs/architecture.md).

As on the NPU, the caches (and q_out) are updated in place by default;
inplace=False leaves them untouched and returns updated copies. The
keyword-only arguments after the operator's own are kvgold's options.

A module also declares, as data, how the frameworks call the operator,
which kvgold.ttk and kvgold.msprobe build their wrappers from (so they
name no operator):
- TORCH_NPU_CALLS: one dict per torch_npu API kvgold stands for, with
  "api" (the full name, ops-test-kit's api_name), "function" (the kvgold
  function computing it without touching its inputs) and "call" (keywords
  added to that call), "tensors" and "attrs" (the arguments in torch_npu's
  order), "rename" ({torch_npu name: the kvgold function's name}),
  "case_names" ({torch_npu name: case.json name} where they differ and
  "rename" does not say it) and "case_defaults" (a case's attribute
  default where torch_npu's differs), "outputs" (what the API
  returns, then the tensors it updates in place: the list the ops-test-kit
  golden returns), optionally "selector" (an input that selects this form
  over the operator's other ones), "unwritten" ((attribute, outputs): left
  None unless the attribute is true), "profile" (the chip profile follows
  ops-test-kit's soc_version), and "ttk_spec" / "ttk_golden" (the names of
  the plug-in's TestSpec class and golden function);
- FP32_ARGS: the tensor arguments the NPU takes in float32 (a frozenset),
  or None when any tensor may be float32; msprobe's widened inputs are
  refused from it.
The C tools read the same facts from tools/lib/bindings/<op>.c.
"""
from types import ModuleType
from typing import Any, Callable, Dict, Mapping, Sequence

from . import (kv_rms_norm_rope_cache, qkv_rms_norm_rope_cache,
               reshape_and_cache, reshape_and_cache_omni,
               scatter_pa_kv_cache)

__all__ = ["BY_OP", "FUNCTIONS", "MODULES", "TORCH_NPU_CALLS"]

MODULES: Dict[str, ModuleType] = {
    m.__name__.rsplit(".", 1)[1]: m for m in (
        kv_rms_norm_rope_cache, qkv_rms_norm_rope_cache, reshape_and_cache,
        reshape_and_cache_omni, scatter_pa_kv_cache)}
"""{operator name: its module}."""

BY_OP: Dict[str, Dict[str, Callable[..., Any]]] = {
    op: {n: getattr(m, n) for n in m.__all__} for op, m in MODULES.items()}
"""{operator name: {function name: function}}."""

TORCH_NPU_CALLS: Dict[str, Sequence[Mapping[str, Any]]] = {
    op: getattr(m, "TORCH_NPU_CALLS", ()) for op, m in MODULES.items()}
"""{operator name: its torch_npu call forms (the fields above)}."""


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
