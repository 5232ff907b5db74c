#!/usr/bin/python3
"""Every performance target of docs/performance.md, judged from one
benchmark run (tools/bench.sh writes the files this reads).

    /usr/bin/python3 tools/bench/targets.py --ops OPS.json \\
        [--python PY.json ...] [--bigdump STATE=RESULTS.tsv ...]
        [--jobs JOBS.txt]

  operators  every computing shape >= 20x the PyTorch golden (1 thread);
             every copy-only shape <= 1.5x a memcpy of the bytes it writes:
             the median ratio of op and memcpy samples taken in pairs,
             back to back (both on the same machine state; where the run
             has no pairs, the ratio of the two medians), and beside it
             the ratio of the separately taken medians and of the best op
             sample; beside it, not judged, C over a memcpy of the same
             bytes to the same places, and over the faster order of the
             op's own moves
  python     kvgold.run(..., inplace=True) <= 15 us per call over the C
             call, per case
  compare    compare and check <= 1.5x the time of reading their files,
             warm and cold page cache, per size (tools/bench/bigdump.sh)
  jobs       check / compare over many cases with --jobs: the wall time
             per configuration (measured, no threshold: the target is that
             the cores are used, which the speed-up shows)

A target whose measurement is missing (torch not installed, a part of the
run skipped or failed) is "not judged", which does not pass. Prints
markdown; exit 0 when every judged target is met and none is missing, else
1. Not a test: the suite never runs this.
"""
import argparse
import csv
import json
import re
import sys

from bigdump_report import paired_ratio  # beside this file

TORCH_RATIO = 20.0
COPY_RATIO = 1.5
PYTHON_US = 15.0
COMPARE_RATIO = 1.5


def mark(verdict):
    return {True: "met", False: "**not met**", None: "not judged"}[verdict]


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def floor_ratio(r, field):
    """C over one of the same-places memcpy floors, as C/memcpy is shown;
    "-" where the run did not measure it."""
    f = r.get(field)
    if not f:
        return "-"
    return "%.2fx (best %.2fx)" % (r["op_ns"] / f, r["op_min_ns"] / f)


def moves_ratio(r):
    """C over the faster (median) of the two orders of the op's own moves
    (source order, destination order), as C/memcpy is shown; "-" where
    neither was measured."""
    got = [(r[f + "_ns"], f) for f in ("memcpy_order", "memcpy_dst_order")
           if r.get(f + "_ns")]
    if not got:
        return "-"
    f_ns, f = min(got)
    return "%.2fx (best %.2fx, %s order)" % (
        r["op_ns"] / f_ns, r["op_min_ns"] / f_ns,
        "source" if f == "memcpy_order" else "destination")


def ops_rows(doc):
    """(rows, verdicts) of the operator targets, main shapes only."""
    rows, verdicts = [], []
    for r in doc["results"]:
        if r.get("group") != "main":
            continue
        name = r["op"]
        c_ns = r["op_ns"]
        if not r.get("verified", False):
            rows.append([name, r["label"], "MISMATCH", "-", "-", "-",
                         "not judged"])
            verdicts.append(None)
            continue
        torch = ("%.1fx" % (r["torch_s"] * 1e9 / c_ns)
                 if "torch_s" in r else "-")
        if r.get("copy_only") and not r.get("memcpy_ns"):
            rows.append([name, r["label"], torch, "not measured", "-", "-",
                         "not judged (copy)"])
            verdicts.append(None)
            continue
        if r.get("copy_only"):
            med = c_ns / r["memcpy_ns"]
            best = r["op_min_ns"] / r["memcpy_ns"]
            paired = r.get("memcpy_paired_ratio")
            v = (paired if paired else med) <= COPY_RATIO
            cell = ("%.2fx paired (medians %.2fx, best %.2fx)"
                    % (paired, med, best) if paired
                    else "%.2fx (best %.2fx)" % (med, best))
            rows.append([name, r["label"], torch, cell,
                         floor_ratio(r, "memcpy_places_ns"),
                         moves_ratio(r),
                         mark(v) + " (copy)"])
        else:
            v = (r["torch_s"] * 1e9 / c_ns >= TORCH_RATIO
                 if "torch_s" in r else None)
            rows.append([name, r["label"], torch, "-", "-", "-", mark(v)])
        verdicts.append(v)
    return rows, verdicts


def python_rows(docs):
    rows, verdicts = [], []
    for d in docs:
        by = {x["row"]: x for x in d["rows"]}
        c = by.get("C call")
        run = by.get("run inplace")
        v = None if run is None else run["over_c_us"] <= PYTHON_US
        rows.append([d["case"], "%.1f" % c["us"] if c else "-",
                     "%.1f" % run["over_c_us"] if run else "-",
                     "; ".join("%s %.1f" % (k, x["over_c_us"])
                               for k, x in by.items()
                               if k.startswith(("npu_", "_npu_"))) or "-",
                     mark(v)])
        verdicts.append(v)
    return rows, verdicts


def bigdump_rows(state, path):
    """compare rows of one bigdump.sh run's results (its page cache
    `state`, warm or cold): the ratio of the wall time to the read time of
    its files, per size and command."""
    with open(path) as f:
        data = list(csv.DictReader(f, delimiter="\t"))
    rows, verdicts = [], []
    for r in data:
        if not r["command"].startswith(("compare", "check")):
            continue
        ok = r.get("status") == "ok" and r.get("wall_s")
        if not ok:
            rows.append([r["size"], r["command"], state, r["read_s"], "-",
                         "-", "-", "not judged (%s)" % r.get("status")])
            verdicts.append(None)
            continue
        read_s, wall_s = float(r["read_s"]), float(r["wall_s"])
        ratio = paired_ratio(r.get("ratio"), wall_s, read_s)
        if ratio is None:  # no read time: nothing to be within 1.5x of
            ratio = float("inf")
        v = ratio <= COMPARE_RATIO
        rss = "%.0f MiB" % (int(r["rss_kb"]) / 1024) if r.get("rss_kb") \
            else "-"
        rows.append([r["size"], r["command"], state, "%.3f s" % read_s,
                     "%.3f s" % wall_s, "%.2fx" % ratio, rss, mark(v)])
        verdicts.append(v)
    return rows, verdicts


JOB_LINE = re.compile(r"^(\S+)\s+median ([0-9.]+) s \(([0-9.]+)-([0-9.]+)\),"
                      r" CPU ([0-9.]+) s")


def jobs_rows(path):
    rows, head = [], ""
    with open(path) as f:
        for line in f:
            m = JOB_LINE.match(line)
            if m:
                rows.append([m.group(1), m.group(2) + " s",
                             "%s-%s s" % (m.group(3), m.group(4)),
                             m.group(5) + " s"])
            elif line.startswith("check:"):
                head = line.strip()
    return head, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", required=True, help="bench.py --json output")
    ap.add_argument("--python", nargs="*", default=[],
                    help="python_overhead.py --json outputs")
    ap.add_argument("--bigdump", nargs="*", default=[],
                    help="STATE=PATH: bigdump.sh's results.tsv of a warm "
                    "or a --cold run")
    ap.add_argument("--jobs", help="jobs_bench.sh's output")
    a = ap.parse_args()
    out, verdicts = ["## Targets, from this run", ""], []

    with open(a.ops) as f:
        rows, v = ops_rows(json.load(f))
    verdicts += v
    out += ["Operators (computing shapes: torch/C >= %gx; copy-only: "
            "C/memcpy <= %gx):" % (TORCH_RATIO, COPY_RATIO), "",
            table(["op", "shape", "torch/C", "C/memcpy",
                   "C/memcpy same places", "C/memcpy same moves", "target"],
                  rows),
            "",
            "C/memcpy: over a memcpy of the bytes written into one buffer "
            "of that size (the target): the median of the per-call ratios "
            "of op and memcpy samples taken in pairs, back to back, each "
            "sample after one untimed call of its own (\"paired\"; the "
            "judged figure), then the ratio of the two medians sampled "
            "apart and the op's best sample over the memcpy median. Not "
            "judged, beside it: C/memcpy "
            "same places, over a memcpy of the same bytes, run by run in "
            "address order, to the same offsets of buffers the size of the "
            "outputs; C/memcpy same moves, the op's own moves (each written "
            "run read from its own source offset) in source order or in "
            "destination order, whichever is faster. Where the literal "
            "target is not met, they show how much of the gap a plain copy "
            "to the same addresses pays too; they are measured plain "
            "copies, not proven lower bounds (an op that tiles its writes "
            "can beat them).",
            ""]

    docs = []
    for p in a.python:
        with open(p) as f:
            docs.append(json.load(f))
    rows, v = python_rows(docs)
    if not docs:
        v = [None]
    verdicts += v
    out += ["Python (`kvgold.run(..., inplace=True)` <= %g us over the C "
            "call):" % PYTHON_US, "",
            table(["case", "C call (us)", "run inplace over C (us)",
                   "torch_npu-named functions over C (us)", "target"],
                  rows) if rows else "not measured: not judged", ""]

    rows, v = [], []
    for item in a.bigdump:
        state, _, path = item.partition("=")
        try:
            r, x = bigdump_rows(state, path)
        except OSError as e:
            r, x = [["-", "compare", state, "-", "-", "-", "-",
                     "not judged (%s)" % e.strerror]], [None]
        rows += r
        v += x
    verdicts += v or [None]
    out += ["compare and check (<= %gx the read time of their files):"
            % COMPARE_RATIO,
            "", table(["size", "command", "page cache", "read", "compare",
                       "ratio", "peak RSS", "target"], rows)
            if rows else "not measured: not judged", ""]

    if a.jobs:
        head, rows = jobs_rows(a.jobs)
        out += ["Many cases (`--jobs`; %s):" % (head or "jobs_bench.sh"), "",
                table(["configuration", "median wall", "range",
                       "CPU (user+sys)"], rows), ""]
    else:
        out += ["Many cases: not measured.", ""]

    met = sum(1 for x in verdicts if x)
    missed = sum(1 for x in verdicts if x is False)
    unjudged = sum(1 for x in verdicts if x is None)
    out.append("%d targets met, %d not met, %d not judged." % (
        met, missed, unjudged))
    print("\n".join(out))
    return 0 if missed == 0 and unjudged == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
