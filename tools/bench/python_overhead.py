#!/usr/bin/env python3
"""What `import kvgold` costs per call over the C call it makes.

    KVGOLD_LIBRARY=build/dev/tools/python/lib/libkvgold.so \\
    PYTHONPATH=tools/python /usr/bin/python3 tools/bench/python_overhead.py \\
        [--case vectors/examples/deepseek_mla_decode] [--seconds 1]

(or, installed: PYTHONPATH=<prefix>/lib/python3/dist-packages.) For a
decode-sized case it times, per call (the median of 5 rounds of ~--seconds
each):

  C call      kvg_op_run on a call built once (ctypes, buffers reused):
              the operator itself, the floor of any binding
  run inplace kvgold.run(..., inplace=True): from the second call on, the
              call's plan (kvgold/_plan.py): the addresses read and
              patched into a prebuilt table, the outputs allocated, the
              call, the result dict
  run inplace, no plan
              the same through the full path (plans switched off, as for
              a first call or a tensor kind plans do not cover): views,
              tables, output shapes, workspace size, the call
  run         kvgold.run(...) as by default: the same plus copies of the
              caches (what keeps the caller's caches untouched)
  torch       kvgold.run with torch tensors (default, copies)
  npu_* ...   the operator's torch_npu / ATB-style functions (kvgold.ops,
              in place), each called with the case's names

and the overhead of each over the C call. Not a test: nothing asserts on
time (docs/performance.md, "Python binding").
"""
import argparse
import ctypes
import inspect
import os
import statistics
import sys
import time

import numpy as np

import kvgold
from kvgold import _lib, _plan, _run


def per_call(fn, seconds):
    """Median over 5 rounds of the mean time of one fn() call, in us."""
    n = 1
    while True:  # calibrate the count to ~seconds / 5 per round
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt > seconds / 20:
            break
        n *= 2
    n = max(1, int(n * (seconds / 5) / dt))
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(rounds)


def c_call(c):
    """A kvg_op_call built once; the closure only calls kvg_op_run."""
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    call, _ = _run.prepare(c.op, inputs, c.attrs, c.options, inplace=True)
    size = ctypes.c_size_t()
    call.check(_lib.lib.kvg_op_workspace_size(
        ctypes.byref(call.call), ctypes.byref(size), ctypes.byref(call.diag)))
    ws = ctypes.create_string_buffer(max(size.value, 1))
    call.call.workspace = ctypes.cast(ws, ctypes.c_void_p)
    call.call.workspace_size = size.value
    run, ref, diag = _lib.lib.kvg_op_run, ctypes.byref(call.call), \
        ctypes.byref(call.diag)

    def go():
        if run(ref, diag) != 0:
            raise SystemExit("kvg_op_run failed")
    go.keep = (call, ws, inputs)
    return go


def without_plans(fn):
    """fn through the full path: plans switched off around each call (a
    few hundred ns of its own)."""
    def go():
        saved = _plan.probe
        _plan.probe = lambda *a: None
        try:
            return fn()
        finally:
            _plan.probe = saved
    return go


def by_name(fn, tensors, c):
    """A call of fn, one of the case's per-operator functions (kvgold.ops),
    with the case's tensors, attributes and options as the arguments of the
    same names; None when fn has a required argument the case lacks."""
    values = dict(c.options)
    values.update(c.attrs)
    values.update(tensors)
    kw = {}
    for p in inspect.signature(fn).parameters.values():
        if p.name in values:
            kw[p.name] = values[p.name]
        elif p.default is p.empty:
            return None
    return lambda: fn(**kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "vectors", "examples",
        "deepseek_mla_decode"))
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--json", help="also write the rows here (us per call "
                    "and over the C call), for tools/bench/targets.py")
    a = ap.parse_args()
    c = kvgold.load_case(a.case)
    np_in = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    import torch
    torch.set_num_threads(1)
    th_in = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    cache_bytes = sum(np_in[n].nbytes for n in c.expected if n in np_in)
    rows = [("C call", c_call(c)),
            ("run inplace", lambda: kvgold.run(c.op, np_in, c.attrs,
                                               c.options, inplace=True)),
            ("run inplace, no plan", without_plans(
                lambda: kvgold.run(c.op, np_in, c.attrs, c.options,
                                   inplace=True))),
            ("run", lambda: kvgold.run(c.op, np_in, c.attrs, c.options)),
            ("torch", lambda: kvgold.run(c.op, th_in, c.attrs, c.options))]
    for name, fn in sorted(kvgold.ops.BY_OP.get(c.op, {}).items()):
        call = by_name(fn, th_in, c)
        if call is not None:
            rows.append((name, call))
    print("kvgold %s, %s, Python %s, NumPy %s, torch %s" % (
        kvgold.__version__, kvgold.library_path, sys.version.split()[0],
        np.__version__, torch.__version__))
    print("case %s (%s), caches %d bytes" % (a.case, c.op, cache_bytes))
    base = None
    out = []
    print("%-28s %12s %12s" % ("", "us per call", "over C call"))
    for name, fn in rows:
        us = per_call(fn, a.seconds)
        base = us if base is None else base
        out.append({"row": name, "us": us, "over_c_us": us - base})
        print("%-28s %12.1f %12s" % (name, us, "-" if fn is rows[0][1]
                                     else "%.1f" % (us - base)))
    if a.json:
        import json
        with open(a.json, "w") as f:
            json.dump({"case": os.path.basename(os.path.normpath(a.case)),
                       "op": c.op, "rows": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
