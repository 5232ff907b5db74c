#!/usr/bin/python3
"""The markdown table of the big-dump benchmark (tools/bench/bigdump.sh).

    /usr/bin/python3 tools/bench/bigdump_report.py RESULTS.tsv [--title T]

RESULTS.tsv has one row per (size, command) as bigdump.sh measures it:
the read time of the command's files (`cat FILES > /dev/null`), how much
of them the page cache held, the command's wall time and peak RSS, its
exit status and what became of it (ok, OOM, timeout, killed, wrong exit);
read and wall times are medians of pairs timed back to back, and `ratio`
the median of the pairs' ratios (rows without it, from older runs: wall
over read). Prints the table with the ratios to the read time and to the
input bytes, then the issue's targets:

  works     compare, good and bad dumps alike, finishes with the right
            verdict (exit 0 / 1)
  time      compare wall time <= 3x the read time of its files, at 1 GiB
            and above (the issue's 1 GiB and 4 GiB)
  memory    peak RSS of check and compare <= 64 MiB + 10 % of input bytes
  flat      peak RSS of check and compare independent of the cache size
            (the same 64 tokens written at every size): it grows by at most
            FLAT_SLACK from the smallest size to the largest

A target is met only when every row it covers was measured and passed it:
a command that failed, or a size not run, leaves it "not judged", which
does not pass. Exit status 0 when every command gave the right verdict
and every target is met, else 1. Not a test: the numbers are reported, the
suite never runs this.
"""
import argparse
import csv
import sys

MIB = 1 << 20
GIB = 1 << 30
TIME_RATIO = 3.0
RSS_BASE = 64 * MIB
RSS_SHARE = 0.10
FLAT_SLACK = 16 * MIB


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        r["input_bytes"] = int(r["input_bytes"])
        # the size asked for: the inputs come within a block of it
        r["size_bytes"] = parse_label(r["size"])
        r["read_s"] = float(r["read_s"])
        r["wall_s"] = float(r["wall_s"]) if r["wall_s"] else None
        r["rss"] = int(r["rss_kb"]) * 1024 if r["rss_kb"] else None
        r["ok"] = r["status"] == "ok"
        r["ratio"] = paired_ratio(r.get("ratio"), r["wall_s"], r["read_s"])
    return rows


def paired_ratio(ratio, wall_s, read_s):
    """The judged wall / read of a row (tools/bench/targets.py judges it
    too): its `ratio` field, the median of the pairs' ratios, where it has
    one (text, from results.tsv), else wall_s / read_s; None without a
    wall time or a read time."""
    if ratio:
        return float(ratio)
    if wall_s is None or read_s <= 0:
        return None
    return wall_s / read_s


def mark(verdict):
    return {True: "met", False: "**NOT met**", None: "not judged"}[verdict]


def time_target(r):
    """None where not applicable or not judged."""
    if not r["command"].startswith("compare") or r["size_bytes"] < GIB:
        return "-"
    if not r["ok"] or r["ratio"] is None:
        return None
    return r["ratio"] <= TIME_RATIO


def memory_target(r):
    if r["command"] == "run":
        return "-"
    if not r["ok"] or r["rss"] is None:
        return None
    return r["rss"] <= RSS_BASE + RSS_SHARE * r["input_bytes"]


def fmt_ratio(num, den, unit="x"):
    if num is None or not den:
        return "-"
    return "%.1f%s" % (num / den, unit)


def cached(pct):
    try:
        return "%.1f %%" % float(pct)
    except ValueError:
        return "n/a"  # not measured


def row_line(r):
    cells = [
        r["size"], r["command"], "%.0f MiB" % (r["input_bytes"] / MIB),
        "%.3f" % r["read_s"], cached(r["resident_pct"]),
        "-" if r["wall_s"] is None else "%.2f" % r["wall_s"],
        "-" if r["ratio"] is None else "%.1fx" % r["ratio"],
        "-" if r["rss"] is None else "%.0f" % (r["rss"] / MIB),
        fmt_ratio(r["rss"], r["input_bytes"]),
        r["status"],
    ]
    for t in (time_target(r), memory_target(r)):
        cells.append(t if t == "-" else mark(t))
    return "| " + " | ".join(cells) + " |"


def flat_target(rows, command):
    """RSS growth from the smallest to the largest size, and its verdict:
    already missed if the sizes that ran grew too much; met only if every
    size ran."""
    mine = sorted((r for r in rows if r["command"] == command),
                  key=lambda r: r["input_bytes"])
    measured = [r for r in mine if r["ok"] and r["rss"]]
    if len(measured) < 2:
        return None, None
    growth = (measured[-1]["rss"] - measured[0]["rss"],
              measured[0]["size"], measured[-1]["size"])
    if growth[0] > FLAT_SLACK:
        return growth, False
    return growth, True if len(measured) == len(mine) else None


def combine(verdicts, complete):
    """False if any row fails; True only if every row was judged and passed."""
    if False in verdicts:
        return False
    if not verdicts or None in verdicts or not complete:
        return None
    return True


def summary(rows, sizes_wanted):
    lines = []
    verdicts = []
    compares = [r for r in rows if r["command"].startswith("compare")]
    big = [s for s in sizes_wanted if s["bytes"] >= GIB]
    works = all(r["ok"] for r in compares) if compares else None
    if works and len({r["size"] for r in compares}) < len(sizes_wanted):
        works = None
    verdicts.append(works)
    lines.append("- works (compare, good and bad, every size): %s"
                 % mark(works))
    judged = [time_target(r) for r in compares if r["size_bytes"] >= GIB]
    t = combine(judged, complete=len(judged) == 2 * len(big))
    verdicts.append(t)
    lines.append("- time (compare <= %gx read, >= 1 GiB): %s"
                 % (TIME_RATIO, mark(t)))
    judged = [memory_target(r) for r in rows if r["command"] != "run"]
    m = combine(judged, complete=True)
    verdicts.append(m)
    lines.append("- memory (check, compare peak RSS <= 64 MiB + 10 %% of "
                 "input): %s" % mark(m))
    for command in ("check", "compare good", "compare bad"):
        growth, v = flat_target(rows, command)
        verdicts.append(v)
        lines.append("- flat (%s peak RSS grows <= %d MiB across sizes): %s%s"
                     % (command, FLAT_SLACK // MIB, mark(v),
                        "" if growth is None
                        else " (grows %.1f MiB from %s to %s)"
                        % (growth[0] / MIB, growth[1], growth[2])))
    return lines, verdicts


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--title", default="")
    ap.add_argument("--sizes", default="",
                    help="the sizes asked for, e.g. '256M 1G 4G': a size "
                         "missing from the results leaves targets unjudged")
    a = ap.parse_args(argv)
    rows = load(a.results)
    sizes = [{"label": s, "bytes": parse_label(s)} for s in a.sizes.split()]
    if not sizes:
        sizes = [{"label": s, "bytes": parse_label(s)}
                 for s in dict.fromkeys(r["size"] for r in rows)]
    if a.title:
        print(a.title + "\n")
    print("| size | command | input | read (s) | cached | wall (s) | "
          "wall / read | peak RSS (MiB) | RSS / input | result | time "
          "target | memory target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(row_line(r))
    caps = sorted({int(r["mem_cap_kb"]) for r in rows})
    if caps:
        low, high = ("%.1f" % (c / MIB) for c in (caps[0], caps[-1]))
        print("\nEach command ran under `ulimit -v` of %s GiB."
              % (low if low == high else low + " to " + high))
    missing = [s["label"] for s in sizes
               if s["label"] not in {r["size"] for r in rows}]
    if missing:
        print("Sizes not measured: %s." % ", ".join(missing))
    lines, verdicts = summary(rows, sizes)
    print("\nTargets:\n")
    print("\n".join(lines))
    all_ok = bool(rows) and all(r["ok"] for r in rows)
    return 0 if all_ok and all(v is True for v in verdicts) else 1


def parse_label(text):
    units = {"K": 1 << 10, "M": MIB, "G": GIB}
    t = text.strip().upper()
    return int(float(t[:-1]) * units[t[-1]]) if t[-1] in units else int(t)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
