"""kvgold as msprobe's benchmark for the KV-cache operators (docs/msprobe.md).

msprobe's accuracy checker re-runs each dumped NPU API on the CPU through a
"bench function" found by the API's name in its registry
(msprobe.pytorch.dump.function_factory.npu_custom_functions) and called
with the API's own arguments, `fn(*args, **kwargs)`, on CPU tensors; the
result must be on the CPU. The functions here are kvgold's torch_npu-named
functions (kvgold/ops/<op>.py) under those names, unchanged: the caches are
updated in place and the return value is torch_npu's.

    import kvgold.msprobe
    kvgold.msprobe.install()   # before msprobe's acc_check runs

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

from . import ops as _ops
from ._errors import PARAM_INVALID, Error

# msprobe's name of each API (torch_npu's function name) -> kvgold operator:
# every torch_npu-named function of kvgold/ops/<op>.py
API_OPS = {name: op for op, named in sorted(_ops.BY_OP.items())
           for name in named if name.startswith(("npu_", "_npu_"))}

# The tensor arguments each operator takes in float32 (its module's
# FP32_ARGS; None: any). Any other float32 tensor, and any float64 one,
# was widened by msprobe.
_FP32_ARGS = {op: getattr(m, "FP32_ARGS", None)
              for op, m in _ops.MODULES.items()}

# kvgold's own options (not torch_npu arguments) set by install(options=).
_options = {}


def _refuse_widened(api, bound):
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


def _bench(api):
    fn = _ops.FUNCTIONS[api]
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def bench(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        _refuse_widened(api, bound)
        for key, value in _options.items():
            if key in sig.parameters and key not in bound.arguments:
                kwargs[key] = value
        return fn(*args, **kwargs)
    return bench


BENCH_FUNCTIONS = {api: _bench(api) for api in API_OPS}
"""{msprobe API name: bench function}."""

globals().update(BENCH_FUNCTIONS)

# What to add to msprobe's bench_functions/fusion_operator_config.yaml when
# the functions are given to msprobe as a file in bench_functions/ rather
# than with install().
FUSION_OPERATOR_CONFIG = "".join(
    "  %s:\n    forward: %s\n    description: \"kvgold golden (%s)\"\n"
    % (api, api, op) for api, op in API_OPS.items())


def install(registry=None, *, not_raise=None, options=None):
    """Put the bench functions in msprobe's registry (default: its
    npu_custom_functions) and their names in `not_raise` (default: its
    acc_check_utils.not_raise_dtype_set). `options`: kvgold options for
    every call, e.g. {"profile": "950"} or {"reduce_order": "serial"}
    (docs/python.md). Returns the registry."""
    if registry is None:
        from msprobe.pytorch.dump.function_factory import \
            npu_custom_functions as registry
    if not_raise is None:
        from msprobe.pytorch.api_accuracy_checker.acc_check import \
            acc_check_utils
        not_raise = acc_check_utils.not_raise_dtype_set
    _options.clear()
    _options.update(options or {})
    for api, fn in BENCH_FUNCTIONS.items():
        registry[api] = fn
    not_raise.update(BENCH_FUNCTIONS)
    return registry


__all__ = ["API_OPS", "BENCH_FUNCTIONS", "FUSION_OPERATOR_CONFIG",
           "install"] + sorted(BENCH_FUNCTIONS)
