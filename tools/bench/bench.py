#!/usr/bin/env python3
"""kvgold benchmark driver: the C operators against the NumPy and torch goldens.

    /usr/bin/python3 tools/bench/bench.py --bench-bin DEFAULT_BIN
        [--second-bin BIN [--second-name NAME]] [--quick] [--only SUBSTR ...]
        [--budget SECONDS] [--numpy-budget SECONDS] [--rounds N]
        [--no-scaling | --no-main]
        [--markdown FILE] [--json FILE]

(`sh tools/bench.sh` builds the C side and runs this.) The shapes are each
operator's, in tools/bench/shapes/<op>.py (found, not listed). For every
shape: build seeded inputs, time the kvgen golden computing the expected
outputs (median of several runs), write the case into a temporary
directory, run kvgold_bench on it (it times the operator call alone, checks
the outputs bit for bit against that golden, and times a memcpy of the
bytes the op writes into one buffer, and the same bytes copied to the
same places: the op's written runs into buffers the size of its
outputs in address order and, for a copy, its exact moves in source
and in destination order), and print one row. Where torch is installed, the
plain PyTorch golden of tools/bench/torch_golden.py (written as the vendor's
goldens are, one thread) is timed in the same rounds as a peer; the C
output is checked against the NumPy golden only. With --second-bin, a second build
of the same sources (tools/bench.sh: the baseline build, KVG_DISPATCH=OFF)
runs on the same case too, its columns named by --second-name. Then the
scaling experiment: the same tokens with caches 1x, 16x and 256x larger,
the written slots spread over the whole cache.

Nothing here is a test and nothing asserts on time; the columns are
reported for docs/performance.md. A row whose outputs differ from the
golden is printed as MISMATCH and makes the exit status 1.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))

import numpy as np  # noqa: E402

from kvgen.casefile import write_case  # noqa: E402

import shapes  # noqa: E402  (tools/bench/shapes: one module per operator)
import torch_golden  # noqa: E402  (the PyTorch peer, where torch exists)


def short_names():
    """{case.json name: the name the tables show} of every operator with
    shapes."""
    return {shapes.op_name(m): m.NAME for m in shapes.modules()}


def main_shapes(quick):
    """Every operator's realistic shapes (shapes/<op>.py), built one at a
    time as the run reaches them."""
    for m in shapes.modules():
        for shape in m.main_shapes(quick):
            yield shape


def scaling_shapes(quick):
    """Same tokens, caches 1x, 16x, 256x: the op's time must not follow."""
    for m in shapes.modules():
        for shape in m.scaling_shapes(quick):
            yield shape


# ---- measuring -------------------------------------------------------------------

def time_golden(fn, budget):
    """Median wall time of fn() over at least 3 runs (more while under
    `budget` seconds in total, at most 50), and its last result."""
    times, spent, res = [], 0.0, None
    while len(times) < 3 or (spent < budget and len(times) < 50):
        t0 = time.perf_counter()
        res = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    times.sort()
    return times[len(times) // 2], len(times), res


def run_c(binary, case_dir, budget):
    p = subprocess.run([binary, case_dir, "--budget", str(budget)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode == 2 or not p.stdout.strip():
        raise RuntimeError("kvgold_bench failed on %s: %s" % (case_dir,
                                                              p.stderr))
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["stderr"] = p.stderr
    return r


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def summarise(runs):
    """One C measurement from several rounds: medians of the per-round
    medians, the best sample of all, verified only if every round was."""
    r = dict(runs[0])
    for k in ("op_ns", "op_first_ns", "memcpy_ns", "setup_ns", "load_ns"):
        r[k] = median([x[k] for x in runs])
    r["op_min_ns"] = min(x["op_min_ns"] for x in runs)
    # the same-places floors only where every round measured them: a
    # round without one must not make the floor look lower or higher
    for f in ("memcpy_places", "memcpy_order", "memcpy_dst_order"):
        if all(f + "_ns" in x for x in runs):
            r[f + "_ns"] = median([x[f + "_ns"] for x in runs])
            r[f + "_min_ns"] = min(x[f + "_min_ns"] for x in runs)
        else:
            r.pop(f + "_ns", None)
            r.pop(f + "_min_ns", None)
    if all("memcpy_paired_ratio" in x for x in runs):
        r["memcpy_paired_ratio"] = median([x["memcpy_paired_ratio"]
                                           for x in runs])
    else:
        r.pop("memcpy_paired_ratio", None)
    r["verified"] = all(x["verified"] for x in runs)
    return r


def measure(shape, binary, second, root, budget, np_budget, rounds,
            use_torch=True):
    """Time the golden and the C build(s) on one case, `rounds` times in
    turn (NumPy, C, second C, NumPy, ...), so that a burst of load on the
    machine lands on one round, not on one side of the comparison."""
    t0 = time.perf_counter()
    np_s, np_runs, expected = time_golden(shape.golden, np_budget)
    d = write_case(root, "case", shape.op, shape.attrs, shape.inputs,
                   expected, options=shape.options or None,
                   comment="benchmark: " + shape.label)
    tfn, why = torch_golden.make(shape) if use_torch else (None, "off")
    ts, tdiff = [], None
    if tfn is not None:
        t_s, _, got = time_golden(tfn, np_budget)
        ts.append(t_s)
        tdiff = torch_golden.differing(got, expected)
        del got
    del expected
    nps, cs, ns = [np_s], [], []
    for k in range(rounds):
        if k:
            nps.append(time_golden(shape.golden, np_budget)[0])
            if tfn is not None:
                ts.append(time_golden(tfn, np_budget)[0])
        cs.append(run_c(binary, d, budget))
        if second:
            ns.append(run_c(second, d, budget))
    shutil.rmtree(d)
    r = summarise(cs)
    r["ratio_range"] = (min(a * 1e9 / c["op_ns"] for a, c in zip(nps, cs)),
                        max(a * 1e9 / c["op_ns"] for a, c in zip(nps, cs)))
    if second:
        n = summarise(ns)
        r["second"] = {k: n[k] for k in ("op_ns", "op_min_ns", "op_first_ns",
                                         "memcpy_ns", "verified")}
        r["second"]["ratio_range"] = (
            min(a * 1e9 / c["op_ns"] for a, c in zip(nps, ns)),
            max(a * 1e9 / c["op_ns"] for a, c in zip(nps, ns)))
        r["verified"] = r["verified"] and n["verified"]
    if ts:
        r["torch_s"] = median(ts)
        r["torch_range"] = (min(a * 1e9 / c["op_ns"] for a, c in zip(ts, cs)),
                            max(a * 1e9 / c["op_ns"] for a, c in zip(ts, cs)))
        r["torch_diff"] = tdiff
    else:
        r["torch_why"] = why
    r.update(op=shape.op, label=shape.label, tokens=shape.tokens,
             group=shape.group, numpy_s=median(nps), numpy_runs=np_runs,
             rounds=len(cs), wall_s=time.perf_counter() - t0)
    return r


# ---- reporting ---------------------------------------------------------------------

def fmt_time(ns):
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_rate(x, unit):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return "%.2f %s%s" % (x / scale, prefix, unit)
    return "%.0f %s" % (x, unit)


SHORT_OP = short_names()

MAIN_COLS = ["op", "shape", "tokens", "C time", "tokens/s", "bytes/s",
             "torch time", "torch/C", "torch != NumPy", "NumPy time",
             "NumPy/C", "C/memcpy", "C/memcpy at the same places",
             "C/memcpy same moves", "NumPy/memcpy"]
SECOND_COLS = ["%s C time", "NumPy/%s", "%s/memcpy"]
SCALE_COLS = ["op", "shape", "cache bytes", "C time", "C best sample",
              "C first call", "NumPy time", "load + copy (setup)"]


def main_cols(second_name):
    """The main table's columns; second_name: the second build's, or None."""
    if not second_name:
        return MAIN_COLS
    return MAIN_COLS + [c % second_name for c in SECOND_COLS]


def ratio(value, rng, rounds):
    """"12.3x", with the range over rounds when there were several."""
    if rounds > 1:
        return "%.1fx (%.1f-%.1f)" % (value, rng[0], rng[1])
    return "%.1fx" % value


def same_moves(r):
    """(median, best) ns of the faster order of the op's own moves (source
    order, destination order: bench.h), or None if neither was measured."""
    got = [(r[f + "_ns"], r[f + "_min_ns"])
           for f in ("memcpy_order", "memcpy_dst_order") if f + "_ns" in r]
    return min(got) if got else None


def copy_ratio(r, c_ns):
    """The C/memcpy cell: for a copy with paired samples, the judged
    paired ratio (tools/bench/targets.py) first and the ratio of the two
    medians beside it; otherwise the ratio of the medians alone."""
    medians = "%.2fx" % (c_ns / r["memcpy_ns"])
    if r["copy_only"] and "memcpy_paired_ratio" in r:
        return "%.2fx paired (medians %s)" % (r["memcpy_paired_ratio"],
                                              medians)
    return medians


def row(r):
    c_ns = r["op_ns"]
    touched = r["bytes_read"] + r["bytes_written"]
    np_ns = r["numpy_s"] * 1e9
    memcpy = r["memcpy_ns"]
    cells = [SHORT_OP[r["op"]], r["label"], str(r["tokens"]), fmt_time(c_ns),
             fmt_rate(r["tokens"] / (c_ns * 1e-9), "tok/s"),
             fmt_rate(touched / (c_ns * 1e-9), "B/s")]
    if "torch_s" in r:
        t_ns = r["torch_s"] * 1e9
        cells += [fmt_time(t_ns),
                  ratio(t_ns / c_ns, r["torch_range"], r["rounds"]),
                  "?" if r["torch_diff"] is None else str(r["torch_diff"])]
    else:
        cells += ["-", "-", "-"]
    # C/memcpy for every row: for a computing op it says how far it is
    # from the floor a copy of its output bytes would set
    cells += [fmt_time(np_ns),
              ratio(np_ns / c_ns, r["ratio_range"], r["rounds"]),
              copy_ratio(r, c_ns),
              "%.2fx" % (c_ns / r["memcpy_places_ns"])
              if r["copy_only"] and r.get("memcpy_places_ns") else "-",
              "%.2fx" % (c_ns / same_moves(r)[0])
              if r["copy_only"] and same_moves(r) else "-",
              "%.1fx" % (np_ns / memcpy) if r["copy_only"] else "-"]
    if "second" in r:
        n = r["second"]
        cells += [fmt_time(n["op_ns"]),
                  ratio(np_ns / n["op_ns"], n["ratio_range"], r["rounds"]),
                  "%.2fx" % (n["op_ns"] / n["memcpy_ns"]) if r["copy_only"]
                  else "-"]
    if not r["verified"]:
        cells[3] = "MISMATCH"
    return cells


def scale_row(r):
    cells = [SHORT_OP[r["op"]], r["label"],
             fmt_rate(r["cache_bytes"], "B"), fmt_time(r["op_ns"]),
             fmt_time(r["op_min_ns"]), fmt_time(r["op_first_ns"]),
             fmt_time(r["numpy_s"] * 1e9),
             fmt_time(r["load_ns"] + r["setup_ns"])]
    if not r["verified"]:
        cells[3] = "MISMATCH"
    return cells


def markdown(cols, rows):
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(c) + " |" for c in rows]
    return "\n".join(lines)


def print_row(cells):
    print("  ".join(cells))
    sys.stdout.flush()


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__,
            "torch": torch_golden.version(),
            "load": os.getloadavg()}


def cache_bytes(shape):
    return sum(t.array.nbytes for n, t in shape.inputs.items()
               if n.endswith("cache"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-bin", required=True,
                    help="the kvgold_bench executable (portable build)")
    ap.add_argument("--second-bin",
                    help="a second kvgold_bench build to time on every "
                    "main shape (optional)")
    ap.add_argument("--second-name", default="second",
                    help="what to call the second build in the columns")
    ap.add_argument("--quick", action="store_true",
                    help="a few small shapes (a smoke run)")
    ap.add_argument("--only", nargs="*",
                    help="only shapes whose op or label contains one of these")
    ap.add_argument("--budget", type=float, default=0.3,
                    help="C sampling seconds per measurement (the scaling "
                    "runs use at least 1 s)")
    ap.add_argument("--numpy-budget", type=float, default=1.0,
                    help="NumPy timing seconds per shape (at least 3 runs)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure every shape this many times in turn and "
                    "report medians (and the ratio's range)")
    ap.add_argument("--no-torch", action="store_true",
                    help="do not time the PyTorch goldens")
    ap.add_argument("--no-scaling", action="store_true",
                    help="skip the scaling experiment")
    ap.add_argument("--no-main", action="store_true",
                    help="run the scaling experiment only")
    ap.add_argument("--markdown", help="write the tables here")
    ap.add_argument("--json", help="write every measurement here")
    a = ap.parse_args()

    m = machine()
    print("kvgold benchmark: %s, %d cores, Python %s, NumPy %s, torch %s, "
          "load %.2f" % (m["cpu"], m["cores"], m["python"], m["numpy"],
                         m["torch"] or "absent", m["load"][0]))
    groups = [] if a.no_main else [("main", main_shapes)]
    if not a.no_scaling:
        groups.append(("scaling", scaling_shapes))
    results, bad = [], 0
    root = tempfile.mkdtemp(prefix="kvgold_bench_")
    t_start = time.perf_counter()
    try:
        for name, make in groups:
            print("\n== %s ==" % ("operators, realistic shapes" if name ==
                                  "main" else "scaling: same tokens, caches "
                                  "1x / 16x / 256x"))
            print_row(main_cols(a.second_bin and a.second_name) if name == "main"
                      else SCALE_COLS)
            for shape in make(a.quick):
                text = SHORT_OP[shape.op] + " " + shape.label
                if a.only and not any(s in text or s in shape.op
                                      for s in a.only):
                    continue
                cb = cache_bytes(shape)
                r = measure(shape, a.bench_bin,
                            a.second_bin if name == "main" else None, root,
                            a.budget if name == "main" else max(a.budget, 1.0),
                            a.numpy_budget, max(a.rounds, 1),
                            name == "main" and not a.no_torch)
                r["cache_bytes"] = cb
                del shape
                bad += not r["verified"]
                results.append(r)
                print_row(row(r) if name == "main" else scale_row(r))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - t_start
    print("\n%d measurements in %.0f s; %d mismatches" % (len(results),
                                                          total, bad))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": m, "results": results}, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(main_cols(a.second_bin and a.second_name),
                             [row(r) for r in results
                                         if r["group"] == "main"]) + "\n\n")
            f.write(markdown(SCALE_COLS, [scale_row(r) for r in results
                                          if r["group"] == "scaling"])
                    + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
