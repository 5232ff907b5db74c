"""kvgold as msprobe's benchmark for the KV-cache operators (docs/msprobe.md).

msprobe's accuracy checker re-runs each dumped NPU API twice, on the device
and on the CPU through a "bench function" found by the API's name in its
registry (msprobe.pytorch.dump.function_factory.npu_custom_functions),
called with the API's own arguments, `fn(*args, **kwargs)`, and compares
the two return values. The functions here are kvgold's torch_npu-named
functions (kvgold/ops/<op>.py) under those names:

    import kvgold.msprobe
    kvgold.msprobe.install()   # before msprobe's acc_check runs

An API that updates tensors in place without returning them (the caches of
an API that returns None, its call form's in-place outputs) gives msprobe
nothing to compare: with torch_npu's None on both sides
msprobe writes "pass" ("Bench output is None, skip this test"). So its
bench function returns a dict instead, {"output.<i>": what the API
returns, ..., <argument>: the tensor after the call, ...}: against the
device's None or tuple msprobe says "error" (bench and npu output type is
different), never "pass". msprobe compares the tensors only when its
acc_check output handlers are configured (api_output_postprocess.yaml,
POSTPROCESS_CONFIG) with outputs_after_call() on both sides, which turns
either side's result into (returned..., in-place tensors after the call).

install() also lists the names in msprobe's not_raise_dtype_set: msprobe
otherwise hands a bench function its inputs widened (fp16 / bf16 to fp32,
fp32 to fp64), and kvgold's golden is the operator at its own dtypes. A
widened input is refused here, naming the argument, rather than computed
as another operator. msprobe widens fp8 and HiFloat8 tensors to fp32
whatever that set says, so caches of those dtypes cannot be checked
through it.
"""
import functools
import inspect
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, \
    MutableMapping, MutableSet, Optional, Tuple

from . import _compare
from . import ops as _ops
from .ops._common import captured_runs
from ._errors import PARAM_INVALID, Error

# msprobe's name of each API (torch_npu's function name) -> kvgold operator:
# every torch_npu-named function of kvgold/ops/<op>.py
API_OPS = {name: op for op, named in sorted(_ops.BY_OP.items())
           for name in named if name.startswith(("npu_", "_npu_"))}

# The tensor arguments each API updates in place and does not return: its
# call form's "inplace" (the tail of its outputs that are its arguments,
# the Tensor(a!) arguments of its torch_npu schema; tools/lib/bindings).
# An API without such arguments that returns None is refused (see _bench).
INPLACE_ARGS: Dict[str, Tuple[str, ...]] = {
    form["api"].split(".", 1)[1]: tuple(form["inplace"])
    for forms in _ops.TORCH_NPU_CALLS.values() for form in forms
    if form["inplace"] and form["api"].split(".", 1)[1] in API_OPS}

# The outputs an API produces for some attributes only (its call form's
# "produced_only": the operator descriptor's KVG_OP_PRODUCED): API -> (the
# names of the outputs in the order outputs_after_call gives them, those
# produced only sometimes). A call that does not produce one returns it as
# the NPU allocated it, with nothing to compare.
UNWRITTEN: Dict[str, Tuple[Tuple[str, ...], FrozenSet[str]]] = {
    form["api"].split(".", 1)[1]: (tuple(form["outputs"]),
                                   frozenset(form["produced_only"]))
    for forms in _ops.TORCH_NPU_CALLS.values() for form in forms
    if form["produced_only"]}

# The tensor arguments each operator takes in float32 (its module's
# FP32_ARGS; None: any). Any other float32 tensor, and any float64 one,
# was widened by msprobe.
_FP32_ARGS = {op: getattr(m, "FP32_ARGS", None)
              for op, m in _ops.MODULES.items()}

# kvgold's own options (not torch_npu arguments) set by install(options=).
_options: Dict[str, Any] = {}


def _refuse_widened(api: str, bound: inspect.BoundArguments) -> None:
    fp32_ok = _FP32_ARGS.get(API_OPS[api])
    for name, value in bound.arguments.items():
        dtype = getattr(value, "dtype", None)
        if dtype is None or not hasattr(value, "is_floating_point"):
            continue
        text = str(dtype).replace("torch.", "")
        if text == "float64" or (text == "float32" and fp32_ok is not None
                                 and name not in fp32_ok):
            raise Error(
                PARAM_INVALID,
                "%s: argument %s is %s, a dtype the NPU operator does not "
                "take: msprobe widened it before calling the bench function "
                "(fp16 / bf16 to fp32, fp32 to fp64, fp8 / hif8 to fp32). "
                "Call kvgold.msprobe.install() before acc_check, which "
                "lists this API in msprobe's not_raise_dtype_set; fp8 and "
                "HiFloat8 caches are widened regardless and cannot be "
                "checked through msprobe" % (api, name, text), tensor=name)


def _as_tuple(result: Any) -> Tuple[Any, ...]:
    """An API's return value as a tuple of its results."""
    if result is None:
        return ()
    if isinstance(result, (tuple, list)):
        return tuple(result)
    return (result,)


def _inplace_tensors(api: str, bound: inspect.BoundArguments
                     ) -> List[Tuple[str, Any]]:
    """(argument name, tensor after the call) of the API's in-place
    arguments that were given."""
    return [(n, bound.arguments[n]) for n in INPLACE_ARGS.get(api, ())
            if bound.arguments.get(n) is not None]


def _bench(api: str) -> Callable[..., Any]:
    fn = _ops.FUNCTIONS[api]
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def bench(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        _refuse_widened(api, bound)
        for key, value in _options.items():
            if key in sig.parameters and key not in bound.arguments:
                kwargs[key] = value
        result = fn(*args, **kwargs)
        if api not in INPLACE_ARGS:
            if result is None:
                # msprobe passes a None it compared with nothing
                raise Error(PARAM_INVALID, "%s returned None and kvgold "
                            "does not know which arguments it updated: "
                            "nothing to compare" % api)
            return result
        out = {"output.%d" % i: r for i, r in enumerate(_as_tuple(result))}
        out.update(_inplace_tensors(api, bound))
        return out
    return bench


BENCH_FUNCTIONS: Dict[str, Callable[..., Any]] = {
    api: _bench(api) for api in API_OPS}
"""{msprobe API name: bench function}."""



def __getattr__(name: str) -> Callable[..., Any]:
    """The bench function of API `name` (BENCH_FUNCTIONS): what a module
    in msprobe's bench_functions/ folder exports, under the API names."""
    try:
        return BENCH_FUNCTIONS[name]
    except KeyError:
        raise AttributeError("module 'kvgold.msprobe' has no attribute %r"
                             % name) from None


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(BENCH_FUNCTIONS))


def outputs_after_call(api_name: str, output: Any, args: Tuple[Any, ...],
                       kwargs: Mapping[str, Any]) -> Any:
    """msprobe's acc_check output handler (signature of its
    api_output_postprocess.yaml `acc_check_handlers`), for the golden and
    the target side alike: (what the API returned..., its in-place
    tensors after the call...), taken from the bench's dict or from the
    device's return value and arguments. An in-place tensor that
    kvgold.compare judges bitwise (a cache the call only copies into) is
    given as the integers of its bits, which msprobe compares bit for bit
    (its binary comparison of integer outputs) instead of with its
    statistical float standards. An output the call leaves unwritten
    (UNWRITTEN) is None on both sides: msprobe lists it SKIP instead of
    judging what the NPU happened to allocate. Other APIs' output
    unchanged."""
    if api_name not in INPLACE_ARGS and api_name not in UNWRITTEN:
        return output
    sig = inspect.signature(_ops.FUNCTIONS[api_name])
    bound = sig.bind(*args, **kwargs)
    if isinstance(output, dict):
        named = list(output.items())
        returned = [v for k, v in named if k.startswith("output.")]
        inplace = [(k, v) for k, v in named if not k.startswith("output.")]
    else:
        returned = list(_as_tuple(output))
        inplace = _inplace_tensors(api_name, bound)
    # what kvgold makes of this call (its roles, the outputs it produces),
    # learnt once by running it on copies of the arguments
    run = _run_on_copies(api_name, args, kwargs)
    bitwise = _bitwise_args(api_name, run) \
        if api_name in INPLACE_ARGS else frozenset()
    handled = tuple(returned) + tuple(
        _as_bits(t) if n in bitwise else t for n, t in inplace)
    return _drop_unwritten(api_name, run, handled)


def _drop_unwritten(api: str, produced: Optional[Any],
                    handled: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """`handled` with the outputs this call does not produce set to None:
    which ones, kvgold says (`produced`, its result of the call, leaves
    them out)."""
    if api not in UNWRITTEN or produced is None:
        return handled
    names, sometimes = UNWRITTEN[api]
    if len(names) != len(handled):
        return handled
    return tuple(None if n in sometimes and n not in produced else t
                 for n, t in zip(names, handled))


def _run_on_copies(api: str, args: Tuple[Any, ...],
                   kwargs: Mapping[str, Any]) -> Optional[Any]:
    """kvgold.run's result of the call, run on copies of its arguments
    (so the caller's tensors are untouched), or None if it ran none."""
    fn = _ops.FUNCTIONS[api]
    params = inspect.signature(fn).parameters
    copies = [_clone(a) for a in args]
    kwcopies = {k: _clone(v) for k, v in kwargs.items()}
    # with install()'s options, as the bench ran (a chip profile can
    # decide what the call is)
    for key, value in _options.items():
        if key in params and key not in kwcopies:
            kwcopies[key] = value
    with captured_runs() as runs:
        fn(*copies, **kwcopies)
    return runs[-1] if runs else None


def _bitwise_args(api: str, run: Optional[Any]) -> FrozenSet[str]:
    """The in-place arguments of this call that kvgold.compare judges
    bitwise: the criterion it picks from the role the operator gives the
    tensor in this call (a copy, or an arithmetic result) and its dtype,
    read from kvgold's run of the call on copies (`run`; the roles depend
    on the call's attributes and shapes, not on the caches' contents)."""
    if run is None:
        return frozenset()
    crit = _compare.auto_criteria(run, INPLACE_ARGS[api])
    return frozenset(n for n, c in crit.items() if c == "bitwise")


def _clone(value: Any) -> Any:
    clone = getattr(value, "clone", None)
    return clone() if callable(clone) else value


# The integers a float tensor's bits are read as, by element size. msprobe
# compares int8 / int32 / int64 only (its Const.INT_TYPE; an int16 pair is
# "cannot compare"), so 2-byte floats' bits are widened to int32: one
# integer per bit pattern, equal exactly when the bits are.
_BITS = {2: ("int16", "int32"), 4: ("int32", None), 8: ("int64", None)}


def _as_bits(t: Any) -> Any:
    if not getattr(t, "is_floating_point", lambda: False)():
        return t
    import torch
    same, wider = _BITS[t.element_size()]
    bits = t.view(getattr(torch, same))
    return bits if wider is None else bits.to(getattr(torch, wider))


# What to add to msprobe's bench_functions/fusion_operator_config.yaml when
# the functions are given to msprobe as a file in bench_functions/ rather
# than with install().
FUSION_OPERATOR_CONFIG = "".join(
    "  %s:\n    forward: %s\n    description: \"kvgold golden (%s)\"\n"
    % (api, api, op) for api, op in API_OPS.items())

# msprobe loads an acc_check output handler only from a file in its own
# msprobe/core/common/output_postprocess/ folder: this file, there, makes
# outputs_after_call() one.
POSTPROCESS_HANDLER_FILE = "kvgold_handlers.py"
POSTPROCESS_HANDLER = ("from kvgold.msprobe import outputs_after_call  "
                       "# noqa: F401\n")

# The entries to add to that folder's api_output_postprocess.yaml, under
# acc_check_handlers: target: and golden: (each side's mapping).
POSTPROCESS_CONFIG = "".join(
    "    %s: \"%s:outputs_after_call\"\n" % (api, POSTPROCESS_HANDLER_FILE)
    for api in sorted(set(INPLACE_ARGS) | set(UNWRITTEN)))


def install(registry: Optional[MutableMapping[str, Callable[..., Any]]]
            = None, *, not_raise: Optional[MutableSet[str]] = None,
            options: Optional[Mapping[str, Any]] = None
            ) -> MutableMapping[str, Callable[..., Any]]:
    """Put the bench functions in msprobe's registry (default: its
    npu_custom_functions) and their names in `not_raise` (default: its
    acc_check_utils.not_raise_dtype_set). `options`: kvgold options for
    every call, e.g. {"profile": "ascend950"} or {"reduce_order": "serial"}
    (docs/python.md). Returns the registry."""
    if registry is None:
        from msprobe.pytorch.dump import function_factory
        registry = function_factory.npu_custom_functions
    if not_raise is None:
        from msprobe.pytorch.api_accuracy_checker.acc_check import \
            acc_check_utils
        not_raise = acc_check_utils.not_raise_dtype_set
    assert registry is not None and not_raise is not None
    _options.clear()
    _options.update(options or {})
    for api, fn in BENCH_FUNCTIONS.items():
        registry[api] = fn
    for api in BENCH_FUNCTIONS:
        not_raise.add(api)
    return registry


_OWN = ["API_OPS", "BENCH_FUNCTIONS", "FUSION_OPERATOR_CONFIG",
        "INPLACE_ARGS", "POSTPROCESS_CONFIG", "POSTPROCESS_HANDLER",
        "POSTPROCESS_HANDLER_FILE", "UNWRITTEN", "install",
        "outputs_after_call"]
if set(_OWN) & set(BENCH_FUNCTIONS):
    raise ImportError("kvgold.msprobe: an API named as one of the module's "
                      "own: %s" % sorted(set(_OWN) & set(BENCH_FUNCTIONS)))
__all__ = _OWN + sorted(BENCH_FUNCTIONS)
